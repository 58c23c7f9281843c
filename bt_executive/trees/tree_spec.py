"""The hand-written tree format, as pydantic models: what a YAML routine may say, checked before anything is built.

::

    # config/trees/home_then_pick.yaml
    description: Move the arm home, then pick up the red cube (up to three tries) and check it is held.
    root:
      sequence:
        name: Home, then pick the red cube
        children:
          - skill: tabletop/home
          - retry:
              attempts: 3
              child: {skill: tabletop/pick, args: {object: red_cube}}
          - condition: holding(red_cube)

A node is a mapping with exactly one *kind key*. Composites and decorators
nest their fields under it (``retry: {attempts, child}``), so an error path
reads ``root.children[1].retry.attempts``; leaves put their main value there
and their other fields beside it (``skill: tabletop/pick`` with ``args``,
``prompt``, ``name``; ``condition: holding(x)`` with ``name``), the way a
BehaviorTree.CPP XML element names its node type. Every node may have a
``name``; without one the loader gives it a readable default.

=============  ==========================================  =============================================
kind           fields                                      py_trees behaviour
=============  ==========================================  =============================================
sequence       children, memory (default true), name       ``composites.Sequence``
selector       children, memory (default true), name       ``composites.Selector`` (a fallback)
parallel       children, policy, name                      ``composites.Parallel``: success_on_all
                                                           (synchronised) or success_on_one
retry          attempts >= 1, child, name                  ``decorators.Retry``: up to ``attempts`` runs
timeout        seconds > 0, child, name                    ``decorators.Timeout``: FAILURE, child halted
inverter       child, name                                 ``decorators.Inverter``
repeat         count >= 1, child, name                     ``decorators.Repeat``: ``count`` successes
condition      a predicate over world state, name          ``WorldCondition``: SUCCESS iff it holds now
skill          skill id, args, prompt, name                the skill's leaf (ROS action, VLA, builtin)
=============  ==========================================  =============================================

``memory: true`` (the default) means a child that already ended is not
ticked again until the composite restarts, what a fixed routine wants;
``memory: false`` re-checks earlier children every tick (reactive).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    JsonValue,
    Tag,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema

from bt_executive.skills.errors import ManifestError, Problem
from bt_executive.skills.loader import format_field_path, problems_from_validation
from bt_executive.skills.manifest import SKILL_ID_PATTERN
from bt_executive.skills.predicates import PredicateText

NODE_KINDS: tuple[str, ...] = (
    "sequence",
    "selector",
    "parallel",
    "retry",
    "timeout",
    "inverter",
    "repeat",
    "condition",
    "skill",
)
"""The kind keys, one of which every node mapping holds."""

_INVALID = "<invalid>"
NodeName = Annotated[str, Field(min_length=1, max_length=120)]


def _some_children(children: tuple[Any, ...]) -> tuple[Any, ...]:
    # An after-validator, not min_length: pydantic would also report "too short" when a child is invalid.
    if not children:
        raise ValueError("a composite needs at least one child")
    return children


Children = Annotated[tuple["Node", ...], AfterValidator(_some_children), Field(json_schema_extra={"minItems": 1})]


class _Spec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CompositeFields(_Spec):
    """A sequence's or selector's fields."""

    name: NodeName | None = None
    memory: bool = Field(default=True, description="true: a child that ended is not ticked again until restart")
    children: Children


class ParallelFields(_Spec):
    """A parallel's fields."""

    name: NodeName | None = None
    policy: Literal["success_on_all", "success_on_one"] = "success_on_all"
    children: Children


class RetryFields(_Spec):
    """A retry decorator's fields: run the child up to ``attempts`` times until it succeeds."""

    name: NodeName | None = None
    attempts: int = Field(ge=1, le=100)
    child: Node


class TimeoutFields(_Spec):
    """A timeout decorator's fields: the child fails (and is halted) after ``seconds``."""

    name: NodeName | None = None
    seconds: float = Field(gt=0.0, le=24 * 3600.0)
    child: Node


class InverterFields(_Spec):
    """An inverter's fields: SUCCESS and FAILURE swap."""

    name: NodeName | None = None
    child: Node


class RepeatFields(_Spec):
    """A repeat decorator's fields: run the child until it has succeeded ``count`` times (a failure ends it)."""

    name: NodeName | None = None
    count: int = Field(ge=1, le=10_000)
    child: Node


class SequenceNode(_Spec):
    """``sequence: {...}``: children in order until one fails."""

    sequence: CompositeFields


class SelectorNode(_Spec):
    """``selector: {...}``: children in order until one succeeds (a fallback)."""

    selector: CompositeFields


class ParallelNode(_Spec):
    """``parallel: {...}``: every child ticked every tick."""

    parallel: ParallelFields


class RetryNode(_Spec):
    """``retry: {attempts, child}``."""

    retry: RetryFields


class TimeoutNode(_Spec):
    """``timeout: {seconds, child}``."""

    timeout: TimeoutFields


class InverterNode(_Spec):
    """``inverter: {child}``."""

    inverter: InverterFields


class RepeatNode(_Spec):
    """``repeat: {count, child}``."""

    repeat: RepeatFields


class ConditionNode(_Spec):
    """``condition: holding(red_cube)``: SUCCESS when the predicate holds on the latest world state."""

    condition: PredicateText
    name: NodeName | None = None


class SkillNode(_Spec):
    """``skill: owner/name`` with ``args`` (checked against the skill's schema at load) and ``prompt``."""

    skill: str = Field(
        description="a skill id from the registry, e.g. tabletop/pick",
        json_schema_extra={"pattern": SKILL_ID_PATTERN},  # checked by _skill_id, with a clearer message
    )
    args: dict[str, JsonValue] = Field(default_factory=dict)
    prompt: str | None = Field(default=None, min_length=1, max_length=2000)
    name: NodeName | None = None

    @field_validator("skill")
    @classmethod
    def _skill_id(cls, value: str) -> str:
        if not re.match(SKILL_ID_PATTERN, value):
            raise ValueError(f"{value!r} is not a skill id; expected owner/name, e.g. tabletop/pick")
        return value


class _InvalidNode(_Spec):
    """Stands in for a mapping with no kind key, or several: its only job is the error message."""

    @model_validator(mode="before")
    @classmethod
    def _refuse(cls, data: Any) -> Any:
        listed = ", ".join(NODE_KINDS)
        if not isinstance(data, dict):
            raise ValueError(f"a tree node is a mapping with one of the keys {listed}; got {type(data).__name__}")
        found = [k for k in NODE_KINDS if k in data]
        if found:
            raise ValueError(f"a node has exactly one kind key; this one has {', '.join(found)}")
        keys = ", ".join(sorted(str(k) for k in data)) or "none"
        raise ValueError(f"a tree node needs one of the keys {listed} (it has {keys})")


def _node_kind(data: Any) -> str:
    """The discriminator: the one kind key present, else the invalid stand-in."""
    if isinstance(data, BaseModel):
        found = [k for k in NODE_KINDS if k in type(data).model_fields]
        return f"<{found[0]}>" if len(found) == 1 else _INVALID
    if isinstance(data, dict):
        found = [k for k in NODE_KINDS if k in data]
        if len(found) == 1:
            return f"<{found[0]}>"
    return _INVALID


Node = Annotated[
    Annotated[SequenceNode, Tag("<sequence>")]
    | Annotated[SelectorNode, Tag("<selector>")]
    | Annotated[ParallelNode, Tag("<parallel>")]
    | Annotated[RetryNode, Tag("<retry>")]
    | Annotated[TimeoutNode, Tag("<timeout>")]
    | Annotated[InverterNode, Tag("<inverter>")]
    | Annotated[RepeatNode, Tag("<repeat>")]
    | Annotated[ConditionNode, Tag("<condition>")]
    | Annotated[SkillNode, Tag("<skill>")]
    | SkipJsonSchema[Annotated[_InvalidNode, Tag(_INVALID)]],
    Discriminator(_node_kind),
]
"""Any tree node; which one is decided by its kind key (tags in ``<>`` never show in error paths)."""

CompositeFields.model_rebuild()
ParallelFields.model_rebuild()
RetryFields.model_rebuild()
TimeoutFields.model_rebuild()
InverterFields.model_rebuild()
RepeatFields.model_rebuild()


class TreeSpec(_Spec):
    """A whole hand-written tree: an optional description and its root node."""

    model_config = ConfigDict(frozen=True, extra="forbid", title="BehaviourTree")

    description: str | None = Field(default=None, max_length=2000)
    root: Node


def parse_tree_spec(data: Any, source: str) -> TreeSpec:
    """Validate a tree mapping; ManifestError naming ``source`` and each bad path (``root.children[2]...``)."""
    try:
        return TreeSpec.model_validate(data)
    except ValidationError as err:
        problems = [Problem(p.source, _without_tags(p.field), p.reason) for p in problems_from_validation(err, source)]
        raise ManifestError(problems) from None
    except RecursionError:
        raise ManifestError.single(source, "root", "nested too deeply") from None


def _without_tags(field: str) -> str:
    """Drop the union tags pydantic puts in error paths: ``root.<retry>.retry.attempts`` -> ``root.retry.attempts``."""
    parts: list[int | str] = []
    for part in field.replace("[", ".[").split("."):
        if not part or (part.startswith("<") and part.endswith(">")):
            continue
        parts.append(int(part[1:-1]) if part.startswith("[") else part)
    return format_field_path(tuple(parts))


def node_kind(node: BaseModel) -> str:
    """The kind key of a validated node, e.g. ``retry``."""
    return _node_kind(node).strip("<>")
