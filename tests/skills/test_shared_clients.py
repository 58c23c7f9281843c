"""One action client per action per node, and nothing left in it when a leaf's run ends.

Real leaves on a real node talk to the fake skill server in its own process;
what must stay flat is read straight off rclpy: ``node.waitables`` and the
shared client's per-goal maps (``SharedActionClient.holds()``).
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from py_trees.common import Status
from unique_identifier_msgs.msg import UUID

from bt_executive.skills import FailureKind, SkillCall, SkillManifest
from bt_executive.skills.action_client_pool import SharedActionClient, clients_of, shared_action_client
from bt_executive.skills.action_skill import RosActionSkill
from bt_executive.testing import FakeSkillServer, Outcome, RosHarness, run_tree
from bt_executive_interfaces.action import RunSkill
from tests.ros.conftest import MAX_TICKS, PICK_ACTION, TICK_S, Rig, pick, pick_manifest

pytestmark = pytest.mark.ros

PLACE_ACTION = "skills/place"
SETTLE_S = 5.0
"""How long a client may take to forget a finished goal: its last answers arrive on executor threads."""


@pytest.fixture
def rig(ros_harness: RosHarness, fake_skill_server: FakeSkillServer, clean_blackboard: None) -> Rig:
    """A node in this test's namespace and an unstarted fake server in the same namespace."""
    return Rig(ros_harness, fake_skill_server, ros_harness.node("executive"))


def with_action(action_name: str, skill_id: str = "test/pick") -> SkillManifest:
    """``pick_manifest`` as ``skill_id`` on ``action_name``."""
    data = pick_manifest().model_dump(mode="json", exclude_none=True)
    data["id"] = skill_id
    data["ros"]["action_name"] = action_name
    return SkillManifest.model_validate(data)


def place_manifest() -> SkillManifest:
    """``test/place`` on ``skills/place``: a second action, so a second shared client."""
    return with_action(PLACE_ACTION, "test/place")


def place(obj: str = "plate") -> SkillCall:
    return SkillCall(skill="test/place", args={"object": obj})


def client_of(leaf: RosActionSkill) -> SharedActionClient:
    client = leaf._client
    assert isinstance(client, SharedActionClient)
    return client


def kind_of(leaf: RosActionSkill) -> FailureKind | str | None:
    """The run's failure kind (None for a success)."""
    return leaf.result.failure_kind if leaf.result is not None else "no result yet"


def settled(client: SharedActionClient) -> dict[str, int]:
    """The client's per-goal state once it stops changing (or after ``SETTLE_S``), as it stands once a request
    unanswered that long is stale (``prune_stale``): an answer lost on the wire leaves its request pending
    until then, and then it goes."""
    deadline = time.monotonic() + SETTLE_S
    while any(client.holds().values()) and time.monotonic() < deadline:
        time.sleep(0.01)
    client.prune_stale(now=time.monotonic() + client.stale_after_s)
    return client.holds()


def nothing_held(client: SharedActionClient) -> dict[str, int]:
    return dict.fromkeys(client.holds(), 0)


def test_every_leaf_of_an_action_shares_one_client_and_the_wait_set_stays_flat(rig: Rig) -> None:
    rig.server.serve(PICK_ACTION)
    rig.server.serve(PLACE_ACTION)
    rig.server.start()
    rig.go(discover=False)
    first = [rig.skill(pick()), rig.skill(place(), manifest=place_manifest())]
    waitables_after_first = len(list(rig.node.waitables))
    for task in range(30):  # thirty tasks' worth of leaves, made while the executor spins
        rig.skill(pick(f"cube_{task}"))
        rig.skill(place(f"plate_{task}"), manifest=place_manifest())
    assert (len(clients_of(rig.node)), len(list(rig.node.waitables))) == (2, waitables_after_first)
    assert {id(client_of(leaf)) for leaf in rig.skills} == {id(client_of(leaf)) for leaf in first}


def test_a_namespaced_and_a_relative_action_name_are_one_client(rig: Rig) -> None:
    relative = rig.skill(pick())
    absolute = rig.skill(pick(), manifest=with_action(f"{rig.harness.namespace}/{PICK_ACTION}"))
    assert client_of(relative) is client_of(absolute)


def test_many_goals_to_completion_leave_nothing_in_the_client(rig: Rig) -> None:
    rig.server.serve(PICK_ACTION)
    rig.server.start()
    leaves = [rig.skill(pick(f"cube_{n}")) for n in range(3)]
    rig.go()
    for _ in range(5):
        for leaf in leaves:
            run_tree(leaf, max_ticks=MAX_TICKS, period_s=TICK_S)
            assert kind_of(leaf) is None  # a success
    assert settled(client_of(leaves[0])) == nothing_held(client_of(leaves[0]))


@pytest.mark.parametrize(
    ("outcome", "timeout_s", "kind"),
    [
        (Outcome(failure_kind="missed_grasp"), None, FailureKind.MISSED_GRASP),
        (Outcome(reject=True), None, FailureKind.REJECTED),
        (Outcome(hang=True), 0.3, FailureKind.TIMEOUT),  # the timed-out goal is cancelled
    ],
    ids=["failed", "rejected", "timed_out"],
)
def test_goals_that_end_unsuccessfully_leave_nothing_in_the_client(
    rig: Rig, outcome: Outcome, timeout_s: float | None, kind: FailureKind
) -> None:
    rig.server.serve(PICK_ACTION, default=outcome)
    rig.server.start()
    leaf = rig.skill(timeout_s=timeout_s)
    rig.go()
    for _ in range(3):
        run_tree(leaf, max_ticks=MAX_TICKS, period_s=TICK_S)
        assert kind_of(leaf) is kind
    assert settled(client_of(leaf)) == nothing_held(client_of(leaf))


def test_halted_goals_leave_nothing_in_the_client_once_cancelled(rig: Rig) -> None:
    rig.server.serve(PICK_ACTION, default=Outcome(hang=True))
    rig.server.start()
    leaf = rig.skill()
    rig.go()
    for _ in range(3):
        run_tree(leaf, max_ticks=MAX_TICKS, period_s=TICK_S, until=lambda: leaf.feedback is not None)
        leaf.stop(Status.INVALID)
        assert kind_of(leaf) is FailureKind.PREEMPTED
    rig.server.wait_for(lambda events: sum(e.event == "canceled" for e in events) == 3)
    assert settled(client_of(leaf)) == nothing_held(client_of(leaf))


def test_a_leaf_whose_server_died_leaves_nothing_once_its_requests_are_stale(rig: Rig) -> None:
    rig.server.serve(PICK_ACTION, Outcome(hang=True, crash_after_s=0.3))
    rig.server.start()
    leaf = rig.skill(heartbeat_timeout_s=0.5)
    rig.go()
    run_tree(leaf, max_ticks=2000, period_s=TICK_S)
    assert kind_of(leaf) is FailureKind.SERVER_UNAVAILABLE
    client = client_of(leaf)
    held_before_pruning = client.holds()
    client.stale_after_s = 0.2  # in service: STALE_REQUEST_S (30 s)
    time.sleep(0.3)
    client.prune_stale()
    # The cancel requests the dead server never answers are what pruning is for: one per goal request the
    # leaf sent (a loaded machine may have re-sent it before the server died).
    assert (held_before_pruning["pending_cancel_requests"] >= 1, client.holds()) == (True, nothing_held(client))


def test_a_leaf_that_never_found_its_server_leaves_nothing(rig: Rig) -> None:
    leaf = rig.skill(server_wait_s=0.2)
    rig.go(discover=False)
    run_tree(leaf, max_ticks=MAX_TICKS, period_s=TICK_S)
    assert kind_of(leaf) is FailureKind.SERVER_UNAVAILABLE
    assert client_of(leaf).holds() == nothing_held(client_of(leaf))


def test_the_waitables_future_list_does_not_grow_per_goal(rig: Rig) -> None:
    """rclpy 9.1.2's send_goal_async leaves a never-completed future in the list per goal; ours does not."""
    rig.server.serve(PICK_ACTION)
    rig.server.start()
    leaf = rig.skill()
    rig.go()
    for _ in range(10):
        run_tree(leaf, max_ticks=MAX_TICKS, period_s=TICK_S)
    assert settled(client_of(leaf))["futures"] == 0


def test_a_goal_is_not_released_while_the_executor_handles_its_feedback(rig: Rig) -> None:
    # rclpy's execute checks `uuid in _feedback_callbacks`, then reads it, without its lock; a release from the
    # tick's thread in between raised KeyError in a soak. Here the executor's half is held open by a feedback
    # callback that waits: release must wait for it, and then forget the goal.
    client = shared_action_client(rig.node, RunSkill, PICK_ACTION)
    key = b"\x01" * 16
    in_callback, let_go = threading.Event(), threading.Event()

    def slow_feedback(_message: object) -> None:
        in_callback.set()
        let_go.wait(10.0)

    client._feedback_callbacks[key] = slow_feedback
    feedback = RunSkill.Impl.FeedbackMessage(goal_id=UUID(uuid=list(key)))
    executing = threading.Thread(target=asyncio.run, args=(client.execute({"feedback": feedback}),))
    executing.start()
    assert in_callback.wait(10.0)
    releasing = threading.Thread(target=client.release, args=([key],))
    releasing.start()
    releasing.join(0.3)
    released_during_callback = not releasing.is_alive()
    let_go.set()
    executing.join(10.0)
    releasing.join(10.0)
    assert (released_during_callback, releasing.is_alive(), key in client._feedback_callbacks) == (False, False, False)
