"""More activations (``F.leaky_relu``, ``F.gelu``, ``F.silu``, ``F.softplus``, ``F.elu``, ``F.hardtanh``).

Each is one primitive, as in PyTorch, whose node saves the *input* (not the
result) and PyTorch's scalar arguments:

==================  ======================  ========================================
function            node                    saved
==================  ======================  ========================================
``leaky_relu``      LeakyReluBackward0      ``self``, ``negative_slope``
``gelu``            GeluBackward0           ``self``, ``approximate``
``silu``            SiluBackward0           ``self``
``softplus``        SoftplusBackward0       ``self``, ``beta``, ``threshold``
``elu``             EluBackward0            ``self``, ``alpha``, ``scale``, ``input_scale``
``hardtanh``        HardtanhBackward0       ``self``, ``min_val``, ``max_val``
==================  ======================  ========================================

Their gradients are PyTorch's ``*_backward`` kernels, ops of their own
(``activations_backward.py``): a gradient taken with ``create_graph=True``
ends in LeakyReluBackwardBackward0, GeluBackwardBackward0, ... .  ``silu``
is the exception, as in PyTorch: with recording on its gradient is composed
of ops (``grad * σ(x) * (1 + x * (1 - σ(x)))``: MulBackward0 ← ...).

Dtypes: float32 or float64 in, the same out; integer inputs raise PyTorch's
``NotImplementedError`` ("leaky_relu_cpu" not implemented for 'Long'),
except ``hardtanh``, which is a clamp and keeps integers.

Source: torch/nn/functional.py; ATen's Activation.cpp and its CPU kernels
(``Activation.cpp`` in native/cpu); derivatives.yaml (``leaky_relu``,
``gelu``, ``silu``, ``softplus``, ``elu``, ``hardtanh``); Hendrycks & Gimpel
2016 (GELU, arXiv:1606.08415); Clevert et al. 2016 (ELU, arXiv:1511.07289);
Elfwing et al. 2018 (SiLU, arXiv:1702.03118).
"""

import numbers

import numpy as np

from .._dtype import SCALAR_TYPE_NAMES
from ..autograd.function import Function
from ..ops.exp_log import AddScalar  # AddBackward1, as C++ formulas record `tensor + 1.0`
from ..ops.inplace import inplace as _inplace
from ..tensor import Tensor
from .activations_backward import (
    EluBackward,
    GeluBackward,
    HardtanhBackward,
    LeakyReluBackward,
    SoftplusBackward,
    sigmoid_array,
)

__all__ = ["elu", "elu_", "gelu", "hardtanh", "hardtanh_", "leaky_relu", "leaky_relu_", "silu",
           "softplus"]

_make = Tensor._make


def _float_only(input, kernel):
    """PyTorch's error for a kernel defined on floating types only."""
    kind = input._data.dtype.kind
    if kind != "f":
        raise NotImplementedError(f'"{kernel}" not implemented for \'{SCALAR_TYPE_NAMES[input._data.dtype.name]}\'')


def _number(value, fn, name, position):
    """PyTorch's argument-parser error for a Scalar argument that is not a number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Number):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be Number, not "
                        f"{type(value).__name__}")
    return value


def _leaky_relu_values(a, negative_slope):
    """``a`` where positive, else ``negative_slope * a`` (the slope in ``a``'s dtype)."""
    return np.where(a > 0, a, a * a.dtype.type(negative_slope))


class LeakyRelu(Function):
    """``x if x > 0 else negative_slope * x`` (LeakyReluBackward0); saves self and the slope."""

    node_name = "LeakyReluBackward0"
    saved_names = ("self",)
    saved_attrs = ("negative_slope",)
    _numpy_forward = True

    @staticmethod
    def forward(ctx, x, negative_slope):
        ctx.negative_slope = negative_slope
        ctx.save_for_backward(x)
        return _make(_leaky_relu_values(x._data, negative_slope))

    @staticmethod
    def formula(F, ctx, grad, x):
        return F.call(LeakyReluBackward, grad, x, ctx.negative_slope), None


class LeakyReluResult(Function):
    """``leaky_relu_``'s node (LeakyReluBackward1): it saves the *result*, written into the input.

    Its gradient is ``leaky_relu_backward(grad, result, slope)``, and a
    negative slope is refused at backward time (the sign of the result no
    longer tells which side of 0 the input was on).
    """

    node_name = "LeakyReluBackward1"
    saved_names = ("result",)
    saved_attrs = ("negative_slope",)
    _numpy_forward = True

    @staticmethod
    def forward(ctx, x, negative_slope):
        ctx.negative_slope = negative_slope
        out = _make(_leaky_relu_values(x._data, negative_slope))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def formula(F, ctx, grad, r):
        if ctx.negative_slope < 0:
            raise RuntimeError(
                "In-place leakyReLu backward calculation is triggered with a negative slope which "
                "is not supported. This is caused by calling in-place forward function with a "
                "negative slope, please call out-of-place version instead. File an issue at "
                "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
                "backward calculation with negative slope")
        return F.call(LeakyReluBackward, grad, r, ctx.negative_slope), None


class Gelu(Function):
    """``x Φ(x)`` (``approximate='none'``) or its tanh approximation (GeluBackward0)."""

    node_name = "GeluBackward0"
    saved_names = ("self",)
    saved_attrs = ("approximate",)
    _numpy_forward = True

    @staticmethod
    def forward(ctx, x, approximate):
        ctx.approximate = approximate
        ctx.save_for_backward(x)
        a = x._data
        f = a.dtype.type
        if approximate == "tanh":
            inner = f(GeluBackward.BETA) * (a + f(GeluBackward.KAPPA) * a * a * a)
            return _make(f(0.5) * a * (f(1) + np.tanh(inner)))
        return _make(a * f(0.5) * (f(1) + GeluBackward.erf(a * f(GeluBackward.SQRT1_2))))

    @staticmethod
    def formula(F, ctx, grad, x):
        return F.call(GeluBackward, grad, x, ctx.approximate), None


class Silu(Function):
    """``x σ(x)`` (SiluBackward0); saves self.

    Its gradient ``grad σ(x) (1 + x (1 - σ(x)))`` is PyTorch's
    ``silu_backward`` kernel when nothing is recorded and the same expression
    in recorded ops under ``create_graph=True`` (PyTorch's
    ``infinitely_differentiable_silu_backward``).
    """

    node_name = "SiluBackward0"
    saved_names = ("self",)
    _numpy_forward = True

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        a = x._data
        return _make(a / (a.dtype.type(1) + np.exp(-a)))

    @staticmethod
    def formula(F, ctx, grad, x):
        if not F.records:  # PyTorch's silu_backward kernel
            s = sigmoid_array(x)
            return grad * s * (1.0 + x * (1.0 - s))
        # infinitely_differentiable_silu_backward, op for op
        s = x.sigmoid()
        return grad * s * AddScalar.apply(x * (1.0 - s), 1.0)


class Softplus(Function):
    """``log(1 + e^{βx}) / β``, or ``x`` where ``βx > threshold`` (SoftplusBackward0)."""

    node_name = "SoftplusBackward0"
    saved_names = ("self",)
    saved_attrs = ("beta", "threshold")
    _numpy_forward = True

    @staticmethod
    def forward(ctx, x, beta, threshold):
        ctx.beta, ctx.threshold = beta, threshold
        ctx.save_for_backward(x)
        a = x._data
        f = a.dtype.type
        z = a * f(beta)
        return _make(np.where(z > f(threshold), a, np.log1p(np.exp(z)) / f(beta)))

    @staticmethod
    def formula(F, ctx, grad, x):
        return F.call(SoftplusBackward, grad, x, ctx.beta, ctx.threshold), None, None


class Elu(Function):
    """``scale x`` for x > 0, ``α scale (e^{input_scale x} - 1)`` otherwise (EluBackward0)."""

    node_name = "EluBackward0"
    saved_names = ("self",)
    saved_attrs = ("alpha", "scale", "input_scale")
    _numpy_forward = True

    @staticmethod
    def forward(ctx, x, alpha, scale, input_scale):
        ctx.alpha, ctx.scale, ctx.input_scale = alpha, scale, input_scale
        ctx.save_for_backward(x)
        a = x._data
        f = a.dtype.type
        neg = np.expm1(a * f(input_scale)) * f(alpha * scale)
        return _make(np.where(a <= 0, neg, a * f(scale)))

    @staticmethod
    def formula(F, ctx, grad, x):
        return F.call(EluBackward, grad, x, ctx.alpha, ctx.scale, ctx.input_scale), None, None, None


class EluResult(Function):
    """``elu_``'s node (EluBackward1): it saves the *result*, written into the input.

    Its gradient is ``elu_backward(grad, ..., is_result=True, result)``.
    """

    node_name = "EluBackward1"
    saved_names = ("result",)
    saved_attrs = ("alpha", "scale", "input_scale")
    _numpy_forward = True

    @staticmethod
    def forward(ctx, x, alpha, scale, input_scale):
        ctx.alpha, ctx.scale, ctx.input_scale = alpha, scale, input_scale
        a = x._data
        f = a.dtype.type
        out = _make(np.where(a <= 0, np.expm1(a * f(input_scale)) * f(alpha * scale), a * f(scale)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def formula(F, ctx, grad, r):
        return F.call(EluBackward, grad, r, ctx.alpha, ctx.scale, ctx.input_scale,
                      True), None, None, None


class Hardtanh(Function):
    """``clamp(x, min_val, max_val)`` (HardtanhBackward0); the gradient is 0 at and beyond the bounds."""

    node_name = "HardtanhBackward0"
    saved_names = ("self",)
    saved_attrs = ("min_val", "max_val")
    _numpy_forward = True

    @staticmethod
    def forward(ctx, x, min_val, max_val):
        ctx.min_val, ctx.max_val = min_val, max_val
        ctx.save_for_backward(x)
        a = x._data
        if a.dtype.kind == "f":
            f = a.dtype.type
            # nan stays nan, as at::clamp
            return _make(np.where(a < f(min_val), f(min_val), np.where(a > f(max_val), f(max_val), a)))
        return _make(np.clip(a, int(min_val), int(max_val)).astype(a.dtype))

    @staticmethod
    def formula(F, ctx, grad, x):
        return F.call(HardtanhBackward, grad, x, ctx.min_val, ctx.max_val), None, None


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``max(0, x) + negative_slope * min(0, x)`` elementwise (``F.leaky_relu``); LeakyReluBackward0.

    Args:
        input (Tensor): any shape, float32 or float64.
        negative_slope (float): the slope for x <= 0 (default 0.01).
        inplace (bool): write into ``input`` (``leaky_relu_``).

    Raises:
        NotImplementedError: '"leaky_relu_cpu" not implemented for 'Long'' for integers.
        TypeError: "leaky_relu(): argument 'negative_slope' (position 2) must be Number, not str".
    """
    _number(negative_slope, "leaky_relu", "negative_slope", 2)
    _float_only(input, "leaky_relu_cpu")
    if inplace:
        return leaky_relu_(input, negative_slope)
    return LeakyRelu.apply(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    """``leaky_relu`` in place (``F.leaky_relu_``); records the out-of-place node on ``input``'s history."""
    _float_only(input, "leaky_relu_cpu")
    return _inplace(input, lambda a: LeakyReluResult.apply(a, negative_slope))


def gelu(input, approximate="none"):
    """Gaussian error linear unit ``x Φ(x)`` (``F.gelu``); GeluBackward0.

    Args:
        input (Tensor): any shape, float32 or float64.
        approximate (str): ``'none'`` (the erf form, default) or ``'tanh'``
            (``0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))``).

    Raises:
        RuntimeError: "approximate argument must be either none or tanh.".
        NotImplementedError: '"GeluKernelImpl" not implemented for 'Long''.
    """
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _float_only(input, "GeluKernelImpl")
    return Gelu.apply(input, approximate)


def silu(input, inplace=False):
    """``x σ(x)`` elementwise, also called swish (``F.silu``); SiluBackward0.

    Raises:
        NotImplementedError: '"silu_cpu" not implemented for 'Long''.
    """
    _float_only(input, "silu_cpu")
    if inplace:
        return _inplace(input, Silu.apply)
    return Silu.apply(input)


def softplus(input, beta=1, threshold=20):
    """``log(1 + exp(βx)) / β``, linear where ``βx > threshold`` (``F.softplus``); SoftplusBackward0.

    Args:
        input (Tensor): any shape, float32 or float64.
        beta (float): sharpness (default 1).
        threshold (float): above ``βx > threshold`` the result is ``x`` (default 20).

    Raises:
        NotImplementedError: '"softplus_cpu" not implemented for 'Long''.
    """
    _number(beta, "softplus", "beta", 2)
    _number(threshold, "softplus", "threshold", 3)
    _float_only(input, "softplus_cpu")
    return Softplus.apply(input, beta, threshold)


def elu(input, alpha=1.0, inplace=False):
    """Exponential linear unit (``F.elu``): x for x > 0, ``α (eˣ - 1)`` otherwise; EluBackward0.

    Args:
        input (Tensor): any shape, float32 or float64.
        alpha (float): the value approached for x → -∞ is -α (default 1.0).
        inplace (bool): write into ``input`` (``elu_``).

    Raises:
        NotImplementedError: '"elu_cpu" not implemented for 'Long''.
    """
    _number(alpha, "elu", "alpha", 2)
    _float_only(input, "elu_cpu")
    if inplace:
        return elu_(input, alpha)
    return Elu.apply(input, alpha, 1, 1)


def elu_(input, alpha=1.0):
    """``elu`` in place (``F.elu_``)."""
    _float_only(input, "elu_cpu")
    return _inplace(input, lambda a: EluResult.apply(a, alpha, 1, 1))


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """``clamp(x, min_val, max_val)`` (``F.hardtanh``); HardtanhBackward0 (gradient 0 outside (min, max)).

    Args:
        input (Tensor): any shape; integers are clamped as integers.
        min_val, max_val (float): the bounds (default -1, 1).
        inplace (bool): write into ``input`` (``hardtanh_``).

    Raises:
        ValueError: "min_val cannot be greater than max_val".
        RuntimeError: "Bool inputs not supported for hardtanh".
    """
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if input._data.dtype.kind == "b":
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if inplace:
        return hardtanh_(input, min_val, max_val)
    return Hardtanh.apply(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """``hardtanh`` in place (``F.hardtanh_``)."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _inplace(input, lambda a: Hardtanh.apply(a, min_val, max_val))
