"""Pictures of the recorded graph, of minigrad or of PyTorch, and of each step of its walks.

``draw(z)`` walks back from ``z.grad_fn`` through ``next_functions`` and
returns a ``GraphPicture``: a Graphviz picture (SVG and PNG) of the
operations, leaves, output, constants and saved values, plus a deterministic
text form of the same graph (its ``text/plain``, which nbval compares).
``record_backward(z)`` runs the real backward walk and records each step it
takes; ``record_forward(fn, x)`` records the forward pass as the graph grows;
a step of either draws the graph as it was then (``draw(steps[1])``), and
``minigrad.widgets.step_through`` puts a slider over them.

Every function here takes minigrad's tensors and PyTorch's alike: the graph
is read only through what both expose (``grad_fn``, ``next_functions``,
``variable``, ``_saved_*``, node hooks).  PyTorch is never imported by
minigrad; a PyTorch tensor is recognised because the program imported torch.

One file per idea, so that the part a lesson talks about can be opened alone:

==================  ============================================================
``reading.py``      how a graph is read, the same way for minigrad and PyTorch
``snapshot.py``     which nodes and values a picture shows
``text.py``         the text form
``render.py``       the picture language: Graphviz rendering
``style.py``        its Graphviz attributes (boxes, marks, arrows), and running ``dot``
``legend.py``       the legend under a picture
``drawing.py``      ``draw``
``recording.py``    what the recorded walks share (steps, names, past states)
``backward_walk.py``  ``record_backward``: the backward walk, step by step
``forward_pass.py``   ``record_forward``: the forward pass as it records
``strip.py``        a whole recording in one picture: its steps side by side
``values.py``       how values read (``3.``, ``[1., 2.]``)
==================  ============================================================

Source: torchviz's ``make_dot`` (github.com/szagoruyko/pytorchviz) over
PyTorch's ``torch.autograd.graph.Node`` graph; the walk is observed through
the hooks PyTorch offers on that graph (``register_prehook``, ``register_hook``).
"""

from .backward_walk import BackwardRecording, BackwardStep, GradUpdate, record_backward
from .drawing import draw
from .forward_pass import ForwardRecording, ForwardStep, record_forward
from .render import GraphPicture, GraphvizMissingError
from .strip import StripPicture, strip

__all__ = [
    "BackwardRecording",
    "BackwardStep",
    "ForwardRecording",
    "ForwardStep",
    "GradUpdate",
    "GraphPicture",
    "GraphvizMissingError",
    "StripPicture",
    "draw",
    "record_backward",
    "record_forward",
    "strip",
]
