"""Changing a node's saved values after they were saved (``saved.py`` keeps them).

* ``rebind_output``: an in-place op wrote into a node's output, which the node
  saved: the saved value is now the written tensor, so that a later write is
  caught (PyTorch's ``SavedVariable`` of an output shares its version counter).
* ``entries`` and ``replace``: one saved value gets its own pack hooks
  (``node._raw_saved_x.register_hooks``, hooks.py), or forward mode re-attaches
  a tangent to a saved output (forward_ad.py).
* ``keep_as_is`` and ``keep_elsewhere``: a holder that is not a recorded node
  (a jit replay's ctx; CopySlices, whose values are the wrapped node's).
* ``note_detached``: ``detach_()`` took a saved input out of the graph.
"""

from .graph import _sequence
from .saved import Packed, SavedOutput

__all__ = []


def rebind_output(node, t, moved=None):
    """``node``'s saved output is now ``t`` (an in-place op wrote into ``t``): save ``t``.

    A later write into ``t`` is then caught, as in PyTorch.  ``moved``:
    ``(grad_fn, output_nr)`` it comes back with, for a write into a view.
    """
    kept = node._kept
    if type(kept) is not tuple:
        return kept.rebind_output(t, moved)
    for i, e in enumerate(kept):
        if type(e) is SavedOutput:
            replace(node, i, SavedOutput(t._data, t._vc, e.output_nr, moved or e.moved,
                                          e.on_unpack), t._vc[0])
        elif type(e) is Packed and e.is_output and moved is not None:
            e.origin = moved


def entries(node):
    """``(entries, versions)`` of ``node``, to read (none if kept elsewhere, or by a bare ctx)."""
    kept = getattr(node, "_kept", ())
    return (kept, node._kept_versions) if type(kept) is tuple and kept else ((), ())


def replace(node, index, entry, version=0):
    """Entry ``index`` of ``node`` becomes ``entry`` (a hook's ``Packed``; a ``SavedOutput``)."""
    kept, versions = list(node._kept), list(node._kept_versions)
    kept[index], versions[index] = entry, version
    node._kept, node._kept_versions = tuple(kept), tuple(versions)


def keep_as_is(holder, tensors):
    """Keep ``tensors`` on ``holder`` (a jit replay's ctx) as they are, with their versions now."""
    holder._kept = tensors
    holder._kept_versions = tuple(0 if t is None or t._vc is None else t._vc[0] for t in tensors)


def keep_elsewhere(node, holder):
    """``node``'s saved values are ``holder``'s: ``free``, ``records`` and ``rebind_output``
    call ``holder.free(node)``, ``holder.records(node)``, ``holder.rebind_output(t, moved)``."""
    node._kept = holder


def note_detached(t):
    """``t.detach_()``: a node recorded before now saved ``t`` with its grad_fn and must refuse
    it to a built-in formula (``saved_errors.check_not_detached``)."""
    t._detached_seq = next(_sequence)
