"""Layer normalization (``F.layer_norm``): one primitive, ``native_layer_norm``, as in PyTorch.

Each *row* (the elements of the last ``len(normalized_shape)`` dims, N of
them) is shifted to mean 0 and scaled to variance 1, then multiplied by
``weight`` and shifted by ``bias`` (per element of ``normalized_shape``):

    μ = mean(x),  r = 1 / √(var(x) + eps)   (biased variance, over the row)
    y = (x - μ) r · weight + bias

The node is NativeLayerNormBackward0 with edges to input, weight and bias,
saving ``input``, ``normalized_shape``, ``weight``, ``bias`` and the row
statistics ``result1`` (μ) and ``result2`` (r), shape ``(*, 1, ..., 1)``.
Its gradient is one kernel with three outputs (``native_layer_norm_backward``;
with x̂ = (x - μ) r and g = grad · weight)::

    grad_input  = r (g - mean(g) - x̂ mean(g x̂))
    grad_weight = Σ_rows grad x̂,   grad_bias = Σ_rows grad

and that kernel is an op of its own (NativeLayerNormBackwardBackward0, with
edges to grad_out, input, mean, rstd, weight and bias), so a second
derivative is recorded as in PyTorch.  Its derivatives are written below
with P(v) = v - mean(v) - x̂ mean(v x̂) (the kernel's linear map, symmetric).
They recompute μ and r from the input with recorded ops, so a *third*
derivative is right too (PyTorch's treats μ and r as constants there, and
``gradgradcheck`` of its second derivative fails: a difference by design).

Dtypes: float32 or float64, input, weight and bias all the same.

Source: torch/nn/functional.py (``layer_norm``); ATen's layer_norm.cpp and
its CPU kernel (layer_norm_kernel.cpp); derivatives.yaml
(``native_layer_norm``, ``native_layer_norm_backward``); Ba, Kiros &
Hinton 2016, "Layer Normalization", arXiv:1607.06450.
"""

import numpy as np

from .._dtype import SCALAR_TYPE_NAMES
from ..autograd.function import Function
from ..tensor import Tensor

__all__ = ["layer_norm"]

_make = Tensor._make


# An absent weight or bias: PyTorch's undefined tensor, which still takes an
# edge, (None, 0) in next_functions.  Passed to apply in its place.
UNDEFINED = _make(np.zeros(0, dtype=np.float32))


def _defined(t):
    return None if t is None or t is UNDEFINED else t


def _row_axes(x, normalized_shape):
    return tuple(range(x.ndim - len(normalized_shape), x.ndim))


class NativeLayerNorm(Function):
    """``native_layer_norm(input, normalized_shape, weight, bias, eps)`` (NativeLayerNormBackward0)."""

    node_name = "NativeLayerNormBackward0"
    saved_names = ("input", "weight", "bias", "result1", "result2")
    saved_attrs = ("normalized_shape",)
    _numpy_forward = True

    @staticmethod
    def forward(ctx, x, normalized_shape, weight, bias, eps):
        weight, bias = _defined(weight), _defined(bias)
        a = x._data
        f = a.dtype.type
        axes = _row_axes(a, normalized_shape)
        n = int(np.prod(normalized_shape))
        mean = a.mean(axis=axes, keepdims=True, dtype=a.dtype) if n else np.zeros(
            a.shape[:a.ndim - len(axes)] + (1,) * len(axes), a.dtype)
        centred = a - mean
        var = (centred * centred).mean(axis=axes, keepdims=True, dtype=a.dtype) if n else mean
        rstd = (f(1) / np.sqrt(var + f(eps))).astype(a.dtype)
        out = a * rstd + (-rstd * mean)
        if weight is not None:
            out = out * weight._data
        if bias is not None:
            out = out + bias._data
        ctx.normalized_shape = tuple(normalized_shape)
        ctx.eps = eps
        ctx.save_for_backward(x, weight, bias, _make(mean), _make(rstd))
        return _make(np.asarray(out, dtype=a.dtype))

    @staticmethod
    def formula(F, ctx, grad, x, weight, bias, mean, rstd):
        w, b = weight, bias
        if F.records:  # the op takes an edge for each, defined or not
            w, b = (UNDEFINED if t is None else t for t in (weight, bias))
        gx, gw, gb = F.call(NativeLayerNormGrad, grad, x, mean, rstd, w, b, ctx.normalized_shape,
                            ctx.eps)
        need = ctx.needs_input_grad
        return (gx if need[0] else None, None, gw if weight is not None and need[2] else None,
                gb if bias is not None and need[3] else None, None)


class NativeLayerNormGrad(Function):
    """``native_layer_norm_backward``: (grad_input, grad_weight, grad_bias) as one op.

    Node NativeLayerNormBackwardBackward0; saves grad_out, input, mean, rstd,
    weight and normalized_shape (``bias`` is an argument, and an edge, but
    nothing of it is needed).
    """

    node_name = "NativeLayerNormBackwardBackward0"
    saved_names = ("grad_out", "input", "mean", "rstd", "weight")
    saved_attrs = ("normalized_shape",)
    _numpy_forward = True

    @staticmethod
    def kernel(dy, x, mean, rstd, weight, bias, normalized_shape, eps):
        """The three gradients on numpy arrays, in the arithmetic of ATen's CPU kernel."""
        axes = _row_axes(x, normalized_shape)
        lead = tuple(range(x.ndim - len(axes)))
        dt = x.dtype
        n = int(np.prod(normalized_shape))
        dy = np.broadcast_to(dy, x.shape)
        g = dy if weight is None else dy * weight
        scale = dt.type(1 / n) if n else dt.type(0)
        ds = (g * x).sum(axis=axes, keepdims=True, dtype=dt)
        db = g.sum(axis=axes, keepdims=True, dtype=dt)
        b = (db * mean - ds) * rstd * rstd * rstd * scale
        c = -b * mean - db * rstd * scale
        gx = rstd * g + b * x + c
        x_hat = (x - mean) * rstd
        gw = (dy * x_hat).sum(axis=lead, dtype=dt) if lead else dy * x_hat
        gb = dy.sum(axis=lead, dtype=dt) if lead else np.array(dy, dtype=dt)
        return tuple(np.asarray(v, dtype=dt) for v in (gx, gw, gb))

    @staticmethod
    def forward(ctx, dy, x, mean, rstd, weight, bias, normalized_shape, eps):
        weight = _defined(weight)
        ctx.normalized_shape, ctx.eps = tuple(normalized_shape), eps
        ctx.save_for_backward(dy, x, mean, rstd, weight)
        w = None if weight is None else weight._data
        outs = NativeLayerNormGrad.kernel(dy._data, x._data, mean._data, rstd._data, w, None,
                                          normalized_shape, eps)
        return tuple(_make(o) for o in outs)

    @staticmethod
    def backward(ctx, ggx, ggw, ggb):
        dy, x, _mean, _rstd, weight = ctx.saved_tensors
        need = ctx.needs_input_grad
        axes = _row_axes(x._data, ctx.normalized_shape)
        lead = tuple(range(x.ndim - len(axes)))
        # the row statistics again, recorded, so a third derivative sees them depend on x
        mu = x.mean(axes, keepdim=True)
        xc = x - mu
        r = ((xc * xc).mean(axes, keepdim=True) + ctx.eps).pow(-0.5)
        x_hat = xc * r

        def P(v):
            return v - v.mean(axes, keepdim=True) - x_hat * (v * x_hat).mean(axes, keepdim=True)

        def rows_sum(v):
            return v.sum(lead) if lead else v

        dy = dy.expand(*x.shape) if dy.shape != x.shape else dy
        g = dy if weight is None else dy * weight
        d_dy = d_x = d_w = None
        n = int(np.prod(ctx.normalized_shape))
        if ggx is not None:
            d_g = r * P(ggx)  # the vjp of grad_input with respect to g = dy * weight
            if need[0]:
                d_dy = d_g if weight is None else d_g * weight
            if need[4] and weight is not None:
                d_w = rows_sum(dy * d_g)
            if need[1]:
                gx = r * P(g)
                m = (g * x_hat).mean(axes, keepdim=True)
                d_x = (-(r * r) * m * P(ggx)
                       - (r / n) * (x_hat * (ggx * gx).sum(axes, keepdim=True)
                                    + gx * (ggx * x_hat).sum(axes, keepdim=True)))
        if ggw is not None:
            if need[0]:
                d_dy = _acc(d_dy, ggw * x_hat)
            if need[1]:
                d_x = _acc(d_x, r * P(ggw * dy))
        if ggb is not None and need[0]:
            d_dy = _acc(d_dy, ggb.expand(*x.shape))
        return d_dy, d_x, None, None, d_w, None, None, None


def _acc(a, b):
    return b if a is None else a + b


def _shape_str(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalize each row over the last dims, then scale and shift (``F.layer_norm``).

    Args:
        input (Tensor): (*, *normalized_shape), float32 or float64.
        normalized_shape (tuple[int, ...] | list[int]): the trailing shape normalized over.
        weight, bias (Tensor | None): of ``normalized_shape``, ``input``'s dtype.
        eps (float): added to the variance (default 1e-5).

    Returns:
        Tensor of ``input``'s shape (NativeLayerNormBackward0).

    Raises:
        TypeError: "layer_norm(): argument 'normalized_shape' (position 2) must
            be tuple of ints, not int".
        RuntimeError: "Given normalized_shape=[2], expected input with shape
            [*, 2], but got input of size[2, 3]"; "Expected weight to be of
            same shape as normalized_shape, but got weight of shape [2] and
            normalized_shape = [3]"; "mixed dtype (CPU): all inputs must share
            same datatype.".
        NotImplementedError: '"LayerNormKernelImpl" not implemented for 'Long''.
    """
    if isinstance(normalized_shape, int) or not all(isinstance(s, int) for s in normalized_shape):
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple of "
                        f"ints, not {type(normalized_shape).__name__}")
    normalized_shape = tuple(normalized_shape)
    k = len(normalized_shape)
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and tuple(p.shape) != normalized_shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got "
                               f"{name} of shape {_shape_str(p.shape)} and normalized_shape = "
                               f"{_shape_str(normalized_shape)}")
    if input.ndim < k or tuple(input.shape[input.ndim - k:]) != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={_shape_str(normalized_shape)}, expected input "
                           f"with shape [*, {', '.join(str(s) for s in normalized_shape)}], but got "
                           f"input of size{_shape_str(input.shape)}")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f'"LayerNormKernelImpl" not implemented for '
                                  f"'{SCALAR_TYPE_NAMES[input._data.dtype.name]}'")
    if any(p is not None and p._data.dtype != input._data.dtype for p in (weight, bias)):
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    return NativeLayerNorm.apply(input, normalized_shape, UNDEFINED if weight is None else weight,
                                 UNDEFINED if bias is None else bias, eps)
