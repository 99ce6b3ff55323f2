"""Reductions: ``sum`` and ``mean``, and ``sum_to_size`` that undoes broadcasting.

The backward of a reduction spreads the incoming gradient back over the
elements that were reduced: ``expand`` for ``sum``, ``expand / n`` for ``mean``.

Source: PyTorch's derivatives.yaml (``sum``, ``sum.dim_IntList``, ``mean``,
``mean.dim``) and ``at::sum_to``.
"""

import numpy as np

from ..autograd.function import Function
from ..tensor import Tensor
from ._util import canonical_dims

__all__ = ["Sum", "SumDim", "Mean", "MeanDim", "sum", "mean", "sum_to_size"]

_make = Tensor._make
_builtin_sum = sum


def _sum_dtype(data, dtype):
    if dtype is not None:
        from .._dtype import as_dtype

        return as_dtype(dtype).np
    return np.dtype(np.int64) if data.dtype.kind in "biu" else data.dtype


class Sum(Function):
    """Sum of all elements (SumBackward0); saves the input's sizes."""

    node_name = "SumBackward0"
    saved_attrs = ("self_sym_sizes",)

    @staticmethod
    def forward(ctx, a, dtype=None):
        ctx.self_sym_sizes = a._data.shape
        return _make(np.asarray(a._data.sum(dtype=_sum_dtype(a._data, dtype))))

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx.self_sym_sizes), None


class SumDim(Function):
    """Sum over ``dim`` (SumBackward1); saves dim, keepdim and the input's sizes."""

    node_name = "SumBackward1"
    saved_attrs = ("dim", "keepdim", "self_sym_sizes")

    @staticmethod
    def forward(ctx, a, dim, keepdim=False, dtype=None):
        dims = canonical_dims(dim, a._data.ndim)
        ctx.dim, ctx.keepdim, ctx.self_sym_sizes = dims, keepdim, a._data.shape
        out = a._data.sum(axis=dims, keepdims=keepdim, dtype=_sum_dtype(a._data, dtype))
        return _make(np.asarray(out))

    @staticmethod
    def backward(ctx, grad):
        if not ctx.keepdim and ctx.dim:
            shape = list(ctx.self_sym_sizes)
            for d in ctx.dim:
                shape[d] = 1
            grad = grad.reshape(tuple(shape))
        return grad.expand(ctx.self_sym_sizes), None, None, None


def _mean_check(a, name="mean"):
    if a._data.dtype.kind != "f":
        kind = {"int64": "Long", "bool": "Bool"}[str(a._data.dtype)]
        raise RuntimeError(
            f"{name}(): could not infer output dtype. Input dtype must be either a floating "
            f"point or complex dtype. Got: {kind}"
        )


class Mean(Function):
    """Mean of all elements (MeanBackward0); saves the input's sizes and element count."""

    node_name = "MeanBackward0"
    saved_attrs = ("self_sym_numel", "self_sym_sizes")

    @staticmethod
    def forward(ctx, a):
        _mean_check(a)
        ctx.self_sym_sizes = a._data.shape
        ctx.self_sym_numel = a._data.size
        return _make(np.asarray(a._data.mean(dtype=a._data.dtype)))

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx.self_sym_sizes) / ctx.self_sym_numel


class MeanDim(Function):
    """Mean over ``dim`` (MeanBackward1)."""

    node_name = "MeanBackward1"
    saved_attrs = ("dim", "keepdim", "self_sym_numel", "self_sym_sizes")

    @staticmethod
    def forward(ctx, a, dim, keepdim=False):
        _mean_check(a)
        dims = canonical_dims(dim, a._data.ndim)
        ctx.dim, ctx.keepdim, ctx.self_sym_sizes = dims, keepdim, a._data.shape
        ctx.self_sym_numel = a._data.size
        n = 1
        for d in dims:
            n *= a._data.shape[d]
        ctx.count = n
        with np.errstate(invalid="ignore", divide="ignore"):
            out = a._data.sum(axis=dims, keepdims=keepdim, dtype=a._data.dtype) / a._data.dtype.type(n)
        return _make(np.asarray(out, dtype=a._data.dtype))

    @staticmethod
    def backward(ctx, grad):
        if not ctx.keepdim and ctx.dim:
            shape = list(ctx.self_sym_sizes)
            for d in ctx.dim:
                shape[d] = 1
            grad = grad.reshape(tuple(shape))
        return grad.expand(ctx.self_sym_sizes) / ctx.count, None, None


def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum of elements, over all or over ``dim`` (int or tuple) (``torch.sum``).

    Args:
        input (Tensor): any shape.
        dim (int | tuple[int] | None): dims to reduce; negative counts from the end.
        keepdim (bool): keep reduced dims with size 1.
        dtype: accumulate and return in this dtype; integers and bools sum to int64.

    Raises:
        IndexError: "Dimension out of range ..." for a bad dim.
    """
    if dim is None:
        return Sum.apply(input, dtype)
    return SumDim.apply(input, dim, keepdim, dtype)


def mean(input, dim=None, keepdim=False):
    """Arithmetic mean, over all or over ``dim`` (``torch.mean``).

    Raises:
        RuntimeError: PyTorch's "mean(): could not infer output dtype ..." for integer input.
        IndexError: for a bad dim.
    """
    if dim is None:
        return Mean.apply(input)
    return MeanDim.apply(input, dim, keepdim)


def sum_to_size(input, *size):
    """Sum ``input`` down to ``size``, undoing broadcasting (``Tensor.sum_to_size``).

    Leading dims are summed away, dims of size 1 in ``size`` are summed with
    keepdim.  Recorded like any sum, so it works inside ``create_graph``.

    Raises:
        RuntimeError: if ``input`` is not expandable from ``size``.
    """
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    shape = input._data.shape
    if shape == size:
        return input
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != g for s, g in zip(size, shape[lead:])):
        raise RuntimeError(f"size {{{', '.join(map(str, size))}}} is not expandable to size "
                           f"{{{', '.join(map(str, shape))}}}.")
    dims = tuple(range(lead)) + tuple(
        lead + i for i, (s, g) in enumerate(zip(size, shape[lead:])) if s == 1 and g != 1
    )
    out = SumDim.apply(input, dims, True, None) if dims else input
    if lead:
        out = out.reshape(size)
    return out
