"""tanh's and sigmoid's backward as ops of their own, as PyTorch records them.

PyTorch computes the gradient of ``tanh`` and ``sigmoid`` with one kernel each
(``tanh_backward(grad, result)``, ``sigmoid_backward(grad, result)``), and
that kernel is itself differentiable: a gradient taken with
``create_graph=True`` through ``tanh`` ends in ``TanhBackwardBackward0``,
whose edges lead to the incoming gradient and to the saved result.  These
two Functions are those kernels, with PyTorch's arithmetic (so values agree
to the last bit and infinities give the same inf/nan) and PyTorch's
double-backward formulas (``derivatives.yaml``):

* ``tanh_backward``: ``grad * (1 - y*y)``; its derivatives
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

__all__ = ["SigmoidBackward", "TanhBackward"]

_make = Tensor._make


class TanhBackward(Function):
    """``grad * (1 - y*y)`` for ``y = tanh(x)`` (TanhBackwardBackward0)."""

    node_name = "TanhBackwardBackward0"
    saved_names = ("grad_output", "output")

    @staticmethod
    def forward(ctx, grad, y):
        ctx.save_for_backward(grad, y)
        g, r = grad._data, y._data
        one = r.dtype.type(1)
        with np.errstate(invalid="ignore", over="ignore"):
            return _make((g * (one - r * r)).astype(r.dtype, copy=False))

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
