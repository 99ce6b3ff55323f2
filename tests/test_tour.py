"""The tour of the autograd core (minigrad/autograd/README.md) names only what exists.

Every row of its tables names a file and one or more functions in it; each file must
exist and each name must be defined there (a method as ``Class.method``), so that a
learner who opens the file finds what the tour promised.
"""

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOUR = ROOT / "minigrad" / "autograd" / "README.md"


def _rows():
    rows = []
    for line in TOUR.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].isdigit():
            path = cells[2].strip("`")
            names = re.findall(r"`([^`]+)`", cells[3])
            rows.append((int(cells[0]), path, names))
    return rows


def test_the_tour_has_its_steps_in_order():
    steps = [n for n, _, _ in _rows()]
    assert steps == list(range(1, len(steps) + 1)) and len(steps) >= 20


@pytest.mark.parametrize("step, path, names", _rows(), ids=[str(r[0]) for r in _rows()])
def test_each_step_names_what_is_there(step, path, names):
    assert (ROOT / path).is_file(), path
    module = importlib.import_module(path[:-len(".py")].replace("/", ".").replace(".__init__", ""))
    assert names
    for name in names:
        obj = module
        for part in name.split("."):
            assert hasattr(obj, part), f"step {step}: {path} has no {name}"
            obj = getattr(obj, part)
        top = getattr(module, name.split(".")[0])
        assert getattr(top, "__module__", module.__name__) == module.__name__, (
            f"step {step}: {name} is defined in {top.__module__}, not in {path}")
        if "." in name:  # a method: defined in that class itself, where the learner looks
            owner = getattr(module, name.split(".")[0])
            assert name.split(".")[1] in vars(owner), f"step {step}: {name} is inherited"
