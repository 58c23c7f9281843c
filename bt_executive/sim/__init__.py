"""The MuJoCo tabletop world: the robot, its scripted skills, fault injection and cameras.

``SimBackend`` (``backend.py``) owns the model and data and is the one entry
point: it builds the world from a scene (``scene.py``, ``mjcf.py``, the arm's
geometry in ``arm.py``), runs skills one control tick at a time
(``motions/``, one module per skill family, their arguments read from the
skill manifests, on top of ``skill_context.py``, driven by ``execution.py``;
IK and path checks in ``kinematics.py``, timing in ``trajectory.py``),
reports ``WorldState`` (``world_state.py``), camera observations and a
joint-command path for policies (``observation.py``, ``camera.py``), and
injects seeded faults (``faults.py``). The ROS action servers that wrap it
(``skill_servers.py``) are the only part that imports ROS.

Importing this package picks the OpenGL platform for headless rendering
(``MUJOCO_GL``: EGL, falling back to OSMesa) before anything imports mujoco;
see ``gl_platform.py``.
"""

from bt_executive.sim.gl_platform import select_platform

select_platform()
