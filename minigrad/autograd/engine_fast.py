"""The fast path of engine.py: ``route_gradients`` in one loop, what the walk calls outside anomaly mode.

The three steps of ``route_gradients`` (fit to the input, add into the buffer,
count down) inline, fitting only a gradient that does not fit already and storing
no buffer for a node that is then ready: the same buffers, sums and order.
tests/test_fast_paths.py runs the engine's tests' graphs both ways
(``engine._FAST_ROUTE = False`` takes the general path) and compares ``.grad``s,
node order and hook calls.  Read engine.py for the idea.
"""

import numpy as np

from .validate import fit_to_input

__all__ = ["route_gradients_fast"]

_ndarray = np.ndarray
# a numpy scalar (arithmetic on 0-d values) makes its .dtype anew on each read: its type tells
_SCALAR_DTYPES = {t: np.dtype(t) for t in (np.float16, np.float32, np.float64)}


def route_gradients_fast(walk, node, out, ready):
    """``route_gradients`` (what the walk calls when anomaly mode is off), faster."""
    meta = node._in_meta
    buffers = walk.buffers
    deps = walk.dependencies
    for i, nxt in enumerate(node._next_fns):
        if nxt is None:
            continue
        g = out[i] if i < len(out) else None
        if g is not None and meta is not None:
            m = meta[i]
            if type(g) is _ndarray:
                if g.shape != m[0] or g.dtype is not m[1]:
                    g = fit_to_input(g, m, node, i, walk.arrays)
            elif m[0] or _SCALAR_DTYPES.get(type(g)) is not m[1]:  # a numpy scalar; a Tensor
                g = fit_to_input(g, m, node, i, walk.arrays)
        left = deps[nxt] - 1
        deps[nxt] = left
        buf = buffers.get(nxt) if left else buffers.pop(nxt, None)
        if buf is None:  # the first gradient for this node
            if nxt._out_meta is None:  # one output: the usual case
                buf = [g]
            else:
                buf = [None] * len(nxt._out_meta)
                buf[node._next_nrs[i]] = g
            if left:
                buffers[nxt] = buf
        elif g is not None:
            nr = node._next_nrs[i]
            old = buf[nr]
            buf[nr] = g if old is None else old + g             # fan-in: sum
        if left == 0:  # every consumer has delivered: ready
            ready.push(nxt, buf)
