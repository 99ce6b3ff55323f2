"""The reading core stays small enough to read in an afternoon: a line ceiling per file.

The reading core is what the lessons name and a learner opens (``../shared/DESIGN.md``):
Tensor's autograd state, Function and its ctx, the nodes and their saved values,
AccumulateGrad, the engine's walk.  Each ceiling is the file's length today; a
change may only keep or lower it (except, said beside the number, code moved
from one core file into another, or a registration slot that replaces an
upward import), and each step of the redesign (``../shared/REDESIGN.md``) lowers them to
its new counts, down to the target budgets (tensor, function, graph <= 400;
engine <= 250; saved <= 250; edges ~120; about 1,500 lines together).
"""

from pathlib import Path

import pytest

MINIGRAD = Path(__file__).resolve().parents[1] / "minigrad"

# file (relative to minigrad/): its ceiling in lines
CEILINGS = {
    "tensor.py": 590,
    "autograd/function.py": 716,  # (+21: the slots forward mode, formulas, inplace fill)
    "autograd/graph.py": 377,
    "autograd/saved.py": 456,  # (from graph.py)
    "autograd/edges.py": 190,
    "autograd/engine.py": 513,
}
TOTAL = 2842


def _lines(name):
    return len((MINIGRAD / name).read_text(encoding="utf-8").splitlines())


@pytest.mark.parametrize("name", sorted(CEILINGS))
def test_reading_core_file_within_its_ceiling(name):
    n = _lines(name)
    assert n <= CEILINGS[name], (
        f"minigrad/{name} has {n} lines, over its ceiling of {CEILINGS[name]}: the reading core "
        "must not grow (move breadth out of it, into its own module)")


def test_reading_core_total():
    n = sum(_lines(name) for name in CEILINGS)
    assert n <= TOTAL, f"the reading core has {n} lines, over {TOTAL}"


def test_ceilings_follow_the_files_down():
    """A ceiling far above its file would let the file grow back unnoticed: lower it."""
    slack = {name: (_lines(name), ceiling) for name, ceiling in CEILINGS.items()
             if ceiling - _lines(name) > 20}
    assert not slack, f"lower these ceilings to the files' lengths (lines, ceiling): {slack}"
