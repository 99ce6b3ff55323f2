"""Joining and splitting: ``cat``, ``stack``; ``split``, ``chunk``, ``unbind``.

Joining records one node with an edge per input (CatBackward0,
StackBackward0), whose backward cuts the gradient back into the pieces.
Splitting records one node with several outputs (SplitBackward0,
SplitWithSizesBackward0, UnbindBackward0): each piece is a view of the input
and output ``i`` of that node, and the backward joins the pieces' gradients
(zeros for a piece that got none).  The pieces are views PyTorch does not
let you write into in place.

Split from ``shape.py`` (and still reachable from it).
Source: PyTorch's derivatives.yaml entries of the same names; ``chunk`` and
``split`` as ATen's TensorShape.cpp computes the sizes.
"""

import numpy as np

from ..autograd.function import Function
from ..tensor import Tensor
from ._util import as_saved_int, canonical_dim

__all__ = ["Cat", "Split", "SplitWithSizes", "Stack", "Unbind", "cat", "chunk", "split", "stack", "unbind"]

_make = Tensor._make


class Cat(Function):
    """Join tensors along an existing dim (CatBackward0); saves ``dim``."""

    node_name = "CatBackward0"
    saved_attrs = ("dim",)

    @staticmethod
    def forward(ctx, dim, *tensors):
        if not tensors:
            raise ValueError("torch.cat(): expected a non-empty list of Tensors")
        for i, t in enumerate(tensors):
            if t._data.ndim == 0:
                raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
        from .._dtype import result_type

        dt = tensors[0].dtype
        for t in tensors[1:]:
            dt = result_type(Tensor._make(np.zeros((1,), dt.np)), t)
        ctx.dim = as_saved_int(dim)
        # PyTorch's legacy rule: a 1-d empty tensor (shape [0]) takes no part, neither in
        # the dim check nor in the sizes (cat([torch.tensor([]), x], 1) is x)
        skipped = [t._data.shape == (0,) for t in tensors]
        live = [t for t, skip in zip(tensors, skipped) if not skip]
        if not live:
            ctx._d, ctx._sizes = None, [None] * len(tensors)
            return _make(np.zeros((0,), dtype=dt.np))
        ref = live[0]
        n = ref._data.ndim
        d = canonical_dim(dim, n)
        for i, t in enumerate(tensors):
            if skipped[i]:
                continue
            if t._data.ndim != n:
                raise RuntimeError(
                    f"Tensors must have same number of dimensions: got {n} and {t._data.ndim}"
                )
            for k in range(n):
                if k != d and t._data.shape[k] != ref._data.shape[k]:
                    raise RuntimeError(
                        f"Sizes of tensors must match except in dimension {d}. Expected size "
                        f"{ref._data.shape[k]} but got size {t._data.shape[k]} for tensor number "
                        f"{i} in the list."
                    )
        ctx._d = d
        ctx._sizes = [None if skip else t._data.shape[d] for t, skip in zip(tensors, skipped)]
        return _make(np.concatenate([t._data for t in live], axis=d).astype(dt.np, copy=False))

    @staticmethod
    def backward(ctx, grad):
        d = ctx._d
        out = [None]
        start = 0
        for s in ctx._sizes:
            if s is None:  # a skipped empty tensor: an empty gradient
                out.append(Tensor._make(np.zeros((0,), dtype=grad._data.dtype)))
                continue
            out.append(grad.narrow(d, start, s))
            start += s
        return tuple(out)


class Stack(Function):
    """Join tensors along a new dim (StackBackward0); saves ``dim``."""

    node_name = "StackBackward0"
    saved_attrs = ("dim",)

    @staticmethod
    def forward(ctx, dim, *tensors):
        if not tensors:
            raise RuntimeError("stack expects a non-empty TensorList")
        shape = tensors[0]._data.shape
        for i, t in enumerate(tensors):
            if t._data.shape != shape:
                raise RuntimeError(
                    f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 "
                    f"and {list(t._data.shape)} at entry {i}"
                )
        d = canonical_dim(dim, len(shape) + 1)
        ctx.dim, ctx._d, ctx._n = as_saved_int(dim), d, len(tensors)
        from .._dtype import result_type

        dt = tensors[0].dtype
        for t in tensors[1:]:
            dt = result_type(Tensor._make(np.zeros((1,), dt.np)), t)
        return _make(np.stack([t._data for t in tensors], axis=d).astype(dt.np, copy=False))

    @staticmethod
    def backward(ctx, grad):
        d = ctx._d
        return (None,) + tuple(grad.select(d, i) for i in range(ctx._n))


class Unbind(Function):
    """Split along ``dim`` into its slices, one output each (UnbindBackward0): ``for row in x``.

    One node with several outputs: each slice is output ``i`` of it
    (``(node, i)`` in its consumers' ``next_functions``).  Backward stacks the
    slices' gradients (zeros for the slices that received none).
    """

    node_name = "UnbindBackward0"
    saved_attrs = ("dim",)
    _quiet_numpy = False

    @staticmethod
    def forward(ctx, a, dim):
        data = a._data
        if data.ndim == 0:
            canonical_dim(dim, 0)  # a bad dim is named first, as in PyTorch
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        d = canonical_dim(dim, data.ndim)
        ctx.dim, ctx._d = as_saved_int(dim), d
        vc = a._shared_vc()
        lead = (slice(None),) * d  # basic indexing: each output views a's memory
        return _multi_views(a, [_make(data[lead + (i,)], vc=vc, base=a)
                                for i in range(data.shape[d])], "Unbind")

    @staticmethod
    def backward(ctx, *grads):
        return Stack.apply(ctx._d, *grads), None


def unbind(input, dim=0):
    """The slices along ``dim`` as a tuple of tensors (``torch.unbind``); iterating a tensor does this.

    Raises:
        IndexError: for a bad dim.
    """
    return Unbind.apply(input, dim)


def cat(tensors, dim=0):
    """Concatenate along ``dim`` (``torch.cat``); node CatBackward0 with one edge per tensor.

    Raises:
        RuntimeError: PyTorch's "Sizes of tensors must match except in dimension 0 ..."
        TypeError: if ``tensors`` is not a sequence of Tensors.
    """
    tensors = _tensor_list(tensors, "cat")
    return Cat.apply(dim, *tensors)


def stack(tensors, dim=0):
    """Stack along a new ``dim`` (``torch.stack``); node StackBackward0.

    Raises:
        RuntimeError: PyTorch's "stack expects each tensor to be equal size ..."
    """
    tensors = _tensor_list(tensors, "stack")
    return Stack.apply(dim, *tensors)


def _tensor_list(tensors, name):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(
            f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
            f"{type(tensors).__name__}"
        )
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, but found "
                f"element of type {type(t).__name__} at pos {i}"
            )
    return tensors


def _multi_views(base, outs, op):
    """Mark the outputs of a function returning several views (split, unbind).

    PyTorch forbids writing into them in place, or using them once their
    memory was written in place elsewhere: a single rebuilt view could not
    stand for the others (see ``autograd/view_history.py``).
    """
    vc = base._shared_vc()
    for k, t in enumerate(outs):
        t._view_of = base
        t._multi_view = (op, k)
        t._view_version = vc[0]
    return tuple(outs)


class Split(Function):
    """Cut along ``dim`` into pieces (SplitBackward0 / SplitWithSizesBackward0), one output each."""

    node_name = "SplitBackward0"
    saved_attrs = ("dim", "self_sym_sizes", "split_size")

    @staticmethod
    def forward(ctx, a, sizes, dim, split_size):
        data = a._data
        d = canonical_dim(dim, data.ndim)
        ctx.dim, ctx.self_sym_sizes, ctx.split_size = as_saved_int(dim), data.shape, split_size
        ctx._d, ctx._sizes = d, sizes
        vc = a._shared_vc()
        out, start = [], 0
        for n in sizes:
            key = (slice(None),) * d + (slice(start, start + n),)
            out.append(_make(data[key], vc=vc, base=a))
            start += n
        return _multi_views(a, out, "SplitWithSizes" if type(ctx).__name__.startswith(
            "SplitWithSizes") else "Split")

    @staticmethod
    def backward(ctx, *grads):
        return Cat.apply(ctx._d, *grads), None, None, None


class SplitWithSizes(Split):
    """``split`` with a list of sizes (SplitWithSizesBackward0)."""

    node_name = "SplitWithSizesBackward0"
    saved_attrs = ("dim", "self_sym_sizes", "split_sizes")

    @staticmethod
    def forward(ctx, a, sizes, dim, split_size):
        out = Split.forward(ctx, a, sizes, dim, split_size)
        ctx.split_sizes = tuple(sizes)
        return out


def split(input, split_size_or_sections, dim=0):
    """Pieces of ``split_size`` (the last may be smaller), or of the given sizes (``torch.split``).

    Raises:
        RuntimeError: PyTorch's message when the sizes do not add up to the dim's size.
    """
    if not input._data.ndim:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    n = input._data.shape[canonical_dim(dim, input._data.ndim)]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = [int(s) for s in split_size_or_sections]
        if sum(sizes) != n:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size "
                f"at dimension {dim}), but got split_sizes={sizes}"
            )
        return SplitWithSizes.apply(input, sizes, dim, None)
    step = int(split_size_or_sections)
    sizes = [min(step, n - i) for i in range(0, n, step)] if n else [0]
    return Split.apply(input, sizes, dim, step)


def chunk(input, chunks, dim=0):
    """``chunks`` pieces of equal size along ``dim`` (the last may be smaller) (``torch.chunk``).

    A dim of size 0 gives ``chunks`` empty pieces (SplitWithSizesBackward0), as
    PyTorch's ``chunk``, which splits with sizes then.

    Raises:
        RuntimeError: "chunk expects at least a 1-dimensional tensor"; "chunk
            expects `chunks` to be greater than 0, got: 0".
    """
    if not input._data.ndim:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = input._data.shape[canonical_dim(dim, input._data.ndim)]
    if n == 0:
        return split(input, [0] * chunks, dim)
    return split(input, -(-n // chunks), dim)
