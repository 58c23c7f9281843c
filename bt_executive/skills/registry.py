"""The skill registry: every manifest this robot can use, found without running code.

Manifests come from directories (a bundle directory holding ``skill.yaml``,
or ``*.yaml`` files, searched recursively) and from the ``bt_executive.skills``
entry-point group, where an installed distribution names a *directory* of
manifests inside it (``wave = my_robot_skills.manifests``). The entry point is
located through the import system's finders and never imported, so
installing a skill bundle cannot run code in the executive.

Loading collects every problem before it gives up: ``collect`` reports all
bad files at once, and ``SkillRegistry.discover`` raises one ``ManifestError``
listing them.
"""

from __future__ import annotations

import difflib
import importlib.util
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

from bt_executive.skills.capabilities import RobotCapabilities
from bt_executive.skills.errors import ManifestError, Problem
from bt_executive.skills.knowledge import KNOWLEDGE_FILE
from bt_executive.skills.loader import load_model
from bt_executive.skills.manifest import SkillManifest
from bt_executive.skills.safe_files import resolve_inside

ENTRY_POINT_GROUP = "bt_executive.skills"
BUNDLE_FILE = "skill.yaml"
_SUFFIXES = (".yaml", ".yml")
KNOWLEDGE_REFUSED = (
    "a knowledge skill (SKILL.md) is context for the planner and can never be executed; "
    "load it with bt_executive.skills.knowledge.discover_knowledge, not as a tool skill"
)


@dataclass(frozen=True)
class RegisteredSkill:
    """A manifest and where it came from (a file path, for error messages and `skills list`)."""

    manifest: SkillManifest
    source: str


@dataclass
class LoadReport:
    """Everything found under some paths: the good manifests and every problem."""

    skills: list[RegisteredSkill] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


class UnknownSkill(KeyError):
    """A skill id that is not in the registry; carries close matches for the message."""

    def __init__(self, skill_id: str, suggestions: Sequence[str]) -> None:
        self.skill_id = skill_id
        self.suggestions = tuple(suggestions)
        hint = f"; did you mean {', '.join(self.suggestions)}?" if self.suggestions else ""
        super().__init__(f"unknown skill {skill_id!r}{hint}")

    def __str__(self) -> str:
        return str(self.args[0])


def manifest_files(path: Path) -> Iterator[Path]:
    """The manifest files under ``path``: itself if a file, else bundles and YAML files, sorted.

    A symlinked folder is followed unless it leads outside ``path`` or back
    to a folder above it (a loop): then it is yielded as it is, for
    ``collect`` to refuse by name.
    """
    top = path.resolve() if path.is_dir() else path
    return _manifest_files(path, top, frozenset())


def _manifest_files(path: Path, top: Path, above: frozenset[Path]) -> Iterator[Path]:
    if path.is_file():
        yield path
        return
    bundle = path / BUNDLE_FILE
    if bundle.is_file():
        yield bundle
        return
    if (path / KNOWLEDGE_FILE).is_file():
        # Yielded so that collect() refuses it by name, instead of reading its references/ as manifests.
        yield path / KNOWLEDGE_FILE
        return
    above = above | {path.resolve()}
    for child in sorted(path.iterdir()):
        if child.name.startswith("."):
            continue
        if child.is_dir():
            target = child.resolve()
            if child.is_symlink() and (target in above or not target.is_relative_to(top)):
                yield child
            else:
                yield from _manifest_files(child, top, above)
        elif child.suffix in _SUFFIXES:
            yield child


def _entry_point_dir(ep: EntryPoint) -> Path:
    """Locate the directory an entry point names, without importing (running) anything."""
    if ep.attr:
        raise ValueError(f"must name a package directory (pkg.sub), not an object ({ep.value!r})")
    top, *rest = ep.module.split(".")
    spec = importlib.util.find_spec(top)
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(f"package {top!r} is not installed as a package directory")
    directory = Path(next(iter(spec.submodule_search_locations))).joinpath(*rest)
    if not directory.is_dir():
        raise ValueError(f"{directory} is not a directory")
    return directory


def collect(paths: Iterable[Path], *, use_entry_points: bool = True) -> LoadReport:
    """Load every manifest under ``paths`` (and entry points), keeping every problem."""
    report = LoadReport()
    roots: list[tuple[Path, str | None]] = [(Path(p), None) for p in paths]
    if use_entry_points:
        for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            label = f"entry point {ep.name!r} ({ENTRY_POINT_GROUP})"
            try:
                roots.append((_entry_point_dir(ep), label))
            except (ValueError, ImportError, OSError) as err:
                report.problems.append(Problem(label, "value", str(err)))
    seen: dict[str, str] = {}
    for root, origin in roots:
        if not root.exists():
            why = "does not exist"
            if root.is_symlink():  # a loop, or a link to nothing: say which
                try:
                    resolve_inside(root, root.parent)
                except ManifestError as err:
                    why = err.problems[0].reason
            report.problems.append(Problem(origin or str(root), "(path)", why))
            continue
        for path in manifest_files(root):
            if path.name == KNOWLEDGE_FILE:
                report.problems.append(Problem(str(path), "kind", KNOWLEDGE_REFUSED))
                continue
            if path.is_dir():
                report.problems.append(_folder_problem(path, root))
                continue
            try:
                manifest = load_model(path, SkillManifest, root=root if root.is_dir() else None)
            except ManifestError as err:
                report.problems.extend(err.problems)
                continue
            source = str(path)
            if manifest.id in seen:
                report.problems.append(
                    Problem(source, "id", f"duplicate id {manifest.id!r}: already defined in {seen[manifest.id]}")
                )
                continue
            seen[manifest.id] = source
            report.skills.append(RegisteredSkill(manifest, source))
    return report


def _folder_problem(folder: Path, root: Path) -> Problem:
    """Why a symlinked folder under a skill directory was not followed."""
    try:
        resolve_inside(folder, root, f"the skill directory ({root})")
    except ManifestError as err:
        return err.problems[0]
    return Problem(str(folder), "(file)", f"symlinked folder loops back to {folder.resolve()}, above it; not followed")


class SkillRegistry:
    """The skills a robot can use, by id; built from a LoadReport with no problems."""

    def __init__(self, skills: Iterable[RegisteredSkill], *, robot: RobotCapabilities | None = None) -> None:
        self.robot = robot
        """The robot these skills were chosen for (``available_for``): its calls' choices are checked against it."""
        self._skills: dict[str, RegisteredSkill] = {}
        for skill in skills:
            if skill.manifest.id in self._skills:
                first = self._skills[skill.manifest.id].source
                raise ManifestError.single(skill.source, "id", f"duplicate id {skill.manifest.id!r}: also in {first}")
            self._skills[skill.manifest.id] = skill

    @classmethod
    def discover(cls, paths: Iterable[Path], *, use_entry_points: bool = True) -> SkillRegistry:
        """Load everything under ``paths``; raise one ManifestError listing every problem."""
        report = collect(paths, use_entry_points=use_entry_points)
        if report.problems:
            raise ManifestError(report.problems)
        return cls(report.skills)

    def __len__(self) -> int:
        return len(self._skills)

    def __iter__(self) -> Iterator[SkillManifest]:
        return (self._skills[k].manifest for k in sorted(self._skills))

    def __contains__(self, skill_id: object) -> bool:
        return skill_id in self._skills

    def ids(self) -> tuple[str, ...]:
        """All ids, sorted."""
        return tuple(sorted(self._skills))

    def get(self, skill_id: str) -> SkillManifest:
        """The manifest for ``skill_id``; UnknownSkill (with close matches) if absent."""
        try:
            return self._skills[skill_id].manifest
        except KeyError:
            raise UnknownSkill(skill_id, self.suggest(skill_id)) from None

    def source(self, skill_id: str) -> str:
        """Where the manifest for ``skill_id`` was loaded from."""
        return self._skills[skill_id].source

    def suggest(self, name: str, limit: int = 3) -> list[str]:
        """Ids close to ``name`` (also matching on the part after the owner)."""
        ids = self.ids()
        by_name = {i.split("/", 1)[1]: i for i in ids}
        close = difflib.get_close_matches(name, ids, n=limit, cutoff=0.6)
        close += [by_name[n] for n in difflib.get_close_matches(name.split("/")[-1], list(by_name), n=limit)]
        return list(dict.fromkeys(close))[:limit]

    def without(self, skill_ids: Iterable[str]) -> SkillRegistry:
        """A registry of the same skills less ``skill_ids``."""
        dropped = set(skill_ids)
        return SkillRegistry((s for i, s in sorted(self._skills.items()) if i not in dropped), robot=self.robot)

    def available_for(self, robot: RobotCapabilities) -> tuple[SkillRegistry, dict[str, str]]:
        """The skills ``robot`` can run, and why each other one was left out."""
        kept: list[RegisteredSkill] = []
        excluded: dict[str, str] = {}
        for skill_id in self.ids():
            skill = self._skills[skill_id]
            reason = robot.why_not(skill.manifest)
            if reason is None:
                kept.append(skill)
            else:
                excluded[skill_id] = reason
        return SkillRegistry(kept, robot=robot), excluded
