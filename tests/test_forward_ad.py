"""Forward-mode AD (``minigrad.autograd.forward_ad``): dual tensors and the JVP rules.

1. The API as PyTorch's: ``dual_level``, ``make_dual``, ``unpack_dual``,
   ``enter_dual_level`` / ``exit_dual_level``, their errors (PyTorch 2.13's
   text) and how dual tensors print.
2. Every JVP rule in the table: the tangent forward mode computes must equal
   the reverse-mode Jacobian times the tangent, J·v, on shapes and values
   drawn by hypothesis; then random compositions of ops.
3. Forward-over-reverse: tangents flowing through a backward pass (what
   ``hessian(..., outer_jacobian_strategy="forward-mode")`` uses).
4. Values recorded from PyTorch 2.13 (the script is ``_record_with_torch`` at
   the end of this file: ``/root/torchvenv/bin/python tests/test_forward_ad.py``).
"""

import contextlib
import gc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad
from minigrad.autograd import forward_ad as fwAD
from minigrad.autograd.functional import hessian, jacobian
from minigrad.nn import functional as NF
from minigrad.ops import elementwise as E
from minigrad.ops import inplace as IP
from minigrad.ops import view_writes as VW

F64 = minigrad.float64


def t64(data, requires_grad=False):
    return minigrad.tensor(data, dtype=F64, requires_grad=requires_grad)


def test_apply_and_repr_carry_tangents():
    """Function.apply pushes tangents through every op; a dual tensor's repr shows its tangent."""
    with fwAD.dual_level():
        d = fwAD.make_dual(minigrad.tensor([1.0]), minigrad.tensor([2.0]))
        assert fwAD.unpack_dual(-d).tangent.tolist() == [-2.0]
        assert "tangent=tensor([2.])" in repr(d)


@pytest.fixture(autouse=True)
def _no_level_left_open():
    yield
    if fwAD._state.level is not None:
        fwAD.exit_dual_level()
        pytest.fail("the test left a dual level open")


# ------------------------------------------------------------------ the API


def test_dual_level_enters_level_zero_and_exit_deletes_the_tangents():
    x = minigrad.tensor([1.0, 2.0])
    with fwAD.dual_level() as level:
        assert level == 0
        d = fwAD.make_dual(x, minigrad.tensor([1.0, 0.0]))
        y = d * 3
        primal, tangent = fwAD.unpack_dual(y)
        assert primal.tolist() == [3.0, 6.0] and tangent.tolist() == [3.0, 0.0]
        assert "_fw_grad" in y.__dict__
    assert fwAD.unpack_dual(y) == (y, None)
    assert "_fw_grad" not in y.__dict__  # deleted, not only hidden
    assert fwAD._state.level is None
    # a new level does not see the old tangents
    with fwAD.dual_level():
        assert fwAD.unpack_dual(y).tangent is None


def test_enter_and_exit_by_hand_and_as_a_decorator():
    assert fwAD.enter_dual_level() == 0
    d = fwAD.make_dual(minigrad.tensor(2.0), minigrad.tensor(1.0))
    assert fwAD.unpack_dual(d * d).tangent.item() == 4.0
    fwAD.exit_dual_level(level=0)

    @fwAD.dual_level()
    def square_jvp(x, v):
        return fwAD.unpack_dual(fwAD.make_dual(x, v) ** 2).tangent

    assert square_jvp(minigrad.tensor([3.0]), minigrad.tensor([1.0])).tolist() == [6.0]
    assert fwAD._state.level is None


def test_unpacked_dual_tensor_is_a_namedtuple():
    assert fwAD.UnpackedDualTensor._fields == ("primal", "tangent")
    with fwAD.dual_level():
        d = fwAD.make_dual(minigrad.tensor([1.0, 2.0]), minigrad.tensor([1.0, 0.0]))
        u = fwAD.unpack_dual(d)
        assert isinstance(u, tuple) and u.primal is u[0] and u.tangent is u[1]
        assert repr(u) == ("UnpackedDualTensor(primal=tensor([1., 2.]), "
                           "tangent=tensor([1., 0.]))")


def test_make_dual_is_a_view_and_keeps_the_tangent_as_is():
    x = minigrad.tensor([1.0, 2.0])
    t = minigrad.tensor([1.0, 0.0])
    with fwAD.dual_level():
        d = fwAD.make_dual(x, t)
        assert d is not x and np.shares_memory(d._data, x._data)
        assert fwAD.unpack_dual(d).tangent is t
        assert d.is_leaf and not d.requires_grad
        # the primal unpacked is a view without the tangent
        p = fwAD.unpack_dual(d).primal
        assert np.shares_memory(p._data, x._data)
        assert fwAD.unpack_dual(p).tangent is None
        # a tensor without tangent unpacks to (a view of itself, None)
        q, none = fwAD.unpack_dual(x)
        assert none is None and q.tolist() == [1.0, 2.0]


def test_make_dual_of_a_tensor_that_requires_grad_is_backward_differentiable():
    x = t64([1.0, 2.0], requires_grad=True)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, t64([1.0, 0.0]))
        assert d.grad_fn.name() == "ViewBackward0" and not d.is_leaf
        y = (d * d).sum()
        y.backward()
        p = fwAD.unpack_dual(d).primal
        assert p.grad_fn.name() == "torch::autograd::Identity"  # PyTorch's node for the primal view
        assert "grad_fn=<Identity>" in repr(p)
        assert fwAD.unpack_dual(y).tangent.item() == 2.0
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])


def test_tangent_of_another_dtype_is_allowed_as_in_pytorch():
    with fwAD.dual_level():
        d = fwAD.make_dual(minigrad.tensor([1.0, 2.0]), t64([1.0, 1.0]))
        assert fwAD.unpack_dual(d).tangent.dtype is F64
        assert fwAD.unpack_dual(d * d).tangent.tolist() == [2.0, 4.0]


def test_outputs_without_dual_inputs_and_integer_outputs_have_no_tangent():
    with fwAD.dual_level():
        d = fwAD.make_dual(minigrad.tensor([1.0, 2.0]), minigrad.tensor([1.0, 0.0]))
        assert fwAD.unpack_dual(minigrad.tensor([1.0, 2.0]) * 2).tangent is None
        assert fwAD.unpack_dual(d > 1).tangent is None
        values, indices = d.max(0)
        assert fwAD.unpack_dual(indices).tangent is None
        assert fwAD.unpack_dual(values).tangent.item() == 0.0
        assert fwAD.unpack_dual(d.argmax()).tangent is None


def test_broadcasting_expands_the_tangent_to_the_output_shape():
    with fwAD.dual_level():
        d = fwAD.make_dual(minigrad.tensor([1.0, 2.0]), minigrad.tensor([1.0, 0.0]))
        b = d + minigrad.tensor([[5.0], [5.0]])
        tangent = fwAD.unpack_dual(b).tangent
        assert tangent.shape == (2, 2)
        assert tangent.tolist() == [[1.0, 0.0], [1.0, 0.0]]


def test_copy_tangent_helper_for_in_place_operations():
    # inplace.py computes y = op(x) out of place and writes y into x: x must take y's tangent
    z = minigrad.tensor([0.0, 0.0])
    fwAD._copy_tangent(z, z)  # no level: nothing happens
    with fwAD.dual_level():
        y = fwAD.make_dual(minigrad.tensor([1.0, 2.0]), minigrad.tensor([1.0, 0.0])) * 2
        fwAD._copy_tangent(y, z)
        assert fwAD.unpack_dual(z).tangent.tolist() == [2.0, 0.0]
        fwAD._copy_tangent(minigrad.tensor([5.0, 5.0]), z)  # e.g. x.fill_(5): no tangent left
        assert fwAD.unpack_dual(z).tangent is None


# ------------------------------------------------------------------ errors (PyTorch 2.13's text)


def _raises(exc, message, fn):
    with pytest.raises(exc) as info:
        fn()
    assert str(info.value) == message


def test_make_dual_outside_a_level():
    _raises(RuntimeError,
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first.",
            lambda: fwAD.make_dual(minigrad.tensor([1.0]), minigrad.tensor([1.0])))


def test_make_dual_errors_inside_a_level():
    x = minigrad.tensor([1.0, 2.0])
    with fwAD.dual_level():
        _raises(RuntimeError,
                "Trying to set a forward gradient that has a different size than that of the "
                "original Tensor, this is not supported. Tensor is of size [2] while the given "
                "forward gradient is of size [3].",
                lambda: fwAD.make_dual(x, minigrad.tensor([1.0, 0.0, 3.0])))
        _raises(RuntimeError,
                "Trying to set a forward gradient that has a different size than that of the "
                "original Tensor, this is not supported. Tensor is of size [] while the given "
                "forward gradient is of size [3].",
                lambda: fwAD.make_dual(minigrad.tensor(1.0), minigrad.tensor([1.0, 0.0, 3.0])))
        _raises(ValueError, "Expected tangent to be floating point or complex, but got: "
                + repr(minigrad.int64), lambda: fwAD.make_dual(x, minigrad.tensor([1, 0])))
        _raises(ValueError, "Expected primal to be floating point or complex, but got: "
                + repr(minigrad.int64), lambda: fwAD.make_dual(minigrad.tensor([1, 0]), x))
        d = fwAD.make_dual(x, minigrad.tensor([1.0, 0.0]))
        _raises(RuntimeError,
                "Making a dual Tensor based on a Tensor that already has a forward gradient at "
                "the same level 0 is not supported.",
                lambda: fwAD.make_dual(d, minigrad.tensor([1.0, 0.0, 3.0])))
        _raises(RuntimeError, "Invalid level given to _make_dual",
                lambda: fwAD.make_dual(x, minigrad.tensor([1.0, 0.0]), level=1))
        _raises(TypeError, "_unpack_dual(): argument 'dual' (position 1) must be Tensor, not list",
                lambda: fwAD.unpack_dual([1.0, 0.0]))
        assert fwAD.unpack_dual(d, level=3).tangent is None


def test_levels_do_not_nest_and_exit_checks_the_level():
    with fwAD.dual_level():
        _raises(RuntimeError, "Nested forward mode AD is not supported at the moment",
                fwAD.enter_dual_level)
        _raises(RuntimeError,
                "Trying to exit a forward AD level that was not the last one that was created. "
                "This is not supported.",
                lambda: fwAD.exit_dual_level(level=5))
    _raises(RuntimeError, "Dual level must be a positive number.", fwAD.exit_dual_level)
    _raises(RuntimeError,
            "Trying to exit a forward AD level that was not the last one that was created. "
            "This is not supported.",
            lambda: fwAD.exit_dual_level(level=0))


def test_custom_function_without_jvp_raises_pytorchs_error():
    class Twice(minigrad.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with fwAD.dual_level():
        d = fwAD.make_dual(minigrad.tensor([1.0]), minigrad.tensor([1.0]))
        _raises(NotImplementedError,
                "You must implement the jvp function for custom autograd.Function to use it "
                "with forward mode AD.", lambda: Twice.apply(d))


def test_custom_function_with_jvp():
    class Cube(minigrad.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.a = a
            return minigrad.Tensor._make(a._data ** 3)

        @staticmethod
        def backward(ctx, g):
            return g * 3 * ctx.a ** 2

        @staticmethod
        def jvp(ctx, a_t):
            return 3 * ctx.a ** 2 * a_t

    x = t64([1.0, 2.0], requires_grad=True)
    with fwAD.dual_level():
        y = Cube.apply(fwAD.make_dual(x, t64([1.0, -1.0])))
        assert fwAD.unpack_dual(y).tangent.tolist() == [3.0, -12.0]


def test_primitive_without_a_rule_says_so():
    class NoRule(minigrad.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return minigrad.Tensor._make(a._data.copy())

    NoRule.__module__ = "minigrad.ops.imaginary"
    with fwAD.dual_level():
        d = fwAD.make_dual(minigrad.tensor([1.0]), minigrad.tensor([1.0]))
        with pytest.raises(NotImplementedError) as info:
            NoRule.apply(d)
    assert str(info.value).startswith(
        "Trying to use forward AD with NoRule that does not support it because it has not "
        "been implemented yet.")


# ------------------------------------------------------------------ printing (PyTorch 2.13)


def test_repr_of_dual_tensors_matches_pytorch():
    with fwAD.dual_level():
        d = fwAD.make_dual(minigrad.tensor([1.0, 2.0]), minigrad.tensor([1.0, 0.0]))
        assert repr(d) == "tensor([1., 2.], tangent=tensor([1., 0.]))"
        assert str(d) == "tensor([1., 2.], tangent=tensor([1., 0.]))"
        assert repr(d * 3) == "tensor([3., 6.], tangent=tensor([3., 0.]))"
        assert repr(d.sum()) == "tensor(3., tangent=1.0)"
        assert repr(fwAD.make_dual(minigrad.tensor(3.0), minigrad.tensor(2.0))) == "tensor(3., tangent=2.0)"
        assert repr(d + minigrad.tensor([5.0, 5.0])) == "tensor([6., 7.], tangent=tensor([1., 0.]))"
        assert repr(fwAD.make_dual(minigrad.tensor([1e-6, 1.0]), minigrad.tensor([1e6, 2.0]))) == (
            "tensor([1.0000e-06, 1.0000e+00], tangent=tensor([1.0000e+06, 2.0000e+00]))")
        m = fwAD.make_dual(minigrad.arange(6.0).reshape(2, 3),
                           minigrad.tensor([[1e-6, 1.0, 2.0], [3.0, 4.0, 5.0]]))
        assert repr(m) == (
            "tensor([[0., 1., 2.],\n"
            "        [3., 4., 5.]],\n"
            "       tangent=tensor([[1.0000e-06, 1.0000e+00, 2.0000e+00],\n"
            "        [3.0000e+00, 4.0000e+00, 5.0000e+00]]))")
        z = fwAD.make_dual(minigrad.tensor([1.0, 2.0]), minigrad.tensor([1.0, 0.0])).requires_grad_()
        assert repr(z) == "tensor([1., 2.], requires_grad=True, tangent=tensor([1., 0.]))"
        assert repr((z * z).sum()) == "tensor(5., grad_fn=<SumBackward0>, tangent=2.0)"
        r = fwAD.make_dual(minigrad.tensor([1.0, 2.0], requires_grad=True), minigrad.ones(2)).exp()
        assert repr(r) == ("tensor([2.7183, 7.3891], grad_fn=<ExpBackward0>,\n"
                           "       tangent=tensor([2.7183, 7.3891], grad_fn=<MulBackward0>))")
        assert repr(d.max(0)) == ("torch.return_types.max(\n"
                                  "values=tensor(2., tangent=0.0),\n"
                                  "indices=tensor(1))")
        assert repr(fwAD.unpack_dual(fwAD.make_dual(minigrad.tensor([1.0, 2.0], requires_grad=True),
                                                    minigrad.tensor([1.0, 0.0])))) == (
            "UnpackedDualTensor(primal=tensor([1., 2.], grad_fn=<Identity>), "
            "tangent=tensor([1., 0.]))")
    assert repr(d) == "tensor([1., 2.])"  # after the level, no tangent
    assert fwAD._repr_suffix(d) is None


# ------------------------------------------------------------------ every rule: JVP = J v
#
# Each case draws shapes (hypothesis) and values (numpy, from a drawn seed) and returns
# ``(fn, inputs, classes)``: the tangent of fn at the inputs along random tangents must
# equal the reverse-mode Jacobian of fn times those tangents, and the JVP rules of the
# named primitive classes must have run.

REAL = (-2.0, 2.0)
POSITIVE = (0.5, 2.0)
shape_any = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)
shape_nd = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3)
pair = hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3)


def _values(rng, shape, domain=REAL):
    return rng.uniform(*domain, size=shape)


def _unary(fn, domain=REAL, shapes=shape_any):
    def case(draw, rng):
        return fn, [_values(rng, draw(shapes), domain)]
    return case


def _binary(fn, da=REAL, db=REAL):
    def case(draw, rng):
        sa, sb = draw(pair).input_shapes
        return fn, [_values(rng, sa, da), _values(rng, sb, db)]
    return case


def _with_dim(make, shapes=shape_nd, domain=REAL):
    """fn built from a random dim (and keepdim) of a random shape with ndim >= 1."""
    def case(draw, rng):
        shape = draw(shapes)
        dim = draw(st.integers(-len(shape), len(shape) - 1))
        keepdim = draw(st.booleans())
        return make(dim, keepdim), [_values(rng, shape, domain)]
    return case


def _fixed(fn, *shapes, domain=REAL):
    def case(draw, rng):
        return fn, [_values(rng, s, domain) for s in shapes]
    return case


def _with_ties(fn, shapes=shape_nd):
    """Values drawn from {-1, 0, 1}: kinks and ties on purpose (rules and backward must agree)."""
    def case(draw, rng):
        return fn, [rng.integers(-1, 2, size=draw(shapes)).astype(np.float64)]
    return case


def _where(a, b):
    return minigrad.where(a > 0, a, b)


def _expand(x):
    return x.expand(2, *x.shape)


def _cat(a):
    return minigrad.cat([a, a * 2, a[:1]], 0)


def _gather(a):  # a: (3, 4); repeated indices on purpose
    return minigrad.gather(a, 0, minigrad.tensor([[2, 1, 0, 0], [0, 0, 1, 2]]))


CASES = {
    # elementwise arithmetic
    "add": (_binary(lambda a, b: a + b), {"Add"}),
    "add_alpha": (_binary(lambda a, b: minigrad.add(a, b, alpha=2.5)), {"Add"}),
    "add_scalar": (_unary(lambda a: a + 3), {"Add"}),
    "sub": (_binary(lambda a, b: a - b), {"Sub"}),
    "sub_alpha": (_binary(lambda a, b: minigrad.sub(a, b, alpha=-1.5)), {"Sub"}),
    "rsub": (_unary(lambda a: 2 - a), {"Rsub"}),
    "mul": (_binary(lambda a, b: a * b), {"Mul"}),
    "div": (_binary(lambda a, b: a / b, db=POSITIVE), {"Div"}),
    "div_rounding_mode_none": (_binary(lambda a, b: minigrad.div(a, b, rounding_mode=None), db=POSITIVE),
                               {"DivRounding"}),
    "div_floor": (_binary(lambda a, b: minigrad.div(a, b, rounding_mode="floor") + a * b), {"DivRounding"}),
    "div_trunc": (_binary(lambda a, b: a.div(b, rounding_mode="trunc") + a * b), {"DivRounding"}),
    "nan_to_num": (_unary(lambda a: a.log().nan_to_num(posinf=2.0) + a), {"NanToNum"}),
    "neg": (_unary(lambda a: -a), {"Neg"}),
    "reciprocal": (_unary(lambda a: 2 / a, POSITIVE), {"Reciprocal", "Mul"}),
    "pow_scalar": (_unary(lambda a: a ** 3), {"PowTensorScalar"}),
    "pow_half": (_unary(lambda a: a ** 0.5, POSITIVE), {"PowTensorScalar"}),
    "pow_zero": (_unary(lambda a: a ** 0), {"PowTensorScalar"}),
    "pow_tensor": (_binary(lambda a, b: a ** b, da=POSITIVE), {"PowTensorTensor"}),
    "pow_tensor_zero_exponent": (_fixed(lambda a: a ** (a * 0), (3,), domain=POSITIVE),
                                 {"PowTensorTensor"}),
    "pow_scalar_base": (_unary(lambda a: 2.0 ** a), {"PowScalarTensor"}),
    "pow_zero_base": (_unary(lambda a: 0.0 ** a, POSITIVE), {"PowScalarTensor"}),
    "where": (_binary(_where), {"Where"}),
    "exp": (_unary(lambda a: a.exp()), {"Exp"}),
    "log": (_unary(lambda a: a.log(), POSITIVE), {"Log"}),
    "sqrt": (_unary(lambda a: a.sqrt(), POSITIVE), {"Sqrt"}),
    "sin": (_unary(lambda a: a.sin()), {"Sin"}),
    "cos": (_unary(lambda a: a.cos()), {"Cos"}),
    "tanh": (_unary(lambda a: a.tanh()), {"Tanh"}),
    "sigmoid": (_unary(lambda a: a.sigmoid()), {"Sigmoid"}),
    "relu": (_with_ties(lambda a: a.relu()), {"Relu"}),
    "abs": (_with_ties(lambda a: a.abs()), {"Abs"}),
    "clamp": (_with_ties(lambda a: a.clamp(-0.5, 1.0)), {"Clamp"}),
    "clamp_min": (_unary(lambda a: a.clamp(min=0.3)), {"Clamp"}),
    "clamp_max": (_unary(lambda a: a.clamp(max=-0.3)), {"Clamp"}),
    "clamp_min_method": (_with_ties(lambda a: a.clamp_min(0.0)), {"ClampMin"}),
    "clamp_max_method": (_with_ties(lambda a: a.clamp_max(0.0)), {"ClampMax"}),
    "clamp_tensor_bounds": (_fixed(lambda a, lo, hi: a.clamp(lo, hi), (2, 3), (3,), (2, 1)),
                            {"ClampTensor"}),
    "clamp_tensor_min": (_binary(lambda a, lo: a.clamp(min=lo)), {"ClampTensor"}),
    "clamp_min_tensor": (_binary(lambda a, lo: a.clamp_min(lo)), {"ClampMinTensor"}),
    "clamp_max_tensor": (_binary(lambda a, hi: minigrad.clamp_max(a, hi)), {"ClampMaxTensor"}),
    "sort": (_with_dim(lambda d, k: lambda a: a.sort(d, descending=k).values), {"Sort"}),
    "topk": (_fixed(lambda a: a.topk(2, dim=1, largest=False).values, (3, 4)), {"Topk"}),
    "diag_embed": (_fixed(lambda a: a.diag(-1), (3,)), {"DiagEmbed"}),
    "diag_copy": (_fixed(lambda a: a.diag(1), (3, 4)), {"DiagonalCopy"}),
    "diagonal": (_fixed(lambda a: a.diagonal(0, 0, 2), (3, 2, 4)), {"Diagonal"}),
    "index_select": (_fixed(lambda a: a.index_select(1, minigrad.tensor([3, 0, 3])), (2, 4)),
                     {"IndexSelect"}),
    "norm": (_with_dim(lambda d, k: lambda a: a.norm(dim=d, keepdim=k)), {"VectorNorm"}),
    "norm_all": (_unary(lambda a: a.norm(3)), {"VectorNorm"}),
    "norm_1": (_fixed(lambda a: a.norm(1, dim=(0, 1)), (2, 3)), {"VectorNorm"}),
    "squeeze_dims": (_fixed(lambda a: a.squeeze((0, 2)), (1, 3, 1)), {"SqueezeDims"}),
    "alias": (_fixed(lambda a: a[...] * 1, (2, 3)), {"Alias"}),
    "index_add": (_fixed(lambda a, s: a.index_add(0, minigrad.tensor([1, 1, 0]), s, alpha=2),
                         (2, 3), (3, 3)), {"IndexAdd"}),
    "maximum": (_binary(lambda a, b: minigrad.maximum(a, b)), {"Maximum"}),
    "minimum": (_binary(lambda a, b: minigrad.minimum(a, b)), {"Minimum"}),
    "maximum_ties": (_with_ties(lambda a: minigrad.maximum(a, a.abs())), {"Maximum"}),
    "minimum_ties": (_with_ties(lambda a: minigrad.minimum(a, a.relu())), {"Minimum"}),
    # reductions
    "sum": (_unary(lambda a: a.sum()), {"Sum"}),
    "sum_dim": (_with_dim(lambda d, k: lambda a: a.sum(d, keepdim=k)), {"SumDim"}),
    "mean": (_unary(lambda a: a.mean()), {"Mean"}),
    "mean_dim": (_with_dim(lambda d, k: lambda a: a.mean(d, keepdim=k)), {"MeanDim"}),
    "max": (_with_ties(lambda a: a.max()), {"MaxAll"}),
    "min": (_with_ties(lambda a: a.min()), {"MinAll"}),
    "max_dim": (_with_dim(lambda d, k: lambda a: a.max(d, keepdim=k).values), {"MaxDim"}),
    "min_dim": (_with_dim(lambda d, k: lambda a: a.min(d, keepdim=k)[0]), {"MinDim"}),
    "max_dim_0d": (_fixed(lambda a: a.max(0).values, ()), {"MaxDim"}),
    "amax": (_with_dim(lambda d, k: lambda a: a.amax(d, keepdim=k)), {"Amax"}),
    "amin": (_with_dim(lambda d, k: lambda a: a.amin(d, keepdim=k)), {"Amin"}),
    "amax_ties": (_with_ties(lambda a: a.amax(0)), {"Amax"}),
    "amin_all": (_with_ties(lambda a: a.amin()), {"Amin"}),
    "logsumexp": (_with_dim(lambda d, k: lambda a: a.logsumexp(d, keepdim=k)), {"Logsumexp"}),
    "softmax": (_with_dim(lambda d, k: lambda a: a.softmax(d)), {"Softmax"}),
    "log_softmax": (_with_dim(lambda d, k: lambda a: a.log_softmax(d)), {"LogSoftmax"}),
    "softmax_0d": (_fixed(lambda a: minigrad.softmax(a, 0) + minigrad.log_softmax(a, 0), ()),
                   {"Softmax", "LogSoftmax"}),
    # shape
    "view": (_unary(lambda a: a.view(-1)), {"View"}),
    "unsafe_view": (_fixed(lambda a: a.T.reshape(-1), (2, 3)), {"UnsafeView", "Clone"}),
    "clone": (_unary(lambda a: a.clone()), {"Clone"}),
    "transpose": (_unary(lambda a: a.transpose(0, -1), shapes=shape_nd), {"Transpose"}),
    "permute": (_unary(lambda a: a.permute(*reversed(range(a.ndim)))), {"Permute"}),
    "t": (_unary(lambda a: a.t(), shapes=hnp.array_shapes(min_dims=0, max_dims=2, max_side=3)), {"T"}),
    "expand": (_unary(_expand), {"Expand"}),
    "to": (_unary(lambda a: a.float().double()), {"ToCopy"}),
    "unsqueeze": (_unary(lambda a: a.unsqueeze(0).unsqueeze(-1)), {"Unsqueeze"}),
    "squeeze": (_fixed(lambda a: a.squeeze(), (1, 3, 1)), {"SqueezeAll"}),
    "squeeze_dim": (_fixed(lambda a: a.squeeze(0).squeeze(-1), (1, 3, 1)), {"SqueezeDim"}),
    "cat": (_unary(_cat, shapes=shape_nd), {"Cat"}),
    "cat_with_constant": (_fixed(lambda a: minigrad.cat([a, t64([[9.0, 9.0]])], 0), (2, 2)), {"Cat"}),
    "stack": (_binary(lambda a, b: minigrad.stack([a * b, b * a], -1)), {"Stack"}),
    # indexing
    "select": (_unary(lambda a: a[0], shapes=shape_nd), {"Select"}),
    "slice": (_unary(lambda a: a[1:], shapes=hnp.array_shapes(min_dims=1, max_dims=3, min_side=2,
                                                              max_side=3)), {"Slice"}),
    "slice_step": (_fixed(lambda a: a[:, ::2], (2, 5)), {"Slice"}),
    "index_repeated": (_unary(lambda a: a[[0, 0, -1]], shapes=shape_nd), {"Index"}),
    # (the largest element always selected: an empty result has no Jacobian to stack)
    "index_mask": (_fixed(lambda a: a[(a > 0) | (a == a.max())], (3, 4)), {"Index"}),
    "gather": (_fixed(_gather, (3, 4)), {"Gather"}),
    # linear algebra
    "mm": (_fixed(lambda a, b: a @ b, (2, 3), (3, 4)), {"Mm"}),
    "mv": (_fixed(lambda a, b: a @ b, (2, 3), (3,)), {"Mv"}),
    "dot": (_fixed(lambda a, b: a @ b, (3,), (3,)), {"Dot"}),
    "bmm": (_fixed(lambda a, b: minigrad.bmm(a, b), (2, 2, 3), (2, 3, 2)), {"Bmm"}),
    "vec_mat": (_fixed(lambda a, b: a @ b, (3,), (3, 2)), {"Mm", "Unsqueeze", "SqueezeDimInplace"}),
    "batched_matmul": (_fixed(lambda a, b: a @ b, (2, 1, 2, 3), (3, 3, 2)),
                       {"Bmm", "Expand", "UnsafeView"}),
    "addmm": (_fixed(lambda c, a, b: minigrad.addmm(c, a, b, beta=0.5, alpha=-2.0), (3,), (2, 4),
                     (4, 3)), {"Addmm"}),
    "linear": (_fixed(lambda x, w, b: NF.linear(x, w, b), (2, 2, 3), (4, 3), (4,)), {"Addmm"}),
    # the out-of-place primitives of in-place operations (x.fill_, x.zero_, x.copy_, x[k] = v)
    "fill": (_fixed(lambda a, b: IP._FillTensor.apply(a, b.sum()) + IP._Fill.apply(a, 2.0),
                    (2, 3), (2,)),
             {"_Fill", "_FillTensor"}),
    "mul_scalar": (_unary(lambda a: E.MulScalar.apply(a, 2.5)), {"MulScalar"}),
    "flip_repeat": (_fixed(lambda a: a.flip(0).repeat(2, 1), (2, 3)), {"Flip", "Repeat"}),
    "split_unbind": (_fixed(lambda a: a.split(1, 0)[1] * 2 + a.split([1, 2], 1)[1].sum()
                            + list(a)[0].sum(), (2, 3)),
                     {"Split", "SplitWithSizes", "Unbind"}),
    "remainder": (_fixed(lambda a, b: a % (b.abs() + 1.5), (2, 3), (2, 3)), {"RemainderTensor"}),
    "remainder_scalar": (_fixed(lambda a: a % 1.5, (2, 3)), {"Remainder"}),
    "index_put": (_fixed(lambda a, b: IP._IndexPut.apply(a, (np.array([0, 2]),), b), (3, 2), (2, 2)),
                  {"_IndexPut"}),
    "view_write": (_fixed(lambda a, b: VW._CopyIntoView.apply(a, np.array([[0, 1], [4, 5]]), b)
                          + VW._ScatterIntoBase.apply(VW._AsStrided.apply(a, np.array([1, 1, 3])),
                                                      np.array([1, 1, 3]), (2, 3)),
                          (2, 3), (2, 2)),
                   {"_CopyIntoView", "_AsStrided", "_ScatterIntoBase"}),
    "zero": (_unary(lambda a: IP._Zero.apply(a) + a), {"_Zero"}),
    "copy": (_fixed(lambda a, b: VW._Copy.apply(a, b), (2, 3), (3,)), {"_Copy"}),
    "copy_slices": (_fixed(lambda a, b: IP._CopySlices.apply(a, (slice(0, 1),), b), (3, 2), (1, 2)),
                    {"_CopySlices"}),
    # losses
    "mse_loss": (_fixed(lambda a, b: NF.mse_loss(a, b), (2, 3), (2, 3)), {"MseLoss"}),
    "mse_loss_none": (_fixed(lambda a, b: NF.mse_loss(a, b, reduction="none")
                             + NF.mse_loss(a, b, reduction="sum"), (2, 3), (2, 3)), {"MseLoss"}),
    "nll_loss": (_fixed(lambda a: NF.nll_loss(a.log_softmax(1), minigrad.tensor([2, 0, 1])), (3, 4)),
                 {"NllLoss", "LogSoftmax"}),
    "cross_entropy_sum": (_fixed(lambda a: NF.cross_entropy(a, minigrad.tensor([1, 1]),
                                                            reduction="sum"), (2, 3)), {"NllLoss"}),
    "binary_cross_entropy": (_fixed(lambda a: NF.binary_cross_entropy(
        a.sigmoid(), t64([[0.0, 0.25, 1.0], [0.5, 0.75, 0.1]])), (2, 3)), {"BinaryCrossEntropy"}),
}


def _jvp_by_forward_mode(fn, inputs, tangents):
    with fwAD.dual_level():
        out = fn(*[fwAD.make_dual(x, t) for x, t in zip(inputs, tangents)])
        primal, tangent = fwAD.unpack_dual(out)
    return primal, tangent


def _jvp_by_reverse_jacobian(fn, inputs, tangents):
    """J v from the reverse-mode Jacobian (one backward pass per output element)."""
    out = fn(*inputs)
    jac = jacobian(fn, tuple(inputs))
    total = np.zeros(out.numel())
    for J, v in zip(jac, tangents):
        total = total + J.numpy().reshape(out.numel(), -1) @ v.numpy().reshape(-1)
    return out, total.reshape(out.shape)


@contextlib.contextmanager
def recording_rules():
    """Collect the names of the Function classes whose JVP rule is looked up."""
    seen = set()
    lookup = fwAD._rule_for

    def recording(cls):
        seen.add(cls.__name__)
        return lookup(cls)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fwAD, "_rule_for", recording)
        yield seen


@pytest.mark.parametrize("name", sorted(CASES))
@settings(deadline=None, max_examples=6)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_every_jvp_rule_equals_the_reverse_jacobian_times_v(name, data, seed):
    check_jvp_case(*CASES[name], data, seed)


def check_jvp_case(make, classes, data, seed):
    """The JVP of the case's function along random tangents equals the reverse Jacobian times them."""
    __tracebackhide__ = True
    rng = np.random.default_rng(seed)
    fn, arrays = make(data.draw, rng)
    inputs = [t64(a) for a in arrays]
    tangents = [t64(rng.normal(size=a.shape)) for a in arrays]
    with recording_rules() as seen:
        primal, tangent = _jvp_by_forward_mode(fn, inputs, tangents)
    assert classes <= seen, f"rules that did not run: {classes - seen}"
    expected_primal, expected_tangent = _jvp_by_reverse_jacobian(fn, inputs, tangents)
    np.testing.assert_allclose(primal.numpy(), expected_primal.numpy(), rtol=1e-12, atol=1e-12)
    assert tangent is not None and tangent.shape == expected_primal.shape
    np.testing.assert_allclose(tangent.numpy(), expected_tangent, rtol=1e-7, atol=1e-9)


def test_the_cases_cover_every_rule_in_the_table():
    fwAD._rule_for(minigrad.autograd.Function)  # builds the table
    in_table = {c.__name__ for c in fwAD._RULES if isinstance(c, type)}
    from tests.test_forward_ad_more_ops import CASES as MORE_CASES  # (it imports this module)
    from tests.test_forward_ad_nn import NN_CASES  # the rules of minigrad.nn's primitives

    covered = set().union(*(classes for _, classes in (*CASES.values(), *MORE_CASES.values(),
                                                        *NN_CASES.values())))
    # the internal functions of backward passes are covered by forward-over-reverse below
    backward_only = {"_PutInZeros", "_Pick", "_ScatterAdd", "_GatherScatterAdd",
                     "_IndexScatter", "_DiagScatter", "PrimalView", "ThresholdBackward", "Sgn",
                     "BinaryCrossEntropyGrad", "TanhBackward", "SigmoidBackward",
                     "LogSoftmaxBackwardData", "SoftmaxBackwardData", "NllLossGrad"}
    assert in_table - backward_only <= covered, in_table - backward_only - covered
    listed_in_the_brief = {
        "Mul", "Add", "Sub", "Rsub", "Div", "Neg", "Reciprocal", "PowTensorScalar",
        "PowTensorTensor", "PowScalarTensor", "Exp", "Log", "Sqrt", "Sin", "Cos", "Tanh",
        "Sigmoid", "Relu", "Abs", "Clamp", "Maximum", "Minimum", "Where", "Sum", "SumDim",
        "Mean", "MeanDim", "MaxAll", "MinAll", "MaxDim", "MinDim", "Amax", "Amin",
        "Logsumexp", "Softmax", "LogSoftmax", "View", "UnsafeView", "Clone", "Transpose",
        "Permute", "T", "Expand", "ToCopy", "Unsqueeze", "SqueezeAll", "SqueezeDim", "Cat",
        "Stack", "Select", "Slice", "Index", "Gather", "Mm", "Mv", "Dot", "Bmm",
    }
    assert listed_in_the_brief <= in_table


def test_binary_cross_entropy_tangent_of_the_target():
    # PyTorch differentiates bce with respect to the target too: d/dt = log(1-p) - log(p)
    p = t64([0.3, 0.6])
    with fwAD.dual_level():
        out = NF.binary_cross_entropy(p, fwAD.make_dual(t64([0.2, 0.9]), t64([1.0, 0.0])))
        tangent = fwAD.unpack_dual(out).tangent.item()
    assert tangent == pytest.approx(0.5 * (np.log(0.7) - np.log(0.3)), rel=1e-14)  # 0.4236 in PyTorch


# ------------------------------------------------------------------ random compositions

UNARY_STEPS = {
    "tanh": lambda h: h.tanh(),
    "sigmoid": lambda h: h.sigmoid(),
    "sin": lambda h: h.sin(),
    "cos": lambda h: h.cos(),
    "half": lambda h: h * 0.5,
    "abs": lambda h: h.abs(),
    "relu": lambda h: h.relu(),
    "exp_tanh": lambda h: h.tanh().exp(),
    "log1p_square": lambda h: (1 + h * h).log(),
    "sqrt1p_square": lambda h: (1 + h * h).sqrt(),
    "softmax": lambda h: h.softmax(-1) if h.ndim else h,
    "log_softmax": lambda h: h.log_softmax(-1) if h.ndim else h,
    "sum_keepdim": lambda h: h.sum(-1, keepdim=True) if h.ndim else h,
    "amax_keepdim": lambda h: h.amax(-1, keepdim=True) if h.ndim else h,
    "square": lambda h: h ** 2,
    "clamp": lambda h: h.clamp(-0.5, 0.5),
}
BINARY_STEPS = {
    "add": lambda h, x: h + x,
    "sub": lambda h, x: x - h,
    "mul": lambda h, x: h * x,
    "div": lambda h, x: h / (1 + x * x),
    "maximum": lambda h, x: minigrad.maximum(h, x),
    "where": lambda h, x: minigrad.where(x > 0, h, x * 2),
    "pow": lambda h, x: (1 + h * h) ** x.tanh(),
}


@settings(deadline=None, max_examples=40)
@given(data=st.data(), shapes=pair, seed=st.integers(0, 2**32 - 1))
def test_random_compositions_jvp_equals_reverse_jacobian_times_v(data, shapes, seed):
    rng = np.random.default_rng(seed)
    steps = data.draw(st.lists(
        st.one_of(st.sampled_from(sorted(UNARY_STEPS)),
                  st.tuples(st.sampled_from(sorted(BINARY_STEPS)), st.integers(0, 1))),
        min_size=1, max_size=6))

    def fn(x, y):
        h = x
        for step in steps:
            if isinstance(step, tuple):
                name, which = step
                h = BINARY_STEPS[name](h, (x, y)[which])
            else:
                h = UNARY_STEPS[step](h)
        return h + y

    inputs = [t64(rng.uniform(-2, 2, size=s)) for s in shapes.input_shapes]
    tangents = [t64(rng.normal(size=s)) for s in shapes.input_shapes]
    primal, tangent = _jvp_by_forward_mode(fn, inputs, tangents)
    expected_primal, expected_tangent = _jvp_by_reverse_jacobian(fn, inputs, tangents)
    np.testing.assert_allclose(primal.numpy(), expected_primal.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(tangent.numpy(), expected_tangent, rtol=1e-7, atol=1e-9)


# ------------------------------------------------------------------ forward-over-reverse


def test_a_saved_output_keeps_its_tangent_in_the_backward_pass():
    # d/dx exp(x) = exp(x) is computed from the saved *output*; its tangent is exp(x)·v
    x = t64([0.5, -1.0], requires_grad=True)
    v = t64([1.0, 2.0])
    with fwAD.dual_level():
        d = fwAD.make_dual(x, v)
        (g,) = minigrad.autograd.grad(d.exp().sum(), d, create_graph=True)
        tangent = fwAD.unpack_dual(g).tangent
    assert tangent.grad_fn is not None  # recorded: x requires grad, as in PyTorch
    np.testing.assert_allclose(tangent.detach().numpy(), np.exp([0.5, -1.0]) * [1.0, 2.0],
                               rtol=1e-14)


def test_forward_over_reverse_leaves_no_reference_cycle():
    # The tangent of a gradient taken with create_graph=True is recorded through the
    # node that saved exp(x); a saved output holding that tangent past the level would
    # keep node and tangent in a cycle (PyTorch's levels release saved tangents at exit).
    def hvp(x, v):
        with fwAD.dual_level():
            d = fwAD.make_dual(x.detach().requires_grad_(), v)
            (g,) = minigrad.autograd.grad((d.exp() * d.tanh()).sum(), d, create_graph=True)
            return fwAD.unpack_dual(g).tangent.detach()

    x, v = t64([0.5, -1.0]), t64([1.0, 2.0])
    hvp(x, v)
    gc.collect()
    gc.disable()
    try:
        hu = hvp(x, v)
        left = gc.collect()
    finally:
        gc.enable()
    assert left == 0
    # and the tangents were there while the level was open: H v of sum(exp(x) * tanh(x))
    e, t = np.exp([0.5, -1.0]), np.tanh([0.5, -1.0])
    s = 1 - t * t
    np.testing.assert_allclose(hu.numpy(), (e * t + 2 * e * s - 2 * e * t * s) * [1.0, 2.0],
                               rtol=1e-13)


HESSIAN_FUNCTIONS = {
    "exp_tanh_sigmoid": (lambda a: (a.exp() * a.tanh()).sum() + a.sigmoid().sum(), (3,), set()),
    "sqrt_reciprocal": (lambda a: ((a * a + 1).sqrt() + 1 / (a * a + 1)).sum(), (3,), set()),
    "softmax_logsumexp": (lambda a: (a.softmax(0) * a).sum() + a.logsumexp(0)
                          + a.log_softmax(0)[0], (4,), {"SoftmaxBackwardData", "LogSoftmaxBackwardData"}),
    "select_slice_index": (lambda a: (a[0] * a[1:].sum() + (a[[0, 2, 2]] ** 2).sum()) * a[-1],
                           (3,), {"_PutInZeros", "_ScatterAdd"}),
    "gather": (lambda a: (minigrad.gather(a, 0, minigrad.tensor([[1, 0], [1, 1]])) ** 3).sum(),
               (2, 2), {"_GatherScatterAdd"}),
    "max_dim": (lambda a: (a.max(1).values ** 3).sum() + (a.min(0)[0] ** 2).sum(), (2, 3),
                {"_IndexScatter"}),
    "matmul_chain": (lambda a: ((a @ a.T).tanh() @ a).pow(2).mean(), (2, 3), set()),
    "mse_bce": (lambda a: NF.mse_loss(a.tanh(), a * 0.5) + NF.binary_cross_entropy(
        a.sigmoid(), a.sigmoid() * 0 + 0.25), (2, 2), set()),
}


@pytest.mark.parametrize("name", sorted(HESSIAN_FUNCTIONS))
def test_forward_over_reverse_hessian_equals_reverse_over_reverse(name):
    fn, shape, internal = HESSIAN_FUNCTIONS[name]
    x = t64(np.random.default_rng(7).uniform(-1.5, 1.5, size=shape))
    with recording_rules() as seen:
        fwd = hessian(fn, x, vectorize=True, outer_jacobian_strategy="forward-mode")
    assert internal <= seen, internal - seen
    rev = hessian(fn, x)
    assert fwd.shape == rev.shape == shape + shape
    np.testing.assert_allclose(fwd.detach().numpy(), rev.numpy(), rtol=1e-9, atol=1e-12)


# ------------------------------------------------------------------ values recorded from PyTorch

# ``_record_with_torch`` below printed these with PyTorch 2.13.0+cpu.
TORCH_F1 = (-0.16725471101383738, 5.255003646259121)
TORCH_F2 = ([0.7766529177129128, 1.462050803777449], [0.3592159923226461, -0.20557095385490964])
X = [0.5, -1.0, 2.0]
TX = [1.0, 0.25, -0.5]
W = [[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]]
TW = [[0.0, 1.0], [-1.0, 0.5], [0.25, 0.0]]
A = [[0.2, -1.5, 3.0], [1.0, 0.5, -0.25]]
TA = [[1.0, 0.0, -1.0], [0.5, 2.0, 0.25]]


def _f1(x, w):
    return ((x @ w).tanh() * 2).logsumexp(0) + (x.exp() * x.cos()).sum()


def _f2(a):
    return ((a.log_softmax(1) * a.sigmoid()).amax(1) + a.abs().sqrt().mean(0)[:2]
            + a.softmax(0)[0, 1:] / a.clamp(-1.0, 1.0).max(1).values)


def test_values_recorded_from_pytorch():
    with fwAD.dual_level():
        out = _f1(fwAD.make_dual(t64(X), t64(TX)), fwAD.make_dual(t64(W), t64(TW)))
        p, t = fwAD.unpack_dual(out)
        np.testing.assert_allclose([p.item(), t.item()], TORCH_F1, rtol=1e-13)
        p, t = fwAD.unpack_dual(_f2(fwAD.make_dual(t64(A), t64(TA))))
        np.testing.assert_allclose(p.tolist(), TORCH_F2[0], rtol=1e-13)
        np.testing.assert_allclose(t.tolist(), TORCH_F2[1], rtol=1e-13)


def _record_with_torch():  # pragma: no cover - run by hand with PyTorch installed
    import torch
    import torch.autograd.forward_ad as tfw

    def T(v):
        return torch.tensor(v, dtype=torch.float64)

    with tfw.dual_level():
        p, t = tfw.unpack_dual(_f1(tfw.make_dual(T(X), T(TX)), tfw.make_dual(T(W), T(TW))))
        print("TORCH_F1 =", (p.item(), t.item()))
        p, t = tfw.unpack_dual(_f2(tfw.make_dual(T(A), T(TA))))
        print("TORCH_F2 =", (p.tolist(), t.tolist()))


if __name__ == "__main__":  # pragma: no cover
    _record_with_torch()
