"""The JSON Schema of a skill manifest, generated from the pydantic model.

The schema is committed next to this module (``skill_manifest.schema.json``)
so editors can validate manifests as they are typed (yaml-language-server
``# $schema=`` comments); a test fails when the file drifts from the model,
and ``bt-executive skills schema --write`` regenerates it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bt_executive.skills.manifest import SkillManifest

SCHEMA_PATH = Path(__file__).with_name("skill_manifest.schema.json")
SCHEMA_ID = "https://bt-executive.invalid/schemas/skill_manifest.schema.json"


def manifest_json_schema() -> dict[str, Any]:
    """The manifest schema as a dict (Draft 2020-12)."""
    schema = SkillManifest.model_json_schema(mode="validation")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}


def render_manifest_schema() -> str:
    """The schema as the exact text committed to the repository."""
    return json.dumps(manifest_json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
