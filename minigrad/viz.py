"""Pictures of the recorded graph, in the style of torchviz, plus a text form of the same graph.

``draw(z)`` walks back from ``z.grad_fn`` through ``next_functions`` (without
recursion: a graph may be 100,000 nodes deep) and returns a ``GraphPicture``:

* **operations** (the ``grad_fn`` nodes, with PyTorch's names such as
  ``MulBackward0``): grey rounded boxes, numbered in the order the forward pass
  recorded them (``step 1`` is the oldest);
* **leaves** that will receive ``.grad`` (the graph holds their
  ``AccumulateGrad`` node; the picture draws the leaf itself, as torchviz does):
  light-blue boxes with the leaf's name and shape;
* the **output**: a green box with a double border;
* **constants**: an input that needs no gradient appears in ``next_functions``
  as ``(None, 0)``; torchviz leaves it out, here it is a small grey dashed
  "constant" marker so the learner sees where ``(None, 0)`` comes from;
* **saved values** (what a node keeps for its backward: ``self``, ``other``,
  ``result``, ...): orange boxes joined to their node by a dashed line, each in
  its state: ``alive``; ``freed`` once a backward without ``retain_graph=True``
  has run (a white dashed box: reading ``node._saved_self`` would now raise
  "Trying to backward through the graph a second time ..."); ``modified in
  place`` (the node's backward would raise the in-place error); or ``packed``
  by a ``saved_tensors_hooks`` pack hook.

The same graph as text (``picture.text``; also the ``text/plain`` that nbval
compares, so it has no addresses or ids and a stable order).  For
``x = tensor(3., requires_grad=True); y = x * x; z = y + 1.0`` drawn with
``names={"x": x, "z": z}``::

    recorded graph of z: 2 steps, 1 leaf, 1 constant input
      x: leaf, shape (), receives .grad
      1. MulBackward0(x, x)              saved: self = x (alive), other = x (alive)
      2. AddBackward0(step 1, constant)  -> output z, shape ()

One line per leaf (in order of first use), then one line per step in the
order the forward pass recorded them (``node._seq``, oldest first), each with
its inputs in ``next_functions`` order (a leaf's name, ``step n`` or the name
given to that tensor, ``constant`` for ``(None, 0)``), what it saved (``name =
what it is (state)``) and the output it produced.  After ``z.backward()``
line 1 reads ``saved: self (freed), other (freed)``: a freed value no longer
refers to anything.  A graph of more than ``max_nodes`` nodes lists its first
and last steps and ``... 980 more steps (11 to 990) ...`` between them.

Colours come from the Okabe-Ito palette (safe for colour-blind readers) and
are never the only cue: every kind of box also has its own shape or border and
says what it is in its label.  A small legend lists the kinds present.

The picture is a *snapshot*: ``draw`` reads the graph once and keeps only
strings (the Graphviz source and the text form), never the tensors or nodes, so
a picture left in a notebook's output history does not keep a graph (and its
saved values) alive, and a picture drawn before ``backward()`` still shows the
values alive.  Draw again to see the new state.

Rendering needs the ``graphviz`` Python package and Graphviz's ``dot``
program; both are looked for only when a picture is asked for (``svg()``,
``png()``, or Jupyter displaying it).  ``import minigrad`` never imports
``graphviz``, and the text form (``.text``) and the Graphviz source
(``.source``) work without either.  Without them, ``svg()`` and ``png()``
raise ``GraphvizMissingError`` (a ``RuntimeError``) saying what is missing and
how to install it, and a notebook cell shows the text form followed by that
message (its ``text/plain``), never a traceback.

**The walk itself.**  ``record_backward(z)`` runs ``z.backward()`` for real
and records each step the engine takes: which node ran, the gradient that
arrived at it (already summed over its consumers), what it sent along each of
its ``next_functions``, how a leaf's ``.grad`` changed, and which saved values
were freed right after it.  Each step has a one-line text and draws the graph
as it was then (``draw(steps[1])``)::

    >>> steps = record_backward(z, names={"x": x, "y": y, "z": z})
    >>> steps
    backward walk from z (seeded with 1.): 3 steps
      1. AddBackward0 received 1., sent 1. and None
      2. MulBackward0 received 1., sent 3. and 3., freed self and other
      3. AccumulateGrad received 3. + 3. = 6., set x.grad to 6.

In a step's picture the node running is yellow with a thick black border
("running now"), the nodes already run have a thick blue border ("done"), the
gradients sent so far are vermillion edges labelled with their values, the
values freed by this step have a thick vermillion dashed border ("freed just
now") and those freed before it a grey dashed one, and each leaf shows its
``.grad``; the step's sentence is the caption on top (and the first line of
the text form).  ``record_forward(fn, x)`` does the same for the forward pass:
step ``k`` draws the graph after ``k`` operations, the newest one yellow ("just
recorded").  ``minigrad.widgets.step_through`` puts a slider over the steps.

Source: torchviz's ``make_dot`` (github.com/szagoruyko/pytorchviz,
torchviz/dot.py: grey function nodes, light-blue leaves, green output, orange
saved tensors joined by a dashed edge) over PyTorch's ``grad_fn`` /
``next_functions`` graph (``torch.autograd.graph.Node``); the walk is
observed through the hooks PyTorch offers on that graph
(``Node.register_prehook`` and ``Node.register_hook``).
"""

import bisect
import html
import struct
import sys
import weakref

import numpy as np

from .memory import _buffer_of, _MeterPacked

__all__ = [
    "BackwardRecording",
    "BackwardStep",
    "ForwardRecording",
    "ForwardStep",
    "GraphPicture",
    "GraphvizMissingError",
    "draw",
    "record_backward",
    "record_forward",
]

# --------------------------------------------------------------------- errors

_INSTALL = (
    "Install Graphviz, then restart the kernel:\n"
    "  conda:          conda install -c conda-forge graphviz python-graphviz\n"
    "  Debian/Ubuntu:  sudo apt-get install graphviz   (and: pip install graphviz)\n"
    "  macOS:          brew install graphviz           (and: pip install graphviz)\n"
    "  Windows:        winget install graphviz         (and: pip install graphviz;"
    " open a new terminal so dot is on PATH)\n"
    "The text form of the graph (picture.text) works without Graphviz."
)
_NO_DOT = "Graphviz's `dot` program was not found on PATH: minigrad.viz needs it to draw graphs.\n"
_NO_PACKAGE = (
    "The `graphviz` Python package is not installed: minigrad.viz needs it (and Graphviz's "
    "`dot` program) to draw graphs.\n"
)


class GraphvizMissingError(RuntimeError):
    """Raised when a picture is requested but Graphviz is not available.

    Either the ``graphviz`` Python package cannot be imported, or Graphviz's
    ``dot`` program is not on ``PATH``.  The message says which, and how to
    install it (``conda install -c conda-forge graphviz``, ``apt-get install
    graphviz``, ``brew install graphviz``, ``winget install graphviz``).

    A subclass of ``RuntimeError``.
    """


# ---------------------------------------------------------------------- style

# Okabe & Ito (2008), "Color Universal Design": hues distinguishable with every
# common colour-vision deficiency.  Fills are light tints of them so black text
# stays readable; the kind of box is also carried by shape, border and label.
OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
}
_FILL = {
    "leaf": "#CCE8F8",  # sky blue tint
    "output": "#B3E2D4",  # bluish green tint
    "saved": "#F7D999",  # orange tint
    "modified": "#F2BF99",  # vermillion tint
    "function": "#E6E6E6",
    "white": "#FFFFFF",
}
_FONT = "Helvetica"  # fontconfig maps it to a metric-compatible font (Liberation Sans here)
_SMALL = 9  # point size of the secondary lines of a label
_MUTED = "#555555"

# Graphviz attributes of each kind of box.  ``_box_attrs`` starts from these
# and applies the marks of a box (``_MARKS``) on top, so per-node styling
# (the current node of a backward walk, the walked path, ...) is one entry
# in ``_MARKS``.
_KINDS = {
    "function": {"shape": "box", "style": "rounded,filled", "fillcolor": _FILL["function"],
                 "color": "#666666"},
    "leaf": {"shape": "box", "style": "filled", "fillcolor": _FILL["leaf"],
             "color": OKABE_ITO["blue"]},
    "output": {"shape": "box", "style": "filled", "fillcolor": _FILL["output"],
               "color": "#006B4F", "peripheries": "2"},
    "tensor": {"shape": "box", "style": "filled", "fillcolor": _FILL["white"], "color": "#666666"},
    "saved": {"shape": "box", "style": "filled", "fillcolor": _FILL["saved"], "color": "#9A6A00",
              "fontsize": "10"},
    "saved_freed": {"shape": "box", "style": "dashed", "color": "#888888",
                    "fontcolor": "#666666", "fontsize": "10"},
    "saved_modified": {"shape": "box", "style": "filled,bold", "fillcolor": _FILL["modified"],
                       "color": OKABE_ITO["vermillion"], "fontsize": "10"},
    "saved_packed": {"shape": "box", "style": "filled,dashed", "fillcolor": _FILL["saved"],
                     "color": "#9A6A00", "fontsize": "10"},
    # freed by the step of a backward walk being shown: the freed box, in vermillion, thick
    "saved_just_freed": {"shape": "box", "style": "dashed,bold", "color": OKABE_ITO["vermillion"],
                         "fontcolor": "#333333", "fontsize": "10", "penwidth": "2"},
    "constant": {"shape": "box", "style": "rounded,dashed", "color": "#999999",
                 "fontcolor": "#666666", "fontsize": "9", "margin": "0.06,0.02",
                 "height": "0.2"},
    "more": {"shape": "box", "style": "filled,dashed", "fillcolor": "#FBF8D5",  # yellow tint
             "color": "#666666", "fontcolor": "#333333"},
}
_MARKS = {
    "highlight": {"penwidth": "3", "color": OKABE_ITO["black"]},
    # the node a step of a backward walk runs (or a forward step records): yellow, thick black
    # border, and a row of its label says so
    "current": {"penwidth": "3", "color": OKABE_ITO["black"], "fillcolor": OKABE_ITO["yellow"]},
    "new": {"penwidth": "3", "color": OKABE_ITO["black"], "fillcolor": OKABE_ITO["yellow"]},
    # nodes the walk has already run: a thick blue border and a "done" row
    "walked": {"penwidth": "2.5", "color": OKABE_ITO["blue"]},
}
# Marks that do not force a step to be drawn in a collapsed graph (a walk marks most nodes).
_SOFT_MARKS = {"walked"}
_EDGES = {  # heavier data edges keep the chain of operations straight
    "data": {"weight": "4"},
    "saved": {"style": "dashed", "dir": "none", "color": "#9A6A00"},
    "saved_freed": {"style": "dashed", "dir": "none", "color": "#AAAAAA"},
    "constant": {"style": "dashed", "color": "#999999"},
    "output": {"color": "#006B4F", "weight": "4"},
    "more": {"style": "dashed", "weight": "4"},
    # an edge the backward walk has sent a gradient along, labelled with its value
    "grad": {"color": OKABE_ITO["vermillion"], "penwidth": "2.5", "weight": "4",
             "fontcolor": "#A04000", "fontsize": "10"},
}
_GRAPH_ATTRS = {
    "rankdir": "TB",
    "bgcolor": "white",  # readable on JupyterLab's dark theme too
    "pad": "0.15",
    "nodesep": "0.25",
    "ranksep": "0.3",
    "fontname": _FONT,
    "fontsize": "10",
}
_NODE_DEFAULTS = {"fontname": _FONT, "fontsize": "11", "height": "0.3",
                  "margin": "0.1,0.04", "penwidth": "1"}
_EDGE_DEFAULTS = {"fontname": _FONT, "fontsize": "9", "arrowsize": "0.7", "color": "#444444"}
_PNG_DPI = 144  # twice Graphviz's 72 points per inch: crisp on high-density screens

_STATE_WORDS = {
    "alive": "alive",
    "freed": "freed",
    "modified": "modified in place",
    "packed": "packed by hook",
    "just_freed": "freed just now",
}
_LEGEND = (  # (kind, text), in this order, each only when drawn
    ("leaf", "leaf: gets .grad"),
    ("function", "operation (grad_fn)"),
    ("output", "output"),
    ("tensor", "records nothing"),
    ("saved", "saved, alive"),
    ("saved_packed", "saved, packed by hook"),
    ("saved_modified", "saved, modified in place"),
    ("saved_just_freed", "saved, freed just now"),
    ("saved_freed", "saved, freed"),
    ("constant", "constant: (None, 0)"),
    ("more", "steps not drawn"),
)


# ------------------------------------------------------------------ the model

class _Box:
    """One box of the picture: a dot id, a kind (see ``_KINDS``), label rows, marks."""

    __slots__ = ("id", "kind", "marks", "rows")

    def __init__(self, id, kind, rows, marks=()):
        self.id = id
        self.kind = kind
        self.rows = rows  # list of (text, "title" | "small" | "value")
        self.marks = set(marks)


def _shape_str(shape):
    return str(tuple(int(s) for s in shape))


def _shape_row(shape):
    return f"shape {shape}"


def _one_line(text):
    return " ".join(text.split())


def _value_repr(t):
    """The tensor's values as PyTorch prints them, without the autograd suffixes."""
    return repr(t.detach())


def _node_name(node):
    """The name a learner sees for a node: its class name, as in its repr and in torchviz.

    Same as ``node.name()`` (``MulBackward0``) except for PyTorch's C++ nodes,
    whose ``name()`` is qualified (``torch::autograd::CopySlices``).
    """
    return type(node).__name__


def _is_tensor(obj):
    from .tensor import Tensor

    return isinstance(obj, Tensor)


def _is_node(obj):
    from .autograd.graph import Node

    return isinstance(obj, Node)


def _parse_names(names):
    """``{"x": x}`` or ``{x: "x"}`` into a list of (object, name) pairs, in the given order."""
    pairs = []
    if names is None:
        return pairs
    if not hasattr(names, "items"):
        raise TypeError(f"names must be a dict like {{'x': x}}, got {type(names).__name__}")
    for k, v in names.items():
        if isinstance(k, str) and (_is_tensor(v) or _is_node(v)):
            pairs.append((v, k))
        elif isinstance(v, str) and (_is_tensor(k) or _is_node(k)):
            pairs.append((k, v))
        else:
            raise TypeError(
                "names must map a name to a Tensor or graph Node ({'x': x}) or a Tensor or "
                f"Node to a name ({{x: 'x'}}); got {type(k).__name__}: {type(v).__name__}"
            )
    return pairs


def _roots_of(obj):
    if _is_tensor(obj) or _is_node(obj):
        return [obj]
    if isinstance(obj, (list, tuple)) and obj and all(_is_tensor(o) or _is_node(o) for o in obj):
        return list(obj)
    raise TypeError(
        "draw() expects a Tensor, a graph Node (such as z.grad_fn), or a list or tuple of them; "
        f"got {type(obj).__name__}"
    )


def _walk(start, visible=None):
    """Every node reachable from ``start`` through ``next_functions``, without recursion.

    Returns ``(nodes, consumers)``: ``nodes`` in discovery order; ``consumers``
    maps a node to the ``(consumer, edge index)`` pairs that point at it.
    Nodes are keyed by identity (``Node`` has no ``__eq__``), and this list
    keeps them alive while drawing.  ``visible`` (a set of nodes, or None for
    all) limits the walk to those nodes and the ``AccumulateGrad`` nodes they
    point at: a forward recording draws its graph as it was a few steps in.
    """
    from .autograd.graph import AccumulateGrad

    seen = set()
    nodes = []
    consumers = {}
    stack = []
    for n in start:
        if n not in seen:
            seen.add(n)
            nodes.append(n)
            stack.append(n)
    while stack:
        node = stack.pop()
        for i, (nxt, _nr) in enumerate(node.next_functions):
            if nxt is None:
                continue
            if visible is not None and nxt not in visible and not isinstance(nxt, AccumulateGrad):
                continue
            consumers.setdefault(nxt, []).append((node, i))
            if nxt not in seen:
                seen.add(nxt)
                nodes.append(nxt)
                stack.append(nxt)
    return nodes, consumers


def _saved_entries(node):
    """The saved tensors of ``node`` as (name, state, tensor or None, is_output), not unpacked.

    Unpacking would run unpack hooks and raise for freed or modified values;
    the state is read from the ``SavedTensor`` records instead.  States:
    ``alive``, ``freed``, ``modified`` (changed in place since saved),
    ``packed`` (held by a ``saved_tensors_hooks`` pack hook).
    """
    fwd = getattr(type(node), "_forward_cls", None)
    if fwd is None or not hasattr(node, "_saved"):
        return []
    names = tuple(fwd.saved_names)
    saved = node._saved
    out = []
    for i, s in enumerate(saved):
        name = names[i] if i < len(names) else f"saved_tensors[{i}]"
        if s is None:
            continue  # nothing was saved under this name (PyTorch's _saved_x is None)
        t = s._tensor
        if t is None and type(s._packed) is _MeterPacked:
            # a SavedTensorsMeter only counts: draw the value as it is
            packed = s._packed
            t = packed.origin() if packed.origin is not None else None
            if t is None:
                t = packed.tensor
        if t is None:
            state = "packed" if s._packed is not None else "freed"
        else:
            vc = t._vc
            state = "modified" if vc is not None and vc[0] != s._version else "alive"
        out.append((name, state, t if state in ("alive", "modified") else None, s._is_output))
    return out


def _attr_entries(node, max_chars):
    fwd = getattr(type(node), "_forward_cls", None)
    if fwd is None:
        return []
    out = []
    for name in fwd.saved_attrs:
        text = repr(getattr(node, name, None))
        if len(text) > max_chars:
            text = text[: max_chars - 3] + "..."
        out.append((name, text))
    return out


class _Graph:
    """What ``draw`` read from the graph, as plain data: no tensor or node is kept.

    Built in one pass: walk the nodes, number the steps in forward order
    (``node._seq``), order the leaves by first use, name everything, decide
    what a large graph shows, and describe each shown step (its inputs, saved
    values and attributes) and each leaf and output.
    """

    def __init__(self, roots, names, marks, show_saved, show_values, show_attrs,
                 max_nodes, keep, max_attr_chars, view=None):
        from .autograd.graph import AccumulateGrad

        self.show_values = show_values
        # a _View: the graph as it was at one step of a recorded walk (None: as it is now)
        self.caption = view.caption if view is not None else None
        self.header = view.header if view is not None else None
        name_pairs = _parse_names(names)
        obj_names = {}  # id(tensor or node) -> name; the objects are alive in `names`
        out_names = {}  # (node, output_nr) -> name of the tensor it produced
        for obj, name in name_pairs:
            obj_names.setdefault(id(obj), name)
            if _is_tensor(obj) and obj._grad_fn is not None:
                out_names.setdefault((obj._grad_fn, obj._output_nr), name)
            elif _is_node(obj) and not isinstance(obj, AccumulateGrad):
                out_names.setdefault((obj, 0), name)

        # --- roots: what was asked for
        start = []
        root_objs = []  # (kind, node, nr, tensor)
        acc_roots = set()  # leaves given as their AccumulateGrad node
        for r in roots:
            if isinstance(r, AccumulateGrad):
                root_objs.append(("leaf", None, 0, r.variable))
                acc_roots.add(id(r.variable))
            elif _is_node(r):
                root_objs.append(("node", r, 0, None))
                start.append(r)
            elif r._grad_fn is not None:
                root_objs.append(("output", r._grad_fn, r._output_nr, r))
                start.append(r._grad_fn)
            else:
                root_objs.append(("leaf" if r._requires_grad else "tensor", None, 0, r))
        nodes, consumers = _walk(start, view.visible if view is not None else None)

        # --- steps in forward order; leaves in order of first use
        steps = sorted((n for n in nodes if not isinstance(n, AccumulateGrad)),
                       key=lambda n: n._seq)
        step_no = {n: k for k, n in enumerate(steps, 1)}
        acc = [n for n in nodes if isinstance(n, AccumulateGrad)]

        def first_use(n):
            return min((step_no[c], i) for c, i in consumers[n])

        acc.sort(key=first_use)
        leaves = [n.variable for n in acc]
        leaf_ids = {id(t) for t in leaves}
        for kind, _n, _nr, t in root_objs:
            if kind in ("leaf", "tensor") and id(t) not in leaf_ids:
                leaf_ids.add(id(t))
                leaves.append(t)
        leaf_key = {id(t): k for k, t in enumerate(leaves)}
        acc_of = {id(n.variable): n for n in acc}
        leaf_names = []
        unnamed = 0
        for t in leaves:
            name = obj_names.get(id(t))
            if name is None and id(t) in acc_of:
                name = obj_names.get(id(acc_of[id(t)]))
            if name is None:
                if t._requires_grad:
                    unnamed += 1
                    name = f"leaf {unnamed}"
                else:
                    name = "tensor"
            leaf_names.append(name)

        # --- names of the roots
        n_out = sum(1 for kind, *_ in root_objs if kind in ("output", "node"))
        self.roots = []
        for i, (kind, node, nr, t) in enumerate(root_objs, 1):
            default = False
            if kind in ("leaf", "tensor"):
                name = leaf_names[leaf_key[id(t)]]
            else:
                name = obj_names.get(id(t)) if t is not None else None
                name = name or out_names.get((node, nr)) or obj_names.get(id(node))
                default = name is None and kind == "output"
                if default:
                    name = "output" if n_out == 1 else f"output {i}"
                if name is not None:
                    out_names.setdefault((node, nr), name)
            self.roots.append({
                "kind": kind, "name": name, "nr": nr, "default_name": default,
                "node_name": _node_name(node) if node is not None else None,
                "step": step_no.get(node) if node is not None else None,
                "shape": _shape_str(t.shape) if t is not None else None,
                "repr": _one_line(repr(t)) if t is not None else None,
                "values": _value_repr(t) if t is not None else None,
                "grad": view.output_grads.get((node, nr)) if view is not None else None,
            })
        self._out_names = out_names
        self._obj_names = obj_names
        self._step_no = step_no
        self._leaf_key = leaf_key
        self._leaf_names = leaf_names

        # --- marks (highlight, and later the steps of a backward walk)
        self.leaf_marks = {}
        step_marks = {}
        marked = []  # marked steps are drawn even in a collapsed graph
        for mark, objs in marks.items():
            for obj in objs:
                if _is_tensor(obj) and obj._grad_fn is not None:
                    obj = obj._grad_fn
                elif _is_tensor(obj) or isinstance(obj, AccumulateGrad):
                    t = obj.variable if isinstance(obj, AccumulateGrad) else obj
                    if id(t) in leaf_key:
                        self.leaf_marks.setdefault(leaf_key[id(t)], set()).add(mark)
                    continue
                if obj in step_no:
                    step_marks.setdefault(step_no[obj], set()).add(mark)
                    if mark not in _SOFT_MARKS:
                        marked.append(obj)

        # --- counts, and which steps a big graph shows
        self.n_nodes = len(nodes)
        self.n_steps = len(steps)
        self.n_leaves = len(acc)
        self.n_constants = sum(1 for n in steps for nxt, _ in n.next_functions if nxt is None)
        self.collapsed = self.n_nodes > max_nodes and self.n_steps > 2 * keep
        if self.collapsed:
            shown = set(steps[:keep]) | set(steps[-keep:])
            shown.update(node for kind, node, *_ in root_objs if kind in ("output", "node"))
            shown.update(marked)
            shown = sorted(shown, key=lambda n: n._seq)
        else:
            shown = steps
        shown_set = set(shown)
        self.n_hidden = self.n_steps - len(shown)

        # leaves drawn: those a shown step uses, and leaves asked for as roots
        used = set()
        for n in shown:
            for nxt, _ in n.next_functions:
                if isinstance(nxt, AccumulateGrad):
                    used.add(leaf_key[id(nxt.variable)])
        for kind, _n, _nr, t in root_objs:
            if kind in ("leaf", "tensor"):
                used.add(leaf_key[id(t)])
        self.shown_leaves = sorted(used)
        self.hidden_leaves = len(leaves) - len(used)

        # the collapsed steps: each run of hidden steps between two drawn ones is a
        # "gap", drawn as one box; edges into and out of a gap go to its box
        shown_nums = [step_no[n] for n in shown]
        self.gaps = []  # (gap index, first step, last step)
        prev = 0
        for i, k in enumerate(shown_nums + [self.n_steps + 1]):
            if k > prev + 1:
                self.gaps.append((i, prev + 1, k - 1))
            prev = k

        def gap_of(n):
            return bisect.bisect_left(shown_nums, step_no[n])

        self._gap_of = gap_of
        self.into_hidden = []  # (source box id, gap index)
        if self.collapsed:
            seen = set()
            for n in steps:
                if n in shown_set:
                    continue
                gap = gap_of(n)
                for nxt, _ in n.next_functions:
                    if nxt is None:
                        continue
                    if isinstance(nxt, AccumulateGrad):
                        k = leaf_key[id(nxt.variable)]
                        src = f"leaf{k + 1}" if k in used else None
                    elif nxt in shown_set:
                        src = f"step{step_no[nxt]}"
                    elif gap_of(nxt) != gap:
                        src = f"more{gap_of(nxt)}"
                    else:
                        src = None
                    if src is not None and (src, gap) not in seen:
                        seen.add((src, gap))
                        self.into_hidden.append((src, gap))

        # --- the shown steps
        self.steps = []
        for n in shown:
            k = step_no[n]
            inputs = []
            for nxt, nr in n.next_functions:
                if nxt is None:
                    inputs.append(("constant", None, "constant"))
                elif isinstance(nxt, AccumulateGrad):
                    lk = leaf_key[id(nxt.variable)]
                    inputs.append(("leaf", lk, leaf_names[lk]))
                else:
                    src = step_no[nxt]
                    gap = None if nxt in shown_set else gap_of(nxt)
                    inputs.append(("step", (src, nr, gap), self._step_ref(nxt, nr)))
            saved = []
            if show_saved:
                entries = view.saved_entries(n) if view is not None else None
                for name, state, t, is_output in (_saved_entries(n) if entries is None
                                                  else entries):
                    ref, shape = self._saved_ref(t, name, is_output)
                    saved.append((name, state, ref, shape))
            roots_here = [r for r in self.roots if r["step"] == k and r["kind"] == "output"]
            # (a step of a recording still names a newest node that is drawn as a root)
            root_names = {r["name"] for r in self.roots
                          if r["step"] == k and (view is None or r["kind"] != "node")}
            named = [nm for (node, _nr), nm in out_names.items()
                     if node is n and nm not in root_names]
            self.steps.append({
                "k": k, "name": _node_name(n), "inputs": inputs, "saved": saved,
                "attrs": _attr_entries(n, max_attr_chars) if show_attrs else [],
                "outputs": roots_here, "named": named, "marks": step_marks.get(k, set()),
                "grads": view.edge_grads.get(n) if view is not None else None,
                "flow": view.flow.get(n) if view is not None else None,
                "rows": view.rows.get(n, []) if view is not None else [],
            })

        self.leaves = []
        for k in self.shown_leaves:
            t = leaves[k]
            self.leaves.append({
                "k": k, "name": leaf_names[k], "shape": _shape_str(t.shape),
                "repr": _one_line(repr(t)), "values": _value_repr(t),
                "requires_grad": t._requires_grad, "marks": self.leaf_marks.get(k, set()),
                "accumulate_grad": id(t) in acc_of or id(t) in acc_roots,
                "grad": view.leaf_grads.get(id(t)) if view is not None else None,
                "rows": (view.rows.get(acc_of[id(t)], []) if view is not None and id(t) in acc_of
                         else []),
            })
        # drop every reference into the graph
        del self._out_names, self._obj_names, self._step_no, self._leaf_key, self._leaf_names
        del self._gap_of

    def _step_ref(self, node, nr):
        name = self._out_names.get((node, nr))
        if name is not None:
            return name
        ref = f"step {self._step_no[node]}"
        return ref if nr == 0 else f"{ref} output {nr}"

    def _saved_ref(self, t, name, is_output):
        """(what a live saved tensor is, its shape); (None, None) once freed."""
        if t is None:
            return None, None
        shape = _shape_str(t.shape)
        if id(t) in self._obj_names:
            return self._obj_names[id(t)], shape
        if t._grad_fn is None and id(t) in self._leaf_key:
            return self._leaf_names[self._leaf_key[id(t)]], shape
        if is_output:
            # the node's own output, saved as a detached alias (PyTorch's is_output)
            return (None if name == "result" else "its output"), shape
        if t._grad_fn is not None and t._grad_fn in self._step_no:
            return self._step_ref(t._grad_fn, t._output_nr), shape
        if t._wrapped:
            return repr(t._data.item()), shape  # a Python number from the code
        if not t._requires_grad:
            return "constant", shape
        return None, shape


# ------------------------------------------------------------------ text form

def _plural(n, word, plural=None):
    return f"{n} {word if n == 1 else (plural or word + 's')}"


def _saved_text(name, state, ref):
    word = _STATE_WORDS[state]
    return f"{name} = {ref} ({word})" if ref else f"{name} ({word})"


def _text(g):
    """The deterministic text form: no addresses or ids, steps in forward order."""
    what = ", ".join(r["name"] or r["node_name"] for r in g.roots)
    of = "behind" if all(r["kind"] == "node" and r["name"] is None for r in g.roots) else "of"
    if g.header is not None:  # a step of a recording says what it shows
        if g.n_steps == 0:
            lines = [f"{g.header}: nothing recorded"]
        else:
            counts = [_plural(g.n_steps, "step"), _plural(g.n_leaves, "leaf", "leaves")]
            if g.n_constants:
                counts.append(_plural(g.n_constants, "constant input"))
            lines = [f"{g.header}: " + ", ".join(counts)]
    elif g.n_steps == 0:
        why = ""
        if all(r["kind"] == "tensor" for r in g.roots):
            why = " (requires_grad=False)"
        lines = [f"recorded graph {of} {what}: nothing recorded{why}"]
    else:
        counts = [_plural(g.n_steps, "step"), _plural(g.n_leaves, "leaf", "leaves")]
        if g.n_constants:
            counts.append(_plural(g.n_constants, "constant input"))
        lines = [f"recorded graph {of} {what}: " + ", ".join(counts)]
    if g.collapsed:
        lines.append(f"  (over a few hundred nodes: {g.n_hidden} steps collapsed)")
    for leaf in g.leaves:
        if g.show_values:
            desc = f"{leaf['name']}: leaf {leaf['repr']}"
        else:
            desc = f"{leaf['name']}: leaf, shape {leaf['shape']}"
        if leaf["grad"] is not None:
            desc += f", .grad = {leaf['grad']}"
        else:
            desc += ", receives .grad" if leaf["requires_grad"] else ", does not require grad"
        if leaf["marks"]:
            desc += "  [" + ", ".join(sorted(leaf["marks"])) + "]"
        lines.append("  " + desc)
    if g.hidden_leaves:
        lines.append(f"  ... {_plural(g.hidden_leaves, 'more leaf', 'more leaves')} "
                     "used only by collapsed steps ...")
    heads, tails = [], []
    for s in g.steps:
        heads.append(f"  {s['k']}. {s['name']}(" + ", ".join(i[2] for i in s["inputs"]) + ")")
        parts = []
        if s["flow"]:
            parts.append(s["flow"])
        if s["saved"]:
            parts.append("saved: " + ", ".join(_saved_text(n, st, ref)
                                               for n, st, ref, _ in s["saved"]))
        if s["attrs"]:
            parts.append("attrs: " + ", ".join(f"{a}={v}" for a, v in s["attrs"]))
        for name in s["named"]:
            parts.append(f"-> {name}")
        for r in s["outputs"]:
            out = "-> " + r["name"] if r["default_name"] else f"-> output {r['name']}"
            out += f" = {r['repr']}" if g.show_values else f", shape {r['shape']}"
            if r["grad"] is not None:
                out += f", seeded with {r['grad']}"
            parts.append(out)
        if s["marks"]:
            parts.append("[" + ", ".join(sorted(s["marks"])) + "]")
        tails.append(parts)
    width = min(max((len(h) for h, t in zip(heads, tails) if t), default=0), 40)
    prev = 0
    for s, head, parts in zip(g.steps, heads, tails):
        if s["k"] > prev + 1:
            lo, hi = prev + 1, s["k"] - 1
            lines.append(f"  ... {_plural(hi - lo + 1, 'more step')} ({lo} to {hi}) ...")
        prev = s["k"]
        lines.append((head.ljust(width) + "  " + "  ".join(parts)) if parts else head)
    if prev < g.n_steps:
        lines.append(f"  ... {_plural(g.n_steps - prev, 'more step')} ({prev + 1} to {g.n_steps}) ...")
    if g.caption is not None:
        lines.insert(0, g.caption)
    return "\n".join(lines)


# ------------------------------------------------------------ Graphviz source

def _q(s):
    """A DOT double-quoted string."""
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _attr_list(d):
    return ", ".join(f"{k}={_q(v)}" for k, v in d.items())


def _html_label(rows):
    """A Graphviz HTML-like label: rows of (text, "title" | "small" | "value" | "plain").

    A "value" (a tensor's printout, possibly several lines) is set in a fixed-width
    font, left-aligned, in a table cell; a label mixing tables and text must
    then be one table, so the other rows become cells too.
    """
    def fmt(text, style):
        t = html.escape(text, quote=False)
        if style == "title":
            return f"<B>{t}</B>"
        if style == "small":
            return f'<FONT POINT-SIZE="{_SMALL}" COLOR="{_MUTED}">{t}</FONT>'
        return t

    if all(style != "value" for _, style in rows):
        return "<" + "<BR/>".join(fmt(text, style) for text, style in rows) + ">"
    cells = []
    for text, style in rows:
        if style == "value":
            lines = text.split("\n")
            if len(lines) > 6:
                lines = lines[:5] + ["..."]
            body = "<BR/>".join(html.escape(ln, quote=False) for ln in lines)
            cells.append(f'<TD BALIGN="LEFT"><FONT POINT-SIZE="9" FACE="Courier">{body}</FONT></TD>')
        else:
            cells.append(f"<TD>{fmt(text, style)}</TD>")
    return ('<<TABLE BORDER="0" CELLBORDER="0" CELLPADDING="0" CELLSPACING="0">'
            + "".join(f"<TR>{c}</TR>" for c in cells) + "</TABLE>>")


def _box_attrs(box):
    """Graphviz attributes of a box: its kind's style, then each of its marks on top."""
    a = dict(_KINDS[box.kind])
    for mark in sorted(box.marks):
        a.update(_MARKS.get(mark, {}))
    return a


def _more_box(g, gap, lo, hi):
    """The box standing for steps ``lo`` to ``hi``, which a collapsed graph does not draw."""
    rows = [(f"... {_plural(hi - lo + 1, 'more step')} ...", "title")]
    if gap == g.gaps[0][0]:
        rows += [(f"this graph has {g.n_steps} steps ({g.n_nodes} nodes):", "small"),
                 ("only the first and last steps are drawn", "small")]
    else:
        rows.append((f"steps {lo} to {hi}", "small"))
    return _Box(f"more{gap}", "more", rows)


def _boxes_and_edges(g):
    """The picture as boxes (``_Box``) and edges ``(from, to, kind, label)``, in a stable order."""
    boxes, edges = [], []
    for leaf in g.leaves:
        rows = [(leaf["name"], "title"), (_shape_row(leaf["shape"]), "small")]
        if g.show_values:
            rows.append((leaf["values"], "value"))
        if leaf["requires_grad"]:
            # in a graph a leaf is its AccumulateGrad node; alone it has no node yet
            rows.append(("leaf: AccumulateGrad" if leaf["accumulate_grad"] else
                         "leaf, requires grad", "small"))
            kind = "leaf"
        else:
            rows.append(("requires no grad", "small"))
            kind = "tensor"
        if leaf["grad"] is not None:
            rows.append((f".grad = {leaf['grad']}", "plain"))
        rows += leaf["rows"]
        boxes.append(_Box(f"leaf{leaf['k'] + 1}", kind, rows, leaf["marks"]))
    gaps = list(g.gaps)
    for s in g.steps:
        k = s["k"]
        while gaps and gaps[0][1] < k:
            boxes.append(_more_box(g, *gaps.pop(0)))
        sid = f"step{k}"
        sub = f"step {k}"
        if s["named"]:
            sub += " \u2192 " + ", ".join(s["named"])
        rows = [(s["name"], "title"), (sub, "small")]
        rows += [(f"{a}={v}", "small") for a, v in s["attrs"]]
        rows += s["rows"]
        boxes.append(_Box(sid, "function", rows, s["marks"]))
        from_more = set()
        grads = s["grads"]
        for j, (kind, ref, _name) in enumerate(s["inputs"]):
            # the gradient this step sent back along the edge, once it has run
            grad = grads[j] if grads is not None and j < len(grads) else None
            if kind == "constant":
                cid = f"const{k}_{j + 1}"
                boxes.append(_Box(cid, "constant", [("constant", "plain"), ("(None, 0)", "plain")]))
                edges.append((cid, sid, "constant", None))
            elif kind == "leaf":
                edges.append((f"leaf{ref + 1}", sid, "data", None) if grad is None else
                             (f"leaf{ref + 1}", sid, "grad", f" {grad}"))
            else:
                src, nr, gap = ref
                if gap is None and grad is not None:
                    label = f" {grad}" + (f"  (output {nr})" if nr else "")
                    edges.append((f"step{src}", sid, "grad", label))
                elif gap is None:
                    edges.append((f"step{src}", sid, "data", f"output {nr}" if nr else None))
                elif gap not in from_more:
                    from_more.add(gap)
                    edges.append((f"more{gap}", sid, "more", None))
        for j, (name, state, ref, shape) in enumerate(s["saved"]):
            vid = f"saved{k}_{j + 1}"
            rows = [(f"{name} = {ref}" if ref else name, "title"),
                    (", ".join(x for x in (shape and _shape_row(shape), _STATE_WORDS[state]) if x),
                     "small")]
            boxes.append(_Box(vid, "saved" if state == "alive" else f"saved_{state}", rows))
            edges.append((vid, sid, "saved_freed" if state in ("freed", "just_freed") else "saved",
                          None))
    for gap in gaps:
        boxes.append(_more_box(g, *gap))
    for src, gap in g.into_hidden:
        edges.append((src, f"more{gap}", "more", None))
    for i, r in enumerate(g.roots, 1):
        if r["kind"] != "output":
            continue
        rows = [(r["name"], "title"), (_shape_row(r["shape"]), "small")]
        if g.show_values:
            rows.append((r["values"], "value"))
        rows.append(("output", "small"))
        oid = f"out{i}"
        boxes.append(_Box(oid, "output", rows))
        if r["grad"] is not None:  # the seed of a backward walk starts here
            label = f" seed {r['grad']}" + (f"  (output {r['nr']})" if r["nr"] else "")
            edges.append((f"step{r['step']}", oid, "grad", label))
        else:
            edges.append((f"step{r['step']}", oid, "output",
                          f"output {r['nr']}" if r["nr"] else None))
    return boxes, edges


def _swatch(kind):
    """A small sample of a kind of box, as an HTML-like table: fill, border, dashes, corners."""
    a = _KINDS[kind]
    styles = a["style"].split(",")
    fill = f' BGCOLOR="{a["fillcolor"]}"' if "filled" in styles else ""
    table_style = ",".join(x for x in styles if x in ("rounded", "dashed"))
    table_style = f' STYLE="{table_style}"' if table_style else ""
    border = "2" if "bold" in styles else "1"
    cell = '<TR><TD BORDER="0"></TD></TR>'
    if a.get("peripheries") == "2":  # a box inside a box
        return (f'<TABLE BORDER="1" COLOR="{a["color"]}" CELLPADDING="1" CELLSPACING="0">'
                f'<TR><TD BORDER="1" COLOR="{a["color"]}"{fill} WIDTH="18" HEIGHT="7" '
                'FIXEDSIZE="TRUE"></TD></TR></TABLE>')
    return (f'<TABLE BORDER="{border}" COLOR="{a["color"]}"{fill}{table_style} CELLPADDING="0" '
            f'CELLSPACING="0" WIDTH="22" HEIGHT="11" FIXEDSIZE="TRUE">{cell}</TABLE>')


def _legend_rows(kinds, marks=(), edge_kinds=()):
    """The legend's rows: a sample of each kind of box drawn and what it means."""
    rows = "".join(
        f'<TR><TD>{_swatch(kind)}</TD><TD ALIGN="LEFT">{html.escape(text, quote=False)}</TD></TR>'
        for kind, text in _LEGEND if kind in kinds
    )
    for mark, text in _MARK_LEGEND:
        if mark in marks:
            rows += (f'<TR><TD>{_mark_swatch(mark)}</TD>'
                     f'<TD ALIGN="LEFT">{html.escape(text, quote=False)}</TD></TR>')
    if "grad" in edge_kinds:
        e = _EDGES["grad"]
        rows += (f'<TR><TD><FONT COLOR="{e["color"]}" POINT-SIZE="12"><B>&#8212;&#8212;</B></FONT>'
                 '</TD><TD ALIGN="LEFT">gradient sent back, with its value</TD></TR>')
    return rows


# marks of a recorded walk that the legend explains, in this order
_MARK_LEGEND = (
    ("current", "running now"),
    ("new", "just recorded"),
    ("walked", "already run"),
)


def _mark_swatch(mark):
    """A sample of a marked operation box: its fill and border."""
    a = dict(_KINDS["function"])
    a.update(_MARKS[mark])
    border = "3" if float(a.get("penwidth", 1)) >= 2.5 else "2"
    return (f'<TABLE BORDER="{border}" COLOR="{a["color"]}" BGCOLOR="{a["fillcolor"]}" '
            'STYLE="rounded" CELLPADDING="0" CELLSPACING="0" WIDTH="22" HEIGHT="11" '
            'FIXEDSIZE="TRUE"><TR><TD BORDER="0"></TD></TR></TABLE>')


def _footer(kinds, marks=(), edge_kinds=()):
    """The graph's label, under the picture: the legend.

    A graph label takes no part in the layout's ranks, so the legend never
    pushes the graph's boxes apart.
    """
    if not kinds:
        return None
    return (f'<<FONT POINT-SIZE="{_SMALL}"><TABLE BORDER="1" COLOR="#BBBBBB" STYLE="rounded" '
            'CELLBORDER="0" CELLSPACING="2" CELLPADDING="1">'
            f'<TR><TD COLSPAN="2" ALIGN="LEFT"><FONT COLOR="{_MUTED}">legend</FONT></TD></TR>'
            f"{_legend_rows(kinds, marks, edge_kinds)}</TABLE></FONT>>")


_CAPTION_SIZE = 13


def _caption_label(caption):
    """A recorded step's caption, above the picture: bold, wrapped at about 90 characters."""
    import textwrap

    lines = textwrap.wrap(caption, 90, break_long_words=False, break_on_hyphens=False) or [""]
    body = '<BR ALIGN="LEFT"/>'.join(html.escape(ln, quote=False) for ln in lines)
    return (f'<<FONT POINT-SIZE="{_CAPTION_SIZE}"><B>{body}</B>'
            + ('<BR ALIGN="LEFT"/>' if len(lines) > 1 else "") + "</FONT>>")


def _source(g, legend, dpi=None):
    """The Graphviz DOT source of the picture: deterministic, no addresses or ids."""
    boxes, edges = _boxes_and_edges(g)
    graph_attrs = dict(_GRAPH_ATTRS)
    if dpi is not None:
        graph_attrs["dpi"] = str(dpi)
    # a graph without steps is one box that says what it is: no legend needed
    kinds = {b.kind for b in boxes} if legend and g.n_steps else set()
    marks = set().union(*(b.marks for b in boxes)) if kinds else set()
    edge_kinds = {e[2] for e in edges} if kinds else set()
    footer = _footer(kinds, marks, edge_kinds)
    lines = ["digraph autograd {",
             f"  graph [{_attr_list(graph_attrs)}];",
             f"  node [{_attr_list(_NODE_DEFAULTS)}];",
             f"  edge [{_attr_list(_EDGE_DEFAULTS)}];"]
    if footer:
        lines.append(f'  graph [label={footer}, labelloc="b", labeljust="l"];')
    indent = "  "
    if g.caption is not None:
        # the caption of a recorded step: the label of a borderless cluster holding every box,
        # so it sits on top while the legend stays the graph's label underneath
        lines.append("  subgraph cluster_step {")
        lines.append(f'    graph [label={_caption_label(g.caption)}, labelloc="t", '
                     'labeljust="l", peripheries="0"];')
        indent = "    "
    for b in boxes:
        lines.append(f"{indent}{b.id} [label={_html_label(b.rows)}, {_attr_list(_box_attrs(b))}];")
    if g.caption is not None:
        lines.append("  }")
    for src, dst, kind, label in edges:
        a = dict(_EDGES[kind])
        if label:
            a["label"] = label
        lines.append(f"  {src} -> {dst}" + (f" [{_attr_list(a)}]" if a else "") + ";")
    lines.append("}")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ rendering

def _render(source, fmt):
    """Run ``dot -T<fmt>`` on ``source`` through the graphviz package; bytes.

    Raises:
        GraphvizMissingError: no ``graphviz`` package, or no ``dot`` on PATH.
    """
    try:
        import graphviz
    except ImportError:
        raise GraphvizMissingError(_NO_PACKAGE + _INSTALL) from None
    try:
        return graphviz.Source(source).pipe(format=fmt)
    except graphviz.ExecutableNotFound:
        raise GraphvizMissingError(_NO_DOT + _INSTALL) from None


def _png_size(png):
    """(width, height) in pixels, from the PNG's IHDR chunk."""
    return struct.unpack(">II", png[16:24])


class GraphPicture:
    """A picture of a recorded graph, as returned by ``draw``; shows itself in Jupyter.

    Holds only strings: the text form and the Graphviz source, made when
    ``draw`` was called (a snapshot: draw again after ``backward()`` to see the
    saved values freed).  The SVG and PNG are rendered by Graphviz's ``dot``
    on first request and cached.

    Attributes:
        text (str): the deterministic plain-text form (also ``repr(picture)``
            and the ``text/plain`` that nbval compares): the leaves, then one
            line per recorded step in forward order (oldest first), with its
            inputs, its saved values and their state, and the output.
        source (str): the Graphviz DOT source of the picture.

    In Jupyter, ``_repr_mimebundle_`` gives ``image/svg+xml``, ``image/png``
    (so the picture shows even in a notebook that is not trusted yet, as a
    freshly cloned one is) and ``text/plain``.  Without Graphviz it gives
    ``text/plain`` only: the text form followed by the message of
    ``GraphvizMissingError`` saying how to install it, so the cell still shows
    the graph, and one clear note instead of a traceback.

    Source: the object torchviz's ``make_dot`` returns (a ``graphviz.Digraph``),
    reduced to what a lesson needs.
    """

    def __init__(self, text, source, png_source):
        self.text = text
        self.source = source
        self._png_source = png_source
        self._svg = None
        self._png = None

    def svg(self):
        """The picture as SVG text (deterministic for one graph on one machine).

        Returns:
            str: an SVG document, as ``dot -Tsvg`` writes it.

        Raises:
            GraphvizMissingError: the ``graphviz`` package or the ``dot`` program is missing.
        """
        if self._svg is None:
            self._svg = _render(self.source, "svg").decode("utf-8")
        return self._svg

    def png(self):
        """The picture as PNG bytes, at 144 dpi (twice Graphviz's 72 points per inch).

        Returns:
            bytes: a PNG file (starts with ``b"\\x89PNG"``).

        Raises:
            GraphvizMissingError: the ``graphviz`` package or the ``dot`` program is missing.
        """
        if self._png is None:
            self._png = _render(self._png_source, "png")
        return self._png

    def save(self, filename):
        """Write the picture to ``filename``: ``.svg``, ``.png``, ``.dot``/``.gv`` or ``.txt``.

        Returns:
            str: ``filename``.

        Raises:
            ValueError: for another extension.
            GraphvizMissingError: for ``.svg`` or ``.png`` without Graphviz.
        """
        name = str(filename)
        ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
        if ext == "png":
            data = self.png()
        elif ext == "svg":
            data = self.svg().encode("utf-8")
        elif ext in ("dot", "gv"):
            data = self.source.encode("utf-8")
        elif ext == "txt":
            data = (self.text + "\n").encode("utf-8")
        else:
            raise ValueError(f"save() writes .svg, .png, .dot, .gv or .txt, not {name!r}")
        with open(name, "wb") as f:
            f.write(data)
        return filename

    def _repr_mimebundle_(self, include=None, exclude=None):
        """Jupyter's display hook: ``({mimetype: data}, {mimetype: metadata})``."""
        data = {"text/plain": self.text}
        metadata = {}
        try:
            svg, png = self.svg(), self.png()
        except GraphvizMissingError as err:
            data["text/plain"] = f"{self.text}\n\n(no picture: {err})"
        else:
            import base64

            data["image/svg+xml"] = svg
            data["image/png"] = base64.b64encode(png).decode("ascii")
            w, h = _png_size(png)
            scale = 96 / _PNG_DPI  # CSS pixels per PNG pixel: same size as the SVG
            metadata["image/png"] = {"width": round(w * scale), "height": round(h * scale)}
        if include:
            data = {k: v for k, v in data.items() if k in include}
        if exclude:
            data = {k: v for k, v in data.items() if k not in exclude}
        metadata = {k: v for k, v in metadata.items() if k in data}
        return data, metadata

    def __repr__(self):
        return self.text


# ------------------------------------------------------------------------ API

def draw(tensor_or_node, show_saved=True, show_values=False, highlight=None, *, names=None,
         show_attrs=False, legend=True, max_nodes=300, collapse_keep=10, max_attr_chars=50):
    """Draw the graph recorded behind a tensor, torchviz style; returns a ``GraphPicture``.

    Walks back from ``tensor.grad_fn`` through ``next_functions`` without
    recursion and snapshots what it finds: operations (``grad_fn`` nodes with
    PyTorch's names, numbered in forward order), leaves that receive ``.grad``
    (their ``AccumulateGrad`` node, drawn as the leaf), the output, constant
    inputs (``(None, 0)`` in ``next_functions``) and the values each node
    saved for backward, in their current state (alive, freed by a backward
    without ``retain_graph=True``, modified in place, or packed by a hook).
    Everything is keyed by node identity, so two saved values that share memory
    (``x * x`` saves ``self`` and ``other``, both ``x``) are two boxes.

    Args:
        tensor_or_node: a Tensor (its ``grad_fn`` and everything behind it; a
            leaf gives a one-box picture), a graph Node (e.g. ``z.grad_fn``),
            or a list or tuple of them (several outputs in one picture).  Also
            a step of a recorded walk (``record_backward(z)[1]``,
            ``record_forward(f, x)[0]``, ``steps.start``): the graph as it was
            at that step (see ``record_backward``); or a recording: its last step.
        show_saved (bool): draw the saved values (orange boxes) and list them
            in the text.
        show_values (bool): add the values (``tensor(3.)``) to the leaves and
            outputs, in the picture and the text; otherwise their shapes.
        highlight: a Node or Tensor (its ``grad_fn``; for a leaf, the leaf),
            or a collection of them, drawn with a thick border and marked
            ``[highlight]`` in the text.
        names (dict | None): labels for the learner's variables, either
            ``{"x": x, "y": y}`` or ``{x: "x", y: "y"}``; tensors or nodes.
            Unnamed leaves are ``leaf 1``, ``leaf 2``, ... in order of first
            use, the output is ``output``, other steps ``step n``.
        show_attrs (bool): also show each node's non-tensor saved values
            (``saved_attrs``: ``exponent``, ``self_sym_sizes``, ...), as
            torchviz's ``show_attrs``.
        legend (bool): add a small legend of the kinds of box drawn.
        max_nodes (int): above this many graph nodes, draw collapsed: the
            first and last ``collapse_keep`` steps and one "... k more steps
            ..." box, with a note (the text form is shortened the same way).
        collapse_keep (int): steps kept at each end of a collapsed graph.
        max_attr_chars (int): longest attribute value shown with ``show_attrs``.

    Returns:
        GraphPicture: ``.text``, ``.source``, ``.svg()``, ``.png()``,
        ``.save(filename)``; Jupyter displays it as a picture.

    Raises:
        TypeError: ``tensor_or_node`` is not a Tensor or Node (or a list of
            them), or ``names`` is not a mapping of names to tensors.

    ``draw`` itself never needs Graphviz: it is imported only when a picture
    is rendered, which raises ``GraphvizMissingError`` (a ``RuntimeError``)
    with installation instructions if the package or ``dot`` is missing.

    Source: torchviz's ``make_dot(var, params, show_attrs, show_saved)``
    (torchviz/dot.py), over PyTorch's ``grad_fn`` / ``next_functions`` graph.
    """
    from .jit.draw import static_picture

    # a static graph (minigrad.jit's or PyTorch's jit.trace) is drawn forwards: minigrad/jit/draw.py
    picture = static_picture(tensor_or_node)
    if picture is not None:
        return picture
    if isinstance(tensor_or_node, (_Step, _Recording)):
        # a step of a recorded walk (or a recording: its last step), drawn as the graph was then
        return tensor_or_node.draw(show_saved=show_saved, show_values=show_values,
                                   highlight=highlight, names=names, show_attrs=show_attrs,
                                   legend=legend, max_nodes=max_nodes,
                                   collapse_keep=collapse_keep, max_attr_chars=max_attr_chars)
    marks = {}
    if highlight is not None:
        marks["highlight"] = _as_list(highlight)
    return _draw_marked(tensor_or_node, marks, show_saved=show_saved, show_values=show_values,
                        names=names, show_attrs=show_attrs, legend=legend, max_nodes=max_nodes,
                        collapse_keep=collapse_keep, max_attr_chars=max_attr_chars)


def _as_list(objs):
    if _is_tensor(objs) or _is_node(objs):
        return [objs]
    return list(objs)


def _draw_marked(tensor_or_node, marks, *, show_saved=True, show_values=False, names=None,
                 show_attrs=False, legend=True, max_nodes=300, collapse_keep=10,
                 max_attr_chars=50, view=None):
    """``draw`` with any marks: ``{mark: [nodes or tensors]}``, each mark a key of ``_MARKS``.

    The hook for pictures of a backward walk (current node, walked path):
    add a style to ``_MARKS`` and pass the nodes here.
    """
    for mark in marks:
        if mark not in _MARKS:
            raise ValueError(f"unknown mark {mark!r}; known: {sorted(_MARKS)}")
    g = _Graph(_roots_of(tensor_or_node), names, marks, show_saved, show_values, show_attrs,
               max_nodes, collapse_keep, max_attr_chars, view=view)
    return GraphPicture(_text(g), _source(g, legend), _source(g, legend, dpi=_PNG_DPI))


# ============================================================ recorded walks
#
# record_backward(z) runs z.backward() with a pre-hook and a post hook on every
# node of the graph, and keeps what each node received, sent and freed;
# record_forward(fn, x) runs fn(x) and numbers the nodes it created by their
# sequence numbers (the order they were recorded).  A step of either draws the
# graph as it was then: draw(step).

_SHOW_ELEMENTS = 8  # gradients with more elements are described by their shape


def _fmt_value(t):
    """A tensor's values as PyTorch prints them, on one line, without ``tensor(...)``.

    ``3.``, ``[1., 2.]``, ``[[1., 2.], [3., 4.]]``; ``None`` for None; a
    tensor of more than 8 elements as ``a (3, 4) tensor``.
    """
    if t is None:
        return "None"
    if isinstance(t, tuple):
        return "(" + ", ".join(_fmt_value(v) for v in t) + ")"
    from ._tensor_str import _body

    a = t._data
    if a.size > _SHOW_ELEMENTS:
        return f"a {_shape_str(a.shape)} tensor"
    if a.size == 0:
        return "[]"
    import re

    text = " ".join(line.strip() for line in _body(a, 0).split("\n"))
    return re.sub(r" {2,}", " ", text.replace("[ ", "[").replace("[ ", "["))


def _and_list(items):
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _copy(t):
    return None if t is None else t.detach()._copy()


def _grad_of(name):
    return f"{name}.grad" if name.isidentifier() else f"({name}).grad"


class _SavedStub:
    """What a picture needs of a saved tensor that no longer exists (freed since).

    Quacks like the tensor for ``_Graph._saved_ref``: its shape, where it came
    from (``_grad_fn``, ``_output_nr``), whether it was a Python number.
    """

    __slots__ = ("_data", "_grad_fn", "_output_nr", "_requires_grad", "_wrapped", "shape")

    def __init__(self, t):
        self.shape = tuple(t.shape)
        self._grad_fn = t._grad_fn
        self._output_nr = t._output_nr
        self._wrapped = t._wrapped
        self._requires_grad = t._requires_grad
        self._data = t._data.copy() if t._wrapped else None


class _SavedRecord:
    """One saved value of one node, as it was when a walk was recorded."""

    __slots__ = ("is_output", "key", "name", "nbytes", "ref", "state", "stub")

    def __init__(self, name, state, t, is_output):
        self.name = name
        self.state = state
        self.is_output = is_output
        self.ref = weakref.ref(t) if t is not None else None
        self.stub = _SavedStub(t) if t is not None else None
        self.key, self.nbytes = _buffer_of(t._data) if t is not None else (None, 0)

    def tensor(self):
        t = self.ref() if self.ref is not None else None
        return t if t is not None else self.stub


def _snapshot_saved(nodes):
    """``{node: [_SavedRecord, ...]}``: every saved value of ``nodes`` and its state now."""
    return {n: [_SavedRecord(*e) for e in _saved_entries(n)] for n in nodes}


class _Naming:
    """Names for the nodes of a graph, by the rules ``draw`` uses.

    Steps are numbered in forward order (``node._seq``); a leaf is named by
    ``names`` or ``leaf 1``, ``leaf 2``, ... in order of first use; a step's
    output by ``names``.
    """

    def __init__(self, nodes, consumers, name_pairs):
        from .autograd.graph import AccumulateGrad

        obj_names = {}
        self.out_names = {}
        for obj, name in name_pairs:
            obj_names.setdefault(id(obj), name)
            if _is_tensor(obj) and obj._grad_fn is not None:
                self.out_names.setdefault((obj._grad_fn, obj._output_nr), name)
            elif _is_node(obj) and not isinstance(obj, AccumulateGrad):
                self.out_names.setdefault((obj, 0), name)
        steps = sorted((n for n in nodes if not isinstance(n, AccumulateGrad)),
                       key=lambda n: n._seq)
        self.step_no = {n: k for k, n in enumerate(steps, 1)}
        acc = [n for n in nodes if isinstance(n, AccumulateGrad)]
        acc.sort(key=lambda n: min((self.step_no.get(c, 0), i) for c, i in consumers.get(n, [(None, 0)])))
        self.leaf_name = {}
        unnamed = 0
        for n in acc:
            name = obj_names.get(id(n.variable)) or obj_names.get(id(n))
            if name is None:
                unnamed += 1
                name = f"leaf {unnamed}"
            self.leaf_name[n] = name
        counts = {}
        for n in steps:
            counts[_node_name(n)] = counts.get(_node_name(n), 0) + 1
        self._repeated = {name for name, c in counts.items() if c > 1}

    def ref(self, node, nr=0):
        """How a step's input is called in the text: ``x``, ``y``, ``step 2``, ``constant``."""
        from .autograd.graph import AccumulateGrad

        if node is None:
            return "constant"
        if isinstance(node, AccumulateGrad):
            return self.leaf_name.get(node, "leaf")
        name = self.out_names.get((node, nr))
        if name is not None:
            return name
        k = self.step_no.get(node)
        ref = f"step {k}" if k is not None else "an earlier step"
        return ref if nr == 0 else f"{ref} output {nr}"

    def label(self, node):
        """The node's name, with its step number when several nodes share the name."""
        name = _node_name(node)
        if name in self._repeated:
            return f"{name} (step {self.step_no[node]})"
        return name


class _View:
    """The graph as it was at one step of a recorded walk: what ``_Graph`` overrides.

    ``visible``: the nodes that existed (None: all); ``saved``: each node's saved
    values and their states then; ``edge_grads``: per node, the gradient it sent
    along each ``next_functions`` edge (text, or None); ``output_grads``: the
    seeds, per ``(node, output_nr)``; ``flow``: per node, the text-form note of
    what it received and sent; ``rows``: extra label rows per node
    (``AccumulateGrad`` for its leaf); ``leaf_grads``: ``.grad`` per ``id(leaf)``;
    ``caption``: the step's sentence; ``header``: replaces "recorded graph of z".
    """

    __slots__ = ("caption", "edge_grads", "flow", "header", "leaf_grads", "output_grads", "rows",
                 "saved", "visible")

    def __init__(self, caption=None, header=None, visible=None):
        self.caption = caption
        self.header = header
        self.visible = visible
        self.saved = {}
        self.edge_grads = {}
        self.output_grads = {}
        self.flow = {}
        self.rows = {}
        self.leaf_grads = {}

    def saved_entries(self, node):
        return self.saved.get(node)


def _merge_names(base_pairs, names):
    """``{object: name}`` from the recording's names, then ``names`` given to draw (they win)."""
    out = {}
    for obj, name in _parse_names(names) + list(base_pairs):
        if obj not in out:
            out[obj] = name
    return out or None


class _Step:
    """Base of ``BackwardStep`` and ``ForwardStep``: a numbered state of a recording."""

    __slots__ = ("_data", "index")

    def draw(self, show_saved=True, show_values=False, highlight=None, *, names=None,
             show_attrs=False, legend=True, max_nodes=300, collapse_keep=10, max_attr_chars=50,
             caption=True):
        """The graph as it was at this step, as a ``GraphPicture`` (also ``viz.draw(step)``).

        Takes ``draw``'s arguments; ``names`` adds to the recording's names.
        ``caption=False`` leaves the step's sentence out of the picture and its text.
        """
        return self._data.draw(self.index, show_saved=show_saved, show_values=show_values,
                               highlight=highlight, names=names, show_attrs=show_attrs,
                               legend=legend, max_nodes=max_nodes, collapse_keep=collapse_keep,
                               max_attr_chars=max_attr_chars, caption=caption)

    @property
    def caption(self):
        """The line a picture of this step starts with: where in the walk it is, and its text."""
        return self._data.caption(self.index)

    def __repr__(self):
        return self.caption


class _Recording:
    """Base of ``BackwardRecording`` and ``ForwardRecording``: a sequence of steps."""

    __slots__ = ("_data", "_steps")

    def __len__(self):
        return len(self._steps)

    def __getitem__(self, i):
        return self._steps[i]

    def __iter__(self):
        return iter(self._steps)

    def state(self, i):
        """State ``i`` of ``0 .. len(self)``: 0 is before the first step, ``i`` after step ``i``.

        Returns the step (``self[i - 1]``), or for 0 the starting state (``self.start``).
        """
        if not 0 <= i <= len(self._steps):
            raise IndexError(f"state {i} out of range: 0 (the start) to {len(self._steps)}")
        return self._steps[i - 1] if i else self.start

    @property
    def start(self):
        """The state before the first step (index 0): draw it to see the starting point."""
        return self._make_step(0)

    def draw(self, i=None, **kwargs):
        """Draw state ``i`` (default: the last): ``self.state(i).draw(**kwargs)``."""
        return self.state(len(self._steps) if i is None else i).draw(**kwargs)

    @property
    def texts(self):
        """The one-line text of every step, in order."""
        return [s.text for s in self._steps]

    def __repr__(self):
        return self.text


# ------------------------------------------------------------ backward walk

class _Raw:
    """What the hooks saw of one node while the walk ran (no reference to any step object)."""

    __slots__ = ("bytes_after", "freed", "grad_after", "grad_before", "incoming", "kept", "node",
                 "ran", "received", "sent")

    def __init__(self, node, received):
        self.node = node
        self.received = received
        self.sent = None
        self.ran = False
        self.grad_before = self.grad_after = None
        self.freed = self.kept = ()
        self.incoming = ()
        self.bytes_after = 0


class _BackwardData:
    """Everything a backward recording knows; shared by its steps (no cycles)."""

    def __init__(self, outputs, seeds, nodes, consumers, name_pairs, retain_graph):
        from .autograd.graph import AccumulateGrad

        self.outputs = outputs
        self.seeds = seeds
        self.nodes = nodes
        self.name_pairs = name_pairs
        self.naming = _Naming(nodes, consumers, name_pairs)
        self.snapshot = _snapshot_saved(nodes)
        self.retain_graph = retain_graph
        self.grads_before = {n: _copy(n.variable._grad) for n in nodes
                             if isinstance(n, AccumulateGrad)}
        self.raw = []
        self.texts = []
        # saved bytes: each buffer once, counted while any saved value over it is alive
        self._buffers = {}
        self.bytes_start = 0
        for records in self.snapshot.values():
            for r in records:
                if r.state in ("alive", "modified") and r.key is not None:
                    entry = self._buffers.setdefault(r.key, [0, r.nbytes])
                    if entry[0] == 0:
                        self.bytes_start += r.nbytes
                    entry[0] += 1
        self.bytes_now = self.bytes_start

    # --- while the walk runs

    def finish(self, raw):
        """Read what a node freed: called once the engine has released its saved values."""
        from .autograd.graph import AccumulateGrad

        now = _saved_entries(raw.node)
        before = self.snapshot.get(raw.node, [])
        freed, kept = [], []
        for rec, (name, state, _t, _o) in zip(before, now):
            if rec.state in ("alive", "modified", "packed") and state == "freed":
                freed.append(name)
                entry = self._buffers.get(rec.key)
                if entry is not None and rec.state != "packed":
                    entry[0] -= 1
                    if entry[0] == 0:
                        self.bytes_now -= entry[1]
            elif state != "freed":
                kept.append(name)
        raw.freed, raw.kept = tuple(freed), tuple(kept)
        raw.bytes_after = self.bytes_now
        if isinstance(raw.node, AccumulateGrad):
            raw.grad_after = _copy(raw.node.variable._grad)

    def finalize(self):
        """After the walk: who sent what to whom, and the text of each step."""
        incoming = {}
        for t, seed in zip(self.outputs, self.seeds):
            node = t._grad_fn if t._grad_fn is not None else t._accumulator()
            incoming.setdefault(node, []).append((0, t._output_nr, seed))
        for i, raw in enumerate(self.raw, 1):
            raw.incoming = tuple(incoming.get(raw.node, ()))
            if raw.sent is not None:
                for (nxt, nr), g in zip(raw.node.next_functions, raw.sent):
                    if nxt is not None and g is not None:
                        incoming.setdefault(nxt, []).append((i, nr, g))
        self.texts = [self._text(raw) for raw in self.raw]

    # --- text

    def _received_text(self, raw):
        rec = raw.received
        if len(rec) != 1:
            return _fmt_value(tuple(rec))
        got = rec[0]
        parts = [g for _i, nr, g in raw.incoming if nr == 0]
        if got is not None and 2 <= len(parts) <= 4 and all(
                p._data.size <= _SHOW_ELEMENTS and p._data.shape == got._data.shape
                for p in parts):
            total = parts[0]._data
            for p in parts[1:]:
                total = total + p._data
            if np.allclose(total, got._data):
                return " + ".join(_fmt_value(p) for p in parts) + " = " + _fmt_value(got)
        if got is not None and len(parts) > 1:
            total = parts[0]._data
            for p in parts[1:]:
                total = total + p._data
            if total.shape == got._data.shape and np.allclose(total, got._data):
                return f"{_fmt_value(got)} (the sum of {len(parts)} gradients)"
        if got is not None and parts and not (
                len(parts) == 1 and parts[0]._data.shape == got._data.shape
                and np.allclose(parts[0]._data, got._data)):
            # a hook on the tensor (register_hook) changed what arrived
            sent = " + ".join(_fmt_value(p) for p in parts[:4]) + (" + ..." if len(parts) > 4
                                                                      else "")
            return f"{_fmt_value(got)} (a hook changed {sent})"
        return _fmt_value(got)

    def _text(self, raw):
        from .autograd.graph import AccumulateGrad

        node = raw.node
        received = self._received_text(raw)
        if isinstance(node, AccumulateGrad):
            grad = _grad_of(self.naming.leaf_name.get(node, "leaf"))
            text = f"AccumulateGrad received {received}, "
            if not raw.ran:
                text += f"{grad} unchanged"
            elif raw.grad_before is None:
                text += f"set {grad} to {_fmt_value(raw.grad_after)}"
            else:
                text += (f"added it to {grad}: {_fmt_value(raw.grad_before)} -> "
                         f"{_fmt_value(raw.grad_after)}")
        else:
            text = f"{self.naming.label(node)} received {received}"
            if raw.ran:
                text += ", sent " + _and_list(_fmt_value(g) for g in raw.sent)
            else:
                text += ", so it did not run"
        if raw.freed:
            text += ", freed " + _and_list(raw.freed)
        if raw.kept and self.retain_graph and raw.ran:
            text += ", kept " + _and_list(raw.kept) + " (retain_graph=True)"
        return text

    def output_names(self):
        """The outputs as the pictures name them: their names, or ``output``, ``output 2``..."""
        out = []
        for i, t in enumerate(self.outputs, 1):
            if t._grad_fn is None:
                out.append(self.naming.ref(t._accumulator()))
                continue
            name = self.naming.out_names.get((t._grad_fn, t._output_nr))
            out.append(name or ("output" if len(self.outputs) == 1 else f"output {i}"))
        return out

    def start_text(self):
        outs = _and_list(self.output_names())
        seeds = _and_list(_fmt_value(s) for s in self.seeds)
        return f"before the walk: backward() starts at {outs} with gradient {seeds}"

    def caption(self, i):
        if i == 0:
            return self.start_text()
        return f"backward {i} of {len(self.raw)}: {self.texts[i - 1]}"

    # --- pictures

    def view(self, i, caption=True):
        from .autograd.graph import AccumulateGrad

        n = len(self.raw)
        view = _View(caption=self.caption(i) if caption else None)
        done = self.raw[:i]
        freed_by = {}
        for k, raw in enumerate(done, 1):
            for name in raw.freed:
                freed_by[(raw.node, name)] = k
        for node, records in self.snapshot.items():
            entries = []
            for r in records:
                k = freed_by.get((node, r.name))
                if k is not None:
                    entries.append((r.name, "just_freed" if k == i else "freed", None, r.is_output))
                elif r.state in ("alive", "modified"):
                    entries.append((r.name, r.state, r.tensor(), r.is_output))
                else:
                    entries.append((r.name, r.state, None, r.is_output))
            view.saved[node] = entries
        for t, seed in zip(self.outputs, self.seeds):
            if t._grad_fn is not None:
                view.output_grads[(t._grad_fn, t._output_nr)] = _fmt_value(seed)
        for node, g in self.grads_before.items():
            view.leaf_grads[id(node.variable)] = _fmt_value(g)
        for k, raw in enumerate(done, 1):
            node = raw.node
            now = k == i
            status = (f"running now: backward {k} of {n}" if now else f"done: backward {k} of {n}")
            got = self._received_text(raw)
            if isinstance(node, AccumulateGrad):
                if raw.ran:
                    view.leaf_grads[id(node.variable)] = _fmt_value(raw.grad_after)
                view.rows[node] = [(f"received {got}", "plain" if now else "small"),
                                   (status, "small")]
                continue
            sent = None
            if raw.sent is not None:
                sent = tuple(None if nxt is None or g is None else _fmt_value(g)
                             for (nxt, _nr), g in zip(node.next_functions, raw.sent))
                view.edge_grads[node] = sent
            view.flow[node] = f"received {got}" + (
                ", sent " + _and_list(_fmt_value(g) for g in raw.sent) if raw.sent is not None
                else ", did not run")
            view.rows[node] = [(f"received {got}", "plain" if now else "small"), (status, "small")]
        return view

    def draw(self, i, *, highlight=None, names=None, caption=True, **kwargs):
        marks = {}
        if i:
            marks["current"] = [self.raw[i - 1].node]
            if i > 1:
                marks["walked"] = [raw.node for raw in self.raw[: i - 1]]
        if highlight is not None:
            marks["highlight"] = _as_list(highlight)
        return _draw_marked(self.outputs if len(self.outputs) > 1 else self.outputs[0], marks,
                            names=_merge_names(self.name_pairs, names),
                            view=self.view(i, caption), **kwargs)


class GradUpdate(tuple):
    """``(name, before, after)``: how a leaf's ``.grad`` changed at an ``AccumulateGrad`` step."""

    __slots__ = ()

    def __new__(cls, name, before, after):
        return tuple.__new__(cls, (name, before, after))

    name = property(lambda self: self[0], doc="the leaf's name in the recording")
    before = property(lambda self: self[1], doc="a copy of .grad before (None if unset)")
    after = property(lambda self: self[2], doc="a copy of .grad after")

    def __repr__(self):
        return (f"GradUpdate({self.name}: {_fmt_value(self.before)} -> "
                f"{_fmt_value(self.after)})")


class BackwardStep(_Step):
    """One node run by the backward walk, as ``record_backward`` saw it.

    Attributes:
        index (int): 1 for the first node run (0 for ``recording.start``, before the walk).
        node (Node | None): the node (``z.grad_fn``, ..., a leaf's ``AccumulateGrad``).
        name (str): its name: ``MulBackward0``, ``AccumulateGrad`` (not PyTorch's
            ``torch::autograd::AccumulateGrad``).
        label (str): the name, with ``(step k)`` (its forward step) when several
            nodes of the graph share the name.
        received (Tensor | None | tuple): the gradient that arrived, summed
            over all the node's consumers (a copy); a tuple for a node with
            several outputs.
        received_from (tuple): ``(step index, output_nr, gradient)`` for each
            contribution to that sum, in the order they arrived (index 0: the
            seed given to ``backward``).
        sent (tuple | None): the gradient sent along each ``next_functions``
            entry (a copy; None for a constant, ``(None, 0)``); None if the node
            did not run (it received only None); ``()`` for ``AccumulateGrad``.
        grad_updates (tuple[GradUpdate]): for ``AccumulateGrad``, the leaf's
            ``.grad`` before and after.
        freed (tuple[str]): the names of the saved values freed right after the node ran.
        kept (tuple[str]): saved values still held after it (``retain_graph=True``).
        saved_bytes (int): bytes still held by the graph's saved values after this step.
        text (str): one line, e.g. ``MulBackward0 received 1., sent 3. and 3.,
            freed self and other``.
        caption (str): ``backward 2 of 3: `` followed by ``text``.
    """

    __slots__ = ()

    def __init__(self, data, index):
        self._data = data
        self.index = index

    def _raw(self):
        return self._data.raw[self.index - 1] if self.index else None

    @property
    def node(self):
        raw = self._raw()
        return raw.node if raw is not None else None

    @property
    def name(self):
        raw = self._raw()
        return _node_name(raw.node) if raw is not None else "start"

    @property
    def label(self):
        raw = self._raw()
        if raw is None:
            return "start"
        from .autograd.graph import AccumulateGrad

        if isinstance(raw.node, AccumulateGrad):
            return "AccumulateGrad"
        return self._data.naming.label(raw.node)

    @property
    def received(self):
        raw = self._raw()
        if raw is None:
            return None
        return raw.received[0] if len(raw.received) == 1 else tuple(raw.received)

    @property
    def received_from(self):
        raw = self._raw()
        return raw.incoming if raw is not None else ()

    @property
    def sent(self):
        raw = self._raw()
        if raw is None:
            return None
        if raw.sent is None:
            return None
        return tuple(None if nxt is None else g
                     for (nxt, _nr), g in zip(raw.node.next_functions, raw.sent))

    @property
    def sent_to(self):
        """Where each entry of ``sent`` went: ``x``, ``step 1``, ``constant``, ..."""
        raw = self._raw()
        if raw is None:
            return ()
        return tuple(self._data.naming.ref(nxt, nr) for nxt, nr in raw.node.next_functions)

    @property
    def ran(self):
        """Whether the node ran (False when all it received was None)."""
        raw = self._raw()
        return raw.ran if raw is not None else False

    @property
    def grad_updates(self):
        raw = self._raw()
        from .autograd.graph import AccumulateGrad

        if raw is None or not isinstance(raw.node, AccumulateGrad) or not raw.ran:
            return ()
        name = self._data.naming.leaf_name.get(raw.node, "leaf")
        return (GradUpdate(name, raw.grad_before, raw.grad_after),)

    @property
    def freed(self):
        raw = self._raw()
        return raw.freed if raw is not None else ()

    @property
    def kept(self):
        raw = self._raw()
        return raw.kept if raw is not None else ()

    @property
    def saved_bytes(self):
        raw = self._raw()
        return raw.bytes_after if raw is not None else self._data.bytes_start

    @property
    def text(self):
        return self._data.texts[self.index - 1] if self.index else self._data.start_text()


class BackwardRecording(_Recording):
    """The steps of one backward walk, in the order the engine ran the nodes.

    A sequence of ``BackwardStep`` (``len``, ``[i]``, iteration; ``rec[0]``
    is the first node run, its ``index`` is 1), plus:

    Attributes:
        start: the state before the walk (``index`` 0): draw it to see where it starts.
        text (str): a header and one numbered line per step (also the repr).
        names (list[str]): the node names in walk order (``AccumulateGrad`` for leaves).
        saved_bytes (list[int]): bytes held by the graph's saved values before
            the walk and after each step (``len(rec) + 1`` numbers), for
            ``minigrad.memory.plot_saved_bytes``.

    ``rec.draw(i)`` (or ``viz.draw(rec.state(i))``) draws the graph at state
    ``i``: 0 before the walk, ``i`` right after the ``i``-th node ran.

    The recording keeps the graph's nodes (not the values the walk freed) and
    the outputs alive; drop it to let them go.
    """

    __slots__ = ()

    def __init__(self, data):
        self._data = data
        self._steps = [BackwardStep(data, i) for i in range(1, len(data.raw) + 1)]

    def _make_step(self, i):
        return BackwardStep(self._data, i)

    @property
    def names(self):
        return [s.name for s in self._steps]

    @property
    def saved_bytes(self):
        return [self._data.bytes_start] + [raw.bytes_after for raw in self._data.raw]

    @property
    def text(self):
        d = self._data
        outs = _and_list(d.output_names())
        seeds = _and_list(_fmt_value(s) for s in d.seeds)
        lines = [f"backward walk from {outs} (seeded with {seeds}): "
                 f"{_plural(len(self._steps), 'step')}"]
        lines += [f"  {i}. {text}" for i, text in enumerate(d.texts, 1)]
        return "\n".join(lines)


def _seeds_for(outputs, gradient):
    """The seed gradient of each output, as ``backward`` will use it (for the text)."""
    from .tensor import Tensor, ones_like, tensor

    if gradient is None:
        grads = [None] * len(outputs)
    elif isinstance(gradient, (list, tuple)) and len(outputs) > 1:
        grads = list(gradient)
    else:
        grads = [gradient]
    seeds = []
    for t, g in zip(outputs, grads):
        if g is None:
            seeds.append(ones_like(t.detach()) if t.numel() == 1 else None)
        elif isinstance(g, Tensor):
            seeds.append(_copy(g))
        else:
            seeds.append(tensor(g, dtype=t.dtype))
    return seeds


def record_backward(output, gradient=None, retain_graph=None, create_graph=False, *, names=None):
    """Run ``output.backward()`` and record each step of the walk; returns a ``BackwardRecording``.

    The walk is the real one (``.grad`` accumulates, saved values are freed
    unless ``retain_graph=True``): before it starts, every node of the graph
    gets a pre-hook (``node.register_prehook``: what arrived, already summed
    over consumers) and a post hook (``node.register_hook``: what it sent on);
    what each node freed is read from its saved values once the engine has
    released them, and ``.grad`` before and after from the leaf.  The hooks
    are removed afterwards, also when backward raises.

    Args:
        output (Tensor | sequence of Tensor): what to call backward on.
        gradient: the seed, as for ``Tensor.backward`` (default: 1 for a one-element output).
        retain_graph (bool | None): as for ``backward``; with True nothing is freed.
        create_graph (bool): as for ``backward``.
        names (dict | None): labels for the learner's variables, as for
            ``draw`` (``{"x": x, "z": z}``); used in the step texts and pictures.

    Returns:
        BackwardRecording: the steps in the order the nodes ran; ``rec[i].text``
        is one line such as ``MulBackward0 received 1., sent 3. and 3., freed
        self and other``; ``draw(rec[i])`` draws the graph at that step: the node
        running (yellow, thick border, "running now"), the nodes already run
        (thick blue border, "done"), the gradients sent so far on the edges
        (vermillion, with their values), the saved values freed so far (the one
        just freed with a thick vermillion dashed border) and each leaf's ``.grad``.

    Raises:
        whatever ``backward`` raises (PyTorch's errors: nothing to walk, a
        freed graph, a non-scalar output without ``gradient``).

    Example::

        x = minigrad.tensor(3., requires_grad=True)
        y = x * x
        z = y + 1
        steps = record_backward(z, names={"x": x, "y": y, "z": z})
        steps.names   # ['AddBackward0', 'MulBackward0', 'AccumulateGrad']
        steps[2].text # 'AccumulateGrad received 3. + 3. = 6., set x.grad to 6.'

    Source: the observation points PyTorch offers on ``torch.autograd.graph.Node``
    (``register_prehook``, ``register_hook``); the order is the engine's
    (minigrad/autograd/engine.py: highest sequence number first among ready nodes).
    """
    from .autograd import backward as _backward
    from .autograd.graph import AccumulateGrad

    outputs = list(output) if isinstance(output, (list, tuple)) else [output]
    for t in outputs:
        if not _is_tensor(t):
            raise TypeError(f"record_backward() expects Tensors, got {type(t).__name__}")
    starts = []
    for t in outputs:
        if t._grad_fn is not None:
            starts.append(t._grad_fn)
        elif t._requires_grad:
            starts.append(t._accumulator())
    nodes, consumers = _walk(starts)
    if retain_graph is None:
        retain_graph = create_graph
    data = _BackwardData(outputs, _seeds_for(outputs, gradient) if len(starts) == len(outputs)
                         else [], nodes, consumers, _parse_names(names), retain_graph)
    current = []  # the step in progress: finished when the next one starts, or at the end

    def finish_current():
        if current:
            data.finish(current.pop())

    def make_pre(node):
        def pre(grads):
            finish_current()
            raw = _Raw(node, tuple(_copy(g) for g in grads))
            if isinstance(node, AccumulateGrad):
                raw.grad_before = _copy(node.variable._grad)
            data.raw.append(raw)
            current.append(raw)

        pre._runs_last = True  # after the learner's own hooks: see what the node really gets
        return pre

    def make_post(node):
        def post(grad_inputs, grad_outputs):
            raw = current[-1] if current else None
            if raw is not None and raw.node is node:
                raw.ran = True
                raw.sent = tuple(None if nxt is None else _copy(g)
                                 for (nxt, _nr), g in zip(node.next_functions, grad_inputs))
                raw.sent += (None,) * (len(node.next_functions) - len(raw.sent))

        return post

    handles = []
    try:
        for node in nodes:
            handles.append(node.register_prehook(make_pre(node)))
            handles.append(node.register_hook(make_post(node)))
        _backward(outputs if len(outputs) > 1 else outputs[0], gradient, retain_graph,
                  create_graph)
    finally:
        for h in handles:
            h.remove()
        finish_current()
    data.finalize()
    return BackwardRecording(data)


# ------------------------------------------------------------- forward recording

class _ForwardData:
    """Everything a forward recording knows; shared by its steps."""

    def __init__(self, fn_name, inputs, input_names, result, outputs, new, old, nodes, consumers,
                 name_pairs):
        self.fn_name = fn_name
        self.inputs = inputs
        self.input_names = input_names
        self.result = result
        self.outputs = outputs
        self.new = new  # nodes fn recorded, oldest first
        self.old = old  # nodes that existed before fn ran (the inputs' history)
        self.name_pairs = name_pairs
        self.naming = _Naming(nodes, consumers, name_pairs)
        self.snapshot = _snapshot_saved(list(old) + list(new))
        self.texts = [self._text(k) for k in range(1, len(new) + 1)]

    def _text(self, k):
        node = self.new[k - 1]
        args = ", ".join(self.naming.ref(nxt, nr) for nxt, nr in node.next_functions)
        saved = [r.name for r in self.snapshot.get(node, [])]
        saves = "saves " + _and_list(saved) if saved else "saves nothing"
        return f"step {self.naming.step_no[node]}: {_node_name(node)}({args}) recorded, {saves}"

    def start_text(self):
        if not self.inputs:
            return "step 0: nothing recorded yet"
        return f"step 0: nothing recorded yet; inputs {_and_list(self.input_names)}"

    def caption(self, k):
        if k == 0:
            return self.start_text()
        return f"{self.texts[k - 1]}  ({k} of {len(self.new)})"

    def view(self, k, caption=True, mark_new=True, leaf_grads=None):
        visible = set(self.old) | set(self.new[:k])
        if isinstance(caption, str):
            text = caption
        else:
            text = self.caption(k) if caption else None
        view = _View(caption=text, header="recorded so far", visible=visible)
        if leaf_grads:
            view.leaf_grads.update(leaf_grads)
        for node, records in self.snapshot.items():
            if node in visible:
                view.saved[node] = [(r.name, r.state, r.tensor() if r.state in ("alive", "modified")
                                     else None, r.is_output) for r in records]
        if k and mark_new:
            view.rows[self.new[k - 1]] = [("just recorded", "small")]
        return view

    def roots(self, k):
        """What to draw from at step ``k``: the outputs at the end, else the newest nodes."""
        if k == len(self.new):
            roots = [t for t in self.outputs]
        else:
            visible = list(self.old) + list(self.new[:k])
            used = set()
            for n in visible:
                for nxt, _nr in n.next_functions:
                    used.add(nxt)
            roots = [n for n in visible if n not in used]
        from .autograd.graph import AccumulateGrad

        starts = [r._grad_fn if _is_tensor(r) else r for r in roots
                  if not _is_tensor(r) or r._grad_fn is not None]
        nodes, _ = _walk(starts, set(self.old) | set(self.new[:k]))
        drawn_leaves = {id(n.variable) for n in nodes if isinstance(n, AccumulateGrad)}
        drawn_leaves.update(id(r) for r in roots if _is_tensor(r) and r._grad_fn is None)
        for t in self.inputs:  # inputs not used yet are drawn on their own
            if _is_tensor(t) and t._grad_fn is None and id(t) not in drawn_leaves:
                drawn_leaves.add(id(t))
                roots.append(t)
        return roots

    def draw(self, k, *, highlight=None, names=None, caption=True, mark_new=True, leaf_grads=None,
             **kwargs):
        marks = {"new": [self.new[k - 1]]} if k and mark_new else {}
        if highlight is not None:
            marks["highlight"] = _as_list(highlight)
        roots = self.roots(k)
        if not roots:
            roots = [t for t in self.outputs] or list(self.inputs)
        return _draw_marked(roots, marks, names=_merge_names(self.name_pairs, names),
                            view=self.view(k, caption, mark_new, leaf_grads), **kwargs)


class ForwardStep(_Step):
    """One node recorded by the forward pass, as ``record_forward`` saw it.

    Attributes:
        index (int): 1 for the first node recorded (0 for ``recording.start``:
            the inputs, nothing recorded yet); also its ``step`` number in ``draw``.
        node (Node | None): the node recorded (the ``grad_fn`` of that op's result).
        name (str): its name, e.g. ``MulBackward0``.
        inputs (tuple[str]): what it points back at, one per ``next_functions``
            entry: an input's name, ``step 1``, a named intermediate, ``constant``.
        saved (tuple[str]): the names of the values it saved for backward.
        text (str): one line: ``step 2: AddBackward0(y, constant) recorded, saves nothing``.
    """

    __slots__ = ()

    def __init__(self, data, index):
        self._data = data
        self.index = index

    @property
    def node(self):
        return self._data.new[self.index - 1] if self.index else None

    @property
    def name(self):
        return _node_name(self.node) if self.index else "start"

    @property
    def inputs(self):
        if not self.index:
            return ()
        return tuple(self._data.naming.ref(nxt, nr) for nxt, nr in self.node.next_functions)

    @property
    def saved(self):
        if not self.index:
            return ()
        return tuple(r.name for r in self._data.snapshot.get(self.node, []))

    @property
    def text(self):
        return self._data.texts[self.index - 1] if self.index else self._data.start_text()


class ForwardRecording(_Recording):
    """The nodes a function recorded, in the order it recorded them (``record_forward``).

    A sequence of ``ForwardStep`` (``rec[0]`` is the first node recorded, its
    ``index`` is 1), plus:

    Attributes:
        start: the state before the first operation (``index`` 0): the inputs alone.
        result: what the function returned.
        outputs (list[Tensor]): the tensors in ``result``.
        inputs (list[Tensor]): the inputs it was called with.
        tape (list[str]): the node names in the order recorded.
        text (str): a header and one line per step (also the repr).

    ``rec.draw(k)`` draws the recording as it was after ``k`` operations (later
    nodes not drawn yet; the newest in yellow, "just recorded").  The
    recording keeps the result, and so its graph, alive.
    """

    __slots__ = ()

    def __init__(self, data):
        self._data = data
        self._steps = [ForwardStep(data, k) for k in range(1, len(data.new) + 1)]

    def _make_step(self, i):
        return ForwardStep(self._data, i)

    @property
    def result(self):
        return self._data.result

    @property
    def outputs(self):
        return list(self._data.outputs)

    @property
    def inputs(self):
        return list(self._data.inputs)

    @property
    def names(self):
        """``{name: tensor}``: the inputs' and the function's local tensors' names."""
        return {name: obj for obj, name in self._data.name_pairs}

    @property
    def tape(self):
        return [s.name for s in self._steps]

    @property
    def text(self):
        d = self._data
        lines = [f"forward recording of {d.fn_name}({', '.join(d.input_names)}): "
                 f"{_plural(len(self._steps), 'step')}"]
        lines += [f"  {t}" for t in d.texts]
        return "\n".join(lines)


def _call_capturing_locals(fn, args, kwargs):
    """Call ``fn`` and return ``(result, its local variables when it returned)``.

    A profile function (``sys.setprofile``) sees the ``return`` event of
    ``fn``'s own frame and copies its locals: that is how ``y`` and ``z``
    in ``def f(x): y = x * x; z = y + 1; return z`` get their names.
    """
    code = getattr(fn, "__code__", None)
    captured = {}
    if code is None:
        return fn(*args, **kwargs), captured
    prev = sys.getprofile()

    def profile(frame, event, arg):
        if event == "return" and frame.f_code is code:
            captured.clear()
            captured.update(frame.f_locals)
        if prev is not None:
            prev(frame, event, arg)

    sys.setprofile(profile)
    try:
        result = fn(*args, **kwargs)
    finally:
        sys.setprofile(prev)
    return result, captured


def record_forward(fn, *inputs, names=None, **kwinputs):
    """Run ``fn(*inputs)`` and record the graph as it grows; returns a ``ForwardRecording``.

    Numbers among the inputs become leaves that require grad
    (``minigrad.tensor(3.)`` with ``requires_grad=True``); tensors are used as
    given.  Each node ``fn`` records gets a sequence number when created, so
    after ``fn`` has run the nodes of its result's graph, sorted by that number,
    are the order of recording: step ``k`` is the graph restricted to the first
    ``k`` of them.  Only nodes the result depends on are seen (a computation
    whose result is thrown away leaves no graph).

    Names: the inputs are named after ``fn``'s parameters, and any tensor that
    is a local variable of ``fn`` when it returns after that variable (``y``
    in ``y = x * x``); ``names`` adds or overrides (``{"x": x}``).

    Args:
        fn: a function of tensors, returning a Tensor (or a tuple or list of them).
        *inputs: its positional arguments; **kwinputs: its keyword arguments.
        names (dict | None): extra labels, as for ``draw``.

    Returns:
        ForwardRecording: ``rec[k].text`` such as ``step 2: AddBackward0(y,
        constant) recorded, saves nothing``; ``draw(rec[k])`` the graph after
        ``k`` operations; ``rec.result`` what ``fn`` returned.

    Example::

        def f(x):
            y = x * x
            z = y + 1
            return z
        rec = record_forward(f, 3.0)
        rec.tape       # ['MulBackward0', 'AddBackward0']
        rec[1].text    # 'step 2: AddBackward0(y, constant) recorded, saves nothing'
    """
    return _record_forward(fn, inputs, kwinputs, names)


def _record_forward(fn, inputs, kwinputs, names):
    import inspect

    from .autograd.graph import AccumulateGrad, Node
    from .tensor import Tensor, tensor

    def as_input(v):
        if isinstance(v, Tensor):
            return v
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return tensor(float(v), requires_grad=True)
        return v

    args = [as_input(v) for v in inputs]
    kwargs = {k: as_input(v) for k, v in kwinputs.items()}
    # names of the inputs: fn's parameter names
    pairs = []
    try:
        bound = inspect.signature(fn).bind_partial(*args, **kwargs)
        for pname, value in bound.arguments.items():
            if isinstance(value, Tensor):
                pairs.append((value, pname))
    except (TypeError, ValueError):
        pass
    marker = Node()  # its sequence number: every node created after it is fn's
    result, local_vars = _call_capturing_locals(fn, args, kwargs)
    for lname, value in local_vars.items():
        if isinstance(value, Tensor) and not lname.startswith("_"):
            pairs.append((value, lname))
    # explicit names win
    name_pairs = []
    seen = set()
    for obj, name in _parse_names(names) + pairs:
        if id(obj) not in seen:
            seen.add(id(obj))
            name_pairs.append((obj, name))
    if isinstance(result, Tensor):
        outputs = [result]
    elif isinstance(result, (list, tuple)):
        outputs = [r for r in result if isinstance(r, Tensor)]
    else:
        outputs = []
    starts = [t._grad_fn for t in outputs if t._grad_fn is not None]
    nodes, consumers = _walk(starts)
    steps = sorted((n for n in nodes if not isinstance(n, AccumulateGrad)), key=lambda n: n._seq)
    new = [n for n in steps if n._seq > marker._seq]
    old = [n for n in steps if n._seq < marker._seq]
    all_inputs = args + list(kwargs.values())
    input_names = []
    lookup = {id(o): nm for o, nm in name_pairs}
    unnamed = 0
    for t in all_inputs:
        if isinstance(t, Tensor):
            nm = lookup.get(id(t))
            if nm is None:
                unnamed += 1
                nm = f"input {unnamed}"
            input_names.append(nm)
    fn_name = getattr(fn, "__name__", "fn")
    if fn_name == "<lambda>":
        fn_name = "lambda"
    data = _ForwardData(fn_name, [t for t in all_inputs if isinstance(t, Tensor)], input_names,
                        result, outputs, new, old, nodes, consumers, name_pairs)
    return ForwardRecording(data)
