"""Developer lesson 4's exercise checker: right answers are confirmed, wrong ones get their hint.

nbval runs the checker only as stored (no prediction yet); this runs the lesson's own
cells (``nodes_behind`` and ``check_walk``, by cell id) on the answers a learner may give.
"""

import contextlib
import io
import json
from pathlib import Path

import pytest

import minigrad

LESSON = Path(__file__).resolve().parents[1] / "notebooks" / "developer" / "04_watching_the_walk.ipynb"
RIGHT_ORDER = ["MulBackward0", "SubBackward0", "AddBackward0"]


@pytest.fixture(scope="module")
def check_walk():
    cells = {c["id"]: "".join(c["source"]) for c in json.loads(LESSON.read_text())["cells"]}
    ns = {"torch": minigrad}
    exec(cells["d4-watch"], ns)
    exec(cells["d4-checker"], ns)

    def run(order, x_grad):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            ns["check_walk"](order, x_grad)
        return out.getvalue()

    return run


def test_no_prediction_gives_a_hint_and_no_answer(check_walk):
    text = check_walk(None, None)
    assert text.startswith("No prediction yet")
    assert "right" not in text and "SubBackward0" not in text and "4" not in text


def test_right_answers_are_confirmed(check_walk):
    text = check_walk(RIGHT_ORDER, 4.0)
    assert text.startswith("Order: right.")
    assert "x.grad: right." in text


@pytest.mark.parametrize("order, hint", [
    (["MulBackward0", "AddBackward0", "SubBackward0"], "the other two are swapped"),
    (["AddBackward0", "SubBackward0", "MulBackward0"], "does not start at AddBackward0"),
    (["MulBackward0", "SubBackward0"], "give each of the three names once"),
])
def test_a_wrong_order_gets_its_hint(check_walk, order, hint):
    text = check_walk(order, 4.0)
    assert hint in text and "Order: right" not in text


@pytest.mark.parametrize("x_grad, hint", [
    (5.0, "along one path only"),
    (-1.0, "along one path only"),
    (-5.0, "multiplied"),
    (10.0, "Go node by node"),
])
def test_a_wrong_x_grad_gets_its_hint(check_walk, x_grad, hint):
    text = check_walk(RIGHT_ORDER, x_grad)
    assert hint in text and "x.grad: right" not in text
