"""A running skill as a step object: advance it one control tick at a time, watch it, cancel it.

::

    execution = backend.start_skill("pick", {"object": "red_cube"})
    while execution.step():              # one control tick (20 ms of sim time) per call
        publish(execution.progress)      # phase, fraction, elapsed: feedback at the tick rate
        if cancel_requested():
            execution.cancel()           # holds position at once; result is PREEMPTED
    result = execution.result            # a SkillResult

A skill is a generator (``motions/``) that plans on the spare MjData and
then yields one ``TickCommand`` per tick. Around every tick the execution
runs the monitors a skill cannot forget: a MuJoCo warning (physics blew up
and was auto-reset) ends it as ``aborted`` with reason ``sim_error``; a
deadline in sim time ends it as ``timeout``; a contact between the robot
(or what it holds) and something the current motion did not expect to touch
ends it as ``collision``. Every early end holds the arm where it is and
keeps the gripper as it was, so a held object is not dropped mid-air.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, JsonValue

from bt_executive.sim.control import TickCommand
from bt_executive.skills.call import SkillResult
from bt_executive.skills.failures import FailureKind

if TYPE_CHECKING:
    from bt_executive.sim.backend import SimBackend
    from bt_executive.sim.skill_context import SkillContext

_log = logging.getLogger(__name__)

SkillGenerator = Generator[TickCommand, None, SkillResult]
"""What a skill is: yields one command per control tick, returns its result."""

COLLISION_FORCE = 5.0
"""Normal force (N) above which an unexpected robot contact is a collision."""


class SkillFailure(Exception):
    """Raised inside a skill to end it with a structured failure."""

    def __init__(
        self, kind: FailureKind, reason: str, detail: str = "", evidence: dict[str, JsonValue] | None = None
    ) -> None:
        super().__init__(f"{kind.value}: {reason}")
        self.kind = kind
        self.reason = reason
        self.detail = detail
        self.evidence: dict[str, JsonValue] = evidence or {}

    def result(self, duration_s: float) -> SkillResult:
        """The SkillResult this failure stands for."""
        return SkillResult.failed(
            self.kind, self.reason, detail=self.detail, evidence=self.evidence, duration_s=round(duration_s, 4)
        )


class SkillProgress(BaseModel):
    """Feedback for one running skill: where it is, and how far along."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    skill: str
    phase: str
    fraction: float = Field(ge=0.0, le=1.0)
    elapsed_s: float = Field(ge=0.0, description="sim seconds since the skill started")
    ticks: int = Field(ge=0)
    done: bool = False


class SkillExecution:
    """One skill call: step it per control tick, read progress, cancel it, then read its result."""

    def __init__(
        self,
        backend: SimBackend,
        name: str,
        args: dict[str, JsonValue],
        timeout_s: float,
        context: SkillContext | None,
        body: Callable[[], SkillGenerator] | None,
        early_result: SkillResult | None = None,
    ) -> None:
        self.backend = backend
        self.name = name
        self.args = args
        self.timeout_s = timeout_s
        self._ctx = context
        self._gen = body() if body is not None else None
        self._ticks = 0
        self._result: SkillResult | None = early_result
        self._start_time = backend.sim_time

    # -- what a caller reads -------------------------------------------------------------------

    @property
    def done(self) -> bool:
        """Whether the skill has finished (success, failure or cancel)."""
        return self._result is not None

    @property
    def result(self) -> SkillResult | None:
        """The final result, or None while running."""
        return self._result

    @property
    def elapsed_s(self) -> float:
        """Sim time since the skill started."""
        return self._ticks * self.backend.control_dt

    @property
    def progress(self) -> SkillProgress:
        """Phase, fraction done and elapsed sim time (cheap; read it every tick for feedback)."""
        phase, fraction = ("done", 1.0) if self._ctx is None else self._ctx.progress()
        if self.done:
            fraction = 1.0 if self._result is not None and self._result.success else fraction
        return SkillProgress(
            skill=self.name,
            phase=phase,
            fraction=min(1.0, max(0.0, fraction)),
            elapsed_s=round(self.elapsed_s, 4),
            ticks=self._ticks,
            done=self.done,
        )

    # -- driving it ----------------------------------------------------------------------------

    def step(self) -> bool:
        """Run one control tick of the skill; False once it has finished (then read ``result``)."""
        if self.done:
            return False
        self.backend.pace()
        with self.backend.lock:
            return False if self._finished_meanwhile() else self._step_locked()

    def _finished_meanwhile(self) -> bool:
        """Whether another thread cancelled while this one waited for the lock."""
        return self._result is not None

    def _step_locked(self) -> bool:
        from bt_executive.sim.backend import SimError

        gen, ctx = self._gen, self._ctx
        if gen is None or ctx is None:
            return False
        try:
            command = next(gen)
        except StopIteration as stop:
            self._finish(stop.value)
            return False
        except SkillFailure as failure:
            self.backend.hold()
            self._finish(failure.result(self.elapsed_s))
            return False
        except Exception as err:  # a bug in a skill must not leave the backend busy and the arm moving
            _log.exception("skill %s raised", self.name)
            self.backend.hold()
            self._finish(
                SkillFailure(
                    FailureKind.UNKNOWN,
                    "internal_error",
                    detail=f"{type(err).__name__}: {err}"[:4000],
                    evidence={"exception": type(err).__name__, "phase": ctx.phase},
                ).result(self.elapsed_s)
            )
            return False
        try:
            self.backend.advance(command)
        except SimError as err:
            self._abort(SkillFailure(FailureKind.ABORTED, "sim_error", detail=str(err), evidence=err.evidence))
            return False
        self._ticks += 1
        self.backend.apply_due_faults(self._ticks)
        if self.elapsed_s > self.timeout_s + 1e-9:
            self._abort(
                SkillFailure(
                    FailureKind.TIMEOUT,
                    "deadline_exceeded",
                    detail=f"{self.name} still running after {self.timeout_s:g} s of sim time (phase {ctx.phase})",
                    evidence={"timeout_s": self.timeout_s, "phase": ctx.phase, "elapsed_s": round(self.elapsed_s, 3)},
                )
            )
            return False
        hit = ctx.unexpected_contact(COLLISION_FORCE)
        if hit is not None:
            self._abort(
                SkillFailure(
                    FailureKind.COLLISION,
                    "unexpected_contact",
                    detail=f"{hit['between']} touched during {ctx.phase} with {hit['force_n']} N",
                    evidence={**hit, "phase": ctx.phase},
                )
            )
            return False
        return True

    def cancel(self, reason: str = "cancelled") -> None:
        """Stop now: the arm holds where it is, the gripper keeps its grip; the result is ``preempted``."""
        self.stop(FailureKind.PREEMPTED, reason)

    def stop(self, kind: FailureKind, reason: str, why: str = "") -> None:
        """Stop now with ``kind``: the arm holds where it is, the gripper keeps its grip (the safe stop)."""
        with self.backend.lock:
            if self.done:
                return
            phase = self._ctx.phase if self._ctx is not None else ""
            self._abort(
                SkillFailure(
                    kind,
                    reason,
                    detail=f"{why + ': ' if why else ''}stopped during {phase}; holding position, gripper unchanged",
                    evidence={"phase": phase, "joint_positions": _rounded(self.backend.reader.arm_q())},
                )
            )

    def run(
        self,
        *,
        on_progress: Callable[[SkillProgress], None] | None = None,
        should_cancel: Callable[[], bool] | None = None,
    ) -> SkillResult:
        """Step to the end, calling ``on_progress`` every tick and cancelling once ``should_cancel()`` is true."""
        while self.step():
            if on_progress is not None:
                on_progress(self.progress)
            if should_cancel is not None and should_cancel():
                self.cancel()
        result = self._result
        if result is None:  # pragma: no cover - step() only returns False once finished
            raise RuntimeError(f"skill {self.name} stopped without a result")
        return result

    # -- ending --------------------------------------------------------------------------------

    def _abort(self, failure: SkillFailure) -> None:
        if self._gen is not None:
            self._gen.close()
        self.backend.hold()
        self._finish(failure.result(self.elapsed_s))

    def _finish(self, result: SkillResult) -> None:
        if result.duration_s == 0.0 and self.elapsed_s > 0.0:
            result = result.model_copy(update={"duration_s": round(self.elapsed_s, 4)})
        self._result = result
        self.backend.skill_finished(self)


def _rounded(values: np.ndarray, digits: int = 4) -> list[JsonValue]:
    return [round(float(v), digits) if math.isfinite(float(v)) else None for v in values]
