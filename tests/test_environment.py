"""environment.yml (conda, and what repo2docker and Binder build) asks for what pyproject.toml does.

``make lab`` installs minigrad's ``lessons`` and ``test`` extras with pip; a class on
Binder or JupyterHub gets its environment from environment.yml instead
(docs/CLASSROOM.md).  Each package the extras name must be in environment.yml, with
the same lower bound, so both routes run the lessons on the same packages.
"""

import re
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib", reason="Python 3.11's tomllib reads pyproject.toml")

ROOT = Path(__file__).resolve().parents[1]
# pip's name -> conda-forge's, where they differ
CONDA_NAMES = {"graphviz": "python-graphviz"}


def _requirements():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    found = {}
    for spec in project["dependencies"] + [r for extra in ("lessons", "test")
                                           for r in project["optional-dependencies"][extra]]:
        name, bounds = re.match(r"([A-Za-z0-9_.-]+)\s*(.*)", spec).groups()
        found[CONDA_NAMES.get(name.lower(), name.lower())] = bounds.replace(" ", "")
    return found


def _conda_packages():
    found = {}
    for line in (ROOT / "environment.yml").read_text(encoding="utf-8").splitlines():
        m = re.match(r"\s*-\s+([A-Za-z0-9_.-]+)\s*([<>=!][^#]*)?", line)
        if m and not line.strip().startswith("- -e"):
            found[m.group(1).lower()] = (m.group(2) or "").strip().replace(" ", "")
    return found


def test_environment_yml_has_every_package_the_extras_name_with_the_same_bounds():
    conda = _conda_packages()
    for name, bounds in _requirements().items():
        assert name in conda, f"environment.yml lacks {name} (pyproject.toml asks for it)"
        lower = re.search(r">=\s*([\d.]+)", bounds)
        if lower:
            assert f">={lower.group(1)}" in conda[name], (
                f"environment.yml has {name}{conda[name]}, pyproject.toml {bounds}")


def test_environment_yml_installs_minigrad_from_the_repository_and_graphviz_dot():
    text = (ROOT / "environment.yml").read_text(encoding="utf-8")
    assert re.search(r"^\s*-\s+-e\s+\.\s*$", text, re.M), "pip: -e . (minigrad from this repository)"
    assert re.search(r"^\s*-\s+graphviz\b", text, re.M), "conda-forge's graphviz (the dot program)"
