"""The table of scripted skills: each one's argument view, phases (for progress) and body, by name.

What a skill takes and how long it may run is its manifest's to say
(``tabletop/<name>``); a ``SkillSpec`` reads both from there the first time
the skill is called and checks its argument view against the schema then.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping

from pydantic import JsonValue

from bt_executive.sim.execution import SkillGenerator
from bt_executive.sim.motions.arguments import ArgumentView, read_arguments, scripted_manifest
from bt_executive.sim.motions.contact import PushArgs, TapArgs, push, tap
from bt_executive.sim.motions.drawers import DrawerArgs, close_drawer, open_drawer
from bt_executive.sim.motions.grasping import (
    PICK_PHASES,
    PLACE_PHASES,
    PickArgs,
    PlaceOnArgs,
    StackArgs,
    pick,
    place_on,
    stack,
)
from bt_executive.sim.motions.home import HomeArgs, home
from bt_executive.sim.motions.pouring import PourArgs, pour
from bt_executive.sim.skill_context import SkillContext
from bt_executive.skills.manifest import SkillManifest

SkillBody = Callable[[SkillContext, ArgumentView], SkillGenerator]


class SkillSpec:
    """A skill's name, argument view, phases (for progress) and body; its manifest says the rest."""

    def __init__(
        self, name: str, args: type[ArgumentView], phases: tuple[str, ...], body: Callable[..., SkillGenerator]
    ):
        self.name = name
        self.args = args
        self.phases = phases
        self.body = body

    @functools.cached_property
    def manifest(self) -> SkillManifest:
        """This skill's manifest, read on first use (ManifestError if the argument view does not fit it)."""
        return scripted_manifest(self.name, self.args)

    @property
    def timeout_s(self) -> float:
        """The sim-time deadline when the caller gives none: the manifest's ``timeout_s``."""
        return self.manifest.timeout_s

    def parse(self, raw: Mapping[str, JsonValue]) -> ArgumentView:
        """The arguments checked and defaulted by the manifest, or ``invalid_params`` naming the field."""
        return read_arguments(self.name, self.manifest, self.args, raw)


SKILLS: dict[str, SkillSpec] = {
    spec.name: spec
    for spec in (
        SkillSpec("pick", PickArgs, PICK_PHASES, pick),
        SkillSpec("place_on", PlaceOnArgs, PLACE_PHASES, place_on),
        SkillSpec(
            "stack",
            StackArgs,
            tuple(f"pick:{p}" for p in PICK_PHASES) + tuple(f"place:{p}" for p in PLACE_PHASES),
            stack,
        ),
        SkillSpec("home", HomeArgs, ("plan", "move"), home),
        SkillSpec("push", PushArgs, ("plan", "approach", "push", "retreat"), push),
        SkillSpec("tap", TapArgs, ("plan", "approach", "touch", "retreat"), tap),
        SkillSpec("pour", PourArgs, ("plan", "transit", "tilt", "hold", "untilt"), pour),
        SkillSpec("open_drawer", DrawerArgs, ("plan", "approach", "grasp", "pull", "release", "retreat"), open_drawer),
        SkillSpec("close_drawer", DrawerArgs, ("plan", "approach", "push", "retreat"), close_drawer),
    )
}
"""Every scripted skill by name (the part after ``tabletop/`` in a manifest id)."""
