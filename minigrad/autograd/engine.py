"""The backward walk: read the recording in reverse and hand out gradients.

``run_backward`` is what ``loss.backward()`` and ``autograd.grad`` call.  It
is four steps, each a function below, none of them recursive (a chain of
100,000 operations is fine):

1. ``count_dependencies``: starting from the outputs, visit every node once
   and count, for each node, how many edges point into it: how many
   gradients it must receive before it can run.
2. ``ReadyQueue.pop``: a node is *ready* when all its consumers have
   delivered.  Among the ready nodes, run the one created last (highest
   sequence number), as PyTorch's engine does; ``AccumulateGrad`` runs as
   soon as it is ready.
3. ``run_node``: call the node's vector-Jacobian product on the gradients
   it received, then free its saved values (unless ``retain_graph``), which
   is why a second walk fails.
4. ``route_gradients``: send each gradient the node produced to the node
   behind that input, into its *input buffer*; gradients arriving at one
   node from several consumers are summed there before it runs once with the
   total (fan-in): the multivariate chain rule, x̄ = Σ_p (∂f_p/∂x)ᵀ ȳ_p.

Around them, at marked points: hooks on tensors and the captures of
``autograd.grad`` (``before_node``: hooks.py, captures.py), node pre- and
post-hooks and the anomaly check (in ``run_node`` and ``route_gradients``).

What flows: when the walk records nothing (``create_graph=False``, the usual
case) gradients travel as plain numpy arrays and each primitive's formula
runs on them directly; Tensors are made only where user code sees a
gradient (hooks, ``.grad``, ``autograd.grad``'s results).  Under
``create_graph=True`` they travel as Tensors, and every formula is recorded.

A gradient whose shape differs from its input's because of broadcasting is
summed back to the input's shape as it is routed, in one place
(validate.py), as PyTorch's ``validate_outputs`` does; its dtype is cast to
the input's.

Source: PyTorch's engine (torch/csrc/autograd/engine.cpp): dependency
counting in ``compute_dependencies``, the ready queue ordered by sequence
number, ``InputBuffer`` accumulation and ``validate_outputs``.
"""

import heapq
import itertools

import numpy as np

from . import anomaly, grad_kinds, grad_mode
from . import captures as _captures
from . import hooks as _hooks
from .validate import fit_to_input, validate_outputs
from .graph import UINT64_MAX, AccumulateGrad, GraphRoot
from .saved import free_fast

__all__ = ["ReadyQueue", "count_dependencies", "route_gradients", "run_backward", "run_node"]

# The walks in progress, innermost last (their ``_Walk``): hooks.walks, which
# register_multi_grad_hook reads (PyTorch's _current_graph_task_id and
# _will_engine_execute_node).
_walks = _hooks.walks


class _Walk:
    """The state of one backward walk: what the four steps share."""

    __slots__ = ("F", "accumulate_grad", "arrays", "buffers", "captures", "check_nan",
                 "dependencies", "inputs", "needed", "results", "retain_graph", "root")

    def __init__(self, root, retain_graph, create_graph, inputs, accumulate_grad):
        self.root = root
        self.retain_graph = retain_graph
        self.arrays = not create_graph  # gradients as numpy arrays: nothing is recorded
        self.F = grad_kinds.TENSORS if create_graph else grad_kinds.ARRAYS  # (how they travel)
        self.accumulate_grad = accumulate_grad
        self.check_nan = anomaly._state.enabled
        # node -> gradients received so far, one per output, while it waits for more
        self.buffers = {}
        self.inputs = inputs
        self.captures = self.needed = None
        self.results = [None] * (len(inputs) if inputs is not None else 0)


def run_backward(tensors, grad_tensors, retain_graph, create_graph, inputs=None,
                 allow_unused=False, accumulate_grad=True):
    """Walk the graph behind ``tensors`` in reverse, seeded with ``grad_tensors``.

    Args:
        tensors (sequence of Tensor): the outputs to differentiate.
        grad_tensors (sequence of Tensor): one seed gradient per output, of its shape.
        retain_graph (bool): keep saved tensors after the walk.
        create_graph (bool): record the walk (grad mode on while nodes run).
        inputs (sequence of Tensor | None): if given, only the gradients
            flowing into these are wanted; only nodes leading to them run.
        allow_unused (bool): with ``accumulate_grad=False``, an input not
            reached gives None instead of an error.
        accumulate_grad (bool): True for ``backward`` (leaves' ``.grad`` is
            updated), False for ``autograd.grad`` (gradients returned instead).

    Returns:
        With ``accumulate_grad=False``: a tuple with the gradient of each input.

    Raises:
        RuntimeError: PyTorch's messages for an output that does not require
            grad, a freed graph, an unreachable input, or a node returning a
            gradient of the wrong shape.
    """
    root = _graph_root(tensors, grad_tensors)
    walk = _Walk(root, retain_graph, create_graph, inputs, accumulate_grad)
    walk.dependencies = count_dependencies(root)                # 1. count dependencies
    if inputs is not None:
        _captures.plan_captures(walk, inputs)                   # (captures.py)
    ready = ReadyQueue()
    ready.push(root, [None])
    state = grad_mode._state
    prev_mode, prev_quiet = state.enabled, state.numpy_quiet
    state.enabled = bool(create_graph)
    state.numpy_quiet = True  # the ops a walk runs need not enter errstate again
    _walks.append(walk)
    captures = walk.captures
    route = route_gradients_fast if _FAST_ROUTE and not walk.check_nan else route_gradients
    try:
        # backward formulas meet inf * 0 too; PyTorch is silent
        with np.errstate(all="ignore"):
            while ready.heap:  # (the list itself: no method call per node)
                node, grads = ready.pop()                       # 2. take the ready node
                compute = True
                if captures is not None or node._hooks is not None or (
                        type(node) is AccumulateGrad and node.variable._hooks):
                    grads, compute = before_node(walk, node, grads)  # (tensor hooks, captures)
                    if grads is None:
                        continue  # nothing wanted lies behind this node
                out = run_node(walk, node, grads, compute)      # 3. run it, free its saved values
                route(walk, node, out, ready)                   # 4. into the input buffers (fan-in)
                out = grads = None  # hold no gradient longer than the buffers do
    finally:
        _walks.pop()
        state.numpy_quiet = prev_quiet
        state.enabled = prev_mode
        if walk.check_nan:
            anomaly._state.current = None
    return _captures.results(walk, allow_unused)


def _graph_root(tensors, grad_tensors):
    edges = []
    for i, t in enumerate(tensors):
        fn = t._grad_fn
        if fn is not None:
            edges.append((fn, t._output_nr))
        elif t._requires_grad:
            edges.append((t._accumulator(), 0))
        else:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
    return GraphRoot(edges, grad_tensors)


# --- 1. count dependencies ---------------------------------------------------

def count_dependencies(root):
    """Number of incoming edges of every node reachable from ``root`` (iterative DFS)."""
    deps = {}
    stack = [root]
    while stack:
        for nxt in stack.pop()._next_fns:
            if nxt is None:
                continue
            if nxt in deps:
                deps[nxt] += 1
            else:  # first visit
                deps[nxt] = 1
                stack.append(nxt)
    return deps


# --- 2. take the ready node --------------------------------------------------

# AccumulateGrad runs as soon as it is ready (PyTorch gives it UINT64_MAX), and so do
# the nodes PyTorch makes without a sequence number (NotImplemented ones); among
# them, the one that became ready first: their keys are _FIRST + a count, below
# every -sequence_nr.  Keys are unique, so two entries never compare their nodes.
_FIRST = -(2**64)


class ReadyQueue:
    """The nodes ready to run, each with the gradients it received (PyTorch's ``ReadyQueue``).

    ``pop`` gives the next to run: AccumulateGrad (and a node made without a
    sequence number) first, in the order they became ready; then the node
    created last, highest sequence number first, as PyTorch's engine.
    """

    __slots__ = ("heap", "count")

    def __init__(self):
        self.heap = []  # (key, node, input buffer): PyTorch's NodeTask
        self.count = itertools.count()

    def push(self, node, buffer):
        seq = node._seq
        if type(node) is AccumulateGrad or seq == UINT64_MAX:
            key = _FIRST + next(self.count)  # in the order they became ready
        else:
            key = -seq
        heapq.heappush(self.heap, (key, node, buffer))

    def pop(self):
        """``(node, buffer)``: the node to run next and the gradients it received."""
        _, node, buffer = heapq.heappop(self.heap)
        return node, buffer

    def __bool__(self):
        return bool(self.heap)


# --- 3. run the node, free its saved values -------------------------------------

def run_node(walk, node, grads, compute=True):
    """Call ``node``'s vector-Jacobian product on ``grads``; then free its saved values.

    Returns the gradients it sends on, one per ``next_functions`` entry
    (numpy arrays, or Tensors under ``create_graph``).  A node that received
    no gradient at all does not run.  A node runs its hooks but computes
    nothing when ``compute`` is False (``backward(inputs=[t])`` reached
    ``t``'s grad_fn: nothing behind it is wanted) or when none of its inputs
    needs a gradient (PyTorch's generated formulas then compute nothing).
    """
    hooks = node._hooks
    if hooks is not None and hooks.pre:                         # (node pre-hooks)
        grads = _hooks.run_pre_hooks(grads, hooks.pre, walk.F)
    fns = node._next_fns
    if not compute or ((not fns or fns[0] is None) and node._formula_only and not _any(fns)):
        out = (None,) * len(fns)
        if hooks is not None and hooks.post:                    # (node post-hooks)
            out = _hooks.run_post_hooks(out, grads, hooks.post, walk.F)
    elif grads[0] is not None or _any(grads) or node is walk.root:
        if walk.check_nan:
            anomaly._state.current = node
        out = node.apply(grads if walk.arrays else tuple(grads), walk.F)
        if hooks is not None and hooks.post:                    # (node post-hooks)
            # PyTorch's validate_outputs runs first: post-hooks see each
            # gradient summed to its input's shape and cast to its dtype
            out = _hooks.run_post_hooks(validate_outputs(node, out, walk.arrays), grads,
                                        hooks.post, walk.F)
    else:
        out = ()
    if not walk.retain_graph:
        free_fast(node)  # (saved.free, faster)
    return out


def _any(values):
    for v in values:
        if v is not None:
            return True
    return False


# --- 4. route the gradients into the input buffers (fan-in) -----------------

def route_gradients(walk, node, out, ready):
    """Send ``out[i]`` to the node behind input ``i``, in three steps (PyTorch's ``InputBuffer``).

    ``fit_to_input``: summed back over the broadcast dims, cast to the
    input's dtype (validate.py); ``add_to_buffer``: into the next node's
    buffer, where the gradients of all its consumers are summed (fan-in);
    ``count_down``: a node whose last consumer has delivered becomes ready.
    """
    meta = node._in_meta
    for i, nxt in enumerate(node._next_fns):
        if nxt is None:
            continue  # (an input that needs no gradient)
        g = out[i] if i < len(out) else None
        if g is not None and meta is not None:
            g = fit_to_input(g, meta[i], node, i, walk.arrays)
            if walk.check_nan:                                  # (anomaly check)
                anomaly.check_gradient(node, i, walk.F.to_tensors((g,))[0])
        add_to_buffer(walk, nxt, node._next_nrs[i], g)
        if count_down(walk, nxt):
            ready.push(nxt, walk.buffers.pop(nxt))


def add_to_buffer(walk, node, output_nr, g):
    """Add ``g`` into ``node``'s input buffer, at its output ``output_nr``: the fan-in sum."""
    buf = walk.buffers.get(node)
    if buf is None:  # the first gradient for this node: a slot per output
        buf = walk.buffers[node] = [None] * (1 if node._out_meta is None else len(node._out_meta))
    if g is not None:
        old = buf[output_nr]
        buf[output_nr] = g if old is None else old + g


def count_down(walk, node):
    """One more consumer of ``node`` has delivered: True if it was the last (``node`` is ready)."""
    left = walk.dependencies[node] - 1
    walk.dependencies[node] = left
    return left == 0


# --- what happens at a node before it runs (the marked point) ----------------------

def before_node(walk, node, grads):
    """A node's summed gradients before it runs: its tensor's hooks, then the captures.

    Returns ``(grads, compute)``: the gradients to run the node with (None if
    the node does not run at all: nothing wanted lies behind it) and whether
    it computes its gradients (see ``run_node``).
    """
    captures = walk.captures
    if captures is not None and node not in walk.needed and node not in captures:
        return None, False  # PyTorch never runs such a node: neither do its hooks
    grads = _hooks.run_tensor_hooks(node, grads, walk.F)      # (hooks.py)
    if captures is not None:
        return _captures.take_captures(walk, node, grads)      # (captures.py)
    return grads, True


# --- fast path: route_gradients in one loop (tests/test_fast_paths.py) ----------------
# What the walk calls outside anomaly mode: the three steps above inline, fitting only a
# gradient that does not fit already, no buffer stored for a node that is then ready,
# and ReadyQueue.push inline.  The same buffers, sums and order as route_gradients.
_FAST_ROUTE = True  # (False: the walk takes route_gradients; the test compares them)
_ndarray = np.ndarray
# numpy's float scalar types and their dtypes, for the check of a numpy scalar (what
# arithmetic on 0-d values gives): its .dtype is made afresh on every read, the type is enough
_SCALAR_DTYPES = {t: np.dtype(t) for t in (np.float16, np.float32, np.float64)}


def route_gradients_fast(walk, node, out, ready):
    """``route_gradients`` (what the walk calls when anomaly mode is off), faster."""
    fns = node._next_fns
    if not fns:
        return  # (a leaf's AccumulateGrad: nothing lies behind it)
    buffers = walk.buffers
    heappush = heapq.heappush
    deps = walk.dependencies
    meta = node._in_meta
    nrs = node._next_nrs
    n_out = len(out)
    i = -1
    for nxt in fns:
        i += 1
        if nxt is None:
            continue
        g = out[i] if i < n_out else None
        if g is not None:
            if meta is not None:
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
                buf[nrs[i]] = g
            if left:
                buffers[nxt] = buf
        elif g is not None:
            nr = nrs[i]
            old = buf[nr]
            buf[nr] = g if old is None else old + g             # fan-in: sum
        if left == 0:  # every consumer has delivered: ready (ReadyQueue.push)
            seq = nxt._seq
            if type(nxt) is AccumulateGrad or seq == UINT64_MAX:
                key = _FIRST + next(ready.count)
            else:
                key = -seq
            heappush(ready.heap, (key, nxt, buf))
