"""Builtin leaves (wait, check, say): results, failure kinds, the blackboard, and never blocking a tick."""

from __future__ import annotations

import logging

import py_trees
import pytest
from py_trees.blackboard import Blackboard
from py_trees.common import Status
from pydantic import JsonValue

from bt_executive.skills import FailureKind, SkillCall, SkillRegistry, WorldState
from bt_executive.skills.builtin_skills import (
    BUILTIN_IDS,
    SAY_LOGGER,
    BuiltinSkill,
    CheckSkill,
    make_builtin_leaf,
)
from bt_executive.skills.leaf import SkillLeaf, WorldStateSource
from bt_executive.skills.world_state import GripperState, ObjectState
from bt_executive.testing import run_tree
from bt_executive.trees.leaf_factory import SkillLeafFactory

pytestmark = pytest.mark.usefixtures("clean_blackboard")

HOLDING_CUBE = WorldState(
    stamp=12.5,
    objects=(ObjectState(id="red_cube", position=(0.3, 0.1, 0.02)),),
    gripper=GripperState(holding="red_cube"),
)


def leaf(
    registry: SkillRegistry,
    skill: str,
    world: WorldStateSource | None = None,
    key: str = "step",
    **args: JsonValue,
) -> BuiltinSkill:
    """The builtin leaf for ``builtin/<skill>`` with ``args``."""
    call = SkillCall(skill=f"builtin/{skill}", args=args)
    made = make_builtin_leaf(registry.get(call.skill), call, name=call.label(), key=key, world=world)
    assert isinstance(made, BuiltinSkill)
    return made


def kind_of(skill: BuiltinSkill) -> FailureKind | None:
    """The failure kind of the leaf's result (None for a success, or no result yet)."""
    return skill.result.failure_kind if skill.result is not None else None


def test_every_shipped_builtin_manifest_has_a_leaf(skill_registry: SkillRegistry) -> None:
    shipped = tuple(m.id for m in skill_registry if m.kind.value == "builtin")
    assert shipped == BUILTIN_IDS


def test_builtin_leaves_satisfy_the_skill_leaf_protocol(skill_registry: SkillRegistry) -> None:
    leaves = [
        leaf(skill_registry, "wait", seconds=1),
        leaf(skill_registry, "check", predicate="gripper_empty"),
        leaf(skill_registry, "say", text="hello"),
    ]
    assert [isinstance(each, SkillLeaf) and each.result is None for each in leaves] == [True, True, True]


# wait --------------------------------------------------------------------------------------------


def test_wait_runs_until_its_seconds_have_passed_then_succeeds(skill_registry: SkillRegistry) -> None:
    wait = leaf(skill_registry, "wait", seconds=0.05)
    run = run_tree(wait, max_ticks=200, period_s=0.005)
    assert (run.status, run.ticks > 1, wait.result is not None and wait.result.duration_s >= 0.05) == (
        Status.SUCCESS,
        True,
        True,
    )


def test_a_long_wait_returns_running_without_blocking_the_tick(skill_registry: SkillRegistry) -> None:
    wait = leaf(skill_registry, "wait", seconds=600)
    run = run_tree(wait, max_ticks=5, period_s=0.001)
    assert (run.status, wait.result) == (Status.RUNNING, None)


def test_halting_a_wait_records_preempted(skill_registry: SkillRegistry) -> None:
    wait = leaf(skill_registry, "wait", seconds=600)
    wait.tick_once()
    wait.stop(Status.INVALID)
    assert kind_of(wait) is FailureKind.PREEMPTED


def test_a_finished_leaf_stopped_by_its_parent_keeps_its_result(skill_registry: SkillRegistry) -> None:
    say = leaf(skill_registry, "say", text="done")
    say.tick_once()
    say.stop(Status.INVALID)  # what a composite does to its children when it resets
    assert (say.status, say.result is not None, kind_of(say)) == (Status.INVALID, True, None)


def test_a_wait_with_a_negative_duration_fails_with_invalid_params_naming_the_field(
    skill_registry: SkillRegistry,
) -> None:
    wait = leaf(skill_registry, "wait", seconds=-1)
    wait.tick_once()
    assert wait.result is not None
    assert (wait.status, wait.result.failure_kind, wait.result.evidence["errors"]) == (
        Status.FAILURE,
        FailureKind.INVALID_PARAMS,
        [{"path": "$.seconds", "reason": "-1 is less than the minimum of 0"}],
    )


# check -------------------------------------------------------------------------------------------


def test_check_succeeds_when_its_predicate_holds(skill_registry: SkillRegistry) -> None:
    check = leaf(skill_registry, "check", lambda: HOLDING_CUBE, predicate="holding(red_cube)")
    check.tick_once()
    assert (check.status, check.result is not None and check.result.evidence["holds"]) == (Status.SUCCESS, True)


def test_check_fails_as_precondition_failed_naming_the_predicate(skill_registry: SkillRegistry) -> None:
    check = leaf(skill_registry, "check", lambda: HOLDING_CUBE, predicate="gripper_empty")
    check.tick_once()
    assert check.result is not None
    assert (check.status, check.result.failure_kind, check.result.reason, check.result.evidence["predicate"]) == (
        Status.FAILURE,
        FailureKind.PRECONDITION_FAILED,
        "does not hold: gripper_empty",
        "gripper_empty",
    )


def test_check_evaluates_negated_predicates(skill_registry: SkillRegistry) -> None:
    check = leaf(skill_registry, "check", lambda: HOLDING_CUBE, predicate="not gripper_empty")
    check.tick_once()
    assert check.status == Status.SUCCESS


def test_check_without_a_world_state_yet_fails_as_unknown_saying_so(skill_registry: SkillRegistry) -> None:
    check = leaf(skill_registry, "check", lambda: None, predicate="holding(red_cube)")
    check.tick_once()
    assert check.result is not None
    assert (check.result.failure_kind, check.result.reason) == (FailureKind.UNKNOWN, "no_world_state")


def test_check_built_without_a_world_source_fails_as_unknown(skill_registry: SkillRegistry) -> None:
    check = leaf(skill_registry, "check", None, predicate="holding(red_cube)")
    check.tick_once()
    assert check.result is not None
    assert (check.result.failure_kind, check.result.reason) == (FailureKind.UNKNOWN, "no_world_source")


def test_check_of_an_unknown_predicate_fails_with_invalid_params_at_its_path(skill_registry: SkillRegistry) -> None:
    check = leaf(skill_registry, "check", lambda: HOLDING_CUBE, predicate="holdng(red_cube)")
    check.tick_once()
    assert check.result is not None
    assert (kind_of(check), "$.predicate: unknown predicate 'holdng'" in check.result.detail) == (
        FailureKind.INVALID_PARAMS,
        True,
    )


def test_check_reads_the_world_on_every_run(skill_registry: SkillRegistry) -> None:
    worlds = [HOLDING_CUBE, WorldState()]
    check = leaf(skill_registry, "check", lambda: worlds[0], predicate="holding(red_cube)")
    check.tick_once()
    first = check.status
    worlds.pop(0)
    check.tick_once()
    assert (first, check.status) == (Status.SUCCESS, Status.FAILURE)


# say ---------------------------------------------------------------------------------------------


def test_say_logs_its_text_at_its_level_and_records_it(
    skill_registry: SkillRegistry, caplog: pytest.LogCaptureFixture
) -> None:
    say = leaf(skill_registry, "say", text="the cube is on the plate", level="warning")
    with caplog.at_level(logging.DEBUG, logger=SAY_LOGGER):
        say.tick_once()
    logged = [(r.name, r.levelno, r.getMessage()) for r in caplog.records]
    assert say.result is not None
    assert (say.status, logged, say.result.evidence) == (
        Status.SUCCESS,
        [(SAY_LOGGER, logging.WARNING, "the cube is on the plate")],
        {"text": "the cube is on the plate", "level": "warning"},
    )


def test_say_at_an_unknown_level_fails_with_invalid_params(skill_registry: SkillRegistry) -> None:
    say = leaf(skill_registry, "say", text="hi", level="shout")
    say.tick_once()
    assert kind_of(say) is FailureKind.INVALID_PARAMS


# the SkillLeaf contract ----------------------------------------------------------------------------


def test_the_result_is_written_to_the_blackboard_under_the_leaf_key(skill_registry: SkillRegistry) -> None:
    say = leaf(skill_registry, "say", key="greeting", text="hello")
    say.tick_once()
    assert Blackboard.get("/skills/greeting/result") == say.result


def test_starting_again_clears_the_previous_result(skill_registry: SkillRegistry) -> None:
    wait = leaf(skill_registry, "wait", seconds=0.02)
    first = run_tree(wait, max_ticks=100, period_s=0.005)
    wait.tick_once()  # a finished behaviour ticked again starts a new run
    assert (first.status, wait.status, wait.result) == (Status.SUCCESS, Status.RUNNING, None)


def test_an_unknown_builtin_id_is_refused_by_name(skill_registry: SkillRegistry) -> None:
    manifest = skill_registry.get("builtin/say").model_copy(update={"id": "builtin/dance"})
    call = SkillCall(skill="builtin/dance")
    with pytest.raises(ValueError, match="no builtin leaf implements 'builtin/dance'"):
        make_builtin_leaf(manifest, call, name="dance", key="dance", world=None)


def test_a_ros_skill_is_not_made_into_a_builtin(skill_registry: SkillRegistry) -> None:
    call = SkillCall(skill="tabletop/home")
    with pytest.raises(ValueError, match="tabletop/home is a ros_action skill, not a builtin"):
        make_builtin_leaf(skill_registry.get(call.skill), call, name="home", key="home", world=None)


def test_the_skill_leaf_factory_gives_builtins_its_world_source(skill_registry: SkillRegistry) -> None:
    factory = SkillLeafFactory(skill_registry, world=lambda: HOLDING_CUBE)
    check = factory(SkillCall(skill="builtin/check", args={"predicate": "holding(red_cube)"}), name="c", key="c")
    assert isinstance(check, CheckSkill)
    check.tick_once()
    assert check.status == Status.SUCCESS


def test_builtins_tick_inside_a_tree(skill_registry: SkillRegistry) -> None:
    root = py_trees.composites.Sequence(
        "routine",
        memory=True,
        children=[
            leaf(skill_registry, "say", key="a", text="start"),
            leaf(skill_registry, "wait", key="b", seconds=0.01),
            leaf(skill_registry, "check", lambda: HOLDING_CUBE, key="c", predicate="holding(red_cube)"),
        ],
    )
    assert run_tree(root, max_ticks=200, period_s=0.002).status == Status.SUCCESS
