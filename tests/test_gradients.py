"""Every primitive's gradient, checked two ways, in float64.

1. ``gradcheck``: the whole Jacobian from backward against central finite differences;
2. hand-derived values for the same ops (so a test does not only trust a
   second implementation of calculus).

Broadcasting gets its own section: the gradient of each input must come back
summed to that input's shape.  A few checks draw shapes and values with
hypothesis.  The last section tests ``gradcheck`` itself: it must catch a
wrong backward and say where.

The expected values were confirmed with PyTorch 2.13 (``torch.autograd.gradcheck``
behaves the same way on the failing cases below).
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad
from minigrad.autograd.gradcheck import GradcheckError, gradcheck

F64 = minigrad.float64


def t64(data, requires_grad=True):
    return minigrad.tensor(data, dtype=F64, requires_grad=requires_grad)


def uniform(rng, shape, lo=-2.0, hi=2.0):
    return t64(rng.uniform(lo, hi, shape))


def positive(rng, shape):
    return uniform(rng, shape, 0.5, 2.0)


def away_from_zero(rng, shape):
    """Values in ±[0.2, 2]: relu's kink at 0 is never within eps."""
    mag = rng.uniform(0.2, 2.0, shape)
    sign = np.where(rng.random(shape) < 0.5, -1.0, 1.0)
    return t64(mag * sign)


def grads_of(out, *inputs):
    """Gradients of ``out.sum()`` as numpy arrays (via backward, into .grad)."""
    for x in inputs:
        x.grad = None
    out.sum().backward()
    return [x.grad.numpy() for x in inputs]


# ------------------------------------------------------------ gradcheck per op

UNARY = {
    "neg": (lambda x: -x, uniform),
    "exp": (lambda x: x.exp(), uniform),
    "log": (lambda x: x.log(), positive),
    "tanh": (lambda x: x.tanh(), uniform),
    "sigmoid": (lambda x: x.sigmoid(), uniform),
    "relu": (lambda x: x.relu(), away_from_zero),
    "pow_2": (lambda x: x ** 2, uniform),
    "pow_3": (lambda x: x ** 3, uniform),
    "pow_half": (lambda x: x ** 0.5, positive),
    "pow_minus_1.5": (lambda x: x ** -1.5, positive),
    "pow_0": (lambda x: x ** 0, uniform),
    "rsub": (lambda x: 2 - x, uniform),
    "rdiv": (lambda x: 2 / x, positive),
    "rmul": (lambda x: 2 * x, uniform),
    "rpow": (lambda x: 2 ** x, uniform),
    "radd": (lambda x: 1 + x, uniform),
    "sub_scalar": (lambda x: x - 2.5, uniform),
    "div_scalar": (lambda x: x / 4, uniform),
    "sum": (lambda x: x.sum(), uniform),
    "mean": (lambda x: x.mean(), uniform),
    "sum_dim0": (lambda x: x.sum(0), uniform),
    "sum_dim1_keepdim": (lambda x: x.sum(1, keepdim=True), uniform),
    "sum_dim_neg": (lambda x: x.sum(-1), uniform),
    "sum_dims_tuple": (lambda x: x.sum((0, 1)), uniform),
    "mean_dim0": (lambda x: x.mean(0), uniform),
    "mean_dim1_keepdim": (lambda x: x.mean(1, keepdim=True), uniform),
    "reshape": (lambda x: x.reshape(3, 2), uniform),
    "reshape_minus1": (lambda x: x.reshape(-1), uniform),
    "view": (lambda x: x.view(6, 1), uniform),
    "transpose": (lambda x: x.transpose(0, 1), uniform),
    "T": (lambda x: x.T, uniform),
    "t": (lambda x: x.t(), uniform),
    "chain": (lambda x: ((x * 3).tanh().sigmoid() - 0.5).exp().mean(1), uniform),
}


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_gradcheck(name, rng):
    fn, make = UNARY[name]
    x = make(rng, (2, 3))
    assert gradcheck(fn, (x,))


BINARY = {
    "add": (lambda a, b: a + b, uniform, uniform),
    "sub": (lambda a, b: a - b, uniform, uniform),
    "mul": (lambda a, b: a * b, uniform, uniform),
    "div": (lambda a, b: a / b, uniform, positive),
    "pow_tensor_tensor": (lambda a, b: a ** b, positive, uniform),
    "add_alpha": (lambda a, b: minigrad.add(a, b, alpha=3), uniform, uniform),
    "sub_alpha": (lambda a, b: minigrad.sub(a, b, alpha=0.5), uniform, uniform),
}


@pytest.mark.parametrize("name", list(BINARY))
def test_binary_gradcheck(name, rng):
    fn, make_a, make_b = BINARY[name]
    a, b = make_a(rng, (2, 3)), make_b(rng, (2, 3))
    assert gradcheck(fn, (a, b))


@pytest.mark.parametrize("op", ["@", "mm", "matmul"])
def test_matrix_product_gradcheck(op, rng):
    a, b = uniform(rng, (2, 3)), uniform(rng, (3, 4))
    fn = {"@": lambda a, b: a @ b, "mm": lambda a, b: a.mm(b),
          "matmul": lambda a, b: minigrad.matmul(a, b)}[op]
    assert gradcheck(fn, (a, b))


def test_gradcheck_with_one_input_constant(rng):
    """Only inputs that require grad are checked; a constant is passed through."""
    a, c = uniform(rng, (2, 3)), t64(rng.uniform(-1, 1, (3, 2)), requires_grad=False)
    assert gradcheck(lambda a, c: (a @ c).tanh(), (a, c))
    assert gradcheck(lambda c, a: c * a.T, (c, a))


def test_zero_dim_tensor_gradcheck():
    x = t64(0.7)
    assert gradcheck(lambda x: (x * x).exp() / (1 + x), (x,))


# ---------------------------------------------------------- hand-derived values


def test_mul_div_pow_by_hand():
    a, b = t64([1.0, 2.0, -3.0]), t64([4.0, -5.0, 0.5])
    ga, gb = grads_of(a * b, a, b)
    np.testing.assert_allclose(ga, [4.0, -5.0, 0.5])  # d(ab)/da = b
    np.testing.assert_allclose(gb, [1.0, 2.0, -3.0])  # d(ab)/db = a

    ga, gb = grads_of(a / b, a, b)
    np.testing.assert_allclose(ga, [1 / 4, -1 / 5, 2.0])  # 1/b
    np.testing.assert_allclose(gb, [-1 / 16, -2 / 25, 12.0])  # -a/b²

    (ga,) = grads_of(a ** 3, a)
    np.testing.assert_allclose(ga, [3.0, 12.0, 27.0])  # 3a²


def test_add_sub_neg_by_hand():
    a, b = t64([1.0, 2.0]), t64([3.0, 4.0])
    ga, gb = grads_of(a + b, a, b)
    np.testing.assert_array_equal(ga, [1.0, 1.0])
    np.testing.assert_array_equal(gb, [1.0, 1.0])
    ga, gb = grads_of(a - b, a, b)
    np.testing.assert_array_equal(ga, [1.0, 1.0])
    np.testing.assert_array_equal(gb, [-1.0, -1.0])
    (ga,) = grads_of(-a, a)
    np.testing.assert_array_equal(ga, [-1.0, -1.0])


def test_reversed_scalar_ops_by_hand():
    x = t64([0.5, 2.0])
    np.testing.assert_array_equal(grads_of(2 - x, x)[0], [-1.0, -1.0])
    np.testing.assert_allclose(grads_of(2 / x, x)[0], [-8.0, -0.5])  # -2/x²
    np.testing.assert_array_equal(grads_of(2 * x, x)[0], [2.0, 2.0])
    np.testing.assert_array_equal(grads_of(1 + x, x)[0], [1.0, 1.0])
    np.testing.assert_allclose(grads_of(2 ** x, x)[0],
                               [2 ** 0.5 * math.log(2), 4 * math.log(2)])  # 2^x ln 2


def test_reversed_ops_record_pytorch_nodes():
    x = t64([0.5, 2.0])
    assert (2 - x).grad_fn.name() == "RsubBackward1"
    assert (2 / x).grad_fn.name() == "MulBackward0"  # reciprocal(x) * 2, as in PyTorch
    assert (2 * x).grad_fn.name() == "MulBackward0"
    assert (2 ** x).grad_fn.name() == "PowBackward2"
    assert (1 + x).grad_fn.name() == "AddBackward0"
    assert (x ** x).grad_fn.name() == "PowBackward1"
    assert (x ** 2).grad_fn.name() == "PowBackward0"


def test_unary_functions_by_hand():
    v = np.array([-1.5, -0.3, 0.4, 2.0])
    x = t64(v)
    np.testing.assert_allclose(grads_of(x.exp(), x)[0], np.exp(v))
    np.testing.assert_allclose(grads_of(x.tanh(), x)[0], 1 - np.tanh(v) ** 2)
    s = 1 / (1 + np.exp(-v))
    np.testing.assert_allclose(grads_of(x.sigmoid(), x)[0], s * (1 - s))
    np.testing.assert_array_equal(grads_of(x.relu(), x)[0], [0.0, 0.0, 1.0, 1.0])
    p = t64([0.25, 1.0, 4.0])
    np.testing.assert_allclose(grads_of(p.log(), p)[0], [4.0, 1.0, 0.25])


def test_relu_gradient_at_zero_is_zero():
    """PyTorch's convention (the subgradient 0 at the kink)."""
    x = t64([0.0])
    x.relu().sum().backward()
    assert x.grad.tolist() == [0.0]


def test_pow_tensor_tensor_by_hand():
    a, b = t64([2.0, 3.0]), t64([3.0, 0.5])
    ga, gb = grads_of(a ** b, a, b)
    np.testing.assert_allclose(ga, [3 * 2.0 ** 2, 0.5 * 3.0 ** -0.5])  # b a^(b-1)
    np.testing.assert_allclose(gb, [8 * math.log(2), 3 ** 0.5 * math.log(3)])  # a^b ln a


def test_pow_tensor_tensor_at_zero_is_pytorchs():
    """d/da a**b and d/db a**b at a = b = 0 are 0 in PyTorch (masked, no nan)."""
    a, b = t64([0.0, 2.0]), t64([0.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        (a ** b).sum().backward()
    assert a.grad.tolist() == [0.0, 1.0]
    assert b.grad.tolist() == [0.0, 2 * math.log(2)]


def test_pow_tensor_tensor_at_zero_is_silent():
    """PyTorch computes the gradient above without any warning; so must minigrad.

    (Was a bug:) PowTensorTensor.backward computes ``b * a ** (b - 1)`` = 0 * inf
    before masking it, and Mul.forward's np.multiply is not wrapped in
    np.errstate, so numpy emits "RuntimeWarning: invalid value encountered in
    multiply" (it would show in a lesson's output).
    """
    a, b = t64([0.0, 2.0]), t64([0.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any RuntimeWarning fails the test
        (a ** b).sum().backward()
    assert a.grad.tolist() == [0.0, 1.0]


def test_reductions_by_hand():
    x = t64(np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(grads_of(x.sum(), x)[0], np.ones((2, 3)))
    np.testing.assert_allclose(grads_of(x.mean(), x)[0], np.full((2, 3), 1 / 6))
    np.testing.assert_allclose(grads_of(x.mean(0), x)[0], np.full((2, 3), 1 / 2))
    np.testing.assert_allclose(grads_of(x.mean(1, keepdim=True), x)[0], np.full((2, 3), 1 / 3))
    # a non-uniform upstream gradient is spread back along the reduced dim
    x.grad = None
    x.sum(1, keepdim=True).backward(t64([[10.0], [20.0]], requires_grad=False))
    np.testing.assert_array_equal(x.grad.numpy(), [[10.0] * 3, [20.0] * 3])
    x.grad = None
    x.sum(0).backward(t64([1.0, 2.0, 3.0], requires_grad=False))
    np.testing.assert_array_equal(x.grad.numpy(), [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])


def test_mm_by_hand(rng):
    """For C = A @ B with upstream G: dA = G Bᵀ and dB = Aᵀ G."""
    A, B = rng.normal(size=(2, 3)), rng.normal(size=(3, 4))
    G = rng.normal(size=(2, 4))
    a, b = t64(A), t64(B)
    (a @ b).backward(t64(G, requires_grad=False))
    np.testing.assert_allclose(a.grad.numpy(), G @ B.T)
    np.testing.assert_allclose(b.grad.numpy(), A.T @ G)
    assert a.grad.shape == (2, 3) and b.grad.shape == (3, 4)


def test_shape_ops_move_the_gradient_back(rng):
    x = t64(np.arange(6.0).reshape(2, 3))
    G = np.arange(6.0).reshape(3, 2) * 10
    for y in (x.T, x.t(), x.transpose(0, 1), x.transpose(1, 0)):
        x.grad = None
        y.backward(t64(G, requires_grad=False))
        np.testing.assert_array_equal(x.grad.numpy(), G.T)
    for y in (x.reshape(3, 2), x.view(3, 2)):
        x.grad = None
        y.backward(t64(G, requires_grad=False))
        np.testing.assert_array_equal(x.grad.numpy(), G.reshape(2, 3))


# ----------------------------------------------------------------- broadcasting


def test_broadcast_31_plus_14(rng):
    a, b = uniform(rng, (3, 1)), uniform(rng, (1, 4))
    y = a + b
    assert y.shape == (3, 4)
    y.sum().backward()
    assert a.grad.shape == (3, 1) and b.grad.shape == (1, 4)
    np.testing.assert_array_equal(a.grad.numpy(), np.full((3, 1), 4.0))  # each a[i] used 4 times
    np.testing.assert_array_equal(b.grad.numpy(), np.full((1, 4), 3.0))
    assert gradcheck(lambda a, b: a + b, (a, b))


def test_broadcast_23_times_3(rng):
    A, V = rng.normal(size=(2, 3)), rng.normal(size=3)
    a, v = t64(A), t64(V)
    (a * v).sum().backward()
    assert v.grad.shape == (3,)
    np.testing.assert_allclose(a.grad.numpy(), np.broadcast_to(V, (2, 3)))
    np.testing.assert_allclose(v.grad.numpy(), A.sum(0))  # summed over the broadcast rows
    assert gradcheck(lambda a, v: a * v, (a, v))


def test_broadcast_scalar_tensor(rng):
    """A 0-d tensor times a matrix: its gradient is the sum over every element, shape ()."""
    A = rng.normal(size=(2, 3))
    a, s = t64(A), t64(1.5)
    (s * a).sum().backward()
    assert s.grad.shape == ()
    np.testing.assert_allclose(s.grad.item(), A.sum())
    np.testing.assert_allclose(a.grad.numpy(), np.full((2, 3), 1.5))
    assert gradcheck(lambda s, a: s * a - a / (s + 3) + s ** 2, (s, a))


def test_broadcast_in_every_binary_op(rng):
    a, b = positive(rng, (3, 1)), positive(rng, (4,))
    for fn in (lambda a, b: a - b, lambda a, b: a / b, lambda a, b: b / a,
               lambda a, b: a ** b, lambda a, b: b ** a):
        assert gradcheck(fn, (a, b))


@settings(deadline=None, max_examples=25)
@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
    seed=st.integers(0, 2**32 - 1),
    op=st.sampled_from(["add", "sub", "mul", "div"]),
)
def test_broadcast_gradients_sum_back_to_each_shape(shapes, seed, op):
    rng = np.random.default_rng(seed)
    sa, sb = shapes.input_shapes
    A, B = rng.uniform(0.5, 2.0, sa), rng.uniform(0.5, 2.0, sb)
    a, b = t64(A), t64(B)
    fn = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b,
          "mul": lambda a, b: a * b, "div": lambda a, b: a / b}[op]
    y = fn(a, b)
    assert y.shape == shapes.result_shape
    G = rng.normal(size=shapes.result_shape)
    y.backward(t64(G, requires_grad=False))
    assert a.grad.shape == sa and b.grad.shape == sb

    # by hand: the elementwise partials, broadcast, times G, summed back to each shape
    Ab, Bb = np.broadcast_to(A, shapes.result_shape), np.broadcast_to(B, shapes.result_shape)
    da, db = {"add": (1.0, 1.0), "sub": (1.0, -1.0), "mul": (Bb, Ab),
              "div": (1 / Bb, -Ab / Bb ** 2)}[op]

    def sum_to(g, shape):
        lead = g.ndim - len(shape)
        g = g.sum(axis=tuple(range(lead))) if lead else g
        axes = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
        return g.sum(axis=axes, keepdims=True) if axes else g

    np.testing.assert_allclose(a.grad.numpy(), sum_to(G * da, sa), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), sum_to(G * db, sb), rtol=1e-12, atol=1e-12)


@settings(deadline=None, max_examples=20)
@given(
    data=hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=3),
                    elements=st.floats(-3, 3)),
    op=st.sampled_from(["exp", "tanh", "sigmoid", "square", "sum", "mean", "neg_then_mul"]),
)
def test_elementwise_and_reductions_on_random_data(data, op):
    fn = {"exp": lambda x: x.exp(), "tanh": lambda x: x.tanh(),
          "sigmoid": lambda x: x.sigmoid(), "square": lambda x: x ** 2,
          "sum": lambda x: x.sum(), "mean": lambda x: x.mean(),
          "neg_then_mul": lambda x: (-x) * x.exp()}[op]
    assert gradcheck(fn, (t64(data),))


@settings(deadline=None, max_examples=15)
@given(n=st.integers(1, 4), k=st.integers(1, 4), m=st.integers(1, 4),
       seed=st.integers(0, 2**32 - 1))
def test_mm_on_random_shapes(n, k, m, seed):
    rng = np.random.default_rng(seed)
    a, b = uniform(rng, (n, k)), uniform(rng, (k, m))
    assert gradcheck(lambda a, b: a @ b, (a, b))


@settings(deadline=None, max_examples=15)
@given(shape=hnp.array_shapes(min_dims=1, max_dims=3, max_side=3), seed=st.integers(0, 1000),
       keepdim=st.booleans(), data=st.data())
def test_sum_and_mean_over_a_random_dim(shape, seed, keepdim, data):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = uniform(np.random.default_rng(seed), shape)
    assert gradcheck(lambda x: x.sum(dim, keepdim=keepdim), (x,))
    assert gradcheck(lambda x: x.mean(dim, keepdim=keepdim), (x,))


# ------------------------------------------------------------- gradcheck itself


class _WrongSquare(minigrad.autograd.Function):
    """x² whose backward claims 3x (the right answer is 2x)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x


class _Square(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 2 * x


def test_gradcheck_passes_a_correct_custom_function():
    assert gradcheck(_Square.apply, (t64([1.0, 2.0, 3.0]),)) is True


def test_gradcheck_catches_a_wrong_backward_and_names_the_worst_element():
    x = t64([1.0, 2.0, 3.0])
    with pytest.raises(GradcheckError) as info:
        gradcheck(_WrongSquare.apply, (x,))
    msg = str(info.value)
    lines = msg.splitlines()
    # PyTorch's first line and layout (its Jacobians print with dtype=torch.float64)
    assert lines[0] == "Jacobian mismatch for output 0 with respect to input 0,"
    assert lines[1].startswith("numerical:tensor([[2.0000, 0.0000, 0.0000],")
    assert "analytical:tensor([[3., 0., 0.]," in msg
    assert "[0., 0., 9.]], dtype=minigrad.float64)" in msg
    # the worst element: x[2] = 3, numerical 6, analytical 9
    worst = lines[-1]
    assert worst.startswith("Worst element: row 2, column 2 (input 0 at index (2,), "
                            "output 0 at index (2,)): numerical 6.0000")
    assert "analytical 9.0," in worst
    assert isinstance(info.value, RuntimeError)


def test_gradcheck_numerical_jacobian_values():
    """The message's numerical Jacobian is the true one (diag 2x), up to finite-difference error."""
    x = t64([[1.0, -2.0]])
    with pytest.raises(GradcheckError) as info:
        gradcheck(_WrongSquare.apply, (x,))
    msg = str(info.value)
    assert "numerical:tensor([[ 2.0000,  0.0000],\n        [ 0.0000, -4.0000]]" in msg
    assert "analytical:tensor([[ 3.,  0.],\n        [-0., -6.]]" in msg  # -0. as PyTorch prints it
    assert "(input 0 at index (0, 1), output 0 at index (0, 1))" in msg


def test_gradcheck_raise_exception_false_returns_false():
    x = t64([1.0, 2.0])
    assert gradcheck(_WrongSquare.apply, (x,), raise_exception=False) is False
    assert gradcheck(_Square.apply, (x,), raise_exception=False) is True


def test_gradcheck_input_index_counts_inputs_that_require_grad():
    """As in PyTorch, "input 1" is the second input *that requires grad*."""
    a, c, b = t64([1.0, 2.0]), t64([5.0, 5.0], requires_grad=False), t64([3.0, 4.0])
    with pytest.raises(GradcheckError, match=r"^Jacobian mismatch for output 0 with respect to input 1,"):
        gradcheck(lambda a, c, b: a * c + _WrongSquare.apply(b), (a, c, b))


def test_gradcheck_multiple_outputs():
    a, b = t64([1.0, 2.0]), t64([3.0, -1.0])
    assert gradcheck(lambda a, b: (a * b, a - b, (a * b).exp().sum()), (a, b))
    with pytest.raises(GradcheckError, match=r"^Jacobian mismatch for output 1 with respect to input 0,"):
        gradcheck(lambda a, b: (a * b, _WrongSquare.apply(a) + b), (a, b))


def test_gradcheck_fast_mode():
    x = t64([1.0, 2.0, 3.0])
    assert gradcheck(lambda x: (x * x).exp(), (x,), fast_mode=True)
    with pytest.raises(GradcheckError) as info:
        gradcheck(_WrongSquare.apply, (x,), fast_mode=True)
    msg = str(info.value)
    assert msg.startswith("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:")
    assert "we recompute numerical and analytical jacobians in slow mode" in msg
    assert "The max per-element difference (slow mode) is: 2.99999" in msg
    assert "Worst element: row 2, column 2" in msg


def test_gradcheck_warns_for_float32_inputs():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning) as record:
        assert gradcheck(lambda x: x * 2, (x,), eps=1e-2, atol=1e-2)
    messages = [str(w.message) for w in record]
    assert (
        "Input #0 requires gradient and is not a double precision floating point or complex. "
        "This check will likely fail if all the inputs are not of double precision floating "
        "point or complex. "
    ) in messages
    assert record[0].filename == __file__  # attributed to the caller of gradcheck


def test_gradcheck_needs_an_input_that_requires_grad():
    with pytest.raises(ValueError, match="^gradcheck expects at least one input tensor to require "
                                         "gradient, but none of them have requires_grad=True.$"):
        gradcheck(lambda x: x * 2, (t64([1.0], requires_grad=False),))


def test_gradcheck_accepts_a_single_tensor_and_leaves_it_unchanged():
    x = t64([0.1, 0.2, 0.3])
    before = x.detach().numpy().copy()
    assert gradcheck(lambda x: x.tanh(), x)
    np.testing.assert_array_equal(x.detach().numpy(), before)  # restored bit for bit
    assert x._version == 0  # perturbed through the raw values, as PyTorch does through .data
    assert x.grad is None  # autograd.grad never touches .grad


def test_gradcheck_restores_the_input_when_func_raises():
    x = t64([1.0, 2.0])
    calls = []

    def f(x):
        calls.append(1)
        if len(calls) == 2:  # the first perturbed evaluation
            raise ZeroDivisionError("from func")
        return x * 2

    with pytest.raises(ZeroDivisionError, match="from func"):
        gradcheck(f, (x,))
    assert x.tolist() == [1.0, 2.0]


def test_gradcheck_rejects_overlapping_input():
    x = t64([[1.0], [2.0]]).detach().expand(2, 3)
    x.requires_grad_()
    with pytest.raises(RuntimeError, match="^The 0th input has a dimension with stride 0"):
        gradcheck(lambda x: x * 2, (x,))


def test_gradcheck_catches_a_gradient_of_the_wrong_shape():
    class Bad(minigrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.sum()

        @staticmethod
        def backward(ctx, grad):
            return grad.expand(5)  # x has 3 elements

    with pytest.raises(RuntimeError):
        gradcheck(Bad.apply, (t64([1.0, 2.0, 3.0]),))


def test_gradcheck_catches_a_nondeterministic_backward():
    calls = []

    class Noisy(minigrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            calls.append(1)
            return grad * (2 + 1e-9 * len(calls))

    x = t64([1.0])
    with pytest.raises(GradcheckError, match="^Backward is not reentrant"):
        gradcheck(Noisy.apply, (x,))
    assert gradcheck(Noisy.apply, (x,), nondet_tol=1e-6)


def test_gradcheck_catches_a_backward_that_ignores_grad_output():
    class IgnoresGrad(minigrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.sum()

        @staticmethod
        def backward(ctx, grad):
            # right for a unit grad_output, wrong for anything else
            return minigrad.ones(3, dtype=F64)

    with pytest.raises(GradcheckError, match="^backward not multiplied by grad_output$"):
        gradcheck(IgnoresGrad.apply, (t64([1.0, 2.0, 3.0]),))


def test_gradcheck_undefined_output_gradient():
    """Leaving one output's gradient undefined must work (PyTorch raises the same error here)."""

    class Three(minigrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3, x * 4

        @staticmethod
        def backward(ctx, g1, g2, g3):
            given = [g for g in (g1, g2, g3) if g is not None]
            if len(given) == 1:  # what the Jacobian rows use: one output at a time
                return g1 * 2 if g1 is not None else g2 * 3 if g2 is not None else g3 * 4
            if len(given) != 3:
                raise RuntimeError("needs every gradient")
            return g1 * 2 + g2 * 3 + g3 * 4

    x = t64([1.0, 2.0])
    assert gradcheck(Three.apply, (x,), check_undefined_grad=False)
    with pytest.warns(UserWarning, match="^Backwards compatibility: New undefined gradient"):
        with pytest.raises(GradcheckError, match="^Expected backward function to handle undefined "
                                                 "output grads.") as info:
            gradcheck(Three.apply, (x,))
    assert str(info.value.__cause__) == "needs every gradient"


def test_gradcheck_function_without_differentiable_outputs():
    x = t64([1.0, 2.0])
    assert gradcheck(lambda x: minigrad.ones(2, dtype=F64) * 3, (x,))  # constant: Jacobian 0
    with pytest.raises(GradcheckError, match="^Numerical gradient for function expected to be zero$"):
        gradcheck(lambda x: (x * 2).detach(), (x,))


def test_gradcheck_reports_nan_as_worst():
    class NanGrad(minigrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, grad):
            return grad * t64([1.0, float("nan")], requires_grad=False)

    with pytest.raises(GradcheckError) as info:
        gradcheck(NanGrad.apply, (t64([1.0, 2.0]),))
    # column 0 is the gradient for grad_output e_0: [1, 0 * nan] -> the first nan is row 1
    assert "Worst element: row 1, column 0" in str(info.value)
    assert "analytical nan" in str(info.value)


def test_gradcheck_tolerances_are_pytorchs():
    """|analytical - numerical| <= atol + rtol * |numerical|: a 0.05% error passes, 1% does not."""

    def scaled(factor):
        class Scaled(minigrad.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 10

            @staticmethod
            def backward(ctx, grad):
                return grad * (10 * factor)

        return Scaled.apply

    x = t64([1.0])
    assert gradcheck(scaled(1.0005), (x,))
    assert not gradcheck(scaled(1.01), (x,), raise_exception=False)
    assert gradcheck(scaled(1.01), (x,), rtol=0.02)


def test_gradcheck_unsupported_modes_say_so():
    x = t64([1.0])
    with pytest.raises(NotImplementedError, match="check_batched_grad"):
        gradcheck(lambda x: x * 2, (x,), check_batched_grad=True)
    with pytest.raises(AssertionError):
        gradcheck(lambda x: x * 2, (x,), check_backward_ad=False)


def test_gradcheck_forward_ad_compares_the_forward_mode_jacobian():
    x = t64([0.5, -1.5, 2.0])
    y = t64([1.0, 2.0, 3.0])
    assert gradcheck(lambda a, b: (a.sin() * b, a.exp().sum()), (x, y), check_forward_ad=True)
    assert gradcheck(lambda a: a.tanh(), (x,), check_forward_ad=True, check_backward_ad=False)

    class WrongJvp(minigrad.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def jvp(ctx, t):
            return t * 3

    with pytest.raises(GradcheckError, match="Jacobian computed with forward mode mismatch"):
        gradcheck(WrongJvp.apply, (x,), check_forward_ad=True)
    assert not gradcheck(WrongJvp.apply, (x,), check_forward_ad=True, raise_exception=False)
    # the reverse-mode check alone passes: the backward is right
    assert gradcheck(WrongJvp.apply, (x,))


# ------------------------------------------------ var, std, prod, flip, repeat, split, %

@pytest.mark.parametrize("fn", [
    lambda a: a.var(),
    lambda a: a.var(1, keepdim=True),
    lambda a: a.var(0, correction=0),
    lambda a: a.std(),
    lambda a: a.std(1),
    lambda a: a.prod(),
    lambda a: a.prod(0),
    lambda a: a.flip((0, 1)),
    lambda a: a.repeat(2, 3),
    lambda a: a.repeat(2, 1, 1),
    lambda a: a.split(2, 1)[1] * 3 + a.split(2, 1)[0].sum(),
    lambda a: a.chunk(2, 0)[0] * a.chunk(2, 0)[1],
    lambda a: a % 1.5,
    lambda a: a.norm(),
], ids=["var", "var_dim", "var_c0", "std", "std_dim", "prod", "prod_dim", "flip", "repeat",
        "repeat_lead", "split", "chunk", "remainder", "norm"])
def test_more_reductions_and_shapes_against_finite_differences(fn):
    a = minigrad.tensor([[1.3, -0.7, 2.1], [0.4, 1.9, -1.2]], dtype=minigrad.float64,
                        requires_grad=True)
    assert gradcheck(fn, (a,))


def test_prod_gradient_with_zeros_is_the_product_of_the_others():
    a = minigrad.tensor([2.0, 0.0, 3.0, 0.5], dtype=minigrad.float64, requires_grad=True)
    a.prod().backward()
    assert a.grad.tolist() == [0.0, 3.0, 0.0, 0.0]
