"""The scripted skills of the embedded robot, as generators that yield one control tick at a time.

Each skill validates its arguments, finds what it needs in the sim state,
plans every motion on the spare MjData before moving (IK plus a collision
check along the joint path), then plays the motions tick by tick and checks
its effect from the sim state. The building blocks (planning, motion
primitives, what a motion may touch) are ``SkillContext``'s, in
``skill_context.py``. One module per skill family::

    grasping.py  pick(object)                 open, approach above, descend, close, lift
                 place_on(target)             carry above the target, lower, open, retreat
                 stack(object, base)          pick, then place_on the base
    contact.py   push(object, direction)      closed fingers beside it, slide it along
                 tap(object)                  touch its top with the fingertips, come back up
    pouring.py   pour(source, target)         carry the held source above the target, tilt, untilt
    drawers.py   open_drawer(drawer)          grasp the handle from the front, pull, let go
                 close_drawer(drawer)         push the handle back in with closed fingers
    home.py      home()                       back to the home pose, keeping what it holds

A skill's arguments, their defaults and its deadline are its manifest's
(``config/skills/<name>.yaml``, id ``tabletop/<name>``): ``arguments.py``
checks a call against the manifest's schema, merges it over the manifest's
defaults and hands the motion a typed view that restates no bound or
default; ``skill_table.py`` lists the skills (``SKILLS``) with their
phases.

Failures are raised as ``SkillFailure`` with a kind from the project's
taxonomy: ``invalid_params`` (arguments the manifest refuses, naming the
field), ``not_found`` (no such id), ``unreachable`` (IK misses or every
path is blocked), ``missed_grasp`` (fingers closed on nothing, or the object
stayed behind), ``precondition_failed`` (e.g. place with an empty gripper),
``postcondition_failed`` (moved, but the effect is not there). ``collision``,
``timeout`` and ``aborted``/``sim_error`` come from the execution's monitors.
"""

from bt_executive.sim.arm import FINGERTIP_BEYOND_GRIP
from bt_executive.sim.motions.arguments import ArgumentView, read_arguments, scripted_manifest
from bt_executive.sim.motions.contact import PushArgs, TapArgs, push, tap
from bt_executive.sim.motions.drawers import HANDLE_RADIUS, DrawerArgs, close_drawer, open_drawer
from bt_executive.sim.motions.grasping import (
    PICK_PHASES,
    PLACE_PHASES,
    GraspArgs,
    PickArgs,
    PlaceOnArgs,
    StackArgs,
    pick,
    place_on,
    stack,
)
from bt_executive.sim.motions.home import HomeArgs, home
from bt_executive.sim.motions.pouring import PourArgs, pour
from bt_executive.sim.motions.skill_table import SKILLS, SkillBody, SkillSpec

__all__ = [
    "FINGERTIP_BEYOND_GRIP",
    "HANDLE_RADIUS",
    "PICK_PHASES",
    "PLACE_PHASES",
    "SKILLS",
    "ArgumentView",
    "DrawerArgs",
    "GraspArgs",
    "HomeArgs",
    "PickArgs",
    "PlaceOnArgs",
    "PourArgs",
    "PushArgs",
    "SkillBody",
    "SkillSpec",
    "StackArgs",
    "TapArgs",
    "close_drawer",
    "home",
    "open_drawer",
    "pick",
    "place_on",
    "pour",
    "push",
    "read_arguments",
    "scripted_manifest",
    "stack",
    "tap",
]
