"""l1_loss, smooth_l1_loss, huber_loss, kl_div (nn/losses.py) and F.pad (nn/padding.py) against finite differences.

First derivatives (input and target) with ``gradcheck`` and second with
``gradgradcheck`` (through SmoothL1LossBackwardBackward0 and
HuberLossBackwardBackward0), for every reduction, on values whose
differences stay away from the thresholds (the kinks).
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minigrad
from minigrad.autograd.gradcheck import gradcheck
from minigrad.autograd.gradgradcheck import gradgradcheck
from tests.test_ops_gradcheck import NONSCALAR, SEEDS, SETTINGS, away_from, leaf

F = minigrad.nn.functional

LOSSES = {
    "l1": (lambda x, t, r: F.l1_loss(x, t, reduction=r), (0.0,)),
    "smooth_l1": (lambda x, t, r: F.smooth_l1_loss(x, t, reduction=r), (-1.0, 1.0)),
    "smooth_l1_beta": (lambda x, t, r: F.smooth_l1_loss(x, t, reduction=r, beta=0.4), (-0.4, 0.4)),
    "huber": (lambda x, t, r: F.huber_loss(x, t, reduction=r), (-1.0, 1.0)),
    "huber_delta": (lambda x, t, r: F.huber_loss(x, t, reduction=r, delta=1.7), (-1.7, 1.7)),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
@SETTINGS
@given(shape=NONSCALAR, seed=SEEDS, reduction=st.sampled_from(["mean", "sum", "none"]))
def test_first_and_second_derivatives(name, shape, seed, reduction):
    fn, kinks = LOSSES[name]
    rng = np.random.default_rng(seed)
    t = rng.uniform(-1, 1, shape)
    d = away_from(rng, shape, kinks, gap=0.1)
    x, t = leaf(t + d), leaf(t)
    assert gradcheck(lambda a, b: fn(a, b, reduction), (x, t), eps=1e-6, atol=1e-5, rtol=1e-3)
    assert gradgradcheck(lambda a, b: fn(a, b, reduction), (x, t), eps=1e-6, atol=1e-5, rtol=1e-3)


def test_huber_is_delta_times_smooth_l1():
    x, t = leaf(np.linspace(-3, 3, 11)), leaf(np.linspace(1, -1, 11))
    for delta in (0.3, 1.0, 2.5):
        np.testing.assert_allclose(F.huber_loss(x, t, delta=delta).item(),
                                   delta * F.smooth_l1_loss(x, t, beta=delta).item(), rtol=1e-12)


@SETTINGS
@given(shape=NONSCALAR, seed=SEEDS, data=st.data())
def test_constant_pad(shape, seed, data):
    # F.pad (padding.py): its gradient crops, and the gradient of that pads again
    amounts = data.draw(st.lists(st.integers(-1, 2), min_size=2, max_size=2 * len(shape)).filter(
        lambda p: len(p) % 2 == 0))
    x = leaf(np.random.default_rng(seed).uniform(-2, 2, shape))
    sizes = list(shape)
    for i in range(len(amounts) // 2):
        if sizes[-1 - i] - max(-amounts[2 * i], 0) - max(-amounts[2 * i + 1], 0) < 0:
            return  # crops more than there is (an error, tested by the parity cases)
    fn = lambda a: F.pad(a, tuple(amounts), value=0.5) ** 2  # noqa: E731
    assert gradcheck(fn, (x,), eps=1e-6, atol=1e-5, rtol=1e-3)
    assert gradgradcheck(fn, (x,), eps=1e-6, atol=1e-5, rtol=1e-3)


@pytest.mark.parametrize("reduction", ["batchmean", "sum", "none"])
@SETTINGS
@given(shape=NONSCALAR, seed=SEEDS, log_target=st.booleans())
def test_kl_div(shape, seed, reduction, log_target):
    # F.kl_div (losses.py): xlogy(target, target) - target * input, or its log-target form
    rng = np.random.default_rng(seed)
    x = leaf(rng.uniform(-2, 0, shape))
    t = leaf(rng.uniform(-2, 0, shape) if log_target else rng.uniform(0.1, 1, shape))
    fn = lambda a, b: F.kl_div(a, b, reduction=reduction, log_target=log_target)  # noqa: E731
    assert gradcheck(fn, (x, t), eps=1e-6, atol=1e-5, rtol=1e-3)
    assert gradgradcheck(fn, (x, t), eps=1e-6, atol=1e-5, rtol=1e-3)
