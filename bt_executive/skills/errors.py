"""The one error type skill loading raises, and the problems it carries.

Every problem names the file, the field path inside it and the reason, so a
robot integrator can fix a bad manifest without reading Python tracebacks.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one file: where, which field, and why."""

    source: str
    field: str
    reason: str

    def __str__(self) -> str:
        return f"{self.source}: {self.field}: {self.reason}"


class ManifestError(Exception):
    """A skill manifest, robot profile or other config file was refused."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        if not self.problems:
            raise ValueError("ManifestError needs at least one problem")
        super().__init__("\n".join(str(p) for p in self.problems))

    @classmethod
    def single(cls, source: str, field: str, reason: str) -> ManifestError:
        """An error with one problem."""
        return cls([Problem(source, field, reason)])
