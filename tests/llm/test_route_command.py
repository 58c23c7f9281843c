"""``bt-executive skills route``: what a task would be routed to, from the command line."""

from __future__ import annotations

import pytest

from bt_executive.cli.main import main


def test_route_ranks_the_catalog_skill_a_task_names_first(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["skills", "route", "wipe the kitchen table", "--catalog", "--lexical", "-k", "3"]) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    assert rows[0].split()[1] == "cleaning/wipe_table"


def test_route_without_the_catalog_only_offers_the_robots_own_skills(capsys: pytest.CaptureFixture[str]) -> None:
    main(["skills", "route", "pick up the red block", "--lexical", "-k", "10"])
    ids = [row.split()[1] for row in capsys.readouterr().out.splitlines()[1:]]
    assert all(i.split("/")[0] in ("tabletop", "builtin", "site") for i in ids)
