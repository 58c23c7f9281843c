"""Fixtures of the VLA tests: the shipped VLA manifest, a call of it, the tabletop sim as a robot.

The sim backend is built once per module and reset per test (building the
model and the renderer costs more than a whole oracle run).
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from bt_executive.sim.backend import SimBackend
from bt_executive.sim.vla_robot import SimRobot
from bt_executive.skills import SkillCall, SkillManifest, SkillRegistry

VLA_SKILL = "tabletop/vla_manipulate"
SEED = 1
"""A layout where the blue cube and the bowl are both in reach."""


@pytest.fixture
def vla_manifest(skill_registry: SkillRegistry) -> SkillManifest:
    """The shipped ``tabletop/vla_manipulate`` (policy: oracle, success check on(object, target))."""
    return skill_registry.get(VLA_SKILL)


@pytest.fixture
def blue_in_bowl() -> SkillCall:
    """Put the blue cube in the bowl."""
    return SkillCall(skill=VLA_SKILL, args={"object": "blue_cube", "target": "bowl"})


@pytest.fixture(scope="module")
def sim_backend() -> Iterator[SimBackend]:
    """One tabletop backend per test module."""
    backend = SimBackend.from_files(seed=SEED)
    yield backend
    backend.close()


@pytest.fixture
def sim_robot(sim_backend: SimBackend) -> SimRobot:
    """The tabletop at layout ``SEED``, freshly reset, as a RobotInterface."""
    sim_backend.reset(SEED)
    return SimRobot(sim_backend)


class PolicyServerProcess:
    """``bt-executive policy-server`` in a child process, on a port the OS picked."""

    def __init__(self, policy: str = "oracle") -> None:
        command = [sys.executable, "-m", "bt_executive.cli.main", "policy-server", "--policy", policy]
        # A pipe nobody reads could fill up and stall the server; the file lives as long as the process.
        self.log = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115
        self.process = subprocess.Popen([*command, "--port", "0"], stdout=subprocess.PIPE, stderr=self.log, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        match = re.search(r"ready: (ws://127\.0\.0\.1:\d+)", line)
        if match is None:
            self.process.kill()
            self.log.seek(0)
            raise RuntimeError(f"the policy server did not start: {line!r} {self.log.read()!r}")
        self.ready_line = line.strip()
        self.url = match.group(1)

    def stop(self) -> int:
        """SIGTERM, then the exit status."""
        if self.process.poll() is None:
            self.process.terminate()
        try:
            return self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()
        finally:
            self.log.close()


@pytest.fixture
def oracle_server() -> Iterator[PolicyServerProcess]:
    """The oracle served by ``bt-executive policy-server`` in a separate process."""
    server = PolicyServerProcess()
    yield server
    server.stop()


def with_endpoint(manifest: SkillManifest, url: str) -> SkillManifest:
    """The same skill, reached through a policy server instead of the in-process entry point."""
    vla = manifest.vla
    assert vla is not None
    return manifest.model_copy(update={"vla": vla.model_copy(update={"policy": None, "endpoint": url})})


REPO = Path(__file__).resolve().parents[2]
