"""In-place operations (``add_``, ``mul_``, ``x[i] = v``, ...) and the version counter.

Writing into a tensor's memory is where autograd can silently go wrong: a node
may have saved that very tensor for its backward.  PyTorch's guard, mirrored
here: every tensor has a version counter (``x._version``, shared with its
views) that each in-place write bumps; a saved tensor remembers the version it
was saved at, and backward refuses a saved value whose version moved
("one of the variables needed for gradient computation has been modified by
an inplace operation ...").

The rules, as in PyTorch:

* under ``no_grad`` (how optimizers update weights) any tensor may be written:
  nothing is recorded, only the version moves;
* with recording on, a leaf that requires grad may not be written ("a leaf
  Variable that requires grad is being used in an in-place operation.");
* with recording on, writing into a non-leaf records the operation and the
  tensor's ``grad_fn`` moves to the new node (``y.add_(1)`` makes
  ``y.grad_fn`` an ``AddBackward0`` whose ``next_functions`` lead to the old one).

An in-place write into a view rebases its base, as PyTorch does (``CopySlices``
for the base, ``AsStridedBackward0`` for the view and its siblings): this module
decides and records it (``rebase_view_write``); the nodes and the view geometry
it uses are in ``view_writes.py``.

Source: PyTorch's ``VariableVersion`` and ``check_inplace``
(torch/csrc/autograd/VariableTypeUtils.h), ``CopySlices``.
"""

import warnings
from types import SimpleNamespace as _Namespace

import numpy as np

from .._dtype import SCALAR_TYPE_NAMES
from ..autograd import wrap_outputs as _wrap_outputs
from ..autograd import grad_mode
from ..autograd import accumulate_grad as _accumulate_grad
from ..autograd import saved_edits as _edits
from ..autograd import view_history as _view_history
from ..autograd.function import Function
from ..autograd.view_history import view_root as _view_root
from ..creation import check_fill_value
from ..tensor import Tensor
from ._util import is_scalar, wrap_scalar
from .indexing import (_Pick, _as_index_array, _numpy_index_message, check_key,
                       ints_for_scalar_tensors)
from .memory_overlap import check_no_partial_overlap
from .view_writes import (CopySlices, _AsStrided, _Copy, _CopyIntoView, _positions,
                          _zero_where_written, _zeros_like)
from .view_writes import _ScatterIntoBase  # noqa: F401 (forward_rules looks it up here by name)

_state = grad_mode._state
_make = Tensor._make

__all__ = ["inplace", "setitem"]

def add_inplace_raw(t, array):
    """``t += array`` on the raw values, bumping the version, recording nothing
    (``Tensor._add_inplace_raw``: AccumulateGrad adds a later gradient into ``.grad``)."""
    np.add(t._data, array, out=t._data, casting="unsafe")
    t._shared_vc()[0] += 1


def _check_writable(t, via_view=False):
    """Raise PyTorch's errors for writing into ``t``; return True if the write must be recorded."""
    if t._inference and not _state.inference:
        raise RuntimeError(
            "Inplace update to inference tensor outside InferenceMode is not allowed.You can make "
            "a clone to get a normal tensor before doing inplace update.See "
            "https://github.com/pytorch/rfcs/pull/17 for more details."
        )
    if not _state.enabled:
        return False
    v = t
    while v is not None:
        if v._no_grad_view:
            _raise_no_grad_view(t, v)
        v = v._view_of
    root = _view_root(t)
    v = t
    while v is not root:  # a view made a leaf (`base.view(...).requires_grad_()`), or a view of one
        if v._grad_fn is None and v._requires_grad:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                               "in-place operation.")
        v = v._view_of
    named = multi_view_name(t)
    if named is not None and (root._requires_grad or t._requires_grad):
        raise RuntimeError(
            f"Output {named[1]} of {named[0]} is a view and is being modified inplace. This view "
            "is the output of a function that returns multiple views. Such functions do not allow "
            "the output views to be modified inplace. You should replace the inplace operation by "
            "an out-of-place one.")
    if root._grad_fn is None and root._requires_grad:
        if root is not t or via_view:
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place "
                "operation."
            )
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    return True


def multi_view_name(t):
    """``(op, output_nr)`` naming ``t`` in PyTorch's error, if ``t`` is, or views, an output of split/unbind.

    PyTorch's views inherit their base's creation meta (``MULTI_OUTPUT_NODE``),
    so a view of such an output is refused too, named by its own node
    (``Output 0 of Select``); None for any other tensor.
    """
    import re

    if t._multi_view is not None:
        return t._multi_view
    v = t._view_of
    while v is not None:
        if v._multi_view is not None:
            fn = t._grad_fn
            return (re.sub(r"Backward\d*$", "", fn.name()) if fn is not None else "",
                    t._output_nr)
        v = v._view_of
    return None


def _raise_no_grad_view(t, view):
    """PyTorch's error for writing, with grad mode on, into a view made under no_grad."""
    import re

    rest = ("created in no_grad mode and is being modified inplace with grad mode enabled. Given "
            "that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
            "your code by moving both the view and the inplace either both inside the no_grad "
            "block (if you don't want the inplace to be tracked) or both outside (if you want "
            "the inplace to be tracked).")
    if view is t or t._grad_fn is None:
        raise RuntimeError("A view was " + rest)
    op = re.sub(r"Backward\d*$", "", t._grad_fn.name())
    raise RuntimeError(f"Output {t._output_nr} of {op} is a view of a view which was " + rest)


def _store(t, result, reads_self=True):
    """Write ``result``'s values into ``t``'s memory and bump the version."""
    data = t._data
    rdt = result._data.dtype
    if rdt != data.dtype and (not np.can_cast(rdt, data.dtype, casting="same_kind")
                              or (rdt.kind == "f" and data.dtype.kind in "biu")):
        raise RuntimeError(
            f"result type {SCALAR_TYPE_NAMES[str(rdt)]} can't be cast to the desired output type "
            f"{SCALAR_TYPE_NAMES[str(data.dtype)]}"
        )
    if result._data.shape != data.shape:
        try:
            np.broadcast_to(result._data, data.shape)
        except ValueError:
            raise RuntimeError(
                f"output with shape {list(data.shape)} doesn't match the broadcast shape "
                f"{list(np.broadcast_shapes(data.shape, result._data.shape))}"
            ) from None
    if not data.flags.writeable or (reads_self and has_internal_overlap(data)):
        _raise_internal_overlap()
    np.copyto(data, result._data, casting="unsafe")
    t._shared_vc()[0] += 1


def has_internal_overlap(data):
    """True if one memory location stands for several elements of ``data`` (an expanded tensor)."""
    return data.size > 1 and any(st == 0 and n > 1 for st, n in zip(data.strides, data.shape))


def _raise_internal_overlap():
    raise RuntimeError(
        "unsupported operation: more than one element of the written-to tensor refers to a "
        "single memory location. Please clone() the tensor before performing the operation."
    )


def _snapshot(t):
    """A copy of ``t``'s current values that stands where ``t`` stands in the graph."""
    old = _make(t._data.copy(), grad_fn=t._grad_fn, requires_grad=t._requires_grad)
    if t._grad_fn is not None:
        old._output_nr = t._output_nr
    _forward_mode.copy_tangent(t, old)
    return old


def _save_original_self(node, old):
    """``node`` saved the old values ``old``: it keeps a recorded clone of them instead.

    PyTorch's in-place kernels save ``original_self = self.clone()``, made with
    recording on: a second derivative through the saved value passes through
    its ``CloneBackward0`` to the old ``grad_fn``.  (Values are the same.)
    """
    if node is None or not old._requires_grad:
        return
    for i, e in enumerate(_edits.entries(node)[0]):
        if e is old:
            _edits.replace(node, i, old.clone(), 0)


def _adopt(t, result):
    """Make ``t`` (whose memory now holds ``result``'s values) the output of ``result``'s node."""
    node = result._grad_fn
    if node is None:
        return
    t._grad_fn = node
    t._output_nr = result._output_nr
    t._requires_grad = True
    if t._retains_grad:
        t._add_retain_hook()  # retain_grad follows the new grad_fn, as in PyTorch
    # A node that saved its output saved what is now `t` itself, so a later
    # write into `t` must be caught, as in PyTorch.
    _edits.rebind_output(node, t)


def inplace(t, outofplace, *args, reads_self=True, via_view=False, written=None):
    """Apply ``outofplace(t, *args)`` and write its result into ``t`` (``x.op_(...)``).

    With recording on and anything requiring grad, the out-of-place op is
    recorded on a snapshot of ``t``'s old values (so a node that saves its
    input keeps the value it saw), then ``t`` adopts the new node as its
    ``grad_fn``.  When ``t`` is a view, the tensor it views (its *base*) is
    rebased as PyTorch does: the base's new ``grad_fn`` is a ``CopySlices``
    node (the old base with the view's elements replaced by the result), and
    the view's is an ``AsStridedBackward0`` of the new base.

    Args:
        reads_self: the result depends on ``t``'s old values (``add_`` does,
            ``zero_`` and ``fill_`` do not): an expanded ``t`` is refused then.
        via_view: the write goes through a view of ``t`` (``t[0] = v``), for
            PyTorch's choice of leaf error message.
        written: the array written into when it is not all of ``t`` (``t[0] = v``).

    Raises:
        RuntimeError: PyTorch's leaf, cast and shape errors (see the module
            docstring); its "unsupported operation: some elements of the input
            tensor and the written-to tensor refer to a single memory location."
            for an input that overlaps part of the memory written (``memory_overlap.py``).
    """
    recording = _check_writable(t, via_view)
    check_no_partial_overlap(t._data if written is None else written, args)
    others_need = any(isinstance(a, Tensor) and a._requires_grad for a in args)
    root = _view_root(t)
    # (an integer or bool tensor records nothing: no gradient flows into it,
    # even when a float that requires grad is copied in, as in PyTorch)
    if recording and t._data.dtype.kind == "f" and (
            t._requires_grad or others_need or root._requires_grad):
        old = _snapshot(t)
        result = outofplace(old, *args)
        _save_original_self(result._grad_fn, old)
        if root is t:
            _store(t, result, reads_self)
            _forward_mode.copy_tangent(result, t)
            _adopt(t, result)
            return t
        old_root = _snapshot(root)
        _store(t, result, reads_self)
        _forward_mode.copy_tangent(result, t)
        rebase_view_write(t, result, old_root)
        return t
    with grad_mode.no_grad():
        result = outofplace(t, *args)
    _store(t, result, reads_self)
    _forward_mode.copy_tangent(result, t)
    return t


def inplace_view(t, view_fn, *args):
    """``t`` becomes ``view_fn``'s view of itself, in place (``x.unsqueeze_(0)``, ``x.squeeze_()``).

    The values stay; the shape changes and the version moves on, so a node that
    saved ``t`` before refuses to use it.  Recorded as PyTorch records it: the
    op runs on a stand-in for ``t``'s old self, and ``t`` adopts its node
    (``UnsqueezeBackward1``, with an edge to ``t``'s old ``grad_fn``).  A view
    stays a view of its base; its base's history is not rebased (no value changed).

    Raises:
        RuntimeError: where a write into ``t`` is refused (``_check_writable``:
            a leaf that requires grad, a view of one, a view made under no_grad, ...).
        IndexError: the view op's "Dimension out of range ...".
    """
    recording = _check_writable(t)
    old = _make(t._data, grad_fn=t.grad_fn, requires_grad=t._requires_grad)
    old._output_nr = t._output_nr
    _forward_mode.copy_tangent(t, old)
    if recording:
        result = view_fn.apply(old, *args)
    else:
        with grad_mode.no_grad():
            result = view_fn.apply(old, *args)
    t._data = result._data
    vc = t._shared_vc()
    vc[0] += 1
    if t._view_of is not None:
        t._view_version = vc[0]  # its new grad_fn is current: not to be rebuilt from its base
    _forward_mode.copy_tangent(result, t)
    _adopt(t, result)
    return t


def rebase_view_write(t, result, old_root=None):
    """After ``result``'s values were written into the view ``t``: rebase its base, then ``t``.

    The base's new grad_fn is a CopySlices of its old values (``old_root``,
    a snapshot standing where the base stood; by default its current values)
    and ``result``; ``t`` becomes an AsStridedBackward0 view of the new base.
    Also used by ``Function.apply`` for an input that ``mark_dirty`` names.
    """
    root = _view_root(t)
    positions = _positions(root._data, t._data)
    if old_root is None:
        old_root = _snapshot(root)
    if _forward_mode.state.level is not None:
        # the base's tangent: its old tangent with the view's elements replaced
        with grad_mode.no_grad():
            _forward_mode.copy_tangent(_CopyIntoView.apply(old_root, positions, result), root)
    fn = result._grad_fn
    if fn is None:
        return
    base_edge = (old_root._grad_fn, old_root._output_nr) if old_root._grad_fn is not None \
        else (None, 0)
    root._grad_fn = CopySlices(base_edge, (root._data.shape, root._data.dtype), positions, fn)
    root._output_nr = 0
    root._requires_grad = True
    if root._retains_grad:
        root._add_retain_hook()
    prev = _state.enabled
    _state.enabled = True
    try:
        alias = _make(root._data, grad_fn=root._grad_fn)
        _adopt(t, _AsStrided.apply(alias, positions, t._data))
    finally:
        _state.enabled = prev
    # the wrapped op saved its output (exp_'s result): that is the view now,
    # with the view's new history, as PyTorch's saved variables of an
    # in-place op on a view give it back
    _edits.rebind_output(fn, t, moved=(t._grad_fn, t._output_nr))
    if t._vc is not None:
        t._view_version = t._vc[0]


class _Fill(Function):
    """Overwrite every element with a number (FillBackward2): no gradient reaches the old values."""

    node_name = "FillBackward2"

    @staticmethod
    def forward(ctx, a, value):
        return _make(np.full(a._data.shape, value, dtype=a._data.dtype))

    @staticmethod
    def backward(ctx, grad):
        return _zeros_like(grad), None


class _FillTensor(Function):
    """Overwrite every element with a 0-d tensor's value (FillBackward3): it gets the summed gradient."""

    node_name = "FillBackward3"

    @staticmethod
    def forward(ctx, a, value):
        if value._data.ndim:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value._data.ndim} dimensions."
            )
        return _make(np.full(a._data.shape, value._data, dtype=a._data.dtype))

    @staticmethod
    def backward(ctx, grad):
        return _zeros_like(grad), (grad.sum() if ctx.needs_input_grad[1] else None)


class _Zero(Function):
    """Overwrite every element with 0 (ZeroBackward0)."""

    node_name = "ZeroBackward0"

    @staticmethod
    def forward(ctx, a):
        return _make(np.zeros_like(a._data))

    @staticmethod
    def backward(ctx, grad):
        return _zeros_like(grad)


class _CopySlices(Function):
    """``self[key] = value`` recorded out of place (CopySlices, PyTorch's node for it).

    The gradient of the old values is the incoming gradient with the written
    positions zeroed; ``value`` receives the gradient at those positions,
    summed back to its own shape.
    """

    node_name = "CopySlices"

    @staticmethod
    def _name():
        return "torch::autograd::CopySlices"

    @staticmethod
    def forward(ctx, a, key, value):
        ctx.key = key
        out = a._data.copy()
        target = out[key].shape
        v = value._data
        while v.ndim > len(target) and v.shape[0] == 1:
            v = v[0]  # leading 1-dims of the value are dropped, as PyTorch's setitem does
        out[key] = np.broadcast_to(v, target)
        return _make(out)

    @staticmethod
    def backward(ctx, grad):
        keep = np.ones(grad._data.shape, dtype=bool)
        keep[ctx.key] = False
        ga = _zero_where_written(grad, keep)
        gv = _Pick.apply(grad, ctx.key) if ctx.needs_input_grad[2] else None
        return ga, None, gv


class _IndexPut(_CopySlices):
    """``self[mask_or_indices] = value`` (IndexPutBackward0: PyTorch's ``index_put_``)."""

    node_name = "IndexPutBackward0"
    _name = None


def _is_advanced(key):
    keys = key if isinstance(key, tuple) else (key,)
    return any(isinstance(k, (Tensor, list, np.ndarray)) for k in keys)


def _key_array(key):
    """Turn a Python index (ints, slices, None, tensors) into one numpy can use."""
    if isinstance(key, tuple):
        return tuple(_key_array(k) for k in key)
    if isinstance(key, Tensor):
        return key._data
    if isinstance(key, list):
        return np.asarray([k.item() if isinstance(k, Tensor) else k for k in key])
    return key


def setitem(t, key, value):
    """``t[key] = value`` (``Tensor.__setitem__``): an in-place write, recorded as CopySlices;
    returns None, as PyTorch's ``__setitem__``.

    Raises:
        RuntimeError: the in-place errors (a leaf that requires grad, casts, shapes); a number
            the dtype cannot hold ("value cannot be converted to type int without overflow").
        IndexError: for an index out of range.
    """
    given, key = key, ints_for_scalar_tensors(key)  # x[torch.tensor(1)] = v selects, as x[1]
    np_key = _key_array(key)
    try:
        t._data[np_key] if not isinstance(np_key, tuple) or len(np_key) else None
    except IndexError as err:
        check_key(t._data.ndim, given)  # PyTorch's sentences for a key too long
        raise IndexError(_numpy_index_message(err, t._data.shape, np_key)) from None
    if not isinstance(value, Tensor):
        if not is_scalar(value):
            value = Tensor._make(np.asarray(value, dtype=t._data.dtype))
        else:
            check_fill_value(value, t._data.dtype)  # PyTorch's overflow error (an int32 of 2**40)
            value = wrap_scalar(value)
    target = t._data[np_key].shape
    if value._data.shape != target and not value._wrapped:
        from .shape import Expand

        shape = value._data.shape
        while shape and shape[0] == 1 and len(shape) > len(target):
            shape = shape[1:]  # PyTorch drops leading 1-dims of the value first
        with grad_mode.no_grad():  # only to raise expand's errors for a value that does not fit
            Expand.apply(Tensor._make(value._data.reshape(shape)), tuple(target))
    if value._requires_grad and _state.enabled:
        value = _fit_value(value, target, _is_advanced(key))
    if _is_advanced(key):
        if not value._wrapped and value._data.dtype != t._data.dtype:  # (PyTorch's index_put_)
            raise RuntimeError(
                "Index put requires the source and destination dtypes match, got "
                f"{SCALAR_TYPE_NAMES[t._data.dtype.name]} for the destination and "
                f"{SCALAR_TYPE_NAMES[value._data.dtype.name]} for the source.")
        if has_internal_overlap(t._data):
            warnings.warn("Use of index_put_ on expanded tensors is deprecated. Please clone() the "
                          "tensor before performing this operation. This also applies to advanced "
                          "indexing e.g. tensor[indices] = tensor", UserWarning, stacklevel=3)
            return _write_expanded(t, np_key, value)
        # PyTorch applies the key's basic part first: if that makes a view, index_put_ writes
        # into the view, and the base records CopySlices (its backward is IndexPut's)
        cls = _CopySlices if _views_first(key, t._data.shape) else _IndexPut
        inplace(t, lambda a, v: cls.apply(a, np_key, v), value, reads_self=False)
        return None
    # PyTorch copies into t[key] (copy_), which refuses a region where one memory location
    # stands for several elements (x.expand(3, 4)[:, 1] = v), as x.copy_(v) does
    if has_internal_overlap(t._data if _whole(key, t._data.shape) else t._data[np_key]):
        _raise_internal_overlap()
    if has_internal_overlap(t._data):
        return _write_expanded(t, np_key, value)
    if _whole(key, t._data.shape):
        # x[...] = v, x[:] = v: PyTorch writes into the tensor itself, no view
        # (copy_to: CopyBackwards for a value of the same shape, FillBackward3
        # for one value, CopyBackwards again for one to broadcast)
        if not value._data.ndim and t._data.ndim:
            inplace(t, _FillTensor.apply, value, reads_self=False)
            return None
        inplace(t, _Copy.apply, value, reads_self=False)
        return None
    if _state.enabled and multi_view_name(t) is not None:
        _check_writable(t[key])  # PyTorch writes into the view t[key]: its node names the error
    inplace(t, lambda a, v: _CopySlices.apply(a, np_key, v), value, reads_self=False,
            via_view=True, written=t._data[np_key])
    return None


def _write_expanded(t, np_key, value):
    """``t[key] = value`` for an expanded ``t`` (one memory location for several elements).

    PyTorch writes the elements ``t[key]`` into the memory ``t`` views, its base's: so is
    it recorded here, on the base, as CopySlices of the base's positions that ``t[key]``
    covers; writing all of ``t`` would write a location once per element standing for it.
    """
    _check_writable(t, True)
    root = _view_root(t)
    root_key = np.unravel_index(_positions(root._data, t._data)[np_key], root._data.shape)
    inplace(root, lambda a, v: _CopySlices.apply(a, root_key, v), value, reads_self=False)


def _whole(key, shape):
    """True for a key that selects the tensor itself: ``...``, ``()``, ``:`` and whole-dim slices.

    (PyTorch's setitem, unlike getitem, does not keep a lone whole slice.)
    """
    keys = key if isinstance(key, tuple) else (key,)
    dim = 0
    for k in keys:
        if k is Ellipsis:
            dim = len(shape) - sum(1 for j in keys if j is not Ellipsis) + dim
            continue
        if not isinstance(k, slice) or dim >= len(shape):
            return False
        if k.step is not None and k.step <= 0 or k.indices(shape[dim]) != (0, shape[dim], 1):
            return False
        dim += 1
    return True


def _views_first(key, shape):
    """True if the basic part of an advanced ``key`` makes a view (an int, a ``None``, a slice
    short of its whole dim), as PyTorch's ``applySlicing`` does before ``index_put_``."""
    keys, consumed = check_key(len(shape), key)
    dim = 0
    for k in keys:
        if k is None or (isinstance(k, (int, np.integer)) and not isinstance(k, bool)):
            return True
        if k is Ellipsis:
            dim += len(shape) - consumed
        elif isinstance(k, slice):
            if k.indices(shape[dim]) != (0, shape[dim], 1):
                return True
            dim += 1
        elif not isinstance(k, bool):  # an index array, or a mask taking as many dims as it has
            arr = _as_index_array(k)
            dim += arr.ndim if arr.dtype == np.bool_ else 1
    return False


def _fit_value(value, target, advanced):
    """The value as PyTorch's setitem records it: leading 1-dims viewed away, then expanded.

    (``copy_to`` and ``index_put_`` in python_variable_indexing.cpp: a value of
    the target's shape, or a 0-d one, is used as it is.)
    """
    shape = value._data.shape
    if not shape or (shape == tuple(target) and not advanced):
        return value
    i = 0
    while i < len(shape) and shape[i] == 1:
        i += 1
    if advanced:  # index_put_: viewed only when there are leading 1-dims to drop
        return value.view(shape[i:]) if i else value
    value = value.view(shape[i:])
    return value if value._data.shape == tuple(target) else value.expand(*target)


# ------------------------------------------------------------ registration slot
# Forward mode (autograd/forward_ad.py, a layer above the ops): an in-place write
# carries the written value's tangent along.  forward_ad fills this slot with its
# ``state`` (``.level``: None unless a dual level is open) and ``copy_tangent(src, dst)``.
_forward_mode = None


def register_forward_mode(namespace):
    """Called by ``minigrad/autograd/forward_ad.py``."""
    global _forward_mode
    _forward_mode = namespace


# ... and the slots this module fills in the autograd core below it: the recorded
# copy of create_graph's first .grad, the ops that rebuild a stale view's history,
# and the rebase of a base written through a view that ``mark_dirty`` names.
_accumulate_grad.register_recorded_copy(_Copy.apply)
_view_history.register_view_ops(_Namespace(
    as_strided=_AsStrided.apply, positions=_positions, multi_view_name=multi_view_name))
_wrap_outputs.register_view_write(rebase_view_write)
