"""``draw``: the picture of a recorded graph, torchviz style, from minigrad or PyTorch.

``draw(z)`` reads the graph behind ``z`` once (``snapshot.Snapshot``),
writes its text form (``text.py``) and its Graphviz source (``render.py``),
and returns a ``GraphPicture`` holding only those strings.
"""

from ..jit.draw import static_drawing
from . import reading
from .render import MARKS, GraphPicture
from .snapshot import Snapshot, roots_of


def draw(tensor_or_node, show_saved=True, show_values=False, highlight=None, *, names=None,
         show_attrs=False, legend=True, max_nodes=300, collapse_keep=10, max_attr_chars=50):
    """Draw the graph recorded behind a tensor, torchviz style; returns a ``GraphPicture``.

    Walks back from ``tensor.grad_fn`` through ``next_functions`` without
    recursion and snapshots what it finds: operations (``grad_fn`` nodes with
    PyTorch's names, numbered in forward order), leaves that receive ``.grad``
    (their ``AccumulateGrad`` node, drawn as the leaf), the output, constant
    inputs (``(None, 0)`` in ``next_functions``, with their value when the node
    kept it) and the values each node saved for backward, in their current
    state (alive, freed by a backward without ``retain_graph=True``, modified
    in place, or packed by a hook).  Works on minigrad's graphs and on
    PyTorch's (read through ``grad_fn``, ``next_functions``, ``variable`` and
    the ``_saved_*`` attributes: reading a freed one raises, which is how a
    freed value is told from an alive one).

    Args:
        tensor_or_node: a tensor (its ``grad_fn`` and everything behind it; a
            leaf gives a one-box picture), a graph node (e.g. ``z.grad_fn``),
            or a list or tuple of them (several outputs in one picture); a
            ``minigrad.Tensor`` or a ``torch.Tensor``.  Also a step of a
            recorded walk (``record_backward(z)[1]``, ``record_forward(f,
            x)[0]``, ``steps.start``): the graph as it was at that step; or a
            recording: its last step.
        show_saved (bool): draw the saved values and list them in the text.
        show_values (bool): add the values (``tensor(3.)``) to the leaves and
            outputs, in the picture and the text, and each leaf's ``.grad``
            once it has one (``.grad = 6.`` after ``backward()``); otherwise
            their shapes.
        highlight: a node or tensor (its ``grad_fn``; for a leaf, the leaf),
            or a collection of them, drawn with a thick border and marked
            ``[highlight]`` in the text.
        names (dict | None): labels for the learner's variables, either
            ``{"x": x, "y": y}`` or ``{x: "x", y: "y"}``; tensors or nodes.
            Unnamed leaves are ``leaf 1``, ``leaf 2``, ... in order of first
            use, the output is ``output``, other nodes ``#n``.  A named
            intermediate labels the arrow it leaves its step by.
        show_attrs (bool): also show each node's non-tensor saved values
            (``exponent``, ``self_sym_sizes``, ...), as torchviz's ``show_attrs``.
        legend (bool): add a small legend of the kinds of box and arrow drawn.
        max_nodes (int): above this many graph nodes, draw collapsed: the
            first and last ``collapse_keep`` nodes and one "... k more nodes
            ..." box, with a note (the text form is shortened the same way).
        collapse_keep (int): steps kept at each end of a collapsed graph.
        max_attr_chars (int): longest attribute value shown with ``show_attrs``.

    Returns:
        GraphPicture: ``.text``, ``.source``, ``.svg()``, ``.png()``,
        ``.save(filename)``; Jupyter displays it as a picture.

    Raises:
        TypeError: ``tensor_or_node`` is not a tensor or node (or a list of
            them; the message names what it got in full, e.g. ``numpy.ndarray``),
            or ``names`` is not a mapping of names to tensors.

    ``draw`` itself never needs Graphviz: it is imported only when a picture
    is rendered, which raises ``GraphvizMissingError`` (a ``RuntimeError``)
    with installation instructions if the package or ``dot`` is missing.

    Source: torchviz's ``make_dot(var, params, show_attrs, show_saved)``
    (torchviz/dot.py), over PyTorch's ``grad_fn`` / ``next_functions`` graph.
    """
    # a static graph (minigrad.jit's or PyTorch's jit.trace) is drawn forwards: minigrad/jit/draw.py
    drawing = static_drawing(tensor_or_node)
    if drawing is not None:
        return GraphPicture(*drawing)
    from .recording import Recording, Step

    if isinstance(tensor_or_node, (Step, Recording)):
        # a step of a recorded walk (or a recording: its last step), drawn as the graph was then
        return tensor_or_node.draw(show_saved=show_saved, show_values=show_values,
                                   highlight=highlight, names=names, show_attrs=show_attrs,
                                   legend=legend, max_nodes=max_nodes,
                                   collapse_keep=collapse_keep, max_attr_chars=max_attr_chars)
    marks = {}
    if highlight is not None:
        marks["highlight"] = as_list(highlight)
    return draw_marked(tensor_or_node, marks, show_saved=show_saved, show_values=show_values,
                       names=names, show_attrs=show_attrs, legend=legend, max_nodes=max_nodes,
                       collapse_keep=collapse_keep, max_attr_chars=max_attr_chars)


def as_list(objs):
    if reading.is_tensor(objs) or reading.is_node(objs):
        return [objs]
    return list(objs)


def draw_marked(tensor_or_node, marks, *, show_saved=True, show_values=False, names=None,
                show_attrs=False, legend=True, max_nodes=300, collapse_keep=10,
                max_attr_chars=50, view=None, caption_width=90):
    """``draw`` with any marks: ``{mark: [nodes or tensors]}``, each mark a key of ``MARKS``.

    The hook for pictures of a walk (current node, walked path): add a style
    to ``MARKS`` and pass the nodes here; ``view`` is the graph as it was at
    one step of a recording (``recording.View``).
    """
    for mark in marks:
        if mark not in MARKS:
            raise ValueError(f"unknown mark {mark!r}; known: {sorted(MARKS)}")
    g = Snapshot(roots_of(tensor_or_node), names, marks, show_saved, show_values, show_attrs,
                 max_nodes, collapse_keep, max_attr_chars, view=view)
    return GraphPicture.of(g, legend, caption_width)
