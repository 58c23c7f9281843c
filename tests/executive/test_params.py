"""The executive's parameters file: the shipped one loads, and a bad one is refused naming the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from bt_executive.executive.params import ExecutiveParams, load_params
from bt_executive.skills.errors import ManifestError


def test_the_shipped_parameters_file_loads_with_its_documented_defaults() -> None:
    params = load_params()
    assert (params.planner, params.tick_rate_hz, params.extra_skill_dirs()) == ("auto", 20.0, [])


def test_a_section_for_the_node_by_name_is_found(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("/robot1/bt_executive:\n  ros__parameters: {tick_rate_hz: 50.0}\n")
    assert load_params(path).tick_rate_hz == 50.0


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("/**:\n  ros__parameters: {tick_rate: 5}\n", "tick_rate"),
        ("/**:\n  ros__parameters: {tick_rate_hz: -1}\n", "tick_rate_hz"),
        ("/**:\n  ros__parameters: {max_replans: 99}\n", "max_replans"),
        ("other_node:\n  ros__parameters: {}\n", "(root)"),
        ("/**: {tick_rate_hz: 5}\n", "/**.ros__parameters"),
    ],
)
def test_a_bad_parameters_file_is_refused_naming_the_field(tmp_path: Path, text: str, field: str) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(text)
    with pytest.raises(ManifestError) as caught:
        load_params(path)
    assert (caught.value.problems[0].source, caught.value.problems[0].field) == (str(path), field)


def test_command_line_overrides_replace_only_what_was_given() -> None:
    params = ExecutiveParams().with_overrides(planner="local", tick_rate_hz=None)
    assert (params.planner, params.tick_rate_hz) == ("local", 20.0)
