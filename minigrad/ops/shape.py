"""Shape primitives: ``view``/``reshape``, ``transpose``, ``permute``, ``t``, ``expand``, ``to``.

They move or reinterpret elements without arithmetic, so each backward is the
inverse movement: reshape the gradient back, transpose it back, sum an
expanded gradient back down.

Source: PyTorch's derivatives.yaml entries of the same names.
"""

import numpy as np

from ..autograd.function import Function
from ..tensor import Tensor
from ._util import canonical_dim, size_str

__all__ = ["View", "Transpose", "Permute", "T", "Expand", "ToCopy",
           "reshape", "view", "transpose", "permute", "expand"]

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

    node_name = "ViewBackward0"
    saved_attrs = ("self_sym_sizes",)

    @staticmethod
    def forward(ctx, a, shape, require_view=False):
        data = a._data
        shape = _infer_shape(shape, data.size)
        ctx.self_sym_sizes = data.shape
        if require_view:
            try:
                out = data.view()
                out.shape = shape  # raises if a copy would be needed
            except AttributeError:
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
    def backward(ctx, grad):
        return grad.reshape(ctx.self_sym_sizes), None, None


class Transpose(Function):
    """Swap two dims (TransposeBackward0); saves ``dim0`` and ``dim1``."""

    node_name = "TransposeBackward0"
    saved_attrs = ("dim0", "dim1")

    @staticmethod
    def forward(ctx, a, dim0, dim1):
        n = a._data.ndim
        d0, d1 = canonical_dim(dim0, n), canonical_dim(dim1, n)
        ctx.dim0, ctx.dim1 = dim0, dim1
        if n == 0:
            return _make(a._data.view(), vc=a._shared_vc(), base=a)
        return _make(np.swapaxes(a._data, d0, d1), vc=a._shared_vc(), base=a)

    @staticmethod
    def backward(ctx, grad):
        return grad.transpose(ctx.dim0, ctx.dim1), None, None


class Permute(Function):
    """Reorder all dims (PermuteBackward0); saves ``dims``. ``x.T`` of a 2-d x is this."""

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
        ctx.dims = tuple(dims)
        ctx._perm = dd
        return _make(np.transpose(a._data, dd), vc=a._shared_vc(), base=a)

    @staticmethod
    def backward(ctx, grad):
        inverse = tuple(int(i) for i in np.argsort(ctx._perm))
        return grad.permute(inverse), None


class T(Function):
    """Transpose of a tensor of at most 2 dims (TBackward0): ``x.t()``."""

    node_name = "TBackward0"

    @staticmethod
    def forward(ctx, a):
        if a._data.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a._data.ndim}D")
        return _make(a._data.T, vc=a._shared_vc(), base=a)

    @staticmethod
    def backward(ctx, grad):
        return grad.t()


class Expand(Function):
    """Broadcast to a larger shape without copying (ExpandBackward0); saves the input's sizes."""

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
        return _make(np.broadcast_to(data, tuple(target)), vc=a._shared_vc(), base=a)

    @staticmethod
    def backward(ctx, grad):
        return grad.sum_to_size(ctx.self_sym_sizes), None


def _type_str(a):
    return {"float32": "torch.FloatTensor", "float64": "torch.DoubleTensor",
            "int64": "torch.LongTensor", "bool": "torch.BoolTensor"}[a.dtype.name]


class ToCopy(Function):
    """Convert to another dtype (ToCopyBackward0); the gradient converts back."""

    node_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx, a, dtype):
        ctx.src = a.dtype
        return _make(a._data.astype(dtype.np))

    @staticmethod
    def backward(ctx, grad):
        return grad.to(ctx.src), None


def reshape(input, *shape):
    """Same elements in a new shape; one size may be -1 (``torch.reshape``).

    Raises:
        RuntimeError: "shape '[4, 5]' is invalid for input of size 6".
    """
    return View.apply(input, _shape_args(shape))


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


def expand(input, *sizes):
    """Broadcast singleton dims to ``sizes`` (-1 keeps a size) without copying (``Tensor.expand``)."""
    sizes = _shape_args(sizes)
    if tuple(sizes) == input._data.shape:
        pass
    return Expand.apply(input, sizes)
