"""What the fake skill server is told to do, and what it records: the files between a test and its process.

The fake server (``python -m bt_executive.testing.fake_skill_server``) runs
in a process of its own, so a test can kill it like a crashed robot driver,
and so its Python work never shares the test's GIL. It talks to the test
through three files in a work directory, the simplest channel that survives
the server dying mid-write:

- ``config.json`` (``FakeServerConfig``): domain, namespace, the action names
  it serves; read once at start.
- ``script.json`` (``FakeServerScript``): per action name, a queue of
  ``Outcome``\\ s for the next goals and a default for the rest. The test may
  rewrite it at any time (atomically: write, then rename); the server
  re-reads it when it changes, and a new ``version`` restarts that action's
  queue.
- ``record.jsonl``: one ``RecordedEvent`` per line, appended and flushed as
  things happen (``ready``, ``goal``, ``rejected``, ``cancel``, ``canceled``,
  ``result``, ``crash``). A line is complete or absent, never half there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

CONFIG_FILE = "config.json"
SCRIPT_FILE = "script.json"
RECORD_FILE = "record.jsonl"
LOG_FILE = "server.log"

EventKind = Literal["ready", "goal", "rejected", "cancel", "canceled", "result", "crash"]


class Outcome(BaseModel):
    """How the fake server answers one goal.

    Success by default; ``failure_kind`` makes it a failure of that kind (any
    string, so a test can also send kinds the taxonomy does not know).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    failure_kind: str | None = Field(default=None, description="None: success")
    reason: str = ""
    detail: str = ""
    evidence: dict[str, JsonValue] = Field(default_factory=dict)
    delay_s: float = Field(default=0.0, ge=0.0, description="how long the goal runs before its result")
    feedback_hz: float = Field(default=10.0, ge=0.0, description="0: no feedback at all")
    feedback_count: int | None = Field(default=None, ge=0, description="stop publishing after this many")
    reject: bool = False
    hang: bool = Field(default=False, description="never finish (feedback goes on) until cancelled")
    crash_after_s: float | None = Field(
        default=None, ge=0.0, description="os._exit the process this far into a goal still running (hang, or delay_s)"
    )
    status: Literal["succeeded", "aborted"] | None = Field(
        default=None, description="terminal goal status; None: succeeded for a success, aborted for a failure"
    )
    empty_result: bool = Field(default=False, description="send a default Result(): a status without a payload")


class ActionScript(BaseModel):
    """Outcomes for one action name: ``queue`` for the next goals in order, then ``default``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    queue: tuple[Outcome, ...] = ()
    default: Outcome = Field(default_factory=Outcome)


class FakeServerScript(BaseModel):
    """The whole script file; ``version`` changes on every write."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int = 0
    actions: dict[str, ActionScript] = Field(default_factory=dict)


class FakeServerConfig(BaseModel):
    """How the server process starts."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    domain_id: int = Field(ge=0, le=232)
    namespace: str = "/"
    node_name: str = "fake_skill_server"
    actions: tuple[str, ...] = Field(min_length=1)
    result_timeout_s: int = Field(default=2, ge=1, description="how long finished goals are kept (keep it small)")
    threads: int = Field(default=16, ge=2, description="executor threads: each running goal holds one")
    workdir: Path


class RecordedEvent(BaseModel):
    """One line of the record."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    event: EventKind
    t: float = Field(description="time.time() when it happened (comparable across processes)")
    action: str = ""
    goal_id: str = Field(default="", description="hex of the goal UUID (empty for rejected goals)")
    skill_id: str = ""
    args: JsonValue = None
    prompt: str = ""
    status: str = ""
