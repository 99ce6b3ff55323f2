"""Cumulative sums and products: ``cumsum``, ``cumprod`` (CumsumBackward0, CumprodBackward0).

They exist here for ``prod``'s backward: PyTorch's ``prod_safe_zeros_backward``
builds "the product of all the others" from two exclusive cumulative products
(one from each side), and a second derivative through a product with zeros
goes through their gradients.  So that such a second derivative gives the
values PyTorch gives (nan and inf included), these follow PyTorch's formulas
op for op.

Source: PyTorch's derivatives.yaml (``cumsum``, ``cumprod``) and
FunctionsManual.cpp (``cumsum_backward``, ``reversed_cumsum``,
``cumprod_backward``).
"""

import builtins

import numpy as np

from .._dtype import C_TYPE_NAMES, SCALAR_TYPE_NAMES
from ..autograd.function import Function
from ..autograd.grad_mode import _state as _grad_state
from ..tensor import Tensor
from ._util import as_saved_int, canonical_dim

__all__ = ["Cumprod", "Cumsum", "cumprod", "cumprod_", "cumsum", "cumsum_"]

_make = Tensor._make


def _running(ctx, a, dim, np_fn, dtype=None):
    """The running ``np_fn`` (``np.cumsum`` / ``np.cumprod``) along ``dim``, noted on ``ctx``.

    Integers and bools are promoted to int64, as by ``torch.cumsum``, unless
    ``dtype`` (a minigrad dtype) says otherwise; a 0-d tensor (dim 0 or -1)
    gives a copy of itself.
    """
    data = a._data
    d = canonical_dim(dim, builtins.max(data.ndim, 1))
    ctx.dim, ctx._d = as_saved_int(dim), d
    if dtype is not None:
        dtype = dtype.np
    elif data.dtype.kind in "biu":
        dtype = np.dtype(np.int64)
    else:
        dtype = data.dtype
    if not data.ndim:
        return np.asarray(data, dtype=dtype).copy()
    return np.ascontiguousarray(np_fn(data, axis=d, dtype=dtype))  # PyTorch's result is contiguous


def _reversed_cumsum(w, d):
    """Σ_{j ≥ i} w_j along ``d``: PyTorch's ``reversed_cumsum`` (flip, cumsum, flip), recorded."""
    from .shape import flip

    return flip(cumsum(flip(w, (d,)), d), (d,))


class Cumsum(Function):
    """Running sum along ``dim`` (CumsumBackward0); the gradient is a reversed running sum."""

    node_name = "CumsumBackward0"
    saved_attrs = ("dim",)

    @staticmethod
    def forward(ctx, a, dim, dtype=None):
        ctx._in_dtype = a.dtype
        # + 0: PyTorch's running sum starts from +0, so a run of -0s sums to +0 (numpy's to -0)
        return _make(_running(ctx, a, dim, np.cumsum, dtype) + 0)

    @staticmethod
    def backward(ctx, grad):
        # PyTorch's cumsum_backward(grad.to(self.scalar_type()), dim): the trivial case
        # returns grad itself
        grad = _to_input_dtype(grad, ctx)
        if grad._data.size <= 1 or grad._data.shape[ctx._d] == 1:
            return grad, None, None
        return _reversed_cumsum(grad, ctx._d), None, None


def _to_input_dtype(grad, ctx):
    """``grad.to(self.scalar_type())``: a ``dtype=`` run's gradient back in the input's dtype."""
    return grad if grad.dtype is ctx._in_dtype else grad.to(ctx._in_dtype)


def _cumprod_backward_arrays(grad, x, out, d):
    """PyTorch's O(n) ``cumprod_backward`` for inputs with zeros (grad mode off), in numpy.

    Before the first zero of a row: the reversed running sum of out ⊙ grad,
    divided by the input; at the first zero: Σ_j grad_j Π_{z1<i≤j} x_i times
    the product before it; after it: 0.  (Its derivative is not cumprod's
    second derivative: PyTorch takes the O(n²) path under create_graph.)
    """
    with np.errstate(all="ignore"):  # PyTorch never warns about inf or nan
        return _cumprod_o_n(grad, x, out, d)


def _cumprod_o_n(grad, x, out, d):
    w = out * grad
    is_zero = x == 0
    csum = np.cumsum(is_zero, axis=d)
    mask = csum == 0
    wm = np.where(mask, w, 0)
    before = (np.flip(np.cumsum(np.flip(wm, d), axis=d), d) + 0) / x  # + 0: as Cumsum
    grad_input = np.where(mask, before, np.zeros_like(grad))
    mask = csum == 1
    first = np.argmax(mask, axis=d)[(slice(None),) * d + (None,)]  # max().indices: the first True
    first_mask = np.zeros_like(mask)
    np.put_along_axis(first_mask, first, True, axis=d)
    first_mask &= mask
    mask &= ~first_mask
    at_first = (np.cumprod(np.where(mask, x, 1), axis=d) * np.where(csum != 1, 0, grad)).sum(
        axis=d, keepdims=True) + 0
    before_first = np.take_along_axis(out, np.maximum(first - 1, 0), axis=d)
    at_first = at_first * np.where(first == 0, 1, before_first)
    return np.where(first_mask, at_first, grad_input)


def _cumprod_backward_recorded(grad, x, d):
    """PyTorch's O(n²) ``cumprod_backward`` (grad mode on, zeros in the input), recorded.

    For each k, the products with x_k left out (Π_{i<k} x_i · cumprod of
    x_{k+1..}), dotted with grad_{k..}: every step a recorded op, so the
    result can be differentiated again.
    """
    from .indexing import narrow
    from .reductions import prod, sum
    from .shape import cat

    n = x._data.shape[d]
    ones_size = list(x._data.shape)
    ones_size[d] = 1
    ones = _make(np.ones(ones_size, dtype=grad._data.dtype))
    grad_input = None
    for k in range(n):
        if k == 0:
            omitted = cat([ones, cumprod(narrow(x, d, 1, n - 1), d)], d)
        else:
            until_k = prod(narrow(x, d, 0, k), d, True)
            if k == n - 1:
                omitted = until_k
            else:
                from_k1 = cumprod(narrow(x, d, k + 1, n - k - 1), d)
                omitted = cat([until_k, until_k.expand_as(from_k1) * from_k1], d)
        grad_slice = sum(narrow(grad, d, k, n - k) * omitted, d).unsqueeze(d)
        grad_input = grad_slice if k == 0 else cat([grad_input, grad_slice], d)
    return grad_input


class Cumprod(Function):
    """Running product along ``dim`` (CumprodBackward0); saves its input and result.

    The gradient follows PyTorch's ``cumprod_backward``: without zeros,
    reversed_cumsum(result ⊙ grad) / input; with zeros, an O(n) masked
    formula when nothing is recorded and the O(n²) sum of left-out products
    under ``create_graph``.
    """

    node_name = "CumprodBackward0"
    saved_names = ("self", "result")
    saved_attrs = ("dim",)

    @staticmethod
    def forward(ctx, a, dim, dtype=None):
        ctx._in_dtype = a.dtype
        out = _make(_running(ctx, a, dim, np.cumprod, dtype))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        # PyTorch's cumprod_backward(grad.to(self.scalar_type()), self, dim, result)
        grad = _to_input_dtype(grad, ctx)
        x, out = ctx.saved_tensors
        d = ctx._d
        if x._data.size <= 1 or x._data.shape[d] == 1:
            return grad, None, None
        if not np.any(x._data == 0):
            return _reversed_cumsum(out * grad, d) / x, None, None
        if not _grad_state.enabled:
            return _make(_cumprod_backward_arrays(grad._data, x._data, out._data, d)), None, None
        return _cumprod_backward_recorded(grad, x, d), None, None


_NO_DIM = object()


def _arguments(name, input, dim, dtype):
    """Check ``cumsum``/``cumprod``'s arguments as PyTorch's binding does; ``dtype`` as a minigrad dtype."""
    if dim is _NO_DIM:
        raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if dtype is None:
        return None
    from .._dtype import as_dtype

    dtype = as_dtype(dtype)
    if input._requires_grad and _grad_state.enabled and not dtype.is_floating_point:
        raise RuntimeError(f"Autograd not support dtype: {SCALAR_TYPE_NAMES.get(str(dtype.np), dtype)}")
    return dtype


def cumsum(input, dim=_NO_DIM, *, dtype=None):
    """Running sum along ``dim`` (``torch.cumsum``): ``out[i] = input[0] + ... + input[i]``.

    Args:
        input (Tensor): any shape (a 0-d tensor takes dim 0 or -1).
        dim (int): the dim to run along; negative counts from the end.
        dtype: compute and return in this dtype; by default floats keep
            theirs, integers and bools give int64.

    Node CumsumBackward0 (saves ``dim``); the gradient is the reversed
    running sum of the incoming one, cast back to the input's dtype.

    Raises:
        TypeError: without ``dim`` (PyTorch's message).
        IndexError: for a dim out of range.
        RuntimeError: "Autograd not support dtype: Long" for an integer
            ``dtype`` on an input that requires grad.
    """
    return Cumsum.apply(input, dim, _arguments("cumsum", input, dim, dtype))


def cumprod(input, dim=_NO_DIM, *, dtype=None):
    """Running product along ``dim`` (``torch.cumprod``): ``out[i] = input[0] * ... * input[i]``.

    Arguments, dtypes and errors as ``cumsum``'s.  Node CumprodBackward0
    (saves ``self``, ``result`` and ``dim``); the gradient follows PyTorch's
    ``cumprod_backward``, exact with zeros in the input.
    """
    return Cumprod.apply(input, dim, _arguments("cumprod", input, dim, dtype))


def cumsum_(self, dim=_NO_DIM, *, dtype=None):
    """``cumsum`` in place (``Tensor.cumsum_``); records CumsumBackward0.

    Raises:
        RuntimeError: "Bad in-place call: input tensor dtype long int and
            output tensor dtype float should match" for a ``dtype`` other than the tensor's.
    """
    return _running_inplace("cumsum", cumsum, self, dim, dtype)


def cumprod_(self, dim=_NO_DIM, *, dtype=None):
    """``cumprod`` in place (``Tensor.cumprod_``); records CumprodBackward0."""
    return _running_inplace("cumprod", cumprod, self, dim, dtype)


def _running_inplace(name, fn, self, dim, dtype):
    from .inplace import inplace

    if dim is _NO_DIM:
        raise TypeError(f'{name}_() missing 1 required positional arguments: "dim"')
    if self._data.dtype == np.bool_:
        if self._data.ndim and self._data.size:
            raise NotImplementedError(f'"{name}_out_cpu" not implemented for \'Bool\'')
        # a 0-d or empty tensor is its own running sum: PyTorch copies it before choosing a kernel
        return inplace(self, lambda a: a.clone())
    if dtype is not None:
        from .._dtype import as_dtype

        dtype = as_dtype(dtype)
        if dtype is not self.dtype:
            raise RuntimeError(f"Bad in-place call: input tensor dtype {C_TYPE_NAMES[str(self._data.dtype)]} "
                               f"and output tensor dtype {C_TYPE_NAMES[str(dtype.np)]} should match")
    return inplace(self, lambda a: fn(a, dim, dtype=self.dtype))
