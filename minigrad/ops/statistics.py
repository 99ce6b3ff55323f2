"""Spread and size of values: ``var``, ``std`` (with Bessel's correction) and ``norm``.

Each is one primitive with PyTorch's node (VarBackward0, StdBackward0,
LinalgVectorNormBackward0) and saved values, its backward next to it.

Source: derivatives.yaml (``var.correction``, ``std.correction``,
``linalg_vector_norm``) and ``std_backward`` / ``norm_backward``
(torch/csrc/autograd/FunctionsManual.cpp).
"""

import numpy as np

from .._dtype import SCALAR_TYPE_NAMES
from ..autograd.function import Function
from ..tensor import Tensor
from ._util import reduction_dims
from .reductions import _raw_dims, _unsqueeze_dims, _unsqueeze_to

__all__ = ["Std", "Var", "VectorNorm", "norm", "std", "var", "vector_norm"]

_make = Tensor._make


def _var_setup(ctx, a, dim, correction, keepdim, name):
    data = a._data
    if data.dtype.kind != "f":
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dims = reduction_dims(dim, data.ndim)
    ctx.dim = None if dim is None else _raw_dims(dim)
    ctx.correction = correction if dim is not None or correction != 1 else None
    ctx.keepdim = keepdim
    ctx._dims, ctx._corr = dims, correction
    n = 1
    for d in dims:
        n *= data.shape[d]
    ctx._n = n
    if n - correction <= 0:
        import warnings

        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=4)
    return data, dims, n


def _quiet_var(data, dims, correction, keepdim):
    """numpy's variance without its own warning (``_var_setup`` gave PyTorch's)."""
    import warnings

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.var(data, axis=dims, ddof=correction, keepdims=keepdim)


def _backward_count(ctx):
    """N in var/std's backward: as PyTorch's ``_safe_size(sizes, dim)``, 1 for ``dim=()``.

    The forward reduces every dim for ``dim=()``, the backward counts the dims
    listed (none): PyTorch's artefact, kept so gradients match (inf/nan with
    Bessel's correction).
    """
    return 1 if ctx.dim == () else ctx._n


class Var(Function):
    """Variance over ``dim`` with Bessel's ``correction`` (VarBackward0); saves its input.

    d var / dx = 2 (x - mean) / (N - correction).
    """

    node_name = "VarBackward0"
    saved_names = ("self",)
    saved_attrs = ("correction", "dim", "keepdim")

    @staticmethod
    def forward(ctx, a, dim, correction, keepdim):
        data, dims, n = _var_setup(ctx, a, dim, correction, keepdim, "var")
        ctx.save_for_backward(a)
        out = _quiet_var(data, dims, correction, keepdim)
        return _make(np.asarray(out, dtype=data.dtype))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return _var_backward(ctx, grad, a), None, None, None


def _var_backward(ctx, grad, a):
    """PyTorch's var_backward: (2 / (N - correction)) * grad * (self - mean)."""
    from .elementwise import MulScalar

    if ctx.dim is None:  # every element: a 0-d grad broadcasts
        g = grad
        if ctx._n - ctx._corr <= 0:
            # 2 / 0 is inf, times (x - mean), which is 0 exactly where x equals
            # the mean: a constant of nan and inf
            data = a._data
            fill = np.where(data == data.mean(), np.nan, np.inf).astype(data.dtype)
            return g * _make(fill)
        centred = a - a.mean()
    else:
        # PyTorch unsqueezes only for !keepdim && self.dim() > 1
        # (and unsqueeze_multiple adds nothing for dim=())
        g = (grad if ctx.keepdim or a._data.ndim <= 1 or not ctx.dim
             else _unsqueeze_dims(grad, ctx._dims))
        centred = a - a.mean(ctx._dims, keepdim=True) if ctx._dims else a - a
    with np.errstate(divide="ignore"):
        scale = float(np.float64(2.0) / np.float64(_backward_count(ctx) - ctx._corr))
    return MulScalar.apply(g, scale) * centred


class Std(Function):
    """Standard deviation over ``dim`` (StdBackward0); saves its input and result.

    d std / dx = (x - mean) / ((N - correction) · std).
    """

    node_name = "StdBackward0"
    saved_names = ("self", "result")
    saved_attrs = ("correction", "dim", "keepdim")

    @staticmethod
    def forward(ctx, a, dim, correction, keepdim):
        data, dims, n = _var_setup(ctx, a, dim, correction, keepdim, "std")
        out = _make(np.asarray(np.sqrt(_quiet_var(data, dims, correction, keepdim)),
                               dtype=data.dtype))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        # PyTorch's std_backward: var_backward of (grad / (2 * result)), with 0
        # where the result is 0 (a constant input: 0, not 0 / 0)
        from .elementwise import MulScalar, where

        a, r = ctx.saved_tensors
        g = grad / MulScalar.apply(r, 2)
        g = where(_make(r._data == 0), _make(np.zeros((), dtype=g._data.dtype)), g)
        return _var_backward(ctx, g, a), None, None, None


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased in (None, True) else 0


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Variance, over all elements or ``dim``; ``correction=1`` (Bessel's) by default (``torch.var``).

    Raises:
        RuntimeError: for integer input; IndexError for a bad dim.
    """
    return Var.apply(input, dim, _correction(unbiased, correction), keepdim)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Standard deviation, over all elements or ``dim`` (``torch.std``); see ``var``."""
    return Std.apply(input, dim, _correction(unbiased, correction), keepdim)


class VectorNorm(Function):
    """The ``ord``-norm of the values over ``dim`` (LinalgVectorNormBackward0); saves self and result.

    Backward as PyTorch's ``norm_backward``: ord 2 gives ``grad * self /
    norm`` (0 where the norm is 0), ord 1 ``grad * sgn(self)``, ord inf
    shares the gradient among the largest ``|x|``, ord 0 gives no gradient,
    other ords ``grad * sgn(x) |x|^(p-1) / norm^(p-1)``.
    """

    node_name = "LinalgVectorNormBackward0"
    saved_names = ("self", "result")
    saved_attrs = ("dim", "keepdim", "ord")

    @staticmethod
    def forward(ctx, a, ord, dim, keepdim):
        data = a._data
        if data.dtype.kind != "f":
            kind = SCALAR_TYPE_NAMES[str(data.dtype)]
            raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor "
                               f"as input. Got {kind}")
        dims = reduction_dims(dim, data.ndim) if dim not in (None, (), []) else None
        ctx.ord, ctx.keepdim = ord, keepdim
        ctx.dim = None if dim is None else _raw_dims(dim)
        ctx._dims = dims if dims is not None else tuple(range(data.ndim))
        x = np.abs(data)
        axis = dims
        with np.errstate(all="ignore"):
            if ord == 2:
                out = np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdim))
            elif ord == np.inf:
                out = np.max(x, axis=axis, keepdims=keepdim, initial=0)
            elif ord == -np.inf:
                out = np.min(x, axis=axis, keepdims=keepdim)
            elif ord == 0:
                out = np.sum(x != 0, axis=axis, keepdims=keepdim)
            elif ord == 1:
                out = np.sum(x, axis=axis, keepdims=keepdim)
            else:
                out = np.sum(x ** ord, axis=axis, keepdims=keepdim) ** (1.0 / ord)
        result = _make(np.asarray(out, dtype=data.dtype))
        ctx.save_for_backward(a, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        from .elementwise import Sgn, where

        a, r = ctx.saved_tensors
        p = ctx.ord
        shape = a._data.shape
        g = _unsqueeze_to(grad, shape, ctx._dims, ctx.keepdim)
        norm = _unsqueeze_to(r, shape, ctx._dims, ctx.keepdim)
        zero = _make(np.zeros((), dtype=a._data.dtype))
        if p == 0:
            return None, None, None, None
        if p == 1:
            return Sgn.apply(a) * g, None, None, None
        if p == 2:
            scaled = where(_make(norm._data == 0), zero, a / norm)
            return g * scaled, None, None, None
        if p in (np.inf, -np.inf):
            mask = _make((np.abs(a._data) == norm._data).astype(a._data.dtype))
            count = mask.sum(ctx._dims, keepdim=True)
            return Sgn.apply(a) * mask * (g / count), None, None, None
        if p < 1:
            powered = where(_make(a._data == 0), zero, a.abs() ** (p - 1))
            return Sgn.apply(a) * powered * g * norm ** (1 - p), None, None, None
        self_scaled = Sgn.apply(a) * a.abs() ** (p - 1) if p < 2 else a * a.abs() ** (p - 2)
        scale = where(_make(norm._data == 0), zero, g / norm ** (p - 1))
        return self_scaled * scale, None, None, None


def _ord(p):
    if p == "fro":
        return 2
    if isinstance(p, str):
        raise RuntimeError(f"minigrad: norm(p={p!r}) is not supported; use a number or 'fro'")
    return p


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """The ``ord``-norm of ``x`` over ``dim`` (all dims by default) (``torch.linalg.vector_norm``).

    Args:
        x (Tensor): floating.
        ord (number): 2 (default), 1, inf, -inf, 0 or any other power.
        dim (int | tuple | None): the dims reduced.
        keepdim (bool): keep them with size 1.

    Returns:
        Tensor; node LinalgVectorNormBackward0.

    Raises:
        RuntimeError: "linalg.vector_norm: Expected a floating point or complex
            tensor as input. Got Long".
    """
    if dtype is not None:
        x = x.to(dtype)
    return VectorNorm.apply(x, _ord(ord), dim, keepdim)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """The ``p``-norm of ``input`` (``torch.norm``, ``Tensor.norm``): ``linalg.vector_norm``."""
    return vector_norm(input, 2 if p is None else p, dim, keepdim, dtype=dtype)
