"""Rounding and the sign: ``floor``, ``ceil``, ``trunc`` (``fix``), ``round``, ``frac``, ``sign``.

Every one of them but ``frac`` is piecewise constant: its derivative is 0
wherever it exists, and PyTorch's formula is ``zeros_like(grad)`` (a
constant: a second derivative through it is 0, not "unused").  ``frac(x) =
x - trunc(x)`` has derivative 1, so its gradient is the incoming gradient
itself.

Nodes as PyTorch names them: FloorBackward0, CeilBackward0, TruncBackward0
(also for ``fix``), RoundBackward0, RoundBackward1 (``round(decimals=...)``,
even ``decimals=0``: the other overload), FracBackward0, SignBackward0.
None of them saves anything.

Dtypes as PyTorch's kernels: floats keep their dtype; an integer input to
``floor``/``ceil``/``trunc``/``round`` is returned as a copy, ``sign`` of an
integer is its sign and of a bool the bool itself; ``frac`` and
``round(decimals=...)`` refuse integers, and bools are refused by all but
``sign`` (``NotImplementedError: "floor_vml_cpu" not implemented for 'Bool'``).

Source: derivatives.yaml (``floor``, ``ceil``, ``trunc``, ``round``,
``round.decimals``, ``frac``, ``sign``); the kernels of
aten/src/ATen/native/cpu/UnaryOpsKernel.cpp (``round_decimals_kernel``
scales by 10**decimals in the input's dtype, then rounds half to even).
"""

import numpy as np

from .._dtype import SCALAR_TYPE_NAMES
from ..autograd.function import Function
from ..tensor import Tensor

__all__ = ["Ceil", "Floor", "Frac", "Round", "RoundDecimals", "Sign", "Trunc",
           "ceil", "fix", "floor", "frac", "round", "sign", "trunc"]

_make = Tensor._make


def _not_implemented(kernel, data):
    raise NotImplementedError(f'"{kernel}" not implemented for \'{SCALAR_TYPE_NAMES[str(data.dtype)]}\'')


def _zeros(F, ctx, grad):
    """PyTorch's ``zeros_like(grad)``: a piecewise-constant op passes no gradient."""
    return F.zeros(F.data(grad).shape, grad)


def _rounding(name, np_fn, doc):
    """One piecewise-constant rounding primitive: floats rounded by ``np_fn``, integers copied."""
    kernel = f"{name}_vml_cpu"

    def forward(ctx, a):
        data = a._data
        if data.dtype == np.bool_:
            _not_implemented(kernel, data)
        return _make(np_fn(data) if data.dtype.kind == "f" else data.copy())

    node = f"{name.capitalize()}Backward0"
    return type(name.capitalize(), (Function,), {
        "__doc__": f"{doc} ({node}); saves nothing, its gradient is zeros.",
        "__module__": __name__,
        "node_name": node,
        "_quiet_numpy": False,  # rounding raises no floating-point error, inf and nan included
        "_numpy_forward": True,
        "forward": staticmethod(forward),
        "formula": staticmethod(_zeros),
    })


Floor = _rounding("floor", np.floor, "The largest integer <= each element")
Ceil = _rounding("ceil", np.ceil, "The smallest integer >= each element")
Trunc = _rounding("trunc", np.trunc, "Each element rounded toward zero")
# np.rint rounds half to even, as C's nearbyint in the default rounding mode (PyTorch's kernel)
Round = _rounding("round", np.rint, "Each element rounded to the nearest integer, half to even")


class RoundDecimals(Function):
    """Each element rounded to ``decimals`` decimal digits, half to even (RoundBackward1).

    Computed as PyTorch's kernel does, in the input's dtype: ``rint(x * 10**d)
    / 10**d``, or ``rint(x / 10**-d) * 10**-d`` for a negative ``decimals``.
    Saves nothing; its gradient is zeros.
    """

    node_name = "RoundBackward1"
    _numpy_forward = True

    @staticmethod
    def forward(ctx, a, decimals):
        data = a._data
        if data.dtype.kind != "f":
            _not_implemented("round_vml_cpu" if decimals == 0 else "round_cpu", data)
        scale = data.dtype.type(10.0 ** abs(decimals))
        if decimals < 0:
            return _make(np.rint(data / scale) * scale)
        return _make(np.rint(data * scale) / scale)

    @staticmethod
    def formula(F, ctx, grad):
        return _zeros(F, ctx, grad), None


class Frac(Function):
    """The fractional part ``x - trunc(x)``, with the sign of ``x`` (FracBackward0).

    Its derivative is 1: the gradient is the incoming one itself, as PyTorch's
    ``self: grad``.  Saves nothing.
    """

    node_name = "FracBackward0"
    _numpy_forward = True

    @staticmethod
    def forward(ctx, a):
        data = a._data
        if data.dtype.kind != "f":
            _not_implemented("frac_cpu", data)
        return _make(data - np.trunc(data))

    @staticmethod
    def formula(F, ctx, grad):
        return grad


class Sign(Function):
    """The sign of each element: -1, 0 or 1 (SignBackward0); saves nothing, gradient zeros.

    As PyTorch's kernel ``(0 < x) - (x < 0)``: -0.0 and nan give +0.0; an
    integer gives its sign, a bool itself.
    """

    node_name = "SignBackward0"
    _numpy_forward = True
    _quiet_numpy = False  # comparisons: no floating-point error

    @staticmethod
    def forward(ctx, a):
        data = a._data
        if data.dtype == np.bool_:
            return _make(data.copy())
        return _make(np.subtract(data > 0, data < 0, dtype=data.dtype))

    formula = staticmethod(_zeros)


def floor(input):
    """The largest integer <= each element (``torch.floor``); FloorBackward0, gradient zeros.

    Floats keep their dtype, an integer tensor is copied.

    Raises:
        NotImplementedError: for a bool tensor, PyTorch's kernel message.
    """
    return Floor.apply(input)


def ceil(input):
    """The smallest integer >= each element (``torch.ceil``); CeilBackward0, gradient zeros."""
    return Ceil.apply(input)


def trunc(input):
    """Each element rounded toward zero (``torch.trunc``); TruncBackward0, gradient zeros."""
    return Trunc.apply(input)


def fix(input):
    """``torch.fix``: another name of ``trunc`` (TruncBackward0)."""
    return Trunc.apply(input)


def round(input, *, decimals=None):
    """Round half to even (``torch.round``); with ``decimals``, to that many decimal digits.

    Nodes: RoundBackward0 without ``decimals``, RoundBackward1 with it (even
    ``decimals=0``, as PyTorch's ``round.decimals`` overload); gradient zeros.
    A negative ``decimals`` rounds to tens, hundreds, ...

    Raises:
        NotImplementedError: for a bool tensor; with ``decimals``, for an
            integer tensor too (PyTorch's kernel messages).
        TypeError: a ``decimals`` that is not an int.
    """
    if decimals is None:
        return Round.apply(input)
    if not _is_int(decimals):
        raise TypeError(
            f"round() received an invalid combination of arguments - got (Tensor, decimals="
            f"{type(decimals).__name__}), but expected one of:\n * (Tensor input, *, Tensor out = None)\n"
            " * (Tensor input, *, int decimals, Tensor out = None)\n")
    return RoundDecimals.apply(input, int(decimals))


def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def round_method(self, *, decimals=None, _name="round"):
    """``Tensor.round(decimals=None)`` (and ``round_``'s check): a bad ``decimals`` in the method's words."""
    if decimals is not None and not _is_int(decimals):
        raise TypeError(f"{_name}(): argument 'decimals' must be int, not {type(decimals).__name__}")
    return round(self, decimals=decimals)


def frac(input):
    """The fractional part ``x - trunc(x)`` (``torch.frac``); FracBackward0 passes the gradient.

    Raises:
        NotImplementedError: for integer and bool tensors (``"frac_cpu" not implemented for 'Long'``).
    """
    return Frac.apply(input)


def sign(input):
    """-1, 0 or 1 by the sign of each element (``torch.sign``); SignBackward0, gradient zeros.

    nan and -0.0 give 0; integers keep their dtype, a bool tensor is returned as a copy.
    """
    return Sign.apply(input)
