"""Task objects: the ids a task names, used to narrow what a small model may pick."""

from __future__ import annotations

import pytest

from bt_executive.llm.grounding.task_objects import named_ids
from bt_executive.skills.world_state import ObjectState, WorldState

WORLD = WorldState(
    objects=tuple(ObjectState(id=i, position=(0.3, 0.0, 0.02)) for i in ("red_cube", "green_cube", "plate", "bowl")),
    drawers={"drawer": 0.0},
)


@pytest.mark.parametrize(
    ("task", "ids"),
    [
        ("put the red block on the green plate", ("plate", "red_cube")),
        ("stack the green cube on the red cube", ("green_cube", "red_cube")),
        ("open the drawer, then go home", ("drawer",)),
        ("go home", ()),
    ],
)
def test_named_ids_are_the_objects_whose_words_appear_together(task: str, ids: tuple[str, ...]) -> None:
    assert named_ids(task, WORLD) == ids
