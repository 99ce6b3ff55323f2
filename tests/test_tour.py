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


def _table():
    rows = []
    for line in TOUR.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0].isdigit():
            path = cells[2].strip("`")
            names = re.findall(r"`([^`]+)`", cells[3])
            rows.append((int(cells[0]), path, names, cells[4]))
    return rows


def _rows():
    return [row[:3] for row in _table()]


def _lines_of(path, names):
    """The lines (first, last) of ``path`` that hold each of ``names``' definitions,
    decorators included, joined where they touch."""
    import ast

    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    spans = []
    for name in names:
        scope, node = tree.body, None
        for part in name.split("."):
            node = next(n for n in scope if getattr(n, "name", None) == part)
            scope = getattr(node, "body", [])
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        spans.append((first, node.end_lineno))
    spans.sort()
    joined = [spans[0]]
    for a, b in spans[1:]:
        if a <= joined[-1][1] + 2:  # (one blank line between two methods: one range)
            joined[-1] = (joined[-1][0], max(b, joined[-1][1]))
        else:
            joined.append((a, b))
    return joined


def test_each_row_gives_the_lines_to_read():
    total = idea = 0
    text = TOUR.read_text(encoding="utf-8")
    for line in text.splitlines():  # (the rows again, with what each says)
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5 or not cells[0].isdigit():
            continue
        step, path, names = int(cells[0]), cells[2].strip("`"), re.findall(r"`([^`]+)`", cells[3])
        spans = _lines_of(path, names)
        want = ", ".join(f"{a}–{b}" for a, b in spans)
        assert cells[4] == want, f"row {step}: {path} {names} is at {want}"
        n = sum(b - a + 1 for a, b in spans)
        total += n
        idea += 0 if cells[1].startswith("*wiring:*") else n
    stated = re.search(r"(\d[\d,]*) lines in all, docstrings included, (\d+) of them the idea", text)
    assert stated, "the tour states its lines in all and those of the idea"
    assert (int(stated.group(1).replace(",", "")), int(stated.group(2))) == (total, idea)


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


# --- with MINIGRAD_GENERAL_PATHS=1 the tour's example runs through what the tour names ------

_EXAMPLE = r"""
import json, sys
import minigrad
x = minigrad.tensor([1.0, 2.0], requires_grad=True)
y = minigrad.tensor([3.0, 4.0], requires_grad=True)
calls = []
def profile(frame, event, arg):
    if event == "call":
        calls.append([frame.f_code.co_filename, frame.f_code.co_qualname])
sys.setprofile(profile)
z = x * y
loss = z.sum()
loss.backward()
try:
    loss.backward()   # row 25: the saved values were freed
except RuntimeError as e:
    second = str(e)
sys.setprofile(None)
print(json.dumps({"calls": calls, "second": second, "grads": [x.grad.tolist(), y.grad.tolist()]}))
"""

MADE_AT_IMPORT = {6, 8}  # rows that run when Mul is defined, not when z = x * y runs


def _run_example(general):
    import json
    import os
    import subprocess
    import sys

    env = dict(os.environ, MINIGRAD_GENERAL_PATHS="1" if general else "0")
    out = subprocess.run([sys.executable, "-c", _EXAMPLE], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def _called(calls, path, name):
    # a function made by a factory (ops/__init__._operator) runs as _operator.<locals>.op
    return any(f.endswith(path) and (q == name or q.startswith(name + ".<locals>."))
               for f, q in calls)


def test_with_the_switch_the_example_calls_every_function_the_tour_names():
    run = _run_example(general=True)
    assert run["grads"] == [[3.0, 4.0], [1.0, 2.0]]
    assert run["second"].startswith("Trying to backward through the graph a second time")
    for step, path, names in _rows():
        for name in names:
            called = _called(run["calls"], path, name)
            assert called == (step not in MADE_AT_IMPORT), f"row {step}: {path} {name}"
    fast = {q for f, q in run["calls"] if f.endswith("_fast.py")}
    assert not fast, f"a debugger would stop in fast paths the tour does not name: {fast}"


def test_without_it_the_fast_twins_run_and_give_the_same_gradients():
    run = _run_example(general=False)
    assert run["grads"] == [[3.0, 4.0], [1.0, 2.0]]
    fast = {q for f, q in run["calls"] if f.endswith("_fast.py")}
    assert {"collect_next_edges_fast", "pack_fast", "unpack_arrays", "free_fast",
            "route_gradients_fast"} <= fast
    assert not _called(run["calls"], "minigrad/autograd/engine.py", "route_gradients")
