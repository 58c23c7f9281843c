"""Fault injection: loaded from YAML, deterministic for a seed, and felt by the skills the way it says."""

from __future__ import annotations

from pathlib import Path

import pytest

from bt_executive.runtime.paths import config_dir
from bt_executive.sim.backend import SimBackend
from bt_executive.sim.faults import (
    FaultConfig,
    FaultInjector,
    MissedGraspFault,
    ObjectRemovalFault,
    SlowdownFault,
)
from bt_executive.sim.scene import Scene
from bt_executive.skills.errors import ManifestError
from bt_executive.skills.failures import FailureKind

pytestmark = pytest.mark.sim

FAULTS = config_dir() / "faults"


def _backend(faults: FaultConfig, seed: int = 0) -> SimBackend:
    return SimBackend(Scene.from_yaml(config_dir() / "scenes" / "tabletop.yaml"), seed=seed, faults=faults)


def _grasp_decisions(injector: FaultInjector, calls: int) -> list[tuple[float, float] | None]:
    out = []
    for _ in range(calls):
        injector.begin_call("pick", 0.0)
        out.append(injector.grasp_offset("pick", 0.3, 0.0))
    return out


@pytest.mark.parametrize("name", ["missed_grasp", "object_removed", "server_crash", "slow"])
def test_shipped_fault_files_load(name: str) -> None:
    assert FaultConfig.from_yaml(FAULTS / f"{name}.yaml").name == name


def test_a_fault_file_with_a_bad_probability_is_refused_naming_the_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nmissed_grasp: {probability: 1.5}\n")
    with pytest.raises(ManifestError, match=r"missed_grasp\.probability"):
        FaultConfig.from_yaml(bad)


def test_missed_grasp_faults_are_the_same_for_the_same_seed() -> None:
    config = FaultConfig.from_yaml(FAULTS / "missed_grasp.yaml")
    assert _grasp_decisions(FaultInjector(config, 11), 40) == _grasp_decisions(FaultInjector(config, 11), 40)


def test_missed_grasp_faults_differ_between_seeds() -> None:
    config = FaultConfig.from_yaml(FAULTS / "missed_grasp.yaml")
    assert _grasp_decisions(FaultInjector(config, 1), 40) != _grasp_decisions(FaultInjector(config, 2), 40)


def test_missed_grasp_probability_is_roughly_honoured() -> None:
    config = FaultConfig.from_yaml(FAULTS / "missed_grasp.yaml")
    fired = sum(d is not None for d in _grasp_decisions(FaultInjector(config, 0), 1000))
    assert 150 <= fired <= 250


def test_a_fault_seed_in_the_file_overrides_the_layout_seed() -> None:
    config = FaultConfig(name="fixed", seed=4, missed_grasp=MissedGraspFault(probability=0.5))
    assert _grasp_decisions(FaultInjector(config, 1), 30) == _grasp_decisions(FaultInjector(config, 2), 30)


def test_the_same_seed_gives_the_same_skill_results_under_faults() -> None:
    config = FaultConfig(name="half", missed_grasp=MissedGraspFault(probability=0.5))

    def outcomes() -> list[str]:
        b = _backend(config, seed=3)
        results = []
        for cube in ("red_cube", "green_cube", "blue_cube"):
            results.append(b.run_skill("pick", {"object": cube}).reason)
            b.run_skill("place_on", {"target": "table"})
        return results

    assert outcomes() == outcomes()


def test_an_object_removed_after_one_call_is_not_found_on_the_next() -> None:
    b = _backend(FaultConfig.from_yaml(FAULTS / "object_removed.yaml"))
    b.run_skill("home")
    result = b.run_skill("pick", {"object": "red_cube"})
    assert (result.failure_kind, b.world_state().object("red_cube")) == (FailureKind.NOT_FOUND, None)


def test_an_object_moved_out_of_reach_mid_task_is_unreachable_from_then_on() -> None:
    config = FaultConfig(
        name="mid_task",
        object_removed=(ObjectRemovalFault(object="blue_cube", after_calls=0, at_tick=10, mode="out_of_reach"),),
    )
    b = _backend(config)
    first = b.run_skill("pick", {"object": "blue_cube"})  # planned before the cube left: grasps air
    second = b.run_skill("pick", {"object": "blue_cube"})
    assert (first.failure_kind, second.failure_kind) == (FailureKind.MISSED_GRASP, FailureKind.UNREACHABLE)


def test_a_slowdown_stretches_motion_time_by_its_factor() -> None:
    def home_duration(factor: float) -> float:
        b = _backend(FaultConfig(name="slow", slowdown=SlowdownFault(factor=factor)))
        b.set_object_pose("red_cube", (0.3, 0.0, 0.02))
        b.run_skill("tap", {"object": "red_cube"})
        return b.run_skill("home").duration_s

    assert home_duration(3.0) / home_duration(1.0) == pytest.approx(3.0, rel=0.25)


def test_the_server_crash_fault_is_carried_for_the_ros_layer() -> None:
    b = _backend(FaultConfig.from_yaml(FAULTS / "server_crash.yaml"))
    assert b.crash_after_goals == 3


def test_fired_faults_are_recorded_with_their_call() -> None:
    b = _backend(FaultConfig(name="miss", missed_grasp=MissedGraspFault(probability=1.0)))
    b.run_skill("home")
    b.run_skill("pick", {"object": "red_cube"})
    assert [(e.kind, e.call, e.skill) for e in b.fault_events] == [("missed_grasp", 2, "pick")]
