"""A view's history after its memory was written in place: rebuilt before it is used.

``y = x * 1; a = y[0]; y.mul_(2)`` rebases ``y`` (its grad_fn becomes
``MulBackward0`` of the old history), but ``a``'s recorded history still
describes the old ``y``.  As PyTorch does, the first time ``a`` is used (an
op records it, or ``a.grad_fn`` is read) its grad_fn is rebuilt as an
``AsStridedBackward0`` view of its base's current history, so no gradient is
silently lost.  Which views are out of date is read from the version counter
a view shares with its base.

Source: PyTorch's ``VariableHooks::grad_fn`` and ``ViewInfo``
(torch/csrc/autograd/variable.cpp).
"""

from ..tensor import Tensor
from . import grad_mode

__all__ = ["is_current", "refresh_view", "view_root"]

_state = grad_mode._state


def view_root(t):
    """The tensor whose memory the (differentiable) view ``t`` looks into."""
    while t._view_of is not None:
        t = t._view_of
    return t


def is_current(v):
    """True if view ``v``'s memory was not written in place since its grad_fn was made."""
    vc = v._vc
    return vc is None or vc[0] == v._view_version


def refresh_view(v):
    """Rebuild a view's grad_fn when its memory was written in place since it was made.

    ``y = x * 1; a = y[0]; b = y[:2]; b.mul_(2)`` rebases ``y`` (CopySlices):
    ``a`` still shows the old ``y``'s history, but its values are the new
    ones.  As PyTorch does, ``a`` becomes an ``AsStridedBackward0`` view of
    its base's current history before it is used, so no gradient is
    silently lost.  The same happens after a write under ``no_grad`` (an
    optimizer's step into a weight a view was taken of): the version counter
    they share says the view's recorded history is out of date.
    """
    if is_current(v):
        return
    vc = v._vc
    root = view_root(v)
    if root._grad_fn is None and not root._requires_grad:
        v._view_version = vc[0]
        return
    if v._no_grad_view:
        raise RuntimeError(
            "A view was created in no_grad mode and its base or another view of its base has been "
            "modified inplace with grad mode enabled. Given that this use case is ambiguous and "
            "error-prone, it is forbidden. You can clarify your code by moving both the view and "
            "the inplace either both inside the no_grad block (if you don't want the inplace to "
            "be tracked) or both outside (if you want the inplace to be tracked).")
    named = _view_ops.multi_view_name(v)
    if named is not None:
        op, nr = named
        raise RuntimeError(
            f"Output {nr} of {op} is a view and its base or another view of its base has been "
            "modified inplace. This view is the output of a function that returns multiple "
            "views. Such functions do not allow the output views to be modified inplace. You "
            "should replace the inplace operation by an out-of-place one.")
    if root._grad_fn is not None:
        alias = Tensor._make(root._data, grad_fn=root._grad_fn)
        alias._output_nr = root._output_nr
    else:
        alias = root  # a leaf: the rebuilt view leads to its AccumulateGrad
    positions = _view_ops.positions(root._data, v._data)
    prev = _state.enabled
    _state.enabled = True
    try:
        fresh = _view_ops.as_strided(alias, positions, v._data)
    finally:
        _state.enabled = prev
    v._grad_fn = fresh._grad_fn
    v._output_nr = 0
    v._requires_grad = True
    v._view_version = vc[0]
    if v._retains_grad:
        v._add_retain_hook()  # retain_grad follows the rebuilt grad_fn, as after an in-place op


# ------------------------------------------------------------ registration slot
# The rebuilt grad_fn is an operation's (AsStridedBackward0), a layer above the core:
# ops/inplace.py fills this slot with as_strided (``_AsStrided.apply``), positions
# (where a view's elements sit in its base) and multi_view_name.
_view_ops = None


def register_view_ops(namespace):
    """Called by ``minigrad/ops/inplace.py``."""
    global _view_ops
    _view_ops = namespace
