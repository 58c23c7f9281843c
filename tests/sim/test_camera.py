"""Headless camera frames for VLA observations: right shape, not blank, from both cameras.

These tests skip only when neither EGL nor OSMesa can create a context on
this machine (probed in a child process, so the probe cannot disturb this
one); anywhere rendering is possible, a rendering bug fails them.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from bt_executive.sim.backend import SimBackend, default_scene_path
from bt_executive.sim.camera import FRAME_SIZE

pytestmark = pytest.mark.sim


@functools.cache
def _headless_gl() -> str | None:
    """The first of EGL and OSMesa that creates a context here, or None."""
    for platform in ("egl", "osmesa"):
        code = f"from mujoco import {platform}\nc = {platform}.GLContext(8, 8)\nc.make_current()\nc.free()"
        env = {**os.environ, "MUJOCO_GL": platform, "PYOPENGL_PLATFORM": platform}
        try:
            probe = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, timeout=120, check=False)
        except subprocess.TimeoutExpired:
            continue
        if probe.returncode == 0:
            return platform
    return None


@pytest.fixture
def backend() -> Iterator[SimBackend]:
    if _headless_gl() is None:
        pytest.skip("neither EGL nor OSMesa can create an OpenGL context on this machine")
    b = SimBackend.from_files(seed=0)
    yield b
    b.close()


@pytest.mark.parametrize("camera", ["front", "wrist"])
def test_a_camera_frame_is_224_square_rgb_bytes(backend: SimBackend, camera: str) -> None:
    frame = backend.render(camera)
    assert (frame.shape, str(frame.dtype)) == ((FRAME_SIZE, FRAME_SIZE, 3), "uint8")


@pytest.mark.parametrize("camera", ["front", "wrist"])
def test_a_camera_frame_is_not_blank(backend: SimBackend, camera: str) -> None:
    frame = backend.render(camera)
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 50


def test_the_front_camera_sees_the_red_cube(backend: SimBackend) -> None:
    frame = backend.render("front").astype(int)
    red = (frame[..., 0] > 150) & (frame[..., 1] < 80) & (frame[..., 2] < 80)
    assert red.sum() > 10


def _pink_pixels(frame: np.ndarray) -> int:
    """Pixels a person would call pink: bright red, clearly more blue than green (the red cube has almost none)."""
    r, g, b = (frame[..., i].astype(int) for i in range(3))
    return int(((r > 170) & (g > 60) & (g < 170) & (b > g + 20) & (r > b + 40)).sum())


def test_the_front_camera_sees_a_pink_cube_of_a_scene_that_names_one(backend: SimBackend, tmp_path: Path) -> None:
    # A colour word outside the old closed list: the scene loads and the renderer draws it pink, not a fallback.
    text = default_scene_path().read_text(encoding="utf-8")
    path = tmp_path / "pink.yaml"
    path.write_text(
        text.replace("id: red_cube, category: cube, colour: red", "id: pink_cube, category: cube, colour: pink")
    )
    pink = SimBackend.from_files(path, seed=0)
    try:
        seen = _pink_pixels(pink.render("front"))
    finally:
        pink.close()
    assert (seen > 50, _pink_pixels(backend.render("front"))) == (True, 0)


def test_the_picture_changes_when_the_arm_moves(backend: SimBackend) -> None:
    before = backend.render("front")
    backend.run_skill("pick", {"object": "red_cube"})
    assert np.abs(backend.render("front").astype(int) - before.astype(int)).mean() > 1.0


def test_an_observation_has_both_frames_and_seven_numbers_of_proprioception(backend: SimBackend) -> None:
    obs = backend.observation()
    assert (sorted(obs.images), obs.state.shape) == (["front", "wrist"], (7,))


def test_an_unknown_camera_is_refused_by_name(backend: SimBackend) -> None:
    with pytest.raises(KeyError, match="top"):
        backend.render("top")
