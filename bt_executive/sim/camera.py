"""Headless camera frames: RGB images from the model's named cameras, safe to request from any thread.

One OpenGL context serves every camera. A frame is made in two halves: the
scene is read from MjData while the caller holds the backend's lock (fast,
CPU only), then the GL half runs under the renderer's own lock with the
context made current for just that call, so a skill thread, a policy loop
and a ROS image publisher can all ask for frames. Shadows and reflections
are off: they double the cost of a 224x224 frame on a software rasteriser.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from typing import Any, Protocol

import mujoco
import numpy as np
import numpy.typing as npt

FRAME_SIZE = 224
"""Width and height of observation frames, pixels."""

ImageArray = npt.NDArray[np.uint8]


class RenderingUnavailable(RuntimeError):
    """No OpenGL context could be created (no EGL or OSMesa on this machine)."""


class _GLContext(Protocol):
    def as_current(self) -> contextlib.AbstractContextManager[None]: ...

    def free(self) -> None: ...


def _gl_context_class() -> Any:
    """The GLContext class for the platform ``gl_platform`` selected (imported lazily: it binds PyOpenGL)."""
    platform = os.environ.get("MUJOCO_GL", "").lower()
    if platform == "egl":
        from mujoco import egl

        return egl.GLContext
    if platform == "osmesa":
        from mujoco import osmesa

        return osmesa.GLContext
    from mujoco import gl_context

    return gl_context.GLContext


def _make_gl_context(width: int, height: int) -> _GLContext:
    platform = os.environ.get("MUJOCO_GL", "") or "unset"
    try:
        context: _GLContext = _gl_context_class()(width, height)
    except Exception as err:  # any failure here means "no rendering", with the reason kept
        raise RenderingUnavailable(
            f"cannot create an OpenGL context for camera images (MUJOCO_GL={platform}): "
            f"{type(err).__name__}: {err}. Install Debian libegl1 libegl-mesa0 libgl1-mesa-dri libopengl0 "
            "(EGL) or libosmesa6 (OSMesa)."
        ) from err
    return context


class FrameRenderer:
    """Renders RGB frames of one model's cameras into numpy arrays."""

    def __init__(self, model: mujoco.MjModel, width: int = FRAME_SIZE, height: int = FRAME_SIZE) -> None:
        self.model = model
        self.width, self.height = width, height
        self._gl = _make_gl_context(width, height)
        self._closed = False
        self._lock = threading.Lock()
        self._scenes: dict[str, tuple[mujoco.MjvScene, mujoco.MjvCamera]] = {}
        self._option = mujoco.MjvOption()
        self._viewport = mujoco.MjrRect(0, 0, width, height)
        try:
            with self._gl.as_current():
                self._context = mujoco.MjrContext(model, mujoco.mjtFontScale.mjFONTSCALE_50)
                mujoco.mjr_setBuffer(mujoco.mjtFramebuffer.mjFB_OFFSCREEN, self._context)
        except Exception as err:
            self._gl.free()
            raise RenderingUnavailable(f"cannot set up MuJoCo rendering: {type(err).__name__}: {err}") from err

    def cameras(self) -> tuple[str, ...]:
        """Names of the model's cameras."""
        return tuple(str(self.model.camera(i).name) for i in range(self.model.ncam))

    def _scene(self, camera: str) -> tuple[mujoco.MjvScene, mujoco.MjvCamera]:
        if camera not in self._scenes:
            cam_id = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_CAMERA, camera)
            if cam_id < 0:
                raise KeyError(f"no camera named {camera!r}; cameras: {', '.join(self.cameras())}")
            scene = mujoco.MjvScene(self.model, maxgeom=500)
            scene.flags[mujoco.mjtRndFlag.mjRND_SHADOW] = 0
            scene.flags[mujoco.mjtRndFlag.mjRND_REFLECTION] = 0
            scene.flags[mujoco.mjtRndFlag.mjRND_SKYBOX] = 0
            cam = mujoco.MjvCamera()
            cam.type = mujoco.mjtCamera.mjCAMERA_FIXED
            cam.fixedcamid = cam_id
            self._scenes[camera] = (scene, cam)
        return self._scenes[camera]

    def capture(self, data: mujoco.MjData, camera: str) -> None:
        """Copy what ``camera`` sees from ``data`` (call with the data's lock held; cheap)."""
        with self._lock:
            scene, cam = self._scene(camera)
            mujoco.mjv_updateScene(self.model, data, self._option, None, cam, mujoco.mjtCatBit.mjCAT_ALL, scene)

    def draw(self, camera: str) -> ImageArray:
        """Rasterise the last capture of ``camera`` into a (height, width, 3) uint8 image (no data lock needed)."""
        image = np.empty((self.height, self.width, 3), dtype=np.uint8)
        with self._lock:
            if self._closed:
                raise RenderingUnavailable("the renderer was closed")
        with self._lock, self._current():
            scene, _ = self._scene(camera)
            mujoco.mjr_render(self._viewport, scene, self._context)
            mujoco.mjr_readPixels(image, None, self._viewport, self._context)
        return np.ascontiguousarray(image[::-1])

    @contextlib.contextmanager
    def _current(self) -> Iterator[None]:
        with self._gl.as_current():
            yield

    def close(self) -> None:
        """Free the GL resources (idempotent)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            with contextlib.suppress(Exception), self._gl.as_current():
                self._context.free()
            self._gl.free()
