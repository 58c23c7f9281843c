"""The executive node over ROS: ExecuteTask in, feedback and result out, preemption, cancel, snapshots.

The node runs in the test process (its own node on the harness's executor);
the skills are the fake skill server in a separate process, so every goal
and cancel is proven by the server's own record.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from bt_executive.cli.task_client import TaskFeedback
from bt_executive.executive.run_dir import RunReader
from bt_executive.llm.plan import Plan
from bt_executive.testing import Outcome
from tests.executive.conftest import HOME, PICK, PLACE, Rig, start

pytestmark = pytest.mark.ros


def test_a_task_runs_to_done_with_feedback_per_step(make_rig: Any) -> None:
    rig: Rig = make_rig(Plan(steps=(PICK, PLACE)))
    rig.server.serve("skills/pick", Outcome(delay_s=0.2))
    rig.server.serve("skills/place_on", Outcome(delay_s=0.2))
    client = rig.client()
    start(rig, client)
    seen: list[TaskFeedback] = []
    result = client.run("put the red cube on the plate", on_feedback=seen.append, timeout_s=30)
    steps = [(f.plan_index, f.step, f.skill) for f in seen if f.skill]
    assert (result.success, result.final_reason, result.error_code, list(dict.fromkeys(steps))) == (
        True,
        "done",
        0,
        [(0, 1, "tabletop/pick"), (0, 2, "tabletop/place_on")],
    )


def test_the_result_lists_every_attempt_with_its_failure_kind(make_rig: Any) -> None:
    rig: Rig = make_rig(Plan(steps=(PICK, PLACE)))
    rig.server.serve("skills/pick", Outcome(failure_kind="missed_grasp"))
    rig.server.serve("skills/place_on")
    client = rig.client()
    start(rig, client)
    result = client.run("put the red cube on the plate", timeout_s=30)
    kinds = [a.result.failure_kind for a in result.attempts]
    assert (result.final_reason, kinds) == ("done", ["missed_grasp", None, None])


def test_a_second_task_preempts_the_first_and_cancels_its_goal_on_the_server(make_rig: Any) -> None:
    rig: Rig = make_rig(Plan(steps=(PICK, PLACE)), Plan(steps=(HOME,)))
    rig.server.serve("skills/pick", Outcome(hang=True))
    rig.server.serve("skills/home", Outcome(delay_s=0.1))
    first, second = rig.client(), rig.client()
    start(rig, first, second)
    import threading

    results: dict[str, Any] = {}
    runner = threading.Thread(target=lambda: results.update(first=first.run("first task", timeout_s=30)))
    runner.start()
    rig.server.wait_for(lambda events: any(e.event == "goal" for e in events), timeout_s=15)
    results["second"] = second.run("second task", timeout_s=30)
    runner.join(timeout=30)
    rig.server.wait_for(lambda events: any(e.event == "canceled" for e in events), timeout_s=5)
    picks = rig.server.goals("skills/pick")
    assert (results["first"].final_reason, results["second"].final_reason) == ("preempted", "done")
    assert [c.goal_id for c in rig.server.cancels("skills/pick")] == [g.goal_id for g in picks]


def test_cancelling_the_task_cancels_its_goal_and_ends_it_preempted(make_rig: Any) -> None:
    rig: Rig = make_rig(Plan(steps=(PICK, PLACE)))
    rig.server.serve("skills/pick", Outcome(hang=True))
    client = rig.client()
    start(rig, client)
    import threading

    results: dict[str, Any] = {}
    runner = threading.Thread(target=lambda: results.update(result=client.run("a task", timeout_s=30)))
    runner.start()
    rig.server.wait_for(lambda events: any(e.event == "goal" for e in events), timeout_s=15)
    client.cancel()
    runner.join(timeout=30)
    rig.server.wait_for(lambda events: any(e.event == "canceled" for e in events), timeout_s=5)
    assert (results["result"].final_reason, len(rig.server.cancels("skills/pick"))) == ("preempted", 1)


def test_snapshots_are_published_on_change_and_the_run_directory_records_the_task(
    make_rig: Any, tmp_path: Path
) -> None:
    rig: Rig = make_rig(Plan(steps=(PICK,)))
    rig.server.serve("skills/pick", Outcome(delay_s=0.3))
    client = rig.client()
    start(rig, client)
    client.run("pick the red cube", timeout_s=30)
    deadline = time.monotonic() + 5
    while not rig.snapshots or rig.snapshots[-1]["behaviours"][rig.snapshots[-1]["root"]]["status"] != "SUCCESS":
        assert time.monotonic() < deadline, "no final snapshot"
        time.sleep(0.02)
    [run] = list((tmp_path / "runs").iterdir())
    events = [e.kind for e in RunReader(run).events()]
    assert (len(rig.snapshots) < 60, events[0], events[-1], "step_end" in events) == (True, "task", "final", True)


def test_the_effective_configuration_is_visible_as_ros_parameters(make_rig: Any) -> None:
    rig: Rig = make_rig()
    node = rig.executive.node
    values = {name: node.get_parameter(name).value for name in ("tick_rate_hz", "planner", "max_replans")}
    assert values == {"tick_rate_hz": 100.0, "planner": "auto", "max_replans": 2}


def test_the_tree_ticks_when_an_answer_arrives_not_only_on_its_timer(make_rig: Any) -> None:
    timer_period_s = 5.0
    rig: Rig = make_rig(Plan(steps=(PICK,)), tick_rate_hz=1.0 / timer_period_s)
    rig.server.serve("skills/pick")
    client = rig.client()
    start(rig, client)
    started = time.monotonic()
    result = client.run("pick up the red cube", timeout_s=30)
    # Start, plan, goal accepted, result: four ticks, 15-20 s if only the timer ticked.
    assert (result.final_reason, time.monotonic() - started < timer_period_s) == ("done", True)


def test_a_refused_task_ends_planner_refused_with_its_reason_in_the_result_and_the_run_dir(
    make_rig: Any, tmp_path: Path
) -> None:
    from bt_executive.cli.runs_command import format_run
    from bt_executive.llm.plan import PlannerRefused, RefusalKind

    refusal = PlannerRefused("no purple cube in the world state", RefusalKind.NO_SUCH_OBJECT, ["red_cube"])
    rig: Rig = make_rig(refusal)
    rig.server.serve("skills/pick")
    client = rig.client()
    start(rig, client)
    result = client.run("pick up the purple cube", timeout_s=30)
    assert (result.success, result.final_reason, result.error_code, result.detail) == (
        False,
        "planner_refused",
        212,  # REFUSED_NO_SUCH_OBJECT: a client tells the refusal's kind apart without parsing detail
        "no_such_object: no purple cube in the world state",
    )
    [run] = list((tmp_path / "runs").iterdir())
    outcome = RunReader(run).outcome()
    assert outcome is not None
    assert (outcome.final_reason, outcome.attempts, rig.server.goals("skills/pick")) == ("planner_refused", (), [])
    shown = format_run(RunReader(run))
    assert "planner refused (no_such_object): no purple cube in the world state (say one of: red_cube)" in shown
    assert "final     planner_refused (no_such_object: no purple cube in the world state)" in shown


def test_the_result_carries_the_goal_checked_in_the_published_world_state(make_rig: Any) -> None:
    from bt_executive.skills.world_state import ObjectState, WorldState
    from bt_executive.skills.world_state_msg import to_msg
    from bt_executive_interfaces.msg import WorldState as WorldStateMsg

    rig: Rig = make_rig(Plan(steps=(PICK,), goal=("at_home",)))
    rig.server.serve("skills/pick")
    publisher = rig.client_node.create_publisher(WorldStateMsg, f"{rig.harness.namespace}/world_state", 10)
    cube = ObjectState(id="red_cube", category="cube", position=(0.3, 0.1, 0.02), supported_by="table")
    home = to_msg(WorldState(objects=(cube,), at_home=True))
    rig.client_node.create_timer(0.05, lambda: publisher.publish(home))
    client = rig.client()
    start(rig, client)
    deadline = time.monotonic() + 5
    while rig.executive.world.latest() is None:
        assert time.monotonic() < deadline, "the executive never received the world state"
        time.sleep(0.02)
    result = client.run("pick the red cube", timeout_s=30)
    assert (result.final_reason, result.goal, result.goal_held) == ("done", ("at_home",), True)
