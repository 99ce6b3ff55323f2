"""``Function``: an operation with a forward and a vector-Jacobian product.

Every primitive in minigrad (``Mul``, ``Exp``, ``Sum``, ``Mm``, ...) is a
``Function`` subclass, and so is any operation a user defines::

    class Cube(minigrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x * x

    y = Cube.apply(x)       # y.grad_fn is a <CubeBackward object at 0x...>

``Function.apply`` runs ``forward`` with recording switched off and, if any
input requires grad, records one node: an instance of the class's backward
node type (``CubeBackward``), which is also the ``ctx`` that ``forward`` and
``backward`` receive.  That node holds the saved tensors, the inputs'
``next_functions`` and their shapes, and nothing else.

Source: ``torch.autograd.Function`` and ``torch.autograd.function.FunctionCtx``
(torch/autograd/function.py).
"""

import contextlib
import inspect
import warnings

import numpy as np

from ..tensor import Tensor
from . import anomaly, grad_mode
from .graph import BackwardNode
from .paths import collect_next_edges, pack  # each the fast twin unless MINIGRAD_GENERAL_PATHS=1
from .saved_attrs import node_attributes, raw_saved_tensors
from .view_history import view_root as _view_root
from .wrap_outputs import check_dirty, wrap_outputs

__all__ = ["BackwardNode", "Function", "FunctionCtx", "once_differentiable"]  # (the last: the face sets it)

_state = grad_mode._state


class Function:
    """Base class of every differentiable operation (``torch.autograd.Function``).

    A subclass defines ``forward(ctx, *args)`` (runs with recording off; returns a
    Tensor or a tuple of them) and ``backward(ctx, *grad_outputs)`` (one gradient
    per argument of forward, None where none is needed; a broadcast shape is
    summed back to the input's by the engine, as PyTorch's does).  Call it as
    ``MyFunction.apply(*args)``; never instantiate it.

    Class attributes (minigrad's primitives set them): ``node_name``, the node's
    name (default ``<ClassName>Backward`` as for PyTorch custom functions;
    primitives use PyTorch's, ``"MulBackward0"``); ``saved_names``, PyTorch's
    names for what ``save_for_backward`` gets (``_saved_self``, ...);
    ``saved_attrs``, ctx attributes shown the same way (``_saved_exponent``).
    A primitive writes its vector-Jacobian product once, as
    ``formula(F, ctx, *grads, *saved)``, run on numpy arrays or on recorded
    Tensors (``ops/formulas.py``, which gives such a class its ``backward``).
    """

    node_name = None
    saved_names = ()
    saved_attrs = ()
    _backward_cls = BackwardNode
    _setup_context_style = False  # forward(*args) with setup_context (set per subclass)
    _is_view = False  # True for ops whose output shares the input's memory
    # forward under np.errstate(all="ignore"), as PyTorch never warns about inf or nan
    # (ops that cannot make one opt out: entering errstate costs about a microsecond)
    _quiet_numpy = True
    _numpy_forward = False  # forward computes with numpy alone: no need to switch recording off
    _ints_are_indices = False  # saved int tensors are indices (ops/formulas.py's _one_dtype)

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run ``forward`` and, if any input requires grad (and grad mode is on), record a node.

        Returns what ``forward`` returned; its tensors carry ``grad_fn`` = the new node.
        """
        if _tracer is not None:  # minigrad.jit is recording this call (jit/recording.py); else free
            return _tracer(cls, args, kwargs) if kwargs else _tracer(cls, args)
        if kwargs or cls._setup_context_style:  # keyword arguments count as inputs, in order
            args, kwargs, inputs = _inputs(cls, args, kwargs)
        else:
            inputs, kwargs = args, None  # the usual call: forward(ctx, *args)
        # 1. The node, with an edge per input (edges.py); None when no input requires grad,
        # grad mode is off, or inference mode is on (read only inside an inference_mode block)
        recording = _state.enabled and not (grad_mode.inference_blocks and _state.inference)
        node = collect_next_edges(cls, inputs) if recording else None
        # the node is also the ctx that forward fills in; else a throwaway one
        ctx = node if node is not None else _ForwardOnlyCtx.for_inputs(len(inputs))
        # 2. forward, with recording off (and numpy's warnings, ops that cannot make inf opt out)
        run = _run_forward_quietly if cls._quiet_numpy and not _state.numpy_quiet else _run_forward
        out = run(cls, ctx, args, kwargs)
        if ctx._dirty or cls._is_view:  # forward wrote into an input, or its output views one
            _check_memory(cls, ctx, args, out, node)
        # 3. record: the node becomes the outputs' grad_fn and keeps what forward saved
        if node is not None:
            out = _record(node, inputs, out, ctx._dirty)
        # 4. forward mode (autograd.forward_ad): push tangents through this op
        if _fw_state.level is not None:
            _fw_propagate(cls, inputs, out, ctx)
        return out

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("node_name") or cls.__name__ + "Backward"
        # the saved attributes are slots of the node: no per-node dict for them
        ns = {"__slots__": tuple(a for a in cls.saved_attrs if not hasattr(BackwardNode, a)),
              "_forward_cls": cls, "__module__": cls.__module__, "__qualname__": name,
              "_is_primitive": "node_name" in cls.__dict__}
        ns.update(node_attributes(cls.saved_names, cls.saved_attrs))  # _saved_self, ... (saved_attrs.py)
        if "formula" in cls.__dict__:  # (every primitive: ops/formulas.py runs it)
            _formula_node(cls, ns)
        cls._backward_cls = type(name, (BackwardNode, FunctionCtx), ns)  # the node is the ctx
        # forward(*args) + setup_context(ctx, inputs, output): the style the
        # "Extending PyTorch" note shows first
        cls._setup_context_style = cls.setup_context is not Function.setup_context

    def __init__(self, *args, **kwargs):
        warnings.warn(
            f"{type(self)} should not be instantiated. Methods on autograd functions are all "
            "static, so you should invoke them on the class itself. Instantiating an autograd "
            "function will raise an error in a future version of PyTorch.",
            DeprecationWarning,
            stacklevel=2,
        )

    @staticmethod
    def forward(ctx, *args):
        """Compute the outputs; see the class docstring."""
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Save what ``backward`` needs, for a ``forward(*args)`` that takes no ``ctx``.

        Override it together with a ``forward`` without ``ctx``: ``apply``
        then calls ``forward(*args)`` and ``setup_context(ctx, inputs,
        output)``, both with recording off; ``inputs`` is the tuple of
        ``apply``'s arguments (defaults filled in), ``output`` what forward
        returned.  Source: ``torch.autograd.Function.setup_context``.

        Raises:
            NotImplementedError: "setup_context is not implemented." when not overridden.
        """
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        """Vector-Jacobian product; see the class docstring."""
        raise NotImplementedError("You must implement either the backward or vjp method for your custom autograd.Function to use it with backward mode AD.")


def _note_view(out, base, under_no_grad):
    """``out`` views ``base``'s memory: what an in-place write into it must know (view_history.py)."""
    out._view_of = base  # what a write into `out` must rebase
    # the memory's version now: once an in-place write (through the base, a sibling
    # view, or under no_grad) moves it, this view's grad_fn is rebuilt from its base's
    vc = out._vc
    if vc is not None:
        out._view_version = vc[0]
    if under_no_grad and _view_root(base)._requires_grad:
        # PyTorch: a view of a tensor that requires grad, taken under no_grad, is a leaf
        # that still requires grad, but no gradient reaches it or its base, and writing
        # into it with grad mode on is refused (ops/inplace.py)
        out._requires_grad = True
        out._no_grad_view = True


def _inputs(cls, args, kwargs):
    """``(args, kwargs, inputs)``: forward's arguments, and the node's inputs, as PyTorch counts
    them: keyword arguments after the positional ones, in the order given (for
    ``needs_input_grad``, ``next_functions`` and the gradients ``backward`` returns).  With
    ``setup_context`` they are bound to ``forward``'s parameters first, defaults filled in."""
    if cls._setup_context_style:
        bound = inspect.signature(cls.forward).bind(*args, **kwargs)
        bound.apply_defaults()
        args, kwargs = bound.args, bound.kwargs
    return args, kwargs, (args + tuple(kwargs.values()) if kwargs else args)


def _run_forward(cls, ctx, args, kwargs):
    """``cls.forward`` with recording off (a primitive computing with numpy alone,
    ``_numpy_forward``, needs no switch); ``kwargs`` None for the usual call."""
    state = _state
    enabled = state.enabled
    switch = enabled and not cls._numpy_forward
    if switch:
        state.enabled = False
    try:
        if kwargs is None:
            return cls.forward(ctx, *args)
        if not cls._setup_context_style:
            return cls.forward(ctx, *args, **kwargs)
        out = cls.forward(*args, **kwargs)  # forward(*args), then setup_context
        cls.setup_context(ctx, args, out)
        return out
    finally:
        if switch:
            state.enabled = enabled


# The same with numpy's warnings off: PyTorch never warns about inf or nan arising in
# arithmetic.  (np.errstate as a decorator, numpy's public API: entered for about half
# the cost of a with-statement, no errstate object made per call.)
_run_forward_quietly = np.errstate(all="ignore")(_run_forward)


def _check_memory(cls, ctx, args, out, node):
    """Check inputs forward marked dirty (wrap_outputs.py); note an output viewing its input."""
    if ctx._dirty:
        check_dirty(ctx, out, node is not None)
    if cls._is_view:
        _note_view(out, args[0], not _state.enabled)


def _record(ctx, args, out, dirty=()):
    """Make the node ``ctx`` the history of ``out``, and store what forward saved.

    ``dirty``: the inputs forward marked dirty (``ctx._dirty``, read once by ``apply``).
    """
    if anomaly._state.enabled:
        anomaly.record_forward_trace(ctx)
    if type(out) is Tensor and not dirty and not ctx._non_differentiable and not _is_one_of(out, args):
        out._grad_fn = ctx  # the usual case: one new tensor, whose history is this node
        out._requires_grad = True
    else:  # several outputs, an input returned, or marked dirty or non-differentiable
        out = wrap_outputs(ctx, args, out)
    to_save = ctx._to_save
    if to_save:
        ctx._to_save = ()  # first: a failing pack hook must not leave node <-> output cycles
        pack(ctx, to_save)  # pack hooks run in this order
    return out


def _is_one_of(t, args):
    """True if ``t`` is one of ``args`` itself (forward returned an input)."""
    for a in args:
        if a is t:
            return True
    return False


class FunctionCtx:
    """What ``forward`` and ``backward`` receive as ``ctx`` (``torch.autograd.function.FunctionCtx``).

    Methods and attributes used in ``forward``: ``save_for_backward(*tensors)``,
    ``mark_non_differentiable(*outputs)``, ``set_materialize_grads(bool)``,
    ``needs_input_grad`` (a tuple of bools, one per argument of ``apply``).
    In ``backward``: ``saved_tensors``.  Any other attribute can be set on
    ``ctx`` to pass non-tensor values from forward to backward.
    """

    __slots__ = ()

    def save_for_backward(self, *tensors):
        """Keep these tensors (or None) for ``backward``, which reads them as ``saved_tensors``,
        checked for in-place changes; freed as soon as the walk has run this node (saved.py).
        Other values are set as attributes of ``ctx``.

        Raises:
            TypeError: if an argument is neither a Tensor nor None.
        """
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument {i} "
                                f"is of type {type(t).__name__}")
        self._to_save = tensors

    def mark_non_differentiable(self, *outputs):
        """Declare outputs that get no gradient (e.g. the indices returned by ``max``)."""
        self._non_differentiable = tuple(id(o) for o in outputs)

    def set_materialize_grads(self, value):
        """Whether ``backward`` receives zeros (True, the default) or None for unused outputs."""
        self._materialize = bool(value)

    def mark_dirty(self, *tensors):
        """Declare inputs that ``forward`` modified in place; each must also be returned.

        As in PyTorch, ``apply`` then returns the input object itself, bumps its
        version and rebases its history (wrap_outputs.py, with the errors raised).
        """
        self._dirty = tensors

    @property
    def saved_tensors(self):
        """The tensors given to ``save_for_backward``, in order (a node's: graph.py, saved.py)."""
        return ()  # a ctx that records nothing keeps nothing

    @property
    def _raw_saved_tensors(self):
        """The saved tensors, not unpacked (each has ``register_hooks``), as PyTorch's."""
        return raw_saved_tensors(self)


class _ForwardOnlyCtx(FunctionCtx):
    """The ``ctx`` of a call that records nothing: accepts what forward sets, keeps nothing."""

    __slots__ = ("__dict__", "_materialize", "_non_differentiable", "_to_save", "needs_input_grad")
    _dirty = ()  # set (in the instance dict) only by mark_dirty

    @classmethod
    def for_inputs(cls, n):
        ctx = cls()
        ctx.needs_input_grad = _NO_GRAD[n] if n < 8 else (False,) * n
        return ctx


_NO_GRAD = tuple((False,) * n for n in range(8))


# ------------------------------------------------------------ registration slots
# What Function needs from the layers above the core; each fills its slot when it loads.
_fw_state = _fw_propagate = None  # forward_ad: its state (.level, read by every apply), _propagate
_formula_node = None  # ops/formulas.py: _formula_node(cls, ns) makes cls's node run its formula


def register_forward_mode(state, propagate):
    """Called by ``minigrad/autograd/forward_ad.py`` with its ``_state`` and ``_propagate``."""
    global _fw_state, _fw_propagate
    _fw_state, _fw_propagate = state, propagate


def register_formula_node(fn):
    """Called by ``minigrad/ops/formulas.py`` (first of the ops) with ``formula_node``."""
    global _formula_node
    _formula_node = fn


# --- the jit's one way in: while minigrad.jit traces, each apply goes to its hook -----
_tracer = None  # the hook; set only here, by tracing() and untraced()


@contextlib.contextmanager
def tracing(hook):
    """``with tracing(hook):`` each ``Function.apply`` call goes to ``hook(cls, args[, kwargs])``,
    which runs the call itself ``untraced()`` (what a primitive's forward calls is not traced).

    Raises:
        RuntimeError: "... cannot trace or compile while another trace is recording".
    """
    global _tracer
    if _tracer is not None:
        raise RuntimeError("minigrad.jit: cannot trace or compile while another trace is recording")
    _tracer = hook
    try:
        yield
    finally:
        _tracer = None


@contextlib.contextmanager
def untraced():
    """``with untraced():`` ``apply`` runs as usual (inside a hook: the call it records)."""
    global _tracer
    hook, _tracer = _tracer, None
    try:
        yield
    finally:
        _tracer = hook


def is_tracing():
    return _tracer is not None
