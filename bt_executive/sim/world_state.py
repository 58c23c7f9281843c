"""Reading the world out of the simulation: object poses and relations, the gripper, the drawer, the arm.

``WorldReader.snapshot`` builds the project's ``WorldState`` from MjData, and
the skills use the same queries to plan and to verify their effects, so a
skill's idea of success is exactly what a planner sees afterwards.

Relations are computed from contacts and geometry (contacts from a full
collision pass on a copy of the configuration: sleeping objects skip
collision detection in the live data):

- ``holding``: an object touching both finger pads with the fingers apart;
- ``supported_by``: of the things pushing an object up (contact normal
  within 45 degrees of vertical), the highest (the table is ``table``);
- ``inside``: the object's centre is within the bowl's wall radius and below
  its rim, or within the drawer's inner box;
- ``reachable``: the arm's closed-form IK has a pointing-down grasp over the
  object (a horizontal grasp of the handle for the drawer).
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass

import mujoco
import numpy as np
import numpy.typing as npt

from bt_executive.sim import arm, mjcf
from bt_executive.sim.model_index import DrawerHandle, ModelIndex, ObjectHandle
from bt_executive.skills.world_state import GripperState, ObjectState, Vec3, WorldState

FloatArray = npt.NDArray[np.float64]

CONTACT_DISTANCE = 0.002
"""Contacts closer than this count as touching."""
SUPPORT_NORMAL_Z = 0.7
"""A contact supports an object when its normal, towards the object, points this much upward (cos 45 deg)."""
APPROACH_CLEARANCE = 0.12
"""Height above a grasp point the arm must also reach for an object to count as reachable."""


@dataclass(frozen=True)
class Contact:
    """Two geoms touching, with the scene owners and bodies they belong to."""

    owner1: str
    owner2: str
    body1: int
    body2: int
    geom1: int
    geom2: int
    position: FloatArray
    normal: FloatArray
    """Unit contact normal, pointing from geom1 to geom2."""
    depth: float


def _r(values: npt.ArrayLike, digits: int = 5) -> tuple[float, ...]:
    return tuple(round(float(v), digits) for v in np.asarray(values, dtype=float))


def _vec3(values: npt.ArrayLike) -> Vec3:
    a = _r(values)
    return (a[0], a[1], a[2])


class WorldReader:
    """Queries over one model's live data; call with the backend's lock held."""

    def __init__(self, model: mujoco.MjModel, data: mujoco.MjData, index: ModelIndex) -> None:
        self.model = model
        self.data = data
        self.index = index
        # Sleeping objects skip collision detection in the live data, so relations are read from a
        # full collision pass on this copy of the configuration instead.
        self._probe = mujoco.MjData(model)

    # -- the arm and gripper -------------------------------------------------------------------

    def arm_q(self) -> FloatArray:
        """Arm joint angles, base to hand."""
        return np.array(self.data.qpos[self.index.arm_qpos], dtype=float)

    def gripper_opening(self) -> float:
        """Finger gap, metres."""
        return float(max(0.0, np.sum(self.data.qpos[self.index.finger_qpos])))

    def grip_pose(self) -> tuple[FloatArray, FloatArray]:
        """Grip-site position and orientation (3x3)."""
        site = self.index.grip_site
        return self.data.site_xpos[site].copy(), self.data.site_xmat[site].reshape(3, 3).copy()

    def at_home(self) -> bool:
        """Whether every arm joint is within ``HOME_TOLERANCE`` of home."""
        return bool(np.max(np.abs(self.arm_q() - np.array(arm.HOME_Q))) < arm.HOME_TOLERANCE)

    # -- contacts ------------------------------------------------------------------------------

    def contacts(self) -> list[Contact]:
        """Every pair of geoms touching now, sleeping objects included (geometry only, no forces)."""
        model, probe = self.model, self._probe
        probe.qpos[:] = self.data.qpos
        mujoco.mj_kinematics(model, probe)
        mujoco.mj_collision(model, probe)
        n = probe.ncon
        out: list[Contact] = []
        if n == 0:
            return out
        c = probe.contact
        dist = c.dist[:n]
        for k in np.flatnonzero(dist < CONTACT_DISTANCE):
            g1, g2 = int(c.geom1[k]), int(c.geom2[k])
            out.append(
                Contact(
                    owner1=self.index.owner_of_geom(model, g1),
                    owner2=self.index.owner_of_geom(model, g2),
                    body1=int(model.geom_bodyid[g1]),
                    body2=int(model.geom_bodyid[g2]),
                    geom1=g1,
                    geom2=g2,
                    position=np.array(c.pos[k], dtype=float),
                    normal=np.array(c.frame[k][:3], dtype=float),
                    depth=float(-dist[k]),
                )
            )
        return out

    def holding(self, contacts: list[Contact] | None = None) -> str | None:
        """The object held between the fingers, or None."""
        if self.gripper_opening() < 0.004:
            return None
        touching: dict[str, set[int]] = {}
        fingers = self.index.finger_geoms
        for c in self.contacts() if contacts is None else contacts:
            for g_finger, other in ((c.geom1, c.owner2), (c.geom2, c.owner1)):
                if g_finger in fingers and other in self.index.objects:
                    touching.setdefault(other, set()).add(g_finger)
        held = [obj for obj, pads in touching.items() if len(pads) == 2]
        return held[0] if held else None

    # -- objects -------------------------------------------------------------------------------

    def object_position(self, handle: ObjectHandle) -> FloatArray:
        """World position of an object's body (its centre)."""
        return np.array(self.data.xpos[handle.body], dtype=float)

    def object_quat(self, handle: ObjectHandle) -> FloatArray:
        """World orientation of an object (w, x, y, z)."""
        return np.array(self.data.xquat[handle.body], dtype=float)

    def object_yaw(self, handle: ObjectHandle) -> float:
        """Rotation of an object about z, radians."""
        mat = self.data.xmat[handle.body].reshape(3, 3)
        return math.atan2(mat[1, 0], mat[0, 0])

    def object_tilt(self, handle: ObjectHandle) -> float:
        """Angle between an object's z axis and the world's, radians."""
        return math.acos(max(-1.0, min(1.0, float(self.data.xmat[handle.body][8]))))

    def object_top(self, handle: ObjectHandle) -> float:
        """Height of the highest point of an object's geoms."""
        return max(self._geom_top(g) for g in handle.geoms)

    def object_bottom(self, handle: ObjectHandle) -> float:
        """Height of the lowest point of an object's geoms."""
        return min(self._geom_bottom(g) for g in handle.geoms)

    def _geom_extent_z(self, geom: int) -> float:
        """Half the vertical extent of a geom as currently oriented."""
        size = self.model.geom_size[geom]
        mat = self.data.geom_xmat[geom].reshape(3, 3)
        kind = self.model.geom_type[geom]
        if kind == mujoco.mjtGeom.mjGEOM_BOX:
            return float(np.abs(mat[2]) @ size)
        if kind == mujoco.mjtGeom.mjGEOM_CYLINDER:
            axis_z = abs(float(mat[2, 2]))
            return float(size[1] * axis_z + size[0] * math.sqrt(max(0.0, 1.0 - axis_z**2)))
        return float(self.model.geom_rbound[geom])

    def _geom_top(self, geom: int) -> float:
        return float(self.data.geom_xpos[geom][2]) + self._geom_extent_z(geom)

    def _geom_bottom(self, geom: int) -> float:
        return float(self.data.geom_xpos[geom][2]) - self._geom_extent_z(geom)

    def supported_by(self, handle: ObjectHandle, contacts: list[Contact], held: str | None) -> str | None:
        """What an object rests on: of the things pushing it up (contact normal mostly upward), the highest."""
        if handle.spec.id == held:
            return None
        best: tuple[float, str] | None = None
        for c in contacts:
            if c.body2 == handle.body and c.body1 != handle.body:
                other, up = c.owner1, float(c.normal[2])
            elif c.body1 == handle.body and c.body2 != handle.body:
                other, up = c.owner2, -float(c.normal[2])
            else:
                continue
            if other == "robot" or up < SUPPORT_NORMAL_Z:
                continue
            height = float(c.position[2])
            if best is None or (height, other) > best:
                best = (height, other)
        return best[1] if best is not None else None

    def inside(self, handle: ObjectHandle, removed: Collection[str]) -> str | None:
        """The container an object is in (a bowl or the drawer), or None."""
        pos = self.data.xpos[handle.body]
        for other in self.index.objects.values():
            if other.spec.category != "bowl" or other is handle or other.spec.id in removed:
                continue
            centre = self.data.xpos[other.body]
            radius = other.spec.size[0] / 2 - mjcf.bowl_wall_thickness(other.spec)
            bottom = centre[2] - other.spec.size[2] / 2
            top = centre[2] + other.spec.size[2] / 2
            if (
                math.hypot(pos[0] - centre[0], pos[1] - centre[1]) < radius
                and bottom < pos[2] < top + 0.5 * handle.spec.size[2]
            ):
                return other.spec.id
        drawer = self.index.drawer
        if drawer is not None:
            local = self.drawer_local(drawer, pos)
            lo, hi = mjcf.drawer_box(drawer.spec)
            if all(lo[i] <= local[i] <= hi[i] for i in range(3)):
                return drawer.spec.drawer_id
        return None

    def reachable_object(self, handle: ObjectHandle) -> bool:
        """Whether the arm can grasp (cube) or place over (plate, bowl) this object from above."""
        pos = self.object_position(handle)
        yaw = self.object_yaw(handle)
        grasp = np.array([pos[0], pos[1], self.object_top(handle) - min(0.02, handle.spec.size[2] / 2)])
        if handle.spec.category != "cube":
            grasp[2] = self.object_top(handle) + 0.04
        return (
            arm.topdown_seed(grasp, yaw) is not None
            and arm.topdown_seed(grasp + np.array([0.0, 0.0, APPROACH_CLEARANCE]), yaw) is not None
            and math.hypot(pos[0], pos[1]) >= arm.MIN_REACH
        )

    # -- the drawer ----------------------------------------------------------------------------

    def drawer_fraction(self, drawer: DrawerHandle) -> float:
        """How far the drawer is open, 0 (shut) to 1 (fully out)."""
        return float(np.clip(self.data.qpos[drawer.qpos] / drawer.spec.drawer_travel, 0.0, 1.0))

    def drawer_local(self, drawer: DrawerHandle, point: npt.ArrayLike) -> FloatArray:
        """A world point in the drawer body's frame."""
        mat = self.data.xmat[drawer.body].reshape(3, 3)
        return np.array(mat.T @ (np.asarray(point, dtype=float) - self.data.xpos[drawer.body]), dtype=float)

    def handle_position(self, drawer: DrawerHandle) -> FloatArray:
        """World position of the drawer handle's grasp point."""
        return np.array(self.data.site_xpos[drawer.handle_site], dtype=float)

    def drawer_axis(self, drawer: DrawerHandle) -> FloatArray:
        """Unit vector the drawer opens along (horizontal, out of the cabinet front)."""
        return np.array(self.data.xmat[drawer.body].reshape(3, 3)[:, 0], dtype=float)

    def drawer_reachable(self, drawer: DrawerHandle) -> bool:
        """Whether the handle can be grasped from the front, horizontally."""
        return arm.horizontal_seed(self.handle_position(drawer)) is not None

    # -- the snapshot --------------------------------------------------------------------------

    def snapshot(self, stamp: float, removed: Collection[str] = ()) -> WorldState:
        """The whole WorldState, objects in scene order, then the drawer, the cabinet and the table."""
        contacts = self.contacts()
        held = self.holding(contacts)
        objects: list[ObjectState] = []
        for handle in self.index.objects.values():
            spec = handle.spec
            if spec.id in removed:
                continue
            objects.append(
                ObjectState(
                    id=spec.id,
                    category=spec.category,
                    colour=spec.colour,
                    position=_vec3(self.object_position(handle)),
                    orientation=_quat(self.object_quat(handle)),
                    size=spec.size,
                    reachable=self.reachable_object(handle),
                    supported_by=self.supported_by(handle, contacts, held),
                    inside=self.inside(handle, removed),
                    affordances=spec.effective_affordances(),
                )
            )
        drawers: dict[str, float] = {}
        drawer = self.index.drawer
        if drawer is not None:
            cab = drawer.spec
            lo, hi = mjcf.drawer_box(cab)
            centre = self.data.xmat[drawer.body].reshape(3, 3) @ (0.5 * (np.array(lo) + np.array(hi)))
            reachable = self.drawer_reachable(drawer)
            objects.append(
                ObjectState(
                    id=cab.drawer_id,
                    category="drawer",
                    colour=cab.colour,
                    position=_vec3(self.data.xpos[drawer.body] + centre),
                    orientation=_quat(self.data.xquat[drawer.body]),
                    size=_vec3(np.array(hi) - np.array(lo)),
                    reachable=reachable,
                    inside=cab.id,
                    affordances=self.index.scene.affordances_of(cab.drawer_id),
                )
            )
            objects.append(
                ObjectState(
                    id=cab.id,
                    category="cabinet",
                    colour=cab.colour,
                    position=_vec3(self.data.xpos[drawer.cabinet_body] + [0.0, 0.0, cab.size[2] / 2]),
                    orientation=_quat(self.data.xquat[drawer.cabinet_body]),
                    size=cab.size,
                    reachable=reachable,
                    supported_by="table",
                    affordances=self.index.scene.affordances_of(cab.id),
                )
            )
            drawers[cab.drawer_id] = round(self.drawer_fraction(drawer), 4)
        scene = self.index.scene
        sx, sy = scene.table_size
        objects.append(
            ObjectState(
                id="table",
                category="table",
                colour="brown",
                position=(scene.table_centre_x, 0.0, 0.0),
                size=(sx, sy, 0.0),
                affordances=scene.affordances_of("table"),
            )
        )
        rnd = scene.randomisation
        return WorldState(
            stamp=round(stamp, 6),
            objects=tuple(objects),
            gripper=GripperState(opening=round(self.gripper_opening(), 5), holding=held),
            joint_positions=_r(self.arm_q()),
            at_home=self.at_home(),
            drawers=drawers,
            regions={
                "table": ((scene.table_centre_x - sx / 2, -sy / 2, 0.0), (scene.table_centre_x + sx / 2, sy / 2, 0.0)),
                "workspace": ((rnd.x[0], rnd.y[0], 0.0), (rnd.x[1], rnd.y[1], 0.3)),
            },
        )


def _quat(values: npt.ArrayLike) -> tuple[float, float, float, float]:
    a = _r(values)
    return (a[0], a[1], a[2], a[3])
