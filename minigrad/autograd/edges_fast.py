"""The fast path of edges.py: ``collect_next_edges`` for the usual calls, faster.

``Function.apply`` calls ``collect_next_edges_fast``; for one or two tensors (with
other arguments after them), each its node's output 0 and not a stale view, it makes
the node edges.py's ``collect_next_edges`` makes, without the lists; anything else
goes to the general path.  tests/test_fast_paths.py checks they are equal (next
functions, input numbers, metadata, needs_input_grad) over constants, numbers,
no-grad inputs, current and stale views, output_nr > 0 and ``add(a, b, alpha)``.
Read edges.py for the idea.
"""

from ..tensor import Tensor
from .edges import _EDGE_ARGS, _METAS, _current_view, _interned, _leaf_node, collect_next_edges
from .graph import _ZEROS

__all__ = ["collect_next_edges_fast"]
# One or two tensors (add and sub: and a number, alpha), or one tensor first and up to two
# other arguments (sum's dim, rsub's other and alpha), each its node's output 0 and not a
# stale view: the same node, without the lists.

_FLAGS_FIRST = (None, (True,), (True, False), (True, False, False))  # by number of arguments
_FIRST_ONLY = _EDGE_ARGS.setdefault((0,), (0,))  # an edge on the first argument only
_LEADING2 = _EDGE_ARGS.setdefault((0, 1), (0, 1))  # edges on the first two of three arguments
_FLAGS2 = (((False, False), (False, True)), ((True, False), (True, True)))
_FLAGS2_NUMBER = tuple(tuple(f + (False,) for f in row) for row in _FLAGS2)  # (a, b, alpha)


def collect_next_edges_fast(cls, inputs):
    """``collect_next_edges`` (what ``Function.apply`` calls), faster in the usual calls."""
    n = len(inputs)
    if n == 2 or (n == 3 and not isinstance(inputs[2], Tensor)):
        a, b = inputs[0], inputs[1]
        if (isinstance(a, Tensor) and isinstance(b, Tensor) and not a._output_nr
                and not b._output_nr and (a._view_of is None or _current_view(a))
                and (b._view_of is None or _current_view(b))):
            ra, rb = bool(a._requires_grad), bool(b._requires_grad)
            if not (ra or rb):
                return None
            fns = (a._grad_fn or _leaf_node(a) if ra else None,
                   b._grad_fn or _leaf_node(b) if rb else None)
            meta = ((a._data.shape, a._data.dtype) if ra else None,
                    (b._data.shape, b._data.dtype) if rb else None)
            return cls._backward_cls((_FLAGS2 if n == 2 else _FLAGS2_NUMBER)[ra][rb], fns,
                                     _ZEROS[2], _METAS.get(meta) or _interned(meta),
                                     None if n == 2 else _LEADING2)
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
