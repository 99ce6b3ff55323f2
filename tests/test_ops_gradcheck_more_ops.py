"""The ops added so that pasted PyTorch code runs (issue 9), against finite differences in float64.

Each draws shapes and values with hypothesis (away from kinks, ties and the
jumps of the rounding ops), then checks the first derivative with
``gradcheck`` and the second with ``gradgradcheck``: the rounding ops and
``sign`` (zeros), ``frac``, ``log1p``/``expm1``/``log2``/``log10``,
``cumsum``/``cumprod`` (with zeros too), ``tril``/``triu``, ``outer``,
``nansum``/``nanmean``, ``median``, ``fmax``/``fmin``, ``atan2``, ``lerp``,
``addcmul``/``addcdiv`` and ``roll``.
"""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import minigrad
from tests.test_ops_gradcheck import (
    NONSCALAR,
    SEEDS,
    SETTINGS,
    SHAPES,
    TRIPLES,
    away_from,
    distinct,
    leaf,
    on_grid,
    positive,
    smooth,
)
from tests.test_ops_gradcheck_more import check


def off_the_jumps(rng, shape):
    """A multiple of 0.5 plus 0.12 to 0.13: at least 0.02 from every jump of floor, ceil, trunc,
    round, round(decimals=1) and sign, so within eps they are flat."""
    return 0.5 * rng.integers(-4, 5, shape) + rng.uniform(0.12, 0.13, shape)


@SETTINGS
@given(shape=SHAPES, seed=SEEDS)
def test_rounding_ops_have_zero_gradients_and_frac_passes_it(shape, seed):
    x = leaf(off_the_jumps(np.random.default_rng(seed), shape))
    check(lambda t: t.floor() * t + t.ceil() + minigrad.trunc(t) * t + t.round() + t.sign() * t, x)
    check(lambda t: t.round(decimals=1) * t + minigrad.fix(t), x)
    check(lambda t: t.frac() * t, x)


@SETTINGS
@given(shape=SHAPES, seed=SEEDS)
def test_logarithms_and_exponentials(shape, seed):
    rng = np.random.default_rng(seed)
    check(lambda t: t.log1p() * t, leaf(rng.uniform(-0.9, 2.0, shape)))
    check(lambda t: t.expm1() * t, leaf(smooth(rng, shape)))
    check(lambda t: t.log2() + minigrad.log10(t) * t, leaf(positive(rng, shape)))


@SETTINGS
@given(shape=NONSCALAR, seed=SEEDS, data=st.data())
def test_cumsum_and_cumprod(shape, seed, data):
    rng = np.random.default_rng(seed)
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = leaf(smooth(rng, shape))
    check(lambda t: t.cumsum(dim) * t, x)
    check(lambda t: minigrad.cumprod(t, dim), x)
    check(lambda t: t.cumsum(dim, dtype=minigrad.float64) * 2, x)
    with_zeros = smooth(rng, shape)
    with_zeros.flat[data.draw(st.integers(0, with_zeros.size - 1))] = 0.0
    check(lambda t: t.cumprod(dim), leaf(with_zeros))


@SETTINGS
@given(shape=NONSCALAR, seed=SEEDS, k=st.integers(-3, 3), data=st.data())
def test_triangles_outer_and_roll(shape, seed, k, data):
    rng = np.random.default_rng(seed)
    if len(shape) >= 2:
        m = leaf(smooth(rng, shape))
        check(lambda t: t.tril(k) * t + minigrad.triu(t, k), m)
        check(lambda t: (t * 1).tril_(k) + (t * 1).triu_(-k) * t, m)
    v, w = leaf(smooth(rng, shape[:1])), leaf(smooth(rng, shape[-1:]))
    check(lambda p, q: minigrad.outer(p, q) * minigrad.outer(p, q), v, w)
    n = len(shape)
    dims = data.draw(st.lists(st.integers(-n, n - 1), max_size=n, unique=True))
    shifts = data.draw(st.lists(st.integers(-4, 4), min_size=len(dims), max_size=len(dims)))
    flat = data.draw(st.integers(-5, 5))
    x = leaf(smooth(rng, shape))
    check(lambda t: t.roll(shifts, dims) * t if dims else t.roll(flat) * t, x)


@SETTINGS
@given(shape=NONSCALAR, seed=SEEDS, keepdim=st.booleans(), data=st.data())
def test_nansum_nanmean_and_median(shape, seed, keepdim, data):
    rng = np.random.default_rng(seed)
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    nans = np.where(rng.random(shape) < 0.3, np.nan, 0.0)
    holes = minigrad.tensor(nans, dtype=minigrad.float64)  # a constant: no gradient reaches a nan
    x = leaf(smooth(rng, shape))
    check(lambda t: (t * t + holes).nansum(dim, keepdim=keepdim) + minigrad.nansum(t + holes), x)
    if not np.isnan(nans).all():
        check(lambda t: (t * t + holes).nanmean(), x)
    d = leaf(distinct(rng, shape))
    check(lambda t: t.median(dim, keepdim=keepdim).values * t.median(), d)


@SETTINGS
@given(shapes=TRIPLES, seed=SEEDS)
def test_pointwise_of_two_and_three_tensors(shapes, seed):
    rng = np.random.default_rng(seed)
    sa, sb, sc = shapes.input_shapes
    a, b = leaf(on_grid(rng, sa, 0.0)), leaf(on_grid(rng, sb, 0.15))  # never within eps of a tie
    check(lambda p, q: minigrad.fmax(p, q) * minigrad.fmin(p, q) + p.fmax(q), a, b)
    x, y, z = leaf(smooth(rng, sa)), leaf(away_from(rng, sb)), leaf(smooth(rng, sc))
    check(lambda p, q: minigrad.atan2(p, q) * p, x, y)
    check(lambda p, q, w: p.lerp(q, w) * w + minigrad.lerp(p, q, 0.75) * p.lerp(q, -0.25), x, y, z)
    check(lambda p, q, w: minigrad.addcmul(p, q, w, value=-1.5) * q, x, y, z)
    check(lambda p, q, w: p.addcdiv(w, q, value=2.5) * w, x, y, z)
