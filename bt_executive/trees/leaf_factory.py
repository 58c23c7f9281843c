"""Making the leaf for a skill call: a ROS action client, a VLA policy loop, or a builtin.

The compiler and the YAML tree loader both turn ``SkillCall``s into leaves,
and neither should care how a skill is reached. A ``LeafFactory`` hides it;
``SkillLeafFactory`` is the one the executive uses, dispatching on the
manifest's ``kind``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass
from typing import TYPE_CHECKING, Any, Protocol

import py_trees

from bt_executive.skills.call import SkillCall
from bt_executive.skills.leaf import WorldStateSource
from bt_executive.skills.manifest import SkillKind, SkillManifest
from bt_executive.skills.registry import SkillRegistry

if TYPE_CHECKING:
    from rclpy.node import Node

    from bt_executive.skills.action_skill import ActionSkillOptions
    from bt_executive.skills.vla_skill import VlaOptions

RobotProvider = Callable[[SkillManifest], Any]
"""The robot interface a VLA skill's manifest reaches (on a robot: a ``RosRobot`` for its ``vla.robot`` block)."""


class LeafFactory(Protocol):
    """Anything that builds the leaf behaviour for one call (it must satisfy ``SkillLeaf``)."""

    def __call__(self, call: SkillCall, *, name: str, key: str) -> py_trees.behaviour.Behaviour:
        """The leaf for ``call``, named ``name``, writing its blackboard entries under ``key``."""
        ...


@dataclass(eq=False)
class SkillLeafFactory:
    """Builds leaves from the registry's manifests: ROS action skills on ``node``, VLA loops on a robot.

    A VLA leaf drives ``robot`` (one robot interface for every VLA skill, as
    in process over the sim) or, when given, ``robots(manifest)`` (the
    executive: one ``RosRobot`` per manifest's topics). ``vla_endpoint``
    replaces every VLA manifest's policy transport with that websocket server.
    """

    registry: SkillRegistry
    _: KW_ONLY
    node: Node | None = None
    robot: Any = None
    world: WorldStateSource | None = None
    action_options: ActionSkillOptions | None = None
    robots: RobotProvider | None = None
    vla_options: VlaOptions | None = None
    vla_endpoint: str | None = None
    wake: Callable[[], None] | None = None
    """What ROS action leaves call when a goal response or a result arrives (tick now)."""

    def __call__(self, call: SkillCall, *, name: str, key: str) -> py_trees.behaviour.Behaviour:
        """Dispatch on the manifest's kind; a missing transport is a clear error, not a late crash."""
        manifest = self.registry.get(call.skill)
        if manifest.kind is SkillKind.ROS_ACTION:
            if self.node is None:
                raise ValueError(f"{call.skill} is a ros_action skill: the leaf factory needs a ROS node")
            from bt_executive.skills.action_skill import RosActionSkill

            return RosActionSkill(manifest, call, self.node, self.action_options, name=name, key=key, wake=self.wake)
        if manifest.kind is SkillKind.VLA:
            robot = self.robots(manifest) if self.robots is not None else self.robot
            if robot is None:
                raise ValueError(f"{call.skill} is a vla skill: the leaf factory needs a robot interface")
            from bt_executive.skills.vla_skill import VlaSkill

            if self.vla_endpoint and manifest.vla is not None:
                binding = manifest.vla.model_copy(update={"policy": None, "endpoint": self.vla_endpoint})
                manifest = manifest.model_copy(update={"vla": binding})
            return VlaSkill(manifest, call, robot, options=self.vla_options, name=name, key=key)
        from bt_executive.skills.builtin_skills import make_builtin_leaf

        return make_builtin_leaf(manifest, call, name=name, key=key, world=self.world)
