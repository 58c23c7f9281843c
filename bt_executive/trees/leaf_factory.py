"""Making the leaf for a skill call: a ROS action client, a VLA policy loop, or a builtin.

The compiler and the YAML tree loader both turn ``SkillCall``s into leaves,
and neither should care how a skill is reached. A ``LeafFactory`` hides it;
``SkillLeafFactory`` is the one the executive uses, dispatching on the
manifest's ``kind``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import py_trees

from bt_executive.skills.call import SkillCall
from bt_executive.skills.leaf import WorldStateSource
from bt_executive.skills.manifest import SkillKind
from bt_executive.skills.registry import SkillRegistry

if TYPE_CHECKING:
    from rclpy.node import Node

    from bt_executive.skills.action_skill import ActionSkillOptions


class LeafFactory(Protocol):
    """Anything that builds the leaf behaviour for one call (it must satisfy ``SkillLeaf``)."""

    def __call__(self, call: SkillCall, *, name: str, key: str) -> py_trees.behaviour.Behaviour:
        """The leaf for ``call``, named ``name``, writing its blackboard entries under ``key``."""
        ...


class SkillLeafFactory:
    """Builds leaves from the registry's manifests: ROS action skills on ``node``, VLA loops on ``robot``."""

    def __init__(
        self,
        registry: SkillRegistry,
        *,
        node: Node | None = None,
        robot: Any = None,
        world: WorldStateSource | None = None,
        action_options: ActionSkillOptions | None = None,
    ) -> None:
        self.registry = registry
        self.node = node
        self.robot = robot
        self.world = world
        self.action_options = action_options

    def __call__(self, call: SkillCall, *, name: str, key: str) -> py_trees.behaviour.Behaviour:
        """Dispatch on the manifest's kind; a missing transport is a clear error, not a late crash."""
        manifest = self.registry.get(call.skill)
        if manifest.kind is SkillKind.ROS_ACTION:
            if self.node is None:
                raise ValueError(f"{call.skill} is a ros_action skill: the leaf factory needs a ROS node")
            from bt_executive.skills.action_skill import RosActionSkill

            return RosActionSkill(manifest, call, self.node, self.action_options, name=name, key=key)
        if manifest.kind is SkillKind.VLA:
            if self.robot is None:
                raise ValueError(f"{call.skill} is a vla skill: the leaf factory needs a robot interface")
            from bt_executive.skills.vla_skill import VlaSkill

            return VlaSkill(manifest, call, self.robot, name=name, key=key)
        from bt_executive.skills.builtin_skills import make_builtin_leaf

        return make_builtin_leaf(manifest, call, name=name, key=key, world=self.world)
