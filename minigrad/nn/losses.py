"""More losses: ``F.l1_loss``, ``F.smooth_l1_loss``, ``F.huber_loss``, ``F.kl_div``.

* ``l1_loss`` is composed, as ATen composes it: ``(input - target).abs()``
  then the reduction (MeanBackward0 ← AbsBackward0 ← SubBackward0);
* ``smooth_l1_loss`` (SmoothL1LossBackward0) and ``huber_loss``
  (HuberLossBackward0) are primitives saving ``self``, ``target``, the
  reduction code (0 none, 1 mean, 2 sum) and ``beta``/``delta``.  Their
  gradient is a backward kernel of its own (SmoothL1LossBackwardBackward0,
  HuberLossBackwardBackward0), called as ``k(grad, self, target)`` for the
  input and ``k(grad, target, self)`` for the target, as derivatives.yaml
  writes them.

With d = input - target:

* smooth L1: ``0.5 d² / β`` where ``|d| < β``, else ``|d| - 0.5 β``
  (``β = 0`` is l1_loss); gradient ``clamp(d / β, -1, 1)``;
* Huber: ``0.5 d²`` where ``|d| < δ``, else ``δ (|d| - 0.5 δ)``; gradient
  ``clamp(d, -δ, δ)`` (Huber 1964); ``huber = β · smooth_l1`` for β = δ.

``kl_div(input, target)`` (input: log-probabilities) is composed as ATen
composes it: ``xlogy(target, target) - target * input`` (``exp(target) *
(target - input)`` with ``log_target=True``), then the reduction
('batchmean' is the sum divided by the batch size, in Python, as
``F.kl_div`` does).  ``xlogy(x, y) = x log y`` with 0 where x = 0
(XlogyBackward0) is a primitive of its own here (``Xlogy``; torch.xlogy).

Shapes: ``input`` and ``target`` of one shape (other shapes broadcast, with
PyTorch's UserWarning); float32 or float64.

Source: torch/nn/functional.py; ATen's Loss.cpp and PointwiseOpsKernel.cpp
(``smooth_l1_backward_cpu_kernel``, ``huber_backward_cpu_kernel``);
derivatives.yaml and FunctionsManual.cpp (``smooth_l1_loss_double_backward``,
``huber_loss_double_backward``).
"""

import warnings

import numpy as np

from .._dtype import SCALAR_TYPE_NAMES
from ..autograd.function import Function
from ..tensor import Tensor
from ._reduction import reduction_of

__all__ = ["huber_loss", "kl_div", "l1_loss", "smooth_l1_loss", "xlogy"]

_make = Tensor._make


def _reduce_array(values, code):
    """The reduction of the elementwise losses (0 none, 1 mean, 2 sum) in their dtype."""
    if code == 1:
        if not values.size:  # nan, as PyTorch's mean of nothing (numpy would warn)
            return np.asarray(np.nan, dtype=values.dtype)
        return np.asarray(values.mean(dtype=values.dtype))
    if code == 2:
        return np.asarray(values.sum(dtype=values.dtype))
    return values


def _broadcast(input, target, stacklevel=3):
    """Both to one shape, with PyTorch's warning when they differ (``F.l1_loss`` and friends)."""
    if input.shape == target.shape:
        return input, target
    from ..ops._util import broadcast_shape
    from .functional import _size

    warnings.warn(
        f"Using a target size ({_size(target.shape)}) that is different to the input size "
        f"({_size(input.shape)}). This will likely lead to incorrect results due to "
        "broadcasting. Please ensure they have the same size.", UserWarning, stacklevel=stacklevel)
    shape = broadcast_shape(input, target)
    # as broadcast_tensors: only a tensor whose shape grows is expanded (recorded)
    return tuple(t if t.shape == shape else t.expand(*shape) for t in (input, target))


class _PiecewiseLossBackward(Function):
    """The backward kernel of a piecewise loss, ``k(grad, self, target)``, as an op of its own."""

    saved_names = ("grad_output", "self", "target")
    _numpy_forward = True

    @classmethod
    def kernel(cls, grad, x, t, reduction, param):
        norm = x.dtype.type(1 / x.size if reduction == 1 else 1) if x.size else x.dtype.type(np.inf)
        d = x - t
        return np.asarray(cls._slope(d, x.dtype.type(param)) * norm * grad).astype(x.dtype, copy=False)

    @classmethod
    def _run(cls, ctx, grad, x, t, reduction, param):
        ctx.reduction = reduction
        setattr(ctx, cls.saved_attrs[1], param)
        ctx.save_for_backward(grad, x, t)
        return _make(cls.kernel(grad._data, x._data, t._data, reduction, param))

    @classmethod
    def _double(cls, g, x, t, reduction, param):
        """``∂k/∂self`` applied to ``g = gg * grad``: ``g (|d| < param) c / numel`` (recorded ops)."""
        inside = np.abs(x._data - t._data) < param
        out = g * _make(inside.astype(g._data.dtype)) * cls._curvature(param)
        return out / x._data.size if reduction == 1 else out

    @classmethod
    def _backward(cls, ctx, gg):
        grad, x, t = ctx.saved_tensors
        need = ctx.needs_input_grad
        param = getattr(ctx, cls.saved_attrs[1])
        d_grad = cls.apply(gg, x, t, ctx.reduction, param) if need[0] else None
        d_x = d_t = None
        if need[1] or need[2]:
            second = cls._double(gg * grad, x, t, ctx.reduction, param)
            d_x = second if need[1] else None
            d_t = -second if need[2] else None
        return d_grad, d_x, d_t, None, None


class SmoothL1LossGrad(_PiecewiseLossBackward):
    """``clamp(d / β, -1, 1) · grad`` (/ numel for the mean) (SmoothL1LossBackwardBackward0)."""

    node_name = "SmoothL1LossBackwardBackward0"
    saved_attrs = ("reduction", "beta")

    @staticmethod
    def _slope(d, beta):
        return np.where(d <= -beta, -1, np.where(d >= beta, 1, d / beta)).astype(d.dtype)

    @staticmethod
    def _curvature(beta):
        return 0.0 if beta == 0 else 1 / beta

    @staticmethod
    def forward(ctx, grad, x, t, reduction, beta):
        return SmoothL1LossGrad._run(ctx, grad, x, t, reduction, beta)

    @staticmethod
    def backward(ctx, gg):
        return SmoothL1LossGrad._backward(ctx, gg)


class HuberLossGrad(_PiecewiseLossBackward):
    """``clamp(d, -δ, δ) · grad`` (/ numel for the mean) (HuberLossBackwardBackward0)."""

    node_name = "HuberLossBackwardBackward0"
    saved_attrs = ("reduction", "delta")

    @staticmethod
    def _slope(d, delta):
        return np.where(d <= -delta, -delta, np.where(d >= delta, delta, d)).astype(d.dtype)

    @staticmethod
    def _curvature(delta):
        return 1.0

    @staticmethod
    def forward(ctx, grad, x, t, reduction, delta):
        return HuberLossGrad._run(ctx, grad, x, t, reduction, delta)

    @staticmethod
    def backward(ctx, gg):
        return HuberLossGrad._backward(ctx, gg)


class _PiecewiseLoss(Function):
    """A loss of d = input - target, elementwise then reduced; saves self, target, reduction, param."""

    saved_names = ("self", "target")
    _numpy_forward = True

    @classmethod
    def _run(cls, ctx, x, t, reduction, param):
        ctx.reduction = reduction
        setattr(ctx, cls.saved_attrs[1], param)
        ctx.save_for_backward(x, t)
        a = x._data
        z = np.abs(a - t._data)
        return _make(_reduce_array(cls._elementwise(z, a.dtype.type(param)).astype(a.dtype), reduction))

    @classmethod
    def _formula(cls, F, ctx, grad, x, t):
        param = getattr(ctx, cls.saved_attrs[1])
        need = ctx.needs_input_grad
        gx = F.call(cls._grad, grad, x, t, ctx.reduction, param) if need[0] else None
        gt = F.call(cls._grad, grad, t, x, ctx.reduction, param) if need[1] else None
        return gx, gt, None, None


class SmoothL1Loss(_PiecewiseLoss):
    """Smooth L1 loss with threshold β (SmoothL1LossBackward0)."""

    node_name = "SmoothL1LossBackward0"
    saved_attrs = ("reduction", "beta")
    _grad = SmoothL1LossGrad

    @staticmethod
    def _elementwise(z, beta):
        return np.where(z < beta, z.dtype.type(0.5) * z * z / beta, z - z.dtype.type(0.5) * beta)

    @staticmethod
    def forward(ctx, x, t, reduction, beta):
        return SmoothL1Loss._run(ctx, x, t, reduction, beta)

    @staticmethod
    def formula(F, ctx, grad, x, t):
        return SmoothL1Loss._formula(F, ctx, grad, x, t)


class HuberLoss(_PiecewiseLoss):
    """Huber loss with threshold δ (HuberLossBackward0)."""

    node_name = "HuberLossBackward0"
    saved_attrs = ("reduction", "delta")
    _grad = HuberLossGrad

    @staticmethod
    def _elementwise(z, delta):
        half = z.dtype.type(0.5)
        return np.where(z < delta, half * z * z, delta * (z - half * delta))

    @staticmethod
    def forward(ctx, x, t, reduction, delta):
        return HuberLoss._run(ctx, x, t, reduction, delta)

    @staticmethod
    def formula(F, ctx, grad, x, t):
        return HuberLoss._formula(F, ctx, grad, x, t)


def _float_kernel(input, target, kernel):
    kinds = (input._data.dtype.kind, target._data.dtype.kind)
    if "f" not in kinds:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{SCALAR_TYPE_NAMES[input._data.dtype.name]}\'')




def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Mean (or sum, or none) of absolute differences (``F.l1_loss``).

    Composed as ATen composes it: ``(input - target).abs()`` then ``mean()``
    / ``sum()``: MeanBackward0 ← AbsBackward0 ← SubBackward0.

    Raises:
        ValueError: "x is not a valid value for reduction".
        RuntimeError: "mean(): could not infer output dtype. ..." for integer
            tensors with the mean reduction (PyTorch's, from ``mean``).
    """
    from .functional import _reduction

    reduction = reduction_of(size_average, reduce, reduction)
    code = _reduction(reduction)
    input, target = _broadcast(input, target)
    loss = (input - target).abs()
    if code == 1:
        return loss.mean()
    return loss.sum() if code == 2 else loss


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Smooth L1 loss (``F.smooth_l1_loss``): quadratic below ``beta``, linear above; SmoothL1LossBackward0.

    Args:
        input, target (Tensor): one shape (or broadcastable, with a warning), floating.
        reduction: "mean" (default), "sum" or "none".
        beta (float): the threshold, >= 0; 0 gives ``l1_loss`` (and its nodes).

    Raises:
        RuntimeError: "smooth_l1_loss does not support negative values for beta.".
        NotImplementedError: '"smooth_l1_cpu" not implemented for 'Long''.
    """
    from .functional import _reduction

    reduction = reduction_of(size_average, reduce, reduction)
    code = _reduction(reduction)
    input, target = _broadcast(input, target)
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _float_kernel(input, target, "smooth_l1_cpu")
    return SmoothL1Loss.apply(input, target, code, float(beta))


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Huber loss (``F.huber_loss``): ``0.5 d²`` below ``delta``, ``δ(|d| - δ/2)`` above; HuberLossBackward0.

    Args:
        input, target (Tensor): one shape (or broadcastable, with a warning), floating.
        reduction: "mean" (default), "sum" or "none".
        delta (float): the threshold, > 0.
        weight: only None.

    Raises:
        RuntimeError: "huber_loss does not support non-positive values for delta.".
        NotImplementedError: for ``weight`` (not supported here).
    """
    from .functional import _reduction

    if weight is not None:
        raise NotImplementedError("minigrad: huber_loss does not support weight")
    code = _reduction(reduction)
    input, target = _broadcast(input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _float_kernel(input, target, "huber_cpu")
    return HuberLoss.apply(input, target, code, float(delta))


def _xlogy_array(x, y):
    """``x * log(y)``, 0 where ``x == 0`` and ``y`` is not nan (ATen's xlogy), on arrays."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((x == 0) & ~np.isnan(y), x.dtype.type(0), x * np.log(y))


class Xlogy(Function):
    """``xlogy(self, other)`` (XlogyBackward0); saves self and other.

    Gradients (derivatives.yaml): ``xlogy(grad, other)`` for self, 0 where
    self == 0 and other <= 0 (a select: PyTorch's masked_fill); ``grad * self
    / other`` for other.
    """

    node_name = "XlogyBackward0"
    saved_names = ("other", "self")  # PyTorch's order
    _numpy_forward = True

    @staticmethod
    def kernel(x, y):
        dt = np.result_type(x, y)
        return _xlogy_array(np.asarray(x, dtype=dt), np.asarray(y, dtype=dt))

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(y, x)
        return _make(np.asarray(Xlogy.kernel(x._data, y._data)))

    @staticmethod
    def formula(F, ctx, grad, y, x):
        need = ctx.needs_input_grad
        gx = gy = None
        if need[0]:
            xd, yd = F.data(x), F.data(y)
            keep = ~((xd == 0) & (yd <= 0))
            value = F.call(Xlogy, grad, y)
            gx = F.select(np.broadcast_to(keep, np.shape(F.data(value))), value)
        if need[1]:
            gy = grad * x / y
        return gx, gy


def xlogy(input, other):
    """``input * log(other)``, 0 where ``input == 0`` (``torch.xlogy``); XlogyBackward0.

    Args:
        input, other (Tensor | float): broadcastable; float results.
    """
    from ..ops._util import as_operand

    input, other = as_operand(input, "xlogy"), as_operand(other, "xlogy")
    return Xlogy.apply(input, other)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """Kullback-Leibler divergence of ``target`` from ``exp(input)`` (``F.kl_div``).

    Args:
        input (Tensor): log-probabilities, any shape, floating.
        target (Tensor): probabilities (log-probabilities with ``log_target=True``), broadcastable.
        reduction: "mean" (default: over every element, with PyTorch's
            UserWarning), "batchmean" (the sum over the batch size: the
            mathematical KL divergence), "sum" or "none".

    Returns:
        Tensor; nodes SubBackward0 ← XlogyBackward0, MulBackward0 (then the reduction).

    Raises:
        ValueError: "x is not a valid value for reduction".
    """
    from .functional import _reduction

    reduction = reduction_of(size_average, reduce, reduction)
    if reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size."
            "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
            "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
            UserWarning, stacklevel=2)
    code = 2 if reduction == "batchmean" else _reduction(reduction)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = Xlogy.apply(target, target) - target * input
    if code == 1:
        loss = loss.mean()
    elif code == 2:
        loss = loss.sum()
    if reduction == "batchmean" and input.ndim != 0:
        loss = loss / input.shape[0]
    return loss
