"""The committed tree-format JSON Schema is what the models generate, and it agrees with the loader on shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from bt_executive.runtime.paths import config_dir
from bt_executive.skills.loader import read_yaml_mapping
from bt_executive.trees.tree_schema import SCHEMA_PATH, render_tree_schema

TREES = Path(__file__).resolve().parents[1] / "fixtures" / "trees"


def committed() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return schema


def test_committed_schema_matches_the_models() -> None:
    assert SCHEMA_PATH.read_text(encoding="utf-8") == render_tree_schema(), (
        "tree.schema.json is stale: run `python -m bt_executive.trees.tree_schema`"
    )


def test_committed_schema_is_a_valid_json_schema() -> None:
    Draft202012Validator.check_schema(committed())


def test_shipped_routines_and_good_fixtures_validate_against_the_schema() -> None:
    validator = Draft202012Validator(committed())
    paths = [*sorted((config_dir() / "trees").glob("*.yaml")), TREES / "every_node_kind.yaml"]
    errors = [f"{path}: {err.message}" for path in paths for err in validator.iter_errors(read_yaml_mapping(path))]
    assert errors == []


def test_the_schema_refuses_a_node_with_two_kind_keys() -> None:
    validator = Draft202012Validator(committed())
    assert not validator.is_valid(read_yaml_mapping(TREES / "bad" / "two_kind_keys.yaml"))
