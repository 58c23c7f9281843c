"""The failure taxonomy: the closed set of reasons a skill can fail.

Recovery policies switch on these kinds, so the set is closed and grows only
additively; a new kind is a deliberate change to every policy table, never a
free-form string a skill invents.
"""

from __future__ import annotations

from enum import StrEnum


class FailureKind(StrEnum):
    """Why a skill failed, in words a recovery policy can switch on."""

    NOT_FOUND = "not_found"
    UNREACHABLE = "unreachable"
    MISSED_GRASP = "missed_grasp"
    COLLISION = "collision"
    TIMEOUT = "timeout"
    PREEMPTED = "preempted"
    REJECTED = "rejected"
    SERVER_UNAVAILABLE = "server_unavailable"
    INVALID_PARAMS = "invalid_params"
    PRECONDITION_FAILED = "precondition_failed"
    POSTCONDITION_FAILED = "postcondition_failed"
    POLICY_ERROR = "policy_error"
    ABORTED = "aborted"
    UNKNOWN = "unknown"
    SENSOR_STALE = "sensor_stale"
    """A camera frame or joint state was older than the skill allows, and no fresh one came in time."""
