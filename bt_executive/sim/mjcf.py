"""The MJCF of a scene: the arm, the table, the objects, the cabinet and the cameras, written by hand.

Everything is built from primitive shapes (no meshes, no downloads), so the
model is small and compiles in milliseconds. Objects start at their nominal
poses; the backend moves them to a seed's layout after loading, which keeps
one compiled model for every layout.

Collision filtering, by bitmask (``contype`` / ``conaffinity``):

- bit 1: the table, the cabinet carcass, the objects, the robot;
- bit 4: the drawer, the objects and the robot: the drawer collides with
  objects and the robot but never with its own carcass or the table (the
  slide joint alone guides it, so it cannot jam).

The base, the shoulder housing and the upper arm never collide with each other
(an explicit exclude; they overlap by design), nor do the two fingers. Each
finger has its own position servo; both always get the same target.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Iterable

import numpy as np

from bt_executive.sim import arm
from bt_executive.sim.scene import CabinetSpec, ObjectSpec, Scene
from bt_executive.skills.colours import colour_rgba

TIMESTEP = 0.002
"""Physics step, seconds."""

ROBOT_BODIES: tuple[str, ...] = (
    "base",
    "link1",
    "link2",
    "link3",
    "link4",
    "link5",
    "hand",
    "finger_left",
    "finger_right",
)
"""Bodies that make up the robot, base to fingertips."""

FINGER_GEOMS: tuple[str, str] = ("finger_left_pad", "finger_right_pad")
GRIP_SITE = "grip"
GRIPPER_ACTUATORS: tuple[str, str] = ("gripper_left", "gripper_right")
DRAWER_JOINT_SUFFIX = "_slide"
HANDLE_SITE_SUFFIX = "_handle"
BOWL_WALL_SEGMENTS = 16
PLATE_FRICTION = 1.0
FINGER_FRICTION = 1.5

_ARM_GAINS: tuple[tuple[float, float, float], ...] = (
    # kp, kv, max torque
    (900.0, 60.0, 150.0),
    (1200.0, 80.0, 200.0),
    (900.0, 60.0, 150.0),
    (300.0, 15.0, 40.0),
    (300.0, 15.0, 40.0),
    (200.0, 8.0, 30.0),
)

ROBOT_RGBA = "0.82 0.84 0.88 1"
JOINT_RGBA = "0.25 0.27 0.32 1"


def _v(values: Iterable[float]) -> str:
    return " ".join(f"{float(v):.6g}" for v in values)


def _rgba(colour: str, alpha: float = 1.0) -> str:
    r, g, b, _ = colour_rgba(colour)
    return _v((r, g, b, alpha))


def _sub(parent: ET.Element, tag: str, **attrs: str) -> ET.Element:
    return ET.SubElement(parent, tag, {k.rstrip("_"): v for k, v in attrs.items()})


def _look_at(position: tuple[float, float, float], target: tuple[float, float, float]) -> str:
    """``xyaxes`` for a camera at ``position`` looking at ``target`` with world z up."""
    forward = np.asarray(target, dtype=float) - np.asarray(position, dtype=float)
    forward /= np.linalg.norm(forward)
    right = np.cross(forward, np.array([0.0, 0.0, 1.0]))
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    return _v((*right, *up))


def build_mjcf(scene: Scene) -> str:
    """The scene's MJCF as an XML string, objects at their nominal poses."""
    root = ET.Element("mujoco", model=f"bt_executive_{scene.name}")
    _sub(root, "compiler", angle="radian", autolimits="true")
    _sub(
        root,
        "option",
        timestep=str(TIMESTEP),
        integrator="implicitfast",
        cone="elliptic",
        impratio="10",
    )
    # Resting objects sleep (MuJoCo islands): three times fewer contacts to solve per step. They
    # wake when anything awake touches them or their state is written.
    _sub(_sub(root, "option"), "flag", sleep="enable")
    visual = _sub(root, "visual")
    _sub(visual, "global", offwidth="640", offheight="480")
    _sub(visual, "quality", shadowsize="0")
    _sub(visual, "headlight", ambient="0.35 0.35 0.35", diffuse="0.45 0.45 0.45", specular="0.05 0.05 0.05")
    _assets(root)
    _defaults(root)
    world = _sub(root, "worldbody")
    _sub(world, "light", name="sun", directional="true", pos="0 0 2", dir="-0.2 0.1 -1", diffuse="0.5 0.5 0.5")
    _table(world, scene)
    cam = scene.front_camera
    _sub(
        world,
        "camera",
        name="front",
        pos=_v(cam.position),
        xyaxes=_look_at(cam.position, cam.target),
        fovy=f"{cam.fovy_deg:g}",
    )
    _robot(world)
    for spec in scene.objects:
        _object(world, spec)
    if scene.cabinet is not None:
        _cabinet(world, scene.cabinet)
    contact = _sub(root, "contact")
    for a, b in (("base", "link2"), ("link1", "link3"), ("finger_left", "finger_right")):
        _sub(contact, "exclude", body1=a, body2=b)
    actuators = _sub(root, "actuator")
    for name, joint, kp, kv, ctrlrange, forcerange in _servos():
        _sub(actuators, "position", name=name, joint=joint, kp=kp, kv=kv, ctrlrange=ctrlrange, forcerange=forcerange)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode")


def _servos() -> list[tuple[str, str, str, str, str, str]]:
    """Every position servo's name, joint, kp, kv, ctrlrange and forcerange: the arm's joints, then the fingers."""
    servos = [
        (name, name, f"{kp:g}", f"{kv:g}", _v(limits), _v((-torque, torque)))
        for name, limits, (kp, kv, torque) in zip(arm.ARM_JOINTS, arm.JOINT_LIMITS, _ARM_GAINS, strict=True)
    ]
    # One servo per finger, both given the same target: each squeezes with up to 6 N, so an
    # off-centre object is pushed to the middle rather than dragged by a soft coupling.
    finger_range = _v((0.0, arm.MAX_OPENING / 2))
    servos += [
        (name, joint, "1000", "20", finger_range, "-6 6")
        for name, joint in zip(GRIPPER_ACTUATORS, arm.FINGER_JOINTS, strict=True)
    ]
    return servos


_TEXTURES: tuple[dict[str, str], ...] = (
    {"name": "sky", "type": "skybox", "builtin": "gradient", "rgb1": "0.55 0.65 0.8", "rgb2": "0.95 0.95 0.97"},
    {"name": "wood", "type": "2d", "builtin": "checker", "rgb1": "0.72 0.6 0.45", "rgb2": "0.68 0.56 0.42"},
)
"""The scene's textures (64 x 64 each): the sky's gradient and the table's checker."""


def _assets(root: ET.Element) -> None:
    assets = _sub(root, "asset")
    for texture in _TEXTURES:
        _sub(assets, "texture", **texture, width="64", height="64")
    _sub(assets, "material", name="table", texture="wood", texrepeat="8 8", reflectance="0")
    _sub(assets, "material", name="robot", rgba=ROBOT_RGBA, specular="0.3")
    _sub(assets, "material", name="joint", rgba=JOINT_RGBA)


def _defaults(root: ET.Element) -> None:
    default = _sub(root, "default")
    _sub(default, "geom", contype="1", conaffinity="1", condim="3", friction="1 0.005 0.0001")
    _sub(default, "joint", damping="0")
    robot = _sub(default, "default", class_="robot")
    _sub(robot, "geom", material="robot", density="500", contype="5", conaffinity="5")
    _sub(robot, "joint", armature="0.05", damping="2")
    finger = _sub(default, "default", class_="finger")
    _sub(
        finger,
        "geom",
        material="joint",
        condim="4",
        friction=f"{FINGER_FRICTION} 0.02 0.0002",
        density="800",
        contype="5",
        conaffinity="5",
    )
    _sub(finger, "joint", type="slide", armature="0.005", damping="1")
    movable = _sub(default, "default", class_="object")
    _sub(movable, "geom", contype="5", conaffinity="5")
    visual = _sub(default, "default", class_="visual")
    _sub(visual, "geom", contype="0", conaffinity="0", group="1")
    drawer = _sub(default, "default", class_="drawer")
    _sub(drawer, "geom", contype="4", conaffinity="4", friction="0.8 0.005 0.0001")


def _table(world: ET.Element, scene: Scene) -> None:
    sx, sy = scene.table_size
    cx = scene.table_centre_x
    # The top is a plane (stable multi-point contacts, cheap); the slab under it is for looks.
    _sub(
        world, "geom", name="table", type="plane", pos=_v((cx, 0, 0)), size=_v((sx / 2, sy / 2, 0.05)), material="table"
    )
    _sub(
        world,
        "geom",
        name="table_slab",
        class_="visual",
        type="box",
        pos=_v((cx, 0, -0.025)),
        size=_v((sx / 2, sy / 2, 0.0249)),
        material="table",
    )


def _robot(world: ET.Element) -> None:
    base = _sub(world, "body", name="base", childclass="robot")
    _sub(base, "geom", name="base", type="cylinder", size="0.07 0.025", pos="0 0 0.025", material="joint")
    link1 = _sub(base, "body", name="link1", pos=_v((0, 0, arm.BASE_HEIGHT)), gravcomp="1")
    _sub(link1, "joint", name=arm.ARM_JOINTS[0], axis="0 0 1", range=_v(arm.JOINT_LIMITS[0]))
    _sub(link1, "geom", name="link1", type="cylinder", size="0.055 0.045", pos="0 0 0.045", material="joint")
    shoulder = arm.SHOULDER_HEIGHT - arm.BASE_HEIGHT
    link2 = _sub(link1, "body", name="link2", pos=_v((0, 0, shoulder)), gravcomp="1")
    _sub(link2, "joint", name=arm.ARM_JOINTS[1], axis="0 1 0", range=_v(arm.JOINT_LIMITS[1]))
    _sub(link2, "geom", name="link2", type="capsule", size="0.04", fromto=_v((0, 0, 0, 0, 0, arm.UPPER_ARM)))
    link3 = _sub(link2, "body", name="link3", pos=_v((0, 0, arm.UPPER_ARM)), gravcomp="1")
    _sub(link3, "joint", name=arm.ARM_JOINTS[2], axis="0 1 0", range=_v(arm.JOINT_LIMITS[2]))
    _sub(link3, "geom", name="link3", type="capsule", size="0.035", fromto=_v((0, 0, 0, 0, 0, arm.FOREARM_A)))
    link4 = _sub(link3, "body", name="link4", pos=_v((0, 0, arm.FOREARM_A)), gravcomp="1")
    _sub(link4, "joint", name=arm.ARM_JOINTS[3], axis="0 0 1", range=_v(arm.JOINT_LIMITS[3]))
    # The forearm stops short of the wrist so the hand can pitch past 100 degrees without touching it.
    _sub(link4, "geom", name="link4", type="capsule", size="0.03", fromto=_v((0, 0, 0, 0, 0, arm.FOREARM_B - 0.06)))
    link5 = _sub(link4, "body", name="link5", pos=_v((0, 0, arm.FOREARM_B)), gravcomp="1")
    _sub(link5, "joint", name=arm.ARM_JOINTS[4], axis="0 1 0", range=_v(arm.JOINT_LIMITS[4]))
    _sub(link5, "geom", name="link5", type="capsule", size="0.028", fromto="0 -0.02 0 0 0.02 0", material="joint")
    hand = _sub(link5, "body", name="hand", pos=_v((0, 0, arm.WRIST)), gravcomp="1")
    _sub(hand, "joint", name=arm.ARM_JOINTS[5], axis="0 0 1", range=_v(arm.JOINT_LIMITS[5]))
    _sub(hand, "geom", name="wrist_flange", type="cylinder", size="0.018 0.01", pos="0 0 -0.01", material="joint")
    _sub(hand, "geom", name="palm", type="box", size="0.025 0.055 0.015", pos="0 0 0.015")
    _sub(hand, "site", name=GRIP_SITE, pos=_v((0, 0, arm.GRIP_IN_HAND)), size="0.006", rgba="1 0.5 0 0.4", group="3")
    _sub(hand, "camera", name="wrist", pos="-0.06 0 0.005", xyaxes="0 1 0 0.94 0 -0.34", fovy="80")
    half_travel = arm.MAX_OPENING / 2
    for side, sign in (("left", 1.0), ("right", -1.0)):
        finger = _sub(hand, "body", name=f"finger_{side}", pos=_v((0, 0, arm.FINGER_BASE_IN_HAND)), gravcomp="1")
        _sub(finger, "joint", name=f"finger_{side}", class_="finger", axis=_v((0, sign, 0)), range=_v((0, half_travel)))
        half_len = arm.FINGER_LENGTH / 2
        _sub(
            finger,
            "geom",
            name=f"finger_{side}_pad",
            class_="finger",
            type="box",
            size=_v((arm.FINGER_THICKNESS, 0.006, half_len)),
            pos=_v((0, sign * 0.006, half_len)),
        )


def _object(world: ET.Element, spec: ObjectSpec) -> None:
    sx, sy, sz = spec.size
    yaw = spec.pose.yaw
    quat = _v((math.cos(yaw / 2), 0, 0, math.sin(yaw / 2)))
    body = _sub(world, "body", name=spec.id, pos=_v((spec.pose.x, spec.pose.y, sz / 2)), quat=quat, childclass="object")
    _sub(body, "freejoint", name=spec.id)
    rgba = _rgba(spec.colour)
    if spec.category == "cube":
        _sub(
            body, "geom", name=spec.id, type="box", size=_v((sx / 2, sy / 2, sz / 2)), rgba=rgba, mass=f"{spec.mass:g}"
        )
    elif spec.category == "plate":
        _sub(
            body,
            "geom",
            name=spec.id,
            type="cylinder",
            size=_v((sx / 2, sz / 2)),
            rgba=rgba,
            mass=f"{spec.mass:g}",
            friction=f"{PLATE_FRICTION} 0.005 0.0001",
        )
    else:
        _bowl(body, spec, rgba)


def _bowl(body: ET.Element, spec: ObjectSpec, rgba: str) -> None:
    radius, height = spec.size[0] / 2, spec.size[2]
    wall = bowl_wall_thickness(spec)
    floor_mass = 0.4 * spec.mass
    _sub(
        body,
        "geom",
        name=f"{spec.id}_floor",
        type="cylinder",
        size=_v((radius, wall / 2)),
        pos=_v((0, 0, wall / 2 - height / 2)),
        rgba=rgba,
        mass=f"{floor_mass:g}",
    )
    n = BOWL_WALL_SEGMENTS
    half_tangent = radius * math.tan(math.pi / n) + 0.001
    wall_half_height = (height - wall) / 2
    for i in range(n):
        angle = 2 * math.pi * i / n
        r = radius - wall / 2
        _sub(
            body,
            "geom",
            name=f"{spec.id}_wall{i}",
            type="box",
            size=_v((wall / 2, half_tangent, wall_half_height)),
            pos=_v((r * math.cos(angle), r * math.sin(angle), wall - height / 2 + wall_half_height)),
            quat=_v((math.cos(angle / 2), 0, 0, math.sin(angle / 2))),
            rgba=rgba,
            mass=f"{(spec.mass - floor_mass) / n:g}",
        )


def bowl_wall_thickness(spec: ObjectSpec) -> float:
    """Thickness of a bowl's floor and walls."""
    return max(0.006, 0.06 * spec.size[0])


CABINET_WALL = 0.01
"""Panel thickness of the cabinet and its drawer."""
HANDLE_STANDOFF = 0.035
"""How far the handle bar stands off the drawer front."""


def drawer_box(cab: CabinetSpec) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """The drawer's inner volume in the drawer body frame: (min corner, max corner)."""
    depth, width, height = cab.size
    t = CABINET_WALL
    return (
        (-depth / 2 + 2 * t, -width / 2 + 2 * t + 0.002, 2.4 * t),
        (depth / 2 - t, width / 2 - 2 * t - 0.002, height - 1.4 * t),
    )


def handle_point(cab: CabinetSpec) -> tuple[float, float, float]:
    """Where the gripper holds the handle, in the drawer body frame."""
    depth, _, height = cab.size
    return (depth / 2 + HANDLE_STANDOFF, 0.0, height / 2)


def _cabinet(world: ET.Element, cab: CabinetSpec) -> None:
    depth, width, height = cab.size
    t = CABINET_WALL
    yaw = cab.pose.yaw
    rgba = _rgba(cab.colour)
    body = _sub(
        world,
        "body",
        name=cab.id,
        pos=_v((cab.pose.x, cab.pose.y, 0)),
        quat=_v((math.cos(yaw / 2), 0, 0, math.sin(yaw / 2))),
    )
    panels = {
        "top": ((0, 0, height - t / 2), (depth / 2, width / 2, t / 2)),
        "bottom": ((0, 0, t / 2), (depth / 2, width / 2, t / 2)),
        "left": ((0, width / 2 - t / 2, height / 2), (depth / 2, t / 2, height / 2)),
        "right": ((0, -width / 2 + t / 2, height / 2), (depth / 2, t / 2, height / 2)),
        "back": ((-depth / 2 + t / 2, 0, height / 2), (t / 2, width / 2, height / 2)),
    }
    for name, (pos, size) in panels.items():
        _sub(body, "geom", name=f"{cab.id}_{name}", type="box", pos=_v(pos), size=_v(size), rgba=rgba)
    drawer = _sub(body, "body", name=cab.drawer_id, childclass="drawer")
    _sub(
        drawer,
        "joint",
        name=f"{cab.drawer_id}{DRAWER_JOINT_SUFFIX}",
        type="slide",
        axis="1 0 0",
        range=_v((0, cab.drawer_travel)),
        damping="4",
        frictionloss="0.5",
        armature="0.1",
    )
    (x0, y0, z0), (x1, y1, z1) = drawer_box(cab)
    drawer_rgba = _v(min(1.0, c * 1.25) for c in colour_rgba(cab.colour)[:3]) + " 1"
    inner = {
        "floor": ((0.5 * (x0 + x1), 0, z0 - t / 2), (0.5 * (x1 - x0) + t, 0.5 * (y1 - y0) + t, t / 2)),
        "front": ((x1 + t / 2, 0, 0.5 * (z0 - t + z1)), (t / 2, 0.5 * (y1 - y0) + t, 0.5 * (z1 - z0 + t))),
        "rear": ((x0 - t / 2, 0, 0.5 * (z0 + z1)), (t / 2, 0.5 * (y1 - y0), 0.5 * (z1 - z0))),
        "side_left": ((0.5 * (x0 + x1), y1 + t / 2, 0.5 * (z0 + z1)), (0.5 * (x1 - x0), t / 2, 0.5 * (z1 - z0))),
        "side_right": ((0.5 * (x0 + x1), y0 - t / 2, 0.5 * (z0 + z1)), (0.5 * (x1 - x0), t / 2, 0.5 * (z1 - z0))),
    }
    for name, (pos, size) in inner.items():
        _sub(drawer, "geom", name=f"{cab.drawer_id}_{name}", type="box", pos=_v(pos), size=_v(size), rgba=drawer_rgba)
    hx, _, hz = handle_point(cab)
    front = depth / 2
    for i, dz in enumerate((-0.025, 0.025)):
        _sub(
            drawer,
            "geom",
            name=f"{cab.drawer_id}_standoff{i}",
            type="box",
            pos=_v((front + HANDLE_STANDOFF / 2, 0, hz + dz)),
            size=_v((HANDLE_STANDOFF / 2, 0.006, 0.006)),
            material="joint",
        )
    _sub(
        drawer,
        "geom",
        name=f"{cab.drawer_id}{HANDLE_SITE_SUFFIX}",
        type="capsule",
        fromto=_v((hx, 0, hz - 0.035, hx, 0, hz + 0.035)),
        size="0.008",
        material="joint",
    )
    _sub(drawer, "site", name=f"{cab.drawer_id}{HANDLE_SITE_SUFFIX}", pos=_v((hx, 0, hz)), size="0.005", group="3")
