"""A node's saved values: what ``save_for_backward`` keeps, checks on use, and frees.

A node keeps the values its gradient formula needs (PyTorch's
``SavedVariable``): its inputs as they are, its own outputs without the tensor
object (a reference to it would be a node <-> output cycle), each with the
version it had, so that an in-place change since is caught instead of
silently giving a wrong gradient.  The backward walk frees them right after
the node ran; a second walk then finds them gone and raises PyTorch's "Trying
to backward through the graph a second time ...".  ``saved_tensors_hooks``
lets a block replace what is kept (pack) and give it back on use (unpack).

Source: ``torch::autograd::SavedVariable`` (torch/csrc/autograd/saved_variable.cpp)
and ``torch.autograd.graph.saved_tensors_hooks``.
"""

import weakref

from ..tensor import Tensor
from .graph import _sequence
from .saved_errors import ERR_BACKWARD_TWICE, check_not_detached
from .saved_errors import raise_modified as _raise_modified

__all__ = ["SavedTensor", "saved_tensors_hooks"]

# The API every other module uses (nothing else reads or writes a node's storage,
# ``node._kept`` and ``node._kept_versions``): pack (pack_fast), unpack, unpack_one,
# unpack_arrays, free, has_saved, records, rebind_output, on_unpack_output,
# keep_elsewhere, raise_freed.  A node class declares the storage with NODE_SLOTS
# and a new node starts with both empty (``()``).
NODE_SLOTS = ("_kept", "_kept_versions")


def raise_freed():
    """Raise PyTorch's "Trying to backward through the graph a second time ..." (the one place)."""
    raise RuntimeError(ERR_BACKWARD_TWICE)


_saved_hooks_stack = []


class saved_tensors_hooks:
    """Intercept every value a node saves for backward: ``pack`` on save, ``unpack`` on use.

    Inside ``with saved_tensors_hooks(pack, unpack):`` each tensor an
    operation saves is passed to ``pack(tensor)``; whatever it returns is kept
    instead of the tensor, and ``unpack(packed)`` must give back a tensor of
    the same shape and dtype when backward needs it.  A lesson uses this to
    count, log or offload saved activations.

    Args:
        pack: callable(Tensor) -> any.
        unpack: callable(any) -> Tensor.

    Source: ``torch.autograd.graph.saved_tensors_hooks``.
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _saved_hooks_stack.append((self.pack_hook, self.unpack_hook))
        # (PyTorch's __enter__ returns None: `with saved_tensors_hooks(...) as h` binds None)

    def __exit__(self, *exc):
        _saved_hooks_stack.pop()
        return False


class SavedTensor:
    """One value a node saved for its backward: PyTorch's ``SavedVariable``.

    It remembers the tensor's version when saved, so that a later in-place
    change is caught instead of silently giving a wrong gradient, and whether
    it is the node's own output: an output is stored as a detached alias (same
    array, no ``grad_fn``) because a strong reference from a node to its own
    output would be a reference cycle.

    Raises (from ``unpack``):
        RuntimeError: PyTorch's "Trying to backward through the graph a second
            time ..." once released; PyTorch's "one of the variables needed for
            gradient computation has been modified by an inplace operation ..."
            if the tensor changed since it was saved.
    """

    __slots__ = ("_is_output", "_output_nr", "_packed", "_tensor", "_unpack_hook", "_version",
                 "_origin")

    def __init__(self, tensor, version, is_output=False, output_nr=0):
        # output_nr: which output of the saving node ``tensor`` is, so that an
        # output saved by a node of several outputs comes back in its own slot
        self._tensor = tensor  # None once packed by a hook, or freed
        self._version = version
        self._is_output = is_output
        self._output_nr = output_nr
        self._packed = self._unpack_hook = self._origin = None

    @classmethod
    def save(cls, tensor, is_output=False, output_nr=0):
        """Save ``tensor`` now (PyTorch's ``SavedVariable`` constructor): a pack hook, if a
        ``saved_tensors_hooks`` block is open, takes it; else it is kept (an output as an
        alias without history: no node <-> output cycle)."""
        if tensor._inference:
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors created "
                "in inference mode in computation tracked by autograd. To work around this, you can "
                "make a clone to get a normal tensor and use it in autograd, or use "
                "`torch.no_grad()` instead of `torch.inference_mode()`."
            )
        vc = tensor._vc
        version = 0 if vc is None else vc[0]
        if not _saved_hooks_stack or tensor._wrapped:  # Python numbers skip the hooks
            return cls(Tensor._alias_of(tensor) if is_output else tensor, version, is_output,
                       output_nr)
        record = cls(None, version, is_output, output_nr)
        pack, record._unpack_hook = _saved_hooks_stack[-1]
        # What unpack must re-attach to whatever the hook gives back: the
        # node that produced the tensor, or the leaf it is.
        if not is_output and tensor._requires_grad:
            record._origin = (tensor._grad_fn, tensor._output_nr) if tensor._grad_fn else tensor
        record._packed = pack(tensor)  # an output is passed as itself, as in PyTorch
        return record

    def unpack(self, node, version=None):
        """Return the saved tensor (an output is re-attached to ``node``; the record keeps its
        own version)."""
        t = self._tensor
        if self._unpack_hook is not None:
            t = self._unpack_hook(self._packed)
            if not isinstance(t, Tensor):
                raise TypeError(
                    f"Output of saved tensor unpack_hook expected to be a Tensor but got result "
                    f"of type {type(t).__name__}"
                )
            # As PyTorch: no version check through hooks, and the value gets the
            # saved tensor's place in the graph back (for create_graph).
            origin = self._origin
            if self._is_output:
                return _reattached(t, node, self._output_nr, None, self._origin)
            if type(origin) is tuple:
                out = Tensor._make(t._data, grad_fn=origin[0])
                out._output_nr = origin[1]
                return out
            if origin is not None:
                out = Tensor._make(t._data, requires_grad=True)
                out._accum = weakref.ref(origin._accumulator())  # gradients reach the leaf
                return out
            return t
        if t is None:
            raise_freed()
        vc = t._vc
        if vc is not None and vc[0] != self._version:
            _raise_modified(t, node, self._version, self._is_output, self._output_nr)
        if self._is_output:
            return _reattached(t, node, self._output_nr, t._shared_vc(), self._origin)
        return t

    def register_hooks(self, pack_hook, unpack_hook):
        """Pack the value now with ``pack_hook``; ``unpack_hook`` gives it back when it is used.

        What ``node._raw_saved_self.register_hooks(pack, unpack)`` calls; the
        hook pair of one saved tensor, as ``saved_tensors_hooks`` gives one to
        every tensor saved in its block.  ``pack_hook`` receives the values
        without their autograd history, as PyTorch passes them.

        Raises:
            RuntimeError: PyTorch's "Calling register_hooks on a saved tensor
                whose hooks have already been set. ..." and "Calling
                register_hooks on a saved tensor after it has been freed. ...".
        """
        if self._unpack_hook is not None:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor whose hooks have already been set. "
                "Hint: only one pair of hooks is allowed at a time.")
        t = self._tensor
        if t is None:
            raise RuntimeError("Calling register_hooks on a saved tensor after it has been freed. "
                               + ERR_BACKWARD_TWICE[ERR_BACKWARD_TWICE.index("Saved "):]
                               .replace("saved tensors after", "saved variables after"))
        if not self._is_output and t._requires_grad:
            self._origin = (t._grad_fn, t._output_nr) if t._grad_fn else t
        else:
            self._origin = None
        self._packed = pack_hook(Tensor._make(t._data, vc=t._shared_vc()))
        self._unpack_hook = unpack_hook
        self._tensor = None

    def unpack_array(self, node, version=None):
        t = self.unpack(node)
        return t._data.item() if t._wrapped else t._data  # (a Python number stays one)

    def free(self):
        """Let go of the saved value (the backward walk calls this right after the node ran)."""
        self._tensor = None
        self._packed = None
        self._unpack_hook = None
        self._origin = None
        return self


# --- the saved values of one node, compactly -------------------------------
#
# A node keeps, in ``_kept``, one entry per value given to
# ``save_for_backward`` and, in ``_kept_versions``, the version each had:
#
# * ``None``: nothing was saved in that place (it reads back as None);
# * a Tensor: an input, kept as it is (its version is checked on use);
# * a ``SavedOutput``: one of the node's own outputs, kept without the tensor
#   object (a reference to it would be a node <-> output cycle); it is
#   re-attached to the node, as that output, when read back;
# * a ``SavedTensor``: a value a pack hook took (``saved_tensors_hooks``, or
#   ``_raw_saved_x.register_hooks``);
# * ``_FREED`` / ``_FREED_OUTPUT``: released by the backward walk.
#
# Every entry but an input (and None) answers ``unpack(node, version)``,
# ``unpack_array(node, version)`` and ``free()``.  No record object per saved
# input, so a graph leaves the collector little to walk; ``records`` makes
# ``SavedTensor`` records afresh for viz, memory and the like, and looking
# changes nothing.


class SavedOutput:
    """One of the node's own outputs: its values, version counter and output number.

    ``moved``: ``(node, output_nr)`` for an output written in place into a view
    since: it comes back with the view's history after the write (PyTorch's
    ``is_inplace_on_view`` saved variables), not the wrapped op's.
    ``on_unpack``: called with each tensor ``unpack`` makes (forward mode gives
    it the output's tangent: ``on_unpack_output``).
    """

    __slots__ = ("data", "vc", "output_nr", "moved", "on_unpack")

    def __init__(self, data, vc, output_nr, moved=None, on_unpack=None):
        self.data, self.vc, self.output_nr = data, vc, output_nr
        self.moved, self.on_unpack = moved, on_unpack

    def unpack_array(self, node, version):
        if self.vc[0] != version:
            _raise_modified(Tensor._make(self.data, vc=self.vc), node, version, True,
                            self.output_nr)
        return self.data

    def unpack(self, node, version):
        array = self.unpack_array(node, version)
        node, output_nr = self.moved or (node, self.output_nr)
        out = _reattached_array(array, node, output_nr, self.vc)
        if self.on_unpack is not None:
            self.on_unpack(out)
        return out

    def free(self):
        return _FREED_OUTPUT


class _Freed:
    """A value freed by the backward walk: reading it raises PyTorch's error."""

    __slots__ = ("is_output",)

    def __init__(self, is_output):
        self.is_output = is_output

    def __repr__(self):
        return "<freed saved value>"

    def unpack(self, node, version):
        raise_freed()

    unpack_array = unpack

    def free(self):
        return self


_FREED = _Freed(False)
_FREED_OUTPUT = _Freed(True)
_VERSIONS0 = tuple((0,) * n for n in range(8))
_PY_NUMBERS = (float, int, bool)
_ALL_FREED = tuple((_FREED,) * n for n in range(8))


def pack(node, tensors):
    """Store ``tensors`` (what ``save_for_backward`` got) on ``node``: entries and versions.

    Each place gets an entry (``None`` for None; an input as it is; the node's
    own output as a ``SavedOutput``; a ``SavedTensor``
    record for a value a pack hook takes, or an inference tensor, which it
    refuses) and the version the value has now.  ``Function.apply`` calls
    ``pack_fast`` (below), which takes the usual cases the same way.
    """
    values = []
    versions = []
    hooked = bool(_saved_hooks_stack)
    for t in tensors:
        if t is None:
            values.append(None)
            versions.append(0)
            continue
        is_output = t._grad_fn is node
        if t._inference or (hooked and not t._wrapped):  # Python numbers skip the hooks
            # raises for an inference tensor
            values.append(SavedTensor.save(t, is_output, t._output_nr if is_output else 0))
            versions.append(0)
            continue
        vc = t._vc
        if is_output:
            if vc is None:
                vc = t._shared_vc()
            values.append(SavedOutput(t._data, vc, t._output_nr))
        else:
            values.append(t)
        versions.append(0 if vc is None else vc[0])
    node._kept = tuple(values)
    n = len(versions)
    node._kept_versions = _VERSIONS0[n] if n < 8 and not any(versions) else tuple(versions)


# --- fast path: the usual cases of pack ---------------------------------------
# With no hooks active: one tensor (a unary op's input, or its own output), or inputs
# only (a binary op's): the same entries as ``pack`` without its lists, sharing the
# tuple ``save_for_backward`` got and the interned all-zero versions
# (tests/test_fast_paths.py checks both give the same).

def pack_fast(node, tensors):
    """``pack``, faster in the usual cases (what ``Function.apply`` calls)."""
    if _saved_hooks_stack:
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
    n = len(tensors)
    node._kept = tensors
    node._kept_versions = (
        tuple([0 if t is None or t._vc is None else t._vc[0] for t in tensors]) if written
        else _VERSIONS0[n] if n < 8 else (0,) * n)


def unpack(node, formula=False):
    """The saved tensors of ``node``, checked (``ctx.saved_tensors``; ``formula``: for a
    built-in gradient formula, which also refuses an input detached in place).

    Raises:
        RuntimeError: PyTorch's "Trying to backward through the graph a second
            time ..." once released; its in-place modification error if a
            saved tensor changed since it was saved; its detached-in-place
            error (``check_not_detached``).
    """
    return _unpack(node._kept, node._kept_versions, node, formula)


def _unpack(values, versions, node, formula=False):
    out = []
    for e, v in zip(values, versions):
        if e is None:
            out.append(None)
        elif isinstance(e, Tensor):  # an input, kept as it is: check it
            if formula and detached_in_place and e._grad_fn is None:
                check_not_detached(e, node)
            vc = e._vc
            if vc is not None and vc[0] != v:
                _raise_modified(e, node, v, False)
            out.append(e)
        else:  # a SavedOutput, a SavedTensor record, or freed
            out.append(e.unpack(node, v))
    return out


# Set once some tensor with a grad_fn was detached in place (Tensor.detach_),
# so that its check (saved_errors.check_not_detached) costs the usual walk nothing.
detached_in_place = False


def note_detached(t):
    """``t.detach_()`` on a recorded tensor: a node that saved ``t`` must now refuse it.

    The sequence number marks the moment: nodes recorded before it saved the
    tensor while it was still part of the graph (``saved_errors.check_not_detached``).
    """
    global detached_in_place
    t._detached_seq = next(_sequence)
    detached_in_place = True


def unpack_one(node, index):
    """One saved tensor of ``node`` (``node._saved_self``); None if nothing was saved there."""
    values = node._kept
    if index >= len(values) or values[index] is None:
        return None
    return _unpack((values[index],), (node._kept_versions[index],), node)[0]


def unpack_arrays(node, dtype=None):
    """The saved values of ``node`` as numpy arrays (0-d ones as numpy scalars; Python
    numbers stay numbers), checked.

    What a gradient formula computes with on a walk that records nothing.
    Returns ``(values, same)``: ``same`` is True if every array among the
    values has ``dtype`` (then the formula may run on them as they are; see
    ``BackwardNode._formula_arrays``).  Raises as ``unpack``.
    """
    out = []
    same = True
    for e, v in zip(node._kept, node._kept_versions):
        if e is None:
            out.append(None)
            continue
        if type(e) is Tensor or isinstance(e, Tensor):  # an input (or nn.Parameter): check it
            if detached_in_place and e._grad_fn is None:
                check_not_detached(e, node)
            vc = e._vc
            if vc is not None and vc[0] != v:
                _raise_modified(e, node, v, False)
            if e._wrapped:
                # a Python number (x * 2) stays one: numpy then keeps the tensor's dtype, as PyTorch does
                out.append(e._data.item())
                continue
            arr = e._data
        elif type(e) is SavedOutput:  # one of the node's own outputs (inline: a usual case)
            arr = e.data
            if e.vc[0] != v:
                e.unpack_array(node, v)  # (raises PyTorch's in-place error)
        else:  # a SavedTensor record, or freed
            arr = e.unpack_array(node, v)
            if type(arr) in _PY_NUMBERS:
                out.append(arr)
                continue
        if arr.dtype is not dtype:
            same = False
        # one value (a 0-d array) as numpy's scalar: arithmetic among scalars skips
        # the ufunc machinery (about a tenth of the cost), with the same dtype rules
        out.append(arr if arr.ndim else arr[()])
    return out, same


def free(node):
    """Let go of every value ``node`` saved (the walk calls this right after the node ran)."""
    values = node._kept
    if not values:
        return
    if type(values) is not tuple:  # kept elsewhere (keep_elsewhere): the holder frees them
        values.free(node)
        return
    for e in values:
        if type(e) is not Tensor:
            break
    else:  # the usual case: inputs only, each let go
        n = len(values)
        node._kept = _ALL_FREED[n] if n < 8 else (_FREED,) * n
        return
    freed = []
    for e in values:
        if e is None:
            freed.append(None)
        elif type(e) is SavedOutput:  # (inline: a usual case)
            freed.append(_FREED_OUTPUT)
        elif isinstance(e, Tensor):
            freed.append(_FREED)
        else:
            freed.append(e.free())
    node._kept = tuple(freed)


def records(node):
    """``node``'s saved values as ``SavedTensor`` records, to look at (``node._saved``).

    Made afresh from the entries (the node keeps them as they are): what viz
    and memory read.  An entry that is itself a record (a hook's) is given as it is.
    """
    values = node._kept
    if type(values) is not tuple:  # kept elsewhere
        return values.records(node)
    return tuple(_record(e, v) for e, v in zip(values, node._kept_versions))


def _record(e, version):
    if e is None or isinstance(e, SavedTensor):
        return e
    if type(e) is SavedOutput:
        record = SavedTensor(Tensor._make(e.data, vc=e.vc), version, True, e.output_nr)
        record._origin = e.moved
        return record
    if type(e) is _Freed:
        return SavedTensor(None, version, e.is_output)
    return SavedTensor(e, version, False)


def register_hooks(node, index, pack_hook, unpack_hook):
    """``node._raw_saved_x.register_hooks(pack, unpack)``: entry ``index`` becomes a record
    packed by ``pack_hook`` now (``SavedTensor.register_hooks``; its errors)."""
    record = _record(node._kept[index], node._kept_versions[index])
    record.register_hooks(pack_hook, unpack_hook)
    _replace(node, index, record)


def _replace(node, index, entry, version=0):
    kept, versions = list(node._kept), list(node._kept_versions)
    kept[index], versions[index] = entry, version
    node._kept, node._kept_versions = tuple(kept), tuple(versions)


def _reattached(t, node, output_nr, vc, moved=None):
    """A saved output given back as output ``output_nr`` of ``node`` again.

    ``moved``: ``(node, output_nr)`` for an output written in place into a
    view: it comes back with the view's history after the write (PyTorch's
    ``is_inplace_on_view`` saved variables), not the wrapped op's.
    """
    if moved is not None:
        node, output_nr = moved
    return _reattached_array(t._data, node, output_nr, vc)


def _reattached_array(array, node, output_nr, vc):
    out = Tensor._make(array, grad_fn=node, vc=vc)
    if output_nr:
        out._output_nr = output_nr
    return out


def has_saved(node):
    """True while ``node`` holds saved values that a walk has not freed yet."""
    values = node._kept
    if type(values) is not tuple:
        return values.has_saved(node)
    return any(e is not None and type(e) is not _Freed
               and not (isinstance(e, SavedTensor) and e._tensor is None and e._packed is None)
               for e in values)


def on_unpack_output(node, outs, make_hook):
    """Each saved own output of ``node`` that is one of ``outs`` (same values) will call
    ``make_hook(out)`` with every tensor its unpack makes (forward-over-reverse's tangents)."""
    values = getattr(node, "_kept", ())  # (a ctx that recorded nothing keeps nothing)
    if type(values) is not tuple:
        return
    for i, e in enumerate(values):
        for o in outs:
            if type(e) is SavedOutput and e.data is o._data:
                _replace(node, i, SavedOutput(e.data, e.vc, e.output_nr, e.moved, make_hook(o)),
                         node._kept_versions[i])
                break


def rebind_output(node, t, origin=None):
    """``node``'s saved output is now ``t`` (an in-place op wrote into ``t``): save ``t`` instead.

    A later write into ``t`` must then be caught, as in PyTorch.  ``origin``:
    ``(grad_fn, output_nr)`` that the unpacked value comes back with, for an
    output written into a view (the view's history after the write).
    """
    values = node._kept
    if type(values) is HeldBy:
        return rebind_output(values.node, t, origin)
    if type(values) is not tuple:
        return
    for i, e in enumerate(values):
        if type(e) is SavedOutput:
            _replace(node, i, SavedOutput(t._data, t._vc, e.output_nr, origin or e.moved,
                                          e.on_unpack), t._vc[0])
        elif isinstance(e, SavedTensor) and e._is_output:  # a record (a hook's)
            e._tensor = Tensor._alias_of(t)
            e._version = t._vc[0]
            if origin is not None:
                e._origin = origin


def keep_as_is(holder, tensors):
    """Keep ``tensors`` on ``holder`` (a jit replay's ctx) as they are, with their versions now."""
    holder._kept = tensors
    holder._kept_versions = tuple(0 if t is None or t._vc is None else t._vc[0] for t in tensors)


class HeldBy:
    """The saved values of a node that keeps none itself but another node's (CopySlices: the op
    it wraps).  ``keep_elsewhere(node, HeldBy(other))``."""

    __slots__ = ("node",)

    def __init__(self, node):
        self.node = node

    def free(self, _holder):
        free(self.node)

    def has_saved(self, _holder):
        return has_saved(self.node)

    def records(self, _holder):
        return records(self.node)


def keep_elsewhere(node, holder):
    """``node``'s saved values are kept by ``holder`` (``HeldBy``, or an object with the same
    three methods ``free(node)``, ``has_saved(node)``, ``records(node)``), which ``free``,
    ``has_saved`` and ``records`` then ask."""
    node._kept = holder
