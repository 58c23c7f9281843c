"""What a replan learns from the attempts so far, in the terms the stub planner acts on.

The executive hands a replan every ``AttemptRecord`` of the task. Read in
order, they say three things:

- objects ruled out: a call that failed ``not_found`` or ``unreachable`` rules
  out the object it was about, so a phrase that also matches another object
  resolves to that one instead;
- calls to retry carefully: a call that failed for a transient or physical
  reason (``missed_grasp``, ``collision``, ``timeout``, ...) is retried once
  after going home; failing again after that - after a home, or in a later
  plan - exhausts it, so the loop ends with an error saying what was tried.
  ``invalid_params`` is exhausted at once: the same arguments would be
  refused again;
- calls already done: a call that succeeded (and has not failed since) is not
  repeated where the world state cannot show it is done - a tap, a push, a
  pour - or where a later step of the task undid its effect (the drawer
  opened, then closed again; the cube picked, then put down elsewhere).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from pydantic import JsonValue

from bt_executive.skills.call import AttemptRecord, SkillCall
from bt_executive.skills.failures import FailureKind

OBJECT_SWITCH_KINDS = frozenset({FailureKind.NOT_FOUND, FailureKind.UNREACHABLE})
"""Failures that say the object is the problem: try another object the phrase matches."""

HOPELESS_KINDS = frozenset({FailureKind.INVALID_PARAMS})
"""Failures the same call would meet again, so it is not retried at all."""

NOT_FAILURES = frozenset({FailureKind.PREEMPTED})
"""Endings that say nothing about the call itself."""

OBJECT_ARGS = ("object", "source", "target", "base", "drawer")
"""Argument names that hold world-state ids in the tabletop skills, in the order blame is looked for."""

HOME_SKILL_NAME = "home"


def call_key(skill: str, args: Mapping[str, JsonValue], prompt: str | None = None) -> str:
    """A canonical text for a call, so the same call made twice compares equal."""
    return json.dumps({"skill": skill, "args": args, "prompt": prompt}, sort_keys=True)


def key_of(call: SkillCall) -> str:
    """``call_key`` of a SkillCall."""
    return call_key(call.skill, call.args, call.prompt)


def describe(record: AttemptRecord) -> str:
    """A short account of one failed attempt, e.g. ``pick(red_cube) not_found (unknown_object)``."""
    kind = record.result.failure_kind or "ok"
    reason = f" ({record.result.reason})" if record.result.reason else ""
    return f"{record.call.label()} {kind}{reason}"


def blamed_object(record: AttemptRecord) -> str | None:
    """The id a not_found/unreachable failure is about: from its evidence, else its text, else its first object."""
    args = record.call.args
    named = [v for k in OBJECT_ARGS if isinstance(v := args.get(k), str)]
    named += [v for k, v in args.items() if isinstance(v, str) and k not in OBJECT_ARGS]
    evidence = record.result.evidence
    for key in OBJECT_ARGS:
        value = evidence.get(key)
        if isinstance(value, str) and value in named:
            return value
    text = " ".join((str(evidence.get("what", "")), record.result.detail, record.result.reason))
    for value in named:
        if re.search(rf"\b{re.escape(value)}\b", text):
            return value
    return named[0] if named else None


class RetryState(StrEnum):
    """Where a failed call stands."""

    HOME_THEN_RETRY = "home_then_retry"
    EXHAUSTED = "exhausted"


@dataclass
class FailedCall:
    """A call that failed for a reason other than its object, with every failure of it so far."""

    call: SkillCall
    failures: list[AttemptRecord] = field(default_factory=list)
    state: RetryState = RetryState.HOME_THEN_RETRY
    homed: bool = False

    def account(self) -> str:
        """What was tried, for the error that ends the loop."""
        tries = ", then ".join(
            f"{r.result.failure_kind}{f' ({r.result.reason})' if r.result.reason else ''}" for r in self.failures
        )
        return f"{self.call.label()} failed {len(self.failures)} time(s): {tries}"


@dataclass
class AttemptHistory:
    """The attempts of a task, digested: ruled-out objects, failed calls, calls already done."""

    excluded: dict[str, str] = field(default_factory=dict)
    failed: dict[str, FailedCall] = field(default_factory=dict)
    succeeded: Counter[str] = field(default_factory=Counter)
    replan_number: int = 0

    @classmethod
    def from_attempts(cls, attempts: Sequence[AttemptRecord]) -> AttemptHistory:
        """Digest ``attempts`` (in the order they ran)."""
        history = cls(replan_number=max((a.plan_index for a in attempts), default=-1) + 1)
        for record in attempts:
            history._add(record)
        return history

    def _add(self, record: AttemptRecord) -> None:
        key = key_of(record.call)
        kind = record.result.failure_kind
        if record.call.skill.rsplit("/", 1)[-1] == HOME_SKILL_NAME:
            # Going home is the recovery itself: any call failing after it has had its careful retry.
            for earlier in self.failed.values():
                earlier.homed = True
        if record.result.success or kind is None:
            self.succeeded[key] += 1
            self.failed.pop(key, None)
            return
        if kind in NOT_FAILURES:
            return
        # Only successes since the call last failed count as done: a later failure means it must run again.
        self.succeeded.pop(key, None)
        if kind in OBJECT_SWITCH_KINDS:
            blamed = blamed_object(record)
            if blamed is not None:
                self.excluded.setdefault(blamed, describe(record))
            return
        entry = self.failed.get(key)
        if entry is None:
            entry = FailedCall(call=record.call)
            self.failed[key] = entry
        elif entry.homed or record.plan_index > entry.failures[0].plan_index:
            entry.state = RetryState.EXHAUSTED
        entry.failures.append(record)
        if kind in HOPELESS_KINDS:
            entry.state = RetryState.EXHAUSTED

    def summary(self) -> Iterable[str]:
        """One line per thing learned, for the plan's notes."""
        for object_id, why in sorted(self.excluded.items()):
            yield f"{why} -> {object_id} ruled out"
        for entry in self.failed.values():
            if entry.state is RetryState.HOME_THEN_RETRY:
                last = entry.failures[-1].result.failure_kind
                yield f"{entry.call.label()} {last} -> home, then retry"
