"""Which OpenGL platform headless camera rendering uses: EGL, falling back to OSMesa.

PyOpenGL binds to one platform the first time it is imported, and that
cannot change later in the process; ``import mujoco`` does it at once when
``MUJOCO_GL`` is ``egl`` or ``osmesa``. So the choice is made here, early
(``bt_executive.sim`` calls ``select_platform`` when the package is
imported), and the camera renderer creates its context for that platform
directly:

- ``MUJOCO_GL`` unset or ``egl``: probe EGL with a few raw library calls (no
  PyOpenGL); if no EGL device initialises and OSMesa's library loads, use
  ``osmesa`` instead;
- any other value set by the user is kept as is.

Rendering can still be unavailable (no libraries at all); the renderer then
raises ``RenderingUnavailable`` with the reason, and nothing else is affected.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import sys

_log = logging.getLogger(__name__)

EGL_PLATFORM_DEVICE_EXT = 0x313F

_selected: str | None = None


def _egl_initialises() -> bool:
    """Whether some EGL device display initialises (the check mujoco.egl would fail on)."""
    try:
        egl = ctypes.CDLL("libEGL.so.1")
    except OSError:
        return False
    get_proc = egl.eglGetProcAddress
    get_proc.restype = ctypes.c_void_p
    get_proc.argtypes = [ctypes.c_char_p]
    query_ptr = get_proc(b"eglQueryDevicesEXT")
    display_ptr = get_proc(b"eglGetPlatformDisplayEXT")
    if not query_ptr or not display_ptr:
        return False
    query_devices = ctypes.CFUNCTYPE(
        ctypes.c_uint, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_int)
    )(query_ptr)
    get_display = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p)(display_ptr)
    egl.eglInitialize.restype = ctypes.c_uint
    egl.eglInitialize.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    egl.eglTerminate.argtypes = [ctypes.c_void_p]
    devices = (ctypes.c_void_p * 16)()
    count = ctypes.c_int(0)
    if not query_devices(16, devices, ctypes.byref(count)):
        return False
    for i in range(count.value):
        display = get_display(EGL_PLATFORM_DEVICE_EXT, devices[i], None)
        if display and egl.eglInitialize(display, None, None):
            egl.eglTerminate(display)
            return True
    return False


def _osmesa_loads() -> bool:
    name = ctypes.util.find_library("OSMesa") or "libOSMesa.so.8"
    try:
        ctypes.CDLL(name)
    except OSError:
        return False
    return True


def select_platform() -> str:
    """Set ``MUJOCO_GL`` (egl, else osmesa) unless the user chose otherwise; return the platform in use."""
    global _selected
    if _selected is not None:
        return _selected
    requested = os.environ.get("MUJOCO_GL", "").strip().lower()
    bound = os.environ.get("PYOPENGL_PLATFORM", "").strip().lower()
    if requested not in ("", "egl"):
        _selected = requested
        return requested
    if "OpenGL" in sys.modules:
        # PyOpenGL is already bound to a platform in this process; only that one can work now.
        choice = bound or requested or "glfw"
    elif _egl_initialises():
        choice = "egl"
    elif _osmesa_loads():
        _log.warning("EGL is not usable on this machine; rendering camera images with OSMesa (slower)")
        choice = "osmesa"
    else:
        choice = "egl"  # neither works: keep the default, the renderer reports it clearly
    os.environ["MUJOCO_GL"] = choice
    _selected = choice
    return choice
