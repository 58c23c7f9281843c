"""Knowledge skills: facts about this robot or site that the planner reads, never runs.

A tool skill (``SkillManifest``) is something the executor calls; a knowledge
skill is context: "the drawer sticks; pull it slowly", "the plate is
fragile", "the cube by the bowl is the red one". The router selects it like a
tool skill (id, description, objects, scenes), and the planner receives the
selected ones as text beside its palette. It can never reach the executor: it
is a different type, and the registry refuses a ``SKILL.md`` pointed at it.

A bundle is a directory::

    drawer_sticks/
    ├─ SKILL.md          YAML frontmatter between '---' lines, then a markdown body
    └─ references/       optional: more text (.md, .txt, .csv), read as UTF-8

    ---
    name: drawer_sticks                 must match the directory name
    owner: site                         optional; the id is owner/name (default site/...)
    description: The cabinet drawer sticks halfway; pull it slowly ...
    kind: knowledge
    objects: [drawer, cabinet]
    applies_to: [tabletop/open_drawer]
    ---
    Pull at half speed ...

Loading a bundle is reading text: the frontmatter goes through the project's
strict safe YAML loader, and anything that is not small UTF-8 text inside the
bundle (a script folder, a binary file, a symlink that leaves the bundle, an
oversized file) is refused with a ``ManifestError`` naming the file and field.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from bt_executive.skills.errors import ManifestError, Problem
from bt_executive.skills.loader import parse_yaml_mapping, validate_model
from bt_executive.skills.manifest import SKILL_ID_PATTERN, Description, Keyword
from bt_executive.skills.safe_files import read_bounded
from bt_executive.skills.text_rules import Text, control_character_problem

KNOWLEDGE_FILE = "SKILL.md"
REFERENCES_DIR = "references"
REFERENCE_SUFFIXES = (".md", ".markdown", ".txt", ".csv")
"""Plain text only: a reference is read by the model, never opened by a program."""

MAX_SKILL_MD_BYTES = 64 * 1024
MAX_REFERENCE_BYTES = 64 * 1024
MAX_REFERENCES = 32
MAX_BUNDLE_BYTES = 256 * 1024
"""A fact sheet is pages, not megabytes: everything selected may end up in a prompt."""

MAX_REFERENCE_DEPTH = 3

_NAME = r"^[a-z0-9][a-z0-9_\-]{0,63}$"
_FIELD_NAME = r"^[a-z_][a-z0-9_]{0,63}$"
_SEMVER = r"^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.\-]+)?$"

FieldName = Annotated[str, Field(pattern=_FIELD_NAME)]
SkillId = Annotated[str, Field(pattern=SKILL_ID_PATTERN)]


def _unique_ids(values: tuple[str, ...]) -> tuple[str, ...]:
    duplicates = sorted({v for v in values if values.count(v) > 1})
    if duplicates:
        raise ValueError(f"duplicate entry {duplicates[0]!r}")
    return values


class KnowledgeFrontmatter(BaseModel):
    """The fields a ``SKILL.md`` frontmatter may hold (its file format, checked field by field)."""

    model_config = ConfigDict(frozen=True, extra="forbid", title="KnowledgeFrontmatter")

    name: str = Field(pattern=_NAME, description="bundle name; must match the directory name")
    owner: str = Field(default="site", pattern=_NAME, description="owner part of the id (owner/name)")
    version: str = Field(default="0.1.0", pattern=_SEMVER)
    description: Description = Field(
        min_length=1, max_length=500, description="router-precise: what this fact is about"
    )
    kind: Literal["knowledge"]
    inputs: dict[FieldName, Annotated[Text, Field(max_length=200)]] = Field(
        default_factory=dict,
        description="what the fact is keyed on, e.g. {drawer: world-state id of the drawer}",
    )
    outputs: dict[FieldName, Annotated[Text, Field(max_length=200)]] = Field(
        default_factory=dict,
        description="what the fact tells the planner, e.g. {pull_speed: fraction of the default speed}",
    )
    objects: tuple[Keyword, ...] = ()
    scenes: tuple[Keyword, ...] = ()
    applies_to: tuple[SkillId, ...] = Field(default=(), description="tool skill ids this fact is about")

    @field_validator("kind", mode="before")
    @classmethod
    def _knowledge_only(cls, value: Any) -> Any:
        if value != "knowledge":
            raise ValueError(
                f"{value!r}: a SKILL.md bundle is a knowledge skill and needs kind: knowledge "
                "(tool skills are YAML manifests under config/skills)"
            )
        return value

    @field_validator("applies_to")
    @classmethod
    def _applies_once(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _unique_ids(value)


class KnowledgeReference(BaseModel):
    """One text file from a bundle's ``references/`` folder."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str = Field(description="path inside the bundle, e.g. references/pull_test.md")
    text: str


class KnowledgeSkill(BaseModel):
    """A loaded knowledge bundle: routable like a tool skill, handed to the planner as text."""

    model_config = ConfigDict(frozen=True, extra="forbid", title="KnowledgeSkill")

    id: str = Field(pattern=SKILL_ID_PATTERN, description="owner/name")
    version: str = Field(default="0.1.0", pattern=_SEMVER)
    description: str = Field(min_length=1, max_length=500)
    kind: Literal["knowledge"] = "knowledge"
    inputs: dict[str, str] = Field(default_factory=dict)
    outputs: dict[str, str] = Field(default_factory=dict)
    objects: tuple[str, ...] = ()
    scenes: tuple[str, ...] = ()
    applies_to: tuple[str, ...] = ()
    body: str = ""
    references: tuple[KnowledgeReference, ...] = ()
    source: str = Field(description="the SKILL.md it was loaded from")

    @property
    def name(self) -> str:
        """The part of the id after the owner, e.g. ``drawer_sticks``."""
        return self.id.split("/", 1)[1]

    def content_hash(self) -> str:
        """SHA-256 of everything but the source path: a cache key for routing vectors."""
        payload = self.model_dump(mode="json", exclude={"source"})
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode("utf-8")).hexdigest()

    def context_text(self) -> str:
        """The fact as the planner reads it: heading, description, body, then each reference."""
        parts = [f"## {self.id}: {' '.join(self.description.split())}"]
        if self.applies_to:
            parts.append(f"Applies to: {', '.join(self.applies_to)}")
        if self.body:
            parts.append(self.body)
        parts.extend(f"### {ref.path}\n{ref.text.strip()}" for ref in self.references)
        return "\n\n".join(parts)


def load_knowledge(path: Path) -> KnowledgeSkill:
    """Load one bundle (its directory or its SKILL.md), or raise ManifestError listing every problem."""
    path = Path(path)
    bundle = path.parent if path.name == KNOWLEDGE_FILE and not path.is_dir() else path
    skill_md = bundle / KNOWLEDGE_FILE
    if not bundle.is_dir():
        raise ManifestError.single(str(path), "(path)", "not a knowledge bundle directory (one holding SKILL.md)")
    if not (skill_md.is_file() or skill_md.is_symlink()):
        raise ManifestError.single(str(skill_md), "(file)", "missing: a knowledge bundle is a directory with SKILL.md")
    root = bundle.resolve()
    problems: list[Problem] = list(_stray_entries(bundle))
    try:
        text = _read_text(skill_md, root, MAX_SKILL_MD_BYTES)
    except ManifestError as err:
        raise ManifestError([*problems, *err.problems]) from None
    source = str(skill_md)
    skill: KnowledgeSkill | None = None
    try:
        frontmatter, body = split_frontmatter(text, source)
        meta = validate_model(parse_yaml_mapping(frontmatter, source), KnowledgeFrontmatter, source)
        if meta.name not in (root.name, bundle.name):
            problems.append(Problem(source, "name", f"{meta.name!r} must match the bundle directory {bundle.name!r}"))
        # Every frontmatter field but the id's two parts is the skill's field of the same name.
        fields = meta.model_dump(exclude={"owner", "name"})
        skill = KnowledgeSkill(id=f"{meta.owner}/{meta.name}", body=body, source=source, **fields)
    except ManifestError as err:
        problems.extend(err.problems)
    references, ref_problems = _read_references(bundle, root)
    problems.extend(ref_problems)
    if problems or skill is None:
        raise ManifestError(problems)
    return skill.model_copy(update={"references": references})


def discover_knowledge(paths: Iterable[Path]) -> list[KnowledgeSkill]:
    """Every bundle under ``paths`` (bundles, or folders of them), sorted by id; one error lists every problem."""
    skills: dict[str, KnowledgeSkill] = {}
    problems: list[Problem] = []
    for root in paths:
        root = Path(root)
        if not root.exists():
            problems.append(Problem(str(root), "(path)", "does not exist"))
            continue
        for bundle in knowledge_bundles(root):
            try:
                skill = load_knowledge(bundle)
            except ManifestError as err:
                problems.extend(err.problems)
                continue
            if skill.id in skills:
                first = skills[skill.id].source
                problems.append(Problem(skill.source, "name", f"duplicate id {skill.id!r}: already defined in {first}"))
                continue
            skills[skill.id] = skill
    if problems:
        raise ManifestError(problems)
    return [skills[k] for k in sorted(skills)]


def knowledge_bundles(path: Path) -> Iterator[Path]:
    """The bundle directories under ``path`` (itself if it holds SKILL.md); other files are ignored."""
    if path.name == KNOWLEDGE_FILE and not path.is_dir():
        yield path.parent
        return
    if not path.is_dir():
        return
    if (path / KNOWLEDGE_FILE).exists() or (path / KNOWLEDGE_FILE).is_symlink():
        yield path
        return
    for child in sorted(path.iterdir()):
        # Symlinked folders are not followed: a bundle found through one could live anywhere.
        if not child.name.startswith(".") and child.is_dir() and not child.is_symlink():
            yield from knowledge_bundles(child)


def split_frontmatter(text: str, source: str) -> tuple[str, str]:
    """Split SKILL.md text into its YAML frontmatter (with line numbers kept) and its stripped body."""
    lines = text.removeprefix("\ufeff").splitlines(keepends=True)
    if not lines or lines[0].rstrip() != "---":
        raise ManifestError.single(source, "(frontmatter)", "SKILL.md must start with a '---' line, then YAML fields")
    for index in range(1, len(lines)):
        if lines[index].rstrip() == "---":
            # Keep the opening '---' (a YAML document start) so YAML errors report the file's line numbers.
            return "".join(lines[:index]), "".join(lines[index + 1 :]).strip()
    raise ManifestError.single(source, "(frontmatter)", "no closing '---' line after the YAML fields")


def _stray_entries(bundle: Path) -> Iterator[Problem]:
    """Anything beside SKILL.md and references/ is refused: a knowledge bundle carries no scripts or assets."""
    for child in sorted(bundle.iterdir()):
        if child.name.startswith(".") or child.name == KNOWLEDGE_FILE:
            continue
        if child.name == REFERENCES_DIR and child.is_dir():
            continue
        yield Problem(
            str(child),
            "(bundle)",
            f"unexpected {'folder' if child.is_dir() else 'file'}: a knowledge bundle holds only "
            f"{KNOWLEDGE_FILE} and {REFERENCES_DIR}/ (knowledge skills run no code)",
        )


def _read_references(bundle: Path, root: Path) -> tuple[tuple[KnowledgeReference, ...], list[Problem]]:
    """Every text file under references/, in path order, and every problem with them."""
    folder = bundle / REFERENCES_DIR
    if not folder.exists() and not folder.is_symlink():
        return (), []
    if folder.is_symlink() or not folder.is_dir():
        return (), [Problem(str(folder), "(bundle)", f"{REFERENCES_DIR} must be a real folder inside the bundle")]
    references: list[KnowledgeReference] = []
    problems: list[Problem] = []
    total = 0
    for file in _reference_files(folder, problems, depth=1):
        if len(references) >= MAX_REFERENCES:
            problems.append(Problem(str(folder), "(bundle)", f"more than {MAX_REFERENCES} reference files"))
            break
        try:
            text = _read_text(file, root, MAX_REFERENCE_BYTES)
        except ManifestError as err:
            problems.extend(err.problems)
            continue
        total += len(text.encode("utf-8"))
        if total > MAX_BUNDLE_BYTES:
            problems.append(Problem(str(folder), "(bundle)", f"references exceed {MAX_BUNDLE_BYTES} bytes in all"))
            break
        references.append(KnowledgeReference(path=file.relative_to(bundle).as_posix(), text=text))
    return tuple(references), problems


def _reference_files(folder: Path, problems: list[Problem], depth: int) -> Iterator[Path]:
    """Text files under ``folder``, sorted; wrong suffixes, deep nesting and symlinked folders become problems."""
    for child in sorted(folder.iterdir()):
        if child.name.startswith("."):
            continue
        if child.is_dir():
            if child.is_symlink():
                problems.append(Problem(str(child), "(file)", "symlinked folders are not followed in a bundle"))
            elif depth >= MAX_REFERENCE_DEPTH:
                problems.append(Problem(str(child), "(file)", f"nested deeper than {MAX_REFERENCE_DEPTH} folders"))
            else:
                yield from _reference_files(child, problems, depth + 1)
        elif child.suffix.lower() not in REFERENCE_SUFFIXES:
            allowed = ", ".join(REFERENCE_SUFFIXES)
            problems.append(Problem(str(child), "(file)", f"not a text reference (allowed: {allowed})"))
        else:
            yield child


def _read_text(path: Path, root: Path, limit: int) -> str:
    """Read a bundle file as UTF-8 text: inside the bundle, a plain file, at most ``limit`` bytes, no control bytes."""
    source = str(path)
    raw = read_bounded(path, limit, root=root, place="the bundle", what="knowledge files")
    if b"\x00" in raw:
        raise ManifestError.single(source, "(file)", f"binary file (NUL byte at {raw.index(0)}); only text is read")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ManifestError.single(source, "(file)", f"not UTF-8: byte {err.start} is {raw[err.start]:#04x}") from None
    # Windows line ends are still text; a lone carriage return (which hides what precedes it) is not.
    lines = text.replace("\r\n", "\n").split("\n")
    for number, line in enumerate(lines, start=1):
        problem = control_character_problem(line, "\t")
        if problem is not None:
            raise ManifestError.single(source, f"line {number}", problem)
    return text
