"""Every broken manifest is refused at load, with a message naming the file and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from bt_executive.skills.dirs import default_skill_dirs
from bt_executive.skills.errors import ManifestError
from bt_executive.skills.loader import load_model
from bt_executive.skills.manifest import SkillManifest
from bt_executive.skills.registry import SkillRegistry, collect

BAD = Path(__file__).resolve().parents[1] / "fixtures" / "bad_manifests"

# file stem -> (field the error must name, words the reason must contain)
EXPECTED: dict[str, tuple[str, str]] = {
    "missing_description": ("description", "required field is missing"),
    "description_501_chars": ("description", "at most 500 characters"),
    "blank_description": ("description", "blank"),
    "unknown_verb": ("actions[1]", "'PICK'"),
    "empty_actions": ("actions", "at least 1 item"),
    "invalid_json_schema": ("parameters", "not a valid JSON Schema at /properties/object/type"),
    "parameters_not_object": ("parameters", "type: object"),
    "python_object_tag": ("line 2, column 10", "python/object/apply"),
    "ros_kind_with_vla_block": ("vla", "must not have a vla block"),
    "vla_kind_missing_vla_block": ("vla", "needs a vla block"),
    "ros_block_missing": ("ros", "needs a ros block"),
    "unknown_field": ("speed", "unknown field"),
    "empty": ("(file)", "empty file"),
    "non_utf8": ("(file)", "not UTF-8"),
    "bad_id_without_owner": ("id", "owner/name"),
    "remote_ref": ("parameters", "points outside the schema"),
    "unknown_predicate": ("preconditions[0]", "unknown predicate 'holdin'"),
    "unknown_failure_kind": ("failure_kinds[1]", "'not_found'"),
    "unbounded_retry": ("recovery.missed_grasp.attempts", "less than or equal to 10"),
    "yaml_alias": ("line 5, column 10", "aliases"),
    "duplicate_key": ("line 14, column 1", "duplicate key 'kind'"),
    "top_level_list": ("(root)", "expected a mapping"),
    "yaml_syntax_error": ("line 6, column 11", "invalid YAML"),
    "action_type_names_code": ("ros.action_type", "ROS action type"),
    "vla_policy_names_code": ("vla.policy", "never a Python path"),
    "prompt_template_attribute_access": ("vla.prompt_template", "plain name"),
    "negative_timeout": ("timeout_s", "greater than 0"),
}


def test_the_fixture_directory_holds_at_least_fifteen_broken_manifests() -> None:
    assert len(list(BAD.glob("*.yaml"))) >= 15


def test_every_fixture_has_an_expectation() -> None:
    stems = {p.stem for p in BAD.glob("*.yaml")} - {"duplicate_id"}
    assert stems == set(EXPECTED)


@pytest.mark.parametrize("stem", sorted(EXPECTED))
def test_broken_manifest_is_refused_naming_file_and_field(stem: str) -> None:
    path = BAD / f"{stem}.yaml"
    field, words = EXPECTED[stem]
    with pytest.raises(ManifestError) as caught:
        load_model(path, SkillManifest)
    problem = caught.value.problems[0]
    assert (problem.source, problem.field, words in problem.reason) == (str(path), field, True), str(caught.value)


def test_python_tag_never_runs_its_code(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    manifest = tmp_path / "evil.yaml"
    manifest.write_text(f'id: !!python/object/apply:os.system ["touch {marker}"]\n', encoding="utf-8")
    with pytest.raises(ManifestError):
        load_model(manifest, SkillManifest)
    assert not marker.exists()


def test_duplicate_id_is_refused_naming_both_files() -> None:
    report = collect([*default_skill_dirs(), BAD / "duplicate_id.yaml"], use_entry_points=False)
    duplicate = [p for p in report.problems if "duplicate id" in p.reason]
    assert [(p.source, p.field) for p in duplicate] == [(str(BAD / "duplicate_id.yaml"), "id")]
    assert "pick.yaml" in duplicate[0].reason


def test_validate_reports_every_bad_file_not_only_the_first() -> None:
    report = collect([BAD], use_entry_points=False)
    bad_files = {p.source for p in report.problems}
    assert len(bad_files) == len(EXPECTED)


def test_discover_raises_one_error_listing_all_problems() -> None:
    with pytest.raises(ManifestError) as caught:
        SkillRegistry.discover([BAD], use_entry_points=False)
    assert len({p.source for p in caught.value.problems}) == len(EXPECTED)
