"""The recorded graph: ``Node`` (what ``grad_fn`` points to) and ``AccumulateGrad``.

Every operation on a tensor that requires grad creates one ``Node``.  The node
knows how to turn the gradient of its output into gradients for its inputs (a
vector-Jacobian product), holds the values that computation needs (its *saved
tensors*), and points back at the nodes that produced its inputs through
``next_functions``: a tuple of ``(node, output_nr)`` pairs, ``(None, 0)`` for an
input that needs no gradient.  A leaf that requires grad is represented in the
graph by its ``AccumulateGrad`` node, whose only job is to add the arriving
gradient into ``leaf.grad``.

Ownership runs one way only: a tensor owns its ``grad_fn``; a node owns the
nodes behind it and its saved values, never the tensor it produced.  So a
graph is released by reference counting the moment its output is dropped, and
its saved values are released as soon as the backward walk has used them.

Source: PyTorch's ``torch.autograd.graph.Node`` and the C++ classes
``torch::autograd::Node``, ``SavedVariable`` and ``AccumulateGrad``
(torch/csrc/autograd/function.h, saved_variable.cpp, functions/accumulate_grad.h).
"""

import itertools
import sys
import weakref

import numpy as np

from ..tensor import Tensor
from . import grad_mode
from .removable_handle import RemovableHandle, _add_hook  # noqa: F401 (tensor.py, nn read them here)
from .saved_errors import ERR_BACKWARD_TWICE, check_not_detached  # noqa: F401 (jit reads the first here)
from .saved_errors import raise_modified as _raise_modified

__all__ = ["ERR_BACKWARD_TWICE", "AccumulateGrad", "Node", "SavedTensor", "register_multi_grad_hook",
           "save_on_cpu", "saved_tensors_hooks"]


# Each node gets the next sequence number when it is created.  The backward
# walk runs the ready node with the highest number first, as PyTorch's engine
# does, so nodes run in the reverse of the order the forward pass made them.
_sequence = itertools.count()
# AccumulateGrad has sequence number UINT64_MAX, as in PyTorch: it runs as soon as it is ready.
UINT64_MAX = 2**64 - 1


class Node:
    """One recorded operation: the object a tensor's ``grad_fn`` points to.

    Attributes:
        next_functions (tuple[tuple[Node | None, int], ...]): one pair per
            differentiable input: the node that produced that input (its
            ``grad_fn``, or a leaf's ``AccumulateGrad``) and which of that
            node's outputs it was; ``(None, 0)`` for an input that does not
            require grad (a constant).
        metadata (dict): free space for user annotations, as in PyTorch.

    Subclasses implement ``_backward(grads)``: given one gradient per output
    of this node, return one gradient per entry of ``next_functions``.

    Storage (what a graph of a million nodes is made of, so kept small): the
    edges as two parallel tuples, ``_next_fns`` (the nodes) and
    ``_next_nrs`` (their output numbers, a shared constant when all are 0);
    ``next_functions`` builds the pairs when read, as PyTorch's does.  Hooks
    live in one ``_hooks`` record, None for the nodes that have none.

    Source: ``torch.autograd.graph.Node``.
    """

    __slots__ = ("__dict__", "__weakref__", "_seq", "_next_fns", "_next_nrs", "_hooks")
    _metadata = None
    _anomaly_trace = None
    # Shapes and dtypes of the inputs, one per edge (BackwardNode sets its own).
    _in_meta = None
    _out_meta = None  # (shape, dtype) per output, for nodes with several outputs
    _kept = ()  # saved values (BackwardNode keeps its own)
    # True for the nodes of built-in primitives: like PyTorch's generated
    # formulas, they compute nothing when no input needs a gradient.
    _formula_only = False

    def __init__(self):
        self._seq = next(_sequence)
        self._next_fns = self._next_nrs = ()
        self._hooks = None

    @property
    def next_functions(self):
        """``((node, output_nr), ...)``: where this node's gradients go, one pair per input."""
        return tuple(zip(self._next_fns, self._next_nrs))

    @next_functions.setter
    def next_functions(self, edges):
        edges = tuple(edges)
        self._next_fns = tuple(fn for fn, _ in edges)
        self._next_nrs = _output_nrs(nr for _, nr in edges)

    def name(self):
        """The node's PyTorch name, e.g. ``"MulBackward0"``."""
        return type(self).__name__

    @property
    def metadata(self):
        """A dict for user annotations (``torch.autograd.graph.Node.metadata``)."""
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def __repr__(self):
        return f"<{self.name()} object at {hex(id(self))}>"

    def __call__(self, *grad_outputs):
        """Apply the node to gradients of its outputs: its vector–Jacobian product.

        ``y.grad_fn(v)`` returns :math:`J^\\top v`, one gradient per entry of
        ``next_functions`` (a single tensor when there is one, else a tuple;
        ``None`` where an input needs none), without the engine: no hooks
        run, nothing accumulates into ``.grad``, no saved value is freed, and
        a gradient of a broadcast input keeps the broadcast shape (the engine,
        not the node, sums it back).  With grad mode on (the default) the
        formula itself is recorded, as with ``create_graph=True``.

        Args:
            *grad_outputs (Tensor): one per output of the node, each of its shape.

        Raises:
            RuntimeError: the node's saved values were freed by a walk (PyTorch's
                "Trying to backward through the graph a second time" message).

        Source: calling a ``torch.autograd.graph.Node`` (``Node::operator()``,
        torch/csrc/autograd/function.h).
        """
        with np.errstate(all="ignore"):  # as in a walk: PyTorch never warns about inf or nan
            out = tuple(self._backward(tuple(grad_outputs)))
        return out[0] if len(out) == 1 else out

    # --- what the engine calls ---------------------------------------------

    def _sequence_nr(self):
        """The node's sequence number: larger for nodes recorded later (``Node._sequence_nr()``).

        The backward walk runs, among the nodes that are ready, the one with
        the largest number first.  Only comparisons mean anything: PyTorch
        and minigrad count from different starting points.
        """
        return self._seq

    def _num_outputs(self):
        return 1

    def _backward(self, grads):  # pragma: no cover - abstract
        raise NotImplementedError

    def _backward_arrays(self, grads):
        """``_backward`` on numpy arrays (None for a missing gradient), as a walk that records nothing runs it.

        Nodes that compute on arrays directly override it (every primitive's
        formula, AccumulateGrad, GraphRoot); by default, for a backward
        written with Tensors (a custom Function's), the arrays are wrapped in
        Tensors and the results unwrapped.
        """
        out = self._backward(tuple(None if g is None else Tensor._make(g) for g in grads))
        if type(out) is not tuple:
            out = (out,)
        return tuple(None if g is None else g._data for g in out)

    def _release_saved(self):
        """Free the saved values once the walk has used them (no-op by default)."""

    def _has_saved(self):
        return False

    # --- hooks --------------------------------------------------------------

    def _hook_dict(self, kind):
        hooks = self._hooks
        return None if hooks is None else getattr(hooks, kind)

    def _set_hook_dict(self, kind, value):
        if self._hooks is None:
            self._hooks = _NodeHooks()
        setattr(self._hooks, kind, value)

    # node pre-hooks (register_prehook); hooks of the tensor this node produced
    # (register_hook, retain_grad); node post-hooks (register_hook)
    _pre_hooks = property(lambda self: self._hook_dict("pre"),
                          lambda self, v: self._set_hook_dict("pre", v))
    _tensor_pre_hooks = property(lambda self: self._hook_dict("tensor_pre"),
                                 lambda self, v: self._set_hook_dict("tensor_pre", v))
    _post_hooks = property(lambda self: self._hook_dict("post"),
                           lambda self, v: self._set_hook_dict("post", v))

    def register_hook(self, fn):
        """Call ``fn(grad_inputs, grad_outputs)`` after this node has run.

        As in PyTorch, ``grad_inputs`` are the gradients this node sends on
        (one per ``next_functions`` entry) and ``grad_outputs`` the ones it
        received.  ``fn`` may return a replacement tuple for ``grad_inputs``.

        Returns:
            a handle whose ``remove()`` unregisters the hook.
        """
        if self._post_hooks is None:
            self._post_hooks = {}
        return _add_hook(self._post_hooks, fn)

    def register_prehook(self, fn):
        """Call ``fn(grad_outputs)`` before this node runs; it may return replacements.

        Returns:
            a handle whose ``remove()`` unregisters the hook.
        """
        if self._pre_hooks is None:
            self._pre_hooks = {}
        return _add_hook(self._pre_hooks, fn)


class _NodeHooks:
    """The hooks of one node (most nodes have none, and no such record)."""

    __slots__ = ("post", "pre", "tensor_pre")

    def __init__(self):
        self.pre = self.tensor_pre = self.post = None


# Output numbers of the edges: almost always all 0, so shared tuples.
_ZEROS = tuple((0,) * n for n in range(8))


def _output_nrs(nrs):
    nrs = tuple(nrs)
    n = len(nrs)
    if n < 8 and not any(nrs):
        return _ZEROS[n]
    return nrs


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

    def __init__(self, tensor, is_output=False, output_nr=0):
        # output_nr: which output of the saving node ``tensor`` is, so that an
        # output saved by a node of several outputs comes back in its own slot
        if tensor._inference:
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors created "
                "in inference mode in computation tracked by autograd. To work around this, you can "
                "make a clone to get a normal tensor and use it in autograd, or use "
                "`torch.no_grad()` instead of `torch.inference_mode()`."
            )
        vc = tensor._vc
        self._version = 0 if vc is None else vc[0]
        self._is_output = is_output
        self._output_nr = output_nr
        self._unpack_hook = None
        if _saved_hooks_stack and not tensor._wrapped:  # Python numbers skip the hooks
            pack, self._unpack_hook = _saved_hooks_stack[-1]
            # What unpack must re-attach to whatever the hook gives back: the
            # node that produced the tensor, or the leaf it is.
            if not is_output and tensor._requires_grad:
                self._origin = (tensor._grad_fn, tensor._output_nr) if tensor._grad_fn else tensor
            else:
                self._origin = None
            self._packed = pack(tensor)  # an output is passed as itself, as in PyTorch
            self._tensor = None
        else:
            # an output is kept as an alias without history: no node <-> output cycle
            self._tensor = Tensor._alias_of(tensor) if is_output else tensor
            self._origin = None

    def unpack(self, node):
        """Return the saved tensor (an output is re-attached to ``node``)."""
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
            raise RuntimeError(ERR_BACKWARD_TWICE)
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

    def release(self):
        """Let go of the saved value (the backward walk calls this right after the node ran)."""
        self._tensor = None
        self._packed = None
        self._unpack_hook = None
        self._origin = None

    @classmethod
    def _record_of(cls, tensor, version, is_output, output_nr=0):
        """A record for a value saved without hooks (what ``node._saved`` shows, see below)."""
        rec = object.__new__(cls)
        rec._tensor = tensor
        rec._version = version
        rec._is_output = is_output
        rec._output_nr = output_nr
        rec._packed = rec._unpack_hook = rec._origin = None
        return rec


# --- the saved values of one node, compactly -------------------------------
#
# A node keeps, in ``_kept``, one entry per value given to
# ``save_for_backward`` and, in ``_kept_versions``, the version each had:
#
# * ``None``: nothing was saved in that place (it reads back as None);
# * a Tensor: an input, kept as it is (its version is checked on use);
# * ``(array, version_counter, output_nr)``: one of the node's own outputs,
#   kept without the tensor object (a reference to it would be a node <->
#   output cycle); it is re-attached to the node, as that output, when read
#   back;
# * a ``SavedTensor``: the general record (pack hooks, checkpointing), also
#   what every entry becomes once something inspects ``node._saved``;
# * ``_FREED`` / ``_FREED_OUTPUT``: released by the backward walk.
#
# No record object per saved input, so a graph leaves the collector little to walk
# (``saved_records`` makes ``SavedTensor`` records for viz, memory and the like).


class _Freed:
    __slots__ = ("is_output",)

    def __init__(self, is_output):
        self.is_output = is_output

    def __repr__(self):
        return "<freed saved value>"


_FREED = _Freed(False)
_FREED_OUTPUT = _Freed(True)
_VERSIONS0 = tuple((0,) * n for n in range(8))
_ALL_FREED = tuple((_FREED,) * n for n in range(8))


def pack_saved(node, tensors):
    """Store ``tensors`` (what ``save_for_backward`` got) on ``node``: entries and versions."""
    if len(tensors) == 1 and not _saved_hooks_stack:
        t = tensors[0]  # one tensor, no hooks: the usual case of a unary op
        if type(t) is Tensor and not t._inference:
            vc = t._vc
            if t._grad_fn is node:  # its own output, kept as (array, counter, output_nr)
                if vc is None:
                    vc = t._vc = [0]  # (its version counter, made now to be shared: _shared_vc)
                node._kept = ((t._data, vc, t._output_nr),)
            else:
                node._kept = tensors
            node._kept_versions = _VERSIONS0[1] if vc is None or not vc[0] else (vc[0],)
            return
    if not _saved_hooks_stack:
        # inputs only (or None): the usual case of a binary op, kept as they are
        written = False  # (a parameter an optimizer has stepped: its version is > 0)
        for t in tensors:
            if t is not None:
                if t._grad_fn is node or t._inference:
                    break
                if t._vc is not None and t._vc[0]:
                    written = True
        else:
            n = len(tensors)
            node._kept = tensors
            node._kept_versions = (
                tuple([0 if t is None or t._vc is None else t._vc[0] for t in tensors]) if written
                else _VERSIONS0[n] if n < 8 else (0,) * n)
            return
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
            values.append(SavedTensor(t, is_output, t._output_nr if is_output else 0))
            versions.append(0)
            continue
        vc = t._vc
        if is_output:
            if vc is None:
                vc = t._shared_vc()
            values.append((t._data, vc, t._output_nr))
        else:
            values.append(t)
        versions.append(0 if vc is None else vc[0])
    node._kept = tuple(values)
    n = len(versions)
    node._kept_versions = _VERSIONS0[n] if n < 8 and not any(versions) else tuple(versions)


def unpack_saved(node, formula=False):
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
        elif type(e) is tuple:  # one of the node's own outputs
            arr, vc, nr = e
            if vc[0] != v:
                _raise_modified(Tensor._make(arr, vc=vc), node, v, True, nr)
            out.append(_reattached_array(arr, node, nr, vc))
        elif type(e) is _Freed:
            raise RuntimeError(ERR_BACKWARD_TWICE)
        elif isinstance(e, SavedTensor):
            out.append(e.unpack(node))
        else:
            if formula and detached_in_place and e._grad_fn is None:
                check_not_detached(e, node)
            vc = e._vc
            if vc is not None and vc[0] != v:
                _raise_modified(e, node, v, False)
            out.append(e)
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



def unpack_saved_one(node, index):
    """One saved tensor of ``node`` (``node._saved_self``); None if nothing was saved there."""
    values = node._kept
    if index >= len(values) or values[index] is None:
        return None
    return _unpack((values[index],), (node._kept_versions[index],), node)[0]


def unpack_saved_arrays(node, dtype=None):
    """The saved values of ``node`` as numpy arrays (0-d ones as numpy scalars; Python
    numbers stay numbers), checked.

    What a gradient formula computes with on a walk that records nothing.
    Returns ``(values, same)``: ``same`` is True if every array among the
    values has ``dtype`` (then the formula may run on them as they are; see
    ``BackwardNode._formula_arrays``).  Raises as ``unpack_saved``.
    """
    out = []
    same = True
    for e, v in zip(node._kept, node._kept_versions):
        te = type(e)
        if te is tuple:  # one of the node's own outputs
            arr, vc, nr = e
            if vc[0] != v:
                _raise_modified(Tensor._make(arr, vc=vc), node, v, True, nr)
        elif e is None:
            out.append(None)
            continue
        elif te is _Freed:
            raise RuntimeError(ERR_BACKWARD_TWICE)
        else:
            if te is not Tensor and isinstance(e, SavedTensor):
                t = e.unpack(node)  # (it checks the version itself)
            else:  # an input (a Tensor, or a subclass: nn.Parameter), the usual case
                t = e
                if detached_in_place and t._grad_fn is None:
                    check_not_detached(t, node)
                vc = t._vc
                if vc is not None and vc[0] != v:
                    _raise_modified(t, node, v, False)
            if t._wrapped:
                # a Python number (x * 2) stays one: numpy then keeps the tensor's dtype, as PyTorch does
                out.append(t._data.item())
                continue
            arr = t._data
        if arr.dtype is not dtype:
            same = False
        # one value (a 0-d array) as numpy's scalar: arithmetic among scalars skips
        # the ufunc machinery (about a tenth of the cost), with the same dtype rules
        out.append(arr if arr.ndim else arr[()])
    return out, same


def release_saved(node):
    """Let go of every value ``node`` saved (the walk calls this right after the node ran)."""
    values = node._kept
    if not values:
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
        if e is None or type(e) is _Freed:
            freed.append(e)
        elif type(e) is tuple:
            freed.append(_FREED_OUTPUT)
        elif isinstance(e, SavedTensor):
            e.release()
            freed.append(e)
        else:
            freed.append(_FREED)
    node._kept = tuple(freed)


def saved_records(node):
    """The entries of ``node``'s saved values as ``SavedTensor`` records (``node._saved``).

    Converts the compact entries once, in place: from then on the node keeps
    records (what viz, memory and in-place rebasing read and update).
    """
    values = node._kept
    records = []
    changed = False
    for e, v in zip(values, node._kept_versions):
        if e is None or isinstance(e, SavedTensor):
            records.append(e)
            continue
        changed = True
        if type(e) is tuple:
            arr, vc, nr = e
            records.append(SavedTensor._record_of(Tensor._make(arr, vc=vc), v, True, nr))
        elif type(e) is _Freed:
            records.append(SavedTensor._record_of(None, v, e.is_output))
        else:
            records.append(SavedTensor._record_of(e, v, False))
    if changed:
        node._kept = tuple(records)
        node._kept_versions = _VERSIONS0[len(records)] if len(records) < 8 else (0,) * len(records)
    return node._kept


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


class AccumulateGrad(Node):
    """The graph node of a leaf that requires grad: adds arriving gradients into ``.grad``.

    There is one per leaf while any graph uses the leaf (the leaf keeps only
    a weak reference to it, so it dies with the last graph).

    Attributes:
        variable (Tensor): the leaf.

    Accumulation follows PyTorch: the first gradient is stored (as a fresh
    tensor), later ones are added in place, so ``.grad`` sums over every
    backward call until it is reset (``zero_grad``); under
    ``create_graph=True`` the sum is out of place and recorded.

    Source: ``torch::autograd::AccumulateGrad``.
    """

    __slots__ = ("variable",)

    def __init__(self, variable):
        # PyTorch makes it with sequence number UINT64_MAX, taking none from the
        # counter: so it runs as soon as it is ready
        self._seq = UINT64_MAX
        self._next_fns = self._next_nrs = ()
        self._hooks = None
        self.variable = variable

    @classmethod
    def of(cls, leaf):
        """The leaf's AccumulateGrad: one per leaf while a graph holds it (``Tensor._accumulator``).

        The leaf keeps only a weak reference to it (PyTorch's ``grad_accumulator_``
        is a weak_ptr too), so it dies with the last graph that uses it.
        """
        ref = leaf._accum
        node = ref() if ref is not None else None
        if node is None:
            node = cls(leaf)
            leaf._accum = weakref.ref(node)
        return node

    def name(self):
        """``'torch::autograd::AccumulateGrad'``: PyTorch's name() of its C++ class.

        (Its repr and type name are plain ``AccumulateGrad``.)
        """
        return "torch::autograd::AccumulateGrad"

    def __repr__(self):
        return f"<AccumulateGrad object at {hex(id(self))}>"

    def _backward(self, grads):
        grad = grads[0]
        if grad is None:
            return ()
        var = self.variable
        old = var._grad
        if old is None:
            if grad_mode._state.enabled:
                # create_graph=True: a recorded copy (PyTorch's CopyBackwards), so
                # .grad can be differentiated again
                var._grad = _recorded_copy(Tensor._make(np.empty_like(grad._data)), grad)
            else:
                var._grad = Tensor._make(_own(grad._data))
        elif grad_mode._state.enabled:
            # create_graph=True: out of place, so the sum is itself recorded.
            var._grad = old + grad
        elif not old._data.flags.writeable:
            var._grad = Tensor._make(old._data + grad._data)
        else:
            # in place, as PyTorch; a .grad recorded by create_graph keeps its grad_fn
            old._add_inplace_raw(grad._data)
        self._after_accumulate(var)
        return ()

    def _backward_arrays(self, grads):
        # The same, on a walk that records nothing: the gradient is an array.
        grad = grads[0]
        if grad is None:
            return ()
        var = self.variable
        old = var._grad
        if old is None:
            # the first gradient: taken over if nothing else holds it, else copied
            var._grad = Tensor._make(grad if _unshared(grad, var._data) else _own(grad))
        elif not old._data.flags.writeable:
            var._grad = Tensor._make(old._data + grad)
        else:
            old._add_inplace_raw(grad)
        if var._post_acc_hooks:
            self._after_accumulate(var)
        return ()

    @staticmethod
    def _after_accumulate(var):
        for hook in var._post_accumulate_hooks():
            if hook(var) is not None:
                raise RuntimeError("Tensor post accumulate grad hooks should return None.")


def _unshared(grad, like):
    """True if ``grad`` may become ``.grad`` as it is: only the walk refers to it (or to the
    array it views), and it is laid out as the leaf is (PyTorch's AccumulateGrad steals
    such a gradient instead of copying it)."""
    if type(grad) is not np.ndarray or not grad.flags.writeable or (
            grad.flags.c_contiguous != like.flags.c_contiguous):
        return False
    # references: the walk's buffer, the caller's local name, getrefcount's argument
    if sys.getrefcount(grad) > _WALK_REFS:
        return False
    owner = grad.base
    if owner is None:
        return True
    # a view (w.grad as the transpose of a product): its memory must be the view's
    # alone (referenced by this view, the name `owner` and getrefcount's argument)
    return (type(owner) is np.ndarray and owner.nbytes == grad.nbytes
            and sys.getrefcount(owner) <= 3)


_WALK_REFS = 4  # see _unshared; one more for the call into it


def _own(array):
    """A gradient array that ``.grad`` may own: a copy (the incoming one may be shared:
    AddBackward0 sends the same array to both inputs)."""
    return np.array(array, copy=True)


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



# torch.autograd.graph's register_multi_grad_hook and save_on_cpu are set here by the
# package face (written above the core, in hooks.py and save_on_cpu.py).


# ------------------------------------------------------------ registration slot
# create_graph's first .grad is a recorded copy (CopyBackwards): an op, a layer above.
_recorded_copy = None  # _recorded_copy(dst, src): filled by ops/inplace.py with _Copy.apply


def register_recorded_copy(fn):
    """Called by ``minigrad/ops/inplace.py``."""
    global _recorded_copy
    _recorded_copy = fn
