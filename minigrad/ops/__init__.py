"""The primitives, as functions and as Tensor methods and operators.

Each function here checks and converts its arguments, then calls one
``Function.apply``; the Tensor operators (``x * y``, ``x.exp()``) are the same
functions attached to ``Tensor``.  The primitives themselves live by theme:

* ``elementwise.py``: ``+ - * / **``, ``neg``, ``abs``, ``exp``, ``log``, ``sqrt``, ``sin``,
  ``cos``, ``tanh``, ``sigmoid``, ``relu``, ``clamp``, ``maximum``, ``minimum``, ``where``;
* ``reductions.py``: ``sum``, ``mean``, ``max``, ``min``, ``amax``, ``amin``, ``logsumexp``,
  ``softmax``, ``log_softmax``, ``sum_to_size``;
* ``shape.py``: ``reshape``/``view``, ``transpose``, ``permute``, ``t``, ``unsqueeze``,
  ``squeeze``, ``expand``, ``flatten``, ``cat``, ``stack``, ``clone``, ``to``;
* ``indexing.py``: ``x[...]``, ``select``, ``narrow``, ``gather``;
* ``linalg.py``: ``dot``, ``mv``, ``mm``, ``bmm``, ``matmul``;
* ``comparison.py``: ``== != < <= > >=`` and logic (never recorded).
"""

from .._dtype import as_dtype
from ..tensor import Tensor
from . import comparison as _cmp
from . import elementwise as _ew
from . import shape as _sh
from ._util import as_operand, is_scalar, wrap_scalar
from .comparison import (
    eq,
    ge,
    gt,
    isfinite,
    isinf,
    isnan,
    le,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    lt,
    ne,
)
from .elementwise import where
from .indexing import gather, getitem, narrow, select
from .linalg import addmm, bmm, dot, matmul, mm, mv
from .reductions import (
    amax,
    amin,
    log_softmax,
    logsumexp,
    max,
    mean,
    min,
    prod,
    softmax,
    std,
    sum,
    sum_to_size,
    var,
)
from .shape import (
    cat,
    chunk,
    clone,
    contiguous,
    expand,
    flatten,
    flip,
    permute,
    repeat,
    reshape,
    split,
    squeeze,
    stack,
    transpose,
    unbind,
    unsqueeze,
    view,
)

__all__ = [
    "abs",
    "add",
    "addmm",
    "var",
    "std",
    "prod",
    "flip",
    "repeat",
    "split",
    "chunk",
    "remainder",
    "floor_divide",
    "allclose",
    "equal",
    "amax",
    "amin",
    "bmm",
    "cat",
    "clamp",
    "clone",
    "contiguous",
    "cos",
    "div",
    "dot",
    "eq",
    "exp",
    "expand",
    "flatten",
    "gather",
    "ge",
    "gt",
    "isfinite",
    "isinf",
    "isnan",
    "le",
    "log",
    "log_softmax",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "logsumexp",
    "lt",
    "matmul",
    "max",
    "maximum",
    "mean",
    "min",
    "minimum",
    "mm",
    "mul",
    "mv",
    "narrow",
    "ne",
    "neg",
    "permute",
    "pow",
    "relu",
    "reshape",
    "select",
    "sigmoid",
    "sin",
    "softmax",
    "sqrt",
    "squeeze",
    "stack",
    "sub",
    "sum",
    "sum_to_size",
    "t",
    "tanh",
    "transpose",
    "unsqueeze",
    "unbind",
    "view",
    "where",
]


def add(input, other, *, alpha=1):
    """``input + alpha * other``, broadcasting (``torch.add``); node AddBackward0.

    Raises:
        RuntimeError: "The size of tensor a (3) must match the size of tensor
            b (4) at non-singleton dimension 0" for shapes that do not broadcast.
    """
    return _ew.Add.apply(as_operand(input, "add"), as_operand(other, "add"), alpha)


def sub(input, other, *, alpha=1):
    """``input - alpha * other`` (``torch.sub``); node SubBackward0 (RsubBackward1 for ``2 - x``)."""
    return _ew.Sub.apply(as_operand(input, "sub"), as_operand(other, "sub"), alpha)


def mul(input, other):
    """``input * other``, broadcasting (``torch.mul``); node MulBackward0."""
    return _ew.Mul.apply(as_operand(input, "mul"), as_operand(other, "mul"))


def div(input, other):
    """``input / other``, true division (``torch.div``); node DivBackward0; ints divide to float32."""
    return _ew.Div.apply(as_operand(input, "div"), as_operand(other, "div"))


def neg(input):
    """``-input`` (``torch.neg``); node NegBackward0."""
    return _ew.Neg.apply(input)


def pow(input, exponent):
    """``input ** exponent`` (``torch.pow``).

    Nodes as PyTorch names them: PowBackward0 for a number exponent,
    PowBackward1 for a tensor exponent, PowBackward2 for a number base.
    """
    if isinstance(input, Tensor):
        if isinstance(exponent, Tensor):
            return _ew.PowTensorTensor.apply(input, exponent)
        if is_scalar(exponent):
            return _ew.PowTensorScalar.apply(input, exponent.item() if hasattr(exponent, "item") else exponent)
        raise TypeError(f"pow(): argument 'exponent' must be Tensor or Number, not {type(exponent).__name__}")
    if is_scalar(input) and isinstance(exponent, Tensor):
        return _ew.PowScalarTensor.apply(input, exponent)
    raise TypeError(f"pow(): argument 'input' must be Tensor or Number, not {type(input).__name__}")


def exp(input):
    """eˣ elementwise (``torch.exp``); node ExpBackward0 saves its result."""
    return _ew.Exp.apply(input)


def log(input):
    """Natural log elementwise (``torch.log``); node LogBackward0 saves its input."""
    return _ew.Log.apply(input)


def tanh(input):
    """tanh elementwise (``torch.tanh``); node TanhBackward0 saves its result."""
    return _ew.Tanh.apply(input)


def sigmoid(input):
    """1 / (1 + e⁻ˣ) elementwise (``torch.sigmoid``); node SigmoidBackward0 saves its result."""
    return _ew.Sigmoid.apply(input)


def relu(input):
    """max(x, 0) elementwise (``torch.relu``); node ReluBackward0; gradient 0 at 0."""
    return _ew.Relu.apply(input)


def t(input):
    """Transpose a tensor of at most 2 dims (``torch.t``); node TBackward0."""
    return _sh.T.apply(input)


def abs(input):
    """|x| elementwise (``torch.abs``); node AbsBackward0; gradient 0 at 0."""
    return _ew.Abs.apply(input)


def sqrt(input):
    """√x elementwise (``torch.sqrt``); node SqrtBackward0; gradient inf at 0."""
    return _ew.Sqrt.apply(input)


def sin(input):
    """sin elementwise (``torch.sin``); node SinBackward0."""
    return _ew.Sin.apply(input)


def cos(input):
    """cos elementwise (``torch.cos``); node CosBackward0."""
    return _ew.Cos.apply(input)


def clamp(input, min=None, max=None):
    """Limit values to ``[min, max]`` (``torch.clamp``); node ClampBackward1.

    The gradient passes where ``min <= x <= max`` (bounds included), as in PyTorch.

    Raises:
        RuntimeError: "torch.clamp: At least one of 'min' or 'max' must not be None".
    """
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        out = input
        if min is not None:
            out = maximum(out, min if isinstance(min, Tensor) else wrap_scalar(min))
        if max is not None:
            out = minimum(out, max if isinstance(max, Tensor) else wrap_scalar(max))
        return out
    return _ew.Clamp.apply(input, min, max)


def maximum(input, other):
    """Elementwise max of two tensors (``torch.maximum``); ties split the gradient evenly."""
    if not isinstance(other, Tensor):
        raise TypeError(f"maximum(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    return _ew.Maximum.apply(input, other)


def minimum(input, other):
    """Elementwise min of two tensors (``torch.minimum``); ties split the gradient evenly."""
    if not isinstance(other, Tensor):
        raise TypeError(f"minimum(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    return _ew.Minimum.apply(input, other)


# ----------------------------------------------------------------- operators

def remainder(input, other):
    """``input % other`` with the sign of ``other``, as Python's (``torch.remainder``)."""
    if isinstance(input, Tensor) and is_scalar(other):
        return _ew.Remainder.apply(input, other)
    return _ew.Remainder.apply(as_operand(input, "remainder"), as_operand(other, "remainder"))


def floor_divide(input, other):
    """``input // other`` (``torch.floor_divide``); not differentiable (backward raises)."""
    return _ew.FloorDivide.apply(as_operand(input, "floor_divide"),
                                 as_operand(other, "floor_divide"))


def _radd(self, other):
    return add(self, other)


def _rsub(self, other):
    if isinstance(other, Tensor):
        return sub(other, self)
    if not is_scalar(other):
        return NotImplemented
    return _ew.Rsub.apply(self, other.item() if hasattr(other, "item") else other, 1)


def _rmul(self, other):
    return mul(self, other)


def _rtruediv(self, other):
    if not is_scalar(other):
        return NotImplemented
    return mul(_ew.Reciprocal.apply(self), other)


def _rpow(self, other):
    if not is_scalar(other):
        return NotImplemented
    return pow(other, self)


def _binary(fn):
    def op(self, other):
        if not isinstance(other, Tensor) and not is_scalar(other):
            return NotImplemented
        return fn(self, other)

    op.__name__ = fn.__name__
    op.__doc__ = fn.__doc__
    return op


def _operator(fn, cls, *extra):
    """``fn`` as a Tensor operator, calling its primitive directly (the hot path of ``x * y``)."""

    def op(self, other):
        if not isinstance(other, Tensor):
            if not is_scalar(other):
                return NotImplemented
            other = wrap_scalar(other)
        return cls.apply(self, other, *extra)

    op.__name__ = fn.__name__
    op.__doc__ = fn.__doc__
    return op


def _to(self, dtype=None, *args, **kwargs):
    """Convert to ``dtype`` (``Tensor.to``); same tensor if already of it; node ToCopyBackward0.

    Raises:
        RuntimeError: if converting a tensor that requires grad to an integer dtype.
    """
    if dtype is None or isinstance(dtype, str) and dtype == "cpu":
        dtype = kwargs.get("dtype")
        if dtype is None:
            return self
    d = as_dtype(dtype)
    if d is self.dtype:
        return self
    if not d.is_floating_point:
        # integers and bools carry no gradient: nothing is recorded
        return Tensor._make(self._data.astype(d.np))
    return _sh.ToCopy.apply(self, d)


def _T(self):
    n = self._data.ndim
    if n != 2:
        import warnings

        warnings.warn(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to "
            "reverse the dimensions of a tensor.",
            UserWarning,
            stacklevel=2,
        )
    return permute(self, *reversed(range(n)))


def equal(input, other):
    """True if the two tensors have the same shape and the same values (``torch.equal``)."""
    import numpy as np

    return input._data.shape == other._data.shape and bool(np.array_equal(input._data, other._data))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True if |input - other| <= atol + rtol * |other| everywhere (``torch.allclose``)."""
    import numpy as np

    return bool(np.allclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def _argext(self, dim, keepdim, name):
    import numpy as np

    from ._util import canonical_dim

    fn = getattr(np, name)
    if dim is None:
        return Tensor._make(np.asarray(fn(self._data), dtype=np.int64))
    d = canonical_dim(dim, self._data.ndim)
    return Tensor._make(np.asarray(fn(self._data, axis=d, keepdims=keepdim), dtype=np.int64))


class _Methods:
    """Tensor methods that are small conveniences over the functions above (attached below)."""

    def float(self):
        """Convert to float32 (``Tensor.float``); the same tensor if already float32."""
        return _to(self, "float")

    def double(self):
        """Convert to float64 (``Tensor.double``)."""
        return _to(self, "double")

    def long(self):
        """Convert to int64 (``Tensor.long``); the result does not require grad."""
        return _to(self, "long")

    def bool(self):
        """Convert to bool (``Tensor.bool``)."""
        return _to(self, "bool")

    def type_as(self, other):
        """Convert to ``other``'s dtype (``Tensor.type_as``)."""
        return _to(self, other.dtype)

    def view_as(self, other):
        """``view`` to ``other``'s shape (``Tensor.view_as``)."""
        return view(self, other.shape)

    def reshape_as(self, other):
        """``reshape`` to ``other``'s shape (``Tensor.reshape_as``)."""
        return reshape(self, other.shape)

    def expand_as(self, other):
        """``expand`` to ``other``'s shape (``Tensor.expand_as``)."""
        return expand(self, other.shape)

    def is_contiguous(self):
        """True if the elements lie in memory in row-major order (``Tensor.is_contiguous``)."""
        return bool(self._data.flags.c_contiguous)

    def clamp_min(self, min):
        """``clamp(self, min=min)`` (``Tensor.clamp_min``)."""
        return clamp(self, min=min)

    def clamp_max(self, max):
        """``clamp(self, max=max)`` (``Tensor.clamp_max``)."""
        return clamp(self, max=max)

    def where(self, condition, other):
        """``where(condition, self, other)`` (``Tensor.where``)."""
        return where(condition, self, other)

    def square(self):
        """``self ** 2`` (``Tensor.square``); node PowBackward0."""
        return pow(self, 2)

    def argmax(self, dim=None, keepdim=False):
        """Index of the largest element, overall or along ``dim``, as int64 (``Tensor.argmax``)."""
        return _argext(self, dim, keepdim, "argmax")

    def argmin(self, dim=None, keepdim=False):
        """Index of the smallest element, overall or along ``dim``, as int64 (``Tensor.argmin``)."""
        return _argext(self, dim, keepdim, "argmin")

    def type(self, dtype=None):
        """With no argument, PyTorch's legacy type name (``"torch.FloatTensor"``); else ``to(dtype)``."""
        if dtype is None:
            return "torch." + {"float32": "FloatTensor", "float64": "DoubleTensor",
                               "int64": "LongTensor", "bool": "BoolTensor"}[self.dtype.name]
        return _to(self, dtype)

    def norm(self, p=2, dim=None, keepdim=False):
        """The p-norm (2 by default) over all elements or ``dim`` (``Tensor.norm``), as a composite."""
        if p == 2:
            return sqrt(sum(self * self, dim=dim, keepdim=keepdim))
        return pow(sum(pow(abs(self), p), dim=dim, keepdim=keepdim), 1.0 / p)

    def cpu(self):
        """The tensor itself: minigrad computes on the CPU (``Tensor.cpu``)."""
        return self

    def any(self, dim=None, keepdim=False):
        """True if any element (along ``dim``) is nonzero, as a bool tensor (``Tensor.any``)."""
        import numpy as np

        return Tensor._make(np.asarray(np.any(self._data, axis=dim, keepdims=keepdim)))

    def all(self, dim=None, keepdim=False):
        """True if every element (along ``dim``) is nonzero, as a bool tensor (``Tensor.all``)."""
        import numpy as np

        return Tensor._make(np.asarray(np.all(self._data, axis=dim, keepdims=keepdim)))

    def new_zeros(self, *size, dtype=None, requires_grad=False):
        """Zeros of ``size`` with this tensor's dtype by default (``Tensor.new_zeros``)."""
        from ..tensor import zeros

        return zeros(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)

    def new_ones(self, *size, dtype=None, requires_grad=False):
        """Ones of ``size`` with this tensor's dtype by default (``Tensor.new_ones``)."""
        from ..tensor import ones

        return ones(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)

    def equal(self, other):
        """True if same shape and same values (``torch.equal``)."""
        return equal(self, other)

    def __matmul__(self, other):
        if not isinstance(other, Tensor):
            return NotImplemented
        return matmul(self, other)

    def __rmatmul__(self, other):
        return NotImplemented

    def __pos__(self):
        return self

    def __hash__(self):
        # __eq__ is elementwise (it returns a tensor), so hash by identity
        return id(self)


def _install():
    T = Tensor
    T.__add__ = _operator(add, _ew.Add, 1)
    T.__radd__ = _binary(_radd)
    T.__sub__ = _operator(sub, _ew.Sub, 1)
    T.__rsub__ = _rsub
    T.__mul__ = _operator(mul, _ew.Mul)
    T.__rmul__ = _binary(_rmul)
    T.__truediv__ = _operator(div, _ew.Div)
    T.__mod__ = _binary(remainder)
    T.__floordiv__ = _binary(floor_divide)
    T.__rmod__ = _binary(lambda self, other: remainder(wrap_scalar(other), self))
    T.__rfloordiv__ = _binary(lambda self, other: floor_divide(wrap_scalar(other), self))
    T.__rtruediv__ = _rtruediv
    T.__pow__ = _binary(pow)
    T.__rpow__ = _rpow
    T.__neg__ = neg
    T.__abs__ = abs
    T.__getitem__ = getitem
    T.__eq__ = _binary(eq)
    T.__ne__ = _binary(ne)
    T.__lt__ = _binary(lt)
    T.__le__ = _binary(le)
    T.__gt__ = _binary(gt)
    T.__ge__ = _binary(ge)
    T.__and__ = T.__rand__ = _binary(_cmp.bitwise_and)
    T.__or__ = T.__ror__ = _binary(_cmp.bitwise_or)
    T.__xor__ = T.__rxor__ = _binary(_cmp.bitwise_xor)
    T.__invert__ = _cmp.bitwise_not
    for name in __all__:
        if name not in ("cat", "stack", "where", "allclose", "equal"):  # functions only, or bound differently
            setattr(T, name, globals()[name])
    for name, fn in vars(_Methods).items():
        if callable(fn) and (not name.startswith("_") or name.startswith("__")) and name not in (
            "__dict__", "__weakref__", "__module__", "__doc__", "__qualname__"
        ):
            setattr(T, name, fn)
    T.to = _to
    T.T = property(_T, doc="The tensor with its dims reversed (PermuteBackward0 for 2-d).")
    T.mT = property(lambda self: transpose(self, -2, -1), doc="Transpose of the last two dims.")


_install()

from . import inplace as _inplace

_inplace.install()
