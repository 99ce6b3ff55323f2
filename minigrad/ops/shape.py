"""Shape primitives: ``view``/``reshape``, ``transpose``, ``permute``, ``t``, ``expand``, ``to``.

They move or reinterpret elements without arithmetic, so each backward is the
inverse movement: reshape the gradient back, transpose it back, sum an
expanded gradient back down.

Source: PyTorch's derivatives.yaml entries of the same names.
"""

import numpy as np

from .._dtype import SCALAR_TYPE_NAMES
from .._layout import contiguous_format, memory_format, preserve_format  # noqa: F401 (exported)
from .. import creation as _creation
from ..autograd.function import Function
from ..tensor import Tensor
from ._util import as_saved_int, canonical_dim, canonical_dims
from .inplace import inplace_view

__all__ = [
    "Cat",
    "Clone",
    "Expand",
    "Permute",
    "SqueezeAll",
    "SqueezeDim",
    "Stack",
    "T",
    "ToCopy",
    "Transpose",
    "UnsafeView",
    "Unsqueeze",
    "View",
    "cat",
    "clone",
    "contiguous",
    "contiguous_format",
    "expand",
    "flatten",
    "memory_format",
    "permute",
    "preserve_format",
    "reshape",
    "squeeze",
    "stack",
    "transpose",
    "unsqueeze",
    "view",
    "unbind",
    "flip",
    "repeat",
    "split",
    "chunk",
    "Flip",
    "Repeat",
    "Split",
    "SplitWithSizes",
]

_make = Tensor._make


def _infer_shape(shape, numel):
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for s in shape:
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s}")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if neg:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape[neg[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


def _shape_args(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    for s in shape:
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"shape must be a sequence of ints, got an element of type {type(s).__name__}")
    return tuple(int(s) for s in shape)


class View(Function):
    """Same elements, new shape (ViewBackward0); saves the input's sizes.

    ``reshape`` of a tensor whose memory is laid out in order is a view too,
    and PyTorch records it as ViewBackward0 as well.
    """

    _is_view = True
    _quiet_numpy = False

    node_name = "ViewBackward0"
    saved_attrs = ("self_sym_sizes",)

    @staticmethod
    def forward(ctx, a, shape, require_view=False):
        data = a._data
        shape = _infer_shape(shape, data.size)
        ctx.self_sym_sizes = data.shape
        if require_view:
            try:
                out = np.reshape(data, shape, copy=False)
            except ValueError:
                raise RuntimeError(
                    "view size is not compatible with input tensor's size and stride (at least "
                    "one dimension spans across two contiguous subspaces). Use .reshape(...) "
                    "instead."
                ) from None
            return _make(out, vc=a._shared_vc(), base=a)
        out = data.reshape(shape)
        shares = np.shares_memory(out, data) if out.size else True
        return _make(out, vc=a._shared_vc() if shares else None, base=a if shares else None)

    @staticmethod
    def formula(F, ctx, grad):
        return F.reshape(grad, ctx.self_sym_sizes), None, None


class Transpose(Function):
    """Swap two dims (TransposeBackward0); saves ``dim0`` and ``dim1``."""

    _is_view = True
    _quiet_numpy = False

    node_name = "TransposeBackward0"
    saved_attrs = ("dim0", "dim1")

    @staticmethod
    def forward(ctx, a, dim0, dim1):
        n = a._data.ndim
        d0, d1 = canonical_dim(dim0, n), canonical_dim(dim1, n)
        ctx.dim0, ctx.dim1 = as_saved_int(dim0), as_saved_int(dim1)
        ctx._d0, ctx._d1 = d0, d1
        if n == 0:
            return _make(a._data.view(), vc=a._shared_vc(), base=a)
        return _make(np.swapaxes(a._data, d0, d1), vc=a._shared_vc(), base=a)

    @staticmethod
    def formula(F, ctx, grad):
        if grad.ndim == 0:
            return grad, None, None
        return F.transpose(grad, ctx._d0, ctx._d1), None, None


class Permute(Function):
    """Reorder all dims (PermuteBackward0); saves ``dims``. ``x.T`` of a 2-d x is this."""

    _is_view = True
    _quiet_numpy = False

    node_name = "PermuteBackward0"
    saved_attrs = ("dims",)

    @staticmethod
    def forward(ctx, a, dims):
        n = a._data.ndim
        if len(dims) != n:
            raise RuntimeError(
                f"permute(sparse_coo): number of dimensions in the tensor input does not match "
                f"the length of the desired ordering of dimensions i.e. input.dim() = {n} is not "
                f"equal to len(dims) = {len(dims)}"
            )
        dd = tuple(canonical_dim(d, n) for d in dims)
        if len(set(dd)) != n:
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        ctx.dims = tuple(as_saved_int(d) for d in dims)
        ctx._perm = dd
        return _make(np.transpose(a._data, dd), vc=a._shared_vc(), base=a)

    @staticmethod
    def formula(F, ctx, grad):
        inverse = tuple(int(i) for i in np.argsort(ctx._perm))
        return F.permute(grad, inverse), None


class T(Function):
    """Transpose of a tensor of at most 2 dims (TBackward0): ``x.t()``."""

    _is_view = True
    _quiet_numpy = False

    node_name = "TBackward0"

    @staticmethod
    def forward(ctx, a):
        if a._data.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a._data.ndim}D")
        return _make(a._data.T, vc=a._shared_vc(), base=a)

    @staticmethod
    def formula(F, ctx, grad):
        return F.t(grad)


class Expand(Function):
    """Broadcast to a larger shape without copying (ExpandBackward0); saves the input's sizes."""

    _is_view = True
    _quiet_numpy = False

    node_name = "ExpandBackward0"
    saved_attrs = ("self_sym_sizes",)

    @staticmethod
    def forward(ctx, a, shape):
        data = a._data
        if len(shape) < data.ndim:
            raise RuntimeError(
                f"expand({_type_str(a)}{{[{', '.join(map(str, data.shape))}]}}, size=[{', '.join(map(str, shape))}]): "
                "the number of sizes provided "
                f"({len(shape)}) must be greater or equal to the number of dimensions in the tensor ({data.ndim})"
            )
        lead = len(shape) - data.ndim
        target = list(shape)
        for i, s in enumerate(shape):
            if s == -1:
                if i < lead:
                    raise RuntimeError("expand: -1 is not allowed in a leading, non-existing dimension")
                target[i] = data.shape[i - lead]
        for i in range(data.ndim):
            if data.shape[i] != 1 and data.shape[i] != target[lead + i]:
                raise RuntimeError(
                    f"The expanded size of the tensor ({target[lead + i]}) must match the existing "
                    f"size ({data.shape[i]}) at non-singleton dimension {lead + i}.  Target sizes: "
                    f"[{', '.join(map(str, shape))}].  Tensor sizes: [{', '.join(map(str, data.shape))}]"
                )
        ctx.self_sym_sizes = data.shape
        # writable, as PyTorch's expand (x.expand(...).zero_() is allowed); in-place
        # ops that read the overlapping elements are refused in ops/inplace.py
        out = np.lib.stride_tricks.as_strided(
            data, shape=tuple(target),
            strides=(0,) * lead + tuple(0 if data.shape[i] == 1 and target[lead + i] != 1
                                        else data.strides[i] for i in range(data.ndim)),
            writeable=data.flags.writeable,
        )
        return _make(out, vc=a._shared_vc(), base=a)

    @staticmethod
    def formula(F, ctx, grad):
        return F.sum_to(grad, ctx.self_sym_sizes), None


def _type_str(a):
    return "torch." + SCALAR_TYPE_NAMES[a.dtype.name] + "Tensor"


class ToCopy(Function):
    """Convert to another dtype (ToCopyBackward0); the gradient converts back."""

    node_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx, a, dtype):
        ctx.src = a.dtype
        return _make(a._data.astype(dtype.np, order=_preserve_order(a._data)))

    @staticmethod
    def backward(ctx, grad):
        return grad.to(ctx.src), None


class ReshapeAlias(View):
    """``reshape`` of a non-contiguous tensor that still needs no copy (ReshapeAliasBackward0)."""

    node_name = "ReshapeAliasBackward0"


def reshape(input, *shape):
    """Same elements in a new shape; one size may be -1 (``torch.reshape``).

    Like PyTorch, a view when the memory layout allows it (ViewBackward0 for
    a contiguous input, ReshapeAliasBackward0 for another), otherwise a copy
    (CloneBackward0 then UnsafeViewBackward0).

    Raises:
        RuntimeError: "shape '[4, 5]' is invalid for input of size 6".
    """
    # a new name, not `shape`: minigrad.jit reads the arguments as given (-1 stays -1)
    size = _infer_shape(_shape_args(shape), input._data.size)
    data = input._data
    if _is_viewable(data, size):
        return (View if data.flags.c_contiguous else ReshapeAlias).apply(input, size)
    return UnsafeView.apply(Clone.apply(input), size)


def view(input, *shape):
    """Like ``reshape`` but never copies (``Tensor.view``).

    Raises:
        RuntimeError: PyTorch's "view size is not compatible with input
            tensor's size and stride ..." when the memory layout forbids it.
    """
    return View.apply(input, _shape_args(shape), True)


def transpose(input, dim0, dim1):
    """Swap dims ``dim0`` and ``dim1`` (``torch.transpose``)."""
    return Transpose.apply(input, dim0, dim1)


def permute(input, *dims):
    """Reorder dims (``torch.permute``)."""
    return Permute.apply(input, _shape_args(dims))


def movedim(input, source, destination):
    """Move the dims ``source`` to the positions ``destination`` (``torch.movedim``); PermuteBackward0.

    The other dims keep their order.  ``source`` and ``destination`` are ints
    or sequences of ints of the same length.

    Raises:
        RuntimeError: PyTorch's "movedim: Invalid source or destination dims:
            ..." for lengths that differ, "movedim: repeated dim in `source`
            ([0, 0])".
        IndexError: "Dimension out of range ..." for a bad dim.
    """
    src = list(source) if isinstance(source, (tuple, list)) else [source]
    dst = list(destination) if isinstance(destination, (tuple, list)) else [destination]
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({src} dims) should contain the "
            f"same number of dims as destination ({dst} dims)")
    n = input._data.ndim
    s = [canonical_dim(d, n) for d in src]
    t = [canonical_dim(d, n) for d in dst]
    for name, given, dims in (("source", src, s), ("destination", dst, t)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({given})")
    perm = [-1] * max(n, 1)
    for a, b in zip(s, t):
        perm[b] = a
    rest = iter(d for d in range(n) if d not in s)
    perm = [next(rest) if p < 0 else p for p in perm][:n]
    if n == 0:
        return Alias.apply(input)  # a 0-d tensor: PyTorch gives an alias (AliasBackward0)
    return Permute.apply(input, tuple(perm))


def expand(input, *sizes):
    """Broadcast singleton dims to ``sizes`` (-1 keeps a size) without copying (``Tensor.expand``)."""
    sizes = _shape_args(sizes)
    if tuple(sizes) == input._data.shape:
        pass
    return Expand.apply(input, sizes)


def _preserve_order(arr):
    """numpy's copy order for PyTorch's ``preserve_format``: the input's stride order ("K").

    An expanded array (a stride of 0) is not dense: PyTorch then lays the copy
    out contiguously where numpy's "K" would put the broadcast dim last.
    """
    if any(st == 0 and n > 1 for st, n in zip(arr.strides, arr.shape)):
        return "C"
    return "K"


class Clone(Function):
    """A copy with its own memory (CloneBackward0): ``x.clone()``, ``x.contiguous()``.

    ``keep_layout`` (``clone``'s default, PyTorch's ``preserve_format``) keeps
    the order of the input's strides (numpy's ``order="K"``): the clone of a
    transposed tensor is transposed too; otherwise the copy is C-contiguous.
    """

    node_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, a, keep_layout=False):
        return _make(a._data.copy(order=_preserve_order(a._data) if keep_layout else "C"))

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class UnsafeView(Function):
    """Reshape of a fresh copy (UnsafeViewBackward0): what ``reshape`` records after a copy."""

    node_name = "UnsafeViewBackward0"
    saved_attrs = ("self_sym_sizes",)

    @staticmethod
    def forward(ctx, a, shape):
        ctx.self_sym_sizes = a._data.shape
        return _make(a._data.reshape(shape), vc=a._shared_vc(), base=a)

    @staticmethod
    def formula(F, ctx, grad):
        return F.reshape(grad, ctx.self_sym_sizes), None


class Unsqueeze(Function):
    """Insert a dim of size 1 (UnsqueezeBackward0); saves ``dim``."""

    _is_view = True
    _quiet_numpy = False

    node_name = "UnsqueezeBackward0"
    saved_attrs = ("dim",)

    @staticmethod
    def forward(ctx, a, dim):
        d = canonical_dim(dim, a._data.ndim + 1)
        ctx.dim, ctx._d = as_saved_int(dim), d
        return _make(np.expand_dims(a._data, d), vc=a._shared_vc(), base=a)

    @staticmethod
    def formula(F, ctx, grad):
        return F.squeeze(grad, ctx._d), None


class SqueezeAll(Function):
    """Remove every dim of size 1 (SqueezeBackward0); saves the input's sizes."""

    _is_view = True
    _quiet_numpy = False

    node_name = "SqueezeBackward0"
    saved_attrs = ("self_sym_sizes",)

    @staticmethod
    def forward(ctx, a):
        ctx.self_sym_sizes = a._data.shape
        return _make(np.squeeze(a._data), vc=a._shared_vc(), base=a)

    @staticmethod
    def formula(F, ctx, grad):
        return F.reshape(grad, ctx.self_sym_sizes)


class SqueezeDim(Function):
    """Remove ``dim`` if its size is 1 (SqueezeBackward1); saves dim and sizes."""

    _is_view = True
    _quiet_numpy = False

    node_name = "SqueezeBackward1"
    saved_attrs = ("dim", "self_sym_sizes")

    @staticmethod
    def forward(ctx, a, dim):
        d = canonical_dim(dim, a._data.ndim)
        ctx.dim, ctx.self_sym_sizes = as_saved_int(dim), a._data.shape
        data = a._data
        out = np.squeeze(data, d) if data.ndim and data.shape[d] == 1 else data.view()
        return _make(out, vc=a._shared_vc(), base=a)

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.self_sym_sizes), None


class SqueezeDims(Function):
    """Remove the dims in a tuple that have size 1 (SqueezeBackward2); saves dims and sizes."""

    _is_view = True
    _quiet_numpy = False

    node_name = "SqueezeBackward2"
    saved_attrs = ("dim", "self_sym_sizes")

    @staticmethod
    def forward(ctx, a, dims):
        data = a._data
        ds = canonical_dims(tuple(dims), data.ndim)  # raises for a dim given twice
        ctx.dim, ctx.self_sym_sizes = tuple(as_saved_int(d) for d in dims), data.shape
        drop = tuple(d for d in ds if data.ndim and data.shape[d] == 1)
        return _make(np.squeeze(data, drop) if drop else data.view(), vc=a._shared_vc(), base=a)

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.self_sym_sizes), None


class Alias(Function):
    """The whole tensor as a view of itself (AliasBackward0): ``x[...]``, ``x[()]``, ``x[:, :]``."""

    _is_view = True
    _quiet_numpy = False

    node_name = "AliasBackward0"

    @staticmethod
    def forward(ctx, a):
        return _make(a._data.view(), vc=a._shared_vc(), base=a)

    @staticmethod
    def backward(ctx, grad):
        return grad


_creation.register_alias(Alias.apply)  # torch.Tensor(t): an alias of t


# --- the in-place forms, x.unsqueeze_(0) and x.squeeze_(): the same views under PyTorch's
# other node names; ops/inplace.py's inplace_view gives the tensor itself the new shape and node

class UnsqueezeInplace(Unsqueeze):
    """``x.unsqueeze_(dim)`` (UnsqueezeBackward1)."""

    node_name = "UnsqueezeBackward1"
    formula = Unsqueeze.formula


class SqueezeAllInplace(SqueezeAll):
    """``x.squeeze_()`` (SqueezeBackward3)."""

    node_name = "SqueezeBackward3"
    formula = SqueezeAll.formula


class SqueezeDimInplace(SqueezeDim):
    """``x.squeeze_(dim)`` (SqueezeBackward4); also what ``matmul`` applies after a 1-d @ 2-d product."""

    node_name = "SqueezeBackward4"


class SqueezeDimsInplace(SqueezeDims):
    """``x.squeeze_(dims)`` for a tuple of dims (SqueezeBackward5)."""

    node_name = "SqueezeBackward5"


def unsqueeze_(self, dim):
    """``unsqueeze`` in place (``Tensor.unsqueeze_``): ``self``, its shape with a size-1 dim at
    ``dim``; records UnsqueezeBackward1; moves the version on (ops/inplace.py's ``inplace_view``)."""
    return inplace_view(self, UnsqueezeInplace, dim)


def squeeze_(self, dim=None):
    """``squeeze`` in place (``Tensor.squeeze_``): all size-1 dims (SqueezeBackward3), ``dim``
    (SqueezeBackward4) or those of a tuple (SqueezeBackward5); moves the version on."""
    if dim is None:
        return inplace_view(self, SqueezeAllInplace)
    if isinstance(dim, (tuple, list)):
        return inplace_view(self, SqueezeDimsInplace, tuple(dim))
    return inplace_view(self, SqueezeDimInplace, dim)


METHODS = {"unsqueeze_": unsqueeze_, "squeeze_": squeeze_}  # (attached by ops/__init__)


def _is_viewable(data, shape):
    """True if numpy can give ``shape`` without copying (PyTorch's view rule)."""
    try:
        np.reshape(data, shape, copy=False)
        return True
    except ValueError:
        return False


def unsqueeze(input, dim):
    """Insert a size-1 dim at ``dim`` (``torch.unsqueeze``); node UnsqueezeBackward0."""
    return Unsqueeze.apply(input, dim)


def squeeze(input, dim=None):
    """Remove size-1 dims (``torch.squeeze``): all of them (SqueezeBackward0), ``dim``
    (SqueezeBackward1) or those of a tuple of dims (SqueezeBackward2); a view.

    Raises:
        IndexError: "Dimension out of range ..."; RuntimeError: "dim 0 appears
            multiple times in the list of dims".
    """
    if dim is None:
        return SqueezeAll.apply(input)
    if isinstance(dim, (tuple, list)):
        return SqueezeDims.apply(input, tuple(dim))
    return SqueezeDim.apply(input, dim)


def flatten(input, start_dim=0, end_dim=-1):
    """Merge dims ``start_dim..end_dim`` into one (``torch.flatten``): a reshape."""
    n = input._data.ndim
    if n == 0:
        canonical_dim(start_dim, 0), canonical_dim(end_dim, 0)  # (0 and -1 only, as PyTorch)
        return reshape(input, 1)
    s, e = canonical_dim(start_dim, n), canonical_dim(end_dim, n)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shape = input._data.shape
    merged = 1
    for k in range(s, e + 1):
        merged *= shape[k]
    return reshape(input, *(shape[:s] + (merged,) + shape[e + 1:]))


def clone(input, *, memory_format=None):
    """A copy with its own memory (``torch.clone``); node CloneBackward0.

    Args:
        input (Tensor): any shape and dtype.
        memory_format: ``preserve_format`` (the default, as PyTorch's: the copy
            keeps ``input``'s stride order, so a transposed tensor's clone is
            not contiguous) or ``contiguous_format`` (a C-ordered copy).

    Raises:
        TypeError: for another ``memory_format``.
    """
    if memory_format is None or memory_format is preserve_format:
        return Clone.apply(input, True)
    if memory_format is contiguous_format:
        return Clone.apply(input)
    raise TypeError(f"clone(): memory_format must be minigrad.preserve_format or "
                    f"minigrad.contiguous_format, not {memory_format!r}")


def contiguous(input):
    """``input`` itself if its memory is in order, else a copy (``Tensor.contiguous``)."""
    if input._data.flags.c_contiguous:
        return input
    return Clone.apply(input)


class Flip(Function):
    """Reverse the order along ``dims`` (FlipBackward0); the gradient flips back."""

    node_name = "FlipBackward0"
    saved_attrs = ("dims",)

    @staticmethod
    def forward(ctx, a, dims):
        dd = tuple(canonical_dim(d, a._data.ndim) for d in dims)
        if not a._data.ndim:
            dd = ()  # a 0-d tensor accepts dim 0 / -1 and flips to itself
        ctx.dims, ctx._dd = tuple(as_saved_int(d) for d in dims), dd
        return _make(np.flip(a._data, dd).copy() if dd else a._data.copy())

    @staticmethod
    def backward(ctx, grad):
        return Flip.apply(grad, ctx._dd), None


class Repeat(Function):
    """Tile the tensor ``repeats`` times along each dim (RepeatBackward0); backward sums the tiles."""

    node_name = "RepeatBackward0"
    saved_attrs = ("repeats", "self_sym_sizes")

    @staticmethod
    def forward(ctx, a, repeats):
        data = a._data
        if len(repeats) < data.ndim:
            raise RuntimeError(
                "Number of dimensions of repeat dims can not be smaller than number of "
                "dimensions of tensor"
            )
        ctx.repeats, ctx.self_sym_sizes = tuple(repeats), data.shape
        lead = len(repeats) - data.ndim
        return _make(np.tile(data.reshape((1,) * lead + data.shape), repeats))

    @staticmethod
    def backward(ctx, grad):
        # PyTorch's repeat_backward: the leading dims repeat added are summed away one by one;
        # then each repeated dim is split into (repeat, size) and the repeat axes are summed
        sizes, reps = ctx.self_sym_sizes, ctx.repeats
        lead = len(reps) - len(sizes)
        for _ in range(lead):
            grad = grad.sum(0)
        split, sum_dims = [], []
        for r, s in zip(reps[lead:], sizes):
            if r != 1:  # every tile adds into the original
                split.append(r)
                sum_dims.append(len(split) - 1)
            split.append(s)
        if sum_dims:
            grad = grad.reshape(*split).sum(tuple(sum_dims))
        return grad, None


def flip(input, dims):
    """Reverse the order of elements along ``dims`` (``torch.flip``); node FlipBackward0."""
    if isinstance(dims, int):
        dims = (dims,)
    return Flip.apply(input, tuple(dims))


def repeat(input, *sizes):
    """Tile along each dim (``Tensor.repeat``); node RepeatBackward0."""
    return Repeat.apply(input, _shape_args(sizes))


from .joining import (  # noqa: E402  (joining and splitting: a file of their own)
    Cat,
    Split,
    SplitWithSizes,
    Stack,
    Unbind,  # noqa: F401  (reachable from here, as before the split)
    cat,
    chunk,
    split,
    stack,
    unbind,
)

# These forwards compute with numpy alone: Function.apply need not switch
# recording off around them.
for _cls in (T, View, Transpose, Permute, Expand, UnsafeView, Unsqueeze, SqueezeAll):
    _cls._numpy_forward = True
del _cls
