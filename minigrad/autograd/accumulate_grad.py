"""How ``AccumulateGrad`` stores a leaf's gradient in ``.grad`` (graph.py calls these).

* The first gradient is taken over, not copied, when nothing else holds it: the
  walk made it and no one else will see it.  PyTorch decides this by the tensor's
  ``use_count()``; minigrad by ``sys.getrefcount`` (``_can_take_over``).  So the
  first backward of a large model allocates no second copy of each gradient
  (tests/test_accumulate_takeover.py counts the copies).
* Later ones are added in place, so ``.grad`` sums over backward calls until reset.
* Under ``create_graph=True`` ``.grad`` is recorded, so that it can be differentiated again.

Source: ``AccumulateGrad::accumulateGrad`` (torch/csrc/autograd/functions/accumulate_grad.h).
"""

import sys

import numpy as np

from ..tensor import Tensor

__all__ = []


def _accumulate_recorded(old, grad):
    """Under ``create_graph=True``, ``.grad`` is recorded, so that it can be differentiated
    again: the first a copy (PyTorch's CopyBackwards), later ones added out of place."""
    if old is None:
        return _recorded_copy(Tensor._make(np.empty_like(grad._data)), grad)
    return old + grad


def _first_grad(grad, like, F):
    """The array ``.grad`` keeps for the first gradient: ``grad`` itself if nothing else
    holds it (``_can_take_over``), else a copy."""
    if _can_take_over(grad, like):
        return grad
    return _own(grad._data if F.records else grad)


def _add_into(var, grad):
    """Add array ``grad`` into ``var.grad``: in place (a ``.grad`` recorded by create_graph
    keeps its grad_fn), or out of place if its memory is read-only."""
    old = var._grad
    if old._data.flags.writeable:
        old._add_inplace_raw(grad)
    else:
        var._grad = Tensor._make(old._data + grad)


def _can_take_over(grad, like):
    """True if ``grad`` may become ``.grad`` as it is, not copied: PyTorch's ``use_count()``
    check in accumulate_grad.h.  A numpy array (a Tensor belongs to its caller) that only
    the walk refers to (or to the array it views), laid out as the leaf ``like`` is."""
    if type(grad) is not np.ndarray or not grad.flags.writeable or (
            grad.flags.c_contiguous != like.flags.c_contiguous):
        return False
    # references: the walk's buffer, the names `grad` in AccumulateGrad.apply and
    # _first_grad, this function's argument and getrefcount's (_WALK_REFS); one more is
    # someone else's
    if sys.getrefcount(grad) > _WALK_REFS:
        return False
    owner = grad.base
    if owner is None:
        return True
    # a view (w.grad as the transpose of a product): its memory must be the view's
    # alone (referenced by this view, the name `owner` and getrefcount's argument)
    return (type(owner) is np.ndarray and owner.nbytes == grad.nbytes
            and sys.getrefcount(owner) <= 3)


_WALK_REFS = 5  # see _can_take_over


def _own(array):
    """A gradient array that ``.grad`` may own: a copy (the incoming one may be shared:
    AddBackward0 sends the same array to both inputs)."""
    return np.array(array, copy=True)


# ------------------------------------------------------------ registration slot
# create_graph's first .grad is a recorded copy (CopyBackwards): an op, a layer above.
_recorded_copy = None  # _recorded_copy(dst, src): filled by ops/inplace.py with _Copy.apply


def register_recorded_copy(fn):
    """Called by ``minigrad/ops/inplace.py``."""
    global _recorded_copy
    _recorded_copy = fn
