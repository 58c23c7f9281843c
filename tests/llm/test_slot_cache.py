"""The local model's prompt cache on disk, against the real llama.cpp server: saved, restored, or safely ignored.

A damaged slot file must never reach llama.cpp: it aborts the whole process
on a truncated one (in-process, that would be ``serve``). These tests check
that every bad file is ignored (and deleted) and that the server still
answers afterwards.
"""

from __future__ import annotations

import hashlib
import json
import socket
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bt_executive.cli.scene_world import scene_world_state
from bt_executive.llm.model.llm_planner import LLMPlanner
from bt_executive.llm.profiles import LLMProfile, load_llm_config
from bt_executive.llm.serving.local_model import LocalModelServer, is_serving
from bt_executive.llm.serving.slot_cache import MAX_FILES, SlotCache, model_identity
from bt_executive.skills.capabilities import RobotCapabilities
from bt_executive.skills.registry import SkillRegistry
from bt_executive.skills.world_state import WorldState
from bt_executive.testing.llm_server import require_local_model

pytestmark = pytest.mark.slow

PREFIX = "You are a terse assistant. Answer with one word."
MESSAGES = [{"role": "system", "content": PREFIX}, {"role": "user", "content": "Name a colour."}]


@pytest.fixture
def slot_dir(tmp_path: Path) -> Path:
    return tmp_path / "slots"


@pytest.fixture
def server(slot_dir: Path) -> Iterator[LocalModelServer]:
    """A real local model allowed to save and restore slots under ``slot_dir``."""
    require_local_model()
    served = LocalModelServer(port=0, slot_dir=slot_dir, context=1024)
    served.start()
    try:
        yield served
    finally:
        served.stop()


def _cache(server: LocalModelServer, slot_dir: Path) -> SlotCache:
    assert server.model_file is not None
    return SlotCache(slot_dir, model_identity(server.model_file, server.context))


def _chat(base_url: str, messages: list[dict[str, str]] = MESSAGES) -> dict[str, Any]:
    body = {"model": "smollm2", "messages": messages, "max_tokens": 2, "temperature": 0.0, "cache_prompt": True}
    request = urllib.request.Request(
        f"{base_url}/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        reply: dict[str, Any] = json.loads(response.read())
    return reply


def _saved_slot(server: LocalModelServer, cache: SlotCache) -> Path:
    """Fill the slot with MESSAGES and save it; the path of the slot file."""
    _chat(server.base_url)
    assert cache.save(server.base_url, PREFIX)
    return cache.directory / f"{cache.key(PREFIX)}.bin"


def test_a_restored_slot_spares_a_fresh_server_the_prompt(server: LocalModelServer, slot_dir: Path) -> None:
    cache = _cache(server, slot_dir)
    _saved_slot(server, cache)
    fresh = LocalModelServer(port=0, slot_dir=slot_dir, context=1024)
    fresh.start()
    try:
        restored = cache.restore(fresh.base_url, PREFIX)
        reused = _chat(fresh.base_url)["timings"]["cache_n"]
    finally:
        fresh.stop()
    assert (restored, reused > 0) == (True, True)


def test_a_missing_slot_file_is_a_miss(server: LocalModelServer, slot_dir: Path) -> None:
    assert _cache(server, slot_dir).restore(server.base_url, PREFIX) is False


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 3]), id="truncated"),
        pytest.param(lambda p: p.write_bytes(b""), id="emptied"),
        pytest.param(lambda p: p.with_suffix(".json").write_text("{not json"), id="corrupt-manifest"),
        pytest.param(lambda p: p.with_suffix(".json").unlink(), id="no-manifest"),
    ],
)
def test_a_damaged_slot_file_is_ignored_deleted_and_the_server_keeps_answering(
    server: LocalModelServer, slot_dir: Path, damage: Any
) -> None:
    cache = _cache(server, slot_dir)
    slot_file = _saved_slot(server, cache)
    damage(slot_file)
    restored = cache.restore(server.base_url, PREFIX)
    answered = "choices" in _chat(server.base_url)
    assert (restored, slot_file.exists() and slot_file.stat().st_size > 0 and cache.has(PREFIX), answered) == (
        False,
        False,
        True,
    )


def test_a_file_llama_cpp_refuses_is_deleted(server: LocalModelServer, slot_dir: Path) -> None:
    cache = _cache(server, slot_dir)
    slot_file = _saved_slot(server, cache)
    slot_file.write_bytes(b"GGSQ" + bytes(4096))  # not a slot llama.cpp can read, with a manifest that matches
    size, digest = len(slot_file.read_bytes()), hashlib.sha256(slot_file.read_bytes()).hexdigest()
    slot_file.with_suffix(".json").write_text(json.dumps({"size": size, "sha256": digest}))
    restored = cache.restore(server.base_url, PREFIX)
    assert (restored, slot_file.exists(), is_serving(server.base_url)) == (False, False, True)


def test_another_prompt_or_model_never_restores_a_slot(server: LocalModelServer, slot_dir: Path) -> None:
    cache = _cache(server, slot_dir)
    _saved_slot(server, cache)
    other_model = SlotCache(slot_dir, model_identity(slot_dir / "other.gguf", server.context))
    assert (cache.has(PREFIX + " "), other_model.has(PREFIX), cache.has(PREFIX)) == (False, False, True)


def test_the_slot_directory_keeps_only_the_newest_files(server: LocalModelServer, slot_dir: Path) -> None:
    cache = _cache(server, slot_dir)
    _chat(server.base_url)
    for index in range(MAX_FILES + 2):
        assert cache.save(server.base_url, f"{PREFIX} {index}")
    assert len(list(slot_dir.glob("*.bin"))) == MAX_FILES


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def _own_server_profile() -> LLMProfile:
    """The shipped local profile on a port of its own: the planner starts (and stops) its own server."""
    shipped = load_llm_config().profile("local")
    return shipped.model_copy(update={"api_base": f"http://127.0.0.1:{_free_port()}/v1"})


def test_a_cold_planner_saves_its_system_prompt_and_the_next_cold_planner_restores_it(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    skill_registry: SkillRegistry,
    tabletop_robot: RobotCapabilities,
    caplog: pytest.LogCaptureFixture,
) -> None:
    require_local_model()
    monkeypatch.setenv("BT_EXECUTIVE_CACHE", str(tmp_path / "cache"))
    world = scene_world_state()
    first = LLMPlanner(_own_server_profile(), skill_registry, tabletop_robot)
    try:
        first.warm(world)  # no file yet: the prompt is processed, then saved
    finally:
        first.close()
    caplog.set_level("INFO", logger="bt_executive.llm.serving.slot_cache")
    second = LLMPlanner(_own_server_profile(), skill_registry, tabletop_robot)
    try:
        second.warm(world)
    finally:
        second.close()
    assert [r.getMessage().split(" from ")[0] for r in caplog.records if "restored" in r.getMessage()] == [
        f"restored {_tokens(tmp_path)} prompt tokens of the local model"
    ]


def _tokens(tmp_path: Path) -> int:
    (manifest,) = (tmp_path / "cache" / "llm_slots").glob("*.json")
    tokens: int = json.loads(manifest.read_text())["tokens"]
    return tokens


def test_requests_to_a_local_model_ask_llama_cpp_to_reuse_the_cached_prefix(
    skill_registry: SkillRegistry, tabletop_robot: RobotCapabilities
) -> None:
    planner = LLMPlanner(load_llm_config().profile("local"), skill_registry, tabletop_robot)
    options = planner.request_options(planner.palette("open the drawer", WorldState()))
    assert options["extra_body"]["cache_prompt"] is True
