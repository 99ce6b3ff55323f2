"""The "Try it yourself" checks of the beginner and researcher lessons, on every kind of answer.

As in ``test_lesson_exercises.py`` (the developer tier): a lesson stores its check with no
answer filled in, so nbval only sees the "no prediction yet" reply.  Here each check cell is
taken from its notebook (with the cells it needs, by id), run on minigrad, and given the right
answer and the wrong answers it names.  The right answers are worked out by hand in each test.
"""

import contextlib
import io
import json
from pathlib import Path

import minigrad

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def load(notebook, *cell_ids):
    """The namespace after running the given code cells of ``notebook`` (``torch`` is minigrad).

    The check cell ends by checking the stored (empty) answer; its reply is returned too.
    """
    nb = json.loads((NOTEBOOKS / notebook).read_text(encoding="utf-8"))
    cells = {c["id"]: "".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"}
    namespace = {}
    for cell_id in cell_ids:
        out = io.StringIO()  # what the last cell (the check) printed
        with contextlib.redirect_stdout(out):
            exec(compile(cells[cell_id], f"{notebook}:{cell_id}", "exec"), namespace)
    assert namespace["torch"] is minigrad
    return namespace, out.getvalue()


def said(fn, *args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        fn(*args)
    return out.getvalue()


def test_beginner2_detour():
    ns, stored = load("beginner/02_a_new_trail_every_run.ipynb", "b2-03", "b2-try", "b2-check")
    check = ns["check_detour"]
    assert stored.startswith("Write your two answers") and "MulBackward0" not in stored
    right = said(check, "MulBackward0", 3.0)                           # 2.0 > 1: y = x * 3
    assert "First note: right, MulBackward0" in right and "Blame: right, 3.0" in right
    assert "not squaring" in said(check, "PowBackward0", 3.0)
    assert "the last note" in said(check, "AddBackward0", 3.0)
    assert "squaring road's blame" in said(check, "MulBackward0", 4)
    assert "z itself" in said(check, "MulBackward0", 7)
    assert "still None" in said(check, None, 3.0)


def test_researcher1_vjp():
    ns, stored = load("researcher/01_reverse_mode_as_vjps.ipynb", "r1-01", "r1-07", "r1-46", "r1-45")
    check, torch = ns["check_vjp"], minigrad
    assert stored.startswith("No answer yet") and "J" not in stored
    # f(x) = x * sum(x): J = diag(s) + x 1^T, so J^T v = s v + (x . v) 1
    assert said(check, lambda x, v: x.sum() * v + (x * v).sum() * torch.ones_like(x)).startswith("Right")
    assert said(check, lambda x, v: x.sum() * v + x * v.sum()).startswith("That is J v, not J^T v")
    assert "through the factor x" in said(check, lambda x, v: x.sum() * v)
    assert "through the sum" in said(check, lambda x, v: (x * v).sum() * torch.ones_like(x))
    assert said(check, lambda x, v: v).startswith("Not yet")


def test_researcher2_checkpoint_prediction():
    ns, stored = load("researcher/02_memory_and_checkpointing.ipynb",
                      "r2-01", "r2-03", "r2-14", "r2-18", "r2-41", "r2-40")
    check = ns["check_checkpoint_prediction"]
    assert stored.startswith("No prediction yet") and "11" not in stored
    # k = 36: (s - 1) + 36 / s is smallest at s = 6, where it is 5 + 6 = 11
    right = said(check, 6, 11)
    assert "s = 6: right" in right and "peak = 11: right" in right
    assert "no checkpointing" in said(check, 1, 36)
    assert "every layer its own segment" in said(check, 36, 36)
    assert said(check, "six", 11).startswith("Write numbers")
    wrong = said(check, 4, 12)
    assert "s = 4: measured peak 12" in wrong and "peak = 12: not the measured value" in wrong


def test_researcher3_graphs():
    ns, stored = load("researcher/03_define_by_run_vs_define_then_run.ipynb",
                      "r3-01", "r3-30", "r3-31", "r3-30-check")
    check = ns["check_graphs"]
    assert stored.startswith("No prediction yet") and "right" not in stored
    # two `if`s on tensor values: two breaks, three pieces compiled on one call
    right = said(check, 3, 2)
    assert "2 graph breaks: right" in right and "3 graphs: right" in right
    assert "one graph per branch" in said(check, 5, 2)
    assert "not what compiling did" in said(check, 3, 1)
