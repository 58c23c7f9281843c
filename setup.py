"""ament_python package bt_executive (also installable with plain pip)."""

from glob import glob

from setuptools import find_packages, setup

PACKAGE = "bt_executive"

setup(
    name=PACKAGE,
    version="0.1.0",
    description="Behaviour-tree robot executive: LLM or stub planner -> py_trees -> ROS 2 skills",
    license="Apache-2.0",
    python_requires=">=3.11",
    packages=find_packages(include=[PACKAGE, f"{PACKAGE}.*"]),
    package_data={PACKAGE: ["py.typed", "skills/*.json", "trees/*.json", "executive/viewer/static/*"]},
    data_files=[
        ("share/ament_index/resource_index/packages", [f"resource/{PACKAGE}"]),
        (f"share/{PACKAGE}", ["package.xml"]),
        (f"share/{PACKAGE}/launch", glob("launch/*.py")),
        (f"share/{PACKAGE}/config", glob("config/*.yaml") + glob("config/*.xml")),
        (f"share/{PACKAGE}/config/skills", glob("config/skills/*.yaml")),
        (f"share/{PACKAGE}/config/skills/builtin", glob("config/skills/builtin/*.yaml")),
        (f"share/{PACKAGE}/config/trees", glob("config/trees/*.yaml")),
        (f"share/{PACKAGE}/config/robots", glob("config/robots/*.yaml")),
        (f"share/{PACKAGE}/config/scenes", glob("config/scenes/*.yaml")),
        (f"share/{PACKAGE}/config/faults", glob("config/faults/*.yaml")),
        # The fleet catalog (one folder per domain) and knowledge bundles (SKILL.md + references/).
        *((f"share/{PACKAGE}/{d[:-1]}", glob(f"{d}*.yaml")) for d in sorted(glob("config/catalog/*/"))),
        *((f"share/{PACKAGE}/{d[:-1]}", glob(f"{d}*.*")) for d in sorted(glob("config/knowledge/**/", recursive=True))),
    ],
    zip_safe=False,
    maintainer="bt_executive developers",
    maintainer_email="bt-executive@users.noreply.github.com",
    entry_points={
        "console_scripts": [f"bt-executive = {PACKAGE}.cli.main:main"],
        # Skill bundles shipped by other distributions: "name = some.package.dir" names a
        # directory of manifests inside the distribution; it is located, never imported.
        "bt_executive.skills": [],
        # In-process VLA policies: "name = module:factory".
        "bt_executive.policies": [f"oracle = {PACKAGE}.sim.oracle_policy:OraclePolicy"],
        # Planner kinds, ours registered like any other distribution's: "kind = module:factory".
        "bt_executive.planners": [
            f"stub = {PACKAGE}.llm.grammar_planner.plugin:stub",
            f"auto = {PACKAGE}.llm.model.plugin:auto",
            f"litellm = {PACKAGE}.llm.model.plugin:litellm",
        ],
        "pytest11": [f"{PACKAGE} = {PACKAGE}.testing"],
    },
)
