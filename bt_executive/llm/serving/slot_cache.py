"""The local model's prompt prefix, processed once and kept on disk: llama.cpp slot save/restore.

A cold ``plan --planner local`` spends most of its time reading the ~600-token
system prompt (skills, object ids, rules) at ~60-130 tokens/s on two cores.
llama.cpp can write a slot's KV cache to a file and read it back in a few
milliseconds (``POST /slots/0?action=save|restore``, files under the server's
``slot_save_path``); a restored slot lets the next request process only what
differs from the cached tokens, the task message::

    cold, no file:     system + task processed (~5-12 s), then the slot saved (~10 ms + hash)
    cold, with file:   slot restored (~5 ms), only the task processed (~1 s)

Files are keyed by the model file, the runtime's version, the context size and
a hash of the prefix (the system message), so a changed prompt or model
never restores a stale cache; it just misses. llama.cpp aborts the whole
process on a truncated file (``GGML_ASSERT(nread <= state_size)``: in-process,
that would kill ``serve``), so every file has a manifest with its size and
SHA-256, written after it, and a file that does not match is deleted, never
restored. Any error means "no cache": the request then processes the prompt.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
from importlib import metadata
from pathlib import Path
from typing import Any

from bt_executive.llm.serving.llama_http import LlamaHttpError, post_json, server_root
from bt_executive.runtime.paths import cache_dir

log = logging.getLogger(__name__)

SLOT = 0  # the local server runs one slot (n_parallel = 1)
MAX_FILES = 8  # ~17 MB each for SmolLM2; one per distinct system prompt (world, skills), the newest kept
_TIMEOUT_S = 30.0
_CHUNK = 1 << 20


def default_slot_dir() -> Path:
    """``<cache home>/llm_slots``: where the local server may save and restore slots."""
    return cache_dir() / "llm_slots"


def model_identity(gguf: Path, context: int) -> str:
    """What a slot file depends on besides the prompt: the model file, the runtime and the context size."""
    try:
        stat = gguf.stat()
        file_part = f"{gguf.resolve()}:{stat.st_size}:{stat.st_mtime_ns}"
    except OSError:
        file_part = str(gguf)
    try:
        runtime = metadata.version("xllamacpp")
    except metadata.PackageNotFoundError:
        runtime = "unknown"
    return f"{file_part}|xllamacpp {runtime}|n_ctx {context}"


class SlotCache:
    """Save and restore slot 0 of one local server, under file names keyed by model and prompt prefix."""

    def __init__(self, directory: Path, model: str) -> None:
        self.directory = directory
        self.model = model

    def key(self, prefix: str) -> str:
        """The file stem for ``prefix`` (the system message) on this model."""
        return hashlib.sha256(f"{self.model}\n{prefix}".encode()).hexdigest()[:40]

    def has(self, prefix: str) -> bool:
        """Whether a file for ``prefix`` exists that matches its manifest (what ``restore`` would load)."""
        return self._verified(self.key(prefix)) is not None

    def restore(self, api_base: str, prefix: str) -> bool:
        """Load the cached slot for ``prefix`` into the server; False (and nothing loaded) on any miss."""
        key = self.key(prefix)
        name = self._verified(key)
        if name is None:
            return False
        reply = _slot_action(api_base, "restore", name)
        if reply is None or not reply.get("n_restored"):
            self._discard(key)  # the server refused it (another build, a damaged file): rebuild next time
            return False
        log.info("restored %s prompt tokens of the local model from %s", reply["n_restored"], name)
        return True

    def save(self, api_base: str, prefix: str) -> bool:
        """Write the server's slot (whose tokens start with ``prefix``) to the cache; False on any failure."""
        key = self.key(prefix)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError:
            return False
        partial = f"{key}.{os.getpid()}.part"
        reply = _slot_action(api_base, "save", partial)
        if reply is None or not reply.get("n_saved"):
            self._unlink(self.directory / partial)
            return False
        try:
            size, digest = _digest(self.directory / partial)
            (self.directory / partial).replace(self.directory / f"{key}.bin")
            manifest = self.directory / f"{key}.{os.getpid()}.json.part"
            manifest.write_text(json.dumps({"size": size, "sha256": digest, "tokens": reply["n_saved"]}))
            manifest.replace(self.directory / f"{key}.json")  # last: a file without its manifest is never loaded
        except OSError:
            self._unlink(self.directory / partial)
            return False
        self._prune()
        return True

    def _prune(self) -> None:
        """Keep the newest ``MAX_FILES`` slot files: a long-lived serve over changing worlds must not fill the disk."""
        try:
            files = sorted(self.directory.glob("*.bin"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        except OSError:
            return
        for old in files[MAX_FILES:]:
            self._discard(old.stem)

    def _verified(self, key: str) -> str | None:
        """The slot file's name when its size and SHA-256 match its manifest; a mismatch is deleted."""
        data, manifest = self.directory / f"{key}.bin", self.directory / f"{key}.json"
        try:
            expected: Any = json.loads(manifest.read_text())
            size, digest = _digest(data)
        except (OSError, ValueError):
            return None
        if not isinstance(expected, dict) or (expected.get("size"), expected.get("sha256")) != (size, digest):
            log.warning("ignoring the local model's slot cache %s: it does not match its manifest", data)
            self._discard(key)
            return None
        return data.name

    def _discard(self, key: str) -> None:
        for suffix in (".json", ".bin"):
            self._unlink(self.directory / f"{key}{suffix}")

    @staticmethod
    def _unlink(path: Path) -> None:
        with contextlib.suppress(OSError):
            path.unlink()


def _digest(path: Path) -> tuple[int, str]:
    sha = hashlib.sha256()
    size = 0
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            sha.update(chunk)
            size += len(chunk)
    return size, sha.hexdigest()


def _slot_action(api_base: str, action: str, filename: str) -> dict[str, Any] | None:
    """``POST /slots/0?action=...`` on the server behind ``api_base``; its JSON answer, or None on any error."""
    url = f"{server_root(api_base)}/slots/{SLOT}?action={action}"
    try:
        answer = post_json(url, {"filename": filename}, _TIMEOUT_S)
    except LlamaHttpError as err:
        log.debug("slot %s of %s failed: %s", action, filename, err)
        return None
    return answer if isinstance(answer, dict) else None
