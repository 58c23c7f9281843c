"""GrammarPlanner: grammar to valid, symbolically executable plans; already-done tasks; replans that learn.

World states come from the real MuJoCo tabletop (layout seed 0: three cubes,
a green plate, a white bowl, a closed drawer in a cabinet, arm at home),
changed with ``model_copy`` where a test needs another situation.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from bt_executive.llm.grammar_planner.planner import GrammarPlanner, MissingSkill, RetriesExhausted, UnplannableStep
from bt_executive.llm.grounding.object_matching import AmbiguousObject, RuledOutObject
from bt_executive.llm.language.task_grammar import TaskNotUnderstood
from bt_executive.llm.plan import Plan, Planner, PlannerError, PlannerRefused, RefusalKind
from bt_executive.runtime.paths import config_dir
from bt_executive.sim.backend import SimBackend
from bt_executive.skills.call import AttemptRecord, SkillCall, SkillResult
from bt_executive.skills.conditions import SymbolicState, bind
from bt_executive.skills.failures import FailureKind
from bt_executive.skills.parameters import validate_arguments
from bt_executive.skills.registry import RegisteredSkill, SkillRegistry
from bt_executive.skills.world_state import GripperState, WorldState

CONFIG_FAULTS = config_dir() / "faults"

# -- fixtures and helpers ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def world() -> Iterator[WorldState]:
    """The shipped tabletop scene's world state (layout seed 0), read from the real sim."""
    backend = SimBackend.from_files(seed=0)
    yield backend.world_state()
    backend.close()


@pytest.fixture
def planner(skill_registry: SkillRegistry) -> GrammarPlanner:
    """A stub planner over the shipped tabletop skills."""
    return GrammarPlanner(skill_registry)


def labels(plan: Plan) -> list[str]:
    """The plan's steps as short labels, e.g. ``pick(red_cube)``."""
    return [step.label() for step in plan.steps]


def changed(world: WorldState, object_id: str, **fields: Any) -> WorldState:
    """``world`` with some fields of one object replaced."""
    objects = tuple(o.model_copy(update=fields) if o.id == object_id else o for o in world.objects)
    return world.model_copy(update={"objects": objects})


def holding(world: WorldState, object_id: str) -> WorldState:
    """``world`` with ``object_id`` in the gripper (resting on nothing), arm away from home."""
    lifted = changed(world, object_id, supported_by=None)
    return lifted.model_copy(update={"gripper": GripperState(opening=0.04, holding=object_id), "at_home": False})


def with_copy(world: WorldState, object_id: str, new_id: str) -> WorldState:
    """``world`` plus a second object like ``object_id``, called ``new_id``."""
    original = world.object(object_id)
    assert original is not None
    return world.model_copy(update={"objects": (*world.objects, original.model_copy(update={"id": new_id}))})


def away(world: WorldState) -> WorldState:
    """``world`` with the arm away from its home pose (as after a failed skill)."""
    return world.model_copy(update={"at_home": False})


def call(name: str, **args: Any) -> SkillCall:
    """A tabletop skill call."""
    return SkillCall(skill=f"tabletop/{name}", args=args)


def ok(c: SkillCall, plan_index: int = 0, step: int = 0) -> AttemptRecord:
    """A successful attempt of ``c``."""
    return AttemptRecord(plan_index=plan_index, step=step, call=c, result=SkillResult.ok())


def failed(
    c: SkillCall, kind: FailureKind, reason: str = "", plan_index: int = 0, step: int = 0, **evidence: Any
) -> AttemptRecord:
    """A failed attempt of ``c``."""
    result = SkillResult.failed(kind, reason or kind.value, evidence=evidence)
    return AttemptRecord(plan_index=plan_index, step=step, call=c, result=result)


def assert_executable(plan: Plan, world: WorldState, registry: SkillRegistry) -> None:
    """Every step is a registry skill with valid args whose preconditions hold after the steps before it."""
    state = SymbolicState(world)
    for number, step in enumerate(plan.steps, start=1):
        manifest = registry.get(step.skill)
        validate_arguments(manifest, step.args)
        for text in manifest.preconditions:
            predicate = bind(text, step.args)
            assert state.holds(predicate), f"step {number} {step.label()}: {predicate} does not hold"
        for text in manifest.effects:
            state.apply(bind(text, step.args))


# -- the grammar table --------------------------------------------------------------------------------

GRAMMAR_TABLE: list[tuple[str, list[str]]] = [
    ("pick up the red cube", ["pick(red_cube)"]),
    ("pick the green cube", ["pick(green_cube)"]),
    ("Pick the blue cube up.", ["pick(blue_cube)"]),
    ("pick up the red cube and put it on the green plate", ["pick(red_cube)", "place_on(plate)"]),
    ("pick up the red cube then place it on the plate", ["pick(red_cube)", "place_on(plate)"]),
    ("pick up the blue cube, put it in the bowl", ["pick(blue_cube)", "place_on(bowl)"]),
    ("pick the green cube and place on the plate", ["pick(green_cube)", "place_on(plate)"]),
    ("put the red cube on the green plate", ["pick(red_cube)", "place_on(plate)"]),
    ("Put the red cube on the green plate.", ["pick(red_cube)", "place_on(plate)"]),
    ("place the blue cube into the white bowl", ["pick(blue_cube)", "place_on(bowl)"]),
    ("put the green block onto the plate", ["pick(green_cube)", "place_on(plate)"]),
    ("please put the red_cube on the plate", ["pick(red_cube)", "place_on(plate)"]),
    ("stack the red cube on the blue cube", ["stack(red_cube, blue_cube)"]),
    ("stack the green cube on top of the red cube", ["stack(green_cube, red_cube)"]),
    ("push the red cube forward", ["push(red_cube, forward)"]),
    ("push the blue cube back", ["push(blue_cube, back)"]),
    ("push the green cube to the left", ["push(green_cube, left)"]),
    ("PUSH THE RED CUBE RIGHT!", ["push(red_cube, right)"]),
    ("pour the red cube into the bowl", ["pick(red_cube)", "pour(red_cube, bowl)"]),
    ("tap the blue cube", ["tap(blue_cube)"]),
    ("press the red cube", ["tap(red_cube)"]),
    ("poke the green cube", ["tap(green_cube)"]),
    ("touch the plate", ["tap(plate)"]),
    ("open the drawer", ["open_drawer(drawer)"]),
    ("open the cabinet, then close it", ["open_drawer(drawer)", "close_drawer(drawer)"]),
    ("pick up the red cube then go home", ["pick(red_cube)", "home()"]),
    (
        "pick up the red cube, then put it on the plate, and then go back home",
        ["pick(red_cube)", "place_on(plate)", "home()"],
    ),
    ("tap the red cube, push the blue cube left then go home", ["tap(red_cube)", "push(blue_cube, left)", "home()"]),
    ("pick up the red cube then pick up the blue cube", ["pick(red_cube)", "place_on(table)", "pick(blue_cube)"]),
    (
        "put the red cube in the bowl then stack the blue cube on the green cube and go home",
        ["pick(red_cube)", "place_on(bowl)", "stack(blue_cube, green_cube)", "home()"],
    ),
]


@pytest.mark.parametrize(("task", "expected"), GRAMMAR_TABLE, ids=[t for t, _ in GRAMMAR_TABLE])
def test_each_task_form_plans_the_expected_valid_executable_steps(
    planner: GrammarPlanner, world: WorldState, skill_registry: SkillRegistry, task: str, expected: list[str]
) -> None:
    plan = planner.plan(task, world)
    assert labels(plan) == expected
    assert plan.planner == "stub"
    assert_executable(plan, world, skill_registry)


def test_the_stub_planner_is_a_planner(planner: GrammarPlanner) -> None:
    assert isinstance(planner, Planner)


def test_the_demo_task_picks_the_red_cube_and_places_it_on_the_plate(
    planner: GrammarPlanner, world: WorldState
) -> None:
    plan = planner.plan("put the red cube on the green plate", world)
    assert plan.steps == (
        call("pick", object="red_cube").model_copy(update={"rationale": plan.steps[0].rationale}),
        call("place_on", target="plate").model_copy(update={"rationale": plan.steps[1].rationale}),
    )
    assert "'the green plate' -> plate" in plan.notes


def test_the_same_input_gives_equal_plans(skill_registry: SkillRegistry, world: WorldState) -> None:
    task = "pick up the red cube, put it in the bowl, push the blue cube left then go home"
    attempts = [failed(call("pick", object="red_cube"), FailureKind.COLLISION)]
    first = GrammarPlanner(skill_registry).plan(task, away(world), attempts)
    second = GrammarPlanner(skill_registry).plan(task, away(world), attempts)
    assert first == second
    assert first.model_dump_json() == second.model_dump_json()


# -- errors ---------------------------------------------------------------------------------------------


def test_an_out_of_grammar_task_names_the_robots_verbs_and_the_llm_planner(
    planner: GrammarPlanner, world: WorldState
) -> None:
    with pytest.raises(TaskNotUnderstood) as err:
        planner.plan("make me a sandwich", world)
    assert "this robot's verbs: " in str(err.value)
    assert "pick up" in str(err.value)
    assert "open" in str(err.value)
    assert "--planner local" in str(err.value)


def test_another_robots_out_of_grammar_error_lists_its_verbs_not_the_tabletops(
    skill_registry: SkillRegistry, world: WorldState
) -> None:
    tapping = skill_registry.without(i for i in skill_registry.ids() if i != "tabletop/tap")
    with pytest.raises(TaskNotUnderstood) as err:
        GrammarPlanner(tapping).plan("make me a sandwich", world)
    verbs = str(err.value).split("this robot's verbs: ", 1)[1].split(";", 1)[0]
    assert "tap" in verbs
    assert "pick up" not in verbs
    assert "pick (up) the X" not in str(err.value)


def test_an_ambiguous_phrase_is_a_planner_error_listing_the_candidates(
    planner: GrammarPlanner, world: WorldState
) -> None:
    with pytest.raises(AmbiguousObject) as err:
        planner.plan("pick up the cube", world)
    assert isinstance(err.value, PlannerError)
    assert "blue_cube, green_cube, red_cube" in str(err.value)


def test_a_pronoun_with_nothing_to_refer_to_is_refused(planner: GrammarPlanner, world: WorldState) -> None:
    with pytest.raises(UnplannableStep, match="'it'"):
        planner.plan("put it on the plate", world)


def test_a_pronoun_refers_to_the_held_object(planner: GrammarPlanner, world: WorldState) -> None:
    assert labels(planner.plan("put it on the plate", holding(world, "green_cube"))) == ["place_on(plate)"]


def test_an_unreachable_object_is_refused_naming_the_precondition(planner: GrammarPlanner, world: WorldState) -> None:
    # No skill of the tabletop moves the arm's base: out of reach is not afforded here, refused before anything moves.
    with pytest.raises(PlannerRefused, match=r"pick\(red_cube\) needs red_cube within reach") as err:
        planner.plan("pick up the red cube", changed(world, "red_cube", reachable=False))
    assert err.value.kind is RefusalKind.NOT_AFFORDED


def test_a_skill_missing_from_the_registry_is_a_planner_error(skill_registry: SkillRegistry, world: WorldState) -> None:
    registry = _without(skill_registry, "tabletop/pour")
    with pytest.raises(MissingSkill, match="no skill of this robot can pour"):
        GrammarPlanner(registry).plan("pour the red cube into the bowl", world)


def test_without_a_stack_skill_stacking_is_pick_then_place(skill_registry: SkillRegistry, world: WorldState) -> None:
    plan = GrammarPlanner(_without(skill_registry, "tabletop/stack")).plan("stack the red cube on the blue cube", world)
    assert labels(plan) == ["pick(red_cube)", "place_on(blue_cube)"]


def test_the_manifests_choose_the_skill_whatever_the_owner(skill_registry: SkillRegistry, world: WorldState) -> None:
    # The owner only orders skills that achieve the same effect; no skill is looked up by owner and name.
    plan = GrammarPlanner(skill_registry, owner="other").plan("pick up the red cube", world)
    assert labels(plan) == ["pick(red_cube)"]


def _without(registry: SkillRegistry, skill_id: str) -> SkillRegistry:
    return SkillRegistry(RegisteredSkill(m, registry.source(m.id)) for m in registry if m.id != skill_id)


# -- already done ---------------------------------------------------------------------------------------


def test_a_cube_already_on_the_plate_gives_an_empty_plan(planner: GrammarPlanner, world: WorldState) -> None:
    plan = planner.plan("put the red cube on the green plate", changed(world, "red_cube", supported_by="plate"))
    assert plan.is_done
    assert "already" in plan.notes


def test_going_home_when_at_home_gives_an_empty_plan(planner: GrammarPlanner, world: WorldState) -> None:
    assert world.at_home
    assert planner.plan("go home", world).is_done
    assert labels(planner.plan("go home", away(world))) == ["home()"]


def test_closing_a_closed_drawer_gives_an_empty_plan(planner: GrammarPlanner, world: WorldState) -> None:
    assert planner.plan("close the drawer", world).is_done
    opened = world.model_copy(update={"drawers": {"drawer": 1.0}})
    assert planner.plan("open the drawer", opened).is_done
    assert labels(planner.plan("close the drawer", opened)) == ["close_drawer(drawer)"]


def test_an_object_already_held_is_not_picked_again(planner: GrammarPlanner, world: WorldState) -> None:
    held = holding(world, "red_cube")
    assert planner.plan("pick up the red cube", held).is_done
    assert labels(planner.plan("put the red cube on the plate", held)) == ["place_on(plate)"]
    assert labels(planner.plan("pour the red cube into the bowl", held)) == ["pour(red_cube, bowl)"]


def test_another_held_object_is_put_down_before_a_pick(
    planner: GrammarPlanner, world: WorldState, skill_registry: SkillRegistry
) -> None:
    held = holding(world, "blue_cube")
    plan = planner.plan("stack the red cube on the green cube", held)
    assert labels(plan) == ["place_on(table)", "stack(red_cube, green_cube)"]
    assert_executable(plan, held, skill_registry)


# -- replanning -------------------------------------------------------------------------------------------


def test_not_found_switches_to_another_object_the_phrase_matches(planner: GrammarPlanner, world: WorldState) -> None:
    two = with_copy(world, "red_cube", "red_cube_2")
    pick = call("pick", object="red_cube")
    attempts = [failed(pick, FailureKind.NOT_FOUND, "unknown_object", object="red_cube")]
    plan = planner.plan("put the red cube on the plate", two, attempts)
    assert labels(plan) == ["pick(red_cube_2)", "place_on(plate)"]
    assert plan.notes.startswith("replan 1: pick(red_cube) not_found (unknown_object) -> red_cube ruled out")


def test_unreachable_target_switches_and_the_held_object_is_not_picked_again(
    planner: GrammarPlanner, world: WorldState
) -> None:
    two = holding(with_copy(world, "plate", "plate_2"), "red_cube")
    attempts = [
        ok(call("pick", object="red_cube")),
        failed(call("place_on", target="plate"), FailureKind.UNREACHABLE, "ik_failed", step=1, what="pose over plate"),
    ]
    assert labels(planner.plan("put the red cube on the plate", two, attempts)) == ["place_on(plate_2)"]


def test_an_object_gone_from_the_world_state_is_never_chosen(planner: GrammarPlanner, world: WorldState) -> None:
    two = with_copy(world, "red_cube", "red_cube_2")
    gone = two.model_copy(update={"objects": tuple(o for o in two.objects if o.id != "red_cube")})
    assert labels(planner.plan("pick up the red cube", gone)) == ["pick(red_cube_2)"]


def test_not_found_with_no_other_match_is_a_planner_error_naming_what_was_ruled_out(
    planner: GrammarPlanner, world: WorldState
) -> None:
    attempts = [failed(call("pick", object="red_cube"), FailureKind.NOT_FOUND, object="red_cube")]
    with pytest.raises(RuledOutObject, match="ruled out after failed attempts: red_cube") as raised:
        planner.plan("pick up the red cube", world, attempts)
    assert not isinstance(raised.value, PlannerRefused)  # the world changed; the request itself was fine


def test_a_physical_failure_goes_home_then_retries_the_same_call(planner: GrammarPlanner, world: WorldState) -> None:
    attempts = [failed(call("pick", object="red_cube"), FailureKind.MISSED_GRASP)]
    plan = planner.plan("put the red cube on the plate", away(world), attempts)
    assert labels(plan) == ["home()", "pick(red_cube)", "place_on(plate)"]
    assert "pick(red_cube) missed_grasp -> home, then retry" in plan.notes


def test_the_same_call_failing_after_going_home_ends_with_what_was_tried(
    planner: GrammarPlanner, world: WorldState
) -> None:
    pick = call("pick", object="red_cube")
    attempts = [
        failed(pick, FailureKind.MISSED_GRASP),
        ok(call("home"), plan_index=1),
        failed(pick, FailureKind.COLLISION, plan_index=1, step=1),
    ]
    with pytest.raises(RetriesExhausted) as err:
        planner.plan("put the red cube on the plate", away(world), attempts)
    assert "pick(red_cube) failed 2 time(s): missed_grasp (missed_grasp), then collision (collision)" in str(err.value)


def test_the_same_call_failing_in_a_later_plan_is_exhausted_even_without_a_home(
    planner: GrammarPlanner, world: WorldState
) -> None:
    pick = call("pick", object="red_cube")
    attempts = [failed(pick, FailureKind.TIMEOUT), failed(pick, FailureKind.TIMEOUT, plan_index=1)]
    with pytest.raises(RetriesExhausted):
        planner.plan("pick up the red cube", world, attempts)


def test_retries_inside_one_plan_still_earn_the_home_retry(planner: GrammarPlanner, world: WorldState) -> None:
    pick = call("pick", object="red_cube")
    attempts = [failed(pick, FailureKind.MISSED_GRASP) for _ in range(3)]
    assert labels(planner.plan("pick up the red cube", away(world), attempts)) == ["home()", "pick(red_cube)"]


def test_invalid_params_are_not_retried(planner: GrammarPlanner, world: WorldState) -> None:
    attempts = [failed(call("tap", object="red_cube"), FailureKind.INVALID_PARAMS)]
    with pytest.raises(RetriesExhausted, match="invalid_params"):
        planner.plan("tap the red cube", world, attempts)


def test_an_effectless_step_that_succeeded_is_not_repeated(planner: GrammarPlanner, world: WorldState) -> None:
    attempts = [
        ok(call("tap", object="red_cube")),
        failed(call("pick", object="blue_cube"), FailureKind.COLLISION, step=1),
    ]
    plan = planner.plan("tap the red cube then pick up the blue cube", away(world), attempts)
    assert labels(plan) == ["home()", "pick(blue_cube)"]


def test_steps_whose_effect_a_later_step_undid_are_not_redone(planner: GrammarPlanner, world: WorldState) -> None:
    task = "open the drawer, close it, then pick up the red cube and put it in the bowl, then tap the blue cube"
    done = [ok(call("open_drawer", drawer="drawer")), ok(call("close_drawer", drawer="drawer"))]
    done += [ok(call("pick", object="red_cube")), ok(call("place_on", target="bowl"))]
    attempts = [*done, failed(call("tap", object="blue_cube"), FailureKind.COLLISION, step=4)]
    in_bowl = away(changed(world, "red_cube", supported_by="bowl", inside="bowl"))
    assert labels(planner.plan(task, in_bowl, attempts)) == ["home()", "tap(blue_cube)"]


def test_a_call_that_failed_after_succeeding_is_not_counted_done(planner: GrammarPlanner, world: WorldState) -> None:
    tap = call("tap", object="red_cube")
    attempts = [ok(tap), failed(tap, FailureKind.TIMEOUT, step=1)]
    assert labels(planner.plan("tap the red cube", away(world), attempts)) == ["home()", "tap(red_cube)"]


def test_a_replan_loop_against_a_robot_that_always_misses_ends_with_a_planner_error(
    planner: GrammarPlanner, world: WorldState
) -> None:
    attempts: list[AttemptRecord] = []
    current = world
    for plan_index in range(5):
        try:
            plan = planner.plan("put the red cube on the plate", current, attempts)
        except RetriesExhausted:
            break
        current = _run_until_pick_fails(plan, current, attempts, plan_index)
    else:
        pytest.fail("the stub planner kept replanning a pick that always misses")
    assert plan_index == 2


def _run_until_pick_fails(plan: Plan, world: WorldState, attempts: list[AttemptRecord], plan_index: int) -> WorldState:
    """A pretend robot: home works; every pick misses its grasp."""
    for step, c in enumerate(plan.steps):
        if c.skill == "tabletop/home":
            attempts.append(ok(c, plan_index, step))
            world = world.model_copy(update={"at_home": True})
            continue
        attempts.append(failed(c, FailureKind.MISSED_GRASP, plan_index=plan_index, step=step))
        return away(world)
    return world


@pytest.mark.parametrize(
    ("attempts", "twin"),
    [
        # A second red cube: the one not found is ruled out, and "the red cube" is the other.
        ([failed(call("pick", object="red_cube"), FailureKind.NOT_FOUND, object="red_cube")], True),
        ([failed(call("pick", object="red_cube"), FailureKind.COLLISION)], False),
    ],
    ids=["not_found", "collision"],
)
def test_every_replan_is_valid_and_symbolically_executable(
    planner: GrammarPlanner,
    world: WorldState,
    skill_registry: SkillRegistry,
    attempts: Sequence[AttemptRecord],
    twin: bool,
) -> None:
    start = away(with_copy(world, "red_cube", "red_cube_2") if twin else world)
    plan = planner.plan("put the red cube in the bowl then go home", start, attempts)
    assert plan.steps
    assert_executable(plan, start, skill_registry)


def test_the_executability_check_catches_a_place_without_a_pick(
    world: WorldState, skill_registry: SkillRegistry
) -> None:
    bad = Plan(steps=(call("place_on", target="plate"),), planner="hand")
    with pytest.raises(AssertionError, match="not gripper_empty"):
        assert_executable(bad, world, skill_registry)


# -- closed loop in the real sim ------------------------------------------------------------------------


def run_in_sim(
    planner: GrammarPlanner, backend: SimBackend, task: str, max_replans: int = 4
) -> tuple[str, list[Plan], list[AttemptRecord]]:
    """A minimal executive: plan, run the steps in the sim, replan with the attempts on a failure."""
    plans: list[Plan] = []
    attempts: list[AttemptRecord] = []
    for plan_index in range(max_replans + 1):
        try:
            plan = planner.plan(task, backend.world_state(), attempts)
        except PlannerError as err:
            return f"planner_error: {err}", plans, attempts
        plans.append(plan)
        if plan.is_done:
            return "done", plans, attempts
        for step, c in enumerate(plan.steps):
            result = backend.run_skill(c.skill.split("/", 1)[1], c.args)
            attempts.append(AttemptRecord(plan_index=plan_index, step=step, call=c, result=result))
            if not result.success:
                break
    return "replan_exhausted", plans, attempts


@pytest.mark.sim
@pytest.mark.parametrize(
    "task",
    [
        "put the red cube on the green plate",
        "pick up the blue cube and put it in the bowl, then go home",
        "open the drawer",
        "stack the green cube on top of the red cube",
        "pour the red cube into the bowl then put it on the plate",
    ],
)
def test_a_plan_run_in_the_sim_leaves_nothing_to_do(planner: GrammarPlanner, task: str) -> None:
    backend = SimBackend.from_files(seed=0)
    try:
        reason, plans, attempts = run_in_sim(planner, backend, task)
    finally:
        backend.close()
    assert reason == "done", [a.result for a in attempts]
    assert all(a.result.success for a in attempts)
    assert len(plans) == 2  # the plan, then the empty plan that says it is done


@pytest.mark.sim
def test_in_the_sim_a_vanished_cube_ends_the_task_with_a_clear_planner_error(planner: GrammarPlanner) -> None:
    backend = SimBackend.from_files(seed=0, faults=CONFIG_FAULTS / "object_removed.yaml")
    try:
        reason, _, attempts = run_in_sim(planner, backend, "tap the green cube then put the red cube on the plate")
    finally:
        backend.close()
    assert attempts[-1].result.failure_kind is FailureKind.NOT_FOUND
    assert reason.startswith("planner_error: no object matches 'the red cube'")


@pytest.mark.sim
def test_in_the_sim_a_pick_that_always_misses_goes_home_once_then_gives_up(
    planner: GrammarPlanner, tmp_path: Path
) -> None:
    faults = tmp_path / "always_miss.yaml"
    faults.write_text(
        "name: always_miss\ndescription: every pick misses.\n"
        "missed_grasp: {probability: 1.0, offset_m: 0.065, skills: [pick]}\n"
    )
    backend = SimBackend.from_files(seed=0, faults=faults)
    try:
        reason, plans, attempts = run_in_sim(planner, backend, "put the red cube on the plate")
    finally:
        backend.close()
    assert [labels(p) for p in plans] == [
        ["pick(red_cube)", "place_on(plate)"],
        ["home()", "pick(red_cube)", "place_on(plate)"],
    ]
    assert [a.result.failure_kind for a in attempts] == [FailureKind.MISSED_GRASP, None, FailureKind.MISSED_GRASP]
    assert reason.startswith("planner_error: giving up: pick(red_cube) failed 2 time(s)")


@pytest.mark.parametrize(
    "task",
    [
        "stack the cubes",
        "build a tower of the three cubes",
        "stack the cubes on top of each other",
        "pile up the cubes",
    ],
)
def test_a_tower_with_no_base_named_stacks_each_cube_on_the_one_before(
    planner: GrammarPlanner, world: WorldState, task: str
) -> None:
    assert labels(planner.plan(task, world)) == ["stack(green_cube, blue_cube)", "stack(red_cube, green_cube)"]


def test_a_tower_of_one_object_is_a_planner_error_not_a_guess(planner: GrammarPlanner, world: WorldState) -> None:
    with pytest.raises(UnplannableStep, match="two objects or more"):
        planner.plan("stack all the red cubes", world)


def test_a_count_that_differs_from_the_matches_is_refused_with_them(planner: GrammarPlanner, world: WorldState) -> None:
    with pytest.raises(PlannerRefused) as refused:
        planner.plan("put the two cubes on the plate", world)
    assert refused.value.candidates == ("blue_cube", "green_cube", "red_cube")


def test_a_stated_goal_is_planned_as_the_action_that_makes_it_hold(planner: GrammarPlanner, world: WorldState) -> None:
    plans = [planner.plan(t, world) for t in ("the red cube should be in the bowl", "make sure the drawer is open")]
    assert [labels(p) for p in plans] == [["pick(red_cube)", "place_on(bowl)"], ["open_drawer(drawer)"]]
