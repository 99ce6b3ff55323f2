"""The edges a new node gets: PyTorch's ``collect_next_edges``.

``Function.apply`` calls ``collect_next_edges`` before running forward.  For each input
of the call it finds where that input's gradient must go: the node that made
it (its ``grad_fn``, and which of that node's outputs it is) or, for a leaf
that requires grad, the leaf's ``AccumulateGrad``; a constant gets no edge,
``(None, 0)`` in ``next_functions``.  With the edges it keeps each input's
shape and dtype (the engine checks the gradients against them) and
``needs_input_grad``.  If no input requires grad there is no node at all.

Source: ``collect_next_edges`` and ``Node``'s constructor
(torch/csrc/autograd/function.h), ``_wrap_outputs`` (custom_function.cpp).
"""

from ..tensor import Tensor
from .graph import _ZEROS, AccumulateGrad, _output_nrs
from .view_history import is_current as _is_current
from .view_history import refresh_view as _refresh_view

__all__ = ["collect_next_edges", "collect_next_edges_fast"]

_EDGE_ARGS = {}  # the distinct _edge_args tuples (a handful: (0, 1) for add, ...)


def collect_next_edges(cls, inputs):
    """The node ``cls.apply(*inputs)`` records, its edges set; None if no input requires grad.

    As PyTorch's ``collect_next_edges``, this runs before forward: for each
    input, the node that made it (its ``grad_fn``, or a leaf's
    ``AccumulateGrad``) and which of that node's outputs it is, or None for
    a constant; its shape and dtype, which the engine checks gradients
    against; and ``needs_input_grad``, one flag per argument of ``apply``.
    ``Function.apply`` calls ``collect_next_edges_fast`` (below), which
    takes the usual calls the same way.
    """
    flags = []
    fns = []
    meta = []
    edge_args = None  # which arguments have edges, once a non-tensor argument is met
    unusual = False  # an input that is a stale view, or not its node's output 0
    for i, a in enumerate(inputs):
        if not isinstance(a, Tensor):
            flags.append(False)
            if edge_args is None:
                edge_args = list(range(i))
            continue
        if a._output_nr or (a._view_of is not None and not _current_view(a)):
            unusual = True  # (its edge is made again by _unusual_edges)
        if a._requires_grad:
            flags.append(True)
            fns.append(a._grad_fn or _leaf_node(a))
            d = a._data
            meta.append((d.shape, d.dtype))
        else:  # a constant: (None, 0) in next_functions
            flags.append(False)
            fns.append(None)
            meta.append(None)
        if edge_args is not None:
            edge_args.append(i)
    if True not in flags:
        return None
    if edge_args is not None:
        edge_args = tuple(edge_args)
        edge_args = _EDGE_ARGS.setdefault(edge_args, edge_args)  # one tuple per pattern
    if not unusual:
        return cls._backward_cls(tuple(flags), tuple(fns), _output_nrs((0,) * len(fns)),
                                 _interned(tuple(meta)), edge_args)
    # views whose memory was written since their grad_fn was made; output numbers > 0:
    # the node takes its sequence number first, then the views get their grad_fn again
    node = cls._backward_cls(tuple(flags), (), (), (), edge_args)
    fns, meta, nrs = _unusual_edges(inputs)
    node._next_fns, node._next_nrs, node._in_meta = tuple(fns), nrs, tuple(meta)
    return node


def _current_view(v):
    """True if view ``v``'s edge is the usual one: its grad_fn (or its leaf's AccumulateGrad).

    That is, its memory was not written in place since its grad_fn was made
    (else ``_unusual_edges`` rebuilds it first), and it is not a view taken
    under no_grad of a tensor that requires grad (which has no edge).
    """
    return not v._no_grad_view and _is_current(v)


def _leaf_node(t):
    """A leaf's ``AccumulateGrad`` (while some graph keeps it, the same one)."""
    ref = t._accum
    fn = ref() if ref is not None else None
    return fn if fn is not None else AccumulateGrad.of(t)


# The distinct _in_meta tuples, one object each.  A graph repeats a handful of
# (shape, dtype) patterns; sharing them keeps three new tuples per node from
# surviving until the collector's next pass (each survivor brings its next
# collection closer, and a long graph's full collections walk all of it).
_METAS = {}


def _interned(meta):
    found = _METAS.get(meta)
    if found is not None:
        return found
    if len(_METAS) >= 4096:  # (a program whose shapes keep changing: start again)
        _METAS.clear()
    return _METAS.setdefault(meta, meta)


_FLAGS_FIRST = (None, (True,), (True, False), (True, False, False))  # by number of arguments
_FIRST_ONLY = _EDGE_ARGS.setdefault((0,), (0,))  # an edge on the first argument only
_LEADING2 = _EDGE_ARGS.setdefault((0, 1), (0, 1))  # edges on the first two of three arguments
_FLAGS2 = (((False, False), (False, True)), ((True, False), (True, True)))
_FLAGS2_NUMBER = tuple(tuple(f + (False,) for f in row) for row in _FLAGS2)  # (a, b, alpha)


def _unusual_edges(inputs):
    """The edges of the tensors among ``inputs`` when one is a stale view or a node's output > 0.

    A view whose memory was written in place since it was made gets its
    grad_fn rebuilt first (``_refresh_view``), after the node took its own
    sequence number, as in PyTorch; a leaf view taken under no_grad requires
    grad but has no edge.  Returns ``(fns, meta, nrs)``.
    """
    fns = []
    meta = []
    nrs = []
    for a in inputs:
        if not isinstance(a, Tensor):
            continue
        if a._view_of is not None:
            _refresh_view(a)
        if a._requires_grad and (a._grad_fn is not None or not a._no_grad_view):
            fn = a._grad_fn
            fns.append(fn if fn is not None else AccumulateGrad.of(a))
            nrs.append(a._output_nr if fn is not None else 0)
            d = a._data
            meta.append((d.shape, d.dtype))
        else:
            fns.append(None)
            nrs.append(0)
            meta.append(None)
    return fns, meta, _output_nrs(nrs)


# --- fast path: the usual calls, as the general path above (tests/test_fast_paths.py) ---
# One or two tensors (add and sub: and a number, alpha), or one tensor first and up to two
# other arguments (sum's dim, rsub's other and alpha), each its node's output 0 and not a
# stale view: the same node, without the lists.

def collect_next_edges_fast(cls, inputs):
    """``collect_next_edges`` (what ``Function.apply`` calls), faster in the usual calls."""
    n = len(inputs)
    if n == 2 or (n == 3 and not isinstance(inputs[2], Tensor)):
        a = inputs[0]
        b = inputs[1]
        if (isinstance(a, Tensor) and isinstance(b, Tensor) and not a._output_nr
                and not b._output_nr and (a._view_of is None or _current_view(a))
                and (b._view_of is None or _current_view(b))):
            ra = a._requires_grad
            rb = b._requires_grad
            if not (ra or rb):
                return None
            fns = (a._grad_fn or _leaf_node(a) if ra else None,
                   b._grad_fn or _leaf_node(b) if rb else None)
            meta = ((a._data.shape, a._data.dtype) if ra else None,
                    (b._data.shape, b._data.dtype) if rb else None)
            if n == 2:
                return cls._backward_cls(_FLAGS2[bool(ra)][bool(rb)], fns, _ZEROS[2],
                                         _METAS.get(meta) or _interned(meta), None)
            return cls._backward_cls(_FLAGS2_NUMBER[bool(ra)][bool(rb)], fns, _ZEROS[2],
                                     _METAS.get(meta) or _interned(meta), _LEADING2)
    if n == 1 or (1 < n < 4 and not isinstance(inputs[1], Tensor)
                  and (n == 2 or not isinstance(inputs[2], Tensor))):
        a = inputs[0]
        if (isinstance(a, Tensor) and not a._output_nr
                and (a._view_of is None or _current_view(a))):
            if not a._requires_grad:
                return None
            d = a._data
            meta = ((d.shape, d.dtype),)
            return cls._backward_cls(_FLAGS_FIRST[n], (a._grad_fn or _leaf_node(a),), _ZEROS[1],
                                     _METAS.get(meta) or _interned(meta),
                                     None if n == 1 else _FIRST_ONLY)
    return collect_next_edges(cls, inputs)
