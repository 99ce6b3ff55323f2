"""Refusing an in-place write whose input overlaps the memory it writes: PyTorch's MemoryOverlap.

``y[1:] += y[:-1]`` reads elements the same write changes: the result would
depend on the order the elements are visited in (numpy buffers the input and
gives one answer, a loop in place another).  PyTorch refuses such a write
before computing anything, and so does minigrad: an input that shares only
part of the written tensor's memory raises; the same memory in the same
layout (``x.add_(x)``) is fine, and so is memory shared in a way too hard to
tell cheaply (strided views, ``x[::2].add_(x[1::2])``), as in PyTorch.

Source: ``get_overlap_status`` and ``assert_no_partial_overlap``
(aten/src/ATen/MemoryOverlap.cpp), called by TensorIterator for every
in-place op, ``copy_`` and ``index_put_``.
"""

import numpy as np
from numpy.lib.array_utils import byte_bounds

__all__ = ["check_no_partial_overlap"]

ERR_PARTIAL_OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor "
    "refer to a single memory location. Please clone() the tensor before performing the "
    "operation.")


def check_no_partial_overlap(written, inputs):
    """Raise if any tensor among ``inputs`` shares part, not all, of ``written``'s memory.

    Args:
        written (numpy.ndarray): the array an in-place op writes into.
        inputs: the op's other arguments; Tensors among them are checked.

    Raises:
        RuntimeError: PyTorch's "unsupported operation: some elements of the
            input tensor and the written-to tensor refer to a single memory
            location. Please clone() the tensor before performing the operation."
    """
    for a in inputs:
        data = getattr(a, "_data", None)
        if type(data) is np.ndarray and _overlap(written, data) == "partial":
            raise RuntimeError(ERR_PARTIAL_OVERLAP)


def _overlap(a, b):
    """PyTorch's overlap status of two arrays: "full", "partial", or None (none, or too hard)."""
    if a is b:
        return "full"
    if not a.size or not b.size or not np.may_share_memory(a, b):
        return None
    same_layout = a.shape == b.shape and a.strides == b.strides
    if same_layout and a.ctypes.data == b.ctypes.data:
        return "full"  # (the same elements: PyTorch's FULL, or TooHard if not dense; both pass)
    if not (_dense(a) and _dense(b)):
        return None  # PyTorch's TooHard: let it pass
    if same_layout:
        return "partial"  # one dense layout, sharing memory, starting apart
    a_lo, a_hi = byte_bounds(a)
    b_lo, b_hi = byte_bounds(b)
    if a_lo == b_lo and a_hi == b_hi:
        return "full" if a.strides == b.strides else "partial"
    return "partial" if a_lo < b_hi and b_lo < a_hi else None


def _dense(a):
    """True if ``a``'s elements fill one block of memory, each once, in some order of its dims.

    PyTorch's ``is_non_overlapping_and_dense``: sorted by stride, each dim's
    stride is the product of the sizes of the dims below it.
    """
    expected = a.itemsize
    for stride, size in sorted((abs(st), n) for n, st in zip(a.shape, a.strides) if n != 1):
        if stride != expected:
            return False
        expected *= size
    return True
