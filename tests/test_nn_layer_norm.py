"""F.layer_norm (nn/normalization.py) and F.embedding (nn/sparse.py) against finite differences in float64
(and batch_norm's third derivative beside layer_norm's).

First derivatives (input, weight, bias) with ``gradcheck``, second with
``gradgradcheck`` (through NativeLayerNormBackwardBackward0), and the third:
unlike PyTorch's, minigrad's double backward recomputes the row statistics
with recorded ops, so ``gradgradcheck`` of the gradient passes (PyTorch 2.13
fails it: its mean and rstd are constants there).
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


@pytest.mark.parametrize("affine", ["both", "weight", "bias", "none"])
@SETTINGS
@given(seed=SEEDS, lead=st.sampled_from([(), (2,), (2, 1)]), shape=st.sampled_from([(3,), (2, 3)]))
def test_first_and_second_derivatives(affine, seed, lead, shape):
    rng = np.random.default_rng(seed)
    x = leaf(rng.uniform(-2, 2, lead + shape))
    w = leaf(rng.uniform(0.5, 2, shape)) if affine in ("both", "weight") else None
    b = leaf(rng.uniform(-1, 1, shape)) if affine in ("both", "bias") else None
    params = tuple(p for p in (w, b) if p is not None)

    def fn(x, *ps):
        it = iter(ps)
        return F.layer_norm(x, shape, next(it) if w is not None else None,
                            next(it) if b is not None else None, eps=1e-3) ** 2

    assert gradcheck(fn, (x,) + params, **TOL)
    assert gradgradcheck(fn, (x,) + params, **TOL)


# (x, w) -> the normalized output: both double backwards recompute their statistics with
# recorded ops, so a third derivative sees them depend on x
NORMS = {"layer_norm": lambda x, w: F.layer_norm(x, (4,), w),
         "batch_norm": lambda x, w: F.batch_norm(x.t(), None, None, w[:2], training=True)}


@pytest.mark.parametrize("norm", sorted(NORMS))
@SETTINGS
@given(seed=SEEDS)
def test_third_derivative(norm, seed):
    rng = np.random.default_rng(seed)
    x, w = leaf(rng.uniform(-2, 2, (2, 4))), leaf(rng.uniform(0.5, 2, (4,)))

    def grad_of(x, w):
        (gx,) = minigrad.autograd.grad((NORMS[norm](x, w) ** 3).sum(), x, create_graph=True)
        return gx

    assert gradgradcheck(grad_of, (x, w), **TOL)


def test_statistics_saved_as_pytorch_saves_them():
    x = leaf([[1.0, 2.0, 4.0], [0.0, 0.0, 3.0]])
    node = F.layer_norm(x, (3,), eps=0.0).grad_fn
    np.testing.assert_allclose(node._saved_result1.numpy(), [[7 / 3], [1.0]])
    np.testing.assert_allclose(node._saved_result2.numpy(),
                               1 / np.sqrt(np.var([[1, 2, 4], [0, 0, 3]], axis=1, keepdims=True)))
    assert node._saved_weight is None and node._saved_normalized_shape == (3,)


@pytest.mark.parametrize("kw", [{}, {"padding_idx": 1}, {"scale_grad_by_freq": True},
                                {"padding_idx": 0, "scale_grad_by_freq": True}])
@SETTINGS
@given(seed=SEEDS)
def test_embedding_gradients(kw, seed):
    # F.embedding (nn/sparse.py): repeated indices add; the padding row gets nothing and
    # scale_grad_by_freq divides by the counts, on purpose (so only the plain lookup is the
    # derivative gradcheck knows); gradgradcheck checks the derivative of that gradient
    rng = np.random.default_rng(seed)
    w = leaf(rng.uniform(-2, 2, (4, 3)))
    idx = rng.integers(0, 4, (2, 3))
    fn = lambda w: F.embedding(minigrad.tensor(idx), w, **kw) ** 3  # noqa: E731
    if not kw:
        assert gradcheck(fn, (w,), **TOL)
    if not kw.get("scale_grad_by_freq"):
        assert gradgradcheck(fn, (w,), **TOL)
    # (with the counts dividing, the second derivative in w takes the division twice, by
    # design, in PyTorch too; the derivative in the incoming gradient is checked instead,
    # which PyTorch 2.13 gets wrong: its double backward omits the division)
    v = leaf(rng.uniform(-1, 1, (2, 3, 3)))

    def backward_in_v(v):
        (g,) = minigrad.autograd.grad(fn(w), w, v, create_graph=True)
        return g

    assert gradcheck(backward_in_v, (v,), **TOL)
    (g,) = minigrad.autograd.grad(fn(w).sum(), w)
    rows = 3 * w.detach().numpy()[idx] ** 2
    if kw.get("scale_grad_by_freq"):
        rows = rows / np.bincount(idx.ravel(), minlength=4)[idx][..., None]
    expected = np.zeros((4, 3))
    np.add.at(expected, idx, rows)
    if "padding_idx" in kw:
        expected[kw["padding_idx"]] = 0
    np.testing.assert_allclose(g.numpy(), expected, rtol=1e-12)
