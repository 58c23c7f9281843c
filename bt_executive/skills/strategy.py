"""Recovery strategies: what a step does about one failure kind.

A strategy is written in YAML either as a short call, ``retry(2)``,
``retry(3, backoff=0.5)``, ``recover(home_then_retry)``, ``replan`` or
``abort``, or as the equivalent mapping. Parsing is a regular expression over
data: no name in a strategy is ever imported or evaluated. ``recover`` names a
recovery subtree that the tree compiler looks up in its own table.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, GetJsonSchemaHandler, model_validator
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

MAX_RETRIES = 10
"""Upper bound on retries per step, so every loop in a tree is bounded."""

_CALL = re.compile(
    r"^\s*(?P<name>[a-z_]+)\s*(?:\(\s*(?P<args>[^()]*?)\s*\))?\s*$",
)
_NAME = r"^[a-z][a-z0-9_]{0,63}$"
_SHORT_FORM = (
    r"^\s*(retry\(\s*[0-9]+\s*(,\s*backoff\s*=\s*[0-9.]+\s*)?\)|recover\(\s*[a-z][a-z0-9_]*\s*\)|replan|abort)\s*$"
)


class StrategyKind(StrEnum):
    """The four things a step can do about a failure."""

    RETRY = "retry"
    RECOVER = "recover"
    REPLAN = "replan"
    ABORT = "abort"


class RecoveryStrategy(BaseModel):
    """One recovery decision: retry n times, run a recovery subtree, replan or abort."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: StrategyKind
    attempts: int = Field(default=0, ge=0, le=MAX_RETRIES)
    backoff_s: float = Field(default=0.0, ge=0.0, le=60.0)
    subtree: str | None = Field(default=None, pattern=_NAME)

    @model_validator(mode="before")
    @classmethod
    def _from_call(cls, value: Any) -> Any:
        """Accept the short call form (``retry(2, backoff=0.5)``) as well as a mapping."""
        if isinstance(value, str):
            return parse_strategy_call(value)
        return value

    @model_validator(mode="after")
    def _fields_match_kind(self) -> Self:
        if self.kind is StrategyKind.RETRY and self.attempts < 1:
            raise ValueError("retry needs attempts >= 1, e.g. retry(2)")
        if self.kind is not StrategyKind.RETRY and (self.attempts or self.backoff_s):
            raise ValueError(f"{self.kind.value} takes no attempts or backoff")
        if self.kind is StrategyKind.RECOVER and self.subtree is None:
            raise ValueError("recover needs a subtree name, e.g. recover(home_then_retry)")
        if self.kind is not StrategyKind.RECOVER and self.subtree is not None:
            raise ValueError(f"{self.kind.value} takes no subtree")
        return self

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        """Document both YAML spellings: the short call and the mapping."""
        mapping = handler(core_schema)
        short = {
            "type": "string",
            "pattern": _SHORT_FORM,
            "description": "retry(N[, backoff=S]) | recover(NAME) | replan | abort",
        }
        return {"anyOf": [short, mapping]}

    def __str__(self) -> str:
        if self.kind is StrategyKind.RETRY:
            backoff = f", backoff={self.backoff_s:g}" if self.backoff_s else ""
            return f"retry({self.attempts}{backoff})"
        if self.kind is StrategyKind.RECOVER:
            return f"recover({self.subtree})"
        return self.kind.value


def parse_strategy_call(text: str) -> dict[str, Any]:
    """Turn ``retry(3, backoff=0.5)`` into the mapping form, or raise ValueError saying why."""
    match = _CALL.match(text)
    if match is None:
        raise ValueError(f"cannot parse strategy {text!r}; expected e.g. retry(2), replan, abort")
    name, raw_args = match.group("name"), match.group("args")
    try:
        kind = StrategyKind(name)
    except ValueError:
        choices = ", ".join(k.value for k in StrategyKind)
        raise ValueError(f"unknown strategy {name!r}; expected one of {choices}") from None
    args = [a.strip() for a in raw_args.split(",")] if raw_args else []
    if kind is StrategyKind.RETRY:
        return _retry_args(text, args)
    if kind is StrategyKind.RECOVER:
        if len(args) != 1:
            raise ValueError(f"{text!r}: recover takes exactly one subtree name")
        return {"kind": kind, "subtree": args[0]}
    if args:
        raise ValueError(f"{text!r}: {kind.value} takes no arguments")
    return {"kind": kind}


def _retry_args(text: str, args: list[str]) -> dict[str, Any]:
    if not 1 <= len(args) <= 2:
        raise ValueError(f"{text!r}: retry takes a count and an optional backoff=SECONDS")
    try:
        attempts = int(args[0])
    except ValueError:
        raise ValueError(f"{text!r}: retry count {args[0]!r} is not an integer") from None
    result: dict[str, Any] = {"kind": StrategyKind.RETRY, "attempts": attempts}
    if len(args) == 2:
        key, _, raw = args[1].partition("=")
        if key.strip() != "backoff" or not raw:
            raise ValueError(f"{text!r}: second argument must be backoff=SECONDS")
        try:
            result["backoff_s"] = float(raw)
        except ValueError:
            raise ValueError(f"{text!r}: backoff {raw!r} is not a number") from None
    return result
