"""The lessons' "Try it yourself" checks (minigrad/exercises/), on every kind of answer.

A lesson's check cell shows only a call into ``minigrad.exercises``, so no stored page
shows the answer or the hints that give it away.  Here (and in test_exercises_developer.py,
test_exercises_b2_researcher.py) each check is run on minigrad with
the lesson's own code (the cells it needs, by id), given the right answer and each wrong
answer it names, in every form the checks accept.  The right answers are worked out by
hand in each test.
"""

import contextlib
import io
import json
from pathlib import Path

import pytest

import minigrad
from minigrad.exercises import answers, beginner_01

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
LESSONS = sorted(p.relative_to(NOTEBOOKS).as_posix() for p in NOTEBOOKS.glob("*/*.ipynb"))


def _code_cells(notebook):
    nb = json.loads((NOTEBOOKS / notebook).read_text(encoding="utf-8"))
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def load(notebook, *cell_ids):
    """The namespace after running the given code cells of ``notebook`` (``torch`` is minigrad)."""
    cells = {c["id"]: "".join(c["source"]) for c in _code_cells(notebook)}
    namespace = {}
    for cell_id in cell_ids:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(cells[cell_id], f"{notebook}:{cell_id}", "exec"), namespace)
    assert namespace["torch"] is minigrad
    return namespace


def said(fn, *args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        fn(*args)
    return out.getvalue()


@pytest.mark.parametrize("notebook", LESSONS)
def test_a_lesson_shows_only_the_call_of_its_check(notebook):
    cells = _code_cells(notebook)
    folded = [c["id"] for c in cells if c["metadata"].get("jupyter", {}).get("source_hidden")]
    defines = [c["id"] for c in cells if "def check" in "".join(c["source"])]
    calls = [c["id"] for c in cells if "from minigrad.exercises import" in "".join(c["source"])]
    assert calls and not folded and not defines, (notebook, calls, folded, defines)


# --- the forms of answer, the same in every check ----------------------------------------

@pytest.mark.parametrize("given", [10, 10.0, "10", " 10.0 ", minigrad.tensor(10.0), minigrad.tensor([10])])
def test_a_number_in_any_form(given):
    assert answers.number(given) == 10.0


@pytest.mark.parametrize("given", ["ten", [10], True, float("nan"), minigrad.tensor([1.0, 2.0])])
def test_anything_else_is_not_a_number(given):
    with pytest.raises(answers.Unreadable, match="Write a number"):
        answers.number(given)


def test_a_name_in_any_case():
    assert answers.name(" MulBackward0") == answers.name("mulbackward0") == "mulbackward0"
    assert answers.name(None) is answers.NOT_GIVEN
    with pytest.raises(answers.Unreadable, match="Write a name in quotes"):
        answers.name(3)


# --- beginner 01: x.grad at x = 5 -----------------------------------------------------------

def test_beginner1_guess():
    ns = load("beginner/01_the_ribbon_trail.ipynb", "b1-04", "b1-06", "b1-guess")
    walk_in = ns["walk_in"]
    assert said(beginner_01.check, None, walk_in).startswith("Write your guess")
    assert said(beginner_01.check, 10.0, walk_in).startswith("Right: x.grad is 10.0")  # 2x at 5
    assert said(beginner_01.check, 10.02, walk_in).startswith("Right")  # a nudge's estimate
    assert said(beginner_01.check, "10", walk_in).startswith("Right")  # typed in quotes
    assert said(beginner_01.check, 6, walk_in).startswith("6 was x's blame at 3")
    assert said(beginner_01.check, 26, walk_in).startswith("26 is z itself")  # 5 * 5 + 1
    assert said(beginner_01.check, 7.5, walk_in).startswith("Not yet")
    assert said(beginner_01.check, "ten", walk_in) == (
        "Write a number, e.g. my_guess = 7.5 (you wrote 'ten').\n")
    for wrong in (None, 6, 26, 7.5):  # no reply but "Right" gives the answer away
        assert "10" not in said(beginner_01.check, wrong, walk_in)


def test_beginner1_watch_notes_sees_the_notes_go():
    """Lesson 1, section 4: the notes of a trail (not x's collector, AccumulateGrad) are there
    while the result is held, and go with it; a note another name holds stays; the watch holds
    no note itself."""
    import minigrad as torch
    ns = load("beginner/01_the_ribbon_trail.ipynb", "b1-04", "b1-06")
    x = torch.tensor(3.0, requires_grad=True)
    z = ns["walk_in"](x)
    z.backward()
    still_there = beginner_01.watch_notes(z)
    assert still_there() == ["AddBackward0", "PowBackward0"]
    other = z.grad_fn.next_functions[0][0]  # a name holding the squaring's note keeps it
    del z
    assert still_there() == ["PowBackward0"]
    del other
    assert still_there() == []
    assert x.grad_fn is None  # the collector is not x's note
    again = ns["walk_in"](x)  # a new calculation: new notes, not the watched ones
    assert beginner_01.watch_notes(again)() == ["AddBackward0", "PowBackward0"]
    assert still_there() == []
    del again
    assert x.grad.item() == 6.0  # x and its blame stay
