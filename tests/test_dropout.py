"""``nn.Dropout`` and ``F.dropout`` against what PyTorch 2.13 did for the same calls.

The program that records PyTorch's behaviour (tests/fixtures/record_dropout.py)
runs here on minigrad, and every entry must equal the fixture it wrote from
PyTorch: reprs, error messages, when the input itself is returned, the node a
training-mode call records and what it saves, the values of mask, output and
gradient, and that ``eval()`` leaves the recording on.
"""

import json
from pathlib import Path

import numpy as np

import minigrad
from tests.fixtures.record_dropout import record

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "dropout_torch.json").read_text())


def test_dropout_behaves_as_recorded_from_pytorch():
    mine = record(minigrad)
    expected = {k: v for k, v in FIXTURE.items() if k != "torch"}
    assert sorted(mine) == sorted(expected)
    for key in expected:
        assert mine[key] == expected[key], key


def test_dropout_keeps_about_one_minus_p_and_scales_them():
    minigrad.manual_seed(0)
    x = minigrad.ones(20_000)
    y = minigrad.nn.functional.dropout(x, 0.25)
    kept = y.numpy() != 0
    assert abs(kept.mean() - 0.75) < 0.02
    np.testing.assert_allclose(y.numpy()[kept], 1 / 0.75, rtol=1e-6)
    assert y.dtype == x.dtype


def test_each_call_draws_a_new_mask_and_eval_does_not():
    model = minigrad.nn.Dropout(0.5)
    x = minigrad.ones(1000, requires_grad=True)
    a, b = model(x), model(x)
    assert not minigrad.equal(a, b)
    model.eval()
    assert minigrad.equal(model(x), model(x)) and model(x) is x
