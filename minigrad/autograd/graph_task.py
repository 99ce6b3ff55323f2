"""What one backward walk starts from and carries: PyTorch's ``GraphTask``.

``graph_root`` makes the node the walk starts at, a ``GraphRoot`` with an
edge to each output's node; ``GraphTask`` holds the state that the engine's
four steps share (engine.py) and that hooks.py and captures.py read;
``with walk:`` sets grad mode and numpy's warnings while it runs.

Source: ``GraphTask`` (torch/csrc/autograd/graph_task.h); the root's edges are
collected as in ``THPEngine_run_backward`` (torch/csrc/autograd/python_engine.cpp).
"""

import numpy as np

from . import anomaly, grad_kinds, grad_mode, hooks
from .graph import GraphRoot

__all__ = ["GraphTask", "graph_root"]


def graph_root(tensors, grad_tensors):
    """The walk's start: a ``GraphRoot`` with an edge to each output's node, and the seeds.

    Raises:
        RuntimeError: PyTorch's "element i of tensors does not require grad
            and does not have a grad_fn".
    """
    edges = []
    for i, t in enumerate(tensors):
        fn = t._grad_fn
        if fn is not None:
            edges.append((fn, t._output_nr))
        elif t._requires_grad:
            edges.append((t._accumulator(), 0))  # a leaf's node is its AccumulateGrad
        else:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
    return GraphRoot(edges, grad_tensors)


class GraphTask:
    """The state of one backward walk (PyTorch's ``GraphTask``).

    ``root`` its GraphRoot; ``dependencies`` node -> gradients still to come
    (engine.count_dependencies); ``buffers`` node -> the gradients it received
    so far, one per output (PyTorch's ``not_ready_``); ``F`` how gradients
    travel (``ARRAYS``; ``TENSORS`` under ``create_graph``, when the walk is
    recorded); ``captures``, ``needed`` and ``results``: what ``autograd.grad``
    reads (captures.py, PyTorch's ``exec_info_`` and ``captured_vars_``).
    """

    __slots__ = ("F", "_before", "_errstate", "accumulate_grad", "arrays", "buffers", "captures",
                 "check_nan", "dependencies", "inputs", "needed", "results", "retain_graph", "root")

    def __init__(self, root, retain_graph, create_graph, inputs, accumulate_grad):
        self.root = root
        self.retain_graph = retain_graph
        self.arrays = not create_graph  # gradients as numpy arrays: nothing is recorded
        self.F = grad_kinds.TENSORS if create_graph else grad_kinds.ARRAYS
        self.accumulate_grad = accumulate_grad
        self.check_nan = anomaly._state.enabled
        self.dependencies = None
        self.buffers = {}
        self.inputs = inputs
        self.captures = self.needed = None
        self.results = [None] * (len(inputs) if inputs is not None else 0)

    # ``with walk:`` while it runs, grad mode is on only under ``create_graph`` (a walk
    # that records nothing runs its formulas as plain numpy), numpy's warnings are off
    # (formulas meet inf * 0 too; PyTorch is silent) and ``register_multi_grad_hook`` can
    # ask which walk is in progress (``hooks.walks``); all restored after, whatever is raised.

    def __enter__(self):
        state = grad_mode._state
        self._before = state.enabled, state.numpy_quiet
        state.enabled = not self.arrays
        state.numpy_quiet = True  # the ops a walk runs need not enter errstate again
        self._errstate = np.errstate(all="ignore")
        self._errstate.__enter__()
        hooks.walks.append(self)
        return self

    def __exit__(self, *exc):
        hooks.walks.pop()
        self._errstate.__exit__(*exc)
        state = grad_mode._state
        state.enabled, state.numpy_quiet = self._before
        if self.check_nan:
            anomaly._state.current = None
