"""What one backward walk starts from and carries: PyTorch's ``GraphTask``.

``graph_root`` makes the node the walk starts at, a ``GraphRoot`` with an
edge to each output's node; ``GraphTask`` holds the state that the engine's
four steps share (engine.py) and that hooks.py and captures.py read.

Source: ``GraphTask`` (torch/csrc/autograd/graph_task.h); the root's edges are
collected as in ``THPEngine_run_backward`` (torch/csrc/autograd/python_engine.cpp).
"""

from . import anomaly, grad_kinds
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

    __slots__ = ("F", "accumulate_grad", "arrays", "buffers", "captures", "check_nan",
                 "dependencies", "inputs", "needed", "results", "retain_graph", "root")

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
