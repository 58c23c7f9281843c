"""Names to ids: which MuJoCo bodies, geoms, joints and actuators make up the robot, each object and the drawer.

Built once per compiled model, so the rest of the package speaks in scene ids
(``red_cube``, ``drawer``) and arm joint order, never in raw MuJoCo indices.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np
import numpy.typing as npt

from bt_executive.sim import arm, mjcf
from bt_executive.sim.scene import CabinetSpec, ObjectSpec, Scene

IntArray = npt.NDArray[np.intp]


@dataclass(frozen=True)
class ObjectHandle:
    """One movable object in the compiled model."""

    spec: ObjectSpec
    body: int
    geoms: tuple[int, ...]
    qpos: int
    """Address of its free joint's 7 qpos values (position, then w-x-y-z quaternion)."""
    dof: int
    """Address of its free joint's 6 velocity values."""


@dataclass(frozen=True)
class DrawerHandle:
    """The cabinet's drawer: its slide joint, handle site and bodies."""

    spec: CabinetSpec
    cabinet_body: int
    body: int
    joint: int
    qpos: int
    dof: int
    handle_site: int
    geoms: tuple[int, ...]
    carcass_geoms: tuple[int, ...]


@dataclass(frozen=True)
class ModelIndex:
    """Ids of everything the skills, world state and monitors look up by name."""

    scene: Scene
    arm_qpos: IntArray
    arm_dof: IntArray
    arm_actuators: IntArray
    finger_qpos: IntArray
    finger_dof: IntArray
    gripper_actuators: IntArray
    grip_site: int
    robot_bodies: frozenset[int]
    finger_geoms: frozenset[int]
    finger_bodies: frozenset[int]
    table_geom: int
    objects: dict[str, ObjectHandle]
    drawer: DrawerHandle | None
    body_owner: dict[int, str]
    """Body id -> scene id of what it belongs to (object id, cabinet, drawer id, 'table' or 'robot')."""

    @classmethod
    def build(cls, model: mujoco.MjModel, scene: Scene) -> ModelIndex:
        """Index a model compiled from ``build_mjcf(scene)``."""

        def jid(name: str) -> int:
            return int(model.joint(name).id)

        arm_joints = [jid(n) for n in arm.ARM_JOINTS]
        finger_joints = [jid(n) for n in arm.FINGER_JOINTS]
        robot_bodies = frozenset(int(model.body(n).id) for n in mjcf.ROBOT_BODIES)
        finger_bodies = frozenset(int(model.body(n).id) for n in arm.FINGER_JOINTS)
        owner: dict[int, str] = {0: "table"}
        owner.update(dict.fromkeys(robot_bodies, "robot"))
        objects: dict[str, ObjectHandle] = {}
        for spec in scene.objects:
            body = int(model.body(spec.id).id)
            joint = jid(spec.id)
            geoms = tuple(int(g) for g in np.flatnonzero(model.geom_bodyid == body))
            objects[spec.id] = ObjectHandle(
                spec=spec,
                body=body,
                geoms=geoms,
                qpos=int(model.jnt_qposadr[joint]),
                dof=int(model.jnt_dofadr[joint]),
            )
            owner[body] = spec.id
        drawer = None
        if scene.cabinet is not None:
            cab = scene.cabinet
            cabinet_body = int(model.body(cab.id).id)
            body = int(model.body(cab.drawer_id).id)
            joint = jid(f"{cab.drawer_id}{mjcf.DRAWER_JOINT_SUFFIX}")
            drawer = DrawerHandle(
                spec=cab,
                cabinet_body=cabinet_body,
                body=body,
                joint=joint,
                qpos=int(model.jnt_qposadr[joint]),
                dof=int(model.jnt_dofadr[joint]),
                handle_site=int(model.site(f"{cab.drawer_id}{mjcf.HANDLE_SITE_SUFFIX}").id),
                geoms=tuple(int(g) for g in np.flatnonzero(model.geom_bodyid == body)),
                carcass_geoms=tuple(int(g) for g in np.flatnonzero(model.geom_bodyid == cabinet_body)),
            )
            owner[cabinet_body] = cab.id
            owner[body] = cab.drawer_id
        return cls(
            scene=scene,
            arm_qpos=np.array([model.jnt_qposadr[j] for j in arm_joints], dtype=np.intp),
            arm_dof=np.array([model.jnt_dofadr[j] for j in arm_joints], dtype=np.intp),
            arm_actuators=np.array([model.actuator(n).id for n in arm.ARM_JOINTS], dtype=np.intp),
            finger_qpos=np.array([model.jnt_qposadr[j] for j in finger_joints], dtype=np.intp),
            finger_dof=np.array([model.jnt_dofadr[j] for j in finger_joints], dtype=np.intp),
            gripper_actuators=np.array([model.actuator(n).id for n in mjcf.GRIPPER_ACTUATORS], dtype=np.intp),
            grip_site=int(model.site(mjcf.GRIP_SITE).id),
            robot_bodies=robot_bodies,
            finger_geoms=frozenset(int(model.geom(n).id) for n in mjcf.FINGER_GEOMS),
            finger_bodies=finger_bodies,
            table_geom=int(model.geom("table").id),
            objects=objects,
            drawer=drawer,
            body_owner=owner,
        )

    def owner_of_geom(self, model: mujoco.MjModel, geom: int) -> str:
        """The scene id a geom belongs to ('table' for the world, 'robot' for the arm)."""
        return self.body_owner.get(int(model.geom_bodyid[geom]), "table")
