"""SimBackend: the one owner of the MuJoCo model and data, ticked at a fixed control rate.

Everything that touches the simulation goes through a backend, under its
lock, so skills, a policy loop, a world-state publisher and camera streams
can share one world from several threads::

    backend = SimBackend.from_files("config/scenes/tabletop.yaml", seed=3,
                                    faults="config/faults/missed_grasp.yaml")
    execution = backend.start_skill("pick", {"object": "red_cube"})
    while execution.step():          # one 20 ms control tick = 10 physics steps of 2 ms
        ...                          # execution.progress, execution.cancel()
    execution.result                 # SkillResult
    backend.world_state()            # WorldState
    backend.observation()            # camera frames + proprioception (Observation)
    backend.apply_command(JointCommand(...))   # one tick of policy output

Two clocks: ``lockstep`` steps as fast as the CPU allows and is
deterministic for a seed (same seed, same calls: bit-identical state);
``realtime`` sleeps before each tick so sim time tracks wall time (scaled by
``realtime_factor``).

MuJoCo warnings (a physics blow-up that MuJoCo silently auto-resets, a full
contact buffer...) are checked after every tick: the tick raises
``SimError`` with the warning counts as evidence, a running skill ends as
``aborted`` / ``sim_error``, and the backend refuses further skills until
``reset``. Warnings are routed to Python logging instead of
``MUJOCO_LOG.TXT``.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Literal

import mujoco
import numpy as np
import numpy.typing as npt
from pydantic import JsonValue

from bt_executive.runtime.paths import config_dir
from bt_executive.sim import arm
from bt_executive.sim.camera import FrameRenderer, RenderingUnavailable
from bt_executive.sim.control import TickCommand
from bt_executive.sim.execution import SkillExecution, SkillFailure
from bt_executive.sim.faults import FaultConfig, FaultEvent, FaultInjector, ObjectRemovalFault
from bt_executive.sim.kinematics import ArmKinematics
from bt_executive.sim.mjcf import TIMESTEP, build_mjcf
from bt_executive.sim.model_index import ModelIndex
from bt_executive.sim.motions import SKILLS
from bt_executive.sim.observation import CAMERAS, JointCommand, Observation
from bt_executive.sim.scene import Scene
from bt_executive.sim.skill_context import SkillContext
from bt_executive.sim.world_state import WorldReader
from bt_executive.skills.call import SkillResult
from bt_executive.skills.failures import FailureKind
from bt_executive.skills.world_state import WorldState

_log = logging.getLogger(__name__)

ClockMode = Literal["lockstep", "realtime"]
CONTROL_DT = 0.02
"""Default control tick, seconds (10 physics steps)."""
SETTLE_STEPS = 100
"""Physics steps after a reset so objects come to rest before time zero."""
PARK_POSITION = (0.0, 0.0, -1.0)
"""Where removed objects wait, out of sight under the table, with collisions off."""

_WARNING_NAMES = {int(w): str(name) for name, w in mujoco.mjtWarning.__members__.items() if name.startswith("mjWARN_")}


def _route_mujoco_warnings() -> None:
    """Send MuJoCo's warnings to logging rather than MUJOCO_LOG.TXT in the working directory."""
    if mujoco.get_mju_user_warning() is None:
        mujoco.set_mju_user_warning(lambda message: _log.warning("MuJoCo: %s", message))


class SimError(RuntimeError):
    """MuJoCo reported a warning (instability, auto-reset, buffer overflow): the sim state is not trustworthy."""

    def __init__(self, evidence: dict[str, JsonValue]) -> None:
        super().__init__(f"MuJoCo warnings {evidence.get('warnings')} at t={evidence.get('sim_time')}")
        self.evidence = evidence


class BusyError(RuntimeError):
    """A skill is running; direct commands would fight it."""


def default_scene_path() -> Path:
    """The shipped tabletop scene."""
    return config_dir() / "scenes" / "tabletop.yaml"


class SimBackend:
    """The simulated robot: owns MjModel/MjData, runs skills tick by tick, reports state and images."""

    def __init__(
        self,
        scene: Scene,
        *,
        seed: int | None = None,
        faults: FaultConfig | None = None,
        clock: ClockMode = "lockstep",
        control_dt: float = CONTROL_DT,
        realtime_factor: float = 1.0,
    ) -> None:
        _route_mujoco_warnings()
        substeps = round(control_dt / TIMESTEP)
        if substeps < 1 or not math.isclose(substeps * TIMESTEP, control_dt, rel_tol=1e-6):
            raise ValueError(f"control_dt {control_dt} must be a whole number of {TIMESTEP} s physics steps")
        if realtime_factor <= 0:
            raise ValueError("realtime_factor must be positive")
        self.scene = scene
        self.clock: ClockMode = clock
        self.realtime_factor = realtime_factor
        self.substeps = substeps
        self.control_dt = substeps * TIMESTEP
        self.model = mujoco.MjModel.from_xml_string(build_mjcf(scene))
        self.data = mujoco.MjData(self.model)
        self.index = ModelIndex.build(self.model, scene)
        self.kinematics = ArmKinematics(self.model, self.index)
        self.reader = WorldReader(self.model, self.data, self.index)
        self.lock = threading.RLock()
        self.fault_config = faults
        self.faults = FaultInjector(faults, scene.seed if seed is None else seed)
        self._geom_contype = self.model.geom_contype.copy()
        self._geom_conaffinity = self.model.geom_conaffinity.copy()
        self._geom_rgba = self.model.geom_rgba.copy()
        kp = self.model.actuator_gainprm[self.index.arm_actuators, 0]
        kv = -self.model.actuator_biasprm[self.index.arm_actuators, 2]
        self._feedforward = (kv + self.model.dof_damping[self.index.arm_dof]) / kp
        self._renderer: FrameRenderer | None = None
        self._render_error: RenderingUnavailable | None = None
        self._active: SkillExecution | None = None
        self.seed = 0
        self.reset(seed)

    @classmethod
    def from_files(
        cls,
        scene: Path | str | None = None,
        *,
        seed: int | None = None,
        faults: Path | str | None = None,
        clock: ClockMode = "lockstep",
        control_dt: float = CONTROL_DT,
        realtime_factor: float = 1.0,
    ) -> SimBackend:
        """A backend from a scene file (default: the shipped tabletop) and an optional fault file."""
        scene_model = Scene.from_yaml(Path(scene) if scene is not None else default_scene_path())
        fault_model = FaultConfig.from_yaml(Path(faults)) if faults is not None else None
        return cls(
            scene_model,
            seed=seed,
            faults=fault_model,
            clock=clock,
            control_dt=control_dt,
            realtime_factor=realtime_factor,
        )

    # -- state ---------------------------------------------------------------------------------

    @property
    def sim_time(self) -> float:
        """Seconds of simulated time since the last reset."""
        return float(self.data.time)

    @property
    def command(self) -> TickCommand:
        """The targets the actuators are tracking now."""
        return self._command

    @property
    def active_skill(self) -> SkillExecution | None:
        """The skill running now, if any."""
        return self._active

    @property
    def sim_error(self) -> dict[str, JsonValue] | None:
        """Evidence of the MuJoCo warning that stopped the sim, or None; cleared by ``reset``."""
        return self._sim_error

    @property
    def removed_objects(self) -> frozenset[str]:
        """Ids of objects a fault has taken out of the world."""
        return frozenset(self._removed)

    @property
    def fault_events(self) -> tuple[FaultEvent, ...]:
        """Every fault fired since the last reset, in order."""
        return tuple(self.faults.events)

    @property
    def crash_after_goals(self) -> int | None:
        """The fault file's server-crash setting, for the ROS layer to act on."""
        return self.faults.crash_after_goals

    @staticmethod
    def skill_names() -> tuple[str, ...]:
        """Names of the scripted skills this backend runs."""
        return tuple(SKILLS)

    def present_ids(self) -> tuple[str, ...]:
        """Ids of the objects in the world now (removed ones excluded), plus the drawer."""
        ids = [o for o in self.index.objects if o not in self._removed]
        if self.index.drawer is not None:
            ids.append(self.index.drawer.spec.drawer_id)
        return tuple(ids)

    # -- reset ---------------------------------------------------------------------------------

    def reset(self, seed: int | None = None) -> None:
        """Back to the start: arm at home with the gripper open, objects at the seed's layout, faults re-armed."""
        with self.lock:
            if self._active is not None:
                self._active.cancel("reset")
            self.seed = self.scene.seed if seed is None else seed
            layout = self.scene.layout(self.seed)
            model, data, index = self.model, self.data, self.index
            model.geom_contype[:] = self._geom_contype
            model.geom_conaffinity[:] = self._geom_conaffinity
            model.geom_rgba[:] = self._geom_rgba
            mujoco.mj_resetData(model, data)
            data.qpos[index.arm_qpos] = arm.HOME_Q
            data.qpos[index.finger_qpos] = arm.MAX_OPENING / 2
            for object_id, handle in index.objects.items():
                pose = layout[object_id]
                data.qpos[handle.qpos : handle.qpos + 3] = (pose.x, pose.y, handle.spec.size[2] / 2)
                data.qpos[handle.qpos + 3 : handle.qpos + 7] = (
                    math.cos(pose.yaw / 2),
                    0.0,
                    0.0,
                    math.sin(pose.yaw / 2),
                )
            if index.drawer is not None:
                data.qpos[index.drawer.qpos] = index.drawer.spec.initial_open * index.drawer.spec.drawer_travel
            self._command = TickCommand.hold(arm.HOME_Q, arm.MAX_OPENING)
            self._apply(self._command)
            mujoco.mj_forward(model, data)
            mujoco.mj_step(model, data, nstep=SETTLE_STEPS)
            data.time = 0.0
            mujoco.mj_forward(model, data)
            self._removed: set[str] = set()
            self._sim_error: dict[str, JsonValue] | None = None
            self._warning_counts = self._warnings()
            self._ticks = 0
            self._pace_anchor: tuple[float, float] | None = None
            self.faults.reset(self.seed)
            if self._warning_counts.any():
                self._raise_sim_error(self._warning_counts)

    # -- ticking -------------------------------------------------------------------------------

    def _apply(self, command: TickCommand) -> None:
        data, index = self.data, self.index
        target = np.clip(command.arm, *np.array(arm.JOINT_LIMITS).T)
        if command.arm_velocity is not None:
            target = target + self._feedforward * command.arm_velocity
        data.ctrl[index.arm_actuators] = target
        data.ctrl[index.gripper_actuators] = float(np.clip(command.gripper, 0.0, arm.MAX_OPENING)) / 2

    def _warnings(self) -> npt.NDArray[np.int64]:
        return np.asarray(self.data.warning.number, dtype=np.int64).copy()

    def _raise_sim_error(self, new: npt.NDArray[np.int64]) -> None:
        names = {_WARNING_NAMES.get(i, str(i)): int(n) for i, n in enumerate(new) if n > 0}
        evidence: dict[str, JsonValue] = {
            "warnings": dict(names),
            "sim_time": round(self.sim_time, 4),
            "last_info": {
                _WARNING_NAMES.get(int(i), str(i)): int(self.data.warning[int(i)].lastinfo) for i in np.flatnonzero(new)
            },
            "auto_reset": bool(
                new[int(mujoco.mjtWarning.mjWARN_BADQACC)]
                or new[int(mujoco.mjtWarning.mjWARN_BADQPOS)]
                or new[int(mujoco.mjtWarning.mjWARN_BADQVEL)]
            ),
        }
        self._sim_error = evidence
        raise SimError(evidence)

    def advance(self, command: TickCommand | None = None) -> None:
        """One control tick of physics with ``command`` (None: keep the current targets); hold the lock."""
        if command is not None:
            self._command = command
            self._apply(command)
        mujoco.mj_step(self.model, self.data, nstep=self.substeps)
        self._ticks += 1
        if self._removed:
            self._keep_parked()
        counts = self._warnings()
        new = counts - self._warning_counts
        if new.any():
            self._warning_counts = counts
            self._raise_sim_error(new)

    def pace(self) -> None:
        """In realtime mode, sleep until the next tick is due (call without holding the lock)."""
        if self.clock != "realtime":
            return
        while True:
            with self.lock:
                now = time.monotonic()
                if self._pace_anchor is None:
                    self._pace_anchor = (now, self.sim_time)
                wall0, sim0 = self._pace_anchor
                due = wall0 + (self.sim_time + self.control_dt - sim0) / self.realtime_factor
                wait = due - now
                if wait < -0.25:  # fell far behind (idle, or a slow machine): re-anchor instead of bursting
                    self._pace_anchor = (now, self.sim_time)
                    return
                if wait <= 0.0:
                    return
            time.sleep(min(wait, 0.05))

    def tick(self, command: TickCommand | None = None) -> None:
        """Advance one control tick from outside any skill (paced by the clock); ``BusyError`` while a skill runs."""
        self.pace()
        with self.lock:
            if self._active is not None:
                raise BusyError(f"skill {self._active.name} is running")
            self.advance(command)

    def idle_tick(self) -> bool:
        """Advance one tick holding the current targets, unless a skill runs (then it is the skill's tick)."""
        try:
            self.tick()
        except BusyError:
            return False
        return True

    def hold(self) -> None:
        """Hold the arm where it is now, gripper target unchanged (the safe stop)."""
        with self.lock:
            self._command = TickCommand.hold(self.reader.arm_q(), self._command.gripper)
            self._apply(self._command)

    # -- skills --------------------------------------------------------------------------------

    def start_skill(
        self, name: str, args: Mapping[str, JsonValue] | None = None, *, timeout_s: float | None = None
    ) -> SkillExecution:
        """Start a scripted skill by name; step the returned execution once per control tick.

        Never raises for a bad call: an unknown skill, bad arguments, a
        running skill or an unreset sim error give an execution that is
        already done, with the failure in its result.
        """
        raw: dict[str, JsonValue] = dict(args or {})
        with self.lock:
            spec = SKILLS.get(name)
            timeout = float(timeout_s if timeout_s is not None else spec.timeout_s if spec is not None else 0.0)
            early: SkillResult | None = None
            if spec is None:
                early = SkillFailure(
                    FailureKind.INVALID_PARAMS,
                    "unknown_skill",
                    detail=f"no skill {name!r}; skills: {', '.join(SKILLS)}",
                    evidence={"skill": name, "known": list(SKILLS)},
                ).result(0.0)
            elif self._active is not None:
                early = SkillFailure(
                    FailureKind.REJECTED,
                    "busy",
                    detail=f"{self._active.name} is running; cancel it first",
                    evidence={"running": self._active.name},
                ).result(0.0)
            elif self._sim_error is not None:
                early = SkillFailure(
                    FailureKind.ABORTED,
                    "sim_error",
                    detail="the simulation reported a MuJoCo warning; reset it before running skills",
                    evidence=self._sim_error,
                ).result(0.0)
            if spec is None or early is not None:
                return SkillExecution(self, name, raw, timeout, None, None, early_result=early)
            try:
                parsed = spec.parse(raw)
            except SkillFailure as failure:
                return SkillExecution(self, name, raw, timeout, None, None, early_result=failure.result(0.0))
            self.faults.begin_call(name, self.sim_time)
            for fault in self.faults.removals_due(None):
                self._apply_removal(fault)
            context = SkillContext(self, name, spec.phases)
            execution = SkillExecution(self, name, raw, timeout, context, lambda: spec.body(context, parsed))
            self._active = execution
            return execution

    def run_skill(
        self, name: str, args: Mapping[str, JsonValue] | None = None, *, timeout_s: float | None = None
    ) -> SkillResult:
        """Start a skill and step it to the end (convenience for scripts and tests)."""
        return self.start_skill(name, args, timeout_s=timeout_s).run()

    def skill_finished(self, execution: SkillExecution) -> None:
        """Called by an execution when it ends; frees the backend for the next skill."""
        with self.lock:
            if self._active is execution:
                self._active = None

    # -- faults --------------------------------------------------------------------------------

    def apply_due_faults(self, ticks_into_call: int) -> None:
        """Apply mid-task removals due this many ticks into the current call (lock held)."""
        for fault in self.faults.removals_due(ticks_into_call):
            self._apply_removal(fault)

    def _apply_removal(self, fault: ObjectRemovalFault) -> None:
        if fault.object not in self.index.objects:
            _log.warning("fault names unknown object %s; ignored", fault.object)
            return
        if fault.mode == "remove":
            self.remove_object(fault.object)
        else:
            x, y = fault.position
            self.set_object_pose(fault.object, (x, y, self.index.objects[fault.object].spec.size[2] / 2))
        self.faults.record_removal(fault, self.sim_time)

    def remove_object(self, object_id: str) -> None:
        """Take an object out of the world: hidden, collision-free, absent from the world state."""
        with self.lock:
            handle = self.index.objects[object_id]
            for g in handle.geoms:
                self.model.geom_contype[g] = 0
                self.model.geom_conaffinity[g] = 0
                self.model.geom_rgba[g, 3] = 0.0
            self._removed.add(object_id)
            self._keep_parked()
            mujoco.mj_forward(self.model, self.data)

    def _keep_parked(self) -> None:
        for object_id in self._removed:
            handle = self.index.objects[object_id]
            self.data.qpos[handle.qpos : handle.qpos + 3] = PARK_POSITION
            self.data.qpos[handle.qpos + 3 : handle.qpos + 7] = (1.0, 0.0, 0.0, 0.0)
            self.data.qvel[handle.dof : handle.dof + 6] = 0.0

    def set_object_pose(self, object_id: str, position: Iterable[float], yaw: float = 0.0) -> None:
        """Teleport an object (at rest) to ``position`` with ``yaw`` radians: for faults, tests and resets."""
        with self.lock:
            handle = self.index.objects[object_id]
            self.data.qpos[handle.qpos : handle.qpos + 3] = list(position)
            self.data.qpos[handle.qpos + 3 : handle.qpos + 7] = (math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2))
            self.data.qvel[handle.dof : handle.dof + 6] = 0.0
            mujoco.mj_forward(self.model, self.data)

    # -- what callers read ---------------------------------------------------------------------

    def world_state(self) -> WorldState:
        """The current WorldState, from the sim (ground truth)."""
        with self.lock:
            return self.reader.snapshot(self.sim_time, self._removed)

    def renderer(self) -> FrameRenderer:
        """The camera renderer, created on first use; ``RenderingUnavailable`` when this machine has no GL."""
        with self.lock:
            if self._renderer is None:
                if self._render_error is not None:
                    raise self._render_error
                try:
                    streams = self.scene.camera_streams
                    self._renderer = FrameRenderer(self.model, streams.width, streams.height)
                except RenderingUnavailable as err:
                    self._render_error = err
                    raise
            return self._renderer

    def render(self, camera: str) -> npt.NDArray[np.uint8]:
        """One RGB frame (224x224x3 uint8) from a named camera: ``front`` or ``wrist``."""
        renderer = self.renderer()
        with self.lock:
            renderer.capture(self.data, camera)
        return renderer.draw(camera)

    def observation(self, cameras: Iterable[str] = CAMERAS) -> Observation:
        """Camera frames plus joint angles and finger gap, all from the same instant."""
        renderer = self.renderer()
        names = tuple(cameras)
        with self.lock:
            for camera in names:
                renderer.capture(self.data, camera)
            q = self.reader.arm_q()
            gap = self.reader.gripper_opening()
            stamp = self.sim_time
        images = {camera: renderer.draw(camera) for camera in names}
        return Observation(images=images, joint_positions=q, gripper_opening=gap, stamp=stamp)

    def apply_command(self, command: JointCommand) -> None:
        """Track a policy's joint and gripper targets for one control tick (``BusyError`` while a skill runs)."""
        self.tick(TickCommand.hold(command.joint_positions, command.gripper_opening))

    def close(self) -> None:
        """Release the renderer's GL context (the model and data are freed with the object)."""
        with self.lock:
            if self._active is not None:
                self._active.cancel("shutdown")
            if self._renderer is not None:
                self._renderer.close()
                self._renderer = None
