"""saved_tensors_hooks on minigrad see what they see on PyTorch, in the same order.

The programs and their PyTorch logs (pack, unpack, release of each saved
tensor, and each node as it starts) come from
``tests/fixtures/record_saved_hooks_order.py`` / ``saved_hooks_order_torch.json``.
Developer lesson 04 prints such logs, so the order is part of what must match:
e.g. ``a * b`` saves ``b`` (``other``) before ``a`` (``self``), as PyTorch's
derivatives.yaml does.
"""

import importlib.util
import json
from pathlib import Path

import pytest

import minigrad

FIXTURES = Path(__file__).resolve().parent / "fixtures"
_spec = importlib.util.spec_from_file_location(
    "record_saved_hooks_order", FIXTURES / "record_saved_hooks_order.py")
recorder = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(recorder)
RECORDED = json.loads((FIXTURES / "saved_hooks_order_torch.json").read_text(encoding="utf-8"))


def test_every_program_was_recorded():
    assert sorted(RECORDED["logs"]) == sorted(recorder.PROGRAMS)


@pytest.mark.parametrize("name", sorted(recorder.PROGRAMS))
def test_saved_hooks_log_matches_pytorch(name):
    assert recorder.run_program(minigrad, name) == RECORDED["logs"][name]


def test_mul_saves_other_then_self_and_names_them():
    a = minigrad.tensor(2.0, requires_grad=True)
    b = minigrad.tensor(3.0, requires_grad=True)
    packed = []
    with minigrad.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t.item()) or t,
                                                      lambda t: t):
        out = a * b
    assert packed == [3.0, 2.0]
    assert out.grad_fn._saved_self.item() == 2.0
    assert out.grad_fn._saved_other.item() == 3.0
    out.backward()
    assert (a.grad.item(), b.grad.item()) == (3.0, 2.0)
