"""The policy protocol a VLA skill drives: an observation in, a chunk of actions out.

::

    policy.reset("put the blue cube in the bowl")      # a new episode
    chunk = policy.infer(PolicyObservation(images={"front": rgb, "wrist": rgb},
                                           state=q_and_gripper, prompt=...))
    chunk.shape == (T, action_dim)                     # T actions, one per control period

A ``Policy`` is reached one of two ways, never through code a manifest names:

- in process: an installed entry point of the ``bt_executive.policies``
  group, ``oracle = bt_executive.sim.oracle_policy:OraclePolicy``, whose
  object is called with no arguments to make the policy (``load_policy``);
- over the network: ``policy_client.PolicyClient`` speaking openpi's
  websocket protocol to ``bt-executive policy-server`` or a real openpi
  server on a GPU box.

On the wire an observation is the flat dict openpi's examples use:
``observation/<camera>_image`` (HxWx3 uint8) per camera,
``observation/state`` (joint positions then the gripper), ``prompt``, and,
only when a simulator fills it, ``privileged`` (JSON-like ground truth an
oracle may read; a learned policy ignores it).
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

POLICY_GROUP = "bt_executive.policies"
"""Entry-point group of in-process policies."""

ActionChunk = npt.NDArray[np.float64]
"""A (T, action_dim) array: T consecutive actions, one per control period."""

_IMAGE_PREFIX = "observation/"
_IMAGE_SUFFIX = "_image"
STATE_KEY = "observation/state"
PROMPT_KEY = "prompt"
PRIVILEGED_KEY = "privileged"


class PolicyError(RuntimeError):
    """The policy failed: it raised, its server sent a traceback, the connection dropped, or its output is bad.

    ``detail`` carries what a human needs (a server's traceback text, say);
    the VLA leaf reports it as ``policy_error``.
    """

    def __init__(self, message: str, *, reason: str = "policy_raised", detail: str = "") -> None:
        super().__init__(message)
        self.reason = reason
        self.detail = detail or message


class PolicyNotFound(PolicyError):
    """No installed ``bt_executive.policies`` entry point has that name."""


@dataclass(frozen=True)
class PolicyObservation:
    """What a policy sees at one instant: camera frames, proprioception, the instruction."""

    images: Mapping[str, npt.NDArray[np.uint8]]
    """Camera name -> HxWx3 uint8 RGB frame."""
    state: npt.NDArray[np.float64]
    """Proprioception: joint positions (rad), then the gripper (finger gap, m)."""
    prompt: str
    privileged: Mapping[str, Any] = field(default_factory=dict)
    """Ground truth a simulator may add (JSON-like values) for oracle policies; empty on a robot."""

    def to_wire(self) -> dict[str, Any]:
        """The openpi-style flat dict sent to a policy server."""
        wire: dict[str, Any] = {f"{_IMAGE_PREFIX}{name}{_IMAGE_SUFFIX}": image for name, image in self.images.items()}
        wire[STATE_KEY] = np.asarray(self.state, dtype=np.float64)
        wire[PROMPT_KEY] = self.prompt
        if self.privileged:
            wire[PRIVILEGED_KEY] = dict(self.privileged)
        return wire

    @classmethod
    def from_wire(cls, wire: Mapping[str, Any]) -> PolicyObservation:
        """Rebuild an observation from ``to_wire``'s dict; ``PolicyError`` naming the key that is wrong."""
        if not isinstance(wire, Mapping):
            raise PolicyError(f"an observation is a map, got {type(wire).__name__}", reason="bad_observation")
        images: dict[str, npt.NDArray[np.uint8]] = {}
        for key, value in wire.items():
            if isinstance(key, str) and key.startswith(_IMAGE_PREFIX) and key.endswith(_IMAGE_SUFFIX):
                if not (isinstance(value, np.ndarray) and value.dtype == np.uint8 and value.ndim == 3):
                    raise PolicyError(f"{key}: expected an HxWx3 uint8 array", reason="bad_observation")
                images[key[len(_IMAGE_PREFIX) : -len(_IMAGE_SUFFIX)]] = value
        state = wire.get(STATE_KEY)
        if not isinstance(state, np.ndarray) or state.ndim != 1:
            raise PolicyError(f"{STATE_KEY}: expected a 1-D array", reason="bad_observation")
        prompt = wire.get(PROMPT_KEY, "")
        if not isinstance(prompt, str):
            raise PolicyError(f"{PROMPT_KEY}: expected a string", reason="bad_observation")
        privileged = wire.get(PRIVILEGED_KEY) or {}
        if not isinstance(privileged, Mapping):
            raise PolicyError(f"{PRIVILEGED_KEY}: expected a map", reason="bad_observation")
        return cls(images=images, state=state.astype(np.float64), prompt=prompt, privileged=privileged)


@runtime_checkable
class Policy(Protocol):
    """A closed-loop controller: reset per episode, then one action chunk per observation."""

    @property
    def metadata(self) -> Mapping[str, Any]:
        """What the policy says about itself (action dim, horizon, ...); sent to clients on connect."""
        ...

    def reset(self, prompt: str) -> None:
        """Start a new episode with this instruction."""
        ...

    def infer(self, observation: PolicyObservation) -> ActionChunk:
        """The next actions for this observation, shape (T, action_dim); may raise."""
        ...


def check_chunk(chunk: Any, action_dim: int) -> ActionChunk:
    """A policy's output as a finite float (T, action_dim) array, or ``PolicyError`` saying what is wrong."""
    array = np.asarray(chunk, dtype=np.float64) if isinstance(chunk, np.ndarray | list | tuple) else None
    if array is None or array.ndim != 2 or array.shape[0] < 1 or array.shape[1] != action_dim:
        shape = getattr(array, "shape", None) if array is not None else type(chunk).__name__
        raise PolicyError(f"expected an action chunk of shape (T, {action_dim}), got {shape}", reason="bad_actions")
    if not np.all(np.isfinite(array)):
        raise PolicyError("the action chunk holds NaN or infinite values", reason="bad_actions")
    return array


def installed_policies() -> tuple[str, ...]:
    """Names of the installed in-process policies."""
    return tuple(sorted(ep.name for ep in importlib.metadata.entry_points(group=POLICY_GROUP)))


def load_policy(name: str) -> Policy:
    """Make the in-process policy an installed ``bt_executive.policies`` entry point names.

    Only installed entry points are looked at: a name can never become a module path.
    """
    found = importlib.metadata.entry_points(group=POLICY_GROUP, name=name)
    if not found:
        known = ", ".join(installed_policies()) or "none"
        raise PolicyNotFound(
            f"no installed policy {name!r} (entry point group {POLICY_GROUP}; installed: {known})",
            reason="policy_not_installed",
        )
    entry = next(iter(found))
    try:
        policy = entry.load()()
    except Exception as err:
        raise PolicyError(
            f"policy {name!r} ({entry.value}) failed to load: {err}", reason="policy_load_failed"
        ) from err
    if not isinstance(policy, Policy):
        raise PolicyError(f"{entry.value} made a {type(policy).__name__}, which is not a Policy", reason="not_a_policy")
    return policy
