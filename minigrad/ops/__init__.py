"""The primitives, as functions and as Tensor methods and operators.

Each function here checks and converts its arguments, then calls one
``Function.apply``; the Tensor operators (``x * y``, ``x.exp()``) are the same
functions attached to ``Tensor``.  The primitives themselves live by theme:

* ``elementwise.py``: ``+ - * / **``, ``neg``, ``exp``, ``log``, ``tanh``, ``sigmoid``, ``relu``, ``where``;
* ``reductions.py``: ``sum``, ``mean``, ``sum_to_size``;
* ``shape.py``: ``reshape``/``view``, ``transpose``, ``permute``, ``t``, ``expand``, ``to``;
* ``linalg.py``: ``mm``, ``matmul``.
"""

from .._dtype import as_dtype
from ..tensor import Tensor
from . import elementwise as _ew
from . import linalg as _la
from . import reductions as _red
from . import shape as _sh
from ._util import as_operand, is_scalar, wrap_scalar
from .elementwise import where
from .linalg import matmul, mm
from .reductions import mean, sum, sum_to_size
from .shape import expand, permute, reshape, transpose, view

__all__ = [
    "add", "sub", "mul", "div", "neg", "pow", "exp", "log", "tanh", "sigmoid", "relu",
    "where", "sum", "mean", "sum_to_size", "reshape", "view", "transpose", "permute", "t",
    "expand", "mm", "matmul",
]


def _operand(other, name):
    if isinstance(other, Tensor):
        return other
    if is_scalar(other):
        return wrap_scalar(other)
    return None


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


# ----------------------------------------------------------------- operators

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
    return _sh.ToCopy.apply(self, d)


def _T(self):
    n = self._data.ndim
    return permute(self, *reversed(range(n))) if n >= 2 else self


def _install():
    T = Tensor
    T.__add__ = _binary(add)
    T.__radd__ = _binary(_radd)
    T.__sub__ = _binary(sub)
    T.__rsub__ = _rsub
    T.__mul__ = _binary(mul)
    T.__rmul__ = _binary(_rmul)
    T.__truediv__ = _binary(div)
    T.__rtruediv__ = _rtruediv
    T.__pow__ = _binary(pow)
    T.__rpow__ = _rpow
    T.__neg__ = neg
    T.__pos__ = lambda self: self
    T.__matmul__ = lambda self, other: matmul(self, other) if isinstance(other, Tensor) else NotImplemented
    T.__rmatmul__ = lambda self, other: NotImplemented
    for name in ("add", "sub", "mul", "div", "neg", "pow", "exp", "log", "tanh", "sigmoid",
                 "relu", "sum", "mean", "sum_to_size", "reshape", "view", "transpose",
                 "permute", "t", "expand", "mm", "matmul"):
        setattr(T, name, globals()[name])
    T.to = _to
    T.T = property(_T, doc="The tensor with its dims reversed (PermuteBackward0 for 2-d).")
    T.mT = property(lambda self: transpose(self, -2, -1), doc="Transpose of the last two dims.")
    T.float = lambda self: _to(self, "float")
    T.double = lambda self: _to(self, "double")
    T.long = lambda self: _to(self, "long")
    T.type_as = lambda self, other: _to(self, other.dtype)
    T.view_as = lambda self, other: view(self, other.shape)
    T.reshape_as = lambda self, other: reshape(self, other.shape)
    T.expand_as = lambda self, other: expand(self, other.shape)


_install()
