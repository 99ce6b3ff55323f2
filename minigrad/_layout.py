"""How a tensor's dimensions and memory are named: dim wrapping and memory formats.

Below the Tensor, beside dtypes and devices: ``Tensor.size(dim)`` reads a dim
here, and the operations that copy (``clone``, retain_grad's copy) name their
layout with a ``memory_format``.

Source: c10/core/WrapDimMinimal.h (``maybe_wrap_dim``) and
c10/core/MemoryFormat.h (``torch.memory_format``).
"""

import numpy as np

__all__ = ["canonical_dim", "contiguous_format", "memory_format", "preserve_format"]


def canonical_dim(dim, ndim):
    """A dim in ``[-ndim, ndim)`` as a non-negative index (0-d tensors accept -1 and 0).

    Raises:
        IndexError: PyTorch's "Dimension out of range (expected to be in range
            of [-2, 1], but got 2)".
        TypeError: if ``dim`` is not an int.
    """
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(f"dim must be an int, not {type(dim).__name__}")
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return int(dim) % n if ndim else 0


class memory_format:
    """How a copy lays out its memory (``torch.memory_format``): ``preserve_format``, ``contiguous_format``."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"minigrad.{self.name}"


preserve_format = memory_format("preserve_format")
contiguous_format = memory_format("contiguous_format")
