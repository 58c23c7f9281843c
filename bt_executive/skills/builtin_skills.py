"""Builtin leaves: skills the executive runs itself, with no server and no motion.

::

    Sequence "tidy up"
    ├─ say(starting)                   builtin/say    log "starting", SUCCESS
    ├─ pick(red_cube)                  a ROS action skill
    ├─ check(holding(red_cube))        builtin/check  SUCCESS, or FAILURE precondition_failed
    └─ wait(0.5)                       builtin/wait   RUNNING for 0.5 s, then SUCCESS

Each builtin satisfies ``SkillLeaf`` like ``RosActionSkill`` does: ``call``
is the ``SkillCall`` it runs, ``result`` the ``SkillResult`` it ended with
(cleared by ``initialise``), also written to ``/skills/<key>/result`` on the
blackboard. None of them blocks a tick.

- ``builtin/wait {seconds}``: RUNNING until ``seconds`` have passed on the
  monotonic clock, then SUCCESS. Halted by the tree: ``preempted``.
- ``builtin/check {predicate}``: SUCCESS when the predicate holds on the
  latest world state; FAILURE ``precondition_failed`` naming it when not;
  FAILURE ``unknown`` when there is no world state (yet) to look at.
- ``builtin/say {text, level?}``: logs ``text`` through Python logging (logger
  ``bt_executive.say``, level ``info`` unless given) and records it in the
  result's evidence; SUCCESS.

Arguments are checked when the leaf starts (``initialise``), not when it is
built, as ``RosActionSkill`` does: bad arguments end the run as FAILURE
``invalid_params`` naming the JSON path, a structured failure recovery can
act on, rather than an exception in the middle of compiling a planner's plan.
Hand-written trees (``trees.yaml_tree``) check the same rules at load through
``builtin_argument_errors``, so a typo there never reaches a tick.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

import py_trees
from pydantic import JsonValue

from bt_executive.skills.call import SkillCall, SkillResult
from bt_executive.skills.conditions import holds
from bt_executive.skills.failures import FailureKind
from bt_executive.skills.leaf import LeafEntries, WorldStateSource, check_leaf_inputs
from bt_executive.skills.manifest import SkillKind, SkillManifest
from bt_executive.skills.parameters import argument_errors
from bt_executive.skills.predicates import Predicate, parse_predicate

BLACKBOARD_PREFIX = "/skills"
"""Where builtins write ``<key>/result``: the same place as RosActionSkill's default."""
SAY_LOGGER = "bt_executive.say"
"""The logger ``builtin/say`` writes to, so an operator console can follow just that."""
_say_log = logging.getLogger(SAY_LOGGER)
_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}
_REASON_MAX = 200
_DETAIL_MAX = 4000

Status = py_trees.common.Status


class BuiltinSkill(py_trees.behaviour.Behaviour):
    """What every builtin leaf shares: the call, the result, argument checks and the blackboard entry.

    Subclasses implement ``start`` (once per run, arguments already valid) and
    ``step`` (every tick until the leaf ends, returning a result or None to
    stay RUNNING).
    """

    skill_id = ""
    """The manifest id this leaf implements, e.g. ``builtin/wait``."""

    def __init__(
        self, manifest: SkillManifest, call: SkillCall, *, name: str | None = None, key: str | None = None
    ) -> None:
        if manifest.id != self.skill_id:
            raise ValueError(f"{type(self).__name__} runs {self.skill_id}, not {manifest.id}")
        check_leaf_inputs(manifest, call)
        super().__init__(name or call.label())
        self.manifest = manifest
        self.call = call
        self.result: SkillResult | None = None
        self.entries = LeafEntries(self, BLACKBOARD_PREFIX, key or manifest.name, feedback=False)
        self._started = 0.0
        self._running = False

    # py_trees lifecycle -------------------------------------------------------------------------

    def initialise(self) -> None:
        """Start a run: clear the last result, check the arguments, then let the subclass start."""
        self.result = None
        self._started = time.monotonic()
        self._running = True
        errors = builtin_argument_errors(self.manifest, self.call.args)
        if errors:
            listed = "; ".join(f"{path}: {reason}" for path, reason in errors)
            evidence: dict[str, JsonValue] = {"errors": [{"path": p, "reason": r} for p, r in errors]}
            self._record(
                SkillResult.failed(
                    FailureKind.INVALID_PARAMS,
                    "invalid_arguments",
                    detail=_clip(f"invalid arguments for {self.manifest.id}: {listed}", _DETAIL_MAX),
                    evidence=evidence,
                )
            )
            return
        self.start()

    def update(self) -> py_trees.common.Status:
        """The result once there is one; until then whatever ``step`` says (None: RUNNING)."""
        if self.result is None:
            result = self.step()
            if result is None:
                return Status.RUNNING
            self._record(result)
        assert self.result is not None  # recorded above or in initialise
        return Status.SUCCESS if self.result.success else Status.FAILURE

    def terminate(self, new_status: py_trees.common.Status) -> None:
        """Halted by the tree before it ended: record ``preempted``."""
        if new_status == Status.INVALID and self._running:
            self._record(SkillResult.failed(FailureKind.PREEMPTED, "preempted", detail="halted by the tree"))

    # for subclasses ----------------------------------------------------------------------------

    def start(self) -> None:
        """Begin a run whose arguments are valid (default: nothing to do)."""

    def step(self) -> SkillResult | None:
        """One tick of a run: its result when it ends now, else None (RUNNING)."""
        raise NotImplementedError

    def elapsed_s(self) -> float:
        """Seconds since this run started."""
        return max(0.0, time.monotonic() - self._started)

    def _record(self, result: SkillResult) -> None:
        timed = result.model_copy(update={"duration_s": self.elapsed_s()})
        self.result = timed
        self._running = False
        self.entries.result(timed)


class WaitSkill(BuiltinSkill):
    """``builtin/wait``: RUNNING until ``seconds`` have passed, then SUCCESS."""

    skill_id = "builtin/wait"

    def start(self) -> None:
        """Fix the deadline on the monotonic clock (wall-clock jumps do not shorten a wait)."""
        self.seconds = float(_number(self.call.args["seconds"]))
        self._deadline = self._started + self.seconds
        self.feedback_message = f"waiting {self.seconds:g} s"

    def step(self) -> SkillResult | None:
        """SUCCESS once the deadline has passed."""
        if time.monotonic() < self._deadline:
            return None
        return SkillResult.ok("waited", evidence={"seconds": self.seconds})


class CheckSkill(BuiltinSkill):
    """``builtin/check``: whether a predicate holds on the latest world state, decided on the first tick."""

    skill_id = "builtin/check"

    def __init__(
        self,
        manifest: SkillManifest,
        call: SkillCall,
        world: WorldStateSource | None,
        *,
        name: str | None = None,
        key: str | None = None,
    ) -> None:
        super().__init__(manifest, call, name=name, key=key)
        self.world = world

    def start(self) -> None:
        """Parse the predicate (already known to parse: ``builtin_argument_errors`` checked it)."""
        self.predicate: Predicate = parse_predicate(str(self.call.args["predicate"]))

    def step(self) -> SkillResult:
        """SUCCESS if the predicate holds now; ``precondition_failed`` if not; ``unknown`` without a world."""
        shown = str(self.predicate)
        if self.world is None:
            return SkillResult.failed(
                FailureKind.UNKNOWN,
                "no_world_source",
                detail=f"cannot check {shown}: this leaf was built without a world state source",
                evidence={"predicate": shown},
            )
        world = self.world()
        if world is None:
            return SkillResult.failed(
                FailureKind.UNKNOWN,
                "no_world_state",
                detail=f"cannot check {shown}: no world state has arrived yet",
                evidence={"predicate": shown},
            )
        evidence: dict[str, JsonValue] = {"predicate": shown, "world_stamp": world.stamp}
        if holds(self.predicate, world):
            return SkillResult.ok(_clip(f"holds: {shown}", _REASON_MAX), evidence={**evidence, "holds": True})
        return SkillResult.failed(
            FailureKind.PRECONDITION_FAILED,
            _clip(f"does not hold: {shown}", _REASON_MAX),
            detail=f"{shown} is false in the world state of t={world.stamp:g} s",
            evidence={**evidence, "holds": False},
        )


class SaySkill(BuiltinSkill):
    """``builtin/say``: log the text at its level, record it, SUCCESS."""

    skill_id = "builtin/say"

    def step(self) -> SkillResult:
        """Say it once, on the first tick of the run."""
        text = str(self.call.args["text"])
        level = str(self.call.args.get("level", "info"))
        _say_log.log(_LEVELS[level], "%s", text)
        self.feedback_message = text
        return SkillResult.ok("said", evidence={"text": text, "level": level})


_BUILTINS: dict[str, type[BuiltinSkill]] = {cls.skill_id: cls for cls in (WaitSkill, CheckSkill, SaySkill)}
BUILTIN_IDS: tuple[str, ...] = tuple(sorted(_BUILTINS))
"""Every builtin skill id a manifest of kind ``builtin`` may name."""


def builtin_argument_errors(manifest: SkillManifest, args: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every way ``args`` are wrong for a builtin, as (JSON path, reason): the schema, then meaning.

    Beyond the schema, ``builtin/check``'s predicate must parse (its name and
    arity are from the closed predicate vocabulary).
    """
    errors = argument_errors(manifest.parameters, args)
    if not errors and manifest.id == CheckSkill.skill_id:
        try:
            parse_predicate(str(args["predicate"]))
        except ValueError as err:
            errors.append(("$.predicate", str(err)))
    return errors


def make_builtin_leaf(
    manifest: SkillManifest,
    call: SkillCall,
    *,
    name: str,
    key: str,
    world: WorldStateSource | None,
) -> py_trees.behaviour.Behaviour:
    """The leaf for a call of a ``builtin`` skill; ValueError for an id no builtin implements."""
    if manifest.kind is not SkillKind.BUILTIN:
        raise ValueError(f"{manifest.id} is a {manifest.kind.value} skill, not a builtin")
    cls = _BUILTINS.get(manifest.id)
    if cls is None:
        raise ValueError(f"no builtin leaf implements {manifest.id!r}; builtins are {', '.join(BUILTIN_IDS)}")
    if cls is CheckSkill:
        return CheckSkill(manifest, call, world, name=name, key=key)
    return cls(manifest, call, name=name, key=key)


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"expected a number, got {value!r}")  # the schema said number: cannot happen
    return float(value)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
