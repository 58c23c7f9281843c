"""A goal whose answer is lost: the leaf finds it on the status topic and runs it, instead of a second goal.

Fast DDS waits only 100 ms for a new client's reply channel, so right after
discovery a server can accept a goal and its answer never arrive. Here the
loss is made certain on the client's side (it drops every goal response it
takes); the server, its status topic, feedback, results and cancels are real.
"""

from __future__ import annotations

from typing import Any

import pytest
from py_trees.common import Status

from bt_executive.skills import FailureKind
from bt_executive.skills.action_client_pool import SharedActionClient
from bt_executive.skills.action_skill import RosActionSkill
from bt_executive.testing import Outcome, run_tree
from bt_executive_interfaces.action import RunSkill
from tests.ros.conftest import MAX_TICKS, PICK_ACTION, TICK_S, AnswerLosingClient, Rig

pytestmark = pytest.mark.ros


def losing_skill(rig: Rig, **options: Any) -> RosActionSkill:
    """A rig leaf whose client loses every goal answer (and never resends before the test ends)."""
    skill = rig.skill(goal_response_timeout_s=60.0, **options)
    skill._client = AnswerLosingClient(rig.node, RunSkill, PICK_ACTION)
    return skill


def test_a_goal_whose_answer_is_lost_runs_to_its_result_without_a_second_goal(rig: Rig) -> None:
    rig.server.serve(PICK_ACTION, Outcome(delay_s=0.3))
    rig.server.start()
    skill = losing_skill(rig)
    rig.go()
    run_tree(skill, max_ticks=MAX_TICKS, period_s=TICK_S)
    goals = rig.server.goals()
    assert (skill.result is not None and skill.result.success, [g.goal_id for g in goals], skill.answer_lost) == (
        True,
        [skill.goal_id],
        True,
    )


def test_a_failure_of_a_goal_whose_answer_is_lost_keeps_its_kind(rig: Rig) -> None:
    rig.server.serve(PICK_ACTION, Outcome(failure_kind="not_found", delay_s=0.2))
    rig.server.start()
    skill = losing_skill(rig)
    rig.go()
    run_tree(skill, max_ticks=MAX_TICKS, period_s=TICK_S)
    assert (skill.result.failure_kind if skill.result else None, len(rig.server.goals())) == (FailureKind.NOT_FOUND, 1)


def test_halting_a_goal_whose_answer_is_lost_cancels_it_on_the_server(rig: Rig) -> None:
    rig.server.serve(PICK_ACTION, Outcome(hang=True))
    rig.server.start()
    skill = losing_skill(rig)
    rig.go()
    run_tree(skill, max_ticks=MAX_TICKS, period_s=TICK_S, until=lambda: skill.feedback is not None)
    skill.stop(Status.INVALID)
    events = rig.server.wait_for(lambda events: any(e.event == "canceled" for e in events))
    assert [e.goal_id for e in events if e.event == "canceled"] == [skill.goal_id]


def test_a_finished_run_leaves_no_goal_status_behind_in_the_client(rig: Rig) -> None:
    rig.server.serve(PICK_ACTION, Outcome(delay_s=0.1))
    rig.server.start()
    skill = losing_skill(rig)
    rig.go()
    run_tree(skill, max_ticks=MAX_TICKS, period_s=TICK_S)
    client = skill._client
    assert isinstance(client, SharedActionClient)
    assert (skill.status, client.holds()["reported_statuses"]) == (Status.SUCCESS, 0)
