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

Source: torchviz's ``make_dot`` (github.com/szagoruyko/pytorchviz,
torchviz/dot.py: grey function nodes, light-blue leaves, green output, orange
saved tensors joined by a dashed edge) over PyTorch's ``grad_fn`` /
``next_functions`` graph (``torch.autograd.graph.Node``).
"""

import bisect
import html
import struct

__all__ = ["GraphPicture", "GraphvizMissingError", "draw"]

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
    "constant": {"shape": "box", "style": "rounded,dashed", "color": "#999999",
                 "fontcolor": "#666666", "fontsize": "9", "margin": "0.06,0.02",
                 "height": "0.2"},
    "more": {"shape": "box", "style": "filled,dashed", "fillcolor": "#FBF8D5",  # yellow tint
             "color": "#666666", "fontcolor": "#333333"},
}
_MARKS = {
    "highlight": {"penwidth": "3", "color": OKABE_ITO["black"]},
}
_EDGES = {  # heavier data edges keep the chain of operations straight
    "data": {"weight": "4"},
    "saved": {"style": "dashed", "dir": "none", "color": "#9A6A00"},
    "saved_freed": {"style": "dashed", "dir": "none", "color": "#AAAAAA"},
    "constant": {"style": "dashed", "color": "#999999"},
    "output": {"color": "#006B4F", "weight": "4"},
    "more": {"style": "dashed", "weight": "4"},
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
}
_LEGEND = (  # (kind, text), in this order, each only when drawn
    ("leaf", "leaf: gets .grad"),
    ("function", "operation (grad_fn)"),
    ("output", "output"),
    ("tensor", "records nothing"),
    ("saved", "saved, alive"),
    ("saved_packed", "saved, packed by hook"),
    ("saved_modified", "saved, modified in place"),
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


def _walk(start):
    """Every node reachable from ``start`` through ``next_functions``, without recursion.

    Returns ``(nodes, consumers)``: ``nodes`` in discovery order; ``consumers``
    maps a node to the ``(consumer, edge index)`` pairs that point at it.
    Nodes are keyed by identity (``Node`` has no ``__eq__``), and this list
    keeps them alive while drawing.
    """
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
                 max_nodes, keep, max_attr_chars):
        from .autograd.graph import AccumulateGrad

        self.show_values = show_values
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
        nodes, consumers = _walk(start)

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
                for name, state, t, is_output in _saved_entries(n):
                    ref, shape = self._saved_ref(t, name, is_output)
                    saved.append((name, state, ref, shape))
            roots_here = [r for r in self.roots if r["step"] == k and r["kind"] == "output"]
            root_names = {r["name"] for r in self.roots if r["step"] == k}
            named = [nm for (node, _nr), nm in out_names.items()
                     if node is n and nm not in root_names]
            self.steps.append({
                "k": k, "name": _node_name(n), "inputs": inputs, "saved": saved,
                "attrs": _attr_entries(n, max_attr_chars) if show_attrs else [],
                "outputs": roots_here, "named": named, "marks": step_marks.get(k, set()),
            })

        self.leaves = []
        for k in self.shown_leaves:
            t = leaves[k]
            self.leaves.append({
                "k": k, "name": leaf_names[k], "shape": _shape_str(t.shape),
                "repr": _one_line(repr(t)), "values": _value_repr(t),
                "requires_grad": t._requires_grad, "marks": self.leaf_marks.get(k, set()),
                "accumulate_grad": id(t) in acc_of or id(t) in acc_roots,
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
    if g.n_steps == 0:
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
        boxes.append(_Box(sid, "function", rows, s["marks"]))
        from_more = set()
        for j, (kind, ref, _name) in enumerate(s["inputs"]):
            if kind == "constant":
                cid = f"const{k}_{j + 1}"
                boxes.append(_Box(cid, "constant", [("constant", "plain"), ("(None, 0)", "plain")]))
                edges.append((cid, sid, "constant", None))
            elif kind == "leaf":
                edges.append((f"leaf{ref + 1}", sid, "data", None))
            else:
                src, nr, gap = ref
                if gap is None:
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
            edges.append((vid, sid, "saved_freed" if state == "freed" else "saved", None))
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
        edges.append((f"step{r['step']}", oid, "output", f"output {r['nr']}" if r["nr"] else None))
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


def _legend_rows(kinds):
    """The legend's rows: a sample of each kind of box drawn and what it means."""
    return "".join(
        f'<TR><TD>{_swatch(kind)}</TD><TD ALIGN="LEFT">{html.escape(text, quote=False)}</TD></TR>'
        for kind, text in _LEGEND if kind in kinds
    )


def _footer(kinds):
    """The graph's label, under the picture: the legend.

    A graph label takes no part in the layout's ranks, so the legend never
    pushes the graph's boxes apart.
    """
    if not kinds:
        return None
    return (f'<<FONT POINT-SIZE="{_SMALL}"><TABLE BORDER="1" COLOR="#BBBBBB" STYLE="rounded" '
            'CELLBORDER="0" CELLSPACING="2" CELLPADDING="1">'
            f'<TR><TD COLSPAN="2" ALIGN="LEFT"><FONT COLOR="{_MUTED}">legend</FONT></TD></TR>'
            f"{_legend_rows(kinds)}</TABLE></FONT>>")


def _source(g, legend, dpi=None):
    """The Graphviz DOT source of the picture: deterministic, no addresses or ids."""
    boxes, edges = _boxes_and_edges(g)
    graph_attrs = dict(_GRAPH_ATTRS)
    if dpi is not None:
        graph_attrs["dpi"] = str(dpi)
    # a graph without steps is one box that says what it is: no legend needed
    footer = _footer({b.kind for b in boxes}) if legend and g.n_steps else None
    lines = ["digraph autograd {",
             f"  graph [{_attr_list(graph_attrs)}];",
             f"  node [{_attr_list(_NODE_DEFAULTS)}];",
             f"  edge [{_attr_list(_EDGE_DEFAULTS)}];"]
    if footer:
        lines.append(f'  graph [label={footer}, labelloc="b", labeljust="l"];')
    for b in boxes:
        lines.append(f"  {b.id} [label={_html_label(b.rows)}, {_attr_list(_box_attrs(b))}];")
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
            or a list or tuple of them (several outputs in one picture).
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
                 max_attr_chars=50):
    """``draw`` with any marks: ``{mark: [nodes or tensors]}``, each mark a key of ``_MARKS``.

    The hook for pictures of a backward walk (current node, walked path):
    add a style to ``_MARKS`` and pass the nodes here.
    """
    for mark in marks:
        if mark not in _MARKS:
            raise ValueError(f"unknown mark {mark!r}; known: {sorted(_MARKS)}")
    g = _Graph(_roots_of(tensor_or_node), names, marks, show_saved, show_values, show_attrs,
               max_nodes, collapse_keep, max_attr_chars)
    return GraphPicture(_text(g), _source(g, legend), _source(g, legend, dpi=_PNG_DPI))
