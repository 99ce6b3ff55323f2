"""Batch normalization (``F.batch_norm``): one primitive, ``native_batch_norm``, as in PyTorch.

Each *channel* (dim 1 of an input (N, C) or (N, C, *)) is normalized over
the other dims, the m = N·L values it has in the batch, then scaled by
``weight`` and shifted by ``bias`` (one of each per channel):

    y = (x - μ) r · weight + bias,   r = 1 / √(σ² + eps)

In training, μ and σ² are the batch's (σ² biased), and the running
statistics, when given, move towards them in place:
``running_mean ← (1 - momentum) running_mean + momentum μ``, the same for
``running_var`` with the unbiased σ² m/(m - 1); PyTorch's kernel writes them
without moving their version.  In evaluation μ and σ² are the running ones.

The node is NativeBatchNormBackward0, with edges to input, weight and bias
(the running statistics get none), saving ``input``, ``weight``, the running
statistics, ``result1`` (μ) and ``result2`` (r) of the batch (empty in
evaluation), ``training`` and ``eps``.  Its gradient is one kernel with three
outputs (``native_batch_norm_backward``; with x̂ = (x - μ) r, sums and means
over a channel)::

    training:    grad_input = weight r (g - mean(g) - x̂ mean(g x̂))
    evaluation:  grad_input = weight r g
    grad_weight = Σ g x̂,   grad_bias = Σ g

That kernel is an op of its own (NativeBatchNormBackwardBackward0, edges to
grad_out, input, weight, save_mean and save_invstd), so a second derivative is
recorded as in PyTorch; its derivatives below recompute μ and r from the input
with recorded ops, so a third one is right too.

Dtypes: float32 or float64, all inputs the same; the statistics are summed in
float64 (ATen's accumulate type on the CPU).

Source: torch/nn/functional.py (``batch_norm``); ATen's Normalization.cpp and
its CPU kernel (batch_norm_kernel.cpp); derivatives.yaml
(``native_batch_norm``, ``native_batch_norm_backward``); Ioffe & Szegedy
2015, "Batch Normalization", arXiv:1502.03167.
"""

import math

import numpy as np

from .._dtype import SCALAR_TYPE_NAMES
from ..autograd.function import Function
from ..tensor import Tensor
from .normalization import UNDEFINED, _defined

__all__ = ["batch_norm"]

_make = Tensor._make


def _channel_shape(a):
    """(1, C, 1, ...): a per-channel vector broadcast against ``a``."""
    return (1, a.shape[1]) + (1,) * (a.ndim - 2)


def _other_axes(ndim):
    return (0,) + tuple(range(2, ndim))


class NativeBatchNorm(Function):
    """``native_batch_norm(input, weight, bias, (running_mean, running_var), training,
    momentum, eps)`` (NativeBatchNormBackward0); the running statistics come as one
    tuple, as they get no edge."""

    node_name = "NativeBatchNormBackward0"
    saved_names = ("input", "weight", "result1", "result2")
    saved_attrs = ("running_mean", "running_var", "training", "eps")
    _numpy_forward = True

    @staticmethod
    def forward(ctx, x, weight, bias, running, training, momentum, eps):
        weight, bias = _defined(weight), _defined(bias)
        running_mean, running_var = running
        a = x._data
        dt = a.dtype
        axes, shape = _other_axes(a.ndim), _channel_shape(a)
        if training:
            m = a.size // a.shape[1] if a.shape[1] else 0
            mean = a.mean(axis=axes, dtype=np.float64)
            var = np.square(a - mean.reshape(shape), dtype=np.float64).sum(axis=axes) / m
            invstd = 1.0 / np.sqrt(var + eps)
            if running_mean is not None:  # written in place, the version left as it is
                rm, rv = running_mean._data, running_var._data
                rm[...] = (1 - momentum) * rm + momentum * mean
                rv[...] = (1 - momentum) * rv + momentum * var * (m / (m - 1) if m > 1 else math.inf)
            saved = (_make(mean.astype(dt)), _make(invstd.astype(dt)))
        else:
            mean = running_mean._data.astype(np.float64)
            invstd = 1.0 / np.sqrt(running_var._data.astype(np.float64) + eps)
            saved = (_make(np.zeros(0, dt)), _make(np.zeros(0, dt)))
        alpha = invstd if weight is None else invstd * weight._data
        beta = -mean * alpha if bias is None else bias._data - mean * alpha
        out = a * alpha.astype(dt).reshape(shape) + beta.astype(dt).reshape(shape)
        ctx.running_mean, ctx.running_var, ctx.training, ctx.eps = running_mean, running_var, training, eps
        ctx.save_for_backward(x, weight, *saved)
        return _make(np.asarray(out, dtype=dt))

    @staticmethod
    def formula(F, ctx, grad, x, weight, save_mean, save_invstd):
        w = weight
        if F.records:  # the op takes an edge for the weight, defined or not
            w = UNDEFINED if weight is None else weight
        gx, gw, gb = F.call(NativeBatchNormGrad, grad, x, w, (ctx.running_mean, ctx.running_var),
                            save_mean, save_invstd, ctx.training, ctx.eps)
        need = ctx.needs_input_grad
        return (gx if need[0] else None, gw if need[1] else None, gb if need[2] else None,
                None, None, None, None)


class NativeBatchNormGrad(Function):
    """``native_batch_norm_backward``: (grad_input, grad_weight, grad_bias) as one op.

    Node NativeBatchNormBackwardBackward0; edges to grad_out, input, weight,
    save_mean and save_invstd; saves those and the running statistics, ``train``
    and ``eps``.
    """

    node_name = "NativeBatchNormBackwardBackward0"
    saved_names = ("grad_out", "input", "weight", "save_mean", "save_invstd")
    saved_attrs = ("running_mean", "running_var", "train", "eps")
    _numpy_forward = True

    @staticmethod
    def kernel(dy, x, weight, running, save_mean, save_invstd, train, eps):
        """The three gradients on numpy arrays, in the arithmetic of ATen's CPU kernel."""
        dt = x.dtype
        axes, shape = _other_axes(x.ndim), _channel_shape(x)
        if train:
            mean, invstd = save_mean.astype(np.float64), save_invstd.astype(np.float64)
        else:
            mean = running[0]._data.astype(np.float64)
            invstd = 1.0 / np.sqrt(running[1]._data.astype(np.float64) + eps)
        dy = np.broadcast_to(dy, x.shape)
        centred = x - mean.reshape(shape)
        total = dy.sum(axis=axes, dtype=np.float64)
        dotp = (centred * dy).sum(axis=axes, dtype=np.float64)
        w = 1.0 if weight is None else weight.astype(np.float64)
        if train:
            m = x.size // x.shape[1] if x.shape[1] else 1
            k = (dotp * invstd * invstd / m).reshape(shape)
            gx = (dy - (total / m).reshape(shape) - centred * k) * (invstd * w).reshape(shape)
        else:
            gx = dy * (invstd * w).reshape(shape)
        return (np.asarray(gx, dtype=dt), np.asarray(dotp * invstd, dtype=dt),
                np.asarray(total, dtype=dt))

    @staticmethod
    def forward(ctx, dy, x, weight, running, save_mean, save_invstd, train, eps):
        weight = _defined(weight)
        ctx.running_mean, ctx.running_var = running
        ctx.train, ctx.eps = train, eps
        ctx.save_for_backward(dy, x, weight, save_mean, save_invstd)
        w = None if weight is None else weight._data
        outs = NativeBatchNormGrad.kernel(dy._data, x._data, w, running, save_mean._data,
                                          save_invstd._data, train, eps)
        return tuple(_make(o) for o in outs)

    @staticmethod
    def backward(ctx, ggx, ggw, ggb):
        dy, x, weight, _mean, _invstd = ctx.saved_tensors
        need = ctx.needs_input_grad
        axes, shape = _other_axes(x.ndim), _channel_shape(x._data)
        per_channel = (lambda v: v.reshape(shape))  # noqa: E731 (a (C,) vector against x)
        if ctx.train:  # the batch statistics again, recorded, so a third derivative sees them
            mu = x.mean(axes, keepdim=True)
            xc = x - mu
            r = ((xc * xc).mean(axes, keepdim=True) + ctx.eps).pow(-0.5)
        else:
            mu = per_channel(ctx.running_mean.detach())
            xc = x - mu
            r = per_channel((ctx.running_var.detach() + ctx.eps).pow(-0.5))
        x_hat = xc * r
        w = None if weight is None else per_channel(weight)
        m = x._data.size // x.shape[1]

        def P(v):  # the training kernel's linear map (symmetric); identity in evaluation
            if not ctx.train:
                return v
            return v - v.mean(axes, keepdim=True) - x_hat * (v * x_hat).mean(axes, keepdim=True)

        def scaled(v):
            return v if w is None else v * w

        dy = dy.expand(*x.shape) if dy.shape != x.shape else dy
        d_dy = d_x = d_w = None
        if ggx is not None:
            if need[0]:
                d_dy = scaled(r * P(ggx))
            if need[2] and weight is not None:
                d_w = (ggx * r * P(dy)).sum(axes)
            if need[1] and ctx.train:
                gx = scaled(r * P(dy))
                g = scaled(dy)
                mean_gx = (g * x_hat).mean(axes, keepdim=True)
                d_x = (-(r * r) * mean_gx * P(ggx)
                       - (r / m) * (x_hat * (ggx * gx).sum(axes, keepdim=True)
                                    + gx * (ggx * x_hat).sum(axes, keepdim=True)))
        if ggw is not None:
            ggw_c = per_channel(ggw)
            if need[0]:
                d_dy = _acc(d_dy, ggw_c * x_hat)
            if need[1]:
                d_x = _acc(d_x, r * P(ggw_c * dy))
        if ggb is not None and need[0]:
            d_dy = _acc(d_dy, per_channel(ggb).expand(*x.shape))
        return d_dy, d_x, d_w, None, None, None, None, None


def _acc(a, b):
    return b if a is None else a + b


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalize each channel over the batch, then scale and shift (``F.batch_norm``).

    Args:
        input (Tensor): (N, C) or (N, C, *), float32 or float64.
        running_mean, running_var (Tensor | None): (C,), updated in place in training.
        weight, bias (Tensor | None): (C,).
        training (bool): use the batch's statistics (and update the running ones).
        momentum (float), eps (float): as above.

    Returns:
        Tensor of ``input``'s shape (NativeBatchNormBackward0).

    Raises:
        ValueError: "Expected more than 1 value per channel when training, got
            input size torch.Size([1, 3])".
        RuntimeError: "running_mean must be defined in evaluation mode";
            "weight should contain 3 elements not 4" (and the same for bias,
            running_mean, running_var); "mixed dtype (CPU): all inputs must
            share same datatype.".
        NotImplementedError: '"batch_norm" not implemented for 'Long''.
    """
    if training:
        size = input.shape
        values = size[0] if len(size) else 1
        for s in size[2:]:
            values *= s
        if values == 1:
            raise ValueError("Expected more than 1 value per channel when training, got input "
                             f"size {size!r}".replace("minigrad.Size", "torch.Size"))
    channels = input.shape[1] if input.ndim > 1 else 1
    # ATen's order: each running statistic (defined, or refused in evaluation), then weight, bias
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if t is None:
            if not training and name.startswith("running"):
                raise RuntimeError(f"{name} must be defined in evaluation mode")
        elif t.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f'"batch_norm" not implemented for '
                                  f"'{SCALAR_TYPE_NAMES[input._data.dtype.name]}'")
    if any(t is not None and t._data.dtype != input._data.dtype
           for t in (weight, bias, running_mean, running_var)):
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    return NativeBatchNorm.apply(input, UNDEFINED if weight is None else weight,
                                 UNDEFINED if bias is None else bias,
                                 (running_mean, running_var), bool(training), momentum, eps)
