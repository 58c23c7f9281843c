"""A RosActionSkill's ``wake`` hook: its owner hears of every answer the leaf waits for, so it can tick at once."""

from __future__ import annotations

import pytest

from bt_executive.skills.action_skill import RosActionSkill
from bt_executive.testing import Outcome, run_tree
from tests.ros.conftest import PICK_ACTION, Rig, pick, pick_manifest

pytestmark = pytest.mark.ros


def test_the_goal_response_and_the_result_each_wake_the_owner_once(rig: Rig) -> None:
    rig.server.serve(PICK_ACTION, Outcome(delay_s=0.2))
    rig.server.start()
    woken: list[str] = []
    leaf = RosActionSkill(pick_manifest(), pick(), rig.node, wake=lambda: woken.append(leaf.goal_id or ""))
    rig.skills.append(leaf)
    rig.go()
    run_tree(leaf, max_ticks=3000, period_s=0.01)  # ends with the goal; 30 s is for a loaded machine
    [goal] = rig.server.goals()

    def answers() -> int:
        return 1 if leaf.answer_lost else 2  # the result, and the goal response unless it was lost

    # A done-callback runs just after its future is done: the last wake may come after the leaf ended.
    rig.harness.wait_until(lambda: len(woken) >= answers(), what="the wakes of the answers that came")
    assert (leaf.result is not None and leaf.result.success, woken) == (True, [goal.goal_id] * answers())
