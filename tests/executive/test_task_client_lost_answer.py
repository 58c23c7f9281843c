"""A task whose goal answer is lost: the task client finds it on the status topic and follows it to its result.

Under load the executive's answer to a new client can be lost (seen in CI: the task ran, its pick was
under way, and the client timed out waiting for the answer). Here the loss is made certain on the
client's side (its action client drops every goal response it takes); the executive, its status
topic, feedback, results and cancels are real.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from bt_executive.cli.task_client import TaskClient, TaskFeedback
from bt_executive.llm.plan import Plan
from bt_executive.testing import Outcome
from bt_executive_interfaces.action import ExecuteTask
from tests.executive.conftest import PICK, PLACE, Rig, start
from tests.ros.conftest import AnswerLosingClient

pytestmark = pytest.mark.ros


def losing_client(rig: Rig) -> TaskClient:
    client = rig.client()
    client._client = AnswerLosingClient(rig.client_node, ExecuteTask, client.action_name)
    return client


def test_a_task_whose_goal_answer_is_lost_is_followed_to_its_result(make_rig: Any) -> None:
    rig: Rig = make_rig(Plan(steps=(PICK, PLACE)))
    rig.server.serve("skills/pick", Outcome(delay_s=0.2))
    rig.server.serve("skills/place_on", Outcome(delay_s=0.2))
    client = losing_client(rig)
    start(rig, client)
    seen: list[TaskFeedback] = []
    result = client.run("put the red cube on the plate", on_feedback=seen.append, timeout_s=30)
    skills = list(dict.fromkeys(f.skill for f in seen if f.skill))
    assert (result.final_reason, skills, len(rig.server.goals("skills/pick"))) == (
        "done",
        ["tabletop/pick", "tabletop/place_on"],
        1,
    )
    assert client._client.holds()["reported_statuses"] == 0


def test_cancelling_a_task_whose_goal_answer_is_lost_ends_it_preempted(make_rig: Any) -> None:
    rig: Rig = make_rig(Plan(steps=(PICK, PLACE)))
    rig.server.serve("skills/pick", Outcome(hang=True))
    client = losing_client(rig)
    start(rig, client)
    results: dict[str, Any] = {}
    runner = threading.Thread(target=lambda: results.update(result=client.run("a task", timeout_s=30)))
    runner.start()
    rig.server.wait_for(lambda events: any(e.event == "goal" for e in events), timeout_s=15)
    client.cancel()
    runner.join(timeout=30)
    rig.server.wait_for(lambda events: any(e.event == "canceled" for e in events), timeout_s=5)
    assert (results["result"].final_reason, len(rig.server.cancels("skills/pick"))) == ("preempted", 1)
