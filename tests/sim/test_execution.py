"""A running skill is stepped tick by tick, reports progress every tick, and stops within one tick when cancelled."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import numpy as np
import pytest
from pydantic import JsonValue

from bt_executive.sim.backend import SimBackend
from bt_executive.sim.execution import SkillExecution, SkillProgress
from bt_executive.sim.motions import SKILLS
from bt_executive.skills.failures import FailureKind

pytestmark = pytest.mark.sim


def _arm_speed(b: SimBackend) -> float:
    return float(np.max(np.abs(b.data.qvel[b.index.arm_dof])))


def _step_until_fast(b: SimBackend, skill: str, args: dict[str, JsonValue]) -> SkillExecution:
    execution = b.start_skill(skill, args)
    while execution.step():
        if _arm_speed(b) > 0.6:
            return execution
    raise AssertionError("the arm never moved fast")


def test_each_step_advances_exactly_one_control_tick(backend: SimBackend) -> None:
    execution = backend.start_skill("pick", {"object": "red_cube"})
    start = backend.sim_time
    execution.step()
    execution.step()
    assert backend.sim_time - start == pytest.approx(0.04)


def test_progress_is_readable_every_tick_and_never_goes_backwards(backend: SimBackend) -> None:
    seen: list[SkillProgress] = []
    execution = backend.start_skill("pick", {"object": "red_cube"})
    execution.run(on_progress=seen.append)
    fractions = [p.fraction for p in seen]
    assert len(seen) == seen[-1].ticks
    assert fractions == sorted(fractions)


def test_progress_names_the_phases_of_the_skill_in_order(backend: SimBackend) -> None:
    phases: list[str] = []
    execution = backend.start_skill("pick", {"object": "red_cube"})
    execution.run(on_progress=lambda p: phases.append(p.phase) if not phases or phases[-1] != p.phase else None)
    assert phases == ["approach", "descend", "close", "lift"]


def test_cancel_mid_motion_stops_the_arm_within_one_tick(backend: SimBackend) -> None:
    execution = _step_until_fast(backend, "pick", {"object": "red_cube"})
    grip_before, _ = backend.reader.grip_pose()
    execution.cancel()
    backend.tick()
    moved_after_one_tick = np.linalg.norm(backend.reader.grip_pose()[0] - grip_before)
    assert moved_after_one_tick < 0.005


def test_a_cancelled_skill_ends_preempted_with_where_it_stopped(backend: SimBackend) -> None:
    execution = backend.start_skill("pick", {"object": "red_cube"})
    for _ in range(30):
        execution.step()
    execution.cancel()
    assert execution.result is not None
    assert (execution.result.failure_kind, execution.result.evidence["phase"]) == (
        FailureKind.PREEMPTED,
        "approach",
    )


def test_cancel_while_holding_keeps_the_object_in_the_gripper(backend: SimBackend) -> None:
    backend.run_skill("pick", {"object": "red_cube"})
    carry = backend.start_skill("place_on", {"target": "plate"})
    while carry.step():
        if carry.progress.phase == "transit" and _arm_speed(backend) > 0.5:
            break
    carry.cancel()
    for _ in range(50):
        backend.tick()
    assert backend.world_state().gripper.holding == "red_cube"


def test_cancel_from_another_thread_ends_a_skill_stepped_in_this_one(backend: SimBackend) -> None:
    execution = backend.start_skill("pick", {"object": "red_cube"})
    for _ in range(10):
        execution.step()
    canceller = threading.Thread(target=execution.cancel)
    canceller.start()
    canceller.join(timeout=10)
    execution.step()
    assert execution.result is not None
    assert execution.result.failure_kind == FailureKind.PREEMPTED


def test_the_backend_accepts_a_new_skill_once_the_last_one_ended(backend: SimBackend) -> None:
    first = backend.start_skill("pick", {"object": "red_cube"})
    first.step()
    first.cancel()
    assert backend.run_skill("home").success


def test_a_bug_inside_a_skill_ends_it_as_unknown_and_frees_the_backend(
    backend: SimBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(ctx: object, args: object) -> Iterator[object]:
        yield from ()
        raise ZeroDivisionError("oops")

    monkeypatch.setattr(SKILLS["tap"], "body", broken)
    result = backend.run_skill("tap", {"object": "red_cube"})
    assert (result.failure_kind, result.reason, backend.active_skill) == (FailureKind.UNKNOWN, "internal_error", None)
