"""Reductions that skip nan: ``nansum`` (NansumBackward0) and ``nanmean``.

``nansum`` adds the elements that are not nan (an all-nan slice sums to 0);
its gradient is ``sum``'s, spread back over the reduced elements, times
"not nan", so a nan element gets 0.  That is a product, not a select, as in
PyTorch's ``nansum_backward``: an inf gradient arriving gives nan at a nan
element.  ``nanmean`` is ``nansum`` divided by the count of elements that
are not nan (an integer tensor): DivBackward0 over NansumBackward0, as
PyTorch composes it, nan for an all-nan slice.

Source: derivatives.yaml (``nansum``) and FunctionsManual.cpp's
``nansum_backward`` and ``sum_backward``; ``at::native::nanmean``
(ReduceOps.cpp).
"""

import numpy as np

from .._dtype import SCALAR_TYPE_NAMES
from ..autograd.function import Function
from ..tensor import Tensor
from ._util import reduction_dims
from .reductions import _raw_dims, _sum_dtype, _unsqueeze_dims

__all__ = ["Nansum", "nanmean", "nansum"]

_make = Tensor._make


class Nansum(Function):
    """The sum of the elements that are not nan, over all or over ``dim`` (NansumBackward0).

    Saves ``self``, ``dim`` (None for all, else the dims as given) and ``keepdim``.
    """

    node_name = "NansumBackward0"
    saved_names = ("self",)
    saved_attrs = ("dim", "keepdim")
    _numpy_forward = True

    @staticmethod
    def forward(ctx, a, dim, keepdim, dtype):
        data = a._data
        ctx.dim = None if dim is None else _raw_dims(dim)
        ctx.keepdim = keepdim
        ctx._dims = reduction_dims(dim, data.ndim)
        ctx._in_dtype = a.dtype
        ctx.save_for_backward(a)
        out_dtype = _sum_dtype(data, dtype)
        values = np.where(np.isnan(data), 0, data) if data.dtype.kind == "f" else data
        out = np.sum(values, axis=ctx._dims, keepdims=keepdim, dtype=out_dtype) if data.ndim else (
            values.astype(out_dtype))
        return _make(np.asarray(out + 0))  # + 0: a sum of -0s and nans is +0, as PyTorch's

    @staticmethod
    def formula(F, ctx, grad, a):
        if F.records and grad.dtype is not ctx._in_dtype:  # PyTorch's grad.to(self.scalar_type())
            grad = grad.to(ctx._in_dtype)  # (dtypes that differ: the formula runs on Tensors)
        shape = F.data(a).shape
        if not ctx.keepdim and shape and ctx.dim:  # sum_backward: unsqueeze the reduced dims
            grad = _unsqueeze_dims(grad, ctx._dims, F)
        return F.expand(grad, shape) * F.const(~np.isnan(F.data(a))), None, None, None


def _check(name, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """The sum of the elements that are not nan (``torch.nansum``); node NansumBackward0.

    Args:
        input (Tensor): any shape; integers and bools sum to int64.
        dim (int | tuple[int] | None): the dims to reduce (None or ``()``: all).
        keepdim (bool): keep reduced dims with size 1.
        dtype: compute and return in this dtype.

    The gradient is 1 at each element that is not nan, 0 at a nan.

    Raises:
        IndexError: for a dim out of range.
    """
    _check("nansum", input)
    if dtype is not None:
        from .._dtype import as_dtype

        dtype = as_dtype(dtype)
    return Nansum.apply(input, dim, keepdim, dtype)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean of the elements that are not nan (``torch.nanmean``): nansum / their count.

    Recorded as PyTorch composes it: DivBackward0 (saving the count, an int64
    tensor) over NansumBackward0; nan for a slice that is all nan.

    Raises:
        RuntimeError: "nanmean(): expected input to have floating point or
            complex dtype but got Long" for integer and bool tensors.
    """
    _check("nanmean", input)
    if input._data.dtype.kind != "f":
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype but got "
                           f"{SCALAR_TYPE_NAMES[str(input._data.dtype)]}")
    from .elementwise import Div

    data = input._data
    dims = reduction_dims(dim, data.ndim)
    count = np.sum(~np.isnan(data), axis=dims, keepdims=keepdim) if data.ndim else (~np.isnan(data)).astype(np.int64)
    return Div.apply(nansum(input, dim, keepdim, dtype=dtype), _make(np.asarray(count, dtype=np.int64)))
