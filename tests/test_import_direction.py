"""The import direction DESIGN.md fixes, read from the source: no upward arrow, no circle between rooms.

Every ``from bt_executive.X import`` in the package counts, lazy ones inside functions too: a lazy import
still ties the rooms together, it only hides the tie from start-up time.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "bt_executive"

ROOM_ORDER = ("runtime", "skills", "llm", "trees", "executive", "cli")
"""Each room may import only the rooms before it (and itself)."""

SIM_MAY_IMPORT = frozenset({"runtime", "skills", "sim"})
LLM_CHAIN = ("language", "grounding", "grammar_planner", "model")
"""Inside llm/: each of these may import only the ones before it (and the contract at llm/'s root)."""


def _room(parts: tuple[str, ...]) -> str:
    """The room (``llm/grounding``, ``trees``, ``llm`` for llm/'s own modules) of a module path."""
    if len(parts) < 2:
        return ""  # bt_executive/__init__: the version, which every room may read
    if parts[1] == "llm" and len(parts) > 3:
        return f"llm/{parts[2]}"
    return parts[1]


def _imports() -> Iterator[tuple[str, str, str]]:
    """(importing module, its room, the room it imports) for every import of our own package."""
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = ("bt_executive", *path.relative_to(PACKAGE).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                assert node.level == 0, f"{path}: relative import; the package imports absolutely"
                modules = [node.module or ""]
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            else:
                continue
            for module in modules:
                target = tuple(module.split("."))
                if target[0] == "bt_executive":
                    # A package (`bt_executive.llm.grounding`) is its __init__ module, inside the subroom.
                    is_package = PACKAGE.joinpath(*target[1:]).is_dir()
                    yield ".".join(parts), _room(parts), _room((*target, "__init__") if is_package else target)


IMPORTS = list(_imports())


def test_the_source_is_read() -> None:
    rooms = {room for _, room, _ in IMPORTS}
    assert {"skills", "llm/language", "llm/model", "trees", "executive", "cli", "sim"} <= rooms


def _upward(imports: list[tuple[str, str, str]]) -> list[str]:
    """The imports of a room above the importer's."""
    found = []
    for module, room, imported in imports:
        top = room.split("/")[0]
        if imported not in ROOM_ORDER or not top:
            continue
        if top == "sim" and imported not in SIM_MAY_IMPORT:
            found.append(f"{module} (sim) imports {imported}")
        elif top in ROOM_ORDER and ROOM_ORDER.index(imported) > ROOM_ORDER.index(top):
            found.append(f"{module} ({top}) imports {imported}")
    return found


def test_no_room_imports_a_room_above_it() -> None:
    assert _upward(IMPORTS) == []


def test_an_upward_import_is_found() -> None:
    assert _upward([("bt_executive.skills.x", "skills", "trees"), ("bt_executive.sim.y", "sim", "llm")]) == [
        "bt_executive.skills.x (skills) imports trees",
        "bt_executive.sim.y (sim) imports llm",
    ]


def test_nothing_imports_the_command_line_or_the_test_support() -> None:
    offenders = [m for m, room, imported in IMPORTS if imported == "cli" and room != "cli"]
    offenders += [m for m, room, imported in IMPORTS if imported == "testing" and room != "testing"]
    assert offenders == []


def test_llm_subrooms_import_only_the_ones_below_them() -> None:
    upward = [
        f"{module} ({room}) imports {imported}"
        for module, room, imported in IMPORTS
        if room.removeprefix("llm/") in LLM_CHAIN
        and imported.removeprefix("llm/") in LLM_CHAIN
        and LLM_CHAIN.index(imported.removeprefix("llm/")) > LLM_CHAIN.index(room.removeprefix("llm/"))
    ]
    assert upward == []


def test_llm_contract_imports_no_subroom() -> None:
    """plan.py, plugins.py and profiles.py are what every planner kind builds on: they sit below all of llm/."""
    assert [(m, i) for m, room, i in IMPORTS if room == "llm" and i.startswith("llm/")] == []


def _circles(edges: set[tuple[str, str]]) -> list[list[str]]:
    """The strongly connected groups of more than one room (Tarjan)."""
    graph: dict[str, set[str]] = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_circle_between_rooms_or_subrooms() -> None:
    edges = {(room, imported) for _, room, imported in IMPORTS if room and imported and room != imported}
    assert _circles(edges) == []


def test_a_circle_is_found() -> None:
    """The check above can fail: a planted circle is reported."""
    assert _circles({("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")}) == [["a", "b", "c"]]
