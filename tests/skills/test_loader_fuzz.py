"""The loader never raises anything but ManifestError, whatever bytes it is given."""

from __future__ import annotations

import string
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bt_executive.skills.errors import ManifestError
from bt_executive.skills.loader import load_model
from bt_executive.skills.manifest import SkillManifest
from bt_executive.testing import valid_manifest_data

_SCRATCH = Path(tempfile.mkdtemp(prefix="bt_fuzz_"))
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _load_bytes(raw: bytes) -> SkillManifest | ManifestError:
    path = _SCRATCH / "fuzz.yaml"
    path.write_bytes(raw)
    try:
        return load_model(path, SkillManifest)
    except ManifestError as err:
        return err


yaml_ish = st.text(alphabet=string.printable + "é{}[]!&*|>-:#%@`", max_size=400)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)


@FUZZ
@given(st.binary(max_size=600))
def test_random_bytes_give_a_manifest_error(raw: bytes) -> None:
    assert isinstance(_load_bytes(raw), ManifestError)


@FUZZ
@given(yaml_ish)
def test_random_yaml_text_gives_only_manifest_error(text: str) -> None:
    outcome = _load_bytes(text.encode("utf-8"))
    assert isinstance(outcome, ManifestError | SkillManifest)


@FUZZ
@given(st.sampled_from(sorted(valid_manifest_data())), json_values)
def test_any_field_replaced_by_any_value_gives_only_manifest_error(field: str, value: Any) -> None:
    data = valid_manifest_data()
    data[field] = value
    outcome = _load_bytes(yaml.safe_dump(data).encode("utf-8"))
    assert isinstance(outcome, ManifestError | SkillManifest)


@FUZZ
@given(st.dictionaries(st.text(max_size=12), json_values, max_size=6))
def test_random_mappings_give_only_manifest_error(extra: dict[str, Any]) -> None:
    data = valid_manifest_data() | extra
    outcome = _load_bytes(yaml.safe_dump(data).encode("utf-8"))
    assert isinstance(outcome, ManifestError | SkillManifest)


def test_deep_nesting_is_a_manifest_error_not_a_recursion_error() -> None:
    outcome = _load_bytes(b"a: " + b"[" * 5000 + b"]" * 5000)
    assert isinstance(outcome, ManifestError)
