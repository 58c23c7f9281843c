"""The skill manifest: what a skill is, as data.

One manifest describes one skill: what it does (description, action verbs,
objects, scenes), how it is called (a JSON Schema of its arguments), what it
assumes and achieves (preconditions and effects), how it fails (failure
kinds, recovery overrides, timeout) and how it is reached (a ROS 2 action or
a VLA policy). Manifests are YAML; validating one runs no code, and no field
names Python code: an action type is a ROS interface name, a policy is the
name of an installed entry point or a websocket URL.
"""

from __future__ import annotations

import functools
import re
import string
from enum import StrEnum
from typing import Annotated, Any, Self, TypeVar

from jsonschema.exceptions import best_match
from jsonschema.protocols import Validator
from jsonschema.validators import Draft202012Validator, validator_for
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from bt_executive.skills.failures import FailureKind
from bt_executive.skills.predicates import PredicateText
from bt_executive.skills.strategy import RecoveryStrategy
from bt_executive.skills.text_rules import Line, Text
from bt_executive.skills.vla_robot_binding import VlaRobotBinding

SKILL_ID_PATTERN = r"^[a-z0-9][a-z0-9_\-]{0,63}/[a-z0-9][a-z0-9_\-]{0,63}$"
"""``owner/name``: lower-case, so ids compare and slug the same everywhere."""

_KEYWORD = r"^[A-Za-z0-9][A-Za-z0-9 _\-]{0,63}$"
_CAPABILITY = r"^[a-z][a-z0-9_]*(:[a-z0-9_\-]+)?$"
_ROS_ACTION_TYPE = r"^[a-z][a-z0-9_]*/action/[A-Z][A-Za-z0-9]*$"
_ROS_NAME = r"^~?/?[A-Za-z_][A-Za-z0-9_]*(/[A-Za-z_][A-Za-z0-9_]*)*$"
_GOAL_FIELD = r"^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)*$"
_GOAL_SOURCE = r"^(\$skill|\$args_json|\$prompt|[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*)$"
_POLICY_NAME = r"^[a-z][a-z0-9_\-]{0,63}$"
_POLICY_ENDPOINT = r"^wss?://[A-Za-z0-9.\-\[\]:]+(:[0-9]{1,5})?(/[A-Za-z0-9_\-./]*)?$"
_SEMVER = r"^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.\-]+)?$"


class SkillKind(StrEnum):
    """How a skill runs: a ROS 2 action server, a VLA policy loop, or code in the executive."""

    ROS_ACTION = "ros_action"
    VLA = "vla"
    BUILTIN = "builtin"


class ActionVerb(StrEnum):
    """The closed verb vocabulary routers and robot profiles filter on."""

    PICK = "PICK"
    PLACE = "PLACE"
    PICK_AND_PLACE = "PICK_AND_PLACE"
    TRANSFER = "TRANSFER"
    GRASP = "GRASP"
    RELEASE = "RELEASE"
    OPEN = "OPEN"
    CLOSE = "CLOSE"
    PUSH = "PUSH"
    PULL = "PULL"
    SLIDE = "SLIDE"
    INSERT = "INSERT"
    POUR = "POUR"
    WIPE = "WIPE"
    ROTATE = "ROTATE"
    REACH = "REACH"
    NAVIGATE = "NAVIGATE"
    WAVE = "WAVE"
    SHAKE = "SHAKE"
    INSPECT = "INSPECT"
    GENERALIST = "GENERALIST"


class Role(StrEnum):
    """What a parameter is in a sentence, so a planner fills it from the right words of a task."""

    OBJECT = "object"  # the thing acted on: "open THE FRONT DOOR"
    DESTINATION = "destination"  # where the thing goes: "put it IN THE BIN"
    DIRECTION = "direction"  # "push it LEFT"
    QUANTITY = "quantity"  # a number with the unit the schema states: "10 CM", "TWICE"
    PLACE = "place"  # a place or region the robot goes to or works in: "go to THE KITCHEN"
    PERSON = "person"  # "hand it to THE OPERATOR"


ROLE_BY_NAME: dict[str, Role] = {
    "object": Role.OBJECT,
    "target": Role.DESTINATION,
    "direction": Role.DIRECTION,
    "location": Role.PLACE,
    "person": Role.PERSON,
}
"""The role a parameter of this name has when its manifest states none (the usual names)."""

_VERB_PHRASE = r"^[a-z][a-z' \-]{0,47}$"


class SkillLanguage(BaseModel):
    """How people ask for a skill: its own verb phrases beside its ``actions``, and each parameter's role.

    Data, read by the grammar planner to choose a skill for a clause; a user's new skill is planned
    without a code change. A parameter with no role here gets one from its name (``object``,
    ``target`` ...), see ``SkillManifest.roles``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    phrases: tuple[Annotated[str, Field(pattern=_VERB_PHRASE)], ...] = Field(
        default=(), description="verb phrases that start a request for this skill, e.g. 'turn off', 'photograph'"
    )
    roles: dict[str, Role] = Field(
        default_factory=dict,
        description="parameter name (a nested one as 'grasp.approach_height') -> its role in a sentence",
    )


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("description must not be blank")
    return value


Description = Annotated[Text, AfterValidator(_not_blank)]
"""A description routers and planners read: it must say something, in text without control characters."""

Keyword = Annotated[str, Field(pattern=_KEYWORD)]
Capability = Annotated[str, Field(pattern=_CAPABILITY)]


_T = TypeVar("_T")


def _unique(items: tuple[_T, ...]) -> tuple[_T, ...]:
    seen: set[_T] = set()
    for item in items:
        if item in seen:
            raise ValueError(f"duplicate entry {item!r}")
        seen.add(item)
    return items


@functools.cache
def _metaschema_validator(cls: type[Validator]) -> Validator:
    """One validator per JSON Schema draft, reused: building one costs more than a check."""
    meta_cls = validator_for(cls.META_SCHEMA, default=cls)
    return meta_cls(cls.META_SCHEMA, format_checker=cls.FORMAT_CHECKER)


def check_parameter_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Refuse a parameter schema that is not a valid, self-contained object schema."""
    if not isinstance(schema.get("$schema", ""), str):  # jsonschema would crash looking it up
        raise ValueError("$schema must be a string naming a JSON Schema dialect")
    cls = validator_for(schema, default=Draft202012Validator)
    err = best_match(_metaschema_validator(cls).iter_errors(schema))
    if err is not None:
        where = "".join(f"/{p}" for p in err.absolute_path) or "(root)"
        raise ValueError(f"not a valid JSON Schema at {where}: {err.message}")
    if schema.get("type") != "object":
        raise ValueError("the arguments are a mapping, so the schema needs type: object")
    _refuse_remote_refs(schema, "")
    return schema


def _refuse_remote_refs(node: Any, path: str) -> None:
    """A ``$ref`` outside the schema would be fetched at validation time: refuse it."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and not ref.startswith("#"):
            raise ValueError(f"$ref {ref!r} at {path or '(root)'} points outside the schema")
        for key, value in node.items():
            _refuse_remote_refs(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            _refuse_remote_refs(value, f"{path}/{index}")


def _check_template(template: str) -> str:
    """Prompt templates may only name plain fields: no attribute or index access."""
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
    except ValueError as err:
        raise ValueError(f"bad prompt template: {err}") from None
    for name in fields:
        if not name.isidentifier():
            raise ValueError(f"template field {{{name}}} must be a plain name like {{object}}")
    return template


class RosBinding(BaseModel):
    """How a ``ros_action`` skill is reached: the action, and how a call becomes its goal.

    ``default_goal`` holds the goal parameters a call's arguments are merged
    over (see ``parameters.merge_goal``); ``field_mapping`` says which goal
    field each merged value fills: ``$skill`` (the skill id), ``$args_json``
    (all merged arguments as JSON), ``$prompt``, or an argument path.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    action_type: str = Field(
        pattern=_ROS_ACTION_TYPE,
        description="ROS interface name, e.g. bt_executive_interfaces/action/RunSkill",
    )
    action_name: str = Field(pattern=_ROS_NAME, description="action name, relative to the namespace")
    default_goal: dict[str, Any] = Field(default_factory=dict)
    field_mapping: dict[Annotated[str, Field(pattern=_GOAL_FIELD)], Annotated[str, Field(pattern=_GOAL_SOURCE)]] = (
        Field(
            default_factory=dict,
        )
    )


class VlaBinding(BaseModel):
    """How a ``vla`` skill is reached: a policy, the prompt it gets, and the loop's limits."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    policy: str | None = Field(
        default=None,
        pattern=_POLICY_NAME,
        description="name of an installed bt_executive.policies entry point",
    )
    endpoint: str | None = Field(
        default=None,
        pattern=_POLICY_ENDPOINT,
        description="policy server speaking the openpi websocket protocol",
    )
    prompt_template: Annotated[Line, AfterValidator(_check_template)] = Field(
        default="{prompt}",
        min_length=1,
        max_length=500,
    )
    control_rate_hz: float = Field(default=10.0, gt=0.0, le=1000.0)
    step_limit: int = Field(default=300, ge=1, le=100_000)
    replan_steps: int = Field(default=5, ge=1, le=1000, description="re-query the policy every N actions")
    success_check: PredicateText | None = None
    robot: VlaRobotBinding = Field(
        default_factory=VlaRobotBinding,
        description="the robot's ROS 2 topics, joints, action space and staleness bound (defaults: the sim)",
    )

    @model_validator(mode="after")
    def _one_transport(self) -> Self:
        if (self.policy is None) == (self.endpoint is None):
            raise ValueError("give exactly one of policy (an entry point name) or endpoint (ws:// URL)")
        return self


_BINDING_BLOCKS: dict[str, tuple[SkillKind, str]] = {
    "ros": (SkillKind.ROS_ACTION, "action_type, action_name"),
    "vla": (SkillKind.VLA, "policy or endpoint, prompt_template"),
}
"""Each binding block of a manifest: the one kind that needs it (no other kind may have it), and what it holds."""


class SkillManifest(BaseModel):
    """Everything the executive, planners and routers know about one skill."""

    model_config = ConfigDict(frozen=True, extra="forbid", title="SkillManifest")

    id: str = Field(pattern=SKILL_ID_PATTERN, description="owner/name")
    version: str = Field(default="0.1.0", pattern=_SEMVER)
    description: Description = Field(min_length=1, max_length=500)
    kind: SkillKind
    actions: Annotated[tuple[ActionVerb, ...], AfterValidator(_unique)] = Field(min_length=1)
    objects: tuple[Keyword, ...] = ()
    scenes: tuple[Keyword, ...] = ()
    parameters: dict[str, Any] | None = Field(
        default=None,
        validate_default=True,
        description="JSON Schema of the call arguments (type: object)",
    )
    preconditions: tuple[PredicateText, ...] = ()
    effects: tuple[PredicateText, ...] = ()
    failure_kinds: Annotated[tuple[FailureKind, ...], AfterValidator(_unique)] = ()
    recovery: dict[FailureKind, RecoveryStrategy] = Field(default_factory=dict)
    timeout_s: float = Field(default=30.0, gt=0.0, le=3600.0)
    requires: tuple[Capability, ...] = ()
    language: SkillLanguage = Field(default_factory=SkillLanguage, description="how people ask for this skill")
    ros: RosBinding | None = Field(default=None, validate_default=True)
    vla: VlaBinding | None = Field(default=None, validate_default=True)

    @field_validator("parameters")
    @classmethod
    def _parameters_fit_kind(cls, value: dict[str, Any] | None, info: ValidationInfo) -> dict[str, Any] | None:
        if value is None:
            if info.data.get("kind") in (SkillKind.ROS_ACTION, SkillKind.BUILTIN):
                raise ValueError("required for ros_action and builtin skills (only prompt-only VLA skills omit it)")
            return None
        return check_parameter_schema(value)

    @field_validator("ros", "vla")
    @classmethod
    def _binding_fits_kind(
        cls, value: RosBinding | VlaBinding | None, info: ValidationInfo
    ) -> RosBinding | VlaBinding | None:
        block = str(info.field_name)
        owner, contents = _BINDING_BLOCKS[block]
        kind = info.data.get("kind")
        if kind is owner and value is None:
            raise ValueError(f"a {owner.value} skill needs a {block} block ({contents})")
        if kind is not None and kind is not owner and value is not None:
            raise ValueError(f"a {kind.value} skill must not have a {block} block")
        return value

    @model_validator(mode="after")
    def _roles_name_parameters(self) -> Self:
        props = self.parameter_names()
        for param in self.language.roles:
            if param not in props and not ("." in param and self.parameter_schema(param)):
                raise ValueError(f"language.roles names {param!r}, which is not a parameter ({', '.join(props)})")
        return self

    def roles(self) -> dict[str, Role]:
        """Each parameter's role: as ``language.roles`` says, else from its name, else none."""
        stated = dict(self.language.roles)
        for param in self.parameter_names():
            if param not in stated and (role := ROLE_BY_NAME.get(param)) is not None:
                stated[param] = role
        return stated

    def phrases(self) -> tuple[str, ...]:
        """The verb phrases that ask for this skill: ``language.phrases``, each "<verb> a <noun> of" also said
        without its object ("snap a photo there": where the robot is, or what it just went to) and with "one"
        for "a" ("snap one photo of"), and the skill's name when it has words joined by "_" ("read_label
        label_l4": engineers call a skill by its name); "pick" alone stays a verb of the lexicon, which every
        skill that picks may serve."""
        return _phrases_said(self.id, self.language.phrases)

    def parameter_schema(self, param: str) -> dict[str, Any]:
        """The JSON Schema of one parameter ({} when absent); "grasp.approach_height" is a property of an object
        parameter (``language.roles`` may give one a role: "with an approach height of 5 cm")."""
        schema: Any = self.parameters or {}
        for name in param.split("."):
            props = schema.get("properties", {}) if isinstance(schema, dict) else {}
            schema = props.get(name) if isinstance(props, dict) else None
        return schema if isinstance(schema, dict) else {}

    @property
    def name(self) -> str:
        """The part of the id after the owner, e.g. ``pick``."""
        return self.id.split("/", 1)[1]

    def parameter_names(self) -> tuple[str, ...]:
        """Top-level argument names, in schema order."""
        props = (self.parameters or {}).get("properties", {})
        return tuple(props) if isinstance(props, dict) else ()


_A_NOUN_OF = re.compile(r"^(?P<verb>.+?) (?:a|an) (?P<noun>[a-z]+) of$")


@functools.cache
def _phrases_said(skill_id: str, phrases: tuple[str, ...]) -> tuple[str, ...]:
    said = dict.fromkeys(phrases)
    for phrase in phrases:
        found = _A_NOUN_OF.match(phrase)
        if found is not None:
            one = f"{found['verb']} one {found['noun']}"
            said.update(dict.fromkeys((phrase.rsplit(" of", 1)[0], f"{one} of", one)))
    name = skill_id.rsplit("/", 1)[-1]
    if "_" in name:
        said[name] = None
    return tuple(said)
