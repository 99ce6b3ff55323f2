"""The backward walk: read the recording in reverse and hand out gradients.

``run_backward`` is what ``loss.backward()`` and ``autograd.grad`` call.  In
four steps, none of them recursive (a chain of 100,000 operations is fine):

1. **Count dependencies.**  Starting from the outputs, visit every node once
   and count, for each node, how many edges point into it: how many
   gradients it must receive before it can run.
2. **Walk.**  A node is *ready* when all its consumers have delivered.  Among
   the ready nodes, run the one created last (highest sequence number), as
   PyTorch's engine does; ``AccumulateGrad`` runs as soon as it is ready.
3. **Fan-in.**  Gradients arriving at one node from several consumers are
   summed in an input buffer before the node runs once with the total: the
   multivariate chain rule, x̄ = Σ_p (∂f_p/∂x)ᵀ ȳ_p.
4. **Free.**  Right after a node has run, its saved tensors are released
   (unless ``retain_graph``), which is why a second walk fails.

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

from . import anomaly, grad_mode
from .graph import AccumulateGrad, Node

__all__ = ["run_backward"]

# The walks in progress, innermost last: (root, deps, needed, captures,
# accumulate_grad).  Read by graph.register_multi_grad_hook (PyTorch's
# _current_graph_task_id and _will_engine_execute_node).
_walks = []


class GraphRoot(Node):
    """The walk's starting node: sends the seed gradients to the outputs' nodes.

    Source: ``torch::autograd::GraphRoot``.
    """

    __slots__ = ("_grads",)

    def __init__(self, edges, grads):
        Node.__init__(self)
        self.next_functions = tuple(edges)
        self._grads = tuple(grads)

    def _backward(self, grads):
        return self._grads


def _dependencies(root):
    """Number of incoming edges of every node reachable from ``root`` (iterative DFS)."""
    deps = {}
    stack = [root]
    while stack:
        for nxt, _ in stack.pop().next_functions:
            if nxt is None:
                continue
            if nxt in deps:
                deps[nxt] += 1
            else:  # first visit
                deps[nxt] = 1
                stack.append(nxt)
    return deps


def _needed(root, targets):
    """The nodes from which some target node can be reached (they must run).

    Iterative post-order: a node is needed if it is a target's ancestor.
    """
    needed = {}
    stack = [(root, iter(root.next_functions))]
    needed[root] = False
    while stack:
        node, it = stack[-1]
        advanced = False
        for nxt, _ in it:
            if nxt is None:
                continue
            if nxt not in needed:
                needed[nxt] = False
                stack.append((nxt, iter(nxt.next_functions)))
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


def _sum_to(grad, shape, node, index):
    """Reduce a broadcast gradient to ``shape`` (recorded when create_graph is on)."""
    gshape = grad._data.shape
    lead = len(gshape) - len(shape)
    ok = lead >= 0 and all(s == 1 or s == g for s, g in zip(shape, gshape[lead:]))
    if not ok:
        raise RuntimeError(
            f"Function {node.name()} returned an invalid gradient at index {index} - got "
            f"{list(gshape)} but expected shape compatible with {list(shape)}"
        )
    return grad.sum_to_size(shape)


def _validated(node, out):
    """``out`` with each gradient reduced (``_sum_to``) and cast to its input's shape and dtype."""
    meta = node._in_meta
    if meta is None:
        return out
    out = list(out)
    for i, g in enumerate(out[:len(meta)]):
        if g is not None and node.next_functions[i][0] is not None:
            shape, dt = meta[i]
            if g._data.shape != shape:
                g = _sum_to(g, shape, node, i)
            out[i] = g if g._data.dtype == dt else g.to(dt)
    return tuple(out)


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
    root = GraphRoot(edges, grad_tensors)
    deps = _dependencies(root)

    # Where to capture gradients (autograd.grad / backward(inputs=...)).
    captures = None
    needed = None
    if inputs is not None:
        captures = {}
        for k, t in enumerate(inputs):
            fn = t._grad_fn
            if fn is None:
                if not t._requires_grad:
                    raise RuntimeError("One of the differentiated Tensors does not require grad")
                fn = t._accumulator()
            captures.setdefault(fn, []).append((k, t._output_nr))
        needed = _needed(root, captures)
    results = [None] * (len(inputs) if inputs is not None else 0)

    buffers = {root: [None]}
    counter = itertools.count()
    ready = [(0, 0, root)]
    state = grad_mode._state
    prev_mode = state.enabled
    state.enabled = bool(create_graph)
    check_nan = anomaly._state.enabled
    quiet = np.errstate(all="ignore")  # backward formulas meet inf * 0 too; PyTorch is silent
    quiet.__enter__()
    prev_quiet = state.numpy_quiet
    state.numpy_quiet = True  # so the ops the walk runs need not enter errstate again
    _walks.append((root, deps, needed, captures, accumulate_grad))  # for graph.py's hooks
    try:
        while ready:
            node = heapq.heappop(ready)[2]
            grads = buffers.pop(node)
            if needed is not None and node not in needed and node not in captures:
                continue  # PyTorch never runs such a node: neither do its hooks
            # Hooks on the tensor this node produced (register_hook, retain_grad)
            # see the summed gradient first, as in PyTorch; a leaf's run here too.
            if node._tensor_pre_hooks:
                grads = _run_pre_hooks(node, grads, node._tensor_pre_hooks)
            elif type(node) is AccumulateGrad and node.variable._hooks and grads[0] is not None:
                grads = [node.variable._run_leaf_hooks(grads[0])]
            skip = False  # run the node's hooks, compute none of its gradients
            if captures is not None:
                cap = captures.get(node)
                if cap:
                    for k, nr in cap:
                        results[k] = grads[nr]
                if node not in needed:
                    if not (cap and accumulate_grad):
                        continue  # nothing wanted lies behind this node
                    # backward(inputs=[t]): t's grad_fn "runs" as in PyTorch (its
                    # hooks do, its saved values are freed), but nothing behind
                    # it is wanted; t.grad came from retain_grad's hook above
                    skip = type(node) is not AccumulateGrad
            if node._pre_hooks:
                grads = _run_pre_hooks(node, grads, node._pre_hooks)
            if skip:
                out = (None,) * len(node.next_functions)
                if node._post_hooks:
                    out = _run_post_hooks(node, out, grads)
            elif node._formula_only and not any(nxt is not None for nxt, _ in node.next_functions):
                # no input of this primitive needs a gradient: PyTorch's generated
                # formulas then compute (and unpack) nothing; the node still "runs"
                out = (None,) * len(node.next_functions)
                if node._post_hooks:
                    out = _run_post_hooks(node, out, grads)
            elif grads[0] is not None or node is root or grads.count(None) != len(grads):
                if check_nan:
                    anomaly._state.current = node
                out = node._backward(tuple(grads))
                if node._post_hooks:
                    # PyTorch's validate_outputs runs first: post-hooks see each
                    # gradient summed to its input's shape and dtype
                    out = _run_post_hooks(node, _validated(node, out), grads)
            else:
                out = ()
            if not retain_graph:
                node._release_saved()
            nexts = node.next_functions
            meta = node._in_meta
            for i, (nxt, nr) in enumerate(nexts):
                if nxt is None:
                    continue
                g = out[i] if i < len(out) else None
                if g is not None:
                    if meta is not None:
                        shape, dt = meta[i]
                        if g._data.shape != shape:
                            g = _sum_to(g, shape, node, i)
                        if g._data.dtype != dt:
                            g = g.to(dt)
                    if check_nan:
                        anomaly.check_gradient(node, i, g)
                    buf = buffers.get(nxt)
                    if buf is None:
                        n_out = nxt._num_outputs()
                        if n_out == 1:
                            buffers[nxt] = [g]
                            g = None
                        else:
                            buf = buffers[nxt] = [None] * n_out
                    if g is not None:
                        old = buf[nr]
                        buf[nr] = g if old is None else old + g  # fan-in: sum
                left = deps[nxt] - 1
                deps[nxt] = left
                if left == 0:
                    if nxt not in buffers:
                        buffers[nxt] = [None] * nxt._num_outputs()
                    heapq.heappush(ready, (-nxt._priority(), next(counter), nxt))
    finally:
        _walks.pop()
        quiet.__exit__(None, None, None)
        state.numpy_quiet = prev_quiet
        state.enabled = prev_mode
        if check_nan:
            anomaly._state.current = None

    if inputs is not None and not accumulate_grad:
        for k in range(len(inputs)):
            if results[k] is None and not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {k} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior."
                )
        return tuple(results)
    return None


def _hook_name(hook):
    return getattr(hook, "__name__", repr(hook))


def _run_pre_hooks(node, grads, hooks):
    grads = list(grads)
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
    return grads


def _run_post_hooks(node, out, grads):
    for hook in tuple(node._post_hooks.values()):
        res = hook(tuple(out), tuple(grads))
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
    return out
