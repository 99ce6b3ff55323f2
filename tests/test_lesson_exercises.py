"""The "Try it yourself" checkers of the developer lessons, on every kind of answer.

A lesson stores its check cell with no prediction filled in (so the stored
page gives nothing away); nbval therefore only sees the "no prediction yet"
branch.  Here each checker is taken from its notebook, run on minigrad, and
given the answers a learner is likely to try: right ones, each wrong answer
the checker names (swapped, a value for a gradient, one path of a fan-in
only, ...), and a prediction only partly filled in.
"""

import contextlib
import io
import json
from pathlib import Path

import pytest

import minigrad

LESSONS = Path(__file__).resolve().parents[1] / "notebooks" / "developer"


def load(notebook, *cell_ids):
    """A namespace in which the given code cells of ``notebook`` have run (``torch`` is minigrad)."""
    nb = json.loads((LESSONS / notebook).read_text(encoding="utf-8"))
    cells = {c["id"]: "".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"}
    namespace = {"torch": minigrad}
    for cell_id in cell_ids:
        exec(compile(cells[cell_id], f"{notebook}:{cell_id}", "exec"), namespace)
    return namespace


def said(fn, *args, **kwargs):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        fn(*args, **kwargs)
    return out.getvalue()


@pytest.fixture(scope="module")
def check_prediction():
    return load("01_watching_the_recording.ipynb", "c63")["check_prediction"]


def test_lesson1_no_prediction_gives_a_hint_not_the_answer(check_prediction):
    text = said(check_prediction, None, None)
    assert "No prediction yet" in text and "Hint" in text
    assert "6" not in text and "y + 2" not in text


def test_lesson1_right_answer(check_prediction):
    text = said(check_prediction, 6.0, 3.0)
    assert "x.grad: right, 6" in text and "y.grad: right, 3" in text


def test_lesson1_swapped_answer_is_named_swapped(check_prediction):
    text = said(check_prediction, 3.0, 6.0)
    assert text.startswith("Swapped") and "x.grad: right" not in text


@pytest.mark.parametrize("x_guess, diagnosis", [
    (4.0, "the gradient through x * y alone"),
    (2.0, "the gradient through x * 2 alone"),
    (3.0, "the value of x itself"),
    (8.0, "the two uses' gradients multiplied"),
    (5.0, "Work it out one use at a time"),
])
def test_lesson1_each_wrong_x_grad_gets_its_own_diagnosis(check_prediction, x_guess, diagnosis):
    text = said(check_prediction, x_guess, 3.0)
    assert diagnosis in text and "y.grad: right, 3" in text
    others = {"the gradient through x * y alone", "the gradient through x * 2 alone",
              "the value of x itself", "the two uses' gradients multiplied"} - {diagnosis}
    assert not any(o in text for o in others)


@pytest.mark.parametrize("y_guess, diagnosis", [
    (4.0, "the value of y itself"),
    (1.0, "y is not added to z"),
    (7.0, "y appears only in x * y"),
])
def test_lesson1_each_wrong_y_grad_gets_its_own_diagnosis(check_prediction, y_guess, diagnosis):
    text = said(check_prediction, 6.0, y_guess)
    assert diagnosis in text and "x.grad: right, 6" in text


def test_lesson1_one_prediction_filled_in(check_prediction):
    text = said(check_prediction, 6.0, None)
    assert "x.grad: right, 6" in text and "y.grad: no prediction yet" in text
    text = said(check_prediction, None, 4.0)
    assert "x.grad: no prediction yet" in text and "the value of y itself" in text


@pytest.fixture(scope="module")
def check_switches():
    return load("02_switching_recording_off.ipynb", "d42", "d44")["check_switches"]


def test_lesson2_checker(check_switches):
    hints = ("nothing is recorded", "switches recording back on", "stronger than no_grad()",
             "cuts off one factor only", "computed outside the block")
    text = said(check_switches)
    assert "No predictions yet" in text and not any(h in text for h in hints)
    assert "right" not in text
    text = said(check_switches, a=False, b=True, c=False, d=True, e=True)
    assert "5 of 5 right" in text
    text = said(check_switches, a=True, b=False, c=True, d=False, e=False)
    assert "0 of 5 right" in text
    for hint in hints:
        assert hint in text
    text = said(check_switches, c=False)
    assert "c: right" in text and "a: no prediction yet" in text and "1 of 5 right" in text
    assert "predict True or False" in said(check_switches, a="no")


@pytest.fixture(scope="module")
def check_accumulation():
    return load("03_gradient_accumulation.ipynb", "g32", "g34")["check_accumulation"]


def test_lesson3_checker(check_accumulation):
    text = said(check_accumulation)
    assert "No predictions yet" in text and "right" not in text
    assert not any(str(n) in text for n in (6, 12, 18))
    assert "3 of 3 right" in said(check_accumulation, a=6, b=18, c=12)
    assert "the three backward() calls add" in said(check_accumulation, a=2)
    assert "each loss is divided by 3" in said(check_accumulation, a=18)
    assert "without a reset the three walks add up" in said(check_accumulation, b=6)
    assert "y is used twice" in said(check_accumulation, c=6)
    assert "they do not multiply" in said(check_accumulation, c=24)
    text = said(check_accumulation, b=18)
    assert "b: right" in text and "a: no prediction yet" in text and "1 of 3 right" in text
    assert "count the backward() calls" in said(check_accumulation, a=7)
