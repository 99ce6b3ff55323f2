"""Writes through a view, and the as_strided views they rebuild (PyTorch's ``CopySlices``).

When an in-place op writes into a view, PyTorch rebases the view's base: the
base's new node is a ``CopySlices`` wrapping the op's own node, and the view
(and every sibling view) becomes an ``AsStridedBackward0`` view of the new
base, at the view's positions in the base's memory.  This module holds those
pieces: the positions and ``as_strided`` geometry of a view, the
``CopySlices`` node, the functions that copy values into or out of a base at
given positions (with their create_graph forms), and ``CopyBackwards``, the
copy that ``copy_`` records and CopySlices' backward runs.

Separate from ``inplace.py``, which decides when a write is allowed and how it is
recorded (and calls in here when the tensor written is a view): this is the
geometry and the nodes, with no rule of its own about when they are used.

Source: ``torch::autograd::CopySlices`` (torch/csrc/autograd/functions/tensor.cpp),
``as_strided_backward`` (torch/csrc/autograd/FunctionsManual.cpp).
"""

import numpy as np

from ..autograd import grad_kinds as _grad_kinds
from ..autograd import saved as _saved
from ..autograd import saved_edits as _edits
from ..autograd.function import Function
from ..autograd.graph import Node
from ..tensor import Tensor
from ._util import broadcast_shape

_make = Tensor._make


def _positions(root, view):
    """For each element of ``view`` (an array looking into ``root``'s memory), its flat index in ``root``.

    Computed from the two arrays' memory addresses and strides, as PyTorch's
    as_strided does; works for any view (slices, transposes, expands, ...).
    """
    base_ptr = root.__array_interface__["data"][0]
    view_ptr = view.__array_interface__["data"][0]
    # memory offset (in elements) of every element of root, and of view
    root_off = _memory_offsets(root)
    view_off = _memory_offsets(view) + (view_ptr - base_ptr) // root.itemsize
    lookup = np.full(int(root_off.max()) + 1 if root_off.size else 1, -1, dtype=np.int64)
    lookup[root_off.reshape(-1)] = np.arange(root.size)
    return lookup[view_off]


def _memory_offsets(arr):
    """The memory offset, in elements, of each element of ``arr`` from its first one."""
    off = np.zeros(arr.shape, dtype=np.int64)
    for d, (n, st) in enumerate(zip(arr.shape, arr.strides)):
        shape = [1] * arr.ndim
        shape[d] = n
        off = off + (np.arange(n) * (st // arr.itemsize)).reshape(shape)
    return off


class _HeldBy:
    """CopySlices' saved values: the wrapped node's (``saved_edits.keep_elsewhere``)."""

    __slots__ = ("node",)

    def __init__(self, node):
        self.node = node

    def free(self, _holder):
        _saved.free(self.node)

    def records(self, _holder):
        return _saved.records(self.node)

    def rebind_output(self, t, moved):
        _edits.rebind_output(self.node, t, moved)


class CopySlices(Node):
    """The base's node after an in-place op wrote into one of its views (PyTorch's ``CopySlices``).

    It wraps the in-place op's own node ``fn`` (``y[1:].mul_(w)``: a
    MulBackward0), as PyTorch does: its ``next_functions`` are the base's old
    node followed by ``fn``'s other inputs (``w``).  Backward: the view's
    part of the gradient goes through ``fn``; what ``fn`` returns for its
    first input (the view's old values) replaces that part for the base, the
    rest is passed on to ``fn``'s other inputs.

    Source: ``torch::autograd::CopySlices`` (torch/csrc/autograd/functions/tensor.cpp).
    """

    def __init__(self, base_edge, base_meta, positions, fn):
        Node.__init__(self)
        self.next_functions = (base_edge,) + tuple(fn.next_functions[1:])
        meta = fn._in_meta
        self._in_meta = (base_meta,) + tuple(meta[1:]) if meta is not None else None
        self._fn = fn
        self._positions = positions
        # its saved values are the wrapped node's: the engine frees them after this node ran
        _edits.keep_elsewhere(self, _HeldBy(fn))

    def name(self):
        """``'torch::autograd::CopySlices'``, PyTorch's name() of its C++ class."""
        return "torch::autograd::CopySlices"

    def __repr__(self):
        return f"<CopySlices object at {hex(id(self))}>"

    def apply(self, grads, F):
        if not F.records:  # (written on Tensors: an ARRAYS walk wraps and unwraps)
            return F.from_tensors(self.apply(F.to_tensors(grads), _grad_kinds.TENSORS))
        # as PyTorch's CopySlices::apply: the gradient copied into a fresh tensor of the base's
        # shape (CopyBackwards), the view's part of it cloned for ``fn``, and what ``fn`` returns
        # for the view copied back into that part (CopySlices); under create_graph these are
        # the nodes recorded, so a second derivative has PyTorch's graph
        g = grads[0]
        pos = self._positions
        result = _Copy.apply(_make(np.empty(g._data.shape, dtype=g._data.dtype)), g)
        res = self._fn.apply((_AsStrided.apply(result, pos).clone(),), F)
        r0 = res[0] if res else None
        if r0 is None:
            r0 = _make(np.zeros((), dtype=g._data.dtype))
        else:
            if r0._data.shape != pos.shape:
                r0 = r0.sum_to_size(pos.shape)
            if r0._data.dtype != g._data.dtype:
                r0 = r0.to(g._data.dtype)
        return (_CopyIntoView.apply(result, pos, r0),) + tuple(res[1:])


class _CopyIntoView(Function):
    """The base of a view written in place: its old values with the view's elements replaced.

    PyTorch's node for this is ``CopySlices``.  Backward: the old base gets the
    gradient except at the view's elements; the written values get the
    gradient at those elements.
    """

    node_name = "CopySlices"

    @staticmethod
    def _name():
        return "torch::autograd::CopySlices"

    @staticmethod
    def forward(ctx, old, positions, values):
        ctx.positions = positions
        out = old._data.copy()
        out.reshape(-1)[positions.reshape(-1)] = np.broadcast_to(values._data, positions.shape).reshape(-1)
        return _make(out)

    @staticmethod
    def backward(ctx, grad):
        pos = ctx.positions
        keep = np.ones(grad._data.size, dtype=bool)
        keep[pos.reshape(-1)] = False
        g_old = _zero_where_written(grad, keep.reshape(grad._data.shape))
        g_values = _AsStrided.apply(grad, pos) if ctx.needs_input_grad[2] else None
        return g_old, None, g_values


class _AsStrided(Function):
    """The elements of a base at given flat positions (AsStridedBackward0): a view, rebuilt.

    Backward scatter-adds into zeros of the base's shape (positions may repeat
    for an expanded view).
    """

    node_name = "AsStridedBackward0"
    saved_attrs = ("size", "stride", "storage_offset")

    @staticmethod
    def forward(ctx, base, positions, view=None):
        ctx.positions, ctx.sizes = positions, base._data.shape
        # PyTorch's _saved_size, _saved_stride, _saved_storage_offset: the view's own
        # geometry in the base's memory, when the view (an array) is given
        ctx.size, ctx.stride, ctx.storage_offset = _geometry(
            _memory_offsets(base._data).reshape(-1)[positions], view, base._data)
        return _make(base._data.reshape(-1)[positions])

    @staticmethod
    def backward(ctx, grad):
        if grad._requires_grad:  # create_graph: the nodes PyTorch's as_strided_backward records
            return (_as_strided_backward_recorded(grad, ctx.positions, ctx.sizes, ctx.stride),
                    None, None)
        return _ScatterIntoBase.apply(grad, ctx.positions, ctx.sizes), None, None


def _as_strided_backward_recorded(grad, positions, sizes, stride):
    """PyTorch's ``as_strided_backward`` as a second derivative sees it: the gradient's dims
    of size 1 squeezed (SqueezeBackward1) and those of stride 0 summed (SumBackward1), last
    dim first; written into zeros of the base's memory at the view's elements (``copy_``
    into a view of it: CopySlices; ``index_add_`` where the view repeats an element:
    IndexAddBackward0); then read back with the base's geometry (AsStridedBackward0).  The
    values are ``_ScatterIntoBase``'s."""
    for d in range(grad._data.ndim - 1, -1, -1):
        if grad._data.shape[d] == 1:
            grad, positions = grad.squeeze(d), positions.squeeze(d)
        elif stride[d] == 0:
            grad, positions = grad.sum(d, keepdim=True), np.take(positions, [0], axis=d)
    n = int(np.prod(sizes))
    storage = _make(np.zeros(n, dtype=grad._data.dtype))
    flat = positions.reshape(-1)
    if np.unique(flat).size == flat.size:
        storage = _CopyIntoView.apply(storage, positions, grad)
    else:
        storage.index_add_(0, _make(flat), grad.reshape(-1))
    return _AsStrided.apply(storage, np.arange(n).reshape(sizes))


def _geometry(positions, view=None, base=None):
    """``(size, stride, storage_offset)``, in elements, as PyTorch's ``as_strided`` takes
    them: of the array ``view`` looking into ``base``'s memory; else of a view whose
    elements lie at the memory offsets ``positions`` (a dim of size 1 then gets the
    stride a contiguous tensor would give it)."""
    size = tuple(int(n) for n in positions.shape)
    if view is not None:
        item = view.itemsize
        offset = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
        return size, tuple(int(st) // item for st in view.strides), offset // item
    if not positions.size:
        return size, tuple(0 for _ in size), 0
    first = int(positions.reshape(-1)[0])
    stride = [1] * len(size)
    for d in range(len(size) - 1, -1, -1):
        if size[d] > 1:  # the step to the next element along d
            index = [0] * len(size)
            index[d] = 1
            stride[d] = int(positions[tuple(index)]) - first
        elif d < len(size) - 1:
            stride[d] = stride[d + 1] * size[d + 1]
    return size, tuple(stride), first


class _ScatterIntoBase(Function):
    """Zeros of ``sizes`` with ``grad`` added at flat ``positions`` (the backward of _AsStrided)."""

    node_name = "AsStridedScatterBackward0"

    @staticmethod
    def forward(ctx, grad, positions, sizes):
        ctx.positions = positions
        out = np.zeros(int(np.prod(sizes)), dtype=grad._data.dtype)
        np.add.at(out, positions.reshape(-1), np.broadcast_to(grad._data, positions.shape).reshape(-1))
        return _make(out.reshape(sizes))

    @staticmethod
    def backward(ctx, gg):
        return _AsStrided.apply(gg, ctx.positions), None, None


def _zero_where_written(grad, keep):
    """``grad`` where ``keep``, an exact 0 at the overwritten elements.

    A select, as PyTorch's CopySlices (``grad_slice.copy_(...)``) and
    index_put backward write zeros: a nan or inf gradient arriving at an
    overwritten element does not reach the old values.
    """
    from .elementwise import where

    return where(_make(keep), grad, _make(np.zeros((), dtype=grad._data.dtype)))


def _zeros_like(grad):
    """The overwritten values' gradient: zeros, a constant (PyTorch's ``zeros_like(grad)``),
    so a second derivative does not flow back through the write."""
    return _make(np.zeros(grad._data.shape, dtype=grad._data.dtype))


class _Copy(Function):
    """Overwrite with ``src``, broadcast and cast (CopyBackwards): the gradient goes to ``src``."""

    node_name = "CopyBackwards"

    @staticmethod
    def _name():
        return "torch::autograd::CopyBackwards"

    @staticmethod
    def forward(ctx, a, src):
        ctx.src_dtype = src.dtype
        dst, s = a._data.shape, src._data.shape
        if s != dst:
            try:
                full = np.broadcast_shapes(dst, s)
            except ValueError:
                broadcast_shape(a, src)  # raises PyTorch's "The size of tensor a ..."
            if full != dst:
                raise RuntimeError(
                    f"output with shape {list(dst)} doesn't match the broadcast shape {list(full)}"
                )
        return _make(np.broadcast_to(src._data, dst).astype(a._data.dtype))

    @staticmethod
    def backward(ctx, grad):
        g = grad if grad.dtype is ctx.src_dtype else grad.to(ctx.src_dtype)
        return _zeros_like(grad), g
