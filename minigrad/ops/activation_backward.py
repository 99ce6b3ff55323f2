"""tanh's and sigmoid's backward as ops of their own, as PyTorch records them.

PyTorch computes the gradient of ``tanh`` and ``sigmoid`` with one kernel each
(``tanh_backward(grad, result)``, ``sigmoid_backward(grad, result)``), and
that kernel is itself differentiable: a gradient taken with
``create_graph=True`` through ``tanh`` ends in ``TanhBackwardBackward0``,
whose edges lead to the incoming gradient and to the saved result.  These
two Functions are those kernels, with PyTorch's arithmetic (so values agree
to the last bit and infinities give the same inf/nan) and PyTorch's
double-backward formulas (``derivatives.yaml``):

* ``tanh_backward``: ``grad * (1 - y*y)``, with ``1 - y*y`` rounded once, as
  PyTorch 2.13's CPU kernel returns it (measured: on 100,001 float64 values
  0.9 <= y < 1 it equals the once-rounded value every time, ``1 - fl(y*y)``
  one time in seven; a fused multiply-add in the compiled kernel would do
  exactly this) (``one_minus_square``: where tanh saturates, rounding
  ``y*y`` first loses most of the digits); its derivatives
  ``tanh_backward(gg, y)`` for grad and ``gg * (-2 * y * grad)`` for y;
* ``sigmoid_backward``: ``grad * (1 - y) * y``; its derivatives
  ``sigmoid_backward(gg, y)`` for grad and ``gg * grad * (-2 * y + 1)`` for y.

Shapes: ``grad`` and ``result`` have the same shape and float dtype.

Source: ATen's ``tanh_backward``/``sigmoid_backward`` CPU kernels
(``BinaryOpsKernel.cpp``) and ``tools/autograd/derivatives.yaml``.
"""

import numpy as np

from ..autograd.function import Function
from ..tensor import Tensor
from ._util import FLOAT32

__all__ = ["SigmoidBackward", "TanhBackward", "one_minus_square"]

_make = Tensor._make
_float32 = np.float32  # (a module-level name: numpy's own attributes are slow to read)
_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's split of a float64 into two halves


def one_minus_square(r):
    """``1 - r*r`` rounded once, as PyTorch's CPU ``tanh_backward`` returns it (see above).

    ``r``: a float array (or numpy scalar); the result has its shape and dtype.
    float32: ``r*r`` is exact in float64, so one rounding to float32 is left.
    float64: the exact error of ``r*r`` (Dekker's product) and of ``1 - p``
    (Fast2Sum) are added back before the one rounding.  Where ``tanh``
    saturates (``r`` near ±1) ``1 - fl(r*r)`` would keep only a few digits.
    Source: Dekker, "A floating-point technique for extending the available
    precision" (1971); the ``tanh_backward`` kernel of ATen (BinaryOpsKernel.cpp).
    """
    dt = r.dtype
    if dt is FLOAT32 or dt == FLOAT32:
        if r.ndim == 0:
            v = float(r)
            return _float32(1.0 - v * v)
        w = r.astype(np.float64)
        return (1.0 - w * w).astype(np.float32)
    if dt != np.float64:
        return dt.type(1) - r * r
    with np.errstate(invalid="ignore", over="ignore"):
        p = r * r
        c = _SPLIT * r
        hi = c - (c - r)
        lo = r - hi
        err = ((hi * hi - p) + 2 * hi * lo) + lo * lo  # r*r == p + err exactly
        s = 1.0 - p
        e = (1.0 - s) - p  # 1 - p == s + e exactly (|1| >= p)
        out = s + (e - err)
    if np.ndim(out) and not np.isfinite(r).all() or not np.ndim(out) and not np.isfinite(r):
        out = np.where(np.isfinite(r), out, 1.0 - p)  # nan and inf as the plain formula gives them
    return out


class TanhBackward(Function):
    """``grad * (1 - y*y)`` for ``y = tanh(x)`` (TanhBackwardBackward0)."""

    node_name = "TanhBackwardBackward0"
    saved_names = ("grad_output", "output")

    @staticmethod
    def forward(ctx, grad, y):
        ctx.save_for_backward(grad, y)
        g, r = grad._data, y._data
        with np.errstate(invalid="ignore", over="ignore"):
            return _make(np.asarray(g * one_minus_square(r)).astype(r.dtype, copy=False))

    @staticmethod
    def backward(ctx, gg):
        from .elementwise import MulScalar

        grad, y = ctx.saved_tensors
        need = ctx.needs_input_grad
        d_grad = TanhBackward.apply(gg, y) if need[0] else None
        d_y = gg * (MulScalar.apply(y, -2) * grad) if need[1] else None
        return d_grad, d_y


class SigmoidBackward(Function):
    """``grad * (1 - y) * y`` for ``y = sigmoid(x)`` (SigmoidBackwardBackward0)."""

    node_name = "SigmoidBackwardBackward0"
    saved_names = ("grad_output", "output")

    @staticmethod
    def forward(ctx, grad, y):
        ctx.save_for_backward(grad, y)
        g, r = grad._data, y._data
        one = r.dtype.type(1)
        with np.errstate(invalid="ignore", over="ignore"):
            return _make((g * (one - r) * r).astype(r.dtype, copy=False))

    @staticmethod
    def backward(ctx, gg):
        from .elementwise import MulScalar

        grad, y = ctx.saved_tensors
        need = ctx.needs_input_grad
        d_grad = SigmoidBackward.apply(gg, y) if need[0] else None
        d_y = gg * grad * (MulScalar.apply(y, -2) + 1) if need[1] else None
        return d_grad, d_y
