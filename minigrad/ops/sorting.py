"""Sorting and order statistics: ``sort``, ``argsort``, ``topk``, ``msort``, ``median``.

``sort`` and ``topk`` return ``(values, indices)``; the values are recorded
(SortBackward0, TopkBackward0), the indices are int64 and not
differentiable.  Each output value is one input element moved, so the
backward puts each gradient back where its element came from: a scatter of
the gradient into zeros of the input's shape, at the saved indices.
``argsort`` returns the indices alone and records nothing.

Ties keep their original order (a stable sort), which is what PyTorch's CPU
kernel gives for the small inputs a lesson uses; with ``stable=False``
PyTorch makes no promise about the order of equal elements.  NaN sorts as
the largest value, as in PyTorch.

``median`` is the lower median (the element at (n - 1) // 2 of the sorted
order), its gradient that of ``max``: all to the picked element along a dim,
shared among the equal elements overall.

Source: ``torch.sort``, ``torch.topk``, ``torch.median`` and their
derivatives.yaml entries (``value_selecting_reduction_backward``,
``evenly_distribute_backward``).
"""

import numpy as np

from ..autograd.function import Function
from ..tensor import Tensor
from ._util import as_saved_int, canonical_dim
from .reductions import _named_pair

__all__ = ["MedianAll", "MedianDim", "Sort", "Topk", "argsort", "median", "msort", "sort", "topk"]

_make = Tensor._make

sort_return = _named_pair("sort")
topk_return = _named_pair("topk")


def _order(data, d, descending):
    """Indices that sort ``data`` along axis ``d``: stable, NaN last (first when descending)."""
    if not descending:
        return np.argsort(data, axis=d, kind="stable")
    # descending and stable: sort the reversed array ascending, then flip back,
    # so that equal elements keep their original order
    rev = np.flip(data, axis=d)
    idx = np.argsort(rev, axis=d, kind="stable")
    n = data.shape[d]
    idx = (n - 1) - idx
    return np.flip(idx, axis=d)


class _Selecting(Function):
    """Shared backward: scatter the values' gradient back to where each value came from."""

    saved_names = ("indices",)
    saved_attrs = ("dim", "self_sym_sizes")

    @staticmethod
    def backward(ctx, grad, _grad_indices):
        from .indexing import _GatherScatterAdd

        (idx,) = ctx.saved_tensors
        if not ctx.self_sym_sizes:  # a 0-d input: its one value
            return grad, None, None, None, None
        return _GatherScatterAdd.apply(grad, ctx._d, idx, ctx.self_sym_sizes), None, None, None, None


def _finish(ctx, a, d, idx, dim):
    data = a._data
    if data.ndim:
        values = np.take_along_axis(data, idx, axis=d)
    else:
        values, idx = data.copy(), np.zeros((), dtype=np.int64)
    ctx.dim, ctx.self_sym_sizes, ctx._d = as_saved_int(dim), data.shape, d
    values_t, idx_t = _make(values), _make(idx.astype(np.int64, copy=False))
    ctx.mark_non_differentiable(idx_t)
    ctx.save_for_backward(idx_t)
    return values_t, idx_t


class Sort(_Selecting):
    """Values sorted along ``dim`` and where they came from (SortBackward0)."""

    node_name = "SortBackward0"

    @staticmethod
    def forward(ctx, a, dim, descending, stable=None):
        data = a._data
        d = canonical_dim(dim, data.ndim)
        idx = _order(data, d, descending) if data.ndim else None
        return _finish(ctx, a, d, idx, dim)


class SortStable(Sort):
    """``sort(stable=...)``, PyTorch's other overload (``sort.stable``): node SortBackward1."""

    node_name = "SortBackward1"


_UNSET = object()  # stable= not passed: PyTorch's sort(dim, descending) overload


class Topk(_Selecting):
    """The ``k`` largest (or smallest) values along ``dim`` and their indices (TopkBackward0)."""

    node_name = "TopkBackward0"

    @staticmethod
    def forward(ctx, a, k, dim, largest, sorted_=True):
        data = a._data
        d = canonical_dim(dim, data.ndim)  # PyTorch checks dim, then k, then the dtype
        n = data.shape[d] if data.ndim else 1
        if not 0 <= k <= n:
            raise RuntimeError("selected index k out of range")
        if data.dtype == np.bool_:
            raise RuntimeError("topk does not support bool dtypes on CPU")
        idx = None
        if data.ndim:
            idx = np.take(_order(data, d, largest), np.arange(k), axis=d)
        return _finish(ctx, a, d, idx, dim)


def _check_tensor(input, name):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def _positional(name, input, args, dim, descending, stable, method):
    """``(dim, descending, stable)`` from PyTorch's two overloads of sort/argsort.

    PyTorch has ``(dim=-1, descending=False)`` and ``(*, stable, dim=-1,
    descending=False)``: with ``stable=`` given, dim and descending must be
    keywords too, else its TypeError.
    """
    _check_tensor(input, name)
    if args:
        if stable is not _UNSET or len(args) > 2:
            got = [] if method else ["Tensor"]
            got += [type(a).__name__ if not isinstance(a, Tensor) else "Tensor" for a in args]
            got += [f"stable={type(stable).__name__}"] if stable is not _UNSET else []
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            f"({', '.join(got)}), but expected one of:\n"
                            " * (*, bool stable, int dim = -1, bool descending = False)\n"
                            " * (int dim = -1, bool descending = False)")
        dim = args[0]
        descending = args[1] if len(args) > 1 else descending
    return dim, bool(descending), stable


def sort(input, *args, stable=_UNSET, dim=-1, descending=False, _method=False):
    """Sort along ``dim`` (last by default): ``(values, indices)`` (``torch.sort``).

    Args:
        input (Tensor): any dtype and shape (a 0-d tensor sorts to itself).
        dim (int): the dim to sort along (positional, or keyword).
        descending (bool): largest first (positional after dim, or keyword).
        stable (bool): keep equal elements in their order (minigrad always
            does); keyword only, and then dim and descending are keywords too,
            as in PyTorch's overloads.

    Returns:
        ``torch.return_types.sort(values, indices)``: values of ``input``'s
        dtype and shape (SortBackward0; SortBackward1 when ``stable=`` is
        given, even as None: PyTorch's other overload), int64 indices into ``dim``.

    Raises:
        IndexError: "Dimension out of range ..." for a bad dim.
        TypeError: "sort() received an invalid combination of arguments ..."
            for a positional dim with ``stable=``.
    """
    dim, descending, stable = _positional("sort", input, args, dim, descending, stable, _method)
    if stable is _UNSET:
        return sort_return(*Sort.apply(input, dim, descending))
    return sort_return(*SortStable.apply(input, dim, descending, bool(stable)))


def argsort(input, *args, stable=_UNSET, dim=-1, descending=False, _method=False):
    """The int64 indices that sort ``input`` along ``dim`` (``torch.argsort``); never recorded.

    The arguments are sort's (a positional dim with ``stable=`` raises its TypeError).
    """
    dim, descending, _ = _positional("argsort", input, args, dim, descending, stable, _method)
    data = input._data
    d = canonical_dim(dim, data.ndim)
    if data.ndim == 0:
        return _make(np.zeros((), dtype=np.int64))
    return _make(_order(data, d, descending).astype(np.int64, copy=False))


def _sort_method(self, *args, **kwargs):
    """``Tensor.sort``: as ``torch.sort(self, ...)``, PyTorch's TypeError not counting self."""
    return sort(self, *args, _method=True, **kwargs)


def _argsort_method(self, *args, **kwargs):
    """``Tensor.argsort``: as ``torch.argsort(self, ...)``."""
    return argsort(self, *args, _method=True, **kwargs)


def msort(input):
    """Values sorted along dim 0 (``torch.msort``): ``sort(input, 0).values``."""
    return sort(input, 0).values


def topk(input, k, dim=-1, largest=True, sorted=True):
    """The ``k`` largest elements along ``dim`` (``torch.topk``): ``(values, indices)``.

    Args:
        input (Tensor): any dtype.
        k (int): how many, ``0 <= k <= input.size(dim)``.
        dim (int): the dim to search (last by default).
        largest (bool): False for the ``k`` smallest.
        sorted (bool): values in sorted order (minigrad always sorts them).

    Returns:
        ``torch.return_types.topk(values, indices)``; the values record
        TopkBackward0, the int64 indices are not differentiable.

    Raises:
        RuntimeError: "selected index k out of range" for ``k`` beyond the dim's size.
    """
    return _topk(input, k, dim, largest, sorted, 2)


def _topk(input, k, dim, largest, sorted, k_position):
    _check_tensor(input, "topk")
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
        raise TypeError(f"topk(): argument 'k' (position {k_position}) must be int, not "
                        f"{type(k).__name__}")
    return topk_return(*Topk.apply(input, int(k), dim, bool(largest), sorted))


def _topk_method(self, k, dim=-1, largest=True, sorted=True):
    """``torch.topk(self, k, ...)`` (``Tensor.topk``)."""
    return _topk(self, k, dim, largest, sorted, 1)  # PyTorch counts k as argument 1 here


median_return = _named_pair("median")


def _lower_median_index(data, d):
    """Along ``d``: the index of the lower median ((n - 1) // 2 in a stable sort), or of the
    first nan where there is one: the element PyTorch's CPU kernel picks (ties included)."""
    n = data.shape[d]
    pick = np.take(np.argsort(data, axis=d, kind="stable"), [(n - 1) // 2], axis=d)
    if data.dtype.kind == "f":
        nan = np.isnan(data)
        first_nan = np.expand_dims(np.argmax(nan, axis=d), d)
        pick = np.where(np.any(nan, axis=d, keepdims=True), first_nan, pick)
    return pick


class MedianAll(Function):
    """The lower median of all elements (MedianBackward0); saves ``self`` and ``result``.

    For an even count the lower of the two middle values (not their mean);
    nan if any element is nan, and for an empty tensor.  The gradient goes
    to the elements equal to the result, shared evenly (PyTorch's
    ``evenly_distribute_backward``: to the nans when the result is nan).
    """

    node_name = "MedianBackward0"
    saved_names = ("self", "result")

    @staticmethod
    def forward(ctx, a):
        data = a._data
        if data.dtype == np.bool_ and data.size:  # (an empty one is answered before the kernel)
            raise NotImplementedError('"median_cpu" not implemented for \'Bool\'')
        if data.size == 0:
            # PyTorch's median of nothing: nan, cast to the dtype (the integer dtype's least
            # value, INT64_MIN or INT32_MIN; True for bool)
            kind = data.dtype.kind
            out = np.asarray(np.nan if kind == "f" else np.iinfo(data.dtype).min if kind in "iu" else True,
                             dtype=data.dtype)
        else:
            flat = data.reshape(-1)
            out = np.asarray(flat[_lower_median_index(flat, 0)[0]])
        res = _make(out)
        ctx.save_for_backward(a, res)
        return res

    @staticmethod
    def backward(ctx, grad):
        from .reductions import MaxAll

        return MaxAll.backward(ctx, grad)  # the same evenly_distribute_backward


class MedianDim(Function):
    """The lower median along ``dim`` with its index (MedianBackward1); the index gets the gradient.

    Returns ``(values, indices)``; the index of a tie is the one PyTorch's
    CPU kernel gives (the stable order's), of a row with nan its first nan.
    Saves ``dim``, ``indices``, ``keepdim`` and the input's sizes, as
    ``max(dim)``; the gradient is PyTorch's ``value_selecting_reduction_backward``.
    """

    node_name = "MedianBackward1"
    saved_names = ("indices",)
    saved_attrs = ("dim", "keepdim", "self_sym_sizes")

    @staticmethod
    def forward(ctx, a, dim, keepdim=False):
        data = a._data
        d = canonical_dim(dim, data.ndim)
        if data.ndim and data.shape[d] == 0:  # checked first, as PyTorch does
            raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
        if data.dtype == np.bool_:
            raise NotImplementedError('"median_out" not implemented for \'Bool\'')
        if data.ndim == 0:
            idx, values = np.zeros((), dtype=np.int64), data.copy()
        elif data.size == 0:
            shape = tuple(1 if i == d else s for i, s in enumerate(data.shape))
            idx, values = np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=data.dtype)
        else:
            idx = _lower_median_index(data, d)
            values = np.take_along_axis(data, idx, axis=d)
        if data.ndim and not keepdim:
            idx, values = idx.squeeze(d), values.squeeze(d)
        ctx.dim, ctx.keepdim, ctx.self_sym_sizes = as_saved_int(dim), keepdim, data.shape
        ctx._d = d
        values_t, idx_t = _make(values), _make(idx.astype(np.int64))
        ctx.mark_non_differentiable(idx_t)
        ctx.save_for_backward(idx_t)
        return values_t, idx_t

    @staticmethod
    def backward(ctx, grad, _grad_indices):
        from .reductions import _max_dim_backward

        return _max_dim_backward(ctx, grad)


def median(input, dim=None, keepdim=False):
    """The lower median (``torch.median``): of all elements, or along ``dim`` with its index.

    Without ``dim``: a 0-d tensor (MedianBackward0), the lower of the two
    middle values for an even count, nan if any element is nan.  With
    ``dim``: ``torch.return_types.median(values, indices)`` (MedianBackward1
    on the values; the indices are int64 and not differentiable).

    Raises:
        IndexError: for a dim out of range, or an empty dim to reduce
            ("median(): Expected reduction dim 1 to have non-zero size.").
    """
    if dim is None:
        return MedianAll.apply(input)
    return median_return(*MedianDim.apply(input, dim, keepdim))
