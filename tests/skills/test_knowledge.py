"""Knowledge bundles (SKILL.md + references/) load as text only, and anything else is refused by name."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bt_executive.skills.dirs import knowledge_dirs
from bt_executive.skills.errors import ManifestError
from bt_executive.skills.knowledge import (
    MAX_REFERENCE_BYTES,
    MAX_REFERENCES,
    MAX_SKILL_MD_BYTES,
    KnowledgeSkill,
    discover_knowledge,
    load_knowledge,
)
from bt_executive.skills.registry import SkillRegistry, collect

GOOD_FRONTMATTER = """\
name: {name}
description: The drawer sticks halfway; pull it slowly.
kind: knowledge
inputs: {{drawer: world-state id of the drawer}}
outputs: {{pull_speed: fraction of the default speed}}
objects: [drawer, cabinet]
scenes: [tabletop]
applies_to: [tabletop/open_drawer]
"""


def _bundle(
    root: Path,
    name: str = "drawer_sticks",
    frontmatter: str | None = None,
    body: str = "Pull at half speed.\n",
    references: dict[str, str | bytes] | None = None,
) -> Path:
    """Write a bundle directory ``root/name`` and return it."""
    bundle = root / name
    bundle.mkdir(parents=True)
    fields = GOOD_FRONTMATTER.format(name=name) if frontmatter is None else frontmatter
    (bundle / "SKILL.md").write_text(f"---\n{fields}---\n{body}", encoding="utf-8")
    for rel, content in (references or {}).items():
        path = bundle / "references" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return bundle


def _problems(bundle: Path) -> list[tuple[str, str, str]]:
    """Load ``bundle`` expecting refusal; the (file name, field, reason) of each problem."""
    with pytest.raises(ManifestError) as caught:
        load_knowledge(bundle)
    return [(Path(p.source).name, p.field, p.reason) for p in caught.value.problems]


# ---- what a good bundle becomes


def test_frontmatter_body_and_references_become_one_knowledge_skill(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path, references={"b.md": "second", "a.txt": "first", "deep/c.csv": "x,y\n1,2\n"})
    skill = load_knowledge(bundle)
    assert (skill.id, skill.kind, skill.applies_to, skill.inputs, skill.body, [r.path for r in skill.references]) == (
        "site/drawer_sticks",
        "knowledge",
        ("tabletop/open_drawer",),
        {"drawer": "world-state id of the drawer"},
        "Pull at half speed.",
        ["references/a.txt", "references/b.md", "references/deep/c.csv"],
    )


def test_owner_field_sets_the_owner_part_of_the_id(tmp_path: Path) -> None:
    fields = "name: plate_fragile\nowner: lab_2\ndescription: The plate breaks easily.\nkind: knowledge\n"
    assert load_knowledge(_bundle(tmp_path, "plate_fragile", fields)).id == "lab_2/plate_fragile"


def test_loading_by_the_skill_md_path_equals_loading_by_the_directory(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path, references={"notes.md": "n"})
    assert load_knowledge(bundle / "SKILL.md") == load_knowledge(bundle)


def test_context_text_carries_description_body_and_every_reference(tmp_path: Path) -> None:
    skill = load_knowledge(_bundle(tmp_path, references={"pull_test.md": "peak force 14 N"}))
    text = skill.context_text()
    wanted = ("site/drawer_sticks", "pull it slowly", "Pull at half speed", "peak force 14 N")
    assert [part for part in wanted if part not in text] == []


def test_content_hash_follows_the_content_not_the_location(tmp_path: Path) -> None:
    first = load_knowledge(_bundle(tmp_path / "a"))
    moved = load_knowledge(_bundle(tmp_path / "b"))
    edited = load_knowledge(_bundle(tmp_path / "c", body="Pull at a third of the speed.\n"))
    assert first.content_hash() == moved.content_hash() != edited.content_hash()


def test_knowledge_skill_is_frozen(tmp_path: Path) -> None:
    skill = load_knowledge(_bundle(tmp_path))
    with pytest.raises(ValueError, match="frozen"):
        skill.body = "changed"  # type: ignore[misc]


def test_shipped_bundles_load_and_include_the_issue_examples() -> None:
    skills = discover_knowledge(knowledge_dirs())
    ids = {s.id for s in skills}
    with_references = [s.id for s in skills if s.references]
    assert ({"site/drawer_sticks", "site/plate_fragile", "site/cube_colours"} <= ids, len(ids) >= 6) == (True, True)
    assert len(with_references) >= 3


def test_shipped_bundles_apply_only_to_skills_that_exist() -> None:
    from bt_executive.skills.dirs import catalog_skill_dirs

    known = set(SkillRegistry.discover(catalog_skill_dirs(), use_entry_points=False).ids())
    dangling = {s.id: set(s.applies_to) - known for s in discover_knowledge(knowledge_dirs())}
    assert {k: v for k, v in dangling.items() if v} == {}


# ---- refusals, each naming the file and the field


def test_missing_skill_md_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert _problems(tmp_path / "empty") == [
        ("SKILL.md", "(file)", "missing: a knowledge bundle is a directory with SKILL.md")
    ]


def test_skill_md_without_frontmatter_is_refused(tmp_path: Path) -> None:
    bundle = tmp_path / "plain"
    bundle.mkdir()
    (bundle / "SKILL.md").write_text("# Just markdown\n", encoding="utf-8")
    assert _problems(bundle)[0][:2] == ("SKILL.md", "(frontmatter)")


def test_unclosed_frontmatter_is_refused(tmp_path: Path) -> None:
    bundle = tmp_path / "open"
    bundle.mkdir()
    (bundle / "SKILL.md").write_text("---\nname: open\nkind: knowledge\n", encoding="utf-8")
    assert _problems(bundle) == [("SKILL.md", "(frontmatter)", "no closing '---' line after the YAML fields")]


def test_a_tool_kind_in_skill_md_is_refused_on_the_kind_field(tmp_path: Path) -> None:
    fields = "name: sneaky\ndescription: Looks like a tool.\nkind: ros_action\n"
    [(_, field, reason)] = _problems(_bundle(tmp_path, "sneaky", fields))
    assert (field, "needs kind: knowledge" in reason) == ("kind", True)


def test_missing_kind_is_refused(tmp_path: Path) -> None:
    fields = "name: nokind\ndescription: No kind given.\n"
    assert _problems(_bundle(tmp_path, "nokind", fields)) == [("SKILL.md", "kind", "required field is missing")]


def test_unknown_frontmatter_field_is_refused_by_name(tmp_path: Path) -> None:
    fields = GOOD_FRONTMATTER.format(name="extra") + "entry_point: evil:main\n"
    assert _problems(_bundle(tmp_path, "extra", fields)) == [
        ("SKILL.md", "entry_point", "unknown field (not part of the schema; check the spelling)")
    ]


def test_name_must_match_the_bundle_directory(tmp_path: Path) -> None:
    [(_, field, reason)] = _problems(_bundle(tmp_path, "other", GOOD_FRONTMATTER.format(name="drawer_sticks")))
    assert (field, reason) == ("name", "'drawer_sticks' must match the bundle directory 'other'")


def test_bad_applies_to_id_is_refused_with_its_index(tmp_path: Path) -> None:
    fields = GOOD_FRONTMATTER.format(name="bad_ref").replace("[tabletop/open_drawer]", "[tabletop/open_drawer, Pick]")
    assert [p[1] for p in _problems(_bundle(tmp_path, "bad_ref", fields))] == ["applies_to[1]"]


def test_yaml_errors_report_the_line_of_the_file(tmp_path: Path) -> None:
    fields = "name: broken\ndescription: [unclosed\nkind: knowledge\n"
    [(_, where, _reason)] = _problems(_bundle(tmp_path, "broken", fields))
    assert where.startswith("line 4")  # line 1 is '---', the flow sequence runs on to line 4


def test_python_tags_are_refused_and_run_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    fields = f"name: tag\ndescription: !!python/object/apply:os.system ['touch {marker}']\nkind: knowledge\n"
    [(_, _field, reason)] = _problems(_bundle(tmp_path, "tag", fields))
    assert ("invalid YAML" in reason, marker.exists()) == (True, False)


def test_yaml_aliases_are_refused(tmp_path: Path) -> None:
    fields = "name: alias\ndescription: &d Some fact.\nkind: knowledge\nobjects: [*d]\n"
    [(_, _field, reason)] = _problems(_bundle(tmp_path, "alias", fields))
    assert "aliases" in reason


def test_script_folder_beside_skill_md_is_refused(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path)
    (bundle / "scripts").mkdir()
    (bundle / "scripts" / "run.py").write_text("raise SystemExit('ran')\n", encoding="utf-8")
    [(name, field, reason)] = _problems(bundle)
    assert (name, field, "knowledge skills run no code" in reason) == ("scripts", "(bundle)", True)


def test_code_file_in_references_is_refused_not_read(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path, references={"helper.py": "raise SystemExit('ran')\n"})
    [(name, field, reason)] = _problems(bundle)
    assert (name, field, reason.startswith("not a text reference")) == ("helper.py", "(file)", True)


def test_binary_reference_is_refused(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path, references={"photo.txt": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"})
    assert _problems(bundle) == [("photo.txt", "(file)", "binary file (NUL byte at 8); only text is read")]


def test_non_utf8_reference_is_refused(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path, references={"latin1.md": "caf\u00e9".encode("latin-1")})
    assert _problems(bundle) == [("latin1.md", "(file)", "not UTF-8: byte 3 is 0xe9")]


def test_oversized_skill_md_is_refused(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path, body="x" * (MAX_SKILL_MD_BYTES + 1))
    [(name, field, reason)] = _problems(bundle)
    assert (name, field, f"limited to {MAX_SKILL_MD_BYTES}" in reason) == ("SKILL.md", "(file)", True)


def test_oversized_reference_is_refused(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path, references={"huge.md": "y" * (MAX_REFERENCE_BYTES + 1)})
    [(name, field, reason)] = _problems(bundle)
    assert (name, field, f"limited to {MAX_REFERENCE_BYTES}" in reason) == ("huge.md", "(file)", True)


def test_too_many_references_are_refused(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path, references={f"r{i:02}.md": "r" for i in range(MAX_REFERENCES + 1)})
    assert _problems(bundle) == [("references", "(bundle)", f"more than {MAX_REFERENCES} reference files")]


def test_reference_symlink_out_of_the_bundle_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("api key", encoding="utf-8")
    bundle = _bundle(tmp_path / "site", references={"ok.md": "fine"})
    os.symlink(secret, bundle / "references" / "leak.md")
    [(name, field, reason)] = _problems(bundle)
    assert (name, field, reason.startswith("symlink points outside the bundle")) == ("leak.md", "(file)", True)


def test_skill_md_symlink_out_of_the_bundle_is_refused(tmp_path: Path) -> None:
    outside = _bundle(tmp_path / "elsewhere")
    bundle = tmp_path / "site" / "drawer_sticks"
    bundle.mkdir(parents=True)
    os.symlink(outside / "SKILL.md", bundle / "SKILL.md")
    [(name, field, reason)] = _problems(bundle)
    assert (name, field, reason.startswith("symlink points outside")) == ("SKILL.md", "(file)", True)


def test_symlink_inside_the_bundle_is_read(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path, references={"real.md": "shared note"})
    os.symlink(bundle / "references" / "real.md", bundle / "references" / "alias.md")
    assert [r.text for r in load_knowledge(bundle).references] == ["shared note", "shared note"]


def test_symlinked_reference_folder_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "notes"
    elsewhere.mkdir()
    bundle = _bundle(tmp_path / "site", references={"ok.md": "fine"})
    os.symlink(elsewhere, bundle / "references" / "more")
    assert _problems(bundle) == [("more", "(file)", "symlinked folders are not followed in a bundle")]


def test_every_problem_of_a_bundle_is_reported_at_once(tmp_path: Path) -> None:
    fields = "name: many\ndescription: ''\nkind: knowledge\ncolour: red\n"
    bundle = _bundle(tmp_path, "many", fields, references={"x.exe": "MZ"})
    (bundle / "run.sh").write_text("echo hi\n", encoding="utf-8")
    assert sorted((name, field) for name, field, _ in _problems(bundle)) == [
        ("SKILL.md", "colour"),
        ("SKILL.md", "description"),
        ("run.sh", "(bundle)"),
        ("x.exe", "(file)"),
    ]


# ---- discovery


def test_discover_finds_nested_bundles_and_ignores_loose_files(tmp_path: Path) -> None:
    _bundle(tmp_path / "kitchen", "plate_fragile", GOOD_FRONTMATTER.format(name="plate_fragile"))
    _bundle(tmp_path / "lab", "drawer_sticks")
    (tmp_path / "README.md").write_text("# facts\n", encoding="utf-8")
    assert [s.id for s in discover_knowledge([tmp_path])] == ["site/drawer_sticks", "site/plate_fragile"]


def test_discover_reports_duplicate_ids_and_missing_paths_together(tmp_path: Path) -> None:
    _bundle(tmp_path / "a", "drawer_sticks")
    _bundle(tmp_path / "b", "drawer_sticks")
    with pytest.raises(ManifestError) as caught:
        discover_knowledge([tmp_path, tmp_path / "nope"])
    reasons = sorted(p.reason.split(":")[0] for p in caught.value.problems)
    assert reasons == ["does not exist", "duplicate id 'site/drawer_sticks'"]


# ---- never a tool skill


def test_registry_refuses_a_knowledge_bundle_and_never_reads_its_references_as_manifests(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path, references={"table.md": "x"})
    (bundle / "references" / "looks_like_a_skill.yaml").write_text("id: evil/tool\n", encoding="utf-8")
    report = collect([tmp_path], use_entry_points=False)
    assert ([s.manifest.id for s in report.skills], [(Path(p.source).name, p.field) for p in report.problems]) == (
        [],
        [("SKILL.md", "kind")],
    )


def test_registry_refuses_a_skill_md_named_directly(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path)
    with pytest.raises(ManifestError, match="can never be executed"):
        SkillRegistry.discover([bundle / "SKILL.md"], use_entry_points=False)


def test_knowledge_skill_has_no_ros_or_vla_binding(tmp_path: Path) -> None:
    fields = set(KnowledgeSkill.model_fields)
    assert fields & {"ros", "vla", "parameters", "actions"} == set()
