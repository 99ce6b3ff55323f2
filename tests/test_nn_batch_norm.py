"""F.batch_norm (nn/batchnorm.py) against finite differences in float64, and its running statistics.

First derivatives (input, weight, bias) with ``gradcheck``, second with
``gradgradcheck`` (through NativeBatchNormBackwardBackward0), in training
(the batch's statistics) and in evaluation (the running ones), and a third
derivative in training (the double backward recomputes the batch statistics
with recorded ops).  The running statistics after a step against numpy's
mean and unbiased variance.  PyTorch's values, nodes and errors are in the
parity cases (tests/fixtures/cases_learners.py).
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minigrad
from minigrad.autograd.gradcheck import gradcheck
from minigrad.autograd.gradgradcheck import gradgradcheck
from tests.test_ops_gradcheck import SEEDS, SETTINGS, leaf

F = minigrad.nn.functional
TOL = {"eps": 1e-6, "atol": 1e-5, "rtol": 1e-3}


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", ["both", "weight", "bias", "none"])
@SETTINGS
@given(seed=SEEDS, shape=st.sampled_from([(4, 3), (2, 3, 2), (2, 2, 2, 2)]))
def test_first_and_second_derivatives(training, affine, seed, shape):
    rng = np.random.default_rng(seed)
    c = shape[1]
    x = leaf(rng.uniform(-2, 2, shape))
    w = leaf(rng.uniform(0.5, 2, (c,))) if affine in ("both", "weight") else None
    b = leaf(rng.uniform(-1, 1, (c,))) if affine in ("both", "bias") else None
    params = tuple(p for p in (w, b) if p is not None)
    mean = minigrad.tensor(rng.uniform(-1, 1, (c,)))
    var = minigrad.tensor(rng.uniform(0.5, 2, (c,)))

    def fn(x, *ps):
        it = iter(ps)
        # fresh copies: a training call moves the running statistics it is given
        return F.batch_norm(x, mean.clone(), var.clone(), next(it) if w is not None else None,
                            next(it) if b is not None else None, training=training, eps=1e-3) ** 2

    assert gradcheck(fn, (x,) + params, **TOL)
    assert gradgradcheck(fn, (x,) + params, **TOL)


@pytest.mark.parametrize("momentum", [0.1, None])
def test_running_statistics_follow_the_batches(momentum):
    rng = np.random.default_rng(0)
    batches = [rng.normal(2.0, 3.0, (8, 3, 5)) for _ in range(3)]
    m = minigrad.nn.BatchNorm1d(3, momentum=momentum, dtype=minigrad.float64)
    mean, var = np.zeros(3), np.ones(3)
    for k, data in enumerate(batches, start=1):
        m(minigrad.tensor(data))
        f = 1.0 / k if momentum is None else momentum
        mean = (1 - f) * mean + f * data.mean(axis=(0, 2))
        var = (1 - f) * var + f * data.var(axis=(0, 2), ddof=1)
    np.testing.assert_allclose(m.running_mean.numpy(), mean, rtol=1e-12)
    np.testing.assert_allclose(m.running_var.numpy(), var, rtol=1e-12)
    assert m.num_batches_tracked.item() == 3
    m.eval()
    data = batches[0]
    expect = (data - mean[None, :, None]) / np.sqrt(var[None, :, None] + m.eps)
    np.testing.assert_allclose(m(minigrad.tensor(data)).detach().numpy(), expect, rtol=1e-10)
    assert m.num_batches_tracked.item() == 3  # evaluation moves nothing
