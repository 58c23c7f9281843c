"""LLMPlanner: a plan from any model litellm speaks to, and never an invalid call.

One ``plan()`` is a short conversation::

    system prompt (robot, object ids, rules)  [+ few-shot examples]
    task + world state [+ attempts so far] [+ front-camera frame for a VLM]
      -> model: tool calls (tools mode) or one JSON plan (structured mode)
      -> read the reply, check every call against the registry and the world
      -> all valid: Plan          refused: feedback to the model, again (bounded)
      -> the plan checked against the task (``model.faithfulness``): unfaithful,
         one repair with the reasons, then refused (``unfaithful``)

After ``max_repairs`` refused replies, a second prose reply after the nudge,
or any provider error (timeout, HTTP 500, bad key...), ``plan`` raises
``PlannerError`` naming the profile and the cause. The API key is read from
the environment variable the profile names at request time, and scrubbed
from every message this module raises or logs.

litellm is imported on first use (it costs seconds), after setting
``LITELLM_LOCAL_MODEL_COST_MAP`` so the import never reaches the network.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from bt_executive.llm.embedding.embedder import default_embedder
from bt_executive.llm.grounding.object_arguments import world_ids
from bt_executive.llm.grounding.task_objects import named_ids
from bt_executive.llm.model.camera_image import image_part
from bt_executive.llm.model.catalog_tools import (
    DESCRIBE_SKILL,
    LIST_SKILLS,
    SEARCH_SKILLS,
    CatalogTools,
    catalog_tool_definitions,
)
from bt_executive.llm.model.compact_grammar import GrammarUnsupported, compact_grammar
from bt_executive.llm.model.faithfulness import check_faithful, with_note
from bt_executive.llm.model.model_reply import ModelReply, ReadReply, ToolCallReply, read_structured, read_tool_calls
from bt_executive.llm.model.palette import Palette
from bt_executive.llm.model.plan_schema import plan_json_schema, response_format
from bt_executive.llm.model.plan_validation import CallIssue, check_plan
from bt_executive.llm.model.prompts import (
    JSON_NUDGE,
    PROSE_NUDGE,
    example_reply,
    example_world,
    repair_message,
    system_prompt,
    task_line,
    task_message,
    usable_examples,
)
from bt_executive.llm.model.refusal_tool import REFUSE, refusal_in, refuse_tool
from bt_executive.llm.plan import KeywordContextPlanner, Plan, PlannerError, PlannerRefused
from bt_executive.llm.profiles import LLMProfile, PlanExample, load_llm_config, offered_skills
from bt_executive.llm.routing.route_item import route_items
from bt_executive.llm.routing.router import Router, narrow_palette
from bt_executive.llm.serving.llama_http import LlamaHttpError, chat_url, post_json
from bt_executive.llm.serving.local_model import LocalModelError
from bt_executive.llm.serving.owned_server import OwnedServer
from bt_executive.llm.serving.slot_cache import SlotCache, default_slot_dir, model_identity
from bt_executive.skills.call import AttemptRecord, SkillCall
from bt_executive.skills.capabilities import RobotCapabilities
from bt_executive.skills.knowledge import KnowledgeSkill
from bt_executive.skills.manifest import SkillManifest
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import WorldState

log = logging.getLogger(__name__)

FrameSource = Callable[[], npt.NDArray[np.uint8]]
PlanGate = Callable[[Plan, WorldState], object]
"""The executive's check of a plan before anything moves (``trees.plan_check.require_runnable``, handed in by
the executive so that this room need not import the trees): raises PlannerRefused or PlannerError."""
Message = dict[str, Any]
_NO_KEY = "no-key"  # OpenAI-compatible local servers want some key; they ignore its value
_REDACTED = "[redacted]"


def litellm_module() -> Any:
    """litellm, imported on first use with its offline cost map and without debug chatter."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    litellm.telemetry = False
    return litellm


class RequestRecord(BaseModel):
    """One model request of a ``plan()``: how long, how many tokens, and what was wrong with the reply."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    latency_s: float
    prompt_tokens: int = 0
    completion_tokens: int = 0
    problems: tuple[str, ...] = ()
    unfaithful: tuple[str, ...] = Field(
        default=(), description="a valid plan that does not do what the task says: what did not match"
    )


class PlanningTrace(BaseModel):
    """Every request of the last ``plan()`` (for benchmarks and the event log; no key, no prompt)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    profile: str
    requests: tuple[RequestRecord, ...] = ()
    outcome: str = ""


class LLMPlanner(KeywordContextPlanner):
    """The ``Planner`` for an LLM profile: palette, prompts, model, validation and repair."""

    def __init__(
        self,
        profile: LLMProfile,
        registry: SkillRegistry,
        robot: RobotCapabilities | None = None,
        *,
        examples: Sequence[PlanExample] = (),
        frame_source: FrameSource | None = None,
        knowledge: Sequence[KnowledgeSkill] = (),
        plan_gate: PlanGate | None = None,
    ) -> None:
        if profile.planner != "litellm":
            raise ValueError(f"profile {profile.name!r} is a {profile.planner} profile, not an LLM one")
        self.profile = profile
        self.robot = robot
        self.registry = offered_skills(profile, registry, robot)
        if not len(self.registry):
            raise ValueError(f"profile {profile.name!r}: no skill in the registry is available for this robot")
        self.examples = tuple(examples) if profile.few_shot else ()
        self.frame_source = frame_source
        self.plan_gate = plan_gate
        self.last_trace: PlanningTrace | None = None
        # Only facts about skills this planner offers (a fact about docking means nothing to a tabletop arm).
        offered = set(self.registry.ids())
        self.knowledge = {
            k.id: k for k in knowledge if profile.knowledge and (not k.applies_to or offered.intersection(k.applies_to))
        }
        self._router: Router | None = None
        self._routed: tuple[str, tuple[list[SkillManifest], list[KnowledgeSkill]]] | None = None
        self._catalog: CatalogTools | None = None
        # serve warms the planner on a thread while a task may plan: one server start, one slot restore.
        self._owned = OwnedServer(profile)
        self._slots: SlotCache | None = None
        self._slot_prefix: str | None = None  # the system prompt the slot cache last restored or saved

    @classmethod
    def from_config(
        cls,
        name: str,
        registry: SkillRegistry,
        robot: RobotCapabilities | None = None,
        *,
        frame_source: FrameSource | None = None,
        config_path: Path | None = None,
        knowledge: Sequence[KnowledgeSkill] = (),
        plan_gate: PlanGate | None = None,
    ) -> LLMPlanner:
        """The planner for profile ``name`` of ``config/llm.yaml`` (or ``config_path``), with its examples."""
        config = load_llm_config(config_path)
        return cls(
            config.profile(name),
            registry,
            robot,
            examples=config.examples,
            frame_source=frame_source,
            knowledge=knowledge,
            plan_gate=plan_gate,
        )

    # -- the Planner protocol ---------------------------------------------------------------------

    def plan(
        self,
        task: str,
        world_state: WorldState,
        prior_attempts: Sequence[AttemptRecord] = (),
        *,
        context: Sequence[str] = (),
    ) -> Plan:
        """A plan whose every call names a palette skill with valid arguments and does what the task says, or
        PlannerError; an unfaithful plan gets one repair, then is refused (``unfaithful``).

        ``context``: what the caller already read in the task (the grammar's partial parse), shown after it.
        """
        profile = self.profile
        palette = self.palette(task, world_state)
        messages = self.messages(palette, task, world_state, prior_attempts, context=context)
        records: list[RequestRecord] = []
        notes: list[str] = []
        nudged = False
        problems: list[str] = []
        last_gate_error: PlannerError | None = None
        unfaithful: PlannerRefused | None = None
        try:
            for turn in range(profile.max_repairs + 1):
                started = time.perf_counter()
                reply, palette = self._request_with_lookups(palette, messages, task, world_state)
                read = read_tool_calls(palette, reply) if profile.output_mode == "tools" else read_structured(reply)
                refusal = refusal_in(read.steps)
                if isinstance(refusal, PlannerRefused):
                    elapsed = time.perf_counter() - started
                    records.append(RequestRecord(latency_s=elapsed, prompt_tokens=reply.prompt_tokens))
                    raise refusal  # a considered answer, not a mistake to repair
                if refusal is not None:  # refuse with bad arguments: repaired like any malformed call
                    kept = tuple(step for step in read.steps if step.skill != REFUSE)
                    read = read.model_copy(update={"steps": kept, "problems": (*read.problems, refusal)})
                issues = self._issues(palette, read, world_state)
                problems = [*read.problems, *(i.message() for i in issues)]
                records.append(
                    RequestRecord(
                        latency_s=time.perf_counter() - started,
                        prompt_tokens=reply.prompt_tokens,
                        completion_tokens=reply.completion_tokens,
                        problems=tuple(problems),
                    )
                )
                notes += read.notes
                if read.prose:
                    if nudged:
                        raise self._error("the model answered prose again after being told to call tools")
                    nudged = True
                    messages += [_assistant(reply), {"role": "user", "content": PROSE_NUDGE}]
                    continue
                if not problems:
                    calls = check_plan(self.registry, read.steps, world_state).calls
                    if profile.drop_repeats:
                        calls, dropped = collapse_repeats(calls)
                        notes += [f"dropped {dropped} repeated call(s)"] if dropped else []
                    summary = f"{len(records)} request(s), {len(records) - 1} repair(s)"
                    plan = Plan(
                        steps=calls,
                        notes="; ".join([summary, *notes])[:4000],
                        planner=f"llm:{profile.name}",
                    )
                    gated = self._gate(plan, world_state)
                    if gated is None:
                        # It can run; is it the task's plan? One repair with the reasons, then refused (unfaithful).
                        verdict = check_faithful(plan, task, world_state, self.registry, prior_attempts)
                        if verdict.faithful:
                            self.last_trace = PlanningTrace(
                                profile=profile.name, requests=tuple(records), outcome="plan"
                            )
                            return with_note(plan, verdict)
                        records[-1] = records[-1].model_copy(update={"unfaithful": verdict.problems})
                        if unfaithful is not None or turn == profile.max_repairs:
                            raise verdict.refusal()
                        unfaithful = verdict.refusal()
                        messages += self._feedback(reply, list(verdict.problems))
                        continue
                    problems, last_gate_error = [str(gated)], gated
                messages += self._feedback(reply, problems)
            if isinstance(last_gate_error, PlannerRefused) and problems == [str(last_gate_error)]:
                raise last_gate_error  # pick(table) to the end: a refusal (not_afforded), as the executive's check says
            if unfaithful is not None:
                raise unfaithful  # its repair was no valid plan either: the refusal says what did not match the task
            raise self._error(
                f"no valid plan after {profile.max_repairs} repair(s); last problems: {'; '.join(problems)}"
            )
        except PlannerError as err:
            self.last_trace = PlanningTrace(profile=profile.name, requests=tuple(records), outcome=str(err))
            raise

    # -- pieces (public so tests and benchmarks can look at exactly what is sent) ----------------

    def palette(self, task: str, world_state: WorldState) -> Palette:
        """The tools for this task: object arguments narrowed to the world's ids (or the task's, as levers)."""
        ids: tuple[str, ...] = ()
        if self.profile.narrow_objects:
            ids = world_ids(world_state)
            named = named_ids(task, world_state) if self.profile.task_objects else ()
            ids = named or ids
        return Palette(self.routed(task)[0], ids)

    def routed(self, task: str) -> tuple[list[SkillManifest], list[KnowledgeSkill]]:
        """The tool skills and the knowledge this task is shown: all of them, or the top-K routed.

        Tool and knowledge skills are routed together, so a site fact competes for
        a place only with what is relevant to the task; with no more than
        ``palette_k`` of them in all, every one is shown.
        """
        if self._routed is not None and self._routed[0] == task:  # palette() and messages() of one plan
            return self._routed[1]
        manifests = list(self.registry)
        knowledge = list(self.knowledge.values())
        items: list[SkillManifest | KnowledgeSkill] = [*manifests, *knowledge]
        if len(items) <= self.profile.palette_k:
            return manifests, knowledge
        if self._router is None:
            self._router = Router(route_items(items), embedder=default_embedder())
        chosen = set(narrow_palette(items, task, self.profile.palette_k, self.profile.always_on, router=self._router))
        routed = [m for m in manifests if m.id in chosen], [k for k in knowledge if k.id in chosen]
        self._routed = (task, routed)
        return routed

    def messages(
        self,
        palette: Palette,
        task: str,
        world_state: WorldState,
        prior_attempts: Sequence[AttemptRecord] = (),
        *,
        context: Sequence[str] = (),
    ) -> list[Message]:
        """The conversation's opening: system prompt, few-shot turns, then the task (with a frame for a VLM)."""
        mode = self.profile.output_mode
        examples = usable_examples(self.examples, palette)
        system = system_prompt(palette, self.robot, world_state, mode, examples if mode == "tools" else ())
        if self._offers_catalog():
            system += (
                "\n\nYour tools are a part of a larger catalog. Find other skills with search_skills or"
                " list_skills, and call describe_skill(name) to add one to your tools before you call it."
            )
        knowledge = self.routed(task)[1]
        if knowledge:
            facts = "\n\n".join(k.context_text() for k in knowledge)
            system += f"\n\nSite knowledge (facts to plan with; these are not tools):\n{facts}"
        messages: list[Message] = [{"role": "system", "content": system}]
        if mode == "structured":
            for example in examples:
                messages.append({"role": "user", "content": f"{task_line(example.task)}\n\n{example_world(example)}"})
                messages.append({"role": "assistant", "content": example_reply(example)})
        text = task_message(
            task,
            world_state,
            prior_attempts,
            positions=self.profile.world_positions,
            task_last=self.profile.task_last,
            context=context,
        )
        if self.profile.vision and self.frame_source is not None:
            content: Any = [{"type": "text", "text": text}, image_part(self.frame_source())]
        else:
            content = text
        messages.append({"role": "user", "content": content})
        return messages

    def request_options(self, palette: Palette) -> dict[str, Any]:
        """Everything but the messages that goes to ``litellm.completion`` (the key excepted)."""
        profile = self.profile
        options: dict[str, Any] = {
            "model": profile.model,
            "timeout": profile.timeout_s,
            "temperature": profile.temperature,
            "max_tokens": profile.max_tokens,
            # Transient provider errors are retried by litellm's own wrapper, by exception type, with exponential
            # backoff, up to the profile's provider_retries; the rest become planner_error at once (the repair
            # budget is for the model's mistakes). No num_retries: litellm would hand it to the HTTP client as
            # its own retries too, and a request would be sent up to 2N+1 times.
            "max_retries": 0,
            "retry_policy": profile.litellm_retry_policy(),
            "retry_strategy": "exponential_backoff_retry",
        }
        if profile.api_base:
            options["api_base"] = profile.api_base
        if profile.output_mode == "tools":
            options["tools"] = [*palette.openai_tools(), refuse_tool()]
            if self._offers_catalog():
                options["tools"] += catalog_tool_definitions()
            options["tool_choice"] = "auto"
        else:
            schema = plan_json_schema(
                palette,
                max_steps=profile.max_steps,
                rationale=profile.rationale,
                required_only=profile.required_only,
                max_string_length=profile.max_string_length,
            )
            grammar = _compact_grammar(schema) if profile.compact_json else None
            if grammar is not None:
                options["extra_body"] = {"grammar": grammar}  # llama.cpp: one spelling per plan, no whitespace
            else:
                options["response_format"] = response_format(schema)
        if profile.local_server is not None or profile.compact_json:
            # llama.cpp: reuse the KV cache of the longest common prefix (system prompt, skills) across plans.
            options["extra_body"] = {**options.get("extra_body", {}), "cache_prompt": True}
        return options

    def warm(self, world_state: WorldState) -> None:
        """Pay a local model's first-plan costs now: its server, litellm's import, the system prompt's tokens.

        The system prompt is restored from the slot cache when a file holds it, else
        processed by a one-token request (and then saved); either way the next
        ``plan`` processes only its task message. A profile without a local server
        is left alone. Raises PlannerError like ``plan``.
        """
        if self.profile.local_server is None:
            return
        self._ensure_server()
        palette = self.palette("", world_state)
        messages = self.messages(palette, "", world_state)
        if not self._prime(messages):
            self._request(palette, messages, max_tokens=1)

    def close(self) -> None:
        """Stop a local model this planner started (no-op otherwise); the planner starts none afterwards."""
        with self._owned.lock:
            self._owned.stop()
            self._slots, self._slot_prefix = None, None

    # -- internals ----------------------------------------------------------------------------------

    def _api_key(self) -> str | None:
        name = self.profile.api_key_env
        if name:
            key = os.environ.get(name)
            if not key:
                raise self._error(f"environment variable {name} (the API key) is not set")
            return key
        # A bare OpenAI-compatible server still needs some key in the client; hosted providers read their own.
        return _NO_KEY if self.profile.api_base else None

    def _ensure_server(self) -> None:
        """Start the profile's local model if it has one and nothing answers at its api_base yet."""
        local = self.profile.local_server
        if local is None or self.profile.api_base is None:
            return
        with self._owned.lock:
            slot_dir = default_slot_dir() if local.slot_cache and self._owned.server is None else None
            try:
                server = self._owned.start(slot_dir=slot_dir)
            except LocalModelError as err:
                raise self._error(str(err)) from None
            if server is not None and slot_dir is not None and server.model_file is not None:
                self._slots = SlotCache(slot_dir, model_identity(server.model_file, local.context))

    def _prime(self, messages: list[Message]) -> bool:
        """Before a request on a server this planner started: restore its system prompt's slot file, once.

        True when the slot now holds the prompt (restored now, or handled before).
        """
        prefix = _prefix(messages)
        with self._owned.lock:
            if self._slots is None or self.profile.api_base is None:
                return False
            if self._slot_prefix == prefix:
                return True
            if self._slots.restore(self.profile.api_base, prefix):
                self._slot_prefix = prefix
                return True
        return False

    def _keep(self, messages: list[Message]) -> None:
        """After a request: save the slot for a system prompt no file held, for the next cold process."""
        prefix = _prefix(messages)
        with self._owned.lock:
            if self._slots is None or self.profile.api_base is None or self._slot_prefix == prefix:
                return
            self._slot_prefix = prefix  # tried once, saved or not: never again per request
            self._slots.save(self.profile.api_base, prefix)

    def _prefill_while_importing(self, messages: list[Message]) -> None:
        """A cold process's first request: the local server reads the prompt while litellm imports.

        Importing litellm is 3-4 s of Python on one core; llama.cpp reads the prompt
        on the other. A one-token request of the same messages, sent without
        litellm, leaves the whole prompt in the slot's cache, so the real request
        that follows processes almost nothing. Any failure here is ignored: the real
        request processes the prompt (and reports what is wrong).
        """
        importer = threading.Thread(target=_import_quietly, name="import-litellm", daemon=True)
        importer.start()
        try:
            _prefill(self.profile.api_base or "", self.profile.model, messages, self.profile.timeout_s)
        finally:
            importer.join()

    def _request(self, palette: Palette, messages: list[Message], *, max_tokens: int | None = None) -> ModelReply:
        self._ensure_server()
        self._prime(messages)
        if self._owned.server is not None and "litellm" not in sys.modules:
            self._prefill_while_importing(messages)
        litellm = litellm_module()
        key = self._api_key()
        options = self.request_options(palette)
        if max_tokens is not None:
            options["max_tokens"] = max_tokens
        log.debug("profile %s: request %s, %d messages", self.profile.name, self.profile.model, len(messages))
        try:
            response = litellm.completion(messages=messages, api_key=key, **options)
        except Exception as err:  # litellm maps every provider failure onto its own exception classes
            cause = f"{type(err).__name__}: {err}{_retried(err, options)}"
            raise self._error(_scrub(cause, key)) from None
        self._keep(messages)
        return _reply_of(response)

    def _offers_catalog(self) -> bool:
        return self.profile.catalog_tools and self.profile.output_mode == "tools"

    def _request_with_lookups(
        self, palette: Palette, messages: list[Message], task: str, world_state: WorldState
    ) -> tuple[ModelReply, Palette]:
        """A reply that is not a catalog lookup: answer lookups (bounded) and grow the palette as asked.

        A skill the model ``describe_skill``s joins its tools for the rest of the
        plan, so a catalog too large to narrow blindly is still reachable; the
        lookups do not spend the repair budget.
        """
        reply = self._request(palette, messages)
        if not self._offers_catalog():
            return reply, palette
        if self._catalog is None:
            self._catalog = CatalogTools([*self.registry, *self.knowledge.values()], router=self._router)
        catalog = self._catalog
        for _lookup in range(self.profile.max_lookups):
            lookups = [c for c in reply.tool_calls if c.name in CATALOG_TOOLS]
            if not lookups:
                break
            answers: list[Message] = []
            described: list[str] = []
            for index, call in enumerate(reply.tool_calls):
                if call.name in CATALOG_TOOLS:
                    answer = catalog.call(call.name, call.arguments)
                    if call.name == DESCRIBE_SKILL and "error" not in answer:
                        described += [i for i in [catalog.resolve(_argument(call, "name"))] if i is not None]
                else:
                    answer = {"error": "not run: plan again after your lookups, with every step"}
                answers.append({"role": "tool", "tool_call_id": _call_id(call, index), "content": json.dumps(answer)})
            messages += [_assistant(reply), *answers]
            extra = [self.registry.get(i) for i in described if i in self.registry and i not in palette.manifests]
            if extra:
                palette = Palette([*palette.manifests.values(), *extra], palette.object_ids)
            reply = self._request(palette, messages)
        return reply, palette

    def _issues(self, palette: Palette, read: ReadReply, world_state: WorldState) -> list[CallIssue]:
        issues = list(check_plan(self.registry, read.steps, world_state).issues)
        cap = self.profile.max_steps
        if cap is not None and len(read.steps) > cap:
            too_long = f"the plan has {len(read.steps)} steps; at most {cap}"
            issues.append(CallIssue(step=cap, skill="(plan)", reason=too_long))
        return issues

    def _gate(self, plan: Plan, world_state: WorldState) -> PlannerError | None:
        """What the executive's plan check says against ``plan`` (None: it may run); the model repairs it."""
        if self.plan_gate is None:
            return None
        try:
            self.plan_gate(plan, world_state)
        except PlannerError as err:  # PlannerRefused (not_afforded) or a step that could never start
            return err
        return None

    def _feedback(self, reply: ModelReply, problems: list[str]) -> list[Message]:
        text = repair_message(problems)
        if self.profile.output_mode == "structured":
            return [_assistant(reply), {"role": "user", "content": f"{text}\n{JSON_NUDGE}"}]
        # Every tool call needs its tool message before the conversation may go on.
        tool_results: list[Message] = [
            {"role": "tool", "tool_call_id": _call_id(c, i), "content": "not run: the plan was refused"}
            for i, c in enumerate(reply.tool_calls)
        ]
        return [_assistant(reply), *tool_results, {"role": "user", "content": text}]

    def _error(self, cause: str) -> PlannerError:
        return PlannerError(f"planner profile {self.profile.name!r} ({self.profile.model}): {cause}")


def _import_quietly() -> None:
    """Import litellm on a thread; a failure is reported by the import that follows on the caller's thread."""
    try:
        litellm_module()
    except Exception as err:  # the caller's own import raises it again, where it is handled
        log.debug("importing litellm failed: %s", err)


def _prefill(api_base: str, model: str, messages: Sequence[Message], timeout_s: float) -> None:
    """Send ``messages`` for one token to an OpenAI-compatible llama.cpp server, so it caches the prompt."""
    body = {
        "model": model.split("/", 1)[-1],
        "messages": list(messages),
        "max_tokens": 1,
        "cache_prompt": True,
    }
    try:
        post_json(chat_url(api_base), body, timeout_s)
    except LlamaHttpError as err:
        log.debug("prefill of the local model failed: %s", err)


def _prefix(messages: Sequence[Message]) -> str:
    """The part of a conversation every plan of a world shares: the system message."""
    first = messages[0] if messages else {}
    content = first.get("content", "") if first.get("role") == "system" else ""
    return content if isinstance(content, str) else json.dumps(content)


def _retried(err: Exception, options: dict[str, Any]) -> str:
    """`` (after N retries)`` when litellm retried this error under the request's retry policy, else nothing."""
    import openai
    from litellm.router_utils.get_retry_from_policy import get_num_retries_from_retry_policy

    if not isinstance(err, openai.APIError):
        return ""
    retries = get_num_retries_from_retry_policy(err, options.get("retry_policy"))
    return f" (after {retries} retries)" if retries else ""


_GRAMMAR_WARNED: set[str] = set()


def _compact_grammar(schema: dict[str, Any]) -> str | None:
    """The plan's compact-JSON grammar, or None (then ``response_format``) for a schema it cannot express."""
    try:
        return compact_grammar(schema)
    except GrammarUnsupported as err:
        if str(err) not in _GRAMMAR_WARNED:  # once per schema construct, not once per request
            _GRAMMAR_WARNED.add(str(err))
            log.warning("compact_json: %s; sending response_format instead", err)
        return None


def collapse_repeats(calls: Sequence[SkillCall]) -> tuple[tuple[SkillCall, ...], int]:
    """The calls with back-to-back duplicates (same skill, args and prompt) kept once; and how many went."""
    kept: list[SkillCall] = []
    for call in calls:
        if kept and (kept[-1].skill, kept[-1].args, kept[-1].prompt) == (call.skill, call.args, call.prompt):
            continue
        kept.append(call)
    return tuple(kept), len(calls) - len(kept)


def _argument(call: ToolCallReply, name: str) -> str:
    """One string argument of a tool call ('' when absent or not JSON)."""
    try:
        value = json.loads(call.arguments or "{}").get(name, "")
    except (json.JSONDecodeError, AttributeError):
        return ""
    return value if isinstance(value, str) else ""


CATALOG_TOOLS = frozenset({LIST_SKILLS, DESCRIBE_SKILL, SEARCH_SKILLS})
"""Tool names the planner answers itself (catalog lookups), never steps of a plan."""


def _call_id(call: ToolCallReply, index: int) -> str:
    return call.id or f"call_{index}"


def _assistant(reply: ModelReply) -> Message:
    message: Message = {"role": "assistant", "content": reply.content or ""}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": _call_id(c, i), "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for i, c in enumerate(reply.tool_calls)
        ]
    return message


def _scrub(text: str, key: str | None) -> str:
    """Remove the key from a message (a provider may echo the request, headers included)."""
    return text.replace(key, _REDACTED) if key and key != _NO_KEY else text


def _reply_of(response: Any) -> ModelReply:
    """The planner's view of a litellm ModelResponse."""
    choice = response.choices[0]
    message = choice.message
    calls = tuple(
        ToolCallReply(id=c.id or "", name=c.function.name or "", arguments=c.function.arguments or "")
        for c in (getattr(message, "tool_calls", None) or ())
    )
    usage = getattr(response, "usage", None)
    return ModelReply(
        content=message.content,
        tool_calls=calls,
        finish_reason=getattr(choice, "finish_reason", None),
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
    )
