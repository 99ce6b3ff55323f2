"""The edges a new node gets: PyTorch's ``collect_next_edges``.

``Function.apply`` calls it before running forward.  Each input's gradient goes to
the node that made it (its ``grad_fn``, and which of that node's outputs it is) or,
for a leaf that requires grad, the leaf's ``AccumulateGrad``; a constant gets
``(None, 0)``.  If no input requires grad there is no node at all.

Source: ``collect_next_edges`` and ``Node``'s constructor
(torch/csrc/autograd/function.h), ``_wrap_outputs`` (custom_function.cpp).
"""

from ..tensor import Tensor
from .graph import _ZEROS, AccumulateGrad, _output_nrs
from .edges_unusual import _unusual_edges  # a stale view, or an input not its node's output 0
from .view_history import is_current as _is_current

__all__ = ["collect_next_edges"]


def collect_next_edges(cls, inputs):
    """The node ``cls.apply(*inputs)`` records, its edges set; None if no input requires grad.

    With the edges go each input's ``(shape, dtype)`` (``in_meta``: the engine checks
    gradients against them), ``needs_input_grad`` (one flag per argument) and which
    arguments have edges (``edge_args``: the tensors; None when all are).
    ``Function.apply`` calls ``collect_next_edges_fast`` (edges_fast.py), the same for the usual calls.
    """
    needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in inputs)
    if True not in needs_input_grad:
        return None
    tensors = [a for a in inputs if isinstance(a, Tensor)]
    edge_args = None if len(tensors) == len(inputs) else _edge_args(inputs)
    if any(a._output_nr or (a._view_of is not None and not _current_view(a)) for a in tensors):
        # the node takes its sequence number before a stale view's grad_fn is rebuilt
        return _unusual_edges(cls._backward_cls(needs_input_grad, (), (), (), edge_args), tensors)
    next_fns = tuple(a._grad_fn or _leaf_node(a) if a._requires_grad else None for a in tensors)
    in_meta = tuple((a._data.shape, a._data.dtype) if a._requires_grad else None for a in tensors)
    return cls._backward_cls(needs_input_grad, next_fns, _output_nrs((0,) * len(next_fns)),
                             _interned(in_meta), edge_args)


def _leaf_node(t):
    """A leaf's ``AccumulateGrad`` (while some graph keeps it, the same one)."""
    ref = t._accum
    fn = ref() if ref is not None else None
    return fn if fn is not None else AccumulateGrad.of(t)


def _current_view(v):
    """True if view ``v``'s edge is its grad_fn's: its memory was not written in place since
    (else ``_unusual_edges`` rebuilds it), and it was not taken under no_grad (no edge)."""
    return not v._no_grad_view and _is_current(v)


# --- interning: a graph repeats a handful of patterns, so one tuple object each ---------
# (new tuples per node would survive until the collector's next pass, bringing the next
# collection closer; a long graph's full collections walk all of it)

_EDGE_ARGS = {}  # the distinct edge_args tuples ((0, 1) for add(a, b, alpha), ...)
_METAS = {}  # the distinct in_meta tuples


def _edge_args(inputs):
    args = tuple(i for i, a in enumerate(inputs) if isinstance(a, Tensor))
    return _EDGE_ARGS.setdefault(args, args)


def _interned(meta):
    if len(_METAS) >= 4096:  # (a program whose shapes keep changing: start again)
        _METAS.clear()
    return _METAS.setdefault(meta, meta)
