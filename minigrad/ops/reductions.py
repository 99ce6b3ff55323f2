"""Reductions: ``sum``, ``mean``, ``max``/``min``, ``amax``/``amin``, ``logsumexp``, ``softmax``, ``prod``.

And ``sum_to_size``, that undoes broadcasting.  (``var``, ``std`` and
``norm`` are in ``statistics.py``.)

The backward of a reduction spreads the incoming gradient back over the
elements that were reduced: ``expand`` for ``sum``, ``expand / n`` for ``mean``.

Source: PyTorch's derivatives.yaml (``sum``, ``sum.dim_IntList``, ``mean``,
``mean.dim``) and ``at::sum_to``; ``prod``'s backward follows FunctionsManual.cpp's
``prod_backward`` and ``prod_safe_zeros_backward`` (running products from
``cumulative.py``).
"""

import numpy as np

from .._dtype import SCALAR_TYPE_NAMES
from .formulas import TENSOR_OPS
from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from ..tensor import Tensor
from ._util import as_saved_int, canonical_dim, canonical_dims, float32_values, reduction_dims

__all__ = [
    "Amax",
    "Amin",
    "LogSoftmax",
    "Logsumexp",
    "MaxAll",
    "MaxDim",
    "Mean",
    "MeanDim",
    "MinAll",
    "MinDim",
    "Softmax",
    "Sum",
    "SumDim",
    "amax",
    "amin",
    "log_softmax",
    "logsumexp",
    "max",
    "mean",
    "min",
    "softmax",
    "sum",
    "sum_to_size",
    "prod",
    "Prod",
    "ProdDim",
]

_make = Tensor._make
_builtin_sum = sum


def _raw_dims(dim):
    """The dims as PyTorch saves them: as given, a negative one read back as unsigned 64-bit."""
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    return tuple(as_saved_int(d) for d in dims)


def _sum_dtype(data, dtype):
    if dtype is not None:
        from .._dtype import as_dtype

        return as_dtype(dtype).np
    return np.dtype(np.int64) if data.dtype.kind in "biu" else data.dtype


def _unsqueeze_dims(grad, dims, F=TENSOR_OPS):
    """``grad`` with the reduced ``dims`` put back as size 1 (PyTorch's ``unsqueeze_multiple``).

    One ``unsqueeze`` per dim, in increasing order, so a gradient computed with
    create_graph=True records UnsqueezeBackward0 nodes as PyTorch's does.
    ``F``: the formula namespace (numpy arrays or Tensors, see ops/formulas.py).
    """
    for d in sorted(dims):
        grad = F.unsqueeze(grad, d)
    return grad


class Sum(Function):
    """Sum of all elements (SumBackward0); saves the input's sizes."""

    node_name = "SumBackward0"
    saved_attrs = ("self_sym_sizes",)

    @staticmethod
    def forward(ctx, a, dtype=None):
        ctx.self_sym_sizes = a._data.shape
        return _make(np.asarray(a._data.sum(dtype=_sum_dtype(a._data, dtype))))

    @staticmethod
    def formula(F, ctx, grad):
        return F.expand(grad, ctx.self_sym_sizes), None


class SumDim(Function):
    """Sum over ``dim`` (SumBackward1); saves dim, keepdim and the input's sizes."""

    node_name = "SumBackward1"
    saved_attrs = ("dim", "keepdim", "self_sym_sizes")

    @staticmethod
    def forward(ctx, a, dim, keepdim=False, dtype=None):
        dims = reduction_dims(dim, a._data.ndim)
        ctx.dim, ctx.keepdim, ctx.self_sym_sizes = _raw_dims(dim), keepdim, a._data.shape
        ctx._dims = dims
        out = a._data.sum(axis=dims, keepdims=keepdim, dtype=_sum_dtype(a._data, dtype))
        return _make(np.asarray(out))

    @staticmethod
    def formula(F, ctx, grad):
        if not ctx.keepdim and ctx.dim:  # dim=() reduced all: expand a 0-d grad as is
            grad = _unsqueeze_dims(grad, ctx._dims, F)
        return F.expand(grad, ctx.self_sym_sizes), None, None, None


def _mean_check(a, name="mean"):
    if a._data.dtype.kind != "f":
        kind = SCALAR_TYPE_NAMES[str(a._data.dtype)]
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
    def formula(F, ctx, grad):
        # PyTorch's mean_backward divides by a number (DivBackward1)
        return F.div_scalar(F.expand(grad, ctx.self_sym_sizes), ctx.self_sym_numel)


class MeanDim(Function):
    """Mean over ``dim`` (MeanBackward1)."""

    node_name = "MeanBackward1"
    saved_attrs = ("dim", "keepdim", "self_sym_numel", "self_sym_sizes")

    @staticmethod
    def forward(ctx, a, dim, keepdim=False):
        _mean_check(a)
        dims = reduction_dims(dim, a._data.ndim)
        ctx.dim, ctx.keepdim, ctx.self_sym_sizes = _raw_dims(dim), keepdim, a._data.shape
        ctx._dims = dims
        ctx.self_sym_numel = a._data.size
        n = 1
        for d in dims:
            n *= a._data.shape[d]
        ctx.count = n
        with np.errstate(invalid="ignore", divide="ignore"):
            out = a._data.sum(axis=dims, keepdims=keepdim, dtype=a._data.dtype) / a._data.dtype.type(n)
        return _make(np.asarray(out, dtype=a._data.dtype))

    @staticmethod
    def formula(F, ctx, grad):
        if not ctx.keepdim and ctx.dim:  # dim=() reduced all: expand a 0-d grad as is
            grad = _unsqueeze_dims(grad, ctx._dims, F)
        # PyTorch's mean_backward divides by a number (DivBackward1)
        return F.div_scalar(F.expand(grad, ctx.self_sym_sizes), ctx.count), None, None


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
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    if not size:
        return Sum.apply(input, None)  # at::sum_to's shortcut for a 0-d target: SumBackward0
    dims = tuple(range(lead)) + tuple(
        lead + i for i, (s, g) in enumerate(zip(size, shape[lead:])) if s == 1 and g != 1
    )
    out = SumDim.apply(input, dims, True, None) if dims else input
    if lead:
        out = out.reshape(size)
    return out


def _keepdim_shape(shape, dims):
    out = list(shape)
    for d in dims:
        out[d] = 1
    return tuple(out)


def _unsqueeze_to(grad, sizes, dims, keepdim):
    """A reduced gradient with its reduced dims back as size 1, so it broadcasts against the input.

    One ``unsqueeze`` per dim, as PyTorch's formulas do (UnsqueezeBackward0
    under create_graph).
    """
    if not keepdim and dims:
        grad = _unsqueeze_dims(grad, dims)
    return grad


def _check_nonempty(a, name, dims=None, given=None):
    """Refuse a reduction over nothing; ``given``: the dims as the caller wrote them (-1),
    which PyTorch's message names, the first of zero size."""
    data = a._data
    if data.size == 0 and (dims is None or any(data.shape[d] == 0 for d in dims)):
        if dims is None:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        d = next(g for g in (given or dims) if data.shape[g] == 0)  # (a negative g counts back)
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


class MaxAll(Function):
    """Largest element (MaxBackward1); ties share the gradient evenly, as in PyTorch."""

    node_name = "MaxBackward1"
    saved_names = ("self", "result")

    @staticmethod
    def forward(ctx, a):
        _check_nonempty(a, "max")
        out = _make(np.asarray(np.max(a._data)))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, r = ctx.saved_tensors
        # PyTorch's evenly_distribute_backward: a nan result came from the nans
        mask = np.isnan(a._data) if np.isnan(r._data) else a._data == r._data
        # the largest elements share the gradient; the others get an exact 0 (a select)
        count = Tensor._make(np.asarray(mask.sum(), dtype=grad._data.dtype))
        return _select(mask, (grad / count).expand(*a._data.shape))


class MinAll(MaxAll):
    """Smallest element (MinBackward1); ties share the gradient evenly."""

    node_name = "MinBackward1"

    @staticmethod
    def forward(ctx, a):
        _check_nonempty(a, "min")
        out = _make(np.asarray(np.min(a._data)))
        ctx.save_for_backward(a, out)
        return out


class MaxDim(Function):
    """Largest element along ``dim`` with its index (MaxBackward0); the index gets the gradient.

    Returns ``(values, indices)``; indices are int64 and not differentiable.
    """

    node_name = "MaxBackward0"
    saved_names = ("indices",)
    saved_attrs = ("dim", "keepdim", "self_sym_sizes")

    @staticmethod
    def forward(ctx, a, dim, keepdim=False):
        return _max_dim_forward(ctx, a, dim, keepdim, np.argmax, "max")

    @staticmethod
    def backward(ctx, grad, _grad_indices):
        return _max_dim_backward(ctx, grad)


class MinDim(Function):
    """Smallest element along ``dim`` with its index (MinBackward0)."""

    node_name = "MinBackward0"
    saved_names = ("indices",)
    saved_attrs = ("dim", "keepdim", "self_sym_sizes")

    @staticmethod
    def forward(ctx, a, dim, keepdim=False):
        return _max_dim_forward(ctx, a, dim, keepdim, np.argmin, "min")

    @staticmethod
    def backward(ctx, grad, _grad_indices):
        return _max_dim_backward(ctx, grad)


def _max_dim_forward(ctx, a, dim, keepdim, argfn, name):
    from ._util import canonical_dim

    data = a._data
    d = canonical_dim(dim, data.ndim)
    if data.ndim and data.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    if data.ndim == 0:
        idx = np.zeros((), dtype=np.int64)
        values = data.copy()
    else:
        idx = np.expand_dims(argfn(data, axis=d), d)
        values = np.take_along_axis(data, idx, axis=d)
        if not keepdim:
            idx, values = idx.squeeze(d), values.squeeze(d)
    ctx.dim, ctx.keepdim, ctx.self_sym_sizes = as_saved_int(dim), keepdim, data.shape
    ctx._d = d
    values_t, idx_t = _make(values), _make(idx.astype(np.int64))
    ctx.mark_non_differentiable(idx_t)
    ctx.save_for_backward(idx_t)
    return values_t, idx_t


def _max_dim_backward(ctx, grad):
    (idx,) = ctx.saved_tensors
    return _IndexScatter.apply(grad, idx, ctx._d, ctx.keepdim, ctx.self_sym_sizes), None, None


class _IndexScatter(Function):
    """Put ``grad`` at ``indices`` along ``dim`` into zeros of ``sizes`` (backward of max(dim))."""

    node_name = "ValueSelectingReductionBackward0"

    @staticmethod
    def forward(ctx, grad, idx, d, keepdim, sizes):
        ctx.save_for_backward(idx)
        ctx.d, ctx.keepdim = d, keepdim
        out = np.zeros(sizes, dtype=grad._data.dtype)
        if len(sizes) == 0:
            out[...] = grad._data
            return _make(out)
        g, i = grad._data, idx._data
        if not keepdim:
            g, i = np.expand_dims(g, d), np.expand_dims(i, d)
        np.put_along_axis(out, i, g, axis=d)
        return _make(out)

    @staticmethod
    def backward(ctx, gg):
        (idx,) = ctx.saved_tensors
        i = idx._data if ctx.keepdim or gg.ndim == 0 else np.expand_dims(idx._data, ctx.d)
        if gg.ndim == 0:
            return gg, None, None, None, None
        picked = _take_along(gg, i, ctx.d)
        if not ctx.keepdim:
            picked = picked.squeeze(ctx.d)
        return picked, None, None, None, None


def _take_along(t, idx, d):
    from .indexing import gather

    return gather(t, d, Tensor._make(idx))


class Amax(Function):
    """Largest values over ``dim`` (AmaxBackward0); ties share the gradient evenly."""

    node_name = "AmaxBackward0"
    saved_names = ("self", "result")
    saved_attrs = ("dim", "keepdim")
    _reduce, _op = staticmethod(np.max), "amax"  # (not _name: the naming hook)

    @classmethod
    def forward(cls, ctx, a, dim, keepdim=False):
        return _amax_forward(ctx, a, dim, keepdim, cls._reduce, cls._op)

    @staticmethod
    def backward(ctx, grad):
        return _amax_backward(ctx, grad)


class Amin(Amax):
    """Smallest values over ``dim`` (AminBackward0); ties share the gradient evenly."""

    node_name = "AminBackward0"
    _reduce, _op = staticmethod(np.min), "amin"


def _amax_forward(ctx, a, dim, keepdim, fn, name):
    dims = canonical_dims(dim if dim != () else None, a._data.ndim)
    _check_nonempty(a, name, None if dim in (None, ()) else dims,
                    None if dim is None else list(dim) if isinstance(dim, (tuple, list)) else [dim])
    ctx.dim, ctx.keepdim = (_raw_dims(dim) if dim is not None else ()), keepdim
    ctx._dims = dims
    out = _make(np.asarray(fn(a._data, axis=dims, keepdims=keepdim)))
    ctx.save_for_backward(a, out)
    return out


def _amax_backward(ctx, grad):
    a, r = ctx.saved_tensors
    dims = ctx._dims
    rk = r._data if ctx.keepdim else np.asarray(r._data).reshape(_keepdim_shape(a._data.shape, dims))
    mask = a._data == rk
    # PyTorch multiplies by the share here (so a negative gradient gives -0.
    # at the others), where max() selects
    share = mask / mask.sum(axis=dims, keepdims=True)
    g = _unsqueeze_to(grad, a._data.shape, dims, ctx.keepdim)
    return g * Tensor._make(share.astype(grad._data.dtype)), None, None


def _select(mask, values):
    """``values`` where ``mask`` holds, an exact 0 elsewhere (PyTorch selects; it does not multiply)."""
    from .elementwise import where

    zero = Tensor._make(np.zeros((), dtype=values._data.dtype))
    return where(Tensor._make(np.asarray(mask)), values, zero)


class Logsumexp(Function):
    """log Σ exp over ``dim``, computed stably (LogsumexpBackward0); saves self and result.

    The gradient is softmax: exp(self - result).
    """

    node_name = "LogsumexpBackward0"
    saved_names = ("self", "result")
    saved_attrs = ("dim", "keepdim")

    @staticmethod
    def forward(ctx, a, dim, keepdim=False):
        data = a._data if a._data.dtype.kind == "f" else float32_values(a._data)
        dims = reduction_dims(dim, data.ndim)
        if not keepdim and data.ndim and dim in ((), []):
            # PyTorch reduces every dim into a keepdim-shaped result first
            raise RuntimeError(f"output with shape [] doesn't match the broadcast shape "
                               f"[{', '.join('1' * data.ndim)}]")
        ctx.dim = _raw_dims(dim)
        ctx.keepdim, ctx._dims = keepdim, dims
        if data.size == 0:
            out = np.log(np.sum(np.exp(data), axis=dims, keepdims=keepdim))
        else:
            m = np.max(data, axis=dims, keepdims=True)
            m = np.where(np.isfinite(m), m, 0)
            with np.errstate(divide="ignore"):
                out = np.log(np.sum(np.exp(data - m), axis=dims, keepdims=True)) + m
            if not keepdim:
                out = out.reshape([s for i, s in enumerate(data.shape) if i not in dims])
        res = _make(np.asarray(out, dtype=data.dtype))
        ctx.save_for_backward(a, res)
        return res

    @staticmethod
    def backward(ctx, grad):
        a, r = ctx.saved_tensors
        dims = ctx._dims
        g = _unsqueeze_to(grad, a._data.shape, dims, ctx.keepdim)
        rk = _unsqueeze_to(r, a._data.shape, dims, ctx.keepdim)
        return g * (a - rk).exp(), None, None


def _float_only(a, d, name):
    """softmax and log_softmax exist for floating dtypes only (PyTorch's kernel error otherwise)."""
    data = a._data
    if data.dtype.kind != "f" and data.size:  # an empty tensor never reaches the kernel
        last = data.ndim == 0 or d == data.ndim - 1
        kernel = f"{name}_lastdim_kernel_impl" if last else f"{name}_kernel_impl"
        kind = SCALAR_TYPE_NAMES[str(data.dtype)]
        raise NotImplementedError(f'"{kernel}" not implemented for \'{kind}\'')
    return data


class Softmax(Function):
    """exp(x) / Σ exp(x) along ``dim``, shifted by the max so 1e3 logits stay finite (SoftmaxBackward0).

    Saves its result y; the vector-Jacobian product is y ⊙ (ḡ - Σ ḡ ⊙ y).
    """

    node_name = "SoftmaxBackward0"
    saved_names = ("result",)
    saved_attrs = ("dim",)

    @staticmethod
    def forward(ctx, a, dim):
        d = canonical_dim(dim, a._data.ndim)
        data = _float_only(a, d, "softmax")
        ctx.dim, ctx._d = as_saved_int(dim), d
        if data.ndim == 0:
            out = _make(np.exp(data - data) / np.exp(data - data))  # 1, or nan for inf/nan
        elif data.size == 0:
            out = _make(np.empty_like(data, order="C"))  # nothing to normalise
        else:
            e = np.exp(data - np.max(data, axis=d, keepdims=True))
            # contiguous, as PyTorch's softmax output is whatever the input's layout
            out = _make(np.ascontiguousarray(e / e.sum(axis=d, keepdims=True)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def formula(F, ctx, grad, y):
        # PyTorch's _softmax_backward_data op (a 0-d input too: its gradient is 0,
        # through the result, as PyTorch's)
        return F.softmax_backward(grad, y, ctx._d, ctx.dim), None


class LogSoftmax(Function):
    """x - logsumexp(x) along ``dim`` (LogSoftmaxBackward0); saves its result.

    The vector-Jacobian product is ḡ - exp(y) Σ ḡ.
    """

    node_name = "LogSoftmaxBackward0"
    saved_names = ("result",)
    saved_attrs = ("dim",)

    @staticmethod
    def forward(ctx, a, dim):
        d = canonical_dim(dim, a._data.ndim)
        data = _float_only(a, d, "log_softmax")
        ctx.dim, ctx._d = as_saved_int(dim), d
        if data.ndim == 0:
            out = _make(np.asarray(data - data))  # 0, or nan for inf/nan
        elif data.size == 0:
            out = _make(np.empty_like(data, order="C"))
        else:
            shifted = data - np.max(data, axis=d, keepdims=True)
            out = _make(np.ascontiguousarray(
                shifted - np.log(np.exp(shifted).sum(axis=d, keepdims=True))))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def formula(F, ctx, grad, y):
        return F.log_softmax_backward(grad, y, ctx._d, ctx.dim), None  # PyTorch's _log_softmax_backward_data op


def _named_pair(name):
    import collections

    cls = collections.namedtuple(name, ["values", "indices"])
    cls.__module__ = "torch.return_types"

    def _repr(self):
        return f"torch.return_types.{name}(\nvalues={self.values!r},\nindices={self.indices!r})"

    cls.__repr__ = _repr
    return cls


max_return = _named_pair("max")
min_return = _named_pair("min")


def max(input, dim=None, keepdim=False, *, other=None):
    """Largest element; with ``dim``, ``(values, indices)`` along it (``torch.max``).

    ``max(a, b)`` with a tensor second argument is ``maximum``.

    Raises:
        IndexError: for a bad dim or an empty reduced dim.
        RuntimeError: for an empty input without dim.
    """
    if isinstance(dim, Tensor):
        from . import maximum

        return maximum(input, dim)
    if dim is None:
        return MaxAll.apply(input)
    return max_return(*MaxDim.apply(input, dim, keepdim))


def min(input, dim=None, keepdim=False):
    """Smallest element; with ``dim``, ``(values, indices)`` along it (``torch.min``)."""
    if isinstance(dim, Tensor):
        from . import minimum

        return minimum(input, dim)
    if dim is None:
        return MinAll.apply(input)
    return min_return(*MinDim.apply(input, dim, keepdim))


def amax(input, dim=(), keepdim=False):
    """Largest values over ``dim`` (all dims by default); ties share the gradient (``torch.amax``)."""
    return Amax.apply(input, dim if dim != () else None, keepdim)


def amin(input, dim=(), keepdim=False):
    """Smallest values over ``dim``; ties share the gradient (``torch.amin``)."""
    return Amin.apply(input, dim if dim != () else None, keepdim)


def logsumexp(input, dim, keepdim=False):
    """log(Σ exp(x)) over ``dim``, stable for large inputs (``torch.logsumexp``)."""
    return Logsumexp.apply(input, dim, keepdim)


_NO_DIM = object()


def _require_dim(dim, name):
    if dim is _NO_DIM:
        # PyTorch's binding requires dim here (only F.softmax picks one for you)
        raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')


def softmax(input, dim=_NO_DIM, dtype=None):
    """Softmax along ``dim`` (``torch.softmax``): finite for logits of magnitude 1e3.

    Raises:
        TypeError: PyTorch's 'softmax() missing 1 required positional
            arguments: "dim"' without ``dim`` (``F.softmax`` picks one).
    """
    _require_dim(dim, "softmax")
    if dtype is not None:
        input = input.to(dtype)
    return Softmax.apply(input, dim)


def log_softmax(input, dim=_NO_DIM, dtype=None):
    """Log-softmax along ``dim`` (``torch.log_softmax``): finite for logits of magnitude 1e3.

    Raises:
        TypeError: without ``dim``, as ``softmax``.
    """
    _require_dim(dim, "log_softmax")
    if dtype is not None:
        input = input.to(dtype)
    return LogSoftmax.apply(input, dim)


def _prod_safe_zeros_backward(grad, inp, d):
    """PyTorch's ``prod_safe_zeros_backward``: grad times the product of the others along ``d``.

    The product of the others is the exclusive running product from the left
    times the one from the right (for [a, b, c]: [1, a, ab] ⊙ [bc, c, 1]),
    exact with zeros; every step recorded, so that a second derivative takes
    the same path through ``cumprod``'s gradient as PyTorch's.
    """
    from .cumulative import cumprod
    from .indexing import narrow
    from .shape import cat, flip

    shape = inp._data.shape
    if inp._data.size == 0:
        return grad.expand_as(inp)
    n = shape[d]
    if n == 1:
        return grad
    ones = _make(np.ones(shape[:d] + (1,) + shape[d + 1:], dtype=grad._data.dtype))
    exclusive_normal = cumprod(cat([ones, narrow(inp, d, 0, n - 1)], d), d)
    narrow_reverse = flip(narrow(inp, d, 1, n - 1), (d,))
    exclusive_reverse = flip(cumprod(cat([ones, narrow_reverse], d), d), (d,))
    return grad * (exclusive_normal * exclusive_reverse)


class Prod(Function):
    """Product of all elements (ProdBackward0); saves its input and result."""

    node_name = "ProdBackward0"
    saved_names = ("self", "result")

    @staticmethod
    def forward(ctx, a):
        out = _make(np.asarray(np.prod(a._data, dtype=_sum_dtype(a._data, None))))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, r = ctx.saved_tensors
        data = a._data
        if data.ndim == 0:
            return grad * 1  # PyTorch's prod_backward returns grad: no dependence on the input
        zeros = np.count_nonzero(data == 0)
        if not zeros:
            return grad * (r / a)  # PyTorch's grad * (result / input); recorded
        if zeros > 1 and not is_grad_enabled():
            # PyTorch's shortcut when nothing is recorded: two zeros make every
            # partial product 0, whatever the incoming gradient (even inf or nan)
            return _make(np.zeros_like(data))
        from .shape import contiguous, view

        flat = view(contiguous(a), -1)
        return view(_prod_safe_zeros_backward(grad, flat, 0), *data.shape)


class ProdDim(Function):
    """Product along ``dim`` (ProdBackward1); saves its input and result."""

    node_name = "ProdBackward1"
    saved_names = ("self", "result")
    saved_attrs = ("dim", "keepdim")

    @staticmethod
    def forward(ctx, a, dim, keepdim=False):
        d = canonical_dim(dim, a._data.ndim)
        ctx.dim, ctx.keepdim, ctx._d = as_saved_int(dim), keepdim, d
        out = _make(np.asarray(np.prod(a._data, axis=d, keepdims=keepdim,
                                       dtype=_sum_dtype(a._data, None))))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, r = ctx.saved_tensors
        data = a._data
        if data.ndim == 0:
            return grad * 1, None, None  # the product of one value: the value itself
        g = _unsqueeze_to(grad, data.shape, (ctx._d,), ctx.keepdim)
        if np.all(data != 0):
            return g * (_unsqueeze_to(r, data.shape, (ctx._d,), ctx.keepdim) / a), None, None
        return _prod_safe_zeros_backward(g, a, ctx._d), None, None


def prod(input, dim=None, keepdim=False):
    """Product of elements, over all or along ``dim`` (``torch.prod``); exact with zeros."""
    if dim is None:
        return Prod.apply(input)
    return ProdDim.apply(input, dim, keepdim)


# These forwards compute with numpy alone: Function.apply need not switch
# recording off around them.
for _cls in (Sum, SumDim, Mean, MeanDim, LogSoftmax,):
    _cls._numpy_forward = True
del _cls
