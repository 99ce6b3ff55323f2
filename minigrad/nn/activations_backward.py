"""The backward kernels of the activations in ``activations.py``, as ops of their own.

PyTorch computes the gradient of ``leaky_relu``, ``gelu``, ``softplus``,
``elu`` and ``hardtanh`` with one kernel each (``leaky_relu_backward(grad,
self, negative_slope, self_is_result)``, ...), and each kernel is itself
differentiable: a gradient taken with ``create_graph=True`` ends in
LeakyReluBackwardBackward0, GeluBackwardBackward0, SoftplusBackwardBackward0,
EluBackwardBackward0 or HardtanhBackwardBackward0, whose two edges lead to
the incoming gradient and to the saved input.

Each class has ``kernel`` (the numpy arithmetic, which the first-order walk
calls through ``F.call`` when nothing is recorded, and ``forward`` calls
when it is) and a ``backward`` with PyTorch's double-backward formulas from
derivatives.yaml, composed of recorded ops:

* ``leaky_relu_backward``: ``leaky_relu_backward(gg, self, slope)`` for grad,
  zeros for self;
* ``gelu_backward``: ``gelu_backward(gg, self)`` for grad,
  ``gelu_double_backward(gg, grad, self)`` for self;
* ``softplus_backward``: ``softplus_backward(gg, self)`` for grad,
  ``sigmoid_backward(gg grad, σ(βx)) (βx < threshold) β`` for self;
* ``elu_backward``: ``elu_backward(gg, self)`` for grad,
  ``elu_backward(gg grad input_scale, self) (self < 0)`` for self;
* ``hardtanh_backward``: ``hardtanh_backward(gg, self)`` for grad, zeros for self.

Shapes: ``grad`` and ``self`` have one shape and one float dtype.

Source: ATen's CPU kernels (native/cpu/Activation.cpp), FunctionsManual.cpp
(``gelu_double_backward``, ``softplus_double_backward``,
``elu_double_backward``), tools/autograd/derivatives.yaml.
"""

import math

import numpy as np

from ..autograd.function import Function
from ..tensor import Tensor

__all__ = ["EluBackward", "GeluBackward", "HardtanhBackward", "LeakyReluBackward",
           "SoftplusBackward", "elu_double_backward", "gelu_double_backward", "sigmoid_array",
           "softplus_double_backward"]

_make = Tensor._make
_erf = np.frompyfunc(math.erf, 1, 1)


def sigmoid_array(a):
    """``1 / (1 + e^-a)`` in ``a``'s dtype, PyTorch's arithmetic."""
    one = a.dtype.type(1)
    with np.errstate(over="ignore"):
        return one / (one + np.exp(-a))


def _zeros_like(t):
    return _make(np.zeros(t._data.shape, dtype=t._data.dtype))


def _mask(cond, like):
    """A 0/1 tensor of ``like``'s dtype: PyTorch's ``cond.type_as(grad)`` (no gradient)."""
    return _make(np.asarray(cond).astype(like._data.dtype))


class _KernelBackward(Function):
    """A backward kernel as a primitive: ``forward`` runs ``kernel`` on the arrays."""

    saved_names = ("grad_output", "self")
    _numpy_forward = True

    @classmethod
    def _run(cls, ctx, grad, x, *params):
        # what PyTorch saves: the incoming gradient only where the second derivative needs it
        ctx.save_for_backward(*((grad, x) if len(cls.saved_names) == 2 else (x,)))
        out = cls.kernel(grad._data, x._data, *params)
        return _make(np.asarray(out).astype(x._data.dtype, copy=False))


class LeakyReluBackward(_KernelBackward):
    """``grad if self > 0 else grad * negative_slope`` (LeakyReluBackwardBackward0)."""

    node_name = "LeakyReluBackwardBackward0"
    saved_names = ("self",)
    saved_attrs = ("negative_slope",)

    @staticmethod
    def kernel(grad, x, negative_slope):
        return np.where(x > 0, grad, grad * x.dtype.type(negative_slope))

    @staticmethod
    def forward(ctx, grad, x, negative_slope):
        ctx.negative_slope = negative_slope
        return LeakyReluBackward._run(ctx, grad, x, negative_slope)

    @staticmethod
    def backward(ctx, gg):
        x, = ctx.saved_tensors
        need = ctx.needs_input_grad
        d_grad = LeakyReluBackward.apply(gg, x, ctx.negative_slope) if need[0] else None
        return d_grad, (_zeros_like(gg) if need[1] else None), None


class GeluBackward(_KernelBackward):
    """``grad (Φ(x) + x φ(x))``, or the tanh form's derivative (GeluBackwardBackward0)."""

    node_name = "GeluBackwardBackward0"
    saved_attrs = ("approximate",)

    SQRT1_2 = 1 / math.sqrt(2)
    ALPHA = 2 / math.sqrt(math.pi) * SQRT1_2 * 0.5  # M_2_SQRTPI * M_SQRT1_2 * 0.5 = 1/√(2π)
    BETA = math.sqrt(2) * 2 / math.sqrt(math.pi) * 0.5  # √(2/π)
    KAPPA = 0.044715

    @staticmethod
    def erf(a):
        """erf elementwise in ``a``'s dtype (numpy has none; computed in double, rounded)."""
        return _erf(a).astype(a.dtype) if a.ndim else a.dtype.type(math.erf(float(a)))

    @staticmethod
    def kernel(grad, x, approximate):
        f = x.dtype.type
        if approximate == "tanh":
            x_sq = x * x
            inner = f(GeluBackward.BETA) * (x + f(GeluBackward.KAPPA) * x_sq * x)
            t = np.tanh(inner)
            left = f(0.5) * x
            right = f(1) + t
            right_derivative = left * (f(1) - t * t) * f(GeluBackward.BETA) * (
                f(1) + f(3 * GeluBackward.KAPPA) * x_sq)
            return grad * (f(0.5) * right + right_derivative)
        cdf = f(0.5) * (f(1) + GeluBackward.erf(x * f(GeluBackward.SQRT1_2)))
        pdf = f(GeluBackward.ALPHA) * np.exp(f(-0.5) * x * x)
        return grad * (cdf + x * pdf)

    @staticmethod
    def forward(ctx, grad, x, approximate):
        ctx.approximate = approximate
        return GeluBackward._run(ctx, grad, x, approximate)

    @staticmethod
    def backward(ctx, gg):
        grad, x = ctx.saved_tensors
        need = ctx.needs_input_grad
        d_grad = GeluBackward.apply(gg, x, ctx.approximate) if need[0] else None
        d_x = gelu_double_backward(gg, grad, x, ctx.approximate) if need[1] else None
        return d_grad, d_x, None


def gelu_double_backward(ggI, gO, x, approximate):
    """PyTorch's ``gelu_double_backward``: ggI gO d²gelu/dx², composed of recorded ops."""
    if approximate == "tanh":
        beta, kappa = GeluBackward.BETA, GeluBackward.KAPPA
        inner = beta * (x + kappa * x.pow(3))
        tanh_inner = inner.tanh()
        # 1 / cosh(inner): minigrad has no cosh op, so 2 / (e^inner + e^-inner)
        sech_inner = 2 / (inner.exp() + (-inner).exp())
        f = 0.5 * x
        g = 1 - tanh_inner * tanh_inner
        h = beta * (1 + 3 * kappa * x * x)
        f_prime_gh = 0.5 * g * h
        g_prime = (2 * sech_inner) * (-sech_inner * tanh_inner) * h
        g_prime_fh = f * h * g_prime
        h_prime = 6 * kappa * x * beta
        h_prime_fg = f * g * h_prime
        return ggI * gO * (f_prime_gh + f_prime_gh + g_prime_fh + h_prime_fg)
    x_sq = x * x
    pdf = GeluBackward.ALPHA * (-0.5 * x_sq).exp()
    return ggI * gO * (2 * pdf - x_sq * pdf)


class SoftplusBackward(_KernelBackward):
    """``grad e^{βx} / (e^{βx} + 1)``, or ``grad`` where ``βx > threshold`` (SoftplusBackwardBackward0)."""

    node_name = "SoftplusBackwardBackward0"
    saved_attrs = ("beta", "threshold")

    @staticmethod
    def kernel(grad, x, beta, threshold):
        f = x.dtype.type
        z = x * f(beta)
        with np.errstate(over="ignore", invalid="ignore"):
            e = np.exp(z)
            return np.where(z > f(threshold), grad, grad * e / (e + f(1)))

    @staticmethod
    def forward(ctx, grad, x, beta, threshold):
        ctx.beta, ctx.threshold = beta, threshold
        return SoftplusBackward._run(ctx, grad, x, beta, threshold)

    @staticmethod
    def backward(ctx, gg):
        grad, x = ctx.saved_tensors
        need = ctx.needs_input_grad
        d_grad = SoftplusBackward.apply(gg, x, ctx.beta, ctx.threshold) if need[0] else None
        d_x = softplus_double_backward(gg * grad, x, ctx.beta, ctx.threshold) if need[1] else None
        return d_grad, d_x, None, None


def softplus_double_backward(g, x, beta, threshold):
    """PyTorch's ``softplus_double_backward``: ``sigmoid_backward(g, σ(βx)) (βx < threshold) β``."""
    from ..ops.activation_backward import SigmoidBackward

    z = x * beta
    return SigmoidBackward.apply(g, z.sigmoid()) * _mask(z._data < threshold, g) * beta


class EluBackward(_KernelBackward):
    """ELU's gradient from its input, or from its result after ``elu_`` (EluBackwardBackward0).

    From the input x: ``grad input_scale α scale e^{input_scale x}`` for x <= 0,
    ``grad scale`` otherwise; from the result y (``is_result``):
    ``grad input_scale (y + α scale)`` for y <= 0.
    """

    node_name = "EluBackwardBackward0"
    saved_names = ("grad_output", "self_or_result")
    saved_attrs = ("alpha", "scale", "input_scale", "is_result")

    @staticmethod
    def kernel(grad, x, alpha, scale, input_scale, is_result=False):
        f = x.dtype.type
        if is_result:
            neg = grad * f(input_scale) * (x + f(alpha * scale))
        else:
            neg = grad * f(input_scale) * f(alpha * scale) * np.exp(x * f(input_scale))
        return np.where(x <= 0, neg, grad * f(scale))

    @staticmethod
    def forward(ctx, grad, x, alpha, scale, input_scale, is_result=False):
        ctx.alpha, ctx.scale, ctx.input_scale, ctx.is_result = alpha, scale, input_scale, is_result
        return EluBackward._run(ctx, grad, x, alpha, scale, input_scale, is_result)

    @staticmethod
    def backward(ctx, gg):
        grad, x = ctx.saved_tensors
        need = ctx.needs_input_grad
        p = (ctx.alpha, ctx.scale, ctx.input_scale, ctx.is_result)
        d_grad = EluBackward.apply(gg, x, *p) if need[0] else None
        d_x = elu_double_backward(gg, grad, x, *p) if need[1] else None
        return d_grad, d_x, None, None, None, None


def elu_double_backward(gg, grad, x, alpha, scale, input_scale, is_result=False):
    """PyTorch's ``elu_double_backward``: the derivative of ``elu_backward`` in ``self_or_result``."""
    if is_result:
        return gg * grad * input_scale * _mask(x._data < 0, gg)
    return EluBackward.apply(gg * grad * input_scale, x, alpha, scale, input_scale, is_result) * _mask(
        x._data < 0, gg)


class HardtanhBackward(_KernelBackward):
    """``0 where self <= min_val or self >= max_val, else grad`` (HardtanhBackwardBackward0)."""

    node_name = "HardtanhBackwardBackward0"
    saved_names = ("self",)
    saved_attrs = ("min_val", "max_val")

    @staticmethod
    def kernel(grad, x, min_val, max_val):
        return np.where((x <= min_val) | (x >= max_val), grad.dtype.type(0), grad)

    @staticmethod
    def forward(ctx, grad, x, min_val, max_val):
        ctx.min_val, ctx.max_val = min_val, max_val
        return HardtanhBackward._run(ctx, grad, x, min_val, max_val)

    @staticmethod
    def backward(ctx, gg):
        x, = ctx.saved_tensors
        need = ctx.needs_input_grad
        d_grad = HardtanhBackward.apply(gg, x, ctx.min_val, ctx.max_val) if need[0] else None
        return d_grad, (_zeros_like(gg) if need[1] else None), None, None
