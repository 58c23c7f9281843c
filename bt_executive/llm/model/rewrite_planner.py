"""RewritePlanner: the model rewrites the task into the robot's language; the grammar planner plans it.

A model profile with ``output_mode: rewrite`` (``local-rewrite`` in
config/llm.yaml) asks its llama.cpp model for no skill calls. It asks it to
say the task again in the controlled language (``rewrite_grammar``: the
sentences the task grammar parses, from this robot's verbs and this world's
object words), with the reply held to that language by a GBNF grammar. The
deterministic planner then plans the restatement (grounding, skill choice,
affordances, preconditions, goals), and the plan is checked against the
ORIGINAL task (``faithfulness``)::

    "shove the crimson block leftwards a touch"
      -> model, grammar-constrained:  "push the red cube left"
      -> grammar planner:             push(red_cube, left)
      -> faithful to the task?        yes -> the plan (noted: rewritten as ...)

Before the model is asked, every sentence of the narrowed language is
planned and checked (``restatement_search``): where none is faithful the task
is refused with no model call; where one is, that is the plan; where several
with different outcomes are, the task is refused as ambiguous, naming them
(its candidates: each a sentence the user may say instead, to have that one planned).
Only a language too large to search is left to the model to restate freely;
its first request goes out as soon as the search knows that, while the search
runs on (llama.cpp keeps to one core of two: the two overlap).

A restatement the grammar planner refuses or that is not faithful gets one
repair (the reason sent back); after that the task is refused, never guessed:
the deterministic planner's own refusal, or ``unfaithful``. The model's reply
is short (a few words, not a JSON plan), so a plan costs fewer generated
tokens than skill-call output. Requests go straight to the llama.cpp server's
``/v1/chat/completions`` (no litellm import: seconds saved on a cold start).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from bt_executive.llm.grammar_planner.planner import GrammarPlanner
from bt_executive.llm.language.task_grammar import TaskNotUnderstood
from bt_executive.llm.model.auto_planner import unread
from bt_executive.llm.model.faithfulness import Faithfulness, asks_for_anything, check_faithful, with_note
from bt_executive.llm.model.restatement_search import Restatements, faithful_restatements
from bt_executive.llm.model.rewrite_grammar import Focus, RewriteGrammar, rewrite_grammar, task_focus
from bt_executive.llm.model.task_reading import TaskReading, read_task
from bt_executive.llm.plan import KeywordContextPlanner, Plan, PlannerError, PlannerRefused, RefusalKind
from bt_executive.llm.profiles import LLMProfile, load_llm_config, offered_skills
from bt_executive.llm.serving.llama_http import LlamaHttpError, chat_url, post_json
from bt_executive.llm.serving.local_model import LocalModelError
from bt_executive.llm.serving.owned_server import OwnedServer
from bt_executive.skills.call import AttemptRecord
from bt_executive.skills.capabilities import RobotCapabilities
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import WorldState

log = logging.getLogger(__name__)

PlanGate = Callable[[Plan, WorldState], object]
Message = dict[str, Any]

SYSTEM = (
    "You rewrite a user's request to a robot as short robot commands. "
    "Write only commands, joined by 'then'. Keep the user's objects, directions and amounts; "
    "add nothing the user did not ask for. Commands look like: {forms}."
)
"""The system prompt: short (a 135M model reads ~130 tokens a second), the grammar does the rest."""

_FORM_EXAMPLES: tuple[tuple[str, str], ...] = (
    ("pick-verb", "pick up OBJECT"),
    ("put-verb", "put OBJECT on OBJECT"),
    ("stack-verb", "stack OBJECT on OBJECT"),
    ("push-verb", "push OBJECT left"),
    ("pour-verb", "pour OBJECT into OBJECT"),
    ("open-verb", "open OBJECT"),
    ("close-verb", "close OBJECT"),
)
"""One template per form the grammar has, named by its verb rule, for the prompt."""


@dataclass
class _Dialogue:
    """What the model's turns of one plan came to: the plan (None when refused), the refusal, each request's
    record and each restatement."""

    plan: Plan | None = None
    refusal: PlannerRefused | None = None
    records: list[Any] = field(default_factory=list)
    rewrites: list[str] = field(default_factory=list)


class _AheadDialogue:
    """The model's restatement and its repair, asked while the search still runs: started once the search knows
    it cannot try every sentence, so llama.cpp's one thread and the search's Python run side by side (two cores),
    and a restatement that is not faithful is sent back at once, not after the search. When the search finds the
    plan after all, the dialogue is cancelled: a request under way is finished by the server (a few tens of
    tokens), and no repair is sent after it."""

    def __init__(self, converse: Callable[[threading.Event], _Dialogue]) -> None:
        self._converse = converse
        self._result: Future[_Dialogue] | None = None
        self._cancelled = threading.Event()

    def start(self) -> None:
        """Run the dialogue on a thread of its own (once)."""
        if self._result is not None:
            return
        result: Future[_Dialogue] = Future()
        self._result = result

        def run() -> None:
            try:
                result.set_result(self._converse(self._cancelled))
            except BaseException as err:  # re-raised by take(), in the planning thread
                result.set_exception(err)

        # A daemon thread, not an executor's: a reply no one waits for must not hold up the process's exit.
        threading.Thread(target=run, name="rewrite-ahead", daemon=True).start()

    def cancel(self) -> None:
        """The search settled the task: send nothing more."""
        self._cancelled.set()

    def take(self) -> _Dialogue:
        """The dialogue's outcome: waited for, or run here and now when the search never started it."""
        if self._result is None:
            return self._converse(self._cancelled)
        return self._result.result()


class RewritePlanner(KeywordContextPlanner):
    """The ``Planner`` for a ``rewrite`` profile: model restates, grammar plans, faithfulness checks."""

    name = "rewrite"

    def __init__(
        self,
        profile: LLMProfile,
        registry: SkillRegistry,
        robot: RobotCapabilities | None = None,
        *,
        plan_gate: PlanGate | None = None,
        search: bool = True,
    ) -> None:
        """``search``: search the narrowed language before asking the model (False: the model restates freely,
        as benchmarks/rewrite_modes.py compares)."""
        if profile.output_mode != "rewrite" or not profile.api_base:
            raise ValueError(f"profile {profile.name!r} is not a rewrite profile with an api_base")
        self.profile = profile
        self.registry = offered_skills(profile, registry, robot)
        self.plan_gate = plan_gate
        self.searching = search
        self.grammar_planner = GrammarPlanner(self.registry)
        self.last_trace: Any = None  # a PlanningTrace (llm_planner's) of the last plan()
        self.last_rewrites: tuple[str, ...] = ()
        self._grammars: dict[str, RewriteGrammar] = {}
        self._owned = OwnedServer(profile)

    @classmethod
    def from_config(
        cls,
        name: str,
        registry: SkillRegistry,
        robot: RobotCapabilities | None = None,
        *,
        config_path: Any = None,
        plan_gate: PlanGate | None = None,
    ) -> RewritePlanner:
        """The planner for rewrite profile ``name`` of ``config/llm.yaml`` (or ``config_path``)."""
        return cls(load_llm_config(config_path).profile(name), registry, robot, plan_gate=plan_gate)

    # -- the Planner protocol ---------------------------------------------------------------------

    def plan(
        self,
        task: str,
        world_state: WorldState,
        prior_attempts: Sequence[AttemptRecord] = (),
        *,
        context: Sequence[str] = (),
    ) -> Plan:
        """The grammar planner's plan of the model's restatement, faithful to ``task``; else refused.

        ``context`` (the skill-call planner's lines) is not sent: the prompt carries the grammar's partial parse
        in the robot's own words instead (``partial_parse``), a few tokens a small model can copy."""
        from bt_executive.llm.model.llm_planner import PlanningTrace

        reading = read_task(task, world_state, self.registry)  # once, for the narrowed language and the search
        narrowed = self.grammar(world_state, task, reading=reading)
        if not narrowed.says_anything:  # every command would be refused as unfaithful: ask the model nothing
            self.last_trace, self.last_rewrites = PlanningTrace(profile=self.profile.name, outcome="no command"), ()
            raise PlannerRefused(
                f"{task!r} asks for what no skill of this robot does: no command of its language can say it",
                RefusalKind.MISSING_SKILL,
            )
        # Built only when the model is asked (the full language for the prompt's forms is built once a planner).
        ahead = _AheadDialogue(
            lambda cancelled: self._converse(
                task,
                world_state,
                prior_attempts,
                self.messages(task, world_state, narrowed, reading=reading),
                narrowed.gbnf(),
                cancelled,
            )
        )
        searched = (
            self.search(task, world_state, prior_attempts, reading=reading, on_incomplete=ahead.start)
            if self.searching
            else Restatements((), False, 0)
        )
        if searched.complete or searched.found:
            ahead.cancel()  # settled without the model (a dialogue started meanwhile sends no repair)
        if searched.none_can_pass:
            self.last_trace, self.last_rewrites = PlanningTrace(profile=self.profile.name, outcome="none faithful"), ()
            raise self._no_restatement(task, world_state, searched, reading)
        meanings = searched.meanings(world_state, self.registry)
        if len(meanings) > 1:  # the task's words allow several outcomes: a small model's pick would be a guess
            self.last_trace = PlanningTrace(profile=self.profile.name, outcome="several faithful")
            self.last_rewrites = tuple(sentence for sentence, _, _ in meanings)
            said = "; ".join(f"{sentence!r}" for sentence, _, _ in meanings[:4])
            raise PlannerRefused(  # the candidates are tasks of their own: the user says one to have it planned
                f"{task!r} may mean any of {said}{' ...' if len(meanings) > 4 else ''}: say which",
                RefusalKind.AMBIGUOUS,
                candidates=self.last_rewrites,
            )
        if meanings:  # the one faithful meaning: nothing for the model to choose
            ((sentence, only, verdict),) = meanings
            self.last_trace = PlanningTrace(profile=self.profile.name, outcome="plan (the one faithful restatement)")
            self.last_rewrites = (sentence,)
            return self._labelled(only, sentence, verdict, searched=True)
        # The search was incomplete (the language is too large to try every sentence): the model's restatement.
        dialogue = _Dialogue()
        try:
            dialogue = ahead.take()
        except PlannerError as err:
            self.last_trace = PlanningTrace(profile=self.profile.name, outcome=str(err))
            self.last_rewrites = ()
            raise
        records = tuple(dialogue.records)
        self.last_rewrites = tuple(dialogue.rewrites)
        if dialogue.plan is not None:
            self.last_trace = PlanningTrace(profile=self.profile.name, requests=records, outcome="plan")
            return dialogue.plan
        assert dialogue.refusal is not None
        self.last_trace = PlanningTrace(profile=self.profile.name, requests=records, outcome=str(dialogue.refusal))
        raise dialogue.refusal

    def _converse(
        self,
        task: str,
        world: WorldState,
        prior_attempts: Sequence[AttemptRecord],
        messages: list[Message],
        grammar: str,
        cancelled: threading.Event,
    ) -> _Dialogue:
        """The model's restatement, planned and checked against ``task``, and at most one repair with the reason:
        the first faithful plan, or the last refusal (``cancelled``: no repair is sent once it is set)."""
        from bt_executive.llm.model.llm_planner import RequestRecord

        dialogue = _Dialogue()
        for turn in range(min(self.profile.max_repairs, 1) + 1):
            if turn and cancelled.is_set():
                break
            started = time.perf_counter()
            text, prompt_tokens, completion_tokens = self._complete(messages, grammar)
            dialogue.rewrites.append(text)
            plan, refusal, unfaithful = self._plan_rewrite(text, task, world, prior_attempts)
            dialogue.records.append(
                RequestRecord(
                    latency_s=time.perf_counter() - started,
                    prompt_tokens=prompt_tokens,
                    completion_tokens=completion_tokens,
                    problems=(refusal.reason,) if refusal is not None else (),
                    unfaithful=unfaithful,
                )
            )
            dialogue.plan, dialogue.refusal = plan, refusal
            if plan is not None:
                break
            assert refusal is not None
            messages = [
                *messages,
                {"role": "assistant", "content": text},
                {"role": "user", "content": f"No: {refusal.reason}. Rewrite the request again."},
            ]
        return dialogue

    # -- pieces (public so tests and benchmarks see exactly what is sent) -------------------------

    def grammar(self, world_state: WorldState, task: str = "", *, reading: TaskReading | None = None) -> RewriteGrammar:
        """The controlled language for this world, narrowed to what ``task`` names (``rewrite_grammar.Focus``;
        ``reading``: the task's, already made)."""
        focus = task_focus(task, world_state, self.registry, reading=reading) if task else Focus()
        objects = [(o.id, o.colour, o.category) for o in world_state.objects]
        places = [sorted(world_state.drawers), sorted(world_state.regions)]
        said = {name: sorted(v) if isinstance(v, frozenset) else v for name, v in vars(focus).items()}  # every field
        key = json.dumps([objects, *places, said])
        if key not in self._grammars:
            if len(self._grammars) > 64:  # one per task in serve: bounded
                self._grammars.clear()
            self._grammars[key] = rewrite_grammar(self.registry, world_state, focus=focus)
        return self._grammars[key]

    def messages(
        self,
        task: str,
        world_state: WorldState,
        narrowed: RewriteGrammar | None = None,
        *,
        reading: TaskReading | None = None,
    ) -> list[Message]:
        """The system prompt (the command shapes of this robot, the same for every task, so llama.cpp keeps its
        tokens cached) and the task, with the objects a command may name and the grammar's partial parse
        (``partial_parse``), as the user's turn (``narrowed``, ``reading``: the grammar already narrowed to
        ``task`` and the task's reading, so the task is not read twice)."""
        full = self.grammar(world_state)
        forms = [shape for rule, shape in _FORM_EXAMPLES if rule in full.rules]
        forms += [f"{p} ..." for p in full.phrases("act-place")[:6]]
        if ("go home",) in full.rules.get("clause", ()):
            forms.append("go home")
        system = SYSTEM.format(forms="; ".join(forms))
        objects = (narrowed or self.grammar(world_state, task)).phrases("object")
        user = f"{task}\n(objects: {', '.join(objects)})" if task else task
        if task:
            reading = reading or read_task(task, world_state, self.registry)
            user += "".join(f"\n({line})" for line in partial_parse(reading))
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def search(
        self,
        task: str,
        world_state: WorldState,
        prior_attempts: Sequence[AttemptRecord] = (),
        *,
        reading: TaskReading | None = None,
        on_incomplete: Callable[[], object] | None = None,
    ) -> Restatements:
        """The faithful restatements of ``task`` among every sentence of its narrowed language
        (``on_incomplete``: called once the search knows it cannot try them all)."""
        reading = reading if reading is not None else read_task(task, world_state, self.registry)
        focus = task_focus(task, world_state, self.registry, reading=reading)
        return faithful_restatements(
            task,
            reading,
            focus,
            world_state,
            self.registry,
            self.grammar_planner,
            prior_attempts,
            gate=self.plan_gate,
            on_incomplete=on_incomplete,
        )

    def warm(self, world_state: WorldState) -> None:
        """Start the local model now and read the system prompt once, so a task's plan processes only its task."""
        self._ensure_server()
        self._complete(self.messages("", world_state), self.grammar(world_state).gbnf(), max_tokens=1)

    def close(self) -> None:
        """Stop a local model this planner started (no-op otherwise); the planner starts none afterwards."""
        with self._owned.lock:
            self._owned.stop()

    # -- internals ----------------------------------------------------------------------------------

    def _plan_rewrite(
        self, text: str, task: str, world: WorldState, prior_attempts: Sequence[AttemptRecord]
    ) -> tuple[Plan | None, PlannerRefused | None, tuple[str, ...]]:
        """(plan, None, ()) for a faithful plan of the restatement; else (None, the refusal, what was unfaithful)."""
        try:
            plan = self.grammar_planner.plan(text, world, prior_attempts)
        except PlannerRefused as refused:
            return None, PlannerRefused(f"the restatement {text!r}: {refused.reason}", refused.kind), ()
        except TaskNotUnderstood:
            reason = f"the restatement {text!r} is not in the robot's language"
            return None, PlannerRefused(reason, RefusalKind.UNFAITHFUL), ()
        except PlannerError as err:
            return (
                None,
                PlannerRefused(f"the restatement {text!r} cannot be planned: {err}", RefusalKind.UNFAITHFUL),
                (),
            )
        if self.plan_gate is not None:
            try:
                self.plan_gate(plan, world)
            except PlannerRefused as refused:
                return None, refused, ()
        verdict = check_faithful(plan, task, world, self.registry, prior_attempts)
        if not verdict.faithful:
            return None, verdict.refusal(), verdict.problems
        return self._labelled(plan, text, verdict), None, ()

    def _labelled(self, plan: Plan, text: str, verdict: Faithfulness, *, searched: bool = False) -> Plan:
        """The plan of restatement ``text``, saying how it was made and which steps faithfulness saw inserted."""
        how = "the one faithful restatement, no model call" if searched else "rewritten"
        notes = f"{how}: {text!r}; {plan.notes}"[:4000]
        return with_note(plan.model_copy(update={"notes": notes, "planner": f"llm:{self.profile.name}"}), verdict)

    def _no_restatement(
        self, task: str, world: WorldState, searched: Restatements, reading: TaskReading
    ) -> PlannerRefused:
        """The refusal of a task no sentence of the robot's language restates faithfully: what the grammar
        planner says of a task it cannot read (``missing_skill`` when it names something here)."""
        if asks_for_anything(reading):
            said = f"no sentence of this robot's language does what it says ({searched.tried} tried)"
        else:
            said = "no word of it asks for anything this robot's skills do (no verb the lexicon knows)"
        try:
            self.grammar_planner.plan(task, world)
        except TaskNotUnderstood as err:
            refused = unread(task, world, err, otherwise="so no restatement in its language can be faithful")
            return PlannerRefused(f"{said}; {refused.reason}", refused.kind)
        except PlannerRefused as refused:
            return refused
        except PlannerError:
            pass
        return PlannerRefused(f"{task!r}: {said}", RefusalKind.UNFAITHFUL)

    def _ensure_server(self) -> None:
        with self._owned.lock:
            try:
                self._owned.start()
            except LocalModelError as err:
                raise self._error(str(err)) from None

    def _complete(
        self, messages: list[Message], grammar: str, *, max_tokens: int | None = None
    ) -> tuple[str, int, int]:
        """(reply text, prompt tokens, generated tokens) from the llama.cpp server, the reply held to ``grammar``."""
        self._ensure_server()
        body = {
            "model": self.profile.model.split("/", 1)[-1],
            "messages": messages,
            "grammar": grammar,
            "temperature": self.profile.temperature,
            "max_tokens": max_tokens or self.profile.max_tokens,
            "cache_prompt": True,  # the system prompt's tokens stay in the slot between plans
        }
        try:
            reply = post_json(chat_url(self.profile.api_base or ""), body, self.profile.timeout_s)
        except LlamaHttpError as err:
            raise self._error(f"the model server: {err}") from None
        try:
            text = str(reply["choices"][0]["message"]["content"] or "").strip()
        except (KeyError, IndexError, TypeError):
            raise self._error("the model server's reply has no message") from None
        usage = reply.get("usage") or {}
        return text, int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))

    def _error(self, cause: str) -> PlannerError:
        return PlannerError(f"planner profile {self.profile.name!r} ({self.profile.model}): {cause}")


def partial_parse(reading: TaskReading) -> list[str]:
    """The grammar's partial parse of a task, as lines of the model's prompt: the clauses it already reads
    (commands of the robot's language, for the model to keep as they are) and those it does not (what is left
    to restate). Nothing when it reads none: then the task itself is all there is to restate."""
    read = [c.text for c in reading.clauses if c.intent is not None]
    if not read:
        return []
    unread = [c.text for c in reading.clauses if c.intent is None]
    lines = ["already commands: " + "; ".join(f'"{text}"' for text in read)]
    if unread:
        lines.append("to rewrite: " + "; ".join(f'"{text}"' for text in unread))
    return lines
