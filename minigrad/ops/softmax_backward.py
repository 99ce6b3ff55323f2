"""softmax's and log_softmax's backward as ops of their own, as PyTorch records them.

PyTorch computes the vector-Jacobian product of ``softmax`` and
``log_softmax`` with one kernel each (``_softmax_backward_data(grad, y, dim)``,
``_log_softmax_backward_data(grad, y, dim)``), and that kernel is itself
differentiable: a gradient taken with ``create_graph=True`` through
``log_softmax`` ends in ``LogSoftmaxBackwardDataBackward0``, whose edges lead
to the incoming gradient and to the saved result (``_saved_grad_output``,
``_saved_output``, ``_saved_dim``).  These two Functions are those kernels,
with PyTorch's double-backward formulas (``derivatives.yaml``), for ``y`` the
forward's result, ``g`` the incoming gradient, ``gg`` the gradient of the
kernel's output and ``Σ`` a sum over ``dim`` kept as a dim of size 1:

* ``_log_softmax_backward_data``: ``g - exp(y) Σ g``; its derivatives
  ``gg - Σ (gg exp(y))`` for g and ``-Σ g · exp(y) · gg`` for y;
* ``_softmax_backward_data``: ``y (g - Σ g y)``; its derivatives
  ``_softmax_backward_data(gg, y)`` for g and
  ``g gg - Σ (y g) · gg - g · Σ (y gg)`` for y (``softmax_double_backward``).

Shapes: ``grad`` and ``y`` have one shape and float dtype; ``d`` is a dim
of it, already made non-negative (a 0-d ``y`` is its own sum); the Functions
also take ``saved_dim``, the forward node's ``_saved_dim`` (what theirs shows).

Source: ATen's ``SoftMax.cpp`` kernels, ``tools/autograd/derivatives.yaml``
and ``FunctionsManual.cpp`` (``softmax_double_backward``).
"""

import numpy as np

from ..autograd.function import Function
from ..tensor import Tensor
from .elementwise import _math_exp, rounded_once

__all__ = ["LogSoftmaxBackwardData", "SoftmaxBackwardData", "log_softmax_backward_data",
           "softmax_backward_data"]

_make = Tensor._make


def _sum_kept(a, d):
    return a if not np.ndim(a) else np.sum(a, axis=d, keepdims=True)


def log_softmax_backward_data(grad, y, d):
    """``grad - exp(y) Σ_d grad`` on numpy arrays (exp as the Exp primitive computes it)."""
    return grad - rounded_once(np.exp, _math_exp, y) * _sum_kept(grad, d)


def softmax_backward_data(grad, y, d):
    """``y (grad - Σ_d grad y)`` on numpy arrays."""
    return y * (grad - _sum_kept(grad * y, d))


def _forward(ctx, kernel, grad, y, d, saved_dim):
    ctx.dim, ctx._d = saved_dim, d
    ctx.save_for_backward(grad, y)
    return _make(np.asarray(kernel(grad._data, y._data, d)))


class LogSoftmaxBackwardData(Function):
    """``_log_softmax_backward_data(grad, y, dim)`` (LogSoftmaxBackwardDataBackward0)."""

    node_name = "LogSoftmaxBackwardDataBackward0"
    saved_names = ("grad_output", "output")
    saved_attrs = ("dim",)

    @staticmethod
    def forward(ctx, grad, y, d, saved_dim):
        return _forward(ctx, log_softmax_backward_data, grad, y, d, saved_dim)

    @staticmethod
    def backward(ctx, gg):
        (grad, y), d, need = ctx.saved_tensors, ctx._d, ctx.needs_input_grad
        e = y.exp()
        d_grad = gg - (gg * e).sum(d, keepdim=True) if need[0] else None
        d_y = -grad.sum(d, keepdim=True) * e * gg if need[1] else None
        return d_grad, d_y, None, None


class SoftmaxBackwardData(Function):
    """``_softmax_backward_data(grad, y, dim)`` (SoftmaxBackwardDataBackward0)."""

    node_name = "SoftmaxBackwardDataBackward0"
    saved_names = ("grad_output", "output")
    saved_attrs = ("dim",)

    @staticmethod
    def forward(ctx, grad, y, d, saved_dim):
        return _forward(ctx, softmax_backward_data, grad, y, d, saved_dim)

    @staticmethod
    def backward(ctx, gg):
        (grad, y), d, need = ctx.saved_tensors, ctx._d, ctx.needs_input_grad
        d_grad = SoftmaxBackwardData.apply(gg, y, d, ctx.dim) if need[0] else None
        d_y = (grad * gg - (y * grad).sum(d, keepdim=True) * gg
               - grad * (y * gg).sum(d, keepdim=True)) if need[1] else None
        return d_grad, d_y, None, None
