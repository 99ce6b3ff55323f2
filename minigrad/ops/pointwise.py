"""Pointwise ops of two or three tensors: ``fmax``, ``fmin``, ``atan2``, ``lerp``, ``addcmul``, ``addcdiv``.

Each broadcasts its tensors and promotes their dtypes as PyTorch does, and
states its vector-Jacobian products once (``formula``, ops/formulas.py),
in PyTorch's order of operations:

* ``fmax``/``fmin`` (FmaxBackward0, FminBackward0): the larger (smaller) of
  two elements, the number where the other is nan.  The gradient goes to the
  operand picked: to ``self`` where ``self >= other`` (``<=``) or ``other``
  is nan, else to ``other`` (a tie goes to ``self`` alone, unlike ``maximum``).
* ``atan2(self, other)`` (Atan2Backward0): the angle of the point (other,
  self); d/dself = other / r², d/dother = -self / r², with 1 / r² taken as 0
  where r² is 0 (PyTorch's ``atan2_backward``).
* ``lerp(self, end, weight)``: ``self + weight (end - self)``, computed as
  PyTorch's kernel (one fused multiply-add, from ``end`` when |weight| >=
  0.5); LerpBackward0 for a number weight, LerpBackward1 for a tensor.
* ``addcmul``/``addcdiv`` (AddcmulBackward0, AddcdivBackward0): ``self +
  value * tensor1 * tensor2`` and ``self + value * tensor1 / tensor2``.

Source: derivatives.yaml (``fmax``, ``fmin``, ``atan2``, ``lerp.Scalar``,
``lerp.Tensor``, ``addcmul``, ``addcdiv``), FunctionsManual.cpp's
``atan2_backward``, aten/src/ATen/native/Lerp.h (``lerp_vec``) and
PointwiseOps.cpp.
"""

import numpy as np

from .._dtype import C_TYPE_NAMES, SCALAR_TYPE_NAMES
from ..autograd.function import Function
from ..tensor import Tensor
from ._util import broadcast_shape, float32_values, is_scalar

__all__ = ["Addcdiv", "Addcmul", "Atan2", "Fmax", "Fmin", "LerpScalar", "LerpTensor", "addcdiv", "addcmul",
           "arctan2", "atan2", "fmax", "fmin", "lerp"]

_make = Tensor._make


def _like_first(out, first):
    """``out`` laid out in memory as ``first`` (PyTorch's TensorIterator follows its first input's
    strides where they decide the order, as for a transposed input); numpy's choice otherwise,
    and for an expanded ``first``: a stride 0 decides nothing (TensorIterator looks at the
    next operand, as numpy's ufuncs do; ``np.empty_like`` would put that dim innermost)."""
    d = first._data
    if d.shape != out.shape or d.flags.c_contiguous or out.ndim < 2 or 0 in d.strides:
        return out
    laid = np.empty_like(d, dtype=out.dtype)
    laid[...] = out
    return laid


def _promoted(*tensors):
    """The arrays of ``tensors`` in their promoted dtype (PyTorch's rules), shapes checked."""
    from .._dtype import result_type

    for t in tensors[1:]:
        broadcast_shape(tensors[0], t)
    if len(tensors) == 3:
        broadcast_shape(tensors[1], tensors[2])
    dt = result_type(*tensors).np
    return [t._data.astype(dt, copy=False) for t in tensors]


class Fmax(Function):
    """The larger of two elements, ignoring a nan (FmaxBackward0); saves both operands."""

    node_name = "FmaxBackward0"
    saved_names = ("other", "self")  # PyTorch's order (what saved_tensors_hooks see)
    _numpy_forward = True
    _pick = staticmethod(np.fmax)
    _self_wins = staticmethod(np.greater_equal)

    @classmethod
    def forward(cls, ctx, a, b):
        A, B = _promoted(a, b)
        ctx.save_for_backward(b, a)
        return _make(_like_first(np.asarray(cls._pick(A, B)), a))

    @classmethod
    def formula(cls, F, ctx, grad, b, a):
        A, B = F.data(a), F.data(b)
        # PyTorch: grad.masked_fill((self >= other).logical_or_(other.isnan()).logical_not_(), 0)
        to_self = np.broadcast_to(cls._self_wins(A, B) | np.isnan(B), F.data(grad).shape)
        need = ctx.needs_input_grad
        return (F.select(to_self, grad) if need[0] else None), (F.select(~to_self, grad) if need[1] else None)


class Fmin(Function):
    """The smaller of two elements, ignoring a nan (FminBackward0); saves both operands."""

    node_name = "FminBackward0"
    saved_names = ("other", "self")  # PyTorch's order (what saved_tensors_hooks see)
    _numpy_forward = True
    _pick = staticmethod(np.fmin)
    _self_wins = staticmethod(np.less_equal)
    forward = Fmax.__dict__["forward"]
    formula = Fmax.__dict__["formula"]


def _float_result(*arrays):
    """Integers and bools compute in float32, as PyTorch's default dtype."""
    return [x if x.dtype.kind == "f" else float32_values(x) for x in arrays]


class Atan2(Function):
    """The angle of the point (other, self) in (-π, π] (Atan2Backward0); saves both operands."""

    node_name = "Atan2Backward0"
    saved_names = ("other", "self")  # PyTorch's order (what saved_tensors_hooks see)
    _numpy_forward = True

    @staticmethod
    def forward(ctx, a, b):
        A, B = _float_result(*_promoted(a, b))
        ctx.save_for_backward(b, a)
        return _make(_like_first(np.asarray(np.arctan2(A, B)), a))

    @staticmethod
    def formula(F, ctx, grad, b, a):
        need = ctx.needs_input_grad
        if need[1] and F.data(a).dtype == np.bool_:  # PyTorch's -self, in its words (numpy's differ)
            raise RuntimeError(
                "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                "invert a mask, use the `~` or `logical_not()` operator instead.")
        denom = a * a + b * b
        zero = F.const(np.zeros((), F.data(grad).dtype))
        recip = F.where(F.data(denom) == 0, zero, F.reciprocal(denom))  # PyTorch's masked_fill
        return (grad * b * recip if need[0] else None), (grad * -a * recip if need[1] else None)


def _two_product(a, b):
    """a·b as p + e exactly (Dekker's split): float64 products with their rounding error."""
    p = a * b
    split = 134217729.0  # 2**27 + 1
    ca, cb = split * a, split * b
    ah, bh = ca - (ca - a), cb - (cb - b)
    al, bl = a - ah, b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _fma(a, b, c):
    """a·b + c rounded once, as the fused multiply-add of PyTorch's vectorised CPU kernels.

    float32: exact in float64, rounded to float32; float64: Dekker's product
    and Knuth's two-sum (numpy has no fma).
    """
    if a.dtype == np.float32:
        return (a.astype(np.float64) * b + c).astype(np.float32)
    p, e = _two_product(a, b)
    s = p + c
    v = s - p
    fused = s + (((p - (s - v)) + (c - v)) + e)
    return np.where(np.isfinite(p), fused, p + c)  # an inf or nan product: the split makes nan


def _lerp_values(s, e, w):
    """PyTorch's ``lerp_vec``: fma(w, e - s, s) for |w| < 0.5, else fma(w - 1, e - s, e)."""
    small = np.abs(w) < 0.5
    one = np.asarray(1, dtype=s.dtype)
    coeff = np.where(small, w, w - one).astype(s.dtype, copy=False)
    base = np.where(small, s, e)
    d = e - s
    coeff, d, base = np.broadcast_arrays(coeff, d, base)
    return _fma(coeff, d, base)


def _lerp_dtype(start, end, weight, kernel):
    """The dtype ``lerp`` computes in, after PyTorch's checks in PyTorch's order: ``end``
    (and a ``weight`` with dims) of ``start``'s dtype (a 0-d weight is not checked and
    takes part in the promotion); the shapes broadcast; the kernel exists for the dtype."""
    from .._dtype import result_type

    for name, t in (("end", end), ("weight", weight)):
        if isinstance(t, Tensor) and t._data.dtype != start._data.dtype and (name == "end" or t._data.ndim):
            raise RuntimeError(f"expected dtype {C_TYPE_NAMES[str(start._data.dtype)]} for `{name}` but got dtype "
                               f"{C_TYPE_NAMES[str(t._data.dtype)]}")
    shape = broadcast_shape(start, end)
    if weight is not None:
        broadcast_shape(Tensor._make(np.empty(shape, dtype=np.bool_)), weight)
    dt = start._data.dtype if weight is None else result_type(start, end, weight).np
    if dt.kind != "f":
        raise NotImplementedError(f'"{kernel}" not implemented for \'{SCALAR_TYPE_NAMES[str(dt)]}\'')
    return dt


class LerpScalar(Function):
    """``self + weight (end - self)`` for a number ``weight`` (LerpBackward0); saves the weight.

    d/dself = 1 - weight, d/dend = weight (PyTorch: ``grad * (1 - weight)``, a MulBackward1).
    """

    node_name = "LerpBackward0"
    saved_attrs = ("weight",)
    _numpy_forward = True

    @staticmethod
    def forward(ctx, a, end, weight):
        _lerp_dtype(a, end, None, "lerp_kernel_scalar")
        ctx.weight = weight
        s = a._data
        return _make(_like_first(np.asarray(_lerp_values(s, end._data, np.asarray(weight, dtype=s.dtype))), a))

    @staticmethod
    def formula(F, ctx, grad):
        w = ctx.weight
        need = ctx.needs_input_grad
        return (F.mul_scalar(grad, 1 - float(w)) if need[0] else None), (F.mul_scalar(grad, w) if need[1] else None), None


class LerpTensor(Function):
    """``self + weight (end - self)`` for a tensor ``weight`` (LerpBackward1).

    Saves ``self`` and ``end`` when the weight needs a gradient, ``weight``
    when they do.  d/dself = 1 - weight, d/dend = weight, d/dweight = end - self.
    """

    node_name = "LerpBackward1"
    saved_names = ("end", "self", "weight")

    @staticmethod
    def forward(ctx, a, end, weight):
        dt = _lerp_dtype(a, end, weight, "lerp_kernel_tensor")
        need = ctx.needs_input_grad
        ctx.save_for_backward(end if need[2] else None, a if need[2] else None,
                              weight if need[0] or need[1] else None)
        s, e, w = (t._data.astype(dt, copy=False) for t in (a, end, weight))
        return _make(_like_first(np.asarray(_lerp_values(s, e, w)), a))

    @staticmethod
    def formula(F, ctx, grad, end, a, w):
        need = ctx.needs_input_grad
        ga = ge = gw = None
        if need[0]:
            ga = grad * (F.const(np.ones(F.data(w).shape, F.data(w).dtype)) - w)  # 1 - weight: SubBackward0
        if need[1]:
            ge = grad * w
        if need[2]:
            gw = grad * (end - a)
        return ga, ge, gw


def _value_for(dtype, value, name):
    """``value`` as the kernel uses it: a float truncated for an integer result (PyTorch's cast)."""
    if not is_scalar(value) or isinstance(value, complex):
        raise TypeError(f"{name}(): argument 'value' must be Number, not {type(value).__name__}")
    return int(value) if dtype.kind in "iu" else value


class Addcmul(Function):
    """``self + value * tensor1 * tensor2`` (AddcmulBackward0); saves the tensors as needed and ``value``."""

    node_name = "AddcmulBackward0"
    saved_names = ("tensor1", "tensor2")
    saved_attrs = ("value",)
    _numpy_forward = True

    @staticmethod
    def forward(ctx, a, t1, t2, value):
        A, T1, T2 = _promoted(a, t1, t2)
        if A.dtype == np.bool_:
            raise NotImplementedError('"addcmul_cpu_out" not implemented for \'Bool\'')
        need = ctx.needs_input_grad
        ctx.value = value
        ctx.save_for_backward(t1 if need[2] else None, t2 if need[1] else None)
        v = np.asarray(_value_for(A.dtype, value, "addcmul"), dtype=A.dtype)
        return _make(_like_first(np.asarray(A + v * T1 * T2), a))

    @staticmethod
    def formula(F, ctx, grad, t1, t2):
        v = ctx.value
        need = ctx.needs_input_grad
        g1 = grad * F.mul_scalar(t2, v) if need[1] else None  # grad * (tensor2 * value)
        g2 = grad * F.mul_scalar(t1, v) if need[2] else None
        return (grad if need[0] else None), g1, g2, None


class Addcdiv(Function):
    """``self + value * tensor1 / tensor2`` (AddcdivBackward0); saves the tensors as needed and ``value``."""

    node_name = "AddcdivBackward0"
    saved_names = ("tensor1", "tensor2")
    saved_attrs = ("value",)
    _numpy_forward = True

    @staticmethod
    def forward(ctx, a, t1, t2, value):
        if t1._data.dtype.kind in "biu" and t2._data.dtype.kind in "biu":
            raise RuntimeError(
                "Integer division with addcdiv is no longer supported, and in a future  release "
                "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
                "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))"
                ".to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for "
                "float inputs. The future addcdiv behavior is just the latter implementation: "
                "(input + value * tensor1 / tensor2), for all dtypes.")
        A, T1, T2 = _promoted(a, t1, t2)
        need = ctx.needs_input_grad
        ctx.value = value
        ctx.save_for_backward(t1 if need[2] else None, t2 if need[1] or need[2] else None)
        v = np.asarray(_value_for(A.dtype, value, "addcdiv"), dtype=A.dtype)
        return _make(_like_first(np.asarray(A + v * T1 / T2), a))

    @staticmethod
    def formula(F, ctx, grad, t1, t2):
        v = ctx.value
        need = ctx.needs_input_grad
        g1 = g2 = None
        if need[1]:  # grad * (value / tensor2): DivBackward0, the number as a constant
            kind = F.data(t2).dtype
            if kind.kind != "f":  # PyTorch's C++ writes value / tensor2 into a tensor like tensor2
                raise RuntimeError(f"result type Float can't be cast to the desired output type {SCALAR_TYPE_NAMES[str(kind)]}")
            g1 = grad * (F.const(np.asarray(v, dtype=kind)) / t2)
        if need[2]:  # -grad * (value * tensor1 / (tensor2 * tensor2))
            g2 = -grad * (F.mul_scalar(t1, v) / (t2 * t2))
        return (grad if need[0] else None), g1, g2, None


def _tensor_argument(name, arg, position, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")
    return value


def fmax(input, other):
    """The larger of each pair of elements, the number where one is nan (``torch.fmax``).

    Node FmaxBackward0: the gradient goes to ``input`` where it is >= ``other``
    or ``other`` is nan, else to ``other``.  Broadcasts and promotes dtypes.

    Raises:
        TypeError: for an ``other`` that is not a tensor (PyTorch's message).
    """
    return Fmax.apply(input, _tensor_argument("fmax", "other", 2, other))


def fmin(input, other):
    """The smaller of each pair of elements, the number where one is nan (``torch.fmin``); FminBackward0."""
    return Fmin.apply(input, _tensor_argument("fmin", "other", 2, other))


def atan2(input, other):
    """The angle of (other, input) elementwise, in radians (``torch.atan2``, ``torch.arctan2``).

    Node Atan2Backward0; integers compute in float32.

    Raises:
        TypeError: for an ``other`` that is not a tensor.
    """
    return Atan2.apply(input, _tensor_argument("atan2", "other", 2, other))


def arctan2(input, other):
    """``torch.arctan2``: another name of ``atan2``."""
    return Atan2.apply(input, _tensor_argument("arctan2", "other", 2, other))


def lerp(input, end, weight):
    """Linear interpolation ``input + weight * (end - input)`` (``torch.lerp``).

    Args:
        input, end (Tensor): float tensors of the same dtype, broadcasting.
        weight (float | Tensor): a number (node LerpBackward0) or a tensor of
            their dtype (LerpBackward1, its gradient ``end - input``).

    Raises:
        RuntimeError: "expected dtype float for `end` but got dtype double".
        NotImplementedError: for integer tensors (PyTorch's kernel message).
        TypeError: PyTorch's "invalid combination of arguments" for an ``end``
            that is not a tensor or a ``weight`` that is neither.
    """
    return _lerp(input, end, weight, False)


def _lerp(input, end, weight, method):
    if not isinstance(end, Tensor) or not (isinstance(weight, Tensor) or is_scalar(weight)):
        raise TypeError(_lerp_invalid(input, end, weight, method))
    if isinstance(weight, Tensor):
        return LerpTensor.apply(input, end, weight)
    return LerpScalar.apply(input, end, weight.item() if hasattr(weight, "item") else weight)


def _lerp_invalid(input, end, weight, method):
    """PyTorch's message for arguments that match neither overload of ``lerp``."""
    names = [type(v).__name__ if not isinstance(v, Tensor) else "Tensor" for v in (input, end, weight)]
    head = "lerp() received an invalid combination of arguments - got ("
    if not method:
        return (head + ", ".join(names) + "), but expected one of:\n"
                " * (Tensor input, Tensor end, Tensor weight, *, Tensor out = None)\n"
                " * (Tensor input, Tensor end, Number weight, *, Tensor out = None)\n")
    lines = [head + ", ".join(names[1:]) + "), but expected one of:"]
    end_ok = isinstance(end, Tensor)
    for kind, fits in (("Tensor", isinstance(weight, Tensor)), ("Number", is_scalar(weight))):
        marks = [names[1] if end_ok else f"!{names[1]}!", names[2] if end_ok and fits else f"!{names[2]}!"]
        lines += [f" * (Tensor end, {kind} weight)",
                  f"      didn't match because some of the arguments have invalid types: ({', '.join(marks)})"]
    return "\n".join(lines) + "\n"


def addcmul(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 * tensor2`` (``torch.addcmul``); node AddcmulBackward0.

    Broadcasts all three and promotes their dtypes; for an integer result a
    float ``value`` is truncated, as PyTorch's kernel casts it.

    Raises:
        TypeError: a ``tensor1``/``tensor2`` that is not a tensor.
        NotImplementedError: for bool tensors.
    """
    return Addcmul.apply(input, _tensor_argument("addcmul", "tensor1", 2, tensor1),
                         _tensor_argument("addcmul", "tensor2", 3, tensor2), value)


def addcdiv(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 / tensor2`` (``torch.addcdiv``); node AddcdivBackward0.

    Raises:
        RuntimeError: PyTorch's "Integer division with addcdiv is no longer
            supported, ..." when both ``tensor1`` and ``tensor2`` are integers.
    """
    return Addcdiv.apply(input, _tensor_argument("addcdiv", "tensor1", 2, tensor1),
                         _tensor_argument("addcdiv", "tensor2", 3, tensor2), value)


def install_methods():
    """Attach the methods (their argument positions counted from 1, as PyTorch's) and the in-place
    ``atan2_``/``arctan2_``, ``lerp_``, ``addcmul_``, ``addcdiv_`` to Tensor (these record the node
    the out-of-place op records; an integer result of a float computation is refused)."""
    from .inplace import inplace

    def method(cls, name):
        def op(self, other):
            return cls.apply(self, _tensor_argument(name, "other", 1, other))

        op.__name__ = name
        op.__doc__ = f"``torch.{name}(self, other)`` (``Tensor.{name}``)."
        return op

    for cls, name in ((Fmax, "fmax"), (Fmin, "fmin"), (Atan2, "atan2"), (Atan2, "arctan2")):
        setattr(Tensor, name, method(cls, name))
    Tensor.lerp = lambda self, end, weight: _lerp(self, end, weight, True)
    Tensor.lerp.__doc__ = "``torch.lerp(self, end, weight)`` (``Tensor.lerp``)."

    def addcmul_method(self, tensor1, tensor2, *, value=1):
        """``torch.addcmul(self, tensor1, tensor2, value=value)`` (``Tensor.addcmul``)."""
        return Addcmul.apply(self, _tensor_argument("addcmul", "tensor1", 1, tensor1),
                             _tensor_argument("addcmul", "tensor2", 2, tensor2), value)

    def addcdiv_method(self, tensor1, tensor2, *, value=1):
        """``torch.addcdiv(self, tensor1, tensor2, value=value)`` (``Tensor.addcdiv``)."""
        return Addcdiv.apply(self, _tensor_argument("addcdiv", "tensor1", 1, tensor1),
                             _tensor_argument("addcdiv", "tensor2", 2, tensor2), value)

    Tensor.addcmul, Tensor.addcdiv = addcmul_method, addcdiv_method

    def atan2_(self, other):
        """``atan2`` in place (``Tensor.atan2_``); records Atan2Backward0."""
        return inplace(self, atan2, _tensor_argument("atan2_", "other", 1, other))

    def lerp_(self, end, weight):
        """``lerp`` in place (``Tensor.lerp_``); records LerpBackward0 or LerpBackward1."""
        return inplace(self, lambda a, e, w: _lerp(a, e, w, True), end, weight)

    def addcmul_(self, tensor1, tensor2, *, value=1):
        """``addcmul`` in place (``Tensor.addcmul_``); records AddcmulBackward0."""
        return inplace(self, lambda a, t1, t2: addcmul_method(a, t1, t2, value=value), tensor1, tensor2)

    def addcdiv_(self, tensor1, tensor2, *, value=1):
        """``addcdiv`` in place (``Tensor.addcdiv_``); records AddcdivBackward0."""
        return inplace(self, lambda a, t1, t2: addcdiv_method(a, t1, t2, value=value), tensor1, tensor2)

    Tensor.atan2_ = Tensor.arctan2_ = atan2_
    Tensor.lerp_, Tensor.addcmul_, Tensor.addcdiv_ = lerp_, addcmul_, addcdiv_
