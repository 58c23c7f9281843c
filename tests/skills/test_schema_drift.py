"""The committed manifest JSON Schema is exactly what the pydantic model generates."""

from __future__ import annotations

import json

from jsonschema import Draft202012Validator

from bt_executive.skills.dirs import default_skill_dirs
from bt_executive.skills.loader import read_yaml_mapping
from bt_executive.skills.manifest_schema import SCHEMA_PATH, render_manifest_schema
from bt_executive.skills.registry import manifest_files


def test_committed_schema_matches_the_models() -> None:
    assert SCHEMA_PATH.read_text(encoding="utf-8") == render_manifest_schema(), (
        "skill_manifest.schema.json is stale: run `bt-executive skills schema --write`"
    )


def test_committed_schema_is_a_valid_json_schema() -> None:
    Draft202012Validator.check_schema(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


def test_shipped_manifests_also_validate_against_the_generated_schema() -> None:
    validator = Draft202012Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))
    errors = [
        f"{path}: {err.message}"
        for path in manifest_files(default_skill_dirs()[0])
        for err in validator.iter_errors(read_yaml_mapping(path))
    ]
    assert errors == []
