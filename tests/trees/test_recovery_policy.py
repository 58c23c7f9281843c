"""The recovery policy file: shipped defaults, manifest overrides, and refused files."""

from __future__ import annotations

from pathlib import Path

import pytest

from bt_executive.skills.errors import ManifestError
from bt_executive.skills.failures import FailureKind
from bt_executive.skills.registry import SkillRegistry
from bt_executive.trees.recovery import load_recovery_policy


def test_the_shipped_policy_has_a_strategy_for_every_failure_kind() -> None:
    policy = load_recovery_policy()
    assert sorted(policy.defaults) == sorted(FailureKind)


def test_a_manifest_override_wins_over_the_default(skill_registry: SkillRegistry) -> None:
    policy = load_recovery_policy()
    open_drawer = skill_registry.get("tabletop/open_drawer")  # missed_grasp: retry(1)
    chosen = (
        str(policy.strategy_for(FailureKind.MISSED_GRASP, open_drawer)),
        str(policy.strategy_for(FailureKind.MISSED_GRASP)),
    )
    assert chosen == ("retry(1)", "retry(2)")


def test_a_server_that_stays_gone_ends_the_task_while_other_kinds_escalate_to_a_replan() -> None:
    policy = load_recovery_policy()
    escalations = (
        str(policy.escalation_for(FailureKind.SERVER_UNAVAILABLE)),
        str(policy.escalation_for(FailureKind.MISSED_GRASP)),
    )
    assert escalations == ("abort", "replan")


def test_the_shipped_policy_only_calls_skills_that_exist(skill_registry: SkillRegistry) -> None:
    load_recovery_policy().check_against(skill_registry)


@pytest.mark.parametrize(
    ("text", "field", "reason"),
    [
        ("defaults: {missed_grasp: retry(99)}\n", "defaults.missed_grasp.attempts", "less than or equal to 10"),
        ("defaults: {melted: abort}\n", "defaults.melted.[key]", "Input should be"),
        ("defaults: {collision: recover(nap)}\n", "(root)", "no recovery named 'nap'"),
        ("after_retries: retry(1)\n", "(root)", "after_retries must be replan or abort"),
        ("after_retries_by_kind: {timeout: retry(1)}\n", "(root)", "after_retries_by_kind.timeout must be replan"),
        ("limits: {max_replans: -1}\n", "limits.max_replans", "greater than or equal to 0"),
        ("recoveries: {home: {steps: []}}\n", "recoveries.home.steps", "at least 1 item"),
    ],
)
def test_a_bad_policy_file_is_refused_naming_the_field(tmp_path: Path, text: str, field: str, reason: str) -> None:
    path = tmp_path / "recovery.yaml"
    path.write_text(text)
    with pytest.raises(ManifestError) as caught:
        load_recovery_policy(path)
    [problem] = caught.value.problems
    assert (problem.source, problem.field, reason in problem.reason) == (str(path), field, True)


def test_a_recovery_that_calls_an_unknown_skill_is_refused(tmp_path: Path, skill_registry: SkillRegistry) -> None:
    path = tmp_path / "recovery.yaml"
    path.write_text("recoveries: {home_then_retry: {steps: [{skill: tabletop/hoem}]}}\n")
    with pytest.raises(ManifestError, match=r"recoveries.home_then_retry.steps\[0\]: unknown skill 'tabletop/hoem'"):
        load_recovery_policy(path).check_against(skill_registry)
