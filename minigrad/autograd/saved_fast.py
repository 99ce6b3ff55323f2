"""The fast paths of saved.py: the usual cases, faster, storing what the general path stores.

``Function.apply`` packs with ``pack_fast``, the engine frees with ``free_fast`` and a
formula's node reads its values as arrays with ``unpack_arrays``; each gives what
saved.py's general path (``pack``, ``free``, ``unpack``) gives, which
tests/test_fast_paths.py checks over inputs, own outputs, None, numbers, views,
inference tensors, stepped parameters and active hooks.  Read saved.py for the idea.
"""

from ..tensor import Tensor
from .saved import FREED, FREED_OUTPUT, SavedOutput, _unpack, free, pack
from .saved_hooks import hooks

__all__ = ["free_fast", "pack_fast", "unpack_arrays"]

_VERSIONS0 = tuple((0,) * n for n in range(8))  # interned all-zero versions
_ALL_FREED = tuple((FREED,) * n for n in range(8))


def pack_fast(node, tensors):
    """``pack`` (what ``Function.apply`` calls) with no hooks open: one tensor (a unary op's
    input or own output), or inputs only, keeping the tuple ``save_for_backward`` got."""
    if hooks or len(tensors) >= 8:
        return pack(node, tensors)
    if len(tensors) == 1:
        t = tensors[0]
        if type(t) is Tensor and not t._inference:
            vc = t._vc
            if t._grad_fn is node:  # its own output
                if vc is None:
                    vc = t._vc = [0]  # (its version counter, made now to be shared: _shared_vc)
                node._kept = (SavedOutput(t._data, vc, t._output_nr),)
            else:
                node._kept = tensors
            node._kept_versions = _VERSIONS0[1] if vc is None or not vc[0] else (vc[0],)
            return
    written = False  # (a parameter an optimizer has stepped: its version is > 0)
    for t in tensors:
        if t is not None:
            if t._grad_fn is node or t._inference:
                return pack(node, tensors)
            if t._vc is not None and t._vc[0]:
                written = True
    node._kept = tensors
    node._kept_versions = (
        tuple([0 if t is None or t._vc is None else t._vc[0] for t in tensors]) if written
        else _VERSIONS0[len(tensors)])


def unpack_arrays(node, dtype=None):
    """``unpack(node, formula=True)`` as numpy arrays, for a walk that records nothing.

    0-d arrays come as numpy scalars (arithmetic among them skips the ufunc machinery;
    same dtype rules); a Python number stays one (numpy then keeps the tensor's dtype,
    as PyTorch does).  Returns ``(values, same)``: ``same`` is True if every array has
    ``dtype``.  Raises as ``unpack``.
    """
    out = []
    same = True
    for e, v in zip(node._kept, node._kept_versions):
        if type(e) is SavedOutput:  # (inline: a usual case)
            arr = e.data if e.vc[0] == v else e.unpack_array(node, v)
        elif e is None:
            out.append(None)
            continue
        else:
            t = _unpack(e, v, node, True)
            if t._wrapped:
                out.append(t._data.item())
                continue
            arr = t._data
        if arr.dtype is not dtype:
            same = False
        out.append(arr if arr.ndim else arr[()])
    return out, same


def free_fast(node):
    """``free`` (what the engine calls): inputs only, or a unary op's own output."""
    kept = node._kept
    if type(kept) is tuple and len(kept) < 8:
        for e in kept:
            if type(e) is not Tensor:
                break
        else:
            node._kept = _ALL_FREED[len(kept)]
            return
        if len(kept) == 1 and type(kept[0]) is SavedOutput:
            node._kept = (FREED_OUTPUT,)
            return
    free(node)
