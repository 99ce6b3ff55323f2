"""The developer lessons' "Try it yourself" checks (minigrad/exercises/developer_0N.py).

Each check is run on minigrad with the lesson's own code (the cells it needs, by id), given
the answers a learner is likely to try: right ones, each wrong answer the check names
(swapped, a value for a gradient, one path of a fan-in only, ...), a prediction only partly
filled in, and answers in the other forms the checks read.  The right answers are worked
out by hand in each test; no reply but a "right" one contains them.
"""

import pytest

from minigrad.exercises import developer_01, developer_02, developer_03, developer_04
from tests.test_exercises import load, said

# --- developer 01: x.grad and y.grad for z = (x * y) + (x * 2) at x = 3, y = 4 -------------


@pytest.fixture(scope="module")
def lesson1():
    ns = load("developer/01_watching_the_recording.ipynb", "c02", "c04", "c18", "c61", "c65")
    z = ns["z"]

    def check(*answers):
        return said(developer_01.check, *answers, z)

    check.lesson = ns
    return check


def test_lesson1_no_prediction_gives_a_hint_not_the_answer(lesson1):
    text = lesson1(None, None)
    assert "No prediction yet" in text and "Hint" in text
    assert "6" not in text and "y + 2" not in text


def test_lesson1_right_answer(lesson1):
    text = lesson1(6.0, 3.0)  # dz/dx = y + 2, dz/dy = x
    assert "x.grad: right, 6" in text and "y.grad: right, 3" in text


def test_lesson1_the_check_leaves_the_lesson_s_z_as_it_was(lesson1):
    lesson1(6.0, 3.0)
    assert lesson1.lesson["x"].grad is None  # autograd.grad: x.grad stays unset
    assert lesson1(6.0, 3.0).count("right") == 2  # and the recording is whole: it walks again


def test_lesson1_a_walked_z_asks_for_the_cell_again():
    ns = load("developer/01_watching_the_recording.ipynb", "c02", "c04", "c18", "c61")
    ns["z"].backward()
    assert said(developer_01.check, 6.0, 3.0, ns["z"]).startswith("z is not the z of this exercise")


def test_lesson1_swapped_answer_is_named_swapped(lesson1):
    text = lesson1(3.0, 6.0)
    assert text.startswith("Swapped") and "x.grad: right" not in text


@pytest.mark.parametrize("x_guess, diagnosis", [
    (4.0, "the gradient through x * y alone"),
    (2.0, "the gradient through x * 2 alone"),
    (3.0, "the value of x itself"),
    (8.0, "the two uses' gradients multiplied"),
    (5.0, "Work it out one use at a time"),
])
def test_lesson1_each_wrong_x_grad_gets_its_own_diagnosis(lesson1, x_guess, diagnosis):
    text = lesson1(x_guess, 3.0)
    assert diagnosis in text and "y.grad: right, 3" in text
    others = {"the gradient through x * y alone", "the gradient through x * 2 alone",
              "the value of x itself", "the two uses' gradients multiplied"} - {diagnosis}
    assert not any(o in text for o in others)


@pytest.mark.parametrize("y_guess, diagnosis", [
    (4.0, "the value of y itself"),
    (1.0, "y is not added to z"),
    (7.0, "y appears only in x * y"),
])
def test_lesson1_each_wrong_y_grad_gets_its_own_diagnosis(lesson1, y_guess, diagnosis):
    text = lesson1(6.0, y_guess)
    assert diagnosis in text and "x.grad: right, 6" in text


def test_lesson1_one_prediction_filled_in(lesson1):
    text = lesson1(6.0, None)
    assert "x.grad: right, 6" in text and "y.grad: no prediction yet" in text
    text = lesson1(None, 4.0)
    assert "x.grad: no prediction yet" in text and "the value of y itself" in text


def test_lesson1_answers_that_are_not_numbers(lesson1):
    assert "x.grad: right, 6" in lesson1("6", "3")  # typed in quotes: read as numbers
    assert lesson1("six", None).startswith("Write numbers")


def test_lesson1_no_wrong_reply_gives_the_answer(lesson1):
    for wrong in (4.0, 2.0, 3.0, 8.0, 5.0):
        text = lesson1(wrong, None)
        assert "6" not in text and "y + 2" not in text, text
    for wrong in (4.0, 1.0, 7.0):
        text = lesson1(None, wrong)
        assert "3" not in text and "dz/dy = x" not in text and "other factor" not in text, text
    text = lesson1(3.0, 6.0)  # swapped: named, not confirmed with the numbers
    assert "6" not in text and "3" not in text and "right" not in text


# --- developer 02: y.requires_grad after each of five snippets ------------------------------

SWITCH_HINTS = ("nothing is recorded", "only inside its own block", "the innermost switch decides",
                "cuts off one factor only", "computed outside the block")
SWITCHES_RIGHT = dict(a=False, b=False, c=False, d=True, e=True)


def snippets_check(module, notebook, *cell_ids, names):
    """``module.check`` on the lesson's own snippets, called with the predictions as keywords;
    ``.stored``: the answer cell's predictions as stored (all None)."""
    ns = load(notebook, *cell_ids)
    snippets = [ns[f"snippet_{name}"] for name in names]

    def check(**predictions):
        return said(module.check, predictions, *snippets)

    check.stored = ns["my_predictions"]
    return check


@pytest.fixture(scope="module")
def lesson2():
    return snippets_check(developer_02, "developer/02_switching_recording_off.ipynb",
                          "d02", "d42", "d46", names="abcde")


def test_lesson2_check(lesson2):
    text = lesson2(**lesson2.stored)  # as stored: dict(a=None, ..., e=None)
    assert "No predictions yet" in text and not any(h in text for h in SWITCH_HINTS)
    assert "right" not in text
    text = lesson2(**SWITCHES_RIGHT)
    assert "5 of 5 right" in text
    text = lesson2(**{name: not value for name, value in SWITCHES_RIGHT.items()})
    assert "0 of 5 right" in text
    for hint in SWITCH_HINTS:
        assert hint in text
    text = lesson2(c=False)
    assert "c: right" in text and "a: no prediction yet" in text and "1 of 5 right" in text
    assert "predict True or False" in lesson2(a="no")


def test_lesson2_true_or_false_typed_in_quotes(lesson2):
    typed = {name: f" {value} ".lower() for name, value in SWITCHES_RIGHT.items()}  # " false "
    assert "5 of 5 right" in lesson2(**typed)
    assert "Write my_predictions as dict" in said(developer_02.check, [True] * 5, *[None] * 5)


def test_lesson2_no_wrong_reply_gives_the_answer(lesson2):
    for name, value in SWITCHES_RIGHT.items():  # it names the prediction given, not the other
        text = lesson2(**{name: not value})
        assert f"{name}: not {not value}" in text and str(value) not in text, text


# --- developer 03: x.grad after each of three snippets --------------------------------------

ACCUMULATION_RIGHT = dict(a=6, b=18, c=12)  # 3 walks of 2x / 3; 3 walks of 2x; 2 uses of y: 2 * 2x


@pytest.fixture(scope="module")
def lesson3():
    return snippets_check(developer_03, "developer/03_gradient_accumulation.ipynb",
                          "g02", "g32", "g36", names="abc")


def test_lesson3_check(lesson3):
    text = lesson3(**lesson3.stored)  # as stored: dict(a=None, b=None, c=None)
    assert "No predictions yet" in text and "right" not in text
    assert not any(str(n) in text for n in (6, 12, 18))
    assert "3 of 3 right" in lesson3(**ACCUMULATION_RIGHT)
    assert "3 of 3 right" in lesson3(a="6", b=18.0, c=" 12 ")  # any form of number
    assert "the three backward() calls add" in lesson3(a=2)
    assert "each loss is divided by 3" in lesson3(a=18)
    assert "without a reset the three walks add up" in lesson3(b=6)
    assert "y is used twice" in lesson3(c=6)
    assert "they do not multiply" in lesson3(c=24)
    text = lesson3(b=18)
    assert "b: right" in text and "a: no prediction yet" in text and "1 of 3 right" in text
    assert "count the backward() calls" in lesson3(a=7)
    assert lesson3(a="six").startswith("Write numbers, e.g. a=1.5")


def test_lesson3_no_wrong_reply_gives_the_answer(lesson3):
    for name, wrongs in {"a": (2, 18, 7), "b": (6, 2, 7), "c": (6, 24, 7)}.items():
        for wrong in wrongs:
            text = lesson3(**{name: wrong})
            assert str(ACCUMULATION_RIGHT[name]) not in text, text


# --- developer 04: the order of the walk, and x.grad, for z = (x + y) * (x - y) -------------

RIGHT_ORDER = ["MulBackward0", "SubBackward0", "AddBackward0"]


@pytest.fixture(scope="module")
def lesson4():
    ns = load("developer/04_watching_the_walk.ipynb", "d4-import", "d4-watch", "d4-answer")

    def check(order, x_grad):
        return said(developer_04.check, order, x_grad, ns["nodes_behind"])

    check.stored = ns["my_order"], ns["my_x_grad"]
    return check


def test_lesson4_no_prediction_gives_a_hint_and_no_answer(lesson4):
    text = lesson4(*lesson4.stored)  # as stored: None, None
    assert text.startswith("No prediction yet")
    assert "right" not in text and "SubBackward0" not in text and "4" not in text


def test_lesson4_right_answers_are_confirmed(lesson4):
    text = lesson4(RIGHT_ORDER, 4.0)  # x.grad = d + s = -1 + 5
    assert text.startswith("Order: right.")
    assert "x.grad: right." in text
    assert "x.grad: right." in lesson4([n.lower() for n in RIGHT_ORDER], "4")  # any case; in quotes


@pytest.mark.parametrize("order, hint", [
    (["MulBackward0", "AddBackward0", "SubBackward0"], "the engine runs the one recorded later"),
    (["AddBackward0", "SubBackward0", "MulBackward0"], "does not start at AddBackward0"),
    (["MulBackward0", "SubBackward0"], "give each of the three names once"),
    ("MulBackward0, SubBackward0, AddBackward0", "give each of the three names once"),
])
def test_lesson4_a_wrong_order_gets_its_hint(lesson4, order, hint):
    text = lesson4(order, 4.0)
    assert hint in text and "Order: right" not in text


@pytest.mark.parametrize("x_grad, hint", [
    (5.0, "along one path only"),
    (-1.0, "along one path only"),
    (-5.0, "multiplied"),
    (10.0, "Go node by node"),
])
def test_lesson4_a_wrong_x_grad_gets_its_hint(lesson4, x_grad, hint):
    text = lesson4(RIGHT_ORDER, x_grad)
    assert hint in text and "x.grad: right" not in text


def test_lesson4_answers_that_are_not_numbers(lesson4):
    assert lesson4(RIGHT_ORDER, "four") == (
        "Write a number, e.g. my_x_grad = 1.5 (you wrote 'four').\n")


def test_lesson4_no_wrong_reply_gives_the_answer(lesson4):
    for order in (["MulBackward0", "AddBackward0", "SubBackward0"],
                  ["AddBackward0", "SubBackward0", "MulBackward0"],
                  ["SubBackward0", "MulBackward0", "AddBackward0"], ["MulBackward0"]):
        text = lesson4(order, 10.0)
        order_reply = text.split("x.grad:")[0]
        assert "swapped" not in order_reply and "first node is right" not in order_reply, text
        assert str(RIGHT_ORDER) not in order_reply and "4" not in text, text
    for x_grad in (5.0, -1.0, -5.0, 10.0):
        assert "4" not in lesson4(["MulBackward0"], x_grad)
