"""The backward walk: read the recording in reverse and hand out gradients.

``run_backward`` is what ``loss.backward()`` and ``autograd.grad`` call.  It
is four steps, each a function below, none of them recursive (a chain of
100,000 operations is fine):

1. ``count_dependencies``: starting from the outputs, visit every node once
   and count, for each node, how many edges point into it: how many
   gradients it must receive before it can run.
2. ``take_ready_node``: a node is *ready* when all its consumers have
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

Around them, at marked points: hooks on tensors and nodes and the captures
of ``autograd.grad`` (``before_node``), node pre- and post-hooks and the
anomaly check (in ``run_node`` and ``route_gradients``).

What flows: when the walk records nothing (``create_graph=False``, the usual
case) gradients travel as plain numpy arrays and each primitive's formula
runs on them directly; Tensors are made only where user code sees a
gradient (hooks, ``.grad``, ``autograd.grad``'s results).  Under
``create_graph=True`` they travel as Tensors, and every formula is recorded.

A gradient whose shape differs from its input's because of broadcasting is
summed back to the input's shape here, in one place, as PyTorch's
``validate_outputs`` does; its dtype is cast to the input's.

Source: PyTorch's engine (torch/csrc/autograd/engine.cpp): dependency
counting in ``compute_dependencies``, the ready queue ordered by sequence
number, ``InputBuffer`` accumulation and ``validate_outputs``.
"""

import heapq
import itertools

import numpy as np

from ..tensor import Tensor
from . import anomaly, grad_mode
from . import graph as _graph
from .graph import UINT64_MAX, AccumulateGrad, Node
from .saved import free_fast as _free_saved

__all__ = ["count_dependencies", "route_gradients", "run_backward", "run_node", "take_ready_node"]

# The walks in progress, innermost last (their ``_Walk``).  Read by
# hooks.register_multi_grad_hook (PyTorch's _current_graph_task_id and
# _will_engine_execute_node).
_walks = []


class GraphRoot(Node):
    """The walk's starting node: sends the seed gradients to the outputs' nodes.

    Source: ``torch::autograd::GraphRoot``.
    """

    __slots__ = ("_grads",)

    def __init__(self, edges, grads):
        Node.__init__(self)
        self.next_functions = edges
        self._grads = tuple(grads)

    def apply(self, grads, F):
        return F.from_tensors(self._grads)


class _Walk:
    """The state of one backward walk: what the four steps share."""

    __slots__ = ("F", "accumulate_grad", "arrays", "buffers", "captures", "check_nan", "counter",
                 "dependencies", "inputs", "needed", "results", "retain_graph", "root")

    def __init__(self, root, retain_graph, create_graph, inputs, accumulate_grad):
        self.root = root
        self.retain_graph = retain_graph
        self.arrays = not create_graph  # gradients as numpy arrays: nothing is recorded
        self.F = _graph.TENSORS if create_graph else _graph.ARRAYS  # (how they travel)
        self.accumulate_grad = accumulate_grad
        self.check_nan = anomaly._state.enabled
        # node -> gradients received so far, one per output, while it waits for more
        self.buffers = {}
        self.counter = itertools.count()
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
        _plan_captures(walk, inputs)
    ready = [(0, root, [None])]  # (key, node, its input buffer): PyTorch's NodeTask
    state = grad_mode._state
    prev_mode, prev_quiet = state.enabled, state.numpy_quiet
    state.enabled = bool(create_graph)
    state.numpy_quiet = True  # the ops a walk runs need not enter errstate again
    _walks.append(walk)
    captures = walk.captures
    try:
        # backward formulas meet inf * 0 too; PyTorch is silent
        with np.errstate(all="ignore"):
            while ready:
                node, grads = take_ready_node(ready)            # 2. take the ready node
                compute = True
                if captures is not None or node._hooks is not None or (
                        type(node) is AccumulateGrad and node.variable._hooks):
                    grads, compute = before_node(walk, node, grads)  # (tensor hooks, captures)
                    if grads is None:
                        continue  # nothing wanted lies behind this node
                out = run_node(walk, node, grads, compute)      # 3. run it, free its saved values
                route_gradients(walk, node, out, ready)         # 4. into the input buffers (fan-in)
                out = grads = None  # hold no gradient longer than the buffers do
    finally:
        _walks.pop()
        state.numpy_quiet = prev_quiet
        state.enabled = prev_mode
        if walk.check_nan:
            anomaly._state.current = None
    return _results(walk, allow_unused)


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

_ndarray = np.ndarray
# numpy's float scalar types and their dtypes, for route_gradients' check of a
# numpy scalar (what arithmetic on 0-d values gives): its .dtype is made afresh
# on every read, and the type is enough
_SCALAR_DTYPES = {t: np.dtype(t) for t in (np.float16, np.float32, np.float64)}


def take_ready_node(ready):
    """The ready node created last, and the gradients it received: ``(node, buffer)``.

    ``ready`` is a heap of ``(key, node, buffer)``, key ``-sequence_nr``: as
    PyTorch's ready queue holds each node with its input buffer (``NodeTask``).
    """
    _, node, buffer = heapq.heappop(ready)
    return node, buffer


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
        grads = _run_pre_hooks(walk, grads, hooks.pre)
    fns = node._next_fns
    if not compute or ((not fns or fns[0] is None) and node._formula_only and not _any(fns)):
        out = (None,) * len(fns)
        if hooks is not None and hooks.post:                    # (node post-hooks)
            out = _run_post_hooks(walk, out, grads, hooks.post)
    elif grads[0] is not None or _any(grads) or node is walk.root:
        if walk.check_nan:
            anomaly._state.current = node
        out = node.apply(grads if walk.arrays else tuple(grads), walk.F)
        if hooks is not None and hooks.post:                    # (node post-hooks)
            # PyTorch's validate_outputs runs first: post-hooks see each
            # gradient summed to its input's shape and cast to its dtype
            out = _run_post_hooks(walk, _validated(walk, node, out), grads, hooks.post)
    else:
        out = ()
    if not walk.retain_graph:
        _free_saved(node)
    return out


def _any(values):
    for v in values:
        if v is not None:
            return True
    return False


# --- 4. route the gradients into the input buffers (fan-in) -----------------

def route_gradients(walk, node, out, ready):
    """Send ``out[i]`` to the node behind input ``i``: summed into its buffer (fan-in).

    Each gradient is first made to fit its input: summed back over the
    broadcast dims, cast to the input's dtype.  A node whose last consumer has
    now delivered becomes ready.
    """
    fns = node._next_fns
    if not fns:
        return  # (a leaf's AccumulateGrad: nothing lies behind it)
    buffers = walk.buffers
    deps = walk.dependencies
    meta = node._in_meta
    nrs = node._next_nrs
    check_nan = walk.check_nan
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
                        g = _fit(walk, g, m, node, i)
                elif m[0] or _SCALAR_DTYPES.get(type(g)) is not m[1]:  # a numpy scalar; a Tensor
                    g = _fit(walk, g, m, node, i)
            if check_nan:                                       # (anomaly check)
                anomaly.check_gradient(node, i, _wrap(g) if walk.arrays else g)
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
        if left == 0:  # every consumer has delivered: ready (see take_ready_node)
            seq = nxt._seq  # (PyTorch's UINT64_MAX: a node made without a sequence number)
            if type(nxt) is AccumulateGrad or seq == UINT64_MAX:
                key = _FIRST + next(walk.counter)  # in the order they became ready
            else:
                key = -seq
            heapq.heappush(ready, (key, nxt, buf))


def _fit(walk, g, meta, node, index):
    """``g`` summed to its input's shape (undoing broadcasting) and cast to its dtype."""
    shape, dtype = meta
    if walk.arrays:
        if g.shape != shape:
            g = _sum_to_array(g, shape, node, index)
        if g.dtype is not dtype and g.dtype != dtype:
            g = g.astype(dtype)
        return g
    if g._data.shape != shape:
        _check_sum_to(g._data.shape, shape, node, index)
        g = g.sum_to_size(shape)
    if g._data.dtype != dtype:
        g = g.to(dtype)
    return g


def _validated(walk, node, out):
    """``out`` with each gradient fitted to its input (``_fit``), for the node post-hooks."""
    meta = node._in_meta
    if meta is None:
        return out
    out = list(out)
    for i, g in enumerate(out[:len(meta)]):
        if g is not None and meta[i] is not None:
            out[i] = _fit(walk, g, meta[i], node, i)
    return tuple(out)


def _check_sum_to(gshape, shape, node, index):
    lead = len(gshape) - len(shape)
    if lead < 0 or any(s != 1 and s != g for s, g in zip(shape, gshape[lead:])):
        raise RuntimeError(
            f"Function {node.name()} returned an invalid gradient at index {index} - got "
            f"{list(gshape)} but expected shape compatible with {list(shape)}"
        )


def _sum_to_array(g, shape, node, index):
    """``Tensor.sum_to_size`` on an array: sum the leading dims and the dims of size 1."""
    gshape = g.shape
    lead = len(gshape) - len(shape)
    if lead > 0 and gshape[lead:] == shape:  # only leading dims were added (a bias): the usual case
        return g.sum(axis=0) if lead == 1 else g.sum(axis=tuple(range(lead)))
    g = np.asarray(g)
    _check_sum_to(g.shape, shape, node, index)
    lead = g.ndim - len(shape)
    kept = tuple(lead + i for i, s in enumerate(shape) if s == 1 and g.shape[lead + i] != 1)
    if kept:
        g = np.sum(g, axis=tuple(range(lead)) + kept, keepdims=True)
        return g.reshape(shape) if lead else g
    return np.sum(g, axis=tuple(range(lead)))


# --- hooks and captures (the marked points) -----------------------------------

def _plan_captures(walk, inputs):
    """Where ``autograd.grad`` / ``backward(inputs=...)`` read gradients, and what must run."""
    captures = {}
    for k, t in enumerate(inputs):
        fn = t._grad_fn
        if fn is None:
            if not t._requires_grad:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
            fn = t._accumulator()
        captures.setdefault(fn, []).append((k, t._output_nr))
    walk.captures = captures
    walk.needed = _needed(walk.root, captures)


def _needed(root, targets):
    """The nodes from which some target node can be reached (they must run).

    Iterative post-order: a node is needed if it is a target's ancestor.
    """
    needed = {root: False}
    stack = [(root, iter(root._next_fns))]
    while stack:
        node, it = stack[-1]
        advanced = False
        for nxt in it:
            if nxt is None:
                continue
            if nxt not in needed:
                needed[nxt] = False
                stack.append((nxt, iter(nxt._next_fns)))
                advanced = True
                break
            if needed[nxt] or nxt in targets:
                needed[node] = True
        if not advanced:
            stack.pop()
            if stack:
                parent = stack[-1][0]
                if needed[node] or node in targets:
                    needed[parent] = True
    return {n for n, v in needed.items() if v}


def before_node(walk, node, grads):
    """What happens to a node's summed gradients before it runs: tensor hooks, captures.

    Hooks on the tensor this node produced (``register_hook``, ``retain_grad``)
    see the summed gradient first, as in PyTorch; a leaf's run here too.
    Then ``autograd.grad`` takes the gradients it asked for.  Returns
    ``(grads, compute)``: the gradients to run the node with (None if the
    node does not run at all: nothing wanted lies behind it) and whether it
    computes its gradients (see ``run_node``).
    """
    captures = walk.captures
    if captures is not None and node not in walk.needed and node not in captures:
        return None, False  # PyTorch never runs such a node: neither do its hooks
    hooks = node._hooks
    if hooks is not None and hooks.tensor_pre:
        grads = _run_pre_hooks(walk, grads, hooks.tensor_pre)
    elif type(node) is AccumulateGrad and node.variable._hooks:
        # (a leaf's hooks see None too when its AccumulateGrad gets no gradient, as in PyTorch)
        grads = [_from_tensor(walk, node.variable._run_leaf_hooks(_as_tensor(walk, grads[0])))]
    if captures is not None:
        cap = captures.get(node)
        if cap:
            for k, nr in cap:
                g = grads[nr]
                walk.results[k] = None if g is None else _as_tensor(walk, g)
        if node not in walk.needed:
            if not (cap and walk.accumulate_grad):
                return None, False  # nothing wanted lies behind this node
            # backward(inputs=[t]): t's grad_fn "runs" as in PyTorch (its hooks
            # do, its saved values are freed), but nothing behind it is wanted;
            # t.grad came from retain_grad's hook above
            return grads, type(node) is AccumulateGrad
    return grads, True


def _results(walk, allow_unused):
    if walk.inputs is None or walk.accumulate_grad:
        return None
    for k, r in enumerate(walk.results):
        if r is None and not allow_unused:
            raise RuntimeError(
                f"The differentiated Tensor at index {k} appears to not have been used in "
                "the graph. Set allow_unused=True if this is the desired behavior."
            )
    return tuple(walk.results)


def _hook_name(hook):
    return getattr(hook, "__name__", repr(hook))


def _run_pre_hooks(walk, grads, hooks):
    grads = [_as_tensor(walk, g) for g in grads]
    # retain_grad's hook runs after the tensor's own hooks (PyTorch's order)
    for hook in sorted(hooks.values(), key=lambda h: getattr(h, "_runs_last", False)):
        res = hook(tuple(grads))
        if res is not None:
            if len(res) != len(grads):
                raise RuntimeError(
                    f"hook '{_hook_name(hook)}' has returned an incorrect number of values "
                    f"(got {len(res)}, but expected {len(grads)})"
                )
            grads = list(res)
    return [_from_tensor(walk, g) for g in grads]


def _run_post_hooks(walk, out, grads, hooks):
    out = tuple(_as_tensor(walk, g) for g in out)
    grads = tuple(_as_tensor(walk, g) for g in grads)
    for hook in tuple(hooks.values()):
        res = hook(out, grads)
        if res is not None:
            if len(res) != len(out):
                raise RuntimeError(
                    f"hook '{_hook_name(hook)}' has returned an incorrect number of values "
                    f"(got {len(res)}, but expected {len(out)})"
                )
            for old, new in zip(out, res):
                if old is None and new is not None:
                    raise RuntimeError("can't replace a None gradient with a non-None value")
            out = tuple(res)
    return tuple(_from_tensor(walk, g) for g in out)


# --- arrays and Tensors ---------------------------------------------------------

def _wrap(g):
    return None if g is None else Tensor._make(g)


def _as_tensor(walk, g):
    """A gradient as user code sees it: a Tensor."""
    return _wrap(g) if walk.arrays else g


def _from_tensor(walk, g):
    return g._data if walk.arrays and g is not None else g
