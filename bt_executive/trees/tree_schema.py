"""The JSON Schema of the hand-written tree format, generated from the pydantic models of ``tree_spec``.

Committed next to this module (``tree.schema.json``) so an editor checks a
routine while it is typed (yaml-language-server: a ``# yaml-language-server:
$schema=`` comment at the top of the file); a test fails when the file
drifts from the models. Regenerate it with
``python -m bt_executive.trees.tree_schema``.

The schema checks shape only: that a skill exists and its arguments fit its
own schema is known only with a registry, at load (``yaml_tree.load_tree``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bt_executive.trees.tree_spec import TreeSpec

SCHEMA_PATH = Path(__file__).with_name("tree.schema.json")
SCHEMA_ID = "https://bt-executive.invalid/schemas/tree.schema.json"


def tree_json_schema() -> dict[str, Any]:
    """The tree-format schema as a dict (Draft 2020-12)."""
    schema = TreeSpec.model_json_schema(mode="validation")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}


def render_tree_schema() -> str:
    """The schema as the exact text committed to the repository."""
    return json.dumps(tree_json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    SCHEMA_PATH.write_text(render_tree_schema(), encoding="utf-8")
    print(f"wrote {SCHEMA_PATH}")
