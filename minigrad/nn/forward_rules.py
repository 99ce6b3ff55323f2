"""Forward-mode rules (JVPs) of the primitives in ``minigrad.nn``: activations, losses, pad, layer_norm,
batch_norm, embedding.

Each rule is ``rule(args, out, tangents)`` as in ``autograd/forward_rules.py``,
whose table of rules this module adds to when it loads (``register_rule_builder``:
forward mode sits below nn).  The
activations are elementwise, so their tangent is their backward kernel
applied to the tangent (derivatives.yaml's ``result: auto_element_wise``):
``leaky_relu_backward(ẋ, x, slope)``, ``gelu_backward(ẋ, x)``, ...  The
backward kernels are linear in the gradient and nonlinear in ``self``:
``k(ġ, x) + ∂k/∂x ẋ``, the second term being the double-backward formula
(``gelu_double_backward(ẋ, g, x)``, ...), as derivatives.yaml writes them.

Source: the ``result:`` formulas of PyTorch's tools/autograd/derivatives.yaml.
"""

import numpy as np

from ..autograd.forward_rules import _linear, _plus, register_rule_builder
from ..tensor import Tensor
from ..creation import ones_like
from . import activations as A
from . import activations_backward as B
from . import batchnorm as BN
from . import functional as F
from . import losses as L
from . import normalization as N
from . import padding as P
from . import sparse as S

__all__ = ["build_nn_rules"]


def build_nn_rules(r):
    """Add the rules of ``minigrad.nn``'s primitives to the table ``r``."""
    def kernel_of(kernel, *, result=False, extra=()):
        # ẏ = k(ẋ, x or y, *params): the backward kernel on the tangent
        def rule(args, out, t):
            if t[0] is None:
                return None
            return kernel.apply(t[0], out if result else args[0], *args[1:], *extra)

        return rule

    r[A.LeakyRelu] = kernel_of(B.LeakyReluBackward)
    r[A.LeakyReluResult] = kernel_of(B.LeakyReluBackward, result=True)
    r[A.Gelu] = kernel_of(B.GeluBackward)
    r[A.Softplus] = kernel_of(B.SoftplusBackward)
    r[A.Elu] = kernel_of(B.EluBackward)
    r[A.EluResult] = kernel_of(B.EluBackward, result=True, extra=(True,))
    r[A.Hardtanh] = kernel_of(B.HardtanhBackward)

    def silu(args, out, t):
        x, tx = args[0], t[0]
        s = x.sigmoid()
        return tx * s * (1 + x * (1 - s))

    r[A.Silu] = silu

    def linear_in_grad(kernel, second=None):
        # d k(g, x) = k(ġ, x) + (∂k/∂x) ẋ
        def rule(args, out, t):
            g, x, *params = args
            dg = None if t[0] is None else kernel.apply(t[0], x, *params)
            dx = None if t[1] is None or second is None else second(t[1], g, x, *params)
            return _plus(dg, dx)

        return rule

    r[B.LeakyReluBackward] = linear_in_grad(B.LeakyReluBackward)
    r[B.HardtanhBackward] = linear_in_grad(B.HardtanhBackward)
    r[B.GeluBackward] = linear_in_grad(B.GeluBackward, B.gelu_double_backward)
    r[B.SoftplusBackward] = linear_in_grad(
        B.SoftplusBackward, lambda tx, g, x, beta, threshold: B.softplus_double_backward(
            tx * g, x, beta, threshold))
    r[B.EluBackward] = linear_in_grad(B.EluBackward, B.elu_double_backward)

    # linear: the tangent padded with zeros (the fill value is a constant)
    r[P.ConstantPadNd] = lambda args, out, t: None if t[0] is None else P.ConstantPadNd.apply(
        t[0], args[1], 0)

    # linear in the weight (the lookup) and in the gradient (the scatter)
    r[S.Embedding] = lambda args, out, t: None if t[0] is None else S.Embedding.apply(t[0], *args[1:])
    r[S.EmbeddingDenseBackward] = lambda args, out, t: None if t[0] is None else (
        S.EmbeddingDenseBackward.apply(t[0], *args[1:]))
    _build_piecewise_loss_rules(r)
    _build_functional_loss_rules(r)
    build_layer_norm_rules(r)
    build_batch_norm_rules(r)


def _build_piecewise_loss_rules(r):
    """The piecewise losses (losses.py): ẏ = reduce(k'(d) (ẋ - ṫ)), and their backward kernels."""
    def d_of(x, t, tx, tt):
        if tt is None:
            return tx
        return -tt if tx is None else tx - tt

    def loss(grad_cls):
        def rule(args, out, t):
            x, tgt, code, param = args
            slope = grad_cls.apply(ones_like(x), x, tgt, 0, param)
            term = slope * d_of(x, tgt, t[0], t[1])
            if code == 1:
                return term.mean()
            return term.sum() if code == 2 else term

        return rule

    def kernel(grad_cls):
        # d k(g, x, t) = k(ġ, x, t) + ∂k/∂x (ẋ - ṫ) g
        def rule(args, out, t):
            g, x, tgt, code, param = args
            dg = None if t[0] is None else grad_cls.apply(t[0], x, tgt, code, param)
            dd = d_of(x, tgt, t[1], t[2])
            dx = None if dd is None else grad_cls._double(g * dd, x, tgt, code, param)
            return _plus(dg, dx)

        return rule

    def xlogy(args, out, t):
        # ẋ log y (0 where x = 0 and y <= 0) + ẏ x / y
        x, y = args
        dx = None
        if t[0] is not None:
            keep = ~((x._data == 0) & (y._data <= 0))
            dx = L.Xlogy.apply(t[0], y) * Tensor._make(keep.astype(t[0]._data.dtype))
        return _plus(dx, None if t[1] is None else t[1] * x / y)

    r[L.Xlogy] = xlogy
    r[L.SmoothL1Loss] = loss(L.SmoothL1LossGrad)
    r[L.HuberLoss] = loss(L.HuberLossGrad)
    r[L.SmoothL1LossGrad] = kernel(L.SmoothL1LossGrad)
    r[L.HuberLossGrad] = kernel(L.HuberLossGrad)


def _layer_norm_parts(x, normalized_shape, eps):
    """x̂, r and P (see normalization.py), recomputed with recorded ops."""
    axes = tuple(range(x.ndim - len(normalized_shape), x.ndim))
    mu = x.mean(axes, keepdim=True)
    xc = x - mu
    r = ((xc * xc).mean(axes, keepdim=True) + eps).pow(-0.5)
    x_hat = xc * r

    def P(v):
        return v - v.mean(axes, keepdim=True) - x_hat * (v * x_hat).mean(axes, keepdim=True)

    return axes, x_hat, r, P


def build_layer_norm_rules(r):
    """JVPs of native_layer_norm and of its backward kernel (three outputs)."""
    def layer_norm(args, out, t):
        x, shape, w, b, eps = args
        w, b = N._defined(w), N._defined(b)
        _, x_hat, rs, P = _layer_norm_parts(x, shape, eps)
        term = None
        if t[0] is not None:
            term = rs * P(t[0])
            term = term if w is None else term * w
        if w is not None and t[2] is not None:
            term = _plus(term, x_hat * t[2])
        if b is not None and t[3] is not None:
            term = _plus(term, t[3].expand(*x.shape))
        return term

    def layer_norm_grad(args, out, t):
        dy, x, _mean, _rstd, w, _b, shape, eps = args
        w = N._defined(w)
        axes, x_hat, rs, P = _layer_norm_parts(x, shape, eps)
        lead = tuple(range(x.ndim - len(axes)))
        n = 1
        for s in shape:
            n *= s

        def rows(v):
            return v.sum(lead) if lead else v

        def lin(v):  # the kernel applied to a gradient v (linear in it)
            g = v if w is None else v * w
            return rs * P(g), rows(v * x_hat), rows(v)

        dy = dy.expand(*x.shape) if dy.shape != x.shape else dy
        parts = []
        if t[0] is not None:
            parts.append(lin(t[0].expand(*x.shape) if t[0].shape != x.shape else t[0]))
        if t[1] is not None:
            tx = t[1]
            g = dy if w is None else dy * w
            gx = rs * P(g)
            m = (g * x_hat).mean(axes, keepdim=True)
            d_gx = (-(rs * rs) * m * P(tx)
                    - (rs / n) * (x_hat * (tx * gx).sum(axes, keepdim=True)
                                  + gx * (tx * x_hat).sum(axes, keepdim=True)))
            parts.append((d_gx, rows(dy * rs * P(tx)), None))
        if w is not None and len(t) > 4 and t[4] is not None:
            parts.append((rs * P(dy * t[4]), None, None))
        return _sum_parts(parts)

    r[N.NativeLayerNorm] = layer_norm
    r[N.NativeLayerNormGrad] = layer_norm_grad


def _sum_parts(parts):
    """The three tangents of a backward kernel: the sum of each term's (None: no term)."""
    total = [None, None, None]
    for p in parts:
        total = [_plus(a, b) for a, b in zip(total, p)]
    return tuple(total)


def _batch_norm_parts(x, running, train, eps):
    """The other axes, the channel shape, x̂, r and P (see batchnorm.py), with recorded ops."""
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    if train:
        mu = x.mean(axes, keepdim=True)
        r = ((x - mu) * (x - mu)).mean(axes, keepdim=True).add(eps).pow(-0.5)
    else:
        mu = running[0].detach().reshape(shape)
        r = (running[1].detach() + eps).pow(-0.5).reshape(shape)
    x_hat = (x - mu) * r

    def P(v):  # the training kernel's linear map; the identity in evaluation
        if not train:
            return v
        return v - v.mean(axes, keepdim=True) - x_hat * (v * x_hat).mean(axes, keepdim=True)

    return axes, shape, x_hat, r, P


def build_batch_norm_rules(r):
    """JVPs of native_batch_norm and of its backward kernel (three outputs)."""
    def batch_norm(args, out, t):
        x, w, b, running, train, _momentum, eps = args
        w, b = N._defined(w), N._defined(b)
        _, shape, x_hat, rs, P = _batch_norm_parts(x, running, train, eps)
        term = None
        if t[0] is not None:
            term = rs * P(t[0])
            term = term if w is None else term * w.reshape(shape)
        if w is not None and t[1] is not None:
            term = _plus(term, x_hat * t[1].reshape(shape))
        if b is not None and t[2] is not None:
            term = _plus(term, t[2].reshape(shape).expand(*x.shape))
        return term

    def batch_norm_grad(args, out, t):
        dy, x, w, running, _mean, _invstd, train, eps = args
        w = N._defined(w)
        axes, shape, x_hat, rs, P = _batch_norm_parts(x, running, train, eps)
        wc = None if w is None else w.reshape(shape)
        dy = dy.expand(*x.shape) if dy.shape != x.shape else dy

        def scaled(v):
            return v if wc is None else v * wc

        parts = []
        if t[0] is not None:  # linear in the gradient
            v = t[0].expand(*x.shape) if t[0].shape != x.shape else t[0]
            parts.append((scaled(rs * P(v)), (v * x_hat).sum(axes), v.sum(axes)))
        if t[1] is not None:
            tx = t[1]
            d_gx = None
            if train:
                g = scaled(dy)
                gx = rs * P(g)
                m = x._data.size // x.shape[1]
                mean_gx = (g * x_hat).mean(axes, keepdim=True)
                d_gx = (-(rs * rs) * mean_gx * P(tx)
                        - (rs / m) * (x_hat * (tx * gx).sum(axes, keepdim=True)
                                      + gx * (tx * x_hat).sum(axes, keepdim=True)))
            parts.append((d_gx, (dy * rs * P(tx)).sum(axes), None))
        if w is not None and t[2] is not None:
            parts.append((rs * P(dy) * t[2].reshape(shape), None, None))
        return _sum_parts(parts)

    r[BN.NativeBatchNorm] = batch_norm
    r[BN.NativeBatchNormGrad] = batch_norm_grad


def _build_functional_loss_rules(r):
    """JVPs of the losses in minigrad.nn.functional (MSE, NLL, BCE and their backward kernels)."""

    def reduce(values, code):
        if code == 1:
            return values.mean()
        if code == 2:
            return values.sum()
        return values

    def mse(args, out, t):
        x, y, code = args
        d = _plus(t[0], None if t[1] is None else -t[1])
        return reduce(2 * (x - y) * d, code)

    r[F.MseLoss] = mse
    r[F.NllLoss] = _linear(F.NllLoss)  # linear in the log-probabilities

    def nll_loss_grad(args, out, t):
        # linear in the incoming gradient; the input only gives the shape
        g, x, rows, cols, coef, batched_none = args
        return None if t[0] is None else F.NllLossGrad.apply(t[0], x, rows, cols, coef, batched_none)

    r[F.NllLossGrad] = nll_loss_grad

    def bce(args, out, t):
        p, y, code = args
        term = None
        if t[0] is not None:
            term = t[0] * (p - y) / ((1 - p) * p).clamp(min=1e-12)
        if t[1] is not None:
            with np.errstate(divide="ignore"):
                term = _plus(term, t[1] * ((1 - p).log().clamp(min=-100)
                                           - p.log().clamp(min=-100)))
        return reduce(term, code)

    r[F.BinaryCrossEntropy] = bce

    def bce_grad(args, out, t):
        # the partial derivatives its backward uses, applied to the tangents
        g, p, y, code = args
        scale = 1.0 / p._data.size if code == 1 else 1.0
        eps = F._EPS
        inner = (p + eps) * (1 - p + eps)
        term = None
        if t[0] is not None:
            term = t[0] * (p - y) / inner * scale
        if t[1] is not None:
            term = _plus(term, t[1] * g * (p * p - 2 * p * y + y) / (inner * inner) * scale)
        if t[2] is not None:
            term = _plus(term, -t[2] * g / inner * scale)
        return term

    r[F.BinaryCrossEntropyGrad] = bce_grad


register_rule_builder(build_nn_rules)
