"""``F.pad`` in constant mode: widen (or, with negative amounts, crop) the last dims.

``pad = (left, right)`` pads the last dim, ``(left, right, top, bottom)`` the
last two, and so on, with ``value`` (default 0).  One primitive, as in
PyTorch: ``constant_pad_nd`` (ConstantPadNdBackward0, saving ``pad``).  Its
gradient is the same op with the amounts negated (the padding cropped away
again), so the gradient of a gradient is ConstantPadNdBackward0 once more.

Dtypes: any; ``value`` is cast to the input's dtype (2.5 pads an int64
tensor with 2, as PyTorch).

Source: torch/nn/functional.py (``pad``), ATen's PadNd.cpp
(``constant_pad_nd``), derivatives.yaml (``constant_pad_nd``).
"""

import numpy as np

from ..autograd.function import Function
from ..tensor import Tensor

__all__ = ["pad"]

_make = Tensor._make


def _check(ndim, pad, shape):
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension {ndim}")
    for i in range(len(pad) // 2):
        dim = ndim - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        # negative amounts crop first (ATen narrows): nothing may be left to crop
        if shape[dim] - max(-left, 0) - max(-right, 0) < 0:
            raise RuntimeError("narrow(): length must be non-negative.")


class ConstantPadNd(Function):
    """``constant_pad_nd(self, pad, value)`` (ConstantPadNdBackward0); saves ``pad``."""

    node_name = "ConstantPadNdBackward0"
    saved_attrs = ("pad",)
    _numpy_forward = True

    @staticmethod
    def kernel(a, pad, value=0):
        """``a`` padded (or cropped, for negative amounts) by ``pad``, filled with ``value``."""
        shape, src, dst = list(a.shape), [slice(None)] * a.ndim, [slice(None)] * a.ndim
        for i in range(len(pad) // 2):
            dim = a.ndim - 1 - i
            left, right = pad[2 * i], pad[2 * i + 1]
            n = a.shape[dim]
            shape[dim] = n + left + right
            # the input's kept range and where it lands in the output
            src[dim] = slice(max(-left, 0), n - max(-right, 0))
            dst[dim] = slice(max(left, 0), max(left, 0) + max(n - max(-left, 0) - max(-right, 0), 0))
        out = np.full(shape, value, dtype=a.dtype) if value else np.zeros(shape, dtype=a.dtype)
        out[tuple(dst)] = a[tuple(src)]
        return out

    @staticmethod
    def forward(ctx, x, pad, value=0):
        # PyTorch saves the amounts as unsigned 64-bit: -1 shows as 18446744073709551615
        ctx.pad = tuple(p % 2**64 for p in pad)
        ctx._pad = pad
        return _make(ConstantPadNd.kernel(x._data, pad, x._data.dtype.type(value)))

    @staticmethod
    def formula(F, ctx, grad):
        return F.call(ConstantPadNd, grad, tuple(-p for p in ctx._pad)), None, None


def pad(input, pad, mode="constant", value=None):
    """Pad the last ``len(pad) // 2`` dims of ``input`` (``F.pad``); only ``mode='constant'`` here.

    Args:
        input (Tensor): any shape and dtype.
        pad (tuple[int, ...]): (left, right) for the last dim, then the one before, ...;
            negative amounts crop.
        mode (str): "constant" ("reflect", "replicate" and "circular" are not implemented).
        value (float | None): the fill value (default 0).

    Returns:
        Tensor: each padded dim grows by left + right.  Node ConstantPadNdBackward0.

    Raises:
        RuntimeError: "Padding length must be divisible by 2"; "Padding length
            should be less than or equal to two times the input dimension but
            got padding length 6 and input of dimension 2"; "narrow(): length
            must be non-negative." when negative amounts crop more than there is.
        NotImplementedError: "Unrecognised padding mode foo"; the other modes here.
    """
    if mode != "constant":
        if mode in ("reflect", "replicate", "circular"):
            raise NotImplementedError(f"minigrad: F.pad supports mode='constant' only, not {mode!r}")
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    pad = tuple(int(p) for p in pad)
    _check(input.ndim, pad, input.shape)
    return ConstantPadNd.apply(input, pad, 0 if value is None else value)
