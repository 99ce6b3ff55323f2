"""The recorded graph: ``Node``, ``BackwardNode`` (a Function's), ``AccumulateGrad``, ``GraphRoot``.

Every operation on a tensor that requires grad creates one ``Node``: it turns the
gradient of its output into gradients for its inputs (a vector-Jacobian product),
holds the values that needs (its *saved tensors*: ``saved.py``) and points back at
the nodes that made its inputs (``next_functions``).  A leaf that requires grad is
represented by its ``AccumulateGrad``, which adds the arriving gradient into ``.grad``.

Ownership runs one way: a tensor owns its ``grad_fn``; a node owns the nodes behind
it and its saved values, never the tensor it produced.  So a graph is freed by
reference counting as soon as its output is dropped.

Source: ``torch.autograd.graph.Node``; the C++ ``torch::autograd::Node`` and
``AccumulateGrad`` (torch/csrc/autograd/function.h, functions/accumulate_grad.h).
"""

import itertools
import weakref

import numpy as np

from ..tensor import Tensor
from . import grad_kinds, grad_mode
from . import saved
from .accumulate_grad import _accumulate_recorded, _add_into, _first_grad
from .node_hooks import NodeHookMethods
from .py_node import PyNodeMethods, _tensor_zeros

# (the last four: set here by the package face, from saved_hooks.py, hooks.py, save_on_cpu.py)
__all__ = ["AccumulateGrad", "Node", "SavedTensor", "register_multi_grad_hook",
           "save_on_cpu", "saved_tensors_hooks"]


# Each node gets the next sequence number when it is made.  The walk runs the ready
# node with the highest number first, as PyTorch's engine does: the reverse of the
# order the forward pass made them.
_sequence = itertools.count()
# AccumulateGrad's sequence number is UINT64_MAX, as PyTorch's; ReadyQueue.push runs it first.
UINT64_MAX = 2**64 - 1


class Node(NodeHookMethods):
    """One recorded operation: the object a tensor's ``grad_fn`` points to.

    Attributes:
        next_functions (tuple[tuple[Node | None, int], ...]): one ``(node, output_nr)``
            pair per differentiable input: the input's ``grad_fn`` (or its leaf's
            ``AccumulateGrad``) and which of that node's outputs it was; ``(None, 0)``
            for an input that does not require grad.
        metadata (dict): free space for user annotations, as in PyTorch.

    Subclasses implement ``apply(grads, F)``.  Kept small (a graph may have a million
    nodes): the edges are two parallel tuples, ``_next_fns`` and ``_next_nrs`` (a shared
    constant when all are 0), paired when ``next_functions`` is read, as in PyTorch; the
    hooks one ``_hooks`` record, None for most nodes (node_hooks.py).  Source:
    ``torch.autograd.graph.Node``.
    """

    __slots__ = ("__dict__", "__weakref__", "_seq", "_next_fns", "_next_nrs", "_hooks")
    _metadata = None
    _anomaly_trace = None
    _in_meta = None  # (shape, dtype) of each input, one per edge (BackwardNode sets its own)
    _out_meta = None  # (shape, dtype) per output, for nodes with several outputs
    _kept = ()  # no saved values (saved.py reads them; BackwardNode keeps its own)
    # True for the nodes of built-in primitives: like PyTorch's generated
    # formulas, they compute nothing when no input needs a gradient.
    _is_primitive = False

    def __init__(self, next_fns=(), next_nrs=(), seq=None):
        """A node with these edges and, unless ``seq`` is given, the next sequence number."""
        self._seq = next(_sequence) if seq is None else seq
        self._next_fns, self._next_nrs = next_fns, next_nrs
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
        """``y.grad_fn(v)``: the node's vector–Jacobian product :math:`J^\\top v`, no engine.

        Returns one gradient per entry of ``next_functions`` (a tensor when there is
        one, else a tuple; None where an input needs none).  No hooks run, nothing
        goes into ``.grad``, nothing saved is freed, and a broadcast input's gradient
        keeps the broadcast shape (the engine sums it back).  With grad mode on the
        formula is recorded, as under ``create_graph=True``.

        Args:
            *grad_outputs (Tensor): one per output of the node, each of its shape.

        Raises:
            RuntimeError: the saved values were freed by a walk ("Trying to backward
                through the graph a second time").

        Source: ``Node::operator()`` (torch/csrc/autograd/function.h).
        """
        with np.errstate(all="ignore"):  # as in a walk: PyTorch never warns about inf or nan
            out = tuple(self.apply(tuple(grad_outputs), grad_kinds.TENSORS))
        return out[0] if len(out) == 1 else out

    # --- what the engine calls ---------------------------------------------

    def _sequence_nr(self):
        """Larger for nodes recorded later (``Node._sequence_nr()``): only the order counts."""
        return self._seq

    def _num_outputs(self):
        return 1

    def apply(self, grads, F):  # pragma: no cover - abstract
        """The vector-Jacobian product: one gradient per output in, one per edge out.

        ``F`` is how gradients travel: ``ARRAYS`` (numpy arrays, None for none: a walk
        that records nothing) or ``TENSORS`` (recorded: ``create_graph=True``, ``node(v)``);
        grad_kinds.py.  Source: ``Node::apply`` (torch/csrc/autograd/function.h).
        """
        raise NotImplementedError


# Output numbers of the edges: almost always all 0, so shared tuples.
_ZEROS = tuple((0,) * n for n in range(8))


def _output_nrs(nrs):
    nrs = tuple(nrs)
    return _ZEROS[len(nrs)] if len(nrs) < 8 and not any(nrs) else nrs


class BackwardNode(PyNodeMethods, Node):
    """The graph node recorded by ``Function.apply`` (PyTorch's ``BackwardCFunction``).

    Each Function gets a subclass (``MulBackward0`` for ``Mul``), also the ``ctx`` its
    forward and backward receive (with ``FunctionCtx``'s methods: function.py).  It holds
    the edges, the inputs' ``(shape, dtype)`` (``_in_meta``, for the engine's checks),
    ``needs_input_grad``, which arguments have edges (``_edge_args``, None: all) and the
    saved values (saved.py's); anything else ``forward`` sets on ``ctx``.  Its name, repr
    and what it does around ``backward`` are PyTorch's ``PyNode``'s (py_node.py).
    """

    __slots__ = ("_edge_args", "_in_meta", "_to_save", "needs_input_grad") + saved.NODE_SLOTS
    _forward_cls = None
    _non_differentiable = ()  # (ctx defaults, set per node only when used)
    _dirty = ()

    def __init__(self, needs_input_grad, next_fns, next_nrs, in_meta, edge_args=None):
        # (made by edges.collect_next_edges; edge_args: which arguments have edges, None: all)
        Node.__init__(self, next_fns, next_nrs)
        self.needs_input_grad, self._in_meta, self._edge_args = needs_input_grad, in_meta, edge_args
        self._to_save = self._kept = self._kept_versions = ()

    @property
    def saved_tensors(self):
        """The tensors given to ``save_for_backward``, in order (see ``FunctionCtx``)."""
        return tuple(saved.unpack(self))

    @property
    def _saved(self):
        """The saved values as ``SavedTensor`` records (None where nothing was saved), made
        afresh for tools that look inside a node (viz, memory): looking changes nothing."""
        return saved.records(self)

    def _num_outputs(self):
        return 1 if self._out_meta is None else len(self._out_meta)

    def apply(self, grads, F):
        """The forward class's ``backward``, written on Tensors (a custom Function's): a walk
        that records nothing (``ARRAYS``) wraps and unwraps."""
        if not F.records:
            return F.from_tensors(BackwardNode.apply(self, F.to_tensors(grads), grad_kinds.TENSORS))
        grads = self._materialized(grads, _tensor_zeros)
        return self._per_edge(self._forward_cls.backward(self, *grads))


class AccumulateGrad(Node):
    """The graph node of a leaf that requires grad: adds arriving gradients into ``.grad``.

    Attributes:
        variable (Tensor): the leaf.

    As in PyTorch, the first gradient is stored (taken over when nothing else holds
    it, else copied), later ones are added in place, so ``.grad`` sums over backward
    calls until reset (``zero_grad``); under ``create_graph=True`` the sum is out of
    place and recorded.  Source: ``torch::autograd::AccumulateGrad``.
    """

    __slots__ = ("variable",)

    def __init__(self, variable):
        # (sequence number UINT64_MAX, as in PyTorch: it takes none from the counter)
        Node.__init__(self, seq=UINT64_MAX)
        self.variable = variable

    @classmethod
    def of(cls, leaf):
        """The leaf's AccumulateGrad (``Tensor._accumulator``), one while a graph holds it: the
        leaf keeps a weak reference (PyTorch's ``grad_accumulator_`` is a weak_ptr too)."""
        ref = leaf._accum
        node = ref() if ref is not None else None
        if node is None:
            node = cls(leaf)
            leaf._accum = weakref.ref(node)
        return node

    def name(self):
        """``'torch::autograd::AccumulateGrad'``, PyTorch's (its repr says ``AccumulateGrad``)."""
        return "torch::autograd::AccumulateGrad"

    def __repr__(self):
        return f"<AccumulateGrad object at {hex(id(self))}>"

    def apply(self, grads, F):
        """Add the arriving gradient into the leaf's ``.grad``; nothing is sent on."""
        grad, var = grads[0], self.variable
        if grad is None or not var._requires_grad:  # (detached in place since: no .grad, as PyTorch)
            return ()
        if F.records and grad_mode._state.enabled:  # create_graph=True: recorded
            var._grad = _accumulate_recorded(var._grad, grad)
        elif var._grad is None:  # the first gradient: stored
            var._grad = Tensor._make(_first_grad(grad, var._data, F))
        else:  # later ones: added in place, as PyTorch
            _add_into(var, grad._data if F.records else grad)
        if var._post_acc_hooks:
            self._after_accumulate(var)
        return ()

    @staticmethod
    def _after_accumulate(var):
        for hook in var._post_accumulate_hooks():
            if hook(var) is not None:
                raise RuntimeError("Tensor post accumulate grad hooks should return None.")


class GraphRoot(Node):
    """The walk's starting node: sends the seed gradients on (``torch::autograd::GraphRoot``)."""

    __slots__ = ("_grads",)

    def __init__(self, edges, grads):
        Node.__init__(self)
        self.next_functions = edges
        self._grads = tuple(grads)

    def apply(self, grads, F):
        return F.from_tensors(self._grads)
