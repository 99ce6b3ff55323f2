"""Fast paths of the small steps a Python loop repeats, when nothing is recorded (tests/test_fast_paths.py).

A learner's loop of small indexed reads and writes (``dC[ix] += demb[k, j]``
in a hand-written backward pass) spends its time in the general paths:
``indexing.getitem`` (a SelectBackward0 view per index), ``inplace.setitem``
(a CopySlices of the whole tensor) and ``inplace.inplace`` (the out-of-place
op, then a copy).  When nothing is recorded (no tensor involved requires
grad, no jit trace, no forward-mode level open) they come down to numpy:

* ``getitem_fast``, for a key of ints (Python ints or 0-d integer tensors):
  the one view the chain of selects ends in (the same memory, version
  counter, base and view bookkeeping);
* ``setitem_fast``, for such a key and a Tensor value of the written shape
  (or 0-d) and dtype: the value written into that view's memory;
* ``add_fast``, for ``x += y`` / ``x.add_(y)`` with a Tensor ``y`` of ``x``'s
  dtype and shape (or 0-d): numpy's add into ``x``.

Each moves the version on as the general path does.  Anything else, an
error included (an index out of range, a partial overlap), goes to the
general path.  These are what ``Tensor.__getitem__``, ``__setitem__``,
``__iadd__`` and ``add_`` are.
"""

import numpy as np

from ..autograd import function as _function
from ..autograd.view_history import view_root as _view_root
from ..tensor import Tensor
from . import inplace as _ip
from .indexing import getitem
from .memory_overlap import _overlap

__all__ = ["add_fast", "getitem_fast", "setitem_fast"]

_make = Tensor._make


def _int_key(key, shape):
    """``key`` as a tuple of ints in range (negatives wrapped) for an array of ``shape``, if it
    is ints and 0-d integer tensors only (or one of them); else None."""
    if type(key) is not tuple:
        key = (key,)
    if not key or len(key) > len(shape):
        return None
    ints = []
    for k, size in zip(key, shape):
        if type(k) is not int:  # (a bool is an int to Python, not to PyTorch's indexing)
            if type(k) is not Tensor or k._data.ndim or k._data.dtype.kind != "i":
                return None
            k = int(k._data)
        if not -size <= k < size:
            return None
        ints.append(k if k >= 0 else k + size)
    return tuple(ints)


def _records_nothing(t):
    """True if an op on ``t`` alone records nothing, now and for forward mode, and no trace runs."""
    return (not t._requires_grad and not _view_root(t)._requires_grad
            and not _function.is_tracing() and _ip._forward_mode.state.level is None)


def getitem_fast(self, key):
    """``getitem`` (what ``Tensor.__getitem__`` is), faster for an integer key when nothing records."""
    ints = _int_key(key, self._data.shape) if _records_nothing(self) else None
    if ints is None:
        return getitem(self, key)
    vc = self._shared_vc()
    # `...` keeps even a single element a view, as the selects do
    out = _make(self._data[ints + (Ellipsis,)], vc=vc, base=self)
    out._view_of = self  # (the selects' _note_view, in function.py)
    out._view_version = vc[0]
    return out


def setitem_fast(t, key, value):
    """``setitem`` (what ``Tensor.__setitem__`` is), faster for an integer key and a Tensor value
    of the written shape (or 0-d) and dtype when nothing records (not into an expanded tensor)."""
    if (not isinstance(value, Tensor) or value._requires_grad or t._inference
            or not _records_nothing(t)):
        return _ip.setitem(t, key, value)
    ints = _int_key(key, t._data.shape)
    if ints is None:
        return _ip.setitem(t, key, value)
    dst = t._data[ints + (Ellipsis,)]
    src = value._data
    if ((src.shape != dst.shape and src.ndim) or src.dtype != dst.dtype or 0 in t._data.strides
            or not dst.flags.writeable or _overlap(dst, src) == "partial"):
        return _ip.setitem(t, key, value)  # (its broadcasting, casts and errors)
    dst[...] = src
    t._shared_vc()[0] += 1
    return None  # (as setitem, and PyTorch's __setitem__)


@np.errstate(all="ignore")  # PyTorch never warns about an overflow (a decorator: no object per call)
def _add_into(a, b):
    np.add(a, b, out=a)


def add_fast(general):
    """``general`` (the ``add_`` method) with its fast path for a Tensor of the same dtype and
    shape (or 0-d), alpha 1, when nothing records: what ``Tensor.add_`` and ``+=`` are."""
    def add_(self, other, *, alpha=1):
        if (alpha == 1 and type(other) is Tensor and not other._requires_grad
                and not self._inference and _records_nothing(self)):
            a, b = self._data, other._data
            if (a.dtype is b.dtype and (a.shape == b.shape or not b.ndim) and a.flags.writeable
                    and 0 not in a.strides and _overlap(a, b) != "partial"):
                _add_into(a, b)
                self._shared_vc()[0] += 1
                return self
        return general(self, other, alpha=alpha)

    add_.__doc__ = general.__doc__
    add_.general = general  # (tests/test_small_fast.py compares the two)
    return add_
