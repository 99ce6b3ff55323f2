"""Every operator's gradient against central finite differences, in float64, on hypothesis shapes.

Each test draws shapes (and, for binary ops, mutually broadcastable shapes, so
the gradient must come back summed to each input's shape) plus a seed for the
values, builds float64 leaves and runs ``minigrad.autograd.gradcheck``: the
whole Jacobian from backward must match central differences.

Values are drawn away from kinks and domain edges, where a central difference
straddles two pieces and means nothing: ``log``/``sqrt``/fractional powers on
positive values, ``relu``/``abs``/``clamp`` away from 0 and the bounds,
``max``/``amax``/``maximum`` without ties (ties and kinks are pinned by the
PyTorch parity fixtures instead, in tests/fixtures/cases.py, "conventions").

The operators: creation-adjacent arithmetic with Python scalars on either
side, every elementwise op (method and function forms), the reductions with
``dim`` as None, int, tuple or negative and ``keepdim``, every shape op,
indexing with ints, slices, None, masks and (repeated) integer arrays,
``matmul`` for every rank combination, and ``minigrad.nn.functional``.
"""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad
from minigrad.autograd.gradcheck import gradcheck

F = minigrad.nn.functional
F64 = minigrad.float64

SETTINGS = settings(max_examples=15, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)
NONSCALAR = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3)
PAIRS = hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=1, max_side=3)
TRIPLES = hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, min_side=1,
                                            max_side=3)
SEEDS = st.integers(0, 2**32 - 1)


# ------------------------------------------------------------------ values

def leaf(values):
    return minigrad.tensor(np.asarray(values, dtype=np.float64), dtype=F64, requires_grad=True)


def smooth(rng, shape):
    return rng.uniform(-2.0, 2.0, shape)


def positive(rng, shape):
    return rng.uniform(0.5, 2.0, shape)


def away_from(rng, shape, points=(0.0,), gap=0.15):
    """Uniform in [-2, 2], redrawn until no value is within ``gap`` of a point (a kink)."""
    v = np.asarray(rng.uniform(-2.0, 2.0, shape))
    for _ in range(100):
        bad = np.zeros(v.shape, dtype=bool)
        for p in points:
            bad |= np.abs(v - p) < gap
        if not bad.any():
            return v
        v[bad] = rng.uniform(-2.0, 2.0, int(bad.sum()))
    raise AssertionError("could not draw values away from the kinks")


def distinct(rng, shape):
    """No two values within 0.2 of each other: max/min/amax have no ties within eps."""
    n = math.prod(shape)
    v = rng.permutation(n) * 0.25 - n * 0.125 + rng.uniform(-0.02, 0.02, n)
    return v.reshape(shape)


def on_grid(rng, shape, offset):
    """Multiples of 0.3 plus ``offset`` (jittered): two grids 0.15 apart never tie."""
    return 0.3 * rng.integers(-5, 6, shape) + offset + rng.uniform(-0.02, 0.02, shape)


def check(fn, *inputs):
    __tracebackhide__ = True
    assert gradcheck(fn, tuple(inputs), eps=1e-6, atol=1e-5, rtol=1e-3)


# ------------------------------------------------------------- elementwise

UNARY = {
    # name: (function, values)
    "neg_operator": (lambda x: -x, smooth),
    "neg_method": (lambda x: x.neg(), smooth),
    "neg_function": (minigrad.neg, smooth),
    "abs_method": (lambda x: x.abs(), away_from),
    "abs_function": (minigrad.abs, away_from),
    "abs_builtin": (abs, away_from),
    "exp_method": (lambda x: x.exp(), smooth),
    "exp_function": (minigrad.exp, smooth),
    "log_method": (lambda x: x.log(), positive),
    "log_function": (minigrad.log, positive),
    "sqrt_method": (lambda x: x.sqrt(), positive),
    "sqrt_function": (minigrad.sqrt, positive),
    "sin_method": (lambda x: x.sin(), smooth),
    "sin_function": (minigrad.sin, smooth),
    "cos_method": (lambda x: x.cos(), smooth),
    "cos_function": (minigrad.cos, smooth),
    "tanh_method": (lambda x: x.tanh(), smooth),
    "tanh_function": (minigrad.tanh, smooth),
    "sigmoid_method": (lambda x: x.sigmoid(), smooth),
    "sigmoid_function": (minigrad.sigmoid, smooth),
    "relu_method": (lambda x: x.relu(), away_from),
    "relu_function": (minigrad.relu, away_from),
    "clamp_both": (lambda x: x.clamp(-0.5, 0.5), lambda r, s: away_from(r, s, (-0.5, 0.5))),
    "clamp_function": (lambda x: minigrad.clamp(x, min=-1.0, max=1.0),
                       lambda r, s: away_from(r, s, (-1.0, 1.0))),
    "clamp_min_only": (lambda x: x.clamp(min=0.25), lambda r, s: away_from(r, s, (0.25,))),
    "clamp_max_only": (lambda x: x.clamp(max=-0.25), lambda r, s: away_from(r, s, (-0.25,))),
    "add_scalar": (lambda x: x + 2, smooth),
    "radd_scalar": (lambda x: 1.5 + x, smooth),
    "sub_scalar": (lambda x: x - 0.5, smooth),
    "rsub_scalar": (lambda x: 2 - x, smooth),
    "mul_scalar": (lambda x: x * 3, smooth),
    "rmul_scalar": (lambda x: -1.5 * x, smooth),
    "div_scalar": (lambda x: x / 4, smooth),
    "rdiv_scalar": (lambda x: 3 / x, away_from),
    "pow_2": (lambda x: x ** 2, smooth),
    "pow_3_method": (lambda x: x.pow(3), smooth),
    "pow_0": (lambda x: x ** 0, smooth),
    "pow_half": (lambda x: x ** 0.5, positive),
    "pow_minus_1": (lambda x: x ** -1, away_from),
    "pow_minus_1_5": (lambda x: x ** -1.5, positive),
    "pow_function": (lambda x: minigrad.pow(x, 2.5), positive),
    "rpow_scalar": (lambda x: 2 ** x, smooth),
    "rpow_function": (lambda x: minigrad.pow(0.5, x), smooth),
    "F_relu": (F.relu, away_from),
    "F_tanh": (F.tanh, smooth),
    "F_sigmoid": (F.sigmoid, smooth),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@SETTINGS
@given(shape=SHAPES, seed=SEEDS)
def test_unary(name, shape, seed):
    fn, values = UNARY[name]
    rng = np.random.default_rng(seed)
    check(fn, leaf(values(rng, shape)))


BINARY = {
    # name: (function, values of a, values of b)
    "add": (lambda a, b: a + b, smooth, smooth),
    "add_function_alpha": (lambda a, b: minigrad.add(a, b, alpha=2), smooth, smooth),
    "sub": (lambda a, b: a - b, smooth, smooth),
    "sub_function_alpha": (lambda a, b: minigrad.sub(a, b, alpha=0.5), smooth, smooth),
    "sub_method": (lambda a, b: a.sub(b), smooth, smooth),
    "mul": (lambda a, b: a * b, smooth, smooth),
    "mul_function": (minigrad.mul, smooth, smooth),
    "div": (lambda a, b: a / b, smooth, away_from),
    "div_method": (lambda a, b: a.div(b), smooth, away_from),
    "pow_tensors": (lambda a, b: a ** b, positive, smooth),
    "pow_function": (minigrad.pow, positive, smooth),
    "maximum": (minigrad.maximum, lambda r, s: on_grid(r, s, 0.0), lambda r, s: on_grid(r, s, 0.15)),
    "maximum_method": (lambda a, b: a.maximum(b), lambda r, s: on_grid(r, s, 0.0),
                       lambda r, s: on_grid(r, s, 0.15)),
    "minimum": (minigrad.minimum, lambda r, s: on_grid(r, s, 0.0), lambda r, s: on_grid(r, s, 0.15)),
    "max_of_two": (minigrad.max, lambda r, s: on_grid(r, s, 0.0), lambda r, s: on_grid(r, s, 0.15)),
    "same_leaf_twice": (lambda a, b: a * a + b * a, smooth, smooth),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@SETTINGS
@given(shapes=PAIRS, seed=SEEDS)
def test_binary_broadcasting(name, shapes, seed):
    fn, va, vb = BINARY[name]
    rng = np.random.default_rng(seed)
    sa, sb = shapes.input_shapes
    check(fn, leaf(va(rng, sa)), leaf(vb(rng, sb)))


@SETTINGS
@given(shapes=TRIPLES, seed=SEEDS)
def test_where_broadcasting(shapes, seed):
    rng = np.random.default_rng(seed)
    sc, sa, sb = shapes.input_shapes
    cond = minigrad.tensor(rng.random(sc) < 0.5)
    check(lambda a, b: minigrad.where(cond, a, b), leaf(smooth(rng, sa)), leaf(smooth(rng, sb)))


@SETTINGS
@given(shape=SHAPES, seed=SEEDS, scalar_side=st.sampled_from(["self", "other"]))
def test_where_with_a_python_scalar(shape, seed, scalar_side):
    rng = np.random.default_rng(seed)
    x = leaf(smooth(rng, shape))
    if scalar_side == "other":
        check(lambda a: minigrad.where(a > 0, a * 2, 0.5), x)
    else:
        check(lambda a: minigrad.where(a > 0, 1.5, a.exp()), x)


@SETTINGS
@given(shapes=PAIRS, seed=SEEDS)
def test_where_with_a_mask_of_a_graph_value(shapes, seed):
    rng = np.random.default_rng(seed)
    sa, sb = shapes.input_shapes
    check(lambda a, b: minigrad.where(a * b > 0, a.exp(), b.sin()),
          leaf(away_from(rng, sa)), leaf(away_from(rng, sb)))


@SETTINGS
@given(shapes=PAIRS, seed=SEEDS)
def test_composite_expression(shapes, seed):
    rng = np.random.default_rng(seed)
    sa, sb = shapes.input_shapes

    def fn(a, b):
        h = (a * b + a.sin()) / (1 + b * b)
        return (h.tanh() - 2 ** (b / 4)).sigmoid() * a.exp() + (b * b + 1).sqrt().log()

    check(fn, leaf(smooth(rng, sa)), leaf(smooth(rng, sb)))


# -------------------------------------------------------------- reductions

@st.composite
def dims_for(draw, ndim, allow_none=True, allow_tuple=True):
    """A ``dim`` argument for a tensor of ``ndim`` dims: None, an int or a tuple, negatives included."""
    n = max(ndim, 1)
    choices = ["int"] + (["none"] if allow_none else []) + (["tuple"] if allow_tuple and ndim else [])
    kind = draw(st.sampled_from(choices))
    if kind == "none":
        return None
    if kind == "int":
        return draw(st.integers(-n, n - 1))
    picked = draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True))
    return tuple(d - ndim if draw(st.booleans()) else d for d in picked)


REDUCTIONS = {
    # name: (function of (x, dim, keepdim), values, dim=None allowed, tuple dims allowed)
    "sum": (lambda x, d, k: x.sum() if d is None else x.sum(d, keepdim=k), smooth, True, True),
    "sum_function": (lambda x, d, k: minigrad.sum(x) if d is None else minigrad.sum(x, dim=d, keepdim=k),
                     smooth, True, True),
    "mean": (lambda x, d, k: x.mean() if d is None else x.mean(d, keepdim=k), smooth, True, True),
    "mean_function": (lambda x, d, k: minigrad.mean(x) if d is None else minigrad.mean(x, d, k),
                      smooth, True, True),
    "amax": (lambda x, d, k: x.amax() if d is None else x.amax(d, keepdim=k), distinct, True, True),
    "amin_function": (lambda x, d, k: minigrad.amin(x) if d is None else minigrad.amin(x, d, k),
                      distinct, True, True),
    "max": (lambda x, d, k: x.max() if d is None else x.max(d, keepdim=k).values, distinct, True, False),
    "max_function": (lambda x, d, k: minigrad.max(x) if d is None else minigrad.max(x, d, k)[0],
                     distinct, True, False),
    "min": (lambda x, d, k: x.min() if d is None else x.min(dim=d, keepdim=k).values, distinct, True,
            False),
    "logsumexp": (lambda x, d, k: x.logsumexp(d, keepdim=k), smooth, False, True),
    "logsumexp_function": (lambda x, d, k: minigrad.logsumexp(x, d, k), smooth, False, True),
    "softmax": (lambda x, d, k: x.softmax(d), smooth, False, False),
    "softmax_function": (lambda x, d, k: minigrad.softmax(x, dim=d), smooth, False, False),
    "log_softmax": (lambda x, d, k: x.log_softmax(d), smooth, False, False),
    "log_softmax_function": (lambda x, d, k: minigrad.log_softmax(x, d), smooth, False, False),
    "F_softmax": (lambda x, d, k: F.softmax(x, dim=d), smooth, False, False),
    "F_log_softmax": (lambda x, d, k: F.log_softmax(x, dim=d), smooth, False, False),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@SETTINGS
@given(data=st.data(), shape=NONSCALAR, seed=SEEDS, keepdim=st.booleans())
def test_reduction(name, data, shape, seed, keepdim):
    fn, values, allow_none, allow_tuple = REDUCTIONS[name]
    dim = data.draw(dims_for(len(shape), allow_none, allow_tuple), label="dim")
    rng = np.random.default_rng(seed)
    check(lambda x: fn(x, dim, keepdim), leaf(values(rng, shape)))


@pytest.mark.parametrize("name", ["sum", "mean", "amax", "max", "logsumexp", "softmax", "log_softmax"])
@SETTINGS
@given(seed=SEEDS)
def test_reduction_of_a_0d_tensor(name, seed):
    fn, values, allow_none, _ = REDUCTIONS[name]
    rng = np.random.default_rng(seed)
    x = leaf(values(rng, ()))
    check(lambda t: fn(t, 0, False), x)
    if allow_none:
        check(lambda t: fn(t, None, False), x)


@SETTINGS
@given(shape=NONSCALAR, seed=SEEDS, data=st.data())
def test_softmax_large_logits(shape, seed, data):
    """Logits of magnitude 1e3: softmax, log_softmax, logsumexp stay finite and correct."""
    rng = np.random.default_rng(seed)
    dim = data.draw(st.integers(-len(shape), len(shape) - 1), label="dim")
    x = leaf(1000.0 * rng.choice([-1.0, 0.0, 1.0], shape) + smooth(rng, shape))
    for fn in (lambda t: t.softmax(dim), lambda t: t.log_softmax(dim), lambda t: t.logsumexp(dim)):
        out = fn(x)
        assert np.isfinite(out.detach().numpy()).all()
        check(fn, x)


# ------------------------------------------------------------------- shape

@SETTINGS
@given(shape=SHAPES, seed=SEEDS, target=st.sampled_from(["flat", "column", "row", "reversed"]),
       method=st.sampled_from(["reshape", "view", "function"]))
def test_reshape_and_view(shape, seed, target, method):
    n = math.prod(shape)
    new = {"flat": (-1,), "column": (n, 1), "row": (1, -1), "reversed": tuple(reversed(shape))}[target]
    fn = {"reshape": lambda x: x.reshape(*new), "view": lambda x: x.view(new),
          "function": lambda x: minigrad.reshape(x, new)}[method]
    check(fn, leaf(smooth(np.random.default_rng(seed), shape)))


@SETTINGS
@given(shape=NONSCALAR, seed=SEEDS, data=st.data())
def test_transpose_and_permute(shape, seed, data):
    n = len(shape)
    d0 = data.draw(st.integers(-n, n - 1), label="dim0")
    d1 = data.draw(st.integers(-n, n - 1), label="dim1")
    perm = data.draw(st.permutations(range(n)), label="dims")
    x = leaf(smooth(np.random.default_rng(seed), shape))
    check(lambda t: t.transpose(d0, d1), x)
    check(lambda t: minigrad.transpose(t, d0, d1), x)
    check(lambda t: t.permute(*perm), x)
    check(lambda t: minigrad.permute(t, tuple(perm)), x)
    # a reshape of a non-contiguous tensor copies (CloneBackward0, UnsafeViewBackward0)
    check(lambda t: t.permute(*perm).reshape(-1), x)


@SETTINGS
@given(rows=st.integers(1, 3), cols=st.integers(1, 3), seed=SEEDS)
def test_T_and_t(rows, cols, seed):
    x = leaf(smooth(np.random.default_rng(seed), (rows, cols)))
    check(lambda t: t.T, x)
    check(lambda t: t.t(), x)
    check(lambda t: t.mT, x)
    check(lambda t: t.T.flatten(), x)


@SETTINGS
@given(shape=SHAPES, seed=SEEDS, data=st.data())
def test_unsqueeze_squeeze_flatten(shape, seed, data):
    n = len(shape)
    x = leaf(smooth(np.random.default_rng(seed), shape))
    d = data.draw(st.integers(-n - 1, n), label="unsqueeze dim")
    check(lambda t: t.unsqueeze(d), x)
    check(lambda t: minigrad.unsqueeze(t, d), x)
    check(lambda t: t.unsqueeze(d).squeeze(d), x)
    check(lambda t: t.unsqueeze(d).squeeze(), x)
    if n:
        s = data.draw(st.integers(-n, n - 1), label="squeeze dim")
        check(lambda t: t.squeeze(s), x)
        start = data.draw(st.integers(0, n - 1), label="start_dim")
        end = data.draw(st.integers(start, n - 1), label="end_dim")
        check(lambda t: t.flatten(start, end), x)
        check(lambda t: minigrad.flatten(t, start - n if data.draw(st.booleans()) else start), x)
    check(lambda t: t.flatten(), x)


@SETTINGS
@given(shape=SHAPES, seed=SEEDS, data=st.data())
def test_expand(shape, seed, data):
    """Size-1 dims expanded and new leading dims added: the gradient sums back."""
    ones = tuple(1 if data.draw(st.booleans()) else s for s in shape)
    lead = data.draw(st.lists(st.integers(1, 3), max_size=2), label="leading dims")
    target = tuple(lead) + tuple(3 if s == 1 else s for s in ones)
    keep = tuple(lead) + tuple(-1 if s != 1 else 3 for s in ones)
    x = leaf(smooth(np.random.default_rng(seed), ones))
    check(lambda t: t.expand(*target), x)
    check(lambda t: t.expand(keep), x)
    check(lambda t: t.expand_as(minigrad.zeros(target)), x)


@SETTINGS
@given(shape=NONSCALAR, seed=SEEDS, data=st.data())
def test_cat(shape, seed, data):
    n = len(shape)
    d = data.draw(st.integers(-n, n - 1), label="dim")
    sizes = data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=3), label="sizes along dim")
    rng = np.random.default_rng(seed)
    parts = []
    for k in sizes:
        s = list(shape)
        s[d] = k
        parts.append(leaf(smooth(rng, tuple(s))))
    check(lambda *ts: minigrad.cat(list(ts), dim=d), *parts)
    check(lambda *ts: minigrad.cat(ts + ts[:1], d), *parts)  # the first one twice: fan-in


@SETTINGS
@given(shape=SHAPES, seed=SEEDS, count=st.integers(1, 3), data=st.data())
def test_stack(shape, seed, count, data):
    n = len(shape)
    d = data.draw(st.integers(-n - 1, n), label="dim")
    rng = np.random.default_rng(seed)
    parts = [leaf(smooth(rng, shape)) for _ in range(count)]
    check(lambda *ts: minigrad.stack(list(ts), dim=d), *parts)
    check(lambda *ts: minigrad.stack(ts + ts, d), *parts)


@SETTINGS
@given(shape=NONSCALAR, seed=SEEDS, data=st.data())
def test_select_and_narrow(shape, seed, data):
    n = len(shape)
    d = data.draw(st.integers(-n, n - 1), label="dim")
    size = shape[d]
    i = data.draw(st.integers(-size, size - 1), label="index")
    start = data.draw(st.integers(0, size - 1), label="start")
    length = data.draw(st.integers(1, size - start), label="length")
    x = leaf(smooth(np.random.default_rng(seed), shape))
    check(lambda t: t.select(d, i), x)
    check(lambda t: t.narrow(d, start, length), x)


# ---------------------------------------------------------------- indexing

@SETTINGS
@given(shape=NONSCALAR, seed=SEEDS, data=st.data())
def test_index_ints_slices_none(shape, seed, data):
    x = leaf(smooth(np.random.default_rng(seed), shape))
    key = []
    for s in shape:
        kind = data.draw(st.sampled_from(["int", "slice", "full", "none"]))
        if kind == "int":
            key.append(data.draw(st.integers(-s, s - 1)))
        elif kind == "slice":
            start = data.draw(st.integers(-s, s - 1))
            stop = data.draw(st.one_of(st.none(), st.integers(-s, s)))
            step = data.draw(st.integers(1, 2))
            key.append(slice(start, stop, step))
        elif kind == "full":
            key.append(slice(None))
        else:
            key += [None, slice(None)]
    key = tuple(key)
    out = x[key]
    if out.numel() == 0:
        return  # an empty slice has no Jacobian to check
    check(lambda t: t[key], x)
    check(lambda t: t[..., None], x)
    check(lambda t: t[0], x)
    check(lambda t: t[-1], x)


@SETTINGS
@given(shape=NONSCALAR, seed=SEEDS, data=st.data())
def test_index_boolean_mask(shape, seed, data):
    rng = np.random.default_rng(seed)
    x = leaf(smooth(rng, shape))
    mask = rng.random(shape) < 0.6
    if not mask.any():
        mask.flat[data.draw(st.integers(0, mask.size - 1))] = True
    m = minigrad.tensor(mask)
    check(lambda t: t[m], x)
    check(lambda t: t[t > -10], x)
    rows = rng.random(shape[0]) < 0.6
    rows[data.draw(st.integers(0, shape[0] - 1))] = True
    r = minigrad.tensor(rows)
    check(lambda t: t[r], x)


@SETTINGS
@given(shape=NONSCALAR, seed=SEEDS, data=st.data())
def test_index_integer_arrays_with_repeats(shape, seed, data):
    """Repeated indices: the gradient is a scatter-add, each pick adds its share."""
    x = leaf(smooth(np.random.default_rng(seed), shape))
    s0 = shape[0]
    idx = data.draw(st.lists(st.integers(-s0, s0 - 1), min_size=1, max_size=6), label="indices")
    check(lambda t: t[idx], x)
    check(lambda t: t[minigrad.tensor(idx)], x)
    check(lambda t: t[idx] * minigrad.arange(1.0, len(idx) + 1.0, dtype=F64).reshape(
        (len(idx),) + (1,) * (len(shape) - 1)), x)
    if len(shape) >= 2:
        s1 = shape[1]
        cols = data.draw(st.lists(st.integers(-s1, s1 - 1), min_size=len(idx), max_size=len(idx)),
                         label="second indices")
        check(lambda t: t[:, cols], x)
        check(lambda t: t[idx, cols], x)
        check(lambda t: t[0, cols], x)
        idx2 = minigrad.tensor([idx, idx])  # a 2-d index array
        check(lambda t: t[idx2], x)


# ----------------------------------------------------------------- linalg

@st.composite
def matmul_shapes(draw):
    """Operand shapes for ``a @ b``: every rank combination, batch dims broadcasting."""
    ra = draw(st.integers(1, 4))
    rb = draw(st.integers(1, 4))
    n, k, m = (draw(st.integers(1, 3)) for _ in range(3))
    batch = tuple(draw(st.integers(1, 3)) for _ in range(max(ra, rb) - 2))

    def batch_of(r):
        own = batch[len(batch) - (r - 2):] if r > 2 else ()
        return tuple(1 if draw(st.booleans()) else s for s in own)

    sa = (k,) if ra == 1 else batch_of(ra) + (n, k)
    sb = (k,) if rb == 1 else batch_of(rb) + (k, m)
    return sa, sb


@SETTINGS
@given(shapes=matmul_shapes(), seed=SEEDS)
def test_matmul_every_rank(shapes, seed):
    rng = np.random.default_rng(seed)
    sa, sb = shapes
    a, b = leaf(smooth(rng, sa)), leaf(smooth(rng, sb))
    check(lambda p, q: p @ q, a, b)
    check(minigrad.matmul, a, b)


@SETTINGS
@given(b=st.integers(1, 3), n=st.integers(1, 3), k=st.integers(1, 3), m=st.integers(1, 3), seed=SEEDS)
def test_dot_mv_mm_bmm(b, n, k, m, seed):
    rng = np.random.default_rng(seed)
    v, w = leaf(smooth(rng, (k,))), leaf(smooth(rng, (k,)))
    a, c = leaf(smooth(rng, (n, k))), leaf(smooth(rng, (k, m)))
    p, q = leaf(smooth(rng, (b, n, k))), leaf(smooth(rng, (b, k, m)))
    check(minigrad.dot, v, w)
    check(lambda x: minigrad.dot(x, x), v)
    check(minigrad.mv, a, v)
    check(minigrad.mm, a, c)
    check(lambda x: x @ x.T, a)
    check(minigrad.bmm, p, q)


# ------------------------------------------------------------ functional

@SETTINGS
@given(shape=SHAPES, seed=SEEDS, reduction=st.sampled_from(["mean", "sum", "none"]))
def test_mse_loss(shape, seed, reduction):
    rng = np.random.default_rng(seed)
    p, y = leaf(smooth(rng, shape)), leaf(smooth(rng, shape))
    check(lambda a, b: F.mse_loss(a, b, reduction=reduction), p, y)
    y.requires_grad_(False)
    check(lambda a: F.mse_loss(a, y, reduction=reduction), p)


@SETTINGS
@given(n=st.integers(1, 4), c=st.integers(1, 4), seed=SEEDS,
       reduction=st.sampled_from(["mean", "sum", "none"]), large=st.booleans())
def test_cross_entropy(n, c, seed, reduction, large):
    rng = np.random.default_rng(seed)
    scale = 1000.0 if large else 1.0
    z = leaf(scale * rng.choice([-1.0, 0.0, 1.0], (n, c)) + smooth(rng, (n, c)))
    target = minigrad.tensor(rng.integers(0, c, n))
    assert target.dtype == minigrad.int64
    out = F.cross_entropy(z, target, reduction=reduction)
    assert np.isfinite(out.detach().numpy()).all()
    check(lambda t: F.cross_entropy(t, target, reduction=reduction), z)
    check(lambda t: F.nll_loss(F.log_softmax(t, dim=1), target, reduction=reduction), z)
    # one sample: (C,) logits and a 0-d target
    check(lambda t: F.cross_entropy(t[0], target[0]), z)


@SETTINGS
@given(shape=SHAPES, seed=SEEDS, reduction=st.sampled_from(["mean", "sum", "none"]))
def test_binary_cross_entropy(shape, seed, reduction):
    rng = np.random.default_rng(seed)
    p = leaf(rng.uniform(0.05, 0.95, shape))
    y = minigrad.tensor(rng.uniform(0.0, 1.0, shape), dtype=F64)
    check(lambda a: F.binary_cross_entropy(a, y, reduction=reduction), p)
    s = leaf(smooth(rng, shape))
    check(lambda a: F.binary_cross_entropy(a.sigmoid(), y, reduction=reduction), s)
