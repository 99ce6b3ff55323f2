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
from ._layout import canonical_dim
from ._tensor_str import tensor_repr
from .autograd import grad_mode  # (a leaf module of autograd: it imports nothing of minigrad)

__all__ = ["Size", "Tensor", "is_tensor", "ones", "ones_like", "tensor", "zeros", "zeros_like"]

_state = grad_mode._state
_new = object.__new__
_ndarray = np.ndarray  # (a module-level name: numpy's module attributes are slow to read)

_NONLEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information."
)
_INT_GRAD_ERROR = "Only Tensors of floating point and complex dtype can require gradients"


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
    """An n-dimensional array that can record the operations applied to it.

    Create tensors with ``minigrad.tensor(data, dtype=None, requires_grad=False)``
    or the factories (``zeros``, ``ones``, ...), not with this class directly.

    Attributes:
        shape (tuple[int, ...]): sizes of each dimension (``torch.Size`` in PyTorch).
        dtype: ``minigrad.float32`` (default), ``float64``, ``int64`` or ``bool``.
        ndim (int): number of dimensions.
        requires_grad (bool): record operations on this tensor; settable on
            leaves only, floating dtypes only.
        grad (Tensor | None): accumulated gradient of a leaf (or a non-leaf
            after ``retain_grad()``); same shape and dtype as the tensor.
        grad_fn (Node | None): the node that created this tensor.
        is_leaf (bool): True if ``grad_fn`` is None.

    Source: ``torch.Tensor``.
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

    def __new__(cls, *args, **kwargs):
        """``Tensor(data)`` or ``Tensor(*sizes)``: PyTorch's legacy constructor, float32
        (``creation.legacy_new``); ``minigrad.tensor(data)`` is the modern spelling."""
        return legacy_new(_dtype.float32, args, kwargs)

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
        if base is not None:
            t._base = base
            # a view is an inference tensor exactly when its base is one
            if base._inference:
                t._inference = True
        elif grad_mode.inference_blocks and _state.inference:
            t._inference = True
        return t

    @classmethod
    def _alias_of(cls, t):
        """A new tensor object over the same array and version counter, without history.

        No reference back to ``t``: a node saving its own output keeps such an
        alias, and a reference to the output would be a cycle.
        """
        return cls._make(t._data, vc=t._shared_vc())

    # ------------------------------------------------------------------ data

    @property
    def shape(self):
        """The size of each dimension: a ``Size`` (a tuple of ints)."""
        return Size(self._data.shape)

    def size(self, dim=None):
        """``shape``, or the size of one dimension (``Tensor.size``).

        Raises:
            IndexError: PyTorch's "Dimension out of range" for a bad ``dim``.
        """
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[canonical_dim(dim, self._data.ndim)]

    @property
    def dtype(self):
        """The element type: ``minigrad.float32``, ``float64``, ``int64`` or ``bool``."""
        return _DTYPE_OF[self._data.dtype]

    @property
    def ndim(self):
        """Number of dimensions (0 for a scalar tensor)."""
        return self._data.ndim

    def dim(self):
        """Number of dimensions (``Tensor.dim()``)."""
        return self._data.ndim

    def numel(self):
        """Number of elements."""
        return self._data.size

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def is_floating_point(self):
        """True for float32 and float64 tensors."""
        return self._data.dtype.kind == "f"

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

    def numpy(self):
        """The values as a numpy array sharing memory with the tensor.

        Raises:
            RuntimeError: PyTorch's message if the tensor requires grad while
                grad mode is on (call ``.detach().numpy()``); under
                ``no_grad`` (inside a custom Function's forward, say) it is
                allowed, as in PyTorch.
        """
        if self._requires_grad and _state.enabled:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
            )
        return self._data

    def __array__(self, dtype=None, copy=None):
        if self._requires_grad and _state.enabled:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
            )
        return self._data if dtype is None else self._data.astype(dtype)

    def __float__(self):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return float(self.item())

    def __int__(self):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return int(self.item())

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError(
                "Boolean value of Tensor with more than one value is ambiguous"
            )
        return bool(self._data.reshape(()).item())

    def __repr__(self):
        return tensor_repr(self)

    def __hash__(self):
        return id(self)

    def __reduce_ex__(self, protocol):
        # pickling (minigrad.save): the values and requires_grad, never the history
        return _serialization.reduce_tensor(self)

    def __deepcopy__(self, memo):
        return _serialization.deepcopy_tensor(self, memo)

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))  # as PyTorch: one UnbindBackward0 node for all rows

    # -------------------------------------------------------------- autograd

    @property
    def requires_grad(self):
        """Whether operations on this tensor are recorded.

        Setting it is allowed on leaves only (PyTorch's rule) and only to True
        for floating dtypes.  A view follows its base: ``v = b[:2];
        b.requires_grad_()`` makes ``v.requires_grad`` True too, as in
        PyTorch (such a view, like one taken under ``no_grad``, collects no
        gradient).

        Raises:
            RuntimeError: "you can only change requires_grad flags of leaf
                variables." for a non-leaf; "Only Tensors of floating point
                and complex dtype can require gradients" for an integer tensor.
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

        Raises:
            RuntimeError: see ``requires_grad``.
        """
        requires_grad = bool(requires_grad)
        if self._grad_fn is not None:
            if requires_grad:
                return self
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to "
                "use a computed variable in a subgraph that doesn't require differentiation "
                "use var_no_grad = var.detach()."
            )
        if requires_grad and self._data.dtype.kind != "f":
            # PyTorch's wording differs here from the factories' (lowercase, no "complex")
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and self._inference and not _state.inference:
            raise RuntimeError(
                "Setting requires_grad=True on inference tensor outside InferenceMode is not "
                "allowed."
            )
        self._requires_grad = requires_grad
        return self

    @property
    def grad_fn(self):
        """The node that produced this tensor, or None for a leaf."""
        if self._view_of is not None:
            _autograd.refresh_view(self)  # its base was rebased by an in-place write
        return self._grad_fn

    @property
    def data(self):
        """The values as a new tensor outside the graph (``Tensor.data``).

        Unlike ``detach()``, in-place changes through it are not seen by the
        version counter: this is the old back door PyTorch keeps for code such
        as ``w.data.fill_(0.5)``; prefer ``detach()`` or ``no_grad()``.
        Assigning ``t.data = other`` replaces the values (any shape or dtype)
        and keeps the graph state.
        """
        return Tensor._make(self._data)

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        self._data = value._data

    def is_inference(self):
        """True for a tensor made inside ``inference_mode`` (``Tensor.is_inference``)."""
        return self._inference

    @property
    def is_leaf(self):
        """True for tensors not produced by a recorded operation (``grad_fn is None``)."""
        return self._grad_fn is None

    @property
    def grad(self):
        """The accumulated gradient (None until a backward reaches this leaf).

        Reading it on a non-leaf that does not retain its grad warns, as in
        PyTorch, and gives None.
        """
        if self._grad is None and self._grad_fn is not None and not self._retains_grad:
            warnings.warn(_NONLEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        """Set ``.grad``: None, or a Tensor of this tensor's shape and dtype.

        Raises:
            TypeError: for a value that is not a Tensor.
            RuntimeError: PyTorch 2.13's "attempting to assign a gradient of
                size ..." / "... with dtype ..." for another shape or dtype.
        """
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type(value).__name__}"
                )
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value._data.shape)}' to a "
                    f"tensor of size '{list(self._data.shape)}'. Please ensure that the gradient "
                    "and the tensor are the same size"
                )
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_dtype.C_TYPE_NAMES[value._data.dtype.name]}' "
                    f"to a tensor with grad_dtype '{_dtype.SCALAR_TYPE_NAMES[self._data.dtype.name]}'. The "
                    "gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). "
                    "You can set the tensor's grad_dtype attribute with a specific dtype, or None "
                    "to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a "
                    "tensor and its gradient may break downstream systems that assume they match."
                )
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

    def _accumulator(self):
        """This leaf's ``AccumulateGrad`` node: one per leaf while a graph holds it."""
        return _autograd.accumulator(self)

    def _post_accumulate_hooks(self):
        h = self._post_acc_hooks
        return () if h is None else tuple(h.values())

    def retain_grad(self):
        """Keep the gradient of this non-leaf in ``.grad`` during backward (``Tensor.retain_grad``).

        A no-op on leaves.  The gradient kept is the one that arrives summed
        over all consumers, after any hooks registered on this tensor.

        Raises:
            RuntimeError: "can't retain_grad on Tensor that has requires_grad=False".
        """
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains_grad:
            return
        self._retains_grad = True
        self._add_retain_hook()

    def _add_retain_hook(self):
        """Register retain_grad's hook on the current grad_fn (again after an in-place op moves it)."""
        _autograd.add_retain_hook(self)

    def register_hook(self, hook):
        """Call ``hook(grad)`` when the gradient of this tensor is computed; it may return a replacement.

        The hook sees the gradient summed over all consumers, once.  For a leaf
        it runs before the gradient is accumulated into ``.grad``.  As in
        PyTorch, it sees None when the node that made this tensor runs but no
        gradient reached this output (the other half of a ``split``); it may
        not replace a None with a tensor.

        Returns:
            a handle whose ``remove()`` unregisters the hook.

        Raises:
            RuntimeError: "cannot register a hook on a tensor that doesn't
                require gradient"; at backward, "hook 'name' has changed the
                size of value" if the hook returns another shape, "can't
                replace a None gradient with a non-None value".

        Source: ``torch.Tensor.register_hook``.
        """
        return _autograd.register_hook(self, hook)

    def _run_leaf_hooks(self, grad):
        """Apply the hooks registered on this leaf (called by its AccumulateGrad)."""
        return _autograd.run_leaf_hooks(self, grad)

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(tensor)`` after a gradient was accumulated into this leaf's ``.grad``.

        Raises:
            RuntimeError: on a non-leaf, as in PyTorch.
        """
        return _autograd.register_post_accumulate_grad_hook(self, hook)

    def detach(self):
        """A new tensor over the same values, cut from the graph (``requires_grad=False``).

        It shares memory (and the version counter) with this tensor, as in PyTorch.
        """
        return Tensor._make(self._data, vc=self._shared_vc(), base=self)

    def detach_(self):
        """Cut this tensor from the graph in place, making it a leaf (``Tensor.detach_``).

        A node that saved it before then refuses it in backward, as PyTorch's
        nodes do ("Trying to use a saved tensor that has been detached
        in-place ...": ``autograd/saved_errors.py``).

        Raises:
            RuntimeError: PyTorch's "Can't detach views in-place. ..." for a view.
        """
        if self._view_of is not None and self._grad_fn is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
            )
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
            gradient: the vector of the vector-Jacobian product: a tensor of this
                tensor's shape; may be omitted for a one-element tensor (it is 1).
            retain_graph (bool | None): keep saved values so the graph can be
                walked again; defaults to ``create_graph``.
            create_graph (bool): record the backward pass itself, so the
                gradients can be differentiated again.
            inputs (sequence of Tensor | None): accumulate only into these.

        Raises:
            RuntimeError: "grad can be implicitly created only for scalar
                outputs" without ``gradient`` on a tensor of more than one
                element; "element 0 of tensors does not require grad and does
                not have a grad_fn" when there is nothing to walk; PyTorch's
                "Trying to backward through the graph a second time ..." when a
                needed saved value was already freed.

        Source: ``torch.Tensor.backward``.
        """
        _autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    # ------------------------------------------------------------- copies

    def _copy(self):
        """An independent copy of the values, no history (internal)."""
        return Tensor._make(self._data.copy())

    def _add_inplace_raw(self, array):
        """``self += array`` on the raw values, bumping the version (internal)."""
        np.add(self._data, array, out=self._data, casting="unsafe")
        self._shared_vc()[0] += 1

    # Operators and methods are attached in minigrad/ops/__init__.py, next to the primitives
    # they dispatch to; the data conveniences (device, tolist, ...) in ops/conversion.py.


# ------------------------------------------------------ registration slots
# Tensor sits below autograd and serialization (layers go one way); they plug in
# here when they load, each filling its slot through its register_ function.

_autograd = None  # from minigrad.autograd: backward, accumulator, hooks, ...
_serialization = None  # minigrad.serialization: reduce_tensor, deepcopy_tensor


def register_autograd(namespace):
    """Called by ``minigrad/autograd/__init__.py``: what Tensor's autograd methods call.

    ``namespace`` has ``backward``, ``accumulator`` (a leaf's AccumulateGrad),
    ``note_detached`` (detach_ on a recorded tensor), ``refresh_view`` and the
    hook machinery (autograd/hooks.py): ``register_hook``, ``run_leaf_hooks``,
    ``add_retain_hook``, ``register_post_accumulate_grad_hook``.
    """
    global _autograd
    _autograd = namespace


def register_serialization(namespace):
    """Called by ``minigrad/serialization.py``: ``reduce_tensor``, ``deepcopy_tensor``."""
    global _serialization
    _serialization = namespace


_DTYPE_OF = {d.np: d for d in (_dtype.float32, _dtype.float64, _dtype.int64, _dtype.bool)}


# tensor(), zeros(), ones() and the conversion of Python data live in creation.py
# with the other factories; they stay importable from here
from .creation import (  # noqa: E402 (Tensor must exist first: creation imports it)
    is_tensor,
    legacy_new,
    ones,
    ones_like,
    tensor,
    zeros,
    zeros_like,
)
