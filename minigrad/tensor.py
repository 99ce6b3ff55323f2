"""``Tensor``: a numpy array plus the autograd state PyTorch keeps beside it.

A Tensor holds

* ``_data``: the values, a numpy array of one of minigrad's dtypes;
* ``requires_grad``: the on-switch: operations on it are recorded;
* ``grad_fn``: the node that produced it (None for a tensor you created: a
  *leaf*); following ``grad_fn.next_functions`` walks the whole recording;
* ``grad``: for a leaf that requires grad, the gradients that backward
  accumulated into it.

Operators (``+ - * / ** @``, ``x.exp()``, ``x.sum()``, ...) dispatch to the
primitives in ``minigrad.ops``; each primitive is an ``autograd.Function`` that
computes with numpy and records one graph node.

Source: ``torch.Tensor`` (torch/_tensor.py and c10/core/TensorImpl.h).
"""

import warnings

import numpy as np

from . import _dtype
from . import _tensor_checks as _checks
from ._tensor_str import tensor_repr
from .autograd import grad_mode  # (a leaf module of autograd: it imports nothing of minigrad)

__all__ = ["Size", "Tensor"]

_state = grad_mode._state
_new = object.__new__
_ndarray = np.ndarray  # (a module-level name: numpy's module attributes are slow to read)


class Size(tuple):
    """A tensor's shape: a tuple of ints that prints as ``minigrad.Size([2, 3])`` (``torch.Size``)."""

    __slots__ = ()

    def __repr__(self):
        return "minigrad.Size([" + ", ".join(str(s) for s in self) + "])"

    __str__ = __repr__

    def __getitem__(self, key):
        out = tuple.__getitem__(self, key)
        return Size(out) if isinstance(key, slice) else out

    def numel(self):
        """The number of elements a tensor of this shape has."""
        n = 1
        for s in self:
            n *= s
        return n


class Tensor:
    """An n-dimensional array that can record the operations applied to it (``torch.Tensor``).

    Create tensors with ``minigrad.tensor(data, dtype=None, requires_grad=False)``
    or the factories (``zeros``, ``ones``, ...), not with this class directly.
    """

    # The attributes every tensor sets are slots; rarely used ones fall back
    # to the class defaults below and only get an instance dict when set.
    __slots__ = ("__dict__", "__weakref__", "_data", "_grad_fn", "_requires_grad", "_vc",
                 "_output_nr", "_view_of", "_accum")  # (the last three: read by every op's recording)
    _grad = None
    _wrapped = False
    _retains_grad = False
    _hooks = None
    _post_acc_hooks = None
    _base = None       # the tensor whose memory this one shares (views, detach)
    _view_version = 0  # the shared version counter when the view's grad_fn was made
    _no_grad_view = False  # a view taken under no_grad of a tensor that requires grad
    _multi_view = None  # (op, k): output k of a function returning several views (split)
    _inference = False
    _detached_seq = None  # the sequence number when detach_() took its grad_fn away

    # numpy must defer to Tensor's reflected operators (ndarray * Tensor)
    __array_priority__ = 1000

    @classmethod
    def _make(cls, data, grad_fn=None, requires_grad=False, vc=None, base=None):
        """Wrap a numpy array without copying or checking (internal fast path).

        ``vc`` is the version counter to share (views share their base's);
        None gives the tensor its own, created on first use.
        """
        t = _new(cls)
        # numpy returns scalars, not 0-d arrays, from operations on 0-d arrays
        t._data = data if type(data) is _ndarray else np.asarray(data)
        t._requires_grad = requires_grad or grad_fn is not None
        t._grad_fn = grad_fn
        t._vc = vc
        t._output_nr = 0  # which output of grad_fn this is
        t._view_of = None  # the input of the view op that made this tensor (differentiable views)
        t._accum = None  # a leaf's AccumulateGrad, weakly, while a graph holds it
        if base is not None:  # PyTorch's _base: a view of a view has its base's base
            t._base = base if base._view_of is None or base._base is None else base._base
            # a view is an inference tensor exactly when its base is one
            if base._inference:
                t._inference = True
        elif grad_mode.inference_blocks and _state.inference:
            t._inference = True
        return t

    # ------------------------------------------------------------------ data

    @property
    def shape(self):
        """The size of each dimension: a ``Size`` (a tuple of ints)."""
        return Size(self._data.shape)

    @property
    def dtype(self):
        """The element type: ``minigrad.float32``, ``float64``, ``int64``, ``int32`` or ``bool``."""
        return _DTYPE_OF[self._data.dtype]

    def item(self):
        """The value of a one-element tensor as a Python number.

        Raises:
            RuntimeError: PyTorch's message when the tensor has more than one element.
        """
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._data.reshape(()).item()

    def __repr__(self):
        return tensor_repr(self)

    # -------------------------------------------------------------- autograd

    @property
    def requires_grad(self):
        """Whether operations on this tensor are recorded.

        Settable on leaves only, and to True for floating dtypes only.  A view
        follows its base, as in PyTorch: ``v = b[:2]; b.requires_grad_()`` makes
        ``v.requires_grad`` True too (such a view, like one taken under
        ``no_grad``, collects no gradient).

        Raises:
            RuntimeError: "you can only change requires_grad flags of leaf variables. ..."
                for a non-leaf; "only Tensors of floating point and complex dtype can
                require gradients" for an integer tensor (``_tensor_checks``).
        """
        if self._requires_grad:
            return True
        if self._view_of is not None and self._grad_fn is None:
            root = self._view_of  # the tensor whose memory this view looks into
            while root._view_of is not None:
                root = root._view_of
            return root._requires_grad
        return False

    @requires_grad.setter
    def requires_grad(self, value):
        if value and self._grad_fn is None and self._data.dtype.kind != "f":
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad=True):
        """Set ``requires_grad`` in place and return self (``Tensor.requires_grad_``).

        Raises as setting ``requires_grad`` (``_tensor_checks.check_requires_grad``).
        """
        requires_grad = bool(requires_grad)
        if self._grad_fn is not None and requires_grad:
            return self  # (a non-leaf requires grad already)
        _checks.check_requires_grad(self, requires_grad)  # a leaf, floating, not inference
        self._requires_grad = requires_grad
        return self

    @property
    def grad_fn(self):
        """The node that produced this tensor, or None for a leaf."""
        if self._view_of is not None:
            _autograd.refresh_view(self)  # its base was rebased by an in-place write
        return self._grad_fn

    @property
    def is_leaf(self):
        """True for tensors not produced by a recorded operation (``grad_fn is None``)."""
        return self._grad_fn is None

    @property
    def grad(self):
        """The accumulated gradient (None until a backward reaches this leaf).

        Reading it on a non-leaf that does not retain its grad warns, as in
        PyTorch, and gives None.  It may be set to None or to a Tensor of this
        tensor's shape and dtype.

        Raises:
            TypeError: on setting something else than a Tensor or None.
            RuntimeError: on setting another shape or dtype, PyTorch 2.13's "attempting
                to assign a gradient of size ..." / "... with dtype ..." (``_tensor_checks``).
        """
        if self._grad is None and self._grad_fn is not None and not self._retains_grad:
            warnings.warn(_checks.WARN_NONLEAF_GRAD, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError("assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(value).__name__}")
            _checks.check_assigned_grad(self._data, value._data)
        self._grad = value

    @property
    def retains_grad(self):
        """True if ``retain_grad()`` was called on this non-leaf."""
        return self._retains_grad

    @property
    def output_nr(self):
        """Which output of ``grad_fn`` this tensor is."""
        return self._output_nr

    @property
    def _version(self):
        """How many times this tensor (or a view of its memory) was modified in place."""
        if self._inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        vc = self._vc
        return 0 if vc is None else vc[0]

    def _shared_vc(self):
        """The version counter, created on demand so that views can share it."""
        vc = self._vc
        if vc is None:
            vc = self._vc = [0]
        return vc

    def detach(self):
        """A new tensor sharing this one's memory and version counter, cut from the graph
        (``Tensor.detach``): ``requires_grad`` False; not a view, so its ``_base`` is None."""
        out = Tensor._make(self._data, vc=self._shared_vc())
        out._inference = self._inference
        return out

    def detach_(self):
        """Cut this tensor from the graph in place, making it a leaf (``Tensor.detach_``).

        A node that saved it before then refuses it in backward, as PyTorch's do
        ("Trying to use a saved tensor that has been detached in-place ...": saved_errors.py).

        Raises:
            RuntimeError: PyTorch's "Can't detach views in-place. ..." for a view.
        """
        if self._view_of is not None and self._grad_fn is not None:
            raise RuntimeError(_checks.ERR_DETACH_VIEW)
        if self._grad_fn is not None:  # (a node that saved it must now refuse it)
            _autograd.note_detached(self)
        self._grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        self._view_of = None
        return self

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Walk the recording behind this tensor in reverse and accumulate gradients into leaves.

        Args:
            gradient: the vector of the vector-Jacobian product, of this tensor's shape;
                may be omitted for a one-element tensor (it is 1).
            retain_graph (bool | None): keep the saved values to walk again (default:
                ``create_graph``).
            create_graph (bool): record the backward pass too, for gradients of gradients.
            inputs (sequence of Tensor | None): accumulate only into these.

        Raises:
            RuntimeError: "grad can be implicitly created only for scalar outputs"
                without ``gradient`` on more than one element; "element 0 of tensors
                does not require grad and does not have a grad_fn" when there is
                nothing to walk; "Trying to backward through the graph a second
                time ..." when a needed saved value was freed (``torch.Tensor.backward``).
        """
        _autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; it may return a replacement.

        The hook sees the gradient summed over all consumers, once; on a leaf,
        before it is accumulated into ``.grad``.  As in PyTorch, it sees None when
        the node that made this tensor runs but no gradient reached this output
        (the other half of a ``split``), and may not replace that None.  Returns a
        handle whose ``remove()`` unregisters the hook (``torch.Tensor.register_hook``).

        Raises:
            RuntimeError: "cannot register a hook on a tensor that doesn't require
                gradient"; in backward, "hook 'name' has changed the size of value" for
                another shape, "can't replace a None gradient with a non-None value".
        """
        return _autograd.register_hook(self, hook)

    def retain_grad(self):
        """Keep the gradient of this non-leaf in ``.grad`` during backward (``Tensor.retain_grad``).

        A no-op on leaves.  It keeps the gradient summed over all consumers, after
        this tensor's hooks ran.

        Raises:
            RuntimeError: "can't retain_grad on Tensor that has requires_grad=False".
        """
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains_grad:
            return
        self._retains_grad = True
        _autograd.add_retain_hook(self)  # (t._add_retain_hook() after an in-place op moves it)

    # The rest of Tensor is attached where it is written, each a plain function set on
    # this class: operators and methods in ops/__init__.py, beside the primitives they
    # dispatch to (_add_inplace_raw: ops/inplace.py); the data's conveniences (size(),
    # ndim, .data, numpy(), float(t), iteration, ...) in ops/conversion.py; the legacy
    # constructor Tensor(data) in creation.py; pickling and deepcopy in serialization.py;
    # in autograd/__init__.py, what only autograd calls: a leaf's AccumulateGrad
    # (_accumulator) and the rest of the hook machinery (autograd/hooks.py).


# ------------------------------------------------------ registration slot
# Tensor sits below autograd (layers go one way): autograd fills the slot when it loads.

_autograd = None  # backward, note_detached, refresh_view, register_hook, add_retain_hook


def register_autograd(namespace):
    """Called by ``minigrad/autograd/__init__.py`` with what Tensor's autograd methods call."""
    global _autograd
    _autograd = namespace


_DTYPE_OF = {d.np: d for d in _dtype._ALL}

