"""LLM profiles: the shipped file loads, auto is the default, keys never live in config."""

from __future__ import annotations

from pathlib import Path

import pytest

from bt_executive.llm.profiles import load_llm_config
from bt_executive.skills.errors import ManifestError


def test_shipped_profiles_load_with_auto_as_default_falling_back_to_the_local_rewrite() -> None:
    config = load_llm_config()
    default = config.profile()
    profiles = {"stub", "local", "local-rewrite"} <= set(config.profiles)
    assert (config.default, default.planner, default.fallback, profiles) == ("auto", "auto", "local-rewrite", True)


def test_a_fallback_that_is_not_a_model_profile_is_refused_naming_the_field(tmp_path: Path) -> None:
    path = tmp_path / "llm.yaml"
    path.write_text("default: auto\nprofiles:\n  auto: {planner: auto, fallback: stub}\n  stub: {planner: stub}\n")
    with pytest.raises(ManifestError, match=r"profiles\.auto\.fallback"):
        load_llm_config(path)


def test_the_local_profile_is_structured_on_loopback() -> None:
    local = load_llm_config().profile("local")
    assert (local.output_mode, (local.api_base or "").startswith("http://127.0.0.1:")) == ("structured", True)


def test_hosted_profiles_name_a_key_variable_never_a_key() -> None:
    hosted = [p for p in load_llm_config().profiles.values() if p.api_base is None and p.planner == "litellm"]
    assert [p.name for p in hosted if not p.api_key_env] == []
    assert hosted


def test_an_inline_api_key_is_refused_naming_the_file_and_field(tmp_path: Path) -> None:
    path = tmp_path / "llm.yaml"
    path.write_text("default: bad\nprofiles:\n  bad: {model: openai/x, api_key: sk-123}\n", encoding="utf-8")
    with pytest.raises(ManifestError, match=r"llm\.yaml.*profiles\.bad.*environment variable"):
        load_llm_config(path)


def test_an_unknown_profile_lists_the_known_ones() -> None:
    with pytest.raises(KeyError, match=r"unknown planner profile 'nope'; known: .*local.*stub"):
        load_llm_config().profile("nope")


def test_a_litellm_profile_without_a_model_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "llm.yaml"
    path.write_text("default: x\nprofiles:\n  x: {output_mode: tools}\n", encoding="utf-8")
    with pytest.raises(ManifestError, match="needs model"):
        load_llm_config(path)
