"""The backward walk: read the recording in reverse and hand out gradients.

``run_backward`` is what ``loss.backward()`` and ``autograd.grad`` call.  It
is four steps, each a function below, none of them recursive, sharing the
walk's state (a ``GraphTask``: graph_task.py):

1. ``count_dependencies``: how many gradients each node must receive.
2. ``ReadyQueue``: a node is ready once they have all arrived; of the ready
   nodes, the one created last runs first (AccumulateGrad as soon as it is ready).
3. ``run_node``: its hooks around its vector-Jacobian product, then its saved
   values are freed (unless ``retain_graph``), which is why a second walk fails.
4. ``route_gradients``: each gradient it sends, fitted to its input's shape
   and dtype, is summed into the next node's input buffer (fan-in, the chain
   rule's x̄ = Σ_p (∂f_p/∂x)ᵀ ȳ_p).

Source: PyTorch's engine (torch/csrc/autograd/engine.cpp): ``compute_dependencies``,
the ``ReadyQueue``, ``evaluate_function``, ``InputBuffer`` and ``validate_outputs``.
"""

import heapq
import itertools

from . import anomaly
from . import captures as _captures
from . import hooks as _hooks
from .graph import UINT64_MAX, AccumulateGrad
from .graph_task import GraphTask, graph_root
from .engine_fast import route_gradients_fast
from .paths import FAST_ROUTE, free, unpack_arrays  # saved's, or their fast twins (paths.py)
from .validate import fit_to_input, validate_outputs

__all__ = ["ReadyQueue", "count_dependencies", "route_gradients", "run_backward", "run_node"]

# Outside anomaly mode the walk routes with engine_fast.py's route_gradients_fast: the same
# buffers, sums and order as route_gradients below, in one loop (False: the general path).
_FAST_ROUTE = FAST_ROUTE


def run_backward(tensors, grad_tensors, retain_graph, create_graph, inputs=None,
                 allow_unused=False, accumulate_grad=True):
    """Walk the graph behind ``tensors`` in reverse, seeded with ``grad_tensors``.

    Called by ``autograd.backward`` (``accumulate_grad=True``: leaves' ``.grad`` is
    updated) and ``autograd.grad`` (False: the gradients of ``inputs`` are returned);
    their docstrings give the arguments.  Only the nodes leading to ``inputs`` run.

    Raises:
        RuntimeError: PyTorch's messages for an output that does not require
            grad, a freed graph, an unreachable input, or a node returning a
            gradient of the wrong shape.
    """
    root = graph_root(tensors, grad_tensors)
    walk = GraphTask(root, retain_graph, create_graph, inputs, accumulate_grad)
    walk.dependencies = count_dependencies(root)                # 1. count dependencies
    if inputs is not None:
        _captures.plan_captures(walk, inputs)                   # (captures.py)
    ready = ReadyQueue()
    ready.push(root, [None])
    route = route_gradients_fast if _FAST_ROUTE and not walk.check_nan else route_gradients
    with walk:  # grad mode on only under create_graph, numpy quiet (graph_task.py)
        while ready.heap:  # (the list itself: no method call per node)
            node, grads = ready.pop()                           # 2. take the ready node
            compute = True
            if walk.captures is not None or node._hooks is not None or (
                    type(node) is AccumulateGrad and node.variable._hooks):
                grads, compute = _captures.before_node(walk, node, grads)  # (hooks, captures)
                if grads is None:
                    continue  # nothing wanted lies behind this node
            out = run_node(walk, node, grads, compute)          # 3. run it, free its saved values
            route(walk, node, out, ready)                       # 4. into the input buffers (fan-in)
            out = grads = None  # hold no gradient longer than the buffers do
    return _captures.results(walk, allow_unused)


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

_FIRST = -(2**64)  # below every -sequence_nr


class ReadyQueue:
    """The nodes ready to run, each with the gradients it received (PyTorch's ``ReadyQueue``)."""

    __slots__ = ("heap", "count")

    def __init__(self):
        self.heap = []  # (key, node, input buffer): PyTorch's NodeTask
        self.count = itertools.count()

    def push(self, node, buffer):
        """Add a ready node under its key, the smallest first: AccumulateGrad (PyTorch gives
        it UINT64_MAX) and a node without a sequence number (a NotImplemented one) first, in
        the order they became ready; then the node created last, highest sequence number first."""
        seq = node._seq
        if type(node) is AccumulateGrad or seq == UINT64_MAX:
            key = _FIRST + next(self.count)
        else:
            key = -seq
        heapq.heappush(self.heap, (key, node, buffer))  # (keys are unique: nodes never compared)

    def pop(self):
        """``(node, buffer)``: the node to run next and the gradients it received."""
        _, node, buffer = heapq.heappop(self.heap)
        return node, buffer


# --- 3. run the node, free its saved values -------------------------------------

def run_node(walk, node, grads, compute=True):
    """Pre-hooks, ``node.apply`` (its vector-Jacobian product), post-hooks; then free.

    Returns the gradients it sends on, one per ``next_functions`` entry (numpy arrays;
    Tensors under ``create_graph``).  A node that received no gradient does not run.  It
    runs its hooks but computes nothing when ``compute`` is False (``backward(inputs=[t])``
    reached ``t``'s grad_fn) or none of its inputs needs a gradient, as PyTorch's generated
    formulas.  PyTorch's ``call_function`` (engine.cpp).
    """
    hooks = node._hooks
    if hooks is not None and hooks.pre:                         # (node pre-hooks)
        grads = _hooks.run_pre_hooks(grads, hooks.pre, walk.F)
    fns = node._next_fns
    if not compute or ((not fns or fns[0] is None) and node._is_primitive  # (fns[0]: cheap)
                       and all(f is None for f in fns)):
        if compute:  # as PyTorch's formulas, it reads its saved values first: a change is refused
            unpack_arrays(node)
        out = (None,) * len(fns)  # a primitive whose inputs need no gradient computes nothing
    elif grads[0] is None and node is not walk.root and all(g is None for g in grads):
        out = ()  # it received no gradient at all: it does not run,
        hooks = None  # nor do its post-hooks
    else:
        if walk.check_nan:
            anomaly._state.current = node
        out = node.apply(grads if walk.arrays else tuple(grads), walk.F)
    if hooks is not None and hooks.post:                        # (node post-hooks)
        # they see each gradient fitted to its input: PyTorch runs validate_outputs first
        out = _hooks.run_post_hooks(validate_outputs(node, out, walk.arrays), grads,
                                    hooks.post, walk.F)
    if not walk.retain_graph:
        free(node)
    return out


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
