"""Elementwise primitives, each forward next to its vector-Jacobian product.

Every class here is an ``autograd.Function`` whose backward node carries
PyTorch's name (``MulBackward0``, ...) and saves what PyTorch saves, under
PyTorch's names (``_saved_self``, ``_saved_other``, ``_saved_result``).  Each
vector-Jacobian product is a ``formula(F, ctx, grad, *saved)``, run on numpy arrays,
or on recorded Tensors under ``create_graph=True`` (ops/formulas.py).  A gradient
in the broadcast shape is summed back to its input's by ``validate.fit_to_input``.

Source: the formulas of PyTorch's tools/autograd/derivatives.yaml.
"""

import math

import numpy as np

from .formulas import select_array
from .._dtype import SCALAR_TYPE_NAMES
from ..autograd.function import Function
from ..tensor import Tensor
from ._util import (
    FLOAT32,
    _array,
    binary_dtype,
    broadcast_shape,
    float32_values,
    operands,
    quiet,
    wrap_scalar,
)
from .power_kernels import int_power, pow_scalar_array

__all__ = [
    "Abs",
    "Add",
    "Cos",
    "Div",
    "Exp",
    "Log",
    "Maximum",
    "Minimum",
    "Mul",
    "Neg",
    "PowScalarTensor",
    "PowTensorScalar",
    "PowTensorTensor",
    "Reciprocal",
    "Relu",
    "Relu",
    "Rsub",
    "Sigmoid",
    "Sin",
    "Sqrt",
    "Sgn",
    "Sub",
    "Tanh",
    "ThresholdBackward",
    "Where",
    "where",
]

_make = Tensor._make


def _const(array):
    """A tensor for a value backward treats as constant (a mask, a sign)."""
    return _make(array)


def _mask_grad(grad, mask, otherwise=None):
    """``grad`` where ``mask`` holds, else ``otherwise`` (default 0): a select, as PyTorch's
    masked backward formulas are, so an inf gradient outside the mask gives 0, not nan."""
    if otherwise is None:
        otherwise = _const(np.zeros((), dtype=grad._data.dtype))
    return where(_const(np.asarray(mask)), grad, otherwise)


def _check_alpha(A, B, alpha):
    """PyTorch's ``alpha_check``: a float ``alpha`` with an integral (or bool) result is refused."""
    if isinstance(alpha, (float, np.floating)) and np.result_type(A, B).kind in "biu":
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")


class Add(Function):
    """``self + alpha * other`` (AddBackward0); saves nothing but ``alpha``."""

    node_name = "AddBackward0"
    saved_attrs = ("alpha",)

    _quiet_numpy = False  # forward calls quiet(): errstate only where numpy could warn

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        A, B = operands(a, b)
        ctx.alpha = alpha
        if alpha != 1:
            _check_alpha(A, B, alpha)
            if np.asarray(B).dtype == np.bool_:
                B = np.logical_and(B, bool(alpha))  # bool stays bool (a logical or), as PyTorch
            else:
                B = quiet(np.multiply, B, alpha)
        return _make(quiet(np.add, A, B))

    @staticmethod
    def formula(F, ctx, grad):
        a = ctx.alpha
        need = ctx.needs_input_grad
        return (grad if need[0] else None), ((grad if a == 1 else grad * a) if need[1] else None), None


class Sub(Function):
    """``self - alpha * other`` (SubBackward0)."""

    node_name = "SubBackward0"
    saved_attrs = ("alpha",)

    _quiet_numpy = False  # forward calls quiet(): errstate only where numpy could warn

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        _no_bool_subtraction(a, b)  # before the shapes, as PyTorch checks
        A, B = operands(a, b)
        ctx.alpha = alpha
        if alpha != 1:
            _check_alpha(A, B, alpha)
            B = quiet(np.multiply, B, alpha)
        return _make(quiet(np.subtract, A, B))

    @staticmethod
    def formula(F, ctx, grad):
        a = ctx.alpha
        need = ctx.needs_input_grad
        return (grad if need[0] else None), ((-grad if a == 1 else grad * (-a)) if need[1] else None), None


def _no_bool_subtraction(a, b):
    ba, bb = a._data.dtype == np.bool_, b._data.dtype == np.bool_
    if ba and bb:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if ba or bb:
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


class Rsub(Function):
    """``other - alpha * self`` for a Python number ``other`` (RsubBackward1)."""

    node_name = "RsubBackward1"
    saved_attrs = ("alpha",)

    @staticmethod
    def forward(ctx, a, other, alpha=1):
        ctx.alpha = alpha
        w = wrap_scalar(other)
        _no_bool_subtraction(a, w)
        dt = binary_dtype(a, w)
        ad = a._data if alpha == 1 else a._data * alpha
        return _make(np.subtract(other, ad, dtype=dt))

    @staticmethod
    def formula(F, ctx, grad):
        a = ctx.alpha
        return (-grad if a == 1 else grad * (-a)), None, None


class Mul(Function):
    """``self * other`` (MulBackward0): saves each operand only if the other needs a gradient."""

    node_name = "MulBackward0"
    # PyTorch's order (derivatives.yaml): `other` (b) is saved, unpacked and freed before
    # `self` (a), which is what saved_tensors_hooks see: _saved_other is the node's first
    # saved value, _saved_self its second, and formula receives them in that order.
    saved_names = ("other", "self")

    _quiet_numpy = False  # forward calls quiet(): errstate only where numpy could warn

    @staticmethod
    def forward(ctx, a, b):
        A, B = operands(a, b)
        need = ctx.needs_input_grad
        if need[0] or need[1]:
            ctx.save_for_backward(b if need[0] else None, a if need[1] else None)
        return _make(quiet(np.multiply, A, B))

    @staticmethod
    def formula(F, ctx, grad, b, a):
        need = ctx.needs_input_grad
        return (grad * b if need[0] else None), (grad * a if need[1] else None)


class MulScalar(Function):
    """``self * other`` for a number ``other`` inside backward formulas (MulBackward1).

    PyTorch records this (the ``mul(Tensor, Scalar)`` overload) when a gradient
    formula multiplies by a number, as ``pow``'s does; Python code's ``x * 2``
    records MulBackward0 with a wrapped number instead.
    """

    node_name = "MulBackward1"
    saved_attrs = ("other",)

    @staticmethod
    def forward(ctx, a, other):
        from ._util import wrap_scalar

        ctx.other = other
        # promoted as PyTorch's mul(Tensor, Scalar): an integer tensor times 0.5 is float32
        return _make(np.multiply(a._data, other).astype(binary_dtype(a, wrap_scalar(other)), copy=False))

    @staticmethod
    def formula(F, ctx, grad):
        return F.mul_scalar(grad, ctx.other), None


class SubScalar(Function):
    """``self - other`` for a number ``other`` inside backward formulas (SubBackward1).

    PyTorch records this (the ``sub(Tensor, Scalar)`` overload) where a
    gradient formula subtracts a number, as pow's ``exponent - 1`` does.
    """

    node_name = "SubBackward1"

    @staticmethod
    def forward(ctx, a, other):
        from ._util import wrap_scalar

        _no_bool_subtraction(a, wrap_scalar(other))  # pow's bool exponent - 1 raises, as PyTorch
        return _make(np.subtract(a._data, other).astype(a._data.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class DivScalar(Function):
    """``self / other`` for a number ``other`` inside backward formulas (DivBackward1).

    PyTorch records this (the ``div(Tensor, Scalar)`` overload) where a
    gradient formula divides by a count, as ``mean``'s does.
    """

    node_name = "DivBackward1"
    saved_attrs = ("other",)

    @staticmethod
    def forward(ctx, a, other):
        ctx.other = other
        return _make(np.true_divide(a._data, other).astype(a._data.dtype, copy=False))

    @staticmethod
    def formula(F, ctx, grad):
        return F.div_scalar(grad, ctx.other), None


class Div(Function):
    """``self / other``, true division (DivBackward0); integers divide to float32."""

    node_name = "DivBackward0"
    saved_names = ("other", "self")  # PyTorch's order, as Mul's

    @staticmethod
    def forward(ctx, a, b):
        A, B = operands(a, b)
        # `other` is in both formulas: saved whenever there is a node (PyTorch's generated
        # code saves unguarded what more than one formula reads); `self` only for other's
        ctx.save_for_backward(b, a if ctx.needs_input_grad[1] else None)
        out = np.true_divide(A, B)
        if out.dtype != np.float32 and out.dtype.kind != "f" or (
            out.dtype == np.float64 and a._data.dtype.kind in "biu" and b._data.dtype.kind in "biu"
        ):
            out = np.asarray(out, dtype=np.float32)  # int / int is float32, the default dtype
        return _make(out)

    @staticmethod
    def formula(F, ctx, grad, b, a):
        need = ctx.needs_input_grad
        ga = grad / b if need[0] else None
        gb = -grad * ((a / b) / b) if need[1] else None  # PyTorch's div_tensor_other_backward order
        return ga, gb


class Neg(Function):
    """``-self`` (NegBackward0); saves nothing."""

    node_name = "NegBackward0"
    _quiet_numpy = False

    @staticmethod
    def forward(ctx, a):
        if a._data.dtype == np.bool_:
            raise RuntimeError(
                "Negation, the `-` operator, on a bool tensor is not supported. If you are "
                "trying to invert a mask, use the `~` or `logical_not()` operator instead."
            )
        return _make(np.negative(a._data))

    @staticmethod
    def formula(F, ctx, grad):
        return -grad


class Reciprocal(Function):
    """``1 / self`` (ReciprocalBackward0); saves its result. ``2 / x`` is ``reciprocal(x) * 2``."""

    node_name = "ReciprocalBackward0"
    saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        dt = a._data.dtype if a._data.dtype.kind == "f" else np.dtype(np.float32)
        out = _make(np.reciprocal(a._data, dtype=dt))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def formula(F, ctx, grad, r):
        return -grad * r * r


class PowTensorScalar(Function):
    """``self ** exponent`` for a number exponent (PowBackward0)."""

    node_name = "PowBackward0"
    saved_names = ("self",)
    saved_attrs = ("exponent",)

    @staticmethod
    def forward(ctx, a, exponent):
        ctx.exponent = exponent
        ctx.save_for_backward(a)
        data = a._data
        if data.dtype.kind in "iub" and isinstance(exponent, int) and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if data.dtype.kind in "iub" and isinstance(exponent, float):
            data = float32_values(data)
        elif data.dtype == np.bool_:
            data = data.astype(np.int64)
        out = pow_scalar_array(data, exponent)
        return _make(out.astype(data.dtype, copy=False))

    @staticmethod
    def formula(F, ctx, grad, a):
        e = ctx.exponent
        if e == 0:  # PyTorch's pow_backward: zeros_like(self), a constant
            return F.zeros(F.data(grad).shape, grad), None
        # PyTorch's pow_backward: grad * (exponent * self.pow(exponent - 1))
        return grad * F.mul_scalar(F.pow_scalar(a, e - 1), e), None


class PowTensorTensor(Function):
    """``self ** exponent`` for a tensor exponent (PowBackward1)."""

    node_name = "PowBackward1"
    saved_names = ("exponent", "self", "result")  # PyTorch's order

    @staticmethod
    def forward(ctx, a, b):
        dt = binary_dtype(a, b)
        broadcast_shape(a, b)
        if dt == np.bool_:
            raise NotImplementedError('"pow" not implemented for \'Bool\'')
        A, B = a._data.astype(dt, copy=False), b._data.astype(dt, copy=False)
        if dt.kind in "iu" and (B < 0).any():
            out = _make(int_power(A, B))
        else:
            shape = np.broadcast_shapes(A.shape, B.shape)
            if B.shape != shape or 0 in B.strides:
                # numpy takes an exponent it broadcasts (stride 0) as a scalar and
                # computes x ** 0.5 as sqrt ((-inf) ** 0.5: nan, not inf); PyTorch's
                # kernel is pow for each element, as numpy's is for a full array
                B = np.ascontiguousarray(np.broadcast_to(B, shape))
            out = _make(np.power(A, B))
        ctx.save_for_backward(b, a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        b, a, r = ctx.saved_tensors
        need = ctx.needs_input_grad
        ga = gb = None
        if need[0]:
            # d/da a**b = b * a**(b-1); PyTorch's pow_backward_self defines it as
            # 0 where b == 0: where(b == 0, 0, grad * (b * a.pow(b - 1)))
            zero = _const(np.zeros((), grad._data.dtype))
            ga = where(_const(b._data == 0), zero, grad * (b * a ** SubScalar.apply(b, 1)))
        if need[1]:
            # d/db a**b = a**b * log(a); PyTorch's pow_backward_exponent gives 0
            # where a == 0 and b >= 0, and multiplies grad by that (so a nan or
            # inf arriving there still gives nan)
            zero = _const(np.zeros((), grad._data.dtype))
            mask = (a._data == 0) & (b._data >= 0)
            gb = grad * where(_const(mask), zero, r * a.log())
        return ga, gb


class PowScalarTensor(Function):
    """``base ** self`` for a number base (PowBackward2)."""

    node_name = "PowBackward2"
    saved_names = ("exponent", "result")
    saved_attrs = ("self",)

    @staticmethod
    def forward(ctx, base, b):
        from ._util import wrap_scalar

        ctx.self = base
        dt = binary_dtype(b, wrap_scalar(base))
        B = b._data.astype(dt, copy=False)
        if dt.kind in "iu" and (B < 0).any():
            out = int_power(np.asarray(base, dtype=dt), B)  # numpy refuses these
        else:
            out = np.power(np.asarray(base, dtype=dt), B)
        # PyTorch's pow(Scalar, Tensor) writes a contiguous result, whatever b's layout
        out = _make(out if out.flags.c_contiguous else out.copy(order="C"))
        ctx.save_for_backward(b, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        b, r = ctx.saved_tensors
        base = ctx.self
        # PyTorch's pow_backward_exponent: grad * (result * log(base)), and for
        # base 0 grad * where(b >= 0, 0, ...) (0 ** b is constant for b >= 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            d = MulScalar.apply(r, float(np.log(np.float64(base))))
        if base == 0:
            d = where(_const(b._data >= 0), _const(np.zeros((), r._data.dtype)), d)
        return None, grad * d


class Where(Function):
    """``where(condition, self, other)`` (WhereBackward0): picks per element, no masking of nan.

    The gradient of the branch not chosen is an exact 0 sent to that input;
    a nan or inf computed inside that branch's own history still flows
    through it (0 * inf = nan), which is PyTorch's documented behaviour.
    """

    node_name = "WhereBackward0"
    saved_names = ("condition",)

    @staticmethod
    def forward(ctx, cond, a, b):
        # `cond` arrives boxed, as (condition,): it is not differentiable, so, as in PyTorch,
        # it gets no entry in next_functions; it is saved as it is, with its version
        (cond,) = cond
        dt = binary_dtype(a, b)
        broadcast_shape(a, b)
        need = ctx.needs_input_grad
        if need[1] or need[2]:
            ctx.save_for_backward(cond)
        return _make(np.where(cond._data, a._data, b._data).astype(dt, copy=False))

    @staticmethod
    def formula(F, ctx, grad, cond):
        zero = F.const(np.zeros((), F.data(grad).dtype))
        need = ctx.needs_input_grad
        ga = F.where(cond, grad, zero) if need[1] else None
        gb = F.where(cond, zero, grad) if need[2] else None
        return None, ga, gb


def where(cond, a, b):
    """Elementwise ``a`` where ``cond`` is True, else ``b`` (``torch.where``).

    Raises:
        RuntimeError: "where expected condition to be a boolean tensor, ...";
            PyTorch's "The size of tensor a (3) must match the size of tensor b
            (2) at non-singleton dimension 0" when the three do not broadcast.
    """
    from ._util import as_operand

    if not isinstance(cond, Tensor):
        raise TypeError(f"where(): argument 'condition' (position 1) must be Tensor, not {type(cond).__name__}")
    if cond._data.dtype != np.bool_:
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor with dtype "
                           + SCALAR_TYPE_NAMES[str(cond._data.dtype)])
    a, b = as_operand(a, "where"), as_operand(b, "where")
    # condition with self, then that shape with other: PyTorch's message names the pair
    ca = broadcast_shape(cond, a)
    broadcast_shape(Tensor._make(np.broadcast_to(np.empty((), dtype=np.bool_), ca)), b)
    return Where.apply((cond,), a, b)


def rounded_once(ufunc, scalar_fn, d):
    """``ufunc(d)`` (tanh, exp) with a float32 ``d`` computed in float64 and rounded once.

    numpy's own float32 tanh and exp are off by an ulp in a third of the
    values; PyTorch's kernels (Sleef's 1-ulp functions) give the correctly
    rounded float32 nearly always, and so does this: on a million normal
    draws it agrees with PyTorch's tanh in 99.9% and exp in 99%, against 68%
    and 61%.  A tanh near 1 feeds ``1 - y*y`` in its gradient, where one ulp
    of ``y`` is a factor of two.  A 0-d array goes through ``scalar_fn``
    (Python's math module, faster than numpy on one value) and gives a 0-d
    array.  Other dtypes: ``ufunc(d)``.
    """
    dt = d.dtype
    if dt is not FLOAT32 and dt != FLOAT32:
        return ufunc(d)
    if not d.ndim:
        return _array(scalar_fn(float(d)), FLOAT32)  # (a 0-d array, as a tensor holds it)
    return ufunc(d, dtype=np.float64).astype(np.float32)


def _math_exp(v):
    try:
        return math.exp(v)
    except OverflowError:  # math raises where numpy gives inf
        return math.inf


class Exp(Function):
    """``exp(self)`` (ExpBackward0); saves its result: d/dx eˣ = eˣ."""

    node_name = "ExpBackward0"
    saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        out = _make(rounded_once(np.exp, _math_exp, _float_data(a)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def formula(F, ctx, grad, r):
        return grad * r


class Log(Function):
    """``log(self)`` (LogBackward0); saves its input: d/dx log x = 1/x."""

    node_name = "LogBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        data = a._data if a._data.dtype.kind == "f" else float32_values(a._data)
        return _make(np.log(data))

    @staticmethod
    def formula(F, ctx, grad, a):
        return grad / a


class Tanh(Function):
    """``tanh(self)`` (TanhBackward0); saves its result: d/dx tanh x = 1 - tanh²x."""

    node_name = "TanhBackward0"
    saved_names = ("result",)
    _quiet_numpy = False  # tanh raises no floating-point error, inf and nan included

    @staticmethod
    def forward(ctx, a):
        data = a._data if a._data.dtype.kind == "f" else float32_values(a._data)
        out = _make(rounded_once(np.tanh, math.tanh, data))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def formula(F, ctx, grad, r):
        return F.tanh_backward(grad, r)  # PyTorch's tanh_backward op (TanhBackwardBackward0)


class Sigmoid(Function):
    """``sigmoid(self)`` (SigmoidBackward0); saves its result: σ' = σ(1 - σ)."""

    node_name = "SigmoidBackward0"
    saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        data = a._data if a._data.dtype.kind == "f" else float32_values(a._data)
        # PyTorch's formula: exp overflowing to inf gives exactly 0 (not a denormal)
        one = data.dtype.type(1)
        out = _make(one / (one + np.exp(-data)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def formula(F, ctx, grad, r):
        return F.sigmoid_backward(grad, r)  # PyTorch's sigmoid_backward op


class Relu(Function):
    """``max(self, 0)`` (ReluBackward0); saves its result; the gradient at 0 is 0."""

    node_name = "ReluBackward0"
    saved_names = ("result",)
    _quiet_numpy = False  # a comparison and a select: no floating-point error, nan included

    @staticmethod
    def forward(ctx, a):
        if a._data.dtype == np.bool_:
            raise RuntimeError("Boolean inputs not supported for relu")
        data = a._data
        # PyTorch: x < 0 ? 0 : x, which keeps -0.0 and nan as they are (a branch-free select)
        out = _make(select_array(data < 0, data, zero_where=True))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def formula(F, ctx, grad, r):
        # PyTorch's threshold_backward(grad, result, 0): a select, not a product
        # (an inf arriving where the input was negative gives 0, not nan), and
        # recorded with an edge to the result, so create_graph connects through it
        return F.threshold_backward(grad, r)


class ThresholdBackward(Function):
    """0 where ``self <= 0``, else ``grad`` (so a nan ``self`` passes it): relu's backward as
    its own op (ThresholdBackwardBackward0), PyTorch's ``threshold_backward(grad, self, 0)``.

    Its derivative: the same select for ``grad``, zeros for ``self`` (so a
    second derivative through relu is 0, not "unused", as in PyTorch).
    """

    node_name = "ThresholdBackwardBackward0"
    saved_names = ("self",)
    saved_attrs = ("threshold",)
    _quiet_numpy = False  # as Relu's: a comparison and a select

    @staticmethod
    def forward(ctx, grad, r):
        ctx.threshold = 0
        ctx.save_for_backward(r)
        # PyTorch's kernel: self <= threshold ? 0 : grad, so a nan result passes grad
        return _make(select_array(r._data <= 0, grad._data, zero_where=True))

    @staticmethod
    def formula(F, ctx, gg, r):
        need = ctx.needs_input_grad
        ggrad = F.threshold_backward(gg, r) if need[0] else None
        gr = F.zeros(F.data(r).shape, gg) if need[1] else None
        return ggrad, gr


def sign_data(d):
    """``np.sign`` with nan mapped to 0, as PyTorch's sgn kernel (so abs's gradient at nan is 0)."""
    s = np.sign(d)
    return np.where(np.isnan(s), s.dtype.type(0), s) if s.dtype.kind == "f" else s


class Sgn(Function):
    """The sign of each element (SgnBackward0): -1, 0 or 1 (0 for nan); its derivative is 0."""

    node_name = "SgnBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx, a):
        return _make(sign_data(a._data))

    @staticmethod
    def formula(F, ctx, grad):
        return F.zeros(F.data(grad).shape, grad)  # zeros_like, a constant


def _float_data(a):
    """The values as floats: integer inputs to exp, sqrt, sin, ... compute in float32."""
    d = a._data
    return d if d.dtype.kind == "f" else float32_values(d)


class Abs(Function):
    """``|self|`` (AbsBackward0); saves its input; the gradient at 0 is 0 (sign(0) = 0)."""

    node_name = "AbsBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        if a._data.dtype == np.bool_:
            raise NotImplementedError('"abs_cpu" not implemented for \'Bool\'')
        return _make(np.abs(a._data))

    @staticmethod
    def formula(F, ctx, grad, a):
        return grad * F.sgn(a)  # PyTorch's grad * self.sgn(): recorded (SgnBackward0)


class Sqrt(Function):
    """``√self`` (SqrtBackward0); saves its result; the gradient at 0 is inf, as in PyTorch."""

    node_name = "SqrtBackward0"
    saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        out = _make(np.sqrt(_float_data(a)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def formula(F, ctx, grad, r):
        with np.errstate(divide="ignore"):
            return grad / (2 * r)


class Sin(Function):
    """``sin(self)`` (SinBackward0); saves its input: d/dx sin x = cos x."""

    node_name = "SinBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _make(np.sin(_float_data(a)))

    @staticmethod
    def formula(F, ctx, grad, a):
        return grad * F.cos(a)


class Cos(Function):
    """``cos(self)`` (CosBackward0); saves its input: d/dx cos x = -sin x."""

    node_name = "CosBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _make(np.cos(_float_data(a)))

    @staticmethod
    def formula(F, ctx, grad, a):
        return grad * -F.sin(a)


class Maximum(Function):
    """Elementwise max of two tensors (MaximumBackward0); ties split the gradient evenly."""

    node_name = "MaximumBackward0"
    saved_names = ("other", "self")  # PyTorch's order, as Mul's
    _pick = staticmethod(np.maximum)
    _wins = staticmethod(np.greater)  # where `self` is the one picked

    @classmethod
    def forward(cls, ctx, a, b):
        dt = binary_dtype(a, b)
        broadcast_shape(a, b)
        ctx.save_for_backward(b, a)
        return _make(cls._pick(a._data, b._data).astype(dt, copy=False))

    @classmethod
    def backward(cls, ctx, grad):
        b, a = ctx.saved_tensors
        dt = grad._data.dtype
        # PyTorch's formula: where(self == other, grad / 2, grad), zeroed where the
        # operand lost; a nan compares neither way, so both get the gradient there
        with np.errstate(invalid="ignore"):
            a_lost, b_lost = cls._wins(b._data, a._data), cls._wins(a._data, b._data)
            tie = a._data == b._data
        half = grad * _const(np.asarray(0.5, dtype=dt))
        ga = _mask_grad(grad, ~a_lost & ~tie, _mask_grad(half, tie))
        gb = _mask_grad(grad, ~b_lost & ~tie, _mask_grad(half, tie))
        return ga, gb


class Minimum(Maximum):
    """Elementwise min of two tensors (MinimumBackward0); ties split the gradient evenly."""

    node_name = "MinimumBackward0"
    _pick = staticmethod(np.minimum)
    _wins = staticmethod(np.less)


# These forwards compute with numpy alone: Function.apply need not switch
# recording off around them.
for _cls in (Add, Sub, Rsub, Mul, MulScalar, Div, Neg, Reciprocal, PowTensorScalar,
             PowTensorTensor, PowScalarTensor, Where, Exp, Log, Tanh, Sigmoid, Relu, Abs, Sqrt,
             Sin, Cos, Maximum, Minimum, ThresholdBackward, Sgn):
    _cls._numpy_forward = True
del _cls
