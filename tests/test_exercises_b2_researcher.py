"""The "Try it yourself" checks of beginner lesson 2 and researcher lessons 1 to 3, on every
kind of answer (``minigrad/exercises/beginner_02.py``, ``researcher_01.py`` to ``_03.py``).

As in ``test_exercises.py``: each check is run on minigrad with the lesson's own code (the
cells it needs, by id), given the right answer and the wrong answers it names.  The right
answers are worked out by hand in each test; the last test of each lesson checks that no
reply but a "right" one contains them.
"""

import re

import pytest

from minigrad.exercises import beginner_02, researcher_01, researcher_02, researcher_03
from tests.test_exercises import load, said


def replier(check, *code):
    """``check``'s reply to the learner's answers, given the lesson's ``code`` after them."""
    return lambda *answers: said(check, *answers, *code)


def gives_away(reply, *answers):
    """The lines of ``reply`` that are not a "right" reply yet contain one of ``answers``."""
    return [line for line in reply.splitlines() if "right" not in line.lower()
            and any(re.search(rf"(?<![\w.]){re.escape(a)}(?![\w]|\.\d)", line, re.IGNORECASE)
                    for a in answers)]


# --- beginner 02: the note written first, and x.grad, for detour at x = 2 -----------------

def _beginner2():
    detour = load("beginner/02_a_new_trail_every_run.ipynb", "b2-03", "b2-try")["detour"]
    return replier(beginner_02.check, detour)


def test_beginner2_detour():
    check = _beginner2()
    right = check("MulBackward0", 3.0)  # 2.0 > 1: y = x * 3
    assert "First note: right, MulBackward0" in right and "Blame: right, 3.0" in right
    assert "not squaring" in check("PowBackward0", 3.0)
    assert "the last note" in check("AddBackward0", 3.0)
    assert "squaring road's blame" in check("MulBackward0", 4)
    assert "z itself" in check("MulBackward0", 7)  # 2 * 3 + 1
    assert "still None" in check(None, 3.0)
    assert "still None" in check("MulBackward0", None)


def test_beginner2_reads_answers_as_lesson_1_does():
    check = _beginner2()
    for note, blame in [("mulbackward0", "3"), (" MulBackward0", 3), ("MULBACKWARD0", "3.0")]:
        right = check(note, blame)
        assert "First note: right" in right and "Blame: right" in right, (note, blame, right)
    assert check("MulBackward0", "three") == (
        "Write a number, e.g. my_blame = 2.5 (you wrote 'three').\n")
    assert check(3, 3) == ('Write a name in quotes, e.g. my_first_note = "AddBackward0" (you wrote 3).\n')
    assert "whole name" in check("Mul", 3)
    assert "not a note this run writes" in check("ExpBackward0", 3)
    assert "not it yet" in check("MulBackward0", 2.5)


def test_beginner2_no_hint_gives_the_answer_away():
    check = _beginner2()
    for note in (None, "PowBackward0", "AddBackward0", "Mul", "ExpBackward0"):
        for blame in (None, 4, 7, 2.5):
            reply = check(note, blame)
            assert not gives_away(reply, "MulBackward0", "3", "3.0"), (note, blame, reply)


# --- researcher 01: J^T v of f(x) = x * sum(x) ---------------------------------------------

def _vjps():
    ns = load("researcher/01_reverse_mode_as_vjps.ipynb", "r1-01")
    return lambda source: eval(source, ns)  # a function defined in the lesson, with its torch


def test_researcher1_vjp():
    vjp = _vjps()
    # f(x) = x * sum(x): J = diag(s) + x 1^T, so J^T v = s v + (x . v) 1
    assert said(researcher_01.check, vjp("lambda x, v: x.sum() * v + (x * v).sum() * torch.ones_like(x)")
                ).startswith("Right")
    assert said(researcher_01.check, vjp("lambda x, v: x.sum() * v + x * v.sum()")
                ).startswith("That is J v, not J^T v")
    assert "through the factor x" in said(researcher_01.check, vjp("lambda x, v: x.sum() * v"))
    assert "through the sum" in said(researcher_01.check, vjp("lambda x, v: (x * v).sum() * torch.ones_like(x)"))
    assert said(researcher_01.check, vjp("lambda x, v: v")).startswith("Not yet")
    assert "should return a tensor of x's shape (4,)" in said(researcher_01.check, vjp("lambda x, v: v.sum()"))
    assert said(researcher_01.check, len).startswith("Define my_vjp in the cell above")


def test_researcher1_no_hint_gives_the_answer_away():
    vjp = _vjps()
    for source in ("lambda x, v: x.sum() * v + x * v.sum()", "lambda x, v: x.sum() * v",
                   "lambda x, v: (x * v).sum() * torch.ones_like(x)", "lambda x, v: v"):
        reply = said(researcher_01.check, vjp(source))
        assert "x . v" not in reply and "1^T" not in reply and "diag" not in reply, (source, reply)


# --- researcher 02: a checkpointing schedule for k = 40, its peak and evaluations ------------

def _researcher2():
    ns = load("researcher/02_memory_and_checkpointing.ipynb", "r2-01", "r2-03", "r2-87d")
    return replier(researcher_02.check, ns["schedule_step"], ns["tanh_mlp"], ns["batch"])


def test_researcher2_least_peak_is_the_binomial_bound():
    # k <= M (M + 1) / 2: 36 = C(9, 2) is reached by M = 8, 37 needs 9; 16 needs 6 (the lesson's)
    assert [researcher_02.least_peak(k) for k in [16, 36, 37, 40, 45, 46]] == [6, 8, 9, 9, 9, 10]


def test_researcher2_least_evaluations():
    # every layer but the last segment's is evaluated twice; segment j holds at most M - (j - 1)
    # layers.  k = 36, M = 8: only 8, 7, ..., 1 fits, so the last segment is 1 layer: 71.
    # k = 40, M = 9: 7 segments hold at most 9 + ... + 3 = 42 >= 40 with a last of 3; 6 segments
    # hold 39 < 40, and 8 or more leave a last of at most 2: 80 - 3 = 77.
    assert researcher_02.least_evaluations(36, 8) == 71
    assert researcher_02.least_evaluations(40, 9) == 77
    assert researcher_02.least_evaluations(5, 5) == 5            # k <= M: no checkpoint


def test_researcher2_checkpoint_schedule():
    check = _researcher2()
    right = check([9, 8, 7, 6, 5, 2, 3], 9)   # last segment: 6 inputs + 3 activations
    assert "right, measured peak 9" in right and "77 layer evaluations" in right and "peak = 9: right" in right
    assert "peak = 9: right" in check(["8", 8.0, 7, 6, 5, 3, 3], "9")   # numbers in any form, another schedule
    shrink = check([9, 8, 7, 6, 5, 4, 1], 9)  # the page's shrinking(40, 9): least peak, 79 evaluations
    assert "measured peak 9, the least possible, but 79 layer evaluations" in shrink
    assert "peak = 9: right" in shrink
    equal = check([8] * 5, 12)                 # equal split: 4 inputs + 8 activations
    assert "measured peak 12, not the least" in equal and "peak = 12: right for your sizes" in equal
    assert "not the measured value" in check([8] * 5, 13)
    assert "no checkpointing" in check([40], 40)
    assert check([12, 12], 13).startswith("Write a list")        # adds up to 24
    assert check([20, 10, "ten"], 13).startswith("Write a list")
    assert check([20, 20], "thirteen").startswith("Write a number")


def test_researcher2_no_hint_gives_the_answer_away():
    check = _researcher2()
    for sizes, peak in [(None, None), ([40], 40), ([8] * 5, 12), ([9, 8, 7, 6, 5, 4, 1], 9),
                        ([20, 20], 21), ([10, 10, 10, 10], 13)]:
        reply = check(sizes, peak)
        assert not gives_away(reply, "77", "2, 3]", "3, 3]", "last of 3"), (sizes, peak, reply)


# --- researcher 03: graphs and graph breaks of two decisions in a row -----------------------

def _researcher3():
    ns = load("researcher/03_define_by_run_vs_define_then_run.ipynb", "r3-01", "r3-30")
    return replier(researcher_03.check, ns["two_decisions"])


def test_researcher3_graphs():
    check = _researcher3()
    # two `if`s on tensor values: two breaks, three pieces compiled on one call
    right = check(3, 2)
    assert "2 graph breaks: right" in right and "3 graphs: right" in right
    assert "3 graphs: right" in check("3", 2.0)
    assert "one graph per branch" in check(5, 2)
    assert "not what compiling did" in check(3, 1)
    assert check("three", 2).startswith("Write a number")


def test_researcher3_no_hint_gives_the_answer_away():
    check = _researcher3()
    for graphs, breaks in [(None, None), (5, 1), (4, 4), (1, 5)]:
        reply = check(graphs, breaks)
        assert not gives_away(reply, "2", "3"), (graphs, breaks, reply)


# --- the reply stored in each lesson: no answer given yet, and none given away ---------------

@pytest.mark.parametrize("replies, answers, start, not_said", [
    (_beginner2, (None, None), "Write your two answers", "MulBackward0"),
    (lambda: lambda *a: said(researcher_01.check, *a), (None,), "No answer yet", "J"),
    (_researcher2, (None, None), "No prediction yet", "11"),
    (_researcher3, (None, None), "No prediction yet", "right"),
])
def test_the_stored_reply(replies, answers, start, not_said):
    stored = replies()(*answers)
    assert stored.startswith(start) and not_said not in stored


def test_researcher1_products_by_operand_counts_the_kernels_a_walk_runs():
    # a walk without create_graph runs MmBackward0's products on arrays, one with it on tensors:
    # the counter sees both, once each; X is data, so no product with W1 computes X's adjoint
    import minigrad as torch
    X = torch.cos(torch.arange(12.0)).reshape(3, 4)
    W1 = torch.sin(torch.arange(16.0)).reshape(4, 4).requires_grad_()
    W2 = torch.cos(torch.arange(16.0)).reshape(4, 4).requires_grad_()
    loss = (torch.tanh(X @ W1) @ W2).sum()
    for create_graph in (False, True):
        walk = lambda: torch.autograd.grad(loss, (W1, W2), retain_graph=True, create_graph=create_graph)
        assert researcher_01.products_with(W2, walk) == 1      # the adjoint of tanh(X W1): grad W2^T
        assert researcher_01.products_with(W1, walk) == 0      # no grad W1^T: X needs no gradient
        assert sum(researcher_01.products_by_operand(X, walk).values()) == 3   # and grad^T tanh(X W1)
    assert researcher_01.products_with(W1, lambda: X @ W1) == 1
