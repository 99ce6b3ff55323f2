"""``autograd.Function``: user-defined operations, checked numerically and by hand.

* custom Functions gradcheck'ed in float64 (one input, two inputs with a
  non-tensor argument, two outputs);
* a backward written with tensor operations is itself recorded under
  ``create_graph``, so the custom op can be differentiated twice
  (gradgradcheck, and d²/dx² x³ = 6x by hand);
* ``ctx``: saved tensors freed after backward, ``needs_input_grad``,
  ``mark_non_differentiable``, ``set_materialize_grads``; bad backward
  results in PyTorch's words;
* minigrad's own primitives are Functions too.
"""

import numpy as np
import pytest

import minigrad
from minigrad.autograd import Function, grad, gradcheck, gradgradcheck
from minigrad.autograd.function import BackwardNode


def f64(data, requires_grad=True):
    return minigrad.tensor(data, dtype=minigrad.float64, requires_grad=requires_grad)


class Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x ** 2


class ScaledMul(Function):
    """a * b * k for tensors a, b and a Python number k."""

    @staticmethod
    def forward(ctx, a, b, k):
        ctx.save_for_backward(a, b)
        ctx.k = k
        return a * b * k

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        ga = g * b * ctx.k if ctx.needs_input_grad[0] else None
        gb = g * a * ctx.k if ctx.needs_input_grad[1] else None
        return ga, gb, None


class SinCos(Function):
    """Two outputs: (sin x, cos x)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin(), x.cos()

    @staticmethod
    def backward(ctx, gs, gc):
        (x,) = ctx.saved_tensors
        return gs * x.cos() - gc * x.sin()


class Softplus(Function):
    """log(1 + e^x), saving its output-free input; backward is sigmoid(x) * g."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return (x.exp() + 1).log()

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x.sigmoid()


# ------------------------------------------------------------------ numerically

@pytest.mark.parametrize("fn, shapes", [
    (lambda x: Cube.apply(x), [(3,)]),
    (lambda a, b: ScaledMul.apply(a, b, 2.5), [(2, 3), (3,)]),
    (lambda x: SinCos.apply(x), [(4,)]),
    (lambda x: Softplus.apply(x * 2).sum(), [(2, 2)]),
    (lambda x: Cube.apply(Softplus.apply(x)).exp(), [(3,)]),
], ids=["cube", "scaled_mul_broadcast", "two_outputs", "softplus", "composed"])
def test_gradcheck_float64(fn, shapes, rng):
    inputs = tuple(f64(rng.uniform(-1.0, 1.0, size=s)) for s in shapes)
    assert gradcheck(fn, inputs)


@pytest.mark.parametrize("fn", [
    lambda x: Cube.apply(x),
    lambda x: Softplus.apply(x),
    lambda x: SinCos.apply(x)[0] * SinCos.apply(x)[1],
], ids=["cube", "softplus", "sincos"])
def test_gradgradcheck_backward_written_with_tensor_ops(fn, rng):
    x = f64(rng.uniform(-1.0, 1.0, size=(3,)))
    assert gradgradcheck(fn, (x,))


# ------------------------------------------------------------------ by hand

@pytest.mark.parametrize("x0", [-1.0, 0.5, 2.0])
def test_cube_first_and_second_derivative_by_hand(x0):
    x = f64(x0)
    y = Cube.apply(x)
    assert type(y.grad_fn).__name__ == "CubeBackward" and y.grad_fn.name() == "CubeBackward"
    (g,) = grad(y, x, create_graph=True)
    assert g.item() == pytest.approx(3 * x0 ** 2)
    assert g.requires_grad and g.grad_fn is not None   # the custom backward was recorded
    (h,) = grad(g, x)
    assert h.item() == pytest.approx(6 * x0)


def test_backward_runs_with_grad_mode_of_create_graph():
    modes = []

    class Probe(Function):
        @staticmethod
        def forward(ctx, x):
            modes.append(("forward", minigrad.is_grad_enabled()))
            return x * 2

        @staticmethod
        def backward(ctx, g):
            modes.append(("backward", minigrad.is_grad_enabled()))
            return g * 2

    x = f64(1.0)
    grad(Probe.apply(x), x)
    grad(Probe.apply(x), x, create_graph=True)
    assert modes == [("forward", False), ("backward", False), ("forward", False), ("backward", True)]


def test_scaled_mul_needs_input_grad_and_values():
    a = f64([1.0, 2.0])
    b = f64([3.0, -1.0], requires_grad=False)
    y = ScaledMul.apply(a, b, 2.0)
    assert y.grad_fn.needs_input_grad == (True, False, False)
    assert len(y.grad_fn.next_functions) == 2  # one edge per tensor argument
    y.sum().backward()
    np.testing.assert_array_equal(a.grad._data, [6.0, -2.0])
    assert b.grad is None


def test_two_outputs_share_one_node_and_sum_their_gradients():
    x = f64([0.3, 1.2])
    s, c = SinCos.apply(x)
    assert s.grad_fn is c.grad_fn and (s.output_nr, c.output_nr) == (0, 1)
    (s * c).sum().backward()    # d/dx sin x cos x = cos 2x
    np.testing.assert_allclose(x.grad._data, np.cos(2 * x._data))


# ------------------------------------------------------------------ ctx

def test_saved_tensors_freed_after_backward_unless_retained():
    x = f64(2.0)
    y = Cube.apply(x)
    (saved,) = y.grad_fn.saved_tensors
    assert saved is x
    y.backward(retain_graph=True)
    assert y.grad_fn.saved_tensors[0] is x
    y.backward()
    assert x.grad.item() == pytest.approx(24.0)
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        y.grad_fn.saved_tensors


def test_saved_input_modified_in_place_is_caught():
    x = f64([1.0, 2.0])
    c = f64([3.0, 4.0], requires_grad=False)
    y = ScaledMul.apply(x, c, 1.0)
    c.add_(1)
    with pytest.raises(RuntimeError, match=r"^one of the variables needed for gradient computation has "
                                           r"been modified by an inplace operation: \[torch.DoubleTensor "
                                           r"\[2\]\] is at version 1; expected version 0 instead\."):
        y.sum().backward()


def test_mark_non_differentiable_and_materialized_zero_gradient():
    seen = []

    class ArgSort(Function):
        @staticmethod
        def forward(ctx, x):
            idx = minigrad.tensor(np.argsort(x._data))
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(idx)
            return x[idx], idx

        @staticmethod
        def backward(ctx, g, gidx):
            seen.append(gidx)
            (idx,) = ctx.saved_tensors
            out = minigrad.zeros(g.shape, dtype=g.dtype)
            out[idx] = g
            return out

    x = f64([3.0, 1.0, 2.0])
    vals, idx = ArgSort.apply(x)
    assert not idx.requires_grad and idx.grad_fn is None
    np.testing.assert_array_equal(vals._data, [1.0, 2.0, 3.0])
    (vals * f64([1.0, 10.0, 100.0], False)).sum().backward()
    np.testing.assert_array_equal(x.grad._data, [100.0, 1.0, 10.0])
    np.testing.assert_array_equal(seen[0]._data, [0, 0, 0])   # zeros, not None (materialized)


@pytest.mark.parametrize("materialize", [True, False])
def test_set_materialize_grads(materialize):
    seen = []

    class Split(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(materialize)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, ga, gb):
            seen.append((ga, gb))
            out = ga * 2 if ga is not None else 0
            return out + gb * 3 if gb is not None else out

    x = f64([1.0, 2.0])
    a, _ = Split.apply(x)
    a.sum().backward()
    ga, gb = seen[0]
    np.testing.assert_array_equal(ga._data, [1.0, 1.0])
    if materialize:
        np.testing.assert_array_equal(gb._data, [0.0, 0.0])
    else:
        assert gb is None
    np.testing.assert_array_equal(x.grad._data, [2.0, 2.0])


# ------------------------------------------------------------------ bad backward results

def test_wrong_number_of_gradients():
    class Few(Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g

    x = f64([1.0, 2.0])
    with pytest.raises(RuntimeError) as err:
        Few.apply(x, 2.0).sum().backward()
    assert str(err.value) == "function FewBackward returned an incorrect number of gradients (expected 2, got 1)"


def test_trailing_none_gradients_are_tolerated():
    class Extra(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2, None, None

    x = f64([1.0, 2.0])
    Extra.apply(x).sum().backward()
    np.testing.assert_array_equal(x.grad._data, [2.0, 2.0])


def test_gradient_of_the_wrong_shape():
    class Bad(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g[:2]

    x = f64([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError) as err:
        Bad.apply(x).sum().backward()
    assert str(err.value) == ("Function BadBackward returned an invalid gradient at index 0 - got [2] but "
                              "expected shape compatible with [3]")


def test_broadcast_and_dtype_of_returned_gradient_are_fixed_up():
    class Wide(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return minigrad.ones(2, 3, dtype=minigrad.float64)

    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    Wide.apply(x).sum().backward()
    assert x.grad.dtype is minigrad.float32
    np.testing.assert_array_equal(x.grad._data, [2.0, 2.0, 2.0])


# ------------------------------------------------------------------ the primitives are Functions

@pytest.mark.parametrize("make", [
    lambda x: x.exp(), lambda x: x * x, lambda x: x.sum(), lambda x: x.reshape(3, 1),
    lambda x: x.tanh(), lambda x: x @ x,
])
def test_primitives_record_function_nodes(make):
    x = f64([0.5, 1.0, 2.0])
    node = make(x).grad_fn
    assert isinstance(node, BackwardNode)
    assert issubclass(node._forward_cls, Function)
    assert node._forward_cls.apply  # recorded through Function.apply, like a custom op

