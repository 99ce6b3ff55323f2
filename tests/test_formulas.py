"""One gradient formula, two walks: numpy arrays (nothing recorded) and Tensors (create_graph).

Each primitive's ``formula`` runs on plain numpy arrays when the backward walk
records nothing and on Tensors under ``create_graph=True``; both must give the
same gradients.  Also: the branch-free select, the quiet arithmetic, the
gradient AccumulateGrad takes over, and what a recorded node costs the
garbage collector.
"""

import gc
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad
import minigrad.nn.functional as F
from minigrad.ops import formulas
from minigrad.ops.formulas import select_array
from minigrad.ops._util import quiet

rng = np.random.default_rng(0)


def _leaf(*shape):
    return minigrad.tensor(rng.standard_normal(shape), dtype=minigrad.float64, requires_grad=True)


CASES = {
    "mul": lambda x, w: (x * w).sum(),
    "add_sub_neg": lambda x, w: (-(x - w * 2.0) + x).sum(),
    "rsub_tanh": lambda x, w: (1 - (x * w).tanh()).sum(),
    "relu": lambda x, w: (x * w).relu().sum(),
    "mean": lambda x, w: (x * w).mean(),
    "sum_dim": lambda x, w: (x * w).sum(1).tanh().sum(),
    "mean_dim": lambda x, w: (x * w).mean(0).tanh().sum(),
    "mm": lambda x, w: (x @ w.t()).tanh().sum(),
    "linear": lambda x, w: F.linear(x, w, w[:, 0]).relu().sum(),
    "log_softmax": lambda x, w: (F.log_softmax(x * w, 1) * w).sum(),
    "cross_entropy": lambda x, w: F.cross_entropy(x * w, minigrad.tensor([0, 2, 1])),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_arrays_walk_and_the_recorded_walk_give_the_same_gradients(name):
    x, w = _leaf(3, 4), _leaf(3, 4)
    fn = CASES[name]
    plain = minigrad.autograd.grad(fn(x, w), (x, w))
    recorded = minigrad.autograd.grad(fn(x, w), (x, w), create_graph=True)
    # (a gradient that depends on x or w has been recorded, and can be differentiated again)
    assert any(r.grad_fn is not None for r in recorded) or name == "add_sub_neg"
    for p, r in zip(plain, recorded):
        np.testing.assert_allclose(p.numpy(), r.detach().numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", ["mul", "rsub_tanh", "mm", "cross_entropy"])
def test_the_arrays_walk_matches_finite_differences(name):
    x, w = _leaf(3, 4), _leaf(3, 4)
    assert minigrad.autograd.gradcheck(lambda a, b: CASES[name](a, b), (x, w))


def test_mixed_dtypes_are_promoted_as_pytorch_does_not_as_numpy():
    # float32 tensor * float64 0-d tensor: PyTorch computes in float32 (0.1 rounded to
    # float32 first); numpy would compute in float64.  The gradient is that float32 0.1.
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    c = minigrad.tensor(0.1, dtype=minigrad.float64)
    (x * c).sum().backward()
    assert x.grad.dtype == minigrad.float32
    assert x.grad.numpy().tolist() == [np.float32(0.1)] * 2


@pytest.mark.parametrize("repeat", [1, 700])  # 8 elements: np.where; 5,600: the branch-free select
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_select_array_is_where_bit_for_bit(dtype, repeat):
    x = np.tile(np.array([-0.0, 0.0, -1.5, 2.0, np.nan, -np.inf, np.inf, 1e-40], dtype=dtype), repeat)
    mask = np.tile(np.array([True, False, True, False, True, True, False, True]), repeat)
    assert (x.size >= formulas._BRANCH_FREE_FROM) == (repeat > 1)
    for got, want in [(select_array(mask, x), np.where(mask, x, dtype(0))),
                      (select_array(x < 0, x, zero_where=True), np.where(x < 0, dtype(0), x))]:
        assert got.dtype == x.dtype
        assert got.view(np.uint8).tobytes() == want.view(np.uint8).tobytes()


def test_relu_keeps_minus_zero_and_nan_as_pytorch():
    x = minigrad.tensor([-0.0, -2.0, float("nan"), 3.0])
    out = x.relu().numpy()
    assert np.signbit(out[0]) and out[1] == 0 and not np.signbit(out[1])
    assert np.isnan(out[2]) and out[3] == 3.0


@pytest.mark.parametrize("create_graph", [False, True])
def test_relu_gradient_at_nan_and_zero_is_pytorchs_threshold_backward(create_graph):
    # threshold_backward(grad, result, 0) is `result <= 0 ? 0 : grad`: a nan
    # result passes the gradient, a zero does not (PyTorch 2.13: [1, 0, 0, 1])
    x = minigrad.tensor([float("nan"), -1.0, 0.0, 2.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and silently: PyTorch never warns about a nan
        (g,) = minigrad.autograd.grad(x.relu().sum(), x, create_graph=create_graph)
    assert g.detach().numpy().tolist() == [1.0, 0.0, 0.0, 1.0]


def test_quiet_arithmetic_never_warns_and_computes_as_numpy():
    big = np.array(3e38, dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isinf(quiet(np.multiply, big, big))
        assert quiet(np.add, np.array(1.5, np.float32), 2.0) == np.float32(3.5)
        assert np.isnan(quiet(np.subtract, np.array(np.inf), np.array(np.inf)))
        y = minigrad.tensor(3e38) * minigrad.tensor(10.0)
    assert np.isinf(y.item())


@settings(max_examples=3000, deadline=None)
@given(st.sampled_from([np.float32, np.float64]), st.sampled_from([np.add, np.subtract, np.multiply]),
       st.floats(-1e18, 1e18), st.floats(-1e18, 1e18))
def test_quiet_on_two_0d_floats_gives_numpy_s_bits(dtype, ufunc, a, b):
    # the Python-float path (float32 rounded once from float64) against numpy's own float32
    A, B = np.array(a, dtype), np.array(b, dtype)
    expected = ufunc(A, B)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = quiet(ufunc, A, B)
    assert out.dtype == expected.dtype and np.asarray(out).tobytes() == np.asarray(expected).tobytes()


def test_accumulate_grad_takes_over_only_what_nobody_else_holds():
    a = minigrad.tensor([1.0, 2.0], requires_grad=True)
    b = minigrad.tensor([3.0, 4.0], requires_grad=True)
    ((a + b) * minigrad.tensor([5.0, 6.0])).sum().backward()
    # AddBackward0 sends one gradient array to both leaves: they must not share it
    assert not np.shares_memory(a.grad.numpy(), b.grad.numpy())
    a.grad.numpy()[0] = 100.0
    assert b.grad.numpy().tolist() == [5.0, 6.0]
    seed = minigrad.tensor([7.0, 8.0])
    c = minigrad.tensor([0.0, 0.0], requires_grad=True)
    (c + 0).backward(seed)
    assert not np.shares_memory(c.grad.numpy(), seed.numpy())  # the caller's gradient is theirs


def test_linear_weight_gradient_comes_out_in_the_weight_layout():
    lin = minigrad.nn.Linear(5, 3)
    x = minigrad.randn(4, 5)
    lin(x).tanh().sum().backward()
    assert lin.weight.grad.numpy().flags.c_contiguous
    want = (1 - lin(x).tanh().detach().numpy() ** 2).T @ x.numpy()
    np.testing.assert_allclose(lin.weight.grad.numpy(), want, rtol=1e-5)


def test_a_recorded_chain_keeps_few_objects_for_the_collector():
    x, a, b = (minigrad.tensor(v, requires_grad=True) for v in (0.5, 0.9, 0.1))
    gc.collect()
    before = len(gc.get_objects())
    y = x
    for _ in range(300):
        y = (y * a + b).tanh()
    gc.collect()
    per_node = (len(gc.get_objects()) - before) / 900
    assert per_node <= 4.0, per_node
    y.backward()
    assert x.grad is not None


def test_the_node_inside_copy_slices_frees_its_saved_values():
    # y[:2].mul_(w) records CopySlices around MulBackward0: the walk must free the
    # values MulBackward0 saved (the only ones in this graph: CloneBackward0 and
    # SumBackward0 save none), so a second backward raises as in PyTorch
    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = minigrad.tensor([4.0, 5.0], requires_grad=True)
    y = x.clone()
    y[:2].mul_(w)
    z = y.sum()
    z.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        z.backward()
