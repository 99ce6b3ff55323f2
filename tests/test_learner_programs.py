"""Programs that learners bring print what they print with PyTorch (issue: code that learners bring).

tests/fixtures/programs/ holds scripts written for PyTorch and run unchanged: an
older tutorial's spelling (``Variable``, ``torch.Tensor([...])``, ``FloatTensor``,
``.type(torch.DoubleTensor)``, ``new_tensor``, backward) and a course's first
notebooks shortened (bigram counts in int32 with ``keepdims``, sampling with
``multinomial`` from a seeded generator, an MLP on ``C[X]`` embeddings trained with
``randint`` minibatches, a hand-derived gradient compared with autograd's).  Each runs
here with ``torch`` bound to minigrad; its output must be the one recorded from
PyTorch 2.13 (tests/fixtures/record_programs.py): the same text, and the same numbers
to float32 rounding (rtol 1e-5, atol 1e-6: a tensor sum printed ``tensor(1.)`` by one
and ``tensor(1.0000)`` by the other is the same number).
"""

import contextlib
import io
import json
import re
import runpy
import sys
from pathlib import Path

import pytest

import minigrad

FIXTURES = Path(__file__).resolve().parent / "fixtures"
RECORDED = json.loads((FIXTURES / "programs_torch.json").read_text(encoding="utf-8"))["programs"]
NUMBER = re.compile(r"-?\d+\.\d*(?:e[-+]?\d+)?|-?\d+(?:e[-+]?\d+)?")


def _as_torch(monkeypatch):
    """``import torch`` (and its nn, nn.functional, autograd, optim) gives minigrad's."""
    for name in ("", ".nn", ".nn.functional", ".autograd", ".optim"):
        monkeypatch.setitem(sys.modules, "torch" + name,
                            __import__("minigrad" + name, fromlist=["_"]))


def _same(expected, actual):
    """The same text, numbers within float32 rounding; the first differing line, or None."""
    exp_lines, act_lines = expected.splitlines(), actual.splitlines()
    for n, (e, a) in enumerate(zip(exp_lines, act_lines), start=1):
        a = a.replace("minigrad.", "torch.")
        if NUMBER.sub("#", e) != NUMBER.sub("#", a):
            return f"line {n}: PyTorch {e!r}, minigrad {a!r}"
        for x, y in zip(NUMBER.findall(e), NUMBER.findall(a)):
            if abs(float(x) - float(y)) > 1e-6 + 1e-5 * abs(float(x)):
                return f"line {n}: PyTorch {e!r}, minigrad {a!r} ({x} against {y})"
    if len(exp_lines) != len(act_lines):
        return f"PyTorch printed {len(exp_lines)} lines, minigrad {len(act_lines)}"
    return None


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_program_prints_what_pytorch_prints(name, monkeypatch):
    from minigrad.ops import conversion

    _as_torch(monkeypatch)
    monkeypatch.setattr(conversion, "_warned_scalar", False)  # a program is a fresh process
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runpy.run_path(str(FIXTURES / "programs" / f"{name}.py"), run_name="__main__")
    assert _same(RECORDED[name], out.getvalue()) is None, _same(RECORDED[name], out.getvalue())


def test_the_comparison_can_fail():
    assert _same("loss 2.9494\ntensor(1.)", "loss 2.9494\ntensor(1.0000)") is None
    assert _same("loss 2.9494", "loss 2.9495") is not None
    assert _same("exact: True ", "exact: False") is not None
    assert _same("a\nb", "a") is not None
    assert minigrad.__name__ == "minigrad"
