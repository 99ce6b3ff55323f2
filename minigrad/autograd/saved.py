"""A node's saved values: what ``save_for_backward`` keeps, checks on use, and frees.

A node keeps the values its gradient formula needs (PyTorch's ``SavedVariable``),
each with its version then, so that an in-place change since is caught instead of
giving a wrong gradient.  ``node._kept`` holds an entry per value (``_kept_versions``):

* ``None``: nothing was saved there;
* an input: the Tensor itself (no object per input: little for the collector);
* a ``SavedOutput``: the node's own output without the tensor object (which
  would make a node <-> output cycle);
* a ``Packed``: what a ``saved_tensors_hooks`` pack hook made of it (saved_hooks.py);
* ``FREED`` (``FREED_OUTPUT``): let go by the walk when it reached the node (after it ran);
  reading it raises "Trying to backward through the graph a second time".

Every entry but an input answers ``unpack(node, version)``.  Only this module and
saved_edits.py (in-place writes, hooks of one value, holders) touch them, and
saved_fast.py (the fast paths, the same results).  Source: ``torch::autograd::SavedVariable``
(torch/csrc/autograd/saved_variable.cpp).
"""

from collections import namedtuple

from ..tensor import Tensor
from .saved_errors import ERR_BACKWARD_TWICE, ERR_INFERENCE, check_not_detached, raise_modified
from .saved_hooks import Packed, hooks, saved_tensors_hooks

__all__ = ["SavedTensor", "saved_tensors_hooks"]

NODE_SLOTS = ("_kept", "_kept_versions")  # a node's storage; a new node starts with both ()


class SavedOutput:
    """One of the node's own outputs: its array, version counter and output number.

    ``moved``: ``(grad_fn, output_nr)`` for an output since written in place into a
    view: it comes back with the view's history (PyTorch's ``is_inplace_on_view``).
    ``on_unpack(t)``: sees each tensor ``unpack`` makes (forward mode's tangent).
    """

    __slots__ = ("data", "vc", "output_nr", "moved", "on_unpack")

    def __init__(self, data, vc, output_nr, moved=None, on_unpack=None):
        self.data, self.vc, self.output_nr = data, vc, output_nr
        self.moved, self.on_unpack = moved, on_unpack

    def unpack_array(self, node, version):
        if self.vc[0] != version:
            raise_modified(Tensor._make(self.data, vc=self.vc), node, version, True, self.output_nr)
        return self.data

    def unpack(self, node, version):
        """A new tensor on the same memory, given back as that output of ``node``."""
        grad_fn, output_nr = self.moved or (node, self.output_nr)
        out = Tensor._make(self.unpack_array(node, version), grad_fn=grad_fn, vc=self.vc)
        if output_nr:
            out._output_nr = output_nr
        if self.on_unpack is not None:
            self.on_unpack(out)
        return out


class _Freed:
    """A value the backward walk let go of: reading it raises (the one place)."""

    __slots__ = ("is_output",)
    output_nr, packed = 0, None  # (as a record shows it)

    def __init__(self, is_output):
        self.is_output = is_output

    def unpack(self, node=None, version=None):
        """Raise PyTorch's "Trying to backward through the graph a second time ..."."""
        raise RuntimeError(ERR_BACKWARD_TWICE)


FREED, FREED_OUTPUT = _Freed(False), _Freed(True)


def pack(node, tensors):
    """Store ``tensors`` (what ``save_for_backward`` got: Tensors or None) on ``node``.

    Raises:
        RuntimeError: PyTorch's "Inference tensors cannot be saved for backward. ...".
    """
    pairs = [(None, 0) if t is None else _keep(node, t) for t in tensors]
    node._kept = tuple(e for e, _ in pairs)
    node._kept_versions = tuple(v for _, v in pairs)


def _keep(node, t):
    """The entry ``node`` keeps for tensor ``t``, and its version now."""
    if t._inference:
        raise RuntimeError(ERR_INFERENCE)
    is_output = t._grad_fn is node
    if hooks and not t._wrapped:  # (Python numbers skip the hooks)
        return Packed(t, hooks[-1], is_output, t._output_nr if is_output else 0), 0
    if is_output:
        vc = t._shared_vc()
        return SavedOutput(t._data, vc, t._output_nr), vc[0]
    return t, (0 if t._vc is None else t._vc[0])


def unpack(node, formula=False):
    """The saved tensors of ``node``, checked (``ctx.saved_tensors``); ``formula``: also
    refuse an input ``detach_()`` took out of the graph since (built-in formulas do).

    Raises:
        RuntimeError: PyTorch's "Trying to backward through the graph a second time ..."
            once freed; its in-place modification error if a value changed since it was
            saved; its detached-in-place error.
    """
    return [_unpack(e, v, node, formula) for e, v in zip(node._kept, node._kept_versions)]


def _unpack(e, version, node, formula=False):
    if isinstance(e, Tensor):  # an input, kept as it is: check it
        if formula and e._grad_fn is None and e._detached_seq is not None:
            check_not_detached(e, node)
        if e._vc is not None and e._vc[0] != version:
            raise_modified(e, node, version, False)
        return e
    return None if e is None else e.unpack(node, version)


def unpack_one(node, index):
    """Saved value ``index`` of ``node`` (``node._saved_self``); None if nothing is there."""
    kept = node._kept
    return _unpack(kept[index], node._kept_versions[index], node) if index < len(kept) else None


def free(node):
    """Let go of every value ``node`` saved (the walk calls it once the node ran, or was skipped)."""
    kept = node._kept
    if type(kept) is not tuple:  # kept elsewhere (keep_elsewhere): the holder frees them
        return kept.free(node)
    freed = []
    for e in kept:
        if type(e) is Packed:
            e.packed = None  # released now, in the order saved, as PyTorch releases them
        output = type(e) is SavedOutput or (type(e) in (Packed, _Freed) and e.is_output)
        freed.append(None if e is None else FREED_OUTPUT if output else FREED)
    node._kept = tuple(freed)


SavedTensor = namedtuple("SavedTensor", "tensor version is_output output_nr packed")
SavedTensor.__doc__ = """A saved value as viz and memory see it: ``tensor`` (None once packed
or freed), ``version`` saved, ``is_output``, ``output_nr``, ``packed`` (a pack hook's, or None)."""


def records(node):
    """``node``'s saved values as ``SavedTensor`` records, made afresh (``node._saved``)."""
    kept = node._kept
    if type(kept) is not tuple:  # kept elsewhere
        return kept.records(node)
    return tuple(None if e is None else _record(e, v) for e, v in zip(kept, node._kept_versions))


def _record(e, version):
    if isinstance(e, Tensor):
        return SavedTensor(e, version, False, 0, None)
    if type(e) is SavedOutput:
        return SavedTensor(Tensor._make(e.data, vc=e.vc), version, True, e.output_nr, None)
    return SavedTensor(None, version, e.is_output, e.output_nr, e.packed)  # packed, or freed
