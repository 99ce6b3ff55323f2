"""The edges a new node gets, in the unusual calls: a stale view, or an input not output 0.

``collect_next_edges`` (edges.py) hands a node here when an input is a view whose
memory was written in place since it was made, a view taken under no_grad, or
not its node's output 0 (a ``split`` piece, say): each such input's edge is
worked out one at a time.

Source: ``collect_next_edges`` and ``gradient_edge`` (torch/csrc/autograd/function.h,
variable.cpp), and ``should_compute_output`` (the generated formulas' test).
"""

from .graph import AccumulateGrad, _output_nrs
from .view_history import refresh_view as _refresh_view

__all__ = []


def _unusual_edges(node, tensors):
    """``node`` with its edges, when an input is a stale view or not its node's output 0.

    A view whose memory was written in place since it was made gets its grad_fn
    rebuilt first (``refresh_view``), after the node took its sequence number, as in
    PyTorch; a leaf's view taken under no_grad requires grad but has no edge (and a
    built-in formula, asking its edges as PyTorch's ``should_compute_output``, then
    neither saves for nor computes that input's gradient).
    """
    fns, nrs, meta = [], [], []
    for a in tensors:
        if a._view_of is not None:
            _refresh_view(a)
        fn = a._grad_fn
        if a._requires_grad and (fn is not None or not a._no_grad_view):
            fns.append(fn if fn is not None else AccumulateGrad.of(a))
            nrs.append(a._output_nr if fn is not None else 0)
            meta.append((a._data.shape, a._data.dtype))
        else:
            fns.append(None)
            nrs.append(0)
            meta.append(None)
    node._next_fns, node._next_nrs, node._in_meta = tuple(fns), _output_nrs(nrs), tuple(meta)
    if node._is_primitive and None in fns:
        flags = list(node.needs_input_grad)
        for i, fn in zip(node._edge_args or range(len(flags)), fns):
            flags[i] = fn is not None
        node.needs_input_grad = tuple(flags)
    return node
