"""The accurate and the other-base logarithms and exponentials: ``log1p``, ``expm1``, ``log2``, ``log10``.

``log1p(x) = log(1 + x)`` and ``expm1(x) = eˣ - 1`` keep their precision for
small ``x`` (where ``1 + x`` would round away the digits of ``x``); ``log2``
and ``log10`` are ``log(x) / log(b)``.  Their vector-Jacobian products, in
PyTorch's order of operations (so a second derivative records the nodes
PyTorch records):

* ``log1p``: ``grad / (self + 1)`` (Log1PBackward0 saves ``self``; ``self + 1``
  is the number overload, AddBackward1);
* ``expm1``: ``grad * (result + 1)`` (Expm1Backward0 saves its result);
* ``log2``, ``log10``: ``grad / (self * log(b))`` (Log2Backward0,
  Log10Backward0 save ``self``; ``self * log(b)`` is MulBackward1).

Integer and bool inputs compute in float32, PyTorch's default dtype.

Source: derivatives.yaml (``log1p``, ``expm1``, ``log2``, ``log10``) and
FunctionsManual.cpp's ``log1p_backward``.
"""

import math

import numpy as np

from ..autograd.function import Function
from ..tensor import Tensor
from .elementwise import _float_data

__all__ = ["AddScalar", "Expm1", "Log10", "Log1p", "Log2", "expm1", "log10", "log1p", "log2"]

_make = Tensor._make


class AddScalar(Function):
    """``self + other`` for a number ``other`` inside backward formulas (AddBackward1).

    PyTorch records this (the ``add(Tensor, Scalar)`` overload) where a
    gradient formula adds a number, as ``log1p``'s ``self + 1``; Python
    code's ``x + 1`` records AddBackward0 with a wrapped number instead.
    Its gradient passes unchanged to ``self``.
    """

    node_name = "AddBackward1"
    _numpy_forward = True

    @staticmethod
    def forward(ctx, a, other):
        return _make(np.add(a._data, other).astype(a._data.dtype, copy=False))

    @staticmethod
    def formula(F, ctx, grad):
        return grad, None


class Log1p(Function):
    """``log(1 + self)``, accurate for small ``self`` (Log1PBackward0); saves its input."""

    node_name = "Log1PBackward0"
    saved_names = ("self",)
    _numpy_forward = True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _make(np.log1p(_float_data(a)))

    @staticmethod
    def formula(F, ctx, grad, a):
        return grad / F.add_scalar(a, 1)  # PyTorch's log1p_backward: grad / (self + 1)


class Expm1(Function):
    """``eˣ - 1``, accurate for small ``x`` (Expm1Backward0); saves its result."""

    node_name = "Expm1Backward0"
    saved_names = ("result",)
    _numpy_forward = True

    @staticmethod
    def forward(ctx, a):
        out = _make(np.expm1(_float_data(a)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def formula(F, ctx, grad, r):
        return grad * F.add_scalar(r, 1)  # d/dx (eˣ - 1) = eˣ = result + 1


def _log_base(name, np_fn, base):
    ln_b = math.log(base)  # PyTorch's constant: 0.6931471805599453 for 2, 2.302585092994046 for 10

    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _make(np_fn(_float_data(a)))

    def formula(F, ctx, grad, a):
        return grad / F.mul_scalar(a, ln_b)  # grad / (self * log(b)), as derivatives.yaml

    node = f"{name.capitalize()}Backward0"
    return type(name.capitalize(), (Function,), {
        "__doc__": f"The base-{base} logarithm ({node}); saves its input: d/dx = 1 / (x ln {base}).",
        "__module__": __name__,
        "node_name": node,
        "saved_names": ("self",),
        "_numpy_forward": True,
        "forward": staticmethod(forward),
        "formula": staticmethod(formula),
    })


Log2 = _log_base("log2", np.log2, 2)
Log10 = _log_base("log10", np.log10, 10)


def log1p(input):
    """``log(1 + x)`` elementwise, accurate near 0 (``torch.log1p``); node Log1PBackward0.

    Integers compute in float32; ``log1p(-1)`` is ``-inf`` and below it nan, as PyTorch.
    """
    return Log1p.apply(input)


def expm1(input):
    """``eˣ - 1`` elementwise, accurate near 0 (``torch.expm1``); node Expm1Backward0 saves its result."""
    return Expm1.apply(input)


def log2(input):
    """Base-2 logarithm elementwise (``torch.log2``); node Log2Backward0 saves its input."""
    return Log2.apply(input)


def log10(input):
    """Base-10 logarithm elementwise (``torch.log10``); node Log10Backward0 saves its input."""
    return Log10.apply(input)
