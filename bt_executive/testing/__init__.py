"""bt_executive.testing: a pytest plugin for testing skills and trees.

Installed with the package and registered through the ``pytest11`` entry
point, so any project that depends on bt_executive gets these fixtures in
its own tests without importing anything:

- ``skill_registry``: the shipped tabletop skills, loaded like the executive loads them.
- ``tabletop_robot``: the embedded robot's capability profile.
- ``manifest_data``: a factory for valid manifest mappings, to change one field and
  check that it is refused (or accepted).
- ``ros_domain_id`` (session): a ROS domain id this pytest process holds alone (``ros_domain``).
- ``ros_namespace``: a namespace of this test's own, e.g. ``/test_4711_3``.
- ``ros_context``: an initialised ``rclpy.Context`` on that domain, shut down and destroyed after.
- ``ros_harness``: a ``RosHarness`` in that context and namespace: ``harness.node(name)``
  creates nodes, ``harness.start()`` spins them in a MultiThreadedExecutor thread; torn
  down in the order rclpy needs (``ros_harness``).
- ``fake_skill_server``: an unstarted ``FakeSkillServer`` on that domain and namespace:
  script outcomes with ``serve(...)``, ``start()`` the process, read ``goals()`` /
  ``cancels()`` (``fake_skill_process``); stopped after the test.
- ``clean_blackboard``: py_trees' global blackboard, cleared before and after the test.
- ``assert_golden``: ``assert_golden(tree_or_text, name)`` against ``golden/<name>.txt``
  beside the test; ``pytest --update-golden`` rewrites the files (``golden``).
- ``scripted_llm``: a started ``ScriptedLLMServer`` on 127.0.0.1 speaking OpenAI chat
  completions: ``queue(ScriptedReply...)``, give ``base_url`` to litellm, read ``requests``
  (``scripted_llm``).
- ``local_llm`` (session): the base URL of SmolLM2-135M served by llama.cpp on 127.0.0.1
  (``llm_server``); skips when not installed, fails under ``BT_EXECUTIVE_REQUIRE_INTERFACES``.

``run_tree`` (``tree_runner``) ticks a tree to its end and times every tick;
``lifecycle_client`` drives a managed node through its lifecycle services from
another process and reads the endpoints it has in the ROS graph.

The ROS fixtures skip when rclpy or bt_executive_interfaces is missing (they fail
instead when ``BT_EXECUTIVE_REQUIRE_INTERFACES`` is set, as in CI). This module
imports neither rclpy nor py_trees: it loads on every pytest run.

ROS processes started from tests stay on this machine
(``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST``) unless the caller set otherwise,
and load ``config/fastdds_profile.xml`` (``FASTDDS_DEFAULT_PROFILES_FILE``,
unless set): the test process from its first ``ros_context``, the fake server
from its start. Its 0.5 s announcements make a new server discovered in
~0.1-0.4 s rather than up to ~2.5 s; its 1.5 s lease makes a killed one vanish.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from bt_executive.runtime.paths import config_dir
from bt_executive.skills.dirs import default_skill_dirs
from bt_executive.testing.fake_skill_process import FakeSkillServer
from bt_executive.testing.fake_skill_script import Outcome
from bt_executive.testing.golden import DIR_INI, UPDATE_OPTION, GoldenAssert, GoldenFiles
from bt_executive.testing.llm_server import local_model_session
from bt_executive.testing.ros_domain import reserve_domain_id
from bt_executive.testing.ros_harness import RosHarness, close_context, open_context, unique_namespace
from bt_executive.testing.scripted_llm import RecordedRequest, ScriptedLLMServer, ScriptedReply
from bt_executive.testing.tree_runner import TreeRun, run_tree

if TYPE_CHECKING:
    from rclpy.context import Context

    from bt_executive.skills.capabilities import RobotCapabilities
    from bt_executive.skills.registry import SkillRegistry

# The skill models are imported where used: the fake skill server's process imports this package
# too (its modules live here), and it needs none of them.

__all__ = [
    "FakeSkillServer",
    "GoldenAssert",
    "ManifestFactory",
    "Outcome",
    "RecordedRequest",
    "RosHarness",
    "ScriptedLLMServer",
    "ScriptedReply",
    "TreeRun",
    "run_tree",
    "valid_manifest_data",
]

REQUIRE_INTERFACES_ENV = "BT_EXECUTIVE_REQUIRE_INTERFACES"

ManifestFactory = Callable[..., dict[str, Any]]


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--update-golden`` and the ``bt_executive_golden_dir`` ini option."""
    group = parser.getgroup("bt_executive")
    group.addoption(
        UPDATE_OPTION,
        action="store_true",
        default=False,
        help="rewrite golden tree snapshots instead of comparing with them",
    )
    parser.addini(DIR_INI, "directory of golden tree snapshots (default: golden/ beside each test)", default="")


def pytest_configure(config: pytest.Config) -> None:
    """Keep DDS discovery on loopback for every ROS node a test starts."""
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")


@pytest.fixture(scope="session")
def skill_registry() -> SkillRegistry:
    """The skills shipped in config/skills (installed bundles excluded, for repeatability)."""
    from bt_executive.skills.registry import SkillRegistry

    return SkillRegistry.discover(default_skill_dirs(), use_entry_points=False)


@pytest.fixture(scope="session")
def tabletop_robot() -> RobotCapabilities:
    """The embedded MuJoCo arm's capability profile."""
    from bt_executive.skills.capabilities import RobotCapabilities

    return RobotCapabilities.from_yaml(config_dir() / "robots" / "tabletop_arm.yaml")


def valid_manifest_data(**overrides: Any) -> dict[str, Any]:
    """A minimal valid ros_action manifest mapping, with ``overrides`` merged over it."""
    base: dict[str, Any] = {
        "id": "test/pick",
        "version": "1.0.0",
        "description": "Pick up an object for a test.",
        "kind": "ros_action",
        "actions": ["PICK"],
        "parameters": {
            "type": "object",
            "properties": {"object": {"type": "string"}},
            "required": ["object"],
        },
        "ros": {
            "action_type": "bt_executive_interfaces/action/RunSkill",
            "action_name": "skills/pick",
        },
    }
    from bt_executive.skills.parameters import merge_goal

    return merge_goal(base, overrides)


@pytest.fixture
def manifest_data() -> ManifestFactory:
    """Factory: ``manifest_data(description="...")`` gives a manifest mapping with that change."""
    return valid_manifest_data


# ROS ------------------------------------------------------------------------------------------------


def _require(module: str, hint: str) -> None:
    """Skip the test when ``module`` is missing (fail instead under BT_EXECUTIVE_REQUIRE_INTERFACES)."""
    spec = importlib.util.find_spec(module)
    if spec is not None and spec.origin is not None:  # a source folder on sys.path is a namespace: no origin
        return
    message = f"{module} is not installed; {hint}"
    if os.environ.get(REQUIRE_INTERFACES_ENV):
        pytest.fail(f"{message} (and {REQUIRE_INTERFACES_ENV} is set)")
    pytest.skip(message)


@pytest.fixture(scope="session")
def ros_domain_id() -> Iterator[int]:
    """A ROS domain id (1..100) that this pytest process holds alone for the whole session."""
    with reserve_domain_id() as domain_id:
        yield domain_id


@pytest.fixture
def ros_namespace() -> str:
    """A ROS namespace of this test's own, so no earlier test's leftovers answer its clients."""
    return unique_namespace()


@pytest.fixture
def ros_context(ros_domain_id: int) -> Iterator[Context]:
    """An initialised ``rclpy.Context`` of this test's own; shut down, destroyed and collected after."""
    _require("rclpy", "install ros-kilted-rclpy (requirements.txt)")
    context = open_context(ros_domain_id)
    try:
        yield context
    finally:
        close_context(context)


@pytest.fixture
def ros_harness(ros_context: Context, ros_namespace: str) -> Iterator[RosHarness]:
    """Nodes (``harness.node(name)``) and an executor thread (``harness.start()``), torn down in order."""
    harness = RosHarness(ros_context, ros_namespace)
    try:
        yield harness
    finally:
        harness.close()


@pytest.fixture
def fake_skill_server(tmp_path: Path, ros_domain_id: int, ros_namespace: str) -> Iterator[FakeSkillServer]:
    """A fake RunSkill server process on this test's domain and namespace: script it, ``start()`` it."""
    _require("bt_executive_interfaces", "run `bash bt_executive_interfaces/build_into_venv.sh .venv`")
    server = FakeSkillServer(tmp_path / "fake_skill_server", ros_domain_id, ros_namespace)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def clean_blackboard() -> Iterator[None]:
    """py_trees' blackboard is process-global: start the test with it empty, and leave it empty."""
    from py_trees.blackboard import Blackboard

    Blackboard.clear()
    try:
        yield
    finally:
        Blackboard.clear()


# golden snapshots ---------------------------------------------------------------------------------


@pytest.fixture
def assert_golden(request: pytest.FixtureRequest) -> GoldenAssert:
    """``assert_golden(tree_or_text, name)``: compare with (or, with --update-golden, rewrite) a golden file."""
    configured = str(request.config.getini(DIR_INI) or "")
    directory = request.config.rootpath / configured if configured else request.path.parent / "golden"
    files = GoldenFiles(directory, update=bool(request.config.getoption(UPDATE_OPTION)))
    return files.check


# language models -------------------------------------------------------------------------------------


@pytest.fixture
def scripted_llm() -> Iterator[ScriptedLLMServer]:
    """A started scripted OpenAI-compatible server on 127.0.0.1; stopped after the test."""
    with ScriptedLLMServer() as server:
        yield server


@pytest.fixture(scope="session")
def local_llm() -> Iterator[str]:
    """The ``/v1`` base URL of the real local model (SmolLM2 via llama.cpp), one per session."""
    with local_model_session() as base_url:
        yield base_url
