"""The operations added for PyTorch's tutorials, against central finite differences in float64.

Each draws shapes and values with hypothesis (away from kinks and ties, see
``test_ops_gradcheck``), then checks the first derivative with ``gradcheck``
and, where the backward is itself differentiable, the second with
``gradgradcheck``: ``sort``, ``topk``, ``diag``, ``diagonal``,
``index_select``, ``index_add``, ``movedim``, the clamp family with number and
tensor bounds, ``binary_cross_entropy_with_logits`` (input, target, weights),
the in-place math methods and the saved outputs of custom Functions.
"""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad
from minigrad.autograd.gradcheck import gradcheck
from minigrad.autograd.gradgradcheck import gradgradcheck
from tests.test_ops_gradcheck import (
    F64,
    NONSCALAR,
    PAIRS,
    SEEDS,
    SETTINGS,
    away_from,
    distinct,
    leaf,
    positive,
    smooth,
)

F = minigrad.nn.functional


def check(fn, *inputs, second=True):
    __tracebackhide__ = True
    assert gradcheck(fn, tuple(inputs), eps=1e-6, atol=1e-5, rtol=1e-3)
    if second:
        assert gradgradcheck(fn, tuple(inputs), eps=1e-6, atol=1e-5, rtol=1e-3)


@SETTINGS
@given(shape=NONSCALAR, seed=SEEDS, data=st.data())
def test_sort_and_topk(shape, seed, data):
    rng = np.random.default_rng(seed)
    x = leaf(distinct(rng, shape))
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    descending = data.draw(st.booleans())
    check(lambda t: t.sort(dim, descending=descending).values * 1.5, x)
    k = data.draw(st.integers(0, shape[dim]))
    check(lambda t: t.topk(k, dim, largest=descending).values, x)


@SETTINGS
@given(n=st.integers(1, 4), m=st.integers(1, 4), offset=st.integers(-3, 3), seed=SEEDS)
def test_diag_both_ways_and_diagonal(n, m, offset, seed):
    rng = np.random.default_rng(seed)
    check(lambda v: v.diag(offset), leaf(smooth(rng, (n,))))
    check(lambda a: a.diag(offset), leaf(smooth(rng, (n, m))))
    check(lambda a: a.diagonal(offset, 0, 2) ** 2, leaf(smooth(rng, (n, 2, m))))


@SETTINGS
@given(shape=NONSCALAR, seed=SEEDS, data=st.data())
def test_index_select_and_index_add(shape, seed, data):
    rng = np.random.default_rng(seed)
    dim = data.draw(st.integers(0, len(shape) - 1))
    picks = data.draw(st.lists(st.integers(0, shape[dim] - 1), min_size=0, max_size=4))
    index = minigrad.tensor(picks, dtype=minigrad.int64)
    x = leaf(smooth(rng, shape))
    check(lambda t: t.index_select(dim, index), x)
    src_shape = list(shape)
    src_shape[dim] = len(picks)
    src = leaf(smooth(rng, src_shape))
    alpha = data.draw(st.sampled_from([1, -2.5]))
    check(lambda t, s: t.index_add(dim, index, s, alpha=alpha), x, src)
    check(lambda t, s: (t * 1).index_add_(dim, index, s) * t, x, src)


@SETTINGS
@given(shape=hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=3), seed=SEEDS,
       data=st.data())
def test_movedim(shape, seed, data):
    rng = np.random.default_rng(seed)
    n = len(shape)
    src = data.draw(st.lists(st.integers(0, n - 1), unique=True, min_size=1, max_size=n))
    dst = data.draw(st.permutations(range(n)))[:len(src)]
    check(lambda t: t.movedim(src, dst) * 2, leaf(smooth(rng, shape)))


@SETTINGS
@given(shapes=PAIRS, seed=SEEDS)
def test_clamp_family(shapes, seed):
    rng = np.random.default_rng(seed)
    (sa, sb) = shapes.input_shapes
    x = leaf(away_from(rng, sa, (-0.5, 0.5)))
    check(lambda t: t.clamp_min(-0.5), x)
    check(lambda t: t.clamp_max(0.5), x)
    check(lambda t: minigrad.clip(t, -0.5, 0.5), x)
    # tensor bounds: the bounds get gradients where they win; keep |x - bound| > 0.1
    lo = leaf(rng.uniform(-0.4, -0.1, sb))
    hi = leaf(rng.uniform(0.1, 0.4, sb))
    x2 = leaf(np.where(np.abs(x._data) < 0.45, np.sign(x._data + 1e-9) * 0.45, x._data) * 1.0)
    check(lambda t, a, b: t.clamp(a, b), x2, lo, hi, second=False)
    check(lambda t, a: t.clamp(min=a), x2, lo, second=False)
    check(lambda t, b: t.clamp_max(b), x2, hi, second=False)
    check(lambda t, a: minigrad.clamp_min(t, a), x2, lo, second=False)


@SETTINGS
@given(shape=NONSCALAR, seed=SEEDS, reduction=st.sampled_from(["mean", "sum", "none"]),
       weighted=st.booleans())
def test_binary_cross_entropy_with_logits(shape, seed, reduction, weighted):
    rng = np.random.default_rng(seed)
    z = leaf(rng.uniform(-3, 3, shape))
    y = leaf(rng.uniform(0, 1, shape))
    w = minigrad.tensor(rng.uniform(0.5, 2, shape[-1:]), dtype=F64) if weighted else None
    pw = minigrad.tensor(rng.uniform(0.5, 3, shape[-1:]), dtype=F64) if weighted else None
    check(lambda a, b: F.binary_cross_entropy_with_logits(a, b, w, reduction=reduction,
                                                          pos_weight=pw), z, y)


INPLACE = {
    "sin_": smooth, "cos_": smooth, "exp_": smooth, "log_": positive, "sigmoid_": smooth,
    "tanh_": smooth, "sqrt_": positive, "abs_": away_from, "neg_": smooth, "square_": smooth,
    "reciprocal_": positive,
}


@SETTINGS
@given(name=st.sampled_from(sorted(INPLACE)), shape=NONSCALAR, seed=SEEDS)
def test_inplace_math(name, shape, seed):
    rng = np.random.default_rng(seed)
    x = leaf(INPLACE[name](rng, shape))

    def fn(t):
        y = t * 1
        getattr(y, name)()
        return y * t

    check(fn, x)


def test_relu_inplace_and_relu_module():
    x = leaf([-1.3, 0.4, 2.0])
    check(lambda t: F.relu(t * 1, inplace=True) * t, x)
    check(lambda t: minigrad.nn.ReLU(inplace=True)(t * 2), x)


def test_custom_function_saving_its_second_output():
    # the double-backward tutorial's Sinh: outputs 1 and 2 saved, used in double backward
    class Sinh(minigrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            expx, expnegx = minigrad.exp(x), minigrad.exp(-x)
            ctx.save_for_backward(expx, expnegx)
            return (expx - expnegx) / 2, expx, expnegx

        @staticmethod
        def backward(ctx, g, g_exp, g_negexp):
            expx, expnegx = ctx.saved_tensors
            return g * (expx + expnegx) / 2 + g_exp * expx - g_negexp * expnegx

    x = leaf([[0.1, 0.5], [0.9, -0.3]])
    check(lambda t: Sinh.apply(t)[0], x)
    check(lambda t: Sinh.apply(t)[1] * Sinh.apply(t)[2] + Sinh.apply(t)[0], x)
