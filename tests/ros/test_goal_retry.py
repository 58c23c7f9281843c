"""The goal-request retry (Fast DDS may drop a goal response right after discovery), against a scripted client.

No server here: the leaf's action client is swapped for one whose futures the
test completes by hand, so each race (an answer lost, an answer late, a retry
rejected while the first request is still out) happens exactly as written.
"""

from __future__ import annotations

import time
import uuid
from typing import Any, cast

import pytest
from py_trees.common import Status
from rclpy.action.client import ClientGoalHandle
from rclpy.task import Future

from bt_executive.skills import FailureKind
from bt_executive.skills.action_skill import ActionSkillOptions, RosActionSkill
from bt_executive.testing import RosHarness
from bt_executive_interfaces.action import RunSkill
from tests.ros.conftest import pick, pick_manifest

pytestmark = pytest.mark.ros

RESPONSE_TIMEOUT_S = 0.02


class ScriptedClient:
    """Stands in for the leaf's ActionClient: records requests, answers only when the test says."""

    def __init__(self) -> None:
        self.sent: list[tuple[Any, Future[Any]]] = []
        self.cancelled: list[str] = []
        self.ready = True

    def server_is_ready(self) -> bool:
        return self.ready

    def send_goal_async(self, goal: Any, feedback_callback: Any = None, goal_uuid: Any = None) -> Future[Any]:
        future: Future[Any] = Future()
        self.sent.append((goal_uuid, future))
        return future

    def answer(self, attempt: int, *, accepted: bool) -> None:
        goal_id, future = self.sent[attempt]
        response = RunSkill.Impl.SendGoalService.Response(accepted=accepted)
        future.set_result(ClientGoalHandle(cast(Any, self), goal_id, response))

    def hex_of(self, attempt: int) -> str:
        return uuid.UUID(bytes=bytes(self.sent[attempt][0].uuid)).hex

    def _cancel_goal_async(self, handle: Any) -> Future[Any]:
        self.cancelled.append(uuid.UUID(bytes=bytes(handle.goal_id.uuid)).hex)
        return Future()

    def _get_result_async(self, handle: Any) -> Future[Any]:
        return Future()


@pytest.fixture
def scripted(ros_harness: RosHarness) -> tuple[RosActionSkill, ScriptedClient]:
    """A leaf whose client is scripted (its node is never spun)."""
    options = ActionSkillOptions(goal_response_timeout_s=RESPONSE_TIMEOUT_S, heartbeat_timeout_s=None)
    skill = RosActionSkill(pick_manifest(), pick(), ros_harness.node("executive"), options)
    client = ScriptedClient()
    skill._client = client  # type: ignore[assignment]
    return skill, client


def tick_after_timeout(skill: RosActionSkill) -> None:
    """Let the goal response time out, then tick."""
    time.sleep(RESPONSE_TIMEOUT_S * 1.5)
    skill.tick_once()


def test_an_unanswered_goal_request_is_sent_again(scripted: tuple[RosActionSkill, ScriptedClient]) -> None:
    skill, client = scripted
    skill.tick_once()
    tick_after_timeout(skill)
    assert len(client.sent) == 2


def test_an_unanswered_request_is_cancelled_once_a_retry_is_accepted(
    scripted: tuple[RosActionSkill, ScriptedClient],
) -> None:
    skill, client = scripted
    skill.tick_once()
    tick_after_timeout(skill)
    client.answer(1, accepted=True)
    skill.tick_once()
    assert (skill.goal_id, client.cancelled) == (client.hex_of(1), [client.hex_of(0)])


def test_a_late_acceptance_of_an_abandoned_request_is_cancelled(
    scripted: tuple[RosActionSkill, ScriptedClient],
) -> None:
    skill, client = scripted
    skill.tick_once()
    tick_after_timeout(skill)
    client.answer(1, accepted=True)
    skill.tick_once()
    client.answer(0, accepted=True)  # its answer was slow, not lost: that goal runs, so it is cancelled too
    assert client.cancelled == [client.hex_of(0), client.hex_of(0)]


def test_a_late_rejection_of_the_first_request_waits_for_the_retrys_answer(
    scripted: tuple[RosActionSkill, ScriptedClient],
) -> None:
    skill, client = scripted
    skill.tick_once()
    tick_after_timeout(skill)
    client.answer(0, accepted=False)  # slow, and e.g. a one-goal-at-a-time server busy then
    skill.tick_once()
    client.answer(1, accepted=True)
    skill.tick_once()
    assert (skill.status, skill.goal_id) == (Status.RUNNING, client.hex_of(1))


def test_no_answer_to_any_goal_request_is_server_unavailable(
    scripted: tuple[RosActionSkill, ScriptedClient],
) -> None:
    skill, _ = scripted
    skill.tick_once()
    for _ in range(3):
        tick_after_timeout(skill)
    assert skill.result is not None
    assert (skill.result.failure_kind, skill.result.reason) == (FailureKind.SERVER_UNAVAILABLE, "no_goal_response")


def test_a_server_that_leaves_before_answering_fails_at_once_without_resends(
    scripted: tuple[RosActionSkill, ScriptedClient],
) -> None:
    # Under load the answer and the status of a goal can both be lost to a server that crashes just after
    # taking it; the leaf must not wait out every resend (3 x 5 s in service) to find it gone.
    skill, client = scripted
    skill.tick_once()
    client.ready = False
    time.sleep(0.11)  # the liveness lookup's period
    skill.tick_once()
    assert skill.result is not None
    outcome = (skill.result.failure_kind, skill.result.reason, len(client.sent), client.cancelled)
    assert outcome == (FailureKind.SERVER_UNAVAILABLE, "server_gone", 1, [client.hex_of(0)])
