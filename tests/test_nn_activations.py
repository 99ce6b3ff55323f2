"""The activations of ``minigrad.nn`` (activations.py) against finite differences in float64.

For each of leaky_relu, gelu (both forms), silu, softplus, elu and hardtanh
(and the in-place leaky_relu_/elu_), ``gradcheck`` checks the first
derivative and ``gradgradcheck`` the second (through the backward kernels,
LeakyReluBackwardBackward0, ...), on values drawn away from the kinks.  The
third derivative of the ones whose double backward is composed of ops
(gelu, softplus, elu, silu) is checked with ``gradgradcheck`` on the gradient.
"""

import numpy as np
import pytest
from hypothesis import given

import minigrad
from minigrad.autograd.gradcheck import gradcheck
from minigrad.autograd.gradgradcheck import gradgradcheck
from tests.test_ops_gradcheck import NONSCALAR, SEEDS, SETTINGS, away_from, leaf

F = minigrad.nn.functional

# name -> (function, kinks to stay away from)
ACTIVATIONS = {
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.2), (0.0,)),
    "leaky_relu_inplace": (lambda x: F.leaky_relu_(x * 1.0, 0.3), (0.0,)),
    "gelu": (lambda x: F.gelu(x), ()),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), ()),
    "silu": (lambda x: F.silu(x), ()),
    "softplus": (lambda x: F.softplus(x), ()),
    "softplus_beta_threshold": (lambda x: F.softplus(x, beta=2, threshold=1.5), (0.75,)),
    "elu": (lambda x: F.elu(x), (0.0,)),
    "elu_alpha": (lambda x: F.elu(x, 0.5), (0.0,)),
    "elu_inplace": (lambda x: F.elu_(x * 1.0, 0.7), (0.0,)),
    "hardtanh": (lambda x: F.hardtanh(x), (-1.0, 1.0)),
    "hardtanh_bounds": (lambda x: F.hardtanh(x, -0.5, 1.5), (-0.5, 1.5)),
}
COMPOSED_DOUBLE_BACKWARD = ("gelu", "gelu_tanh", "silu", "softplus", "elu_alpha")


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
@SETTINGS
@given(shape=NONSCALAR, seed=SEEDS)
def test_first_and_second_derivatives(name, shape, seed):
    fn, kinks = ACTIVATIONS[name]
    x = leaf(away_from(np.random.default_rng(seed), shape, kinks or (9.0,), gap=0.1))
    assert gradcheck(fn, (x,), eps=1e-6, atol=1e-5, rtol=1e-3)
    assert gradgradcheck(fn, (x,), eps=1e-6, atol=1e-5, rtol=1e-3)


@pytest.mark.parametrize("name", COMPOSED_DOUBLE_BACKWARD)
@SETTINGS
@given(shape=NONSCALAR, seed=SEEDS)
def test_third_derivative(name, shape, seed):
    fn, kinks = ACTIVATIONS[name]
    x = leaf(away_from(np.random.default_rng(seed), shape, kinks or (9.0,), gap=0.1))

    def grad_of(t):
        (g,) = minigrad.autograd.grad((fn(t) ** 2).sum(), t, create_graph=True)
        return g

    assert gradgradcheck(grad_of, (x,), eps=1e-6, atol=1e-5, rtol=1e-3)


def test_backward_kernels_are_ops_with_their_own_double_backward():
    x = leaf([-1.0, 0.5, 2.0])
    for fn, name in ((lambda t: F.leaky_relu(t, 0.2), "LeakyReluBackwardBackward0"),
                     (F.gelu, "GeluBackwardBackward0"), (F.softplus, "SoftplusBackwardBackward0"),
                     (F.elu, "EluBackwardBackward0"), (F.hardtanh, "HardtanhBackwardBackward0")):
        (g,) = minigrad.autograd.grad(fn(x).sum(), x, create_graph=True)
        assert g.grad_fn.name() == name
        assert g.grad_fn.next_functions[0][0] is None  # the incoming gradient needs none
        assert type(g.grad_fn.next_functions[1][0]).__name__ == "AccumulateGrad"  # to x


def test_nothing_recorded_walk_matches_recorded_walk():
    # the numpy kernels (F.call on arrays) and the recorded ops give the same bits
    x = leaf(np.linspace(-3, 3, 13))
    for fn, _ in ACTIVATIONS.values():
        (a,) = minigrad.autograd.grad(fn(x).sum(), x)
        (b,) = minigrad.autograd.grad(fn(x).sum(), x, create_graph=True)
        np.testing.assert_array_equal(a.numpy(), b.detach().numpy())
