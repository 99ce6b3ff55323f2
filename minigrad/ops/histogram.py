"""Counting values into bins: ``histogram`` and ``histc`` (``torch.histogram``, ``torch.histc``).

A course plots the distribution of a layer's activations or gradients with
``hist, edges = torch.histogram(t, density=True)``.  Neither is differentiable
in PyTorch: ``histc``'s result needs no grad; ``histogram`` of a tensor that
requires grad gives results with a NotImplemented node, whose backward raises.

Source: ``torch.histogram`` and ``torch.histc`` (aten/src/ATen/native/Histogram.cpp),
which bin as numpy's ``histogram`` does (the last bin includes its right edge).
"""

import collections

import numpy as np

from .._dtype import SCALAR_TYPE_NAMES
from ..autograd.function import Function
from ..tensor import Tensor
from .rounding_division import _unsequenced

__all__ = ["histc", "histogram"]

histogram_return = collections.namedtuple("histogram", ["hist", "bin_edges"])
histogram_return.__module__ = "torch.return_types"
histogram_return.__repr__ = lambda self: (
    f"torch.return_types.histogram(\nhist={self.hist!r},\nbin_edges={self.bin_edges!r})")


def _float_data(input, name):
    a = input._data
    if a.dtype.kind != "f":
        raise NotImplementedError(f"\"{name}\" not implemented for "
                                  f"'{SCALAR_TYPE_NAMES[str(a.dtype)]}'")
    return a


class _Histogram(Function):
    """No derivative in PyTorch: its NotImplemented node, whose backward raises."""

    node_name = "NotImplemented"

    @staticmethod
    def _name():
        return "torch::autograd::NotImplemented"

    @staticmethod
    def forward(ctx, input, bins, range_, weight, density):
        _unsequenced(ctx)
        a = _float_data(input, "histogramdd")
        edges = bins._data if isinstance(bins, Tensor) else bins
        w = None if weight is None else weight._data
        hist, edges = np.histogram(a, bins=edges, range=range_, weights=w, density=density)
        return (Tensor._make(hist.astype(a.dtype)), Tensor._make(np.asarray(edges, a.dtype)))

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError("derivative for aten::histogram is not implemented")


def histogram(input, bins=100, *, range=None, weight=None, density=False):
    """``(hist, bin_edges)``: ``input``'s values counted into ``bins`` bins (``torch.histogram``).

    Args:
        input (Tensor): float, any shape.
        bins (int | Tensor): the number of equal bins, or their edges (1-d, increasing).
        range (tuple[float, float] | None): the bins' span; default ``input``'s min and max.
        weight (Tensor | None): each value's weight (its count by default).
        density (bool): normalise so that the histogram integrates to 1.

    Raises:
        NotImplementedError: PyTorch's ``"histogramdd" not implemented for 'Long'``.
    """
    return histogram_return(*_Histogram.apply(input, bins, range, weight, density))


def histc(input, bins=100, min=0, max=0):
    """Counts of ``input`` in ``bins`` equal bins over ``[min, max]`` (the data's span when both
    are 0), the values outside left out (``torch.histc``); needs no grad."""
    a = _float_data(input, "histogram_cpu")
    lo, hi = (float(a.min()), float(a.max())) if min == 0 and max == 0 and a.size else (min, max)
    if lo == hi:
        lo, hi = lo - 1, hi + 1  # (as PyTorch: an empty span is widened by 1 each way)
    inside = a[(a >= lo) & (a <= hi)]
    return Tensor._make(np.histogram(inside, bins=bins, range=(lo, hi))[0].astype(a.dtype))
