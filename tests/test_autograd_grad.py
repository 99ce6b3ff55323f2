"""``autograd.grad`` and ``autograd.backward``: values derived by hand, and their rules.

What the parity fixtures (tests/fixtures/cases.py, groups ``autograd_grad``)
pin against PyTorch is checked here against calculus done on paper:
d/dx 3x² = 6x, d²/dx² x³ = 6x, a Hessian written out and its products with
vectors, a gradient penalty differentiated through ``create_graph``; and the
rules: ``.grad`` is never touched by ``grad``, ``retain_graph`` defaults to
``create_graph``, ``allow_unused`` and ``materialize_grads``, bad input in
PyTorch's words.
"""

import math

import numpy as np
import pytest

import minigrad
from minigrad.autograd import grad, gradcheck, gradgradcheck
from minigrad.ops.cumulative import cumprod, cumsum


def f64(data, requires_grad=True):
    return minigrad.tensor(data, dtype=minigrad.float64, requires_grad=requires_grad)


# ------------------------------------------------------------- first and second derivatives

@pytest.mark.parametrize("x0", [-1.5, 0.0, 2.0, 3.25])
def test_derivative_of_3x2_is_6x_and_its_derivative_is_6(x0):
    x = f64(x0)
    (g,) = grad(3 * x ** 2, x, create_graph=True)
    assert g.item() == pytest.approx(6 * x0)
    assert g.requires_grad and g.grad_fn is not None  # the backward pass was recorded
    (h,) = grad(g, x)
    assert h.item() == pytest.approx(6.0)
    assert h.grad_fn is None and not h.requires_grad


@pytest.mark.parametrize("x0", [-2.0, 0.5, 3.0])
def test_cube_first_second_third_derivatives(x0):
    x = f64(x0)
    (g1,) = grad(x ** 3, x, create_graph=True)
    (g2,) = grad(g1, x, create_graph=True)
    (g3,) = grad(g2, x)
    assert (g1.item(), g2.item(), g3.item()) == pytest.approx((3 * x0 ** 2, 6 * x0, 6.0))


def test_second_derivatives_of_elementwise_ops_by_hand():
    xs = np.array([0.5, 1.5])
    x = f64(xs)

    def d2(fn):
        (g,) = grad(fn(x).sum(), x, create_graph=True)
        (h,) = grad(g.sum(), x)
        return h._data

    sig = 1 / (1 + np.exp(-xs))
    th = np.tanh(xs)
    expected = {
        "exp": (lambda t: t.exp(), np.exp(xs)),
        "sin": (lambda t: t.sin(), -np.sin(xs)),
        "cos": (lambda t: t.cos(), -np.cos(xs)),
        "log": (lambda t: t.log(), -1 / xs ** 2),
        "sqrt": (lambda t: t.sqrt(), -0.25 * xs ** -1.5),
        "tanh": (lambda t: t.tanh(), -2 * th * (1 - th ** 2)),
        "sigmoid": (lambda t: t.sigmoid(), sig * (1 - sig) * (1 - 2 * sig)),
        "reciprocal": (lambda t: 1 / t, 2 / xs ** 3),
        "x^4": (lambda t: t ** 4, 12 * xs ** 2),
        "x*x*x": (lambda t: t * t * t, 6 * xs),
        "2^x": (lambda t: 2.0 ** t, math.log(2) ** 2 * 2.0 ** xs),
    }
    for name, (fn, want) in expected.items():
        np.testing.assert_allclose(d2(fn), want, rtol=1e-12, err_msg=name)


# f(v) = v0² v1 + v1³ : gradient (2 v0 v1, v0² + 3 v1²), Hessian [[2 v1, 2 v0], [2 v0, 6 v1]]
def _f(v):
    return v[0] ** 2 * v[1] + v[1] ** 3


def test_hessian_vector_product_by_hand():
    v = f64([1.0, 2.0])
    (g,) = grad(_f(v), v, create_graph=True)
    np.testing.assert_allclose(g._data, [4.0, 13.0])
    H = np.array([[4.0, 2.0], [2.0, 12.0]])
    for u in ([1.0, -1.0], [0.5, 2.0], [0.0, 1.0]):
        (hv,) = grad(g, v, grad_outputs=f64(u, requires_grad=False), retain_graph=True)
        np.testing.assert_allclose(hv._data, H @ np.array(u))
        # the same product as the gradient of the scalar g . u
        (hv2,) = grad((g * f64(u, requires_grad=False)).sum(), v, retain_graph=True)
        np.testing.assert_allclose(hv2._data, H @ np.array(u))


def test_full_hessian_row_by_row_and_symmetric():
    v = f64([-0.5, 1.5])
    (g,) = grad(_f(v), v, create_graph=True)
    rows = [grad(g[i], v, retain_graph=True)[0]._data for i in range(2)]
    H = np.stack(rows)
    np.testing.assert_allclose(H, [[3.0, -1.0], [-1.0, 9.0]])
    np.testing.assert_allclose(H, H.T)


def test_hessian_of_quadratic_form_is_a_plus_a_transpose():
    A = np.array([[2.0, 1.0, 0.0], [0.0, 3.0, -1.0], [4.0, 0.5, 1.0]])
    x = f64([1.0, -1.0, 2.0])
    q = x @ f64(A, requires_grad=False) @ x
    (g,) = grad(q, x, create_graph=True)
    np.testing.assert_allclose(g._data, (A + A.T) @ x._data)
    H = np.stack([grad(g[i], x, retain_graph=True)[0]._data for i in range(3)])
    np.testing.assert_allclose(H, A + A.T)


def test_gradient_penalty_against_finite_differences():
    """d/dw of ||d/dx tanh(w . x)||² through create_graph, checked numerically."""
    def penalty(w, x):
        (gx,) = grad(((w * x).tanh()).sum(), x, create_graph=True)
        return (gx * gx).sum()

    w = f64([1.0, -2.0, 0.3])
    x = f64([0.5, 0.7, -1.0])
    assert gradcheck(penalty, (w, x))


@pytest.mark.parametrize("fn", [
    lambda a, b: (a * b).exp().sum(),
    lambda a, b: (a / (1 + b * b)).tanh(),
    lambda a, b: (a @ b.reshape(3, 1)).sigmoid(),
    lambda a, b: (a.sin() * b.cos() + a.sqrt()).log(),
], ids=["exp_mul", "tanh_div", "sigmoid_matmul", "log_sin_cos_sqrt"])
def test_gradgradcheck_through_create_graph(fn):
    a = f64([[0.5, 1.2, 0.8], [1.1, 0.3, 0.9]])
    b = f64([0.4, -0.6, 0.7])
    assert gradgradcheck(fn, (a, b))


def test_backward_create_graph_then_differentiate_grad():
    x = f64(2.0)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (x ** 3).backward(create_graph=True)
    g = x.grad
    assert g.item() == pytest.approx(12.0) and g.requires_grad
    x.grad = None
    g.backward()
    assert x.grad.item() == pytest.approx(12.0)  # 6x at x = 2


# ------------------------------------------------------------- what grad leaves alone

def test_grad_touches_no_grad_attribute():
    x = f64([1.0, 2.0])
    y = f64([3.0, -1.0])
    z = (x * y).sum()
    gx, gy = grad(z, [x, y])
    np.testing.assert_allclose(gx._data, [3.0, -1.0])
    np.testing.assert_allclose(gy._data, [1.0, 2.0])
    assert x.grad is None and y.grad is None
    (x * x).sum().backward()
    before = x.grad._data.copy()
    grad((x * 5).sum(), x)
    np.testing.assert_array_equal(x.grad._data, before)


def test_grad_with_respect_to_a_non_leaf_leaves_its_grad_alone():
    x = f64(2.0)
    h = x * 3
    z = h * h + h
    gh, gx = grad(z, [h, x])
    assert gh.item() == pytest.approx(2 * 6 + 1)
    assert gx.item() == pytest.approx(3 * 13)
    assert h._grad is None and x.grad is None


def test_grad_returns_a_tuple_one_per_input_even_repeated():
    x = f64(3.0)
    r = grad(x * x, [x, x])
    assert isinstance(r, tuple) and len(r) == 2
    assert r[0].item() == r[1].item() == pytest.approx(6.0)


def test_several_outputs_add_their_gradients():
    x = f64(2.0)
    (g,) = grad([x * x, x.exp()], x, grad_outputs=[f64(2.0, False), f64(0.5, False)])
    assert g.item() == pytest.approx(2 * 4 + 0.5 * math.exp(2))


# ------------------------------------------------------------- retain_graph defaults

def test_retain_graph_defaults_to_false():
    x = f64(2.0)
    y = x.exp() * x
    grad(y, x)
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        grad(y, x)


def test_retain_graph_true_allows_another_walk():
    x = f64(2.0)
    y = x.exp() * x
    a = grad(y, x, retain_graph=True)[0].item()
    b = grad(y, x)[0].item()
    assert a == b == pytest.approx(math.exp(2) * 3)


def test_create_graph_retains_by_default():
    x = f64(2.0)
    y = x.exp() * x
    grad(y, x, create_graph=True)
    grad(y, x, create_graph=True)
    grad(y, x)  # retain_graph defaults to create_graph: this one frees
    with pytest.raises(RuntimeError, match="^Trying to backward"):
        grad(y, x)


# ------------------------------------------------------------- allow_unused, materialize_grads

UNUSED = ("The differentiated Tensor at index {} appears to not have been used in the graph. "
          "Set allow_unused=True if this is the desired behavior.")


def test_allow_unused_false_error_names_the_index():
    x, w = f64(2.0), f64(1.0)
    y = x * 2
    with pytest.raises(RuntimeError) as err:
        grad(y, [x, w], retain_graph=True)
    assert str(err.value) == UNUSED.format(1)
    with pytest.raises(RuntimeError) as err:
        grad(y, [w, x], allow_unused=False)
    assert str(err.value) == UNUSED.format(0)


def test_allow_unused_true_gives_none_and_materialize_gives_zeros():
    x, w = f64(2.0), f64([1.0, 1.0])
    y = x * 2
    gx, gw = grad(y, [x, w], allow_unused=True, retain_graph=True)
    assert gx.item() == 2.0 and gw is None
    gw, gx = grad(y, [w, x], materialize_grads=True)
    np.testing.assert_array_equal(gw._data, [0.0, 0.0])
    assert gw.dtype is minigrad.float64 and gx.item() == 2.0


def test_materialize_grads_with_allow_unused_false_is_a_value_error():
    x, w = f64(2.0), f64(1.0)
    with pytest.raises(ValueError, match="^Expected allow_unused to be True or not passed"):
        grad(x * 2, [x, w], allow_unused=False, materialize_grads=True)


def test_input_not_in_graph_is_unused():
    x, w = f64(2.0), f64(1.0)
    y = x * 2
    other = w * 2
    z = x * 3
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        grad(z, y, retain_graph=True)   # an intermediate of another graph
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        grad(z, other)


# ------------------------------------------------------------- bad input

def test_grad_outputs_of_the_wrong_shape():
    x = f64([1.0, -2.0, 3.0])
    y = x * 2
    with pytest.raises(RuntimeError) as err:
        grad(y, x, grad_outputs=minigrad.ones(2, dtype=minigrad.float64))
    assert str(err.value) == ("Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) and "
                              "output[0] has a shape of torch.Size([3]).")
    with pytest.raises(RuntimeError, match=r"^Mismatch in shape: grad_output\[0\] has a shape of "
                                           r"torch.Size\(\[1\]\) and output\[0\] has a shape of "
                                           r"torch.Size\(\[\]\)\.$"):
        y.sum().backward(minigrad.ones(1, dtype=minigrad.float64))


def test_nonscalar_output_needs_grad_outputs():
    x = f64([1.0, 2.0])
    with pytest.raises(RuntimeError, match="^grad can be implicitly created only for scalar outputs$"):
        grad(x * 2, x)


def test_inputs_and_outputs_that_do_not_require_grad():
    x = f64(2.0)
    c = f64(1.0, requires_grad=False)
    with pytest.raises(RuntimeError, match="^One of the differentiated Tensors does not require grad$"):
        grad(x * c, c)
    with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad and does not "
                                           "have a grad_fn$"):
        grad(c * 2, x)
    with pytest.raises(RuntimeError, match="^element 1 of tensors does not require grad"):
        grad([x * 2, c], x)


def test_backward_with_empty_inputs_is_an_error():
    x = f64(2.0)
    with pytest.raises(RuntimeError, match=r"^`inputs` argument to `backward\(\)` cannot be empty\.$"):
        (x * 2).backward(inputs=[])


# ------------------------------------------------------------- autograd.backward

def test_backward_inputs_accumulates_only_into_those():
    x, y = f64(2.0), f64(5.0)
    z = x * y
    z.backward(inputs=[x], retain_graph=True)
    assert x.grad.item() == 5.0 and y.grad is None
    minigrad.autograd.backward(z, inputs=[y])
    assert x.grad.item() == 5.0 and y.grad.item() == 2.0


def test_backward_inputs_non_leaf_fills_its_grad():
    x = f64(2.0)
    h = x * 3
    (h * h).backward(inputs=[h])
    assert h.grad.item() == pytest.approx(12.0)
    assert x.grad is None


def test_autograd_backward_several_outputs_with_none_seed_for_scalar():
    x = f64([1.0, -2.0, 3.0])
    minigrad.autograd.backward([x * x, x.sum()], [f64([1.0, 0.0, 2.0], False), None])
    np.testing.assert_allclose(x.grad._data, [2 * 1 + 1, 0 + 1, 2 * 2 * 3 + 1])


@pytest.mark.parametrize("fn", [
    lambda x: x.prod(),
    lambda x: x.prod(1),
    lambda x: x.prod(0, keepdim=True),
    lambda x: cumprod(x, 1),
    lambda x: cumprod(x, 0) * cumsum(x, 1),
], ids=["prod", "prod_dim", "prod_keepdim", "cumprod", "cumprod_cumsum"])
@pytest.mark.parametrize("values", [
    [[0.5, 0.0, 1.5], [2.0, -1.0, 0.7]],   # one zero: prod_safe_zeros_backward
    [[0.0, 1.2, 0.0], [0.0, 0.8, -0.3]],   # several zeros (and one row of zeros)
    [[0.5, 1.2, -0.4], [2.0, -1.0, 0.7]],  # none: result / input
], ids=["one_zero", "zeros", "no_zero"])
def test_prod_and_cumprod_second_derivatives_with_zeros(fn, values):
    """Second derivatives through PyTorch's cumprod-based prod backward, against finite differences."""
    x = f64(values)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))
