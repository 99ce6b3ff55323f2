"""``autograd.grad`` and ``backward(inputs=...)``: which gradients a walk hands back.

``plan_captures`` finds, before the walk, the node whose gradient each input
receives (its ``grad_fn``, or a leaf's ``AccumulateGrad``) and the nodes that
must run to reach them; the others never run, nor do their hooks.
``before_node`` is what the walk (engine.py) does with a node's gradients
before the node runs: its tensor's hooks (hooks.py), then ``take_captures``
reads the wanted gradients; ``results`` returns them after the walk.

Source: the ``exec_info`` and ``captures`` of PyTorch's ``GraphTask``
(torch/csrc/autograd/engine.cpp, ``init_to_execute`` and ``evaluate_function``).
"""

from .graph import AccumulateGrad
from .hooks import run_tensor_hooks

__all__ = ["before_node", "plan_captures", "results", "take_captures"]


def plan_captures(walk, inputs):
    """Where ``autograd.grad`` / ``backward(inputs=...)`` read gradients, and what must run.

    Raises:
        RuntimeError: PyTorch's "One of the differentiated Tensors does not require grad".
    """
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
    """A node's summed gradients before it runs: its tensor's hooks, then the captures.

    Returns ``(grads, compute)``: the gradients to run the node with (None if
    the node does not run at all: nothing wanted lies behind it) and whether
    it computes its gradients (see ``engine.run_node``).
    """
    captures = walk.captures
    if captures is not None and node not in walk.needed and node not in captures:
        return None, False  # PyTorch never runs such a node: neither do its hooks
    grads = run_tensor_hooks(node, grads, walk.F)
    if captures is not None:
        return take_captures(walk, node, grads)
    return grads, True


def take_captures(walk, node, grads):
    """Read the gradients asked for at ``node``; ``(grads, compute)`` as ``before_node``."""
    cap = walk.captures.get(node)
    if cap:
        for k, nr in cap:
            g = grads[nr]
            walk.results[k] = None if g is None else walk.F.to_tensors((g,))[0]
    if node not in walk.needed:
        if not (cap and walk.accumulate_grad):
            return None, False  # nothing wanted lies behind this node
        # backward(inputs=[t]): t's grad_fn "runs" as in PyTorch (its hooks
        # do, its saved values are freed), but nothing behind it is wanted;
        # t.grad came from retain_grad's hook
        return grads, type(node) is AccumulateGrad
    return grads, True


def results(walk, allow_unused):
    """The captured gradients (``autograd.grad``'s result); None for ``backward``.

    Raises:
        RuntimeError: PyTorch's "The differentiated Tensor at index k appears
            to not have been used in the graph. ..." unless ``allow_unused``.
    """
    if walk.inputs is None or walk.accumulate_grad:
        return None
    for k, r in enumerate(walk.results):
        if r is None and not allow_unused:
            raise RuntimeError(
                f"The differentiated Tensor at index {k} appears to not have been used in "
                "the graph. Set allow_unused=True if this is the desired behavior."
            )
    return tuple(walk.results)
