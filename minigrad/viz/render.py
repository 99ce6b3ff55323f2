"""Graphviz rendering and the legend: the picture language, and ``GraphPicture``.

The picture language (the same in every picture a lesson shows):

* a **leaf** (a tensor you made that requires grad; the graph reaches it
  through its ``AccumulateGrad`` node): a square box, light blue, its name,
  shape and, once known, ``.grad``;
* an **operation** (a ``grad_fn`` node, e.g. ``MulBackward0``): a grey box with
  rounded corners, numbered ``step 1``, ``step 2``, ... in recording order;
* the **output**: a green box with a double border;
* a **saved value** (what a step keeps for its backward: ``self`` and
  ``other`` are the step's inputs, ``result`` its output): a page with a
  folded corner joined to its step by a dashed line; orange and solid while
  alive, white with a dashed border and the word "freed" once freed;
* a **constant** (an input that needs no gradient: ``(None, 0)`` in
  ``next_functions``): an oval with a dotted border, its value (``2``) when the
  step kept it, with ``(None, 0)`` under it;
* **arrows**: thin grey arrows are the recording, from an input to the step
  that used it (``next_functions`` point the other way, from a step back to
  its inputs); in pictures of the backward walk, thick vermillion arrows are
  the gradients, from a step back to its input, labelled with the value they
  carry.  A named tensor (``names={"y": y}``) labels the arrow it leaves by.

Shape, border and label carry every distinction, so the picture reads in grey
scale too; colours come from the Okabe-Ito palette (safe for colour-blind
readers).  A small legend under each picture lists the kinds drawn.

Rendering needs the ``graphviz`` Python package and Graphviz's ``dot``;
both are looked for only when a picture is asked for.  ``import minigrad``
never imports ``graphviz``; the text form and the DOT source work without it.

Source: torchviz's ``make_dot`` (github.com/szagoruyko/pytorchviz,
torchviz/dot.py), whose boxes this follows, with arrows that say which way
what they show travels.
"""

import html
import struct
import textwrap

from .text import STATE_WORDS, text_of
from .values import plural

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
# common colour-vision deficiency.  Fills are light tints so black text stays readable.
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
FONT = "Helvetica"  # fontconfig maps it to a metric-compatible font (Liberation Sans here)
SMALL = 9  # point size of the secondary lines of a label
MUTED = "#555555"
RECORDING = "#8C8C8C"  # the recording's edges: thin and grey
GRADIENT = OKABE_ITO["vermillion"]

# Graphviz attributes of each kind of box; the marks of a box (``MARKS``) go on top.
KINDS = {
    "function": {"shape": "box", "style": "rounded,filled", "fillcolor": _FILL["function"],
                 "color": "#666666"},
    "leaf": {"shape": "box", "style": "filled", "fillcolor": _FILL["leaf"],
             "color": OKABE_ITO["blue"]},
    "output": {"shape": "box", "style": "filled", "fillcolor": _FILL["output"],
               "color": "#006B4F", "peripheries": "2"},
    "tensor": {"shape": "box", "style": "filled", "fillcolor": _FILL["white"], "color": "#666666"},
    "named": {"shape": "box", "style": "rounded,dashed", "color": RECORDING, "fontsize": "10",
              "margin": "0.06,0.02", "height": "0.2"},
    "saved": {"shape": "note", "style": "filled", "fillcolor": _FILL["saved"], "color": "#9A6A00",
              "fontsize": "10"},
    "saved_freed": {"shape": "note", "style": "dashed", "color": "#888888",
                    "fontcolor": "#666666", "fontsize": "10"},
    "saved_modified": {"shape": "note", "style": "filled,bold", "fillcolor": _FILL["modified"],
                       "color": OKABE_ITO["vermillion"], "fontsize": "10"},
    "saved_packed": {"shape": "note", "style": "filled,dashed", "fillcolor": _FILL["saved"],
                     "color": "#9A6A00", "fontsize": "10"},
    # freed by the step of a backward walk being shown: the freed page, vermillion and thick
    "saved_just_freed": {"shape": "note", "style": "dashed,bold", "color": OKABE_ITO["vermillion"],
                         "fontcolor": "#333333", "fontsize": "10", "penwidth": "2"},
    "constant": {"shape": "ellipse", "style": "dotted", "color": "#777777",
                 "fontcolor": "#444444", "fontsize": "10", "margin": "0.04,0.02",
                 "height": "0.3", "penwidth": "1.5"},
    # a constant the step kept for its backward, still alive: the saved value's orange
    "constant_saved": {"shape": "ellipse", "style": "dotted,filled", "fillcolor": _FILL["saved"],
                       "color": "#9A6A00", "fontsize": "10", "margin": "0.04,0.02",
                       "height": "0.3", "penwidth": "1.5"},
    "more": {"shape": "box", "style": "filled,dashed", "fillcolor": "#FBF8D5",  # yellow tint
             "color": "#666666", "fontcolor": "#333333"},
}
MARKS = {
    "highlight": {"penwidth": "3", "color": OKABE_ITO["black"]},
    # the node a step of a backward walk runs (or a forward step records): yellow, thick black
    "current": {"penwidth": "3", "color": OKABE_ITO["black"], "fillcolor": OKABE_ITO["yellow"]},
    "new": {"penwidth": "3", "color": OKABE_ITO["black"], "fillcolor": OKABE_ITO["yellow"]},
    # nodes the walk has already run: a thick blue border and a "done" row
    "walked": {"penwidth": "2.5", "color": OKABE_ITO["blue"]},
}
EDGES = {  # heavier data edges keep the chain of operations straight
    "data": {"weight": "4", "color": RECORDING, "penwidth": "1"},
    "saved": {"style": "dashed", "dir": "none", "color": "#9A6A00"},
    "saved_freed": {"style": "dashed", "dir": "none", "color": "#AAAAAA"},
    "constant": {"style": "dotted", "color": RECORDING, "penwidth": "1.2"},
    "output": {"color": RECORDING, "weight": "4"},
    "more": {"style": "dashed", "weight": "4", "color": RECORDING},
    # a gradient the backward walk sent: from the step back to its input (the arrowhead at
    # the input: dir=back keeps the layout of the recording edge it replaces)
    "grad": {"color": GRADIENT, "penwidth": "2.5", "weight": "4", "dir": "back",
             "arrowsize": "0.9"},
}
GRAPH_ATTRS = {
    "rankdir": "TB",
    "bgcolor": "white",  # readable on JupyterLab's dark theme too
    "pad": "0.15",
    "nodesep": "0.3",
    "ranksep": "0.35",
    "fontname": FONT,
    "fontsize": "10",
    "ordering": "in",  # an operation's inputs left to right in next_functions order
}
_NODE_DEFAULTS = {"fontname": FONT, "fontsize": "11", "height": "0.3",
                  "margin": "0.1,0.04", "penwidth": "1"}
_EDGE_DEFAULTS = {"fontname": FONT, "fontsize": "9", "arrowsize": "0.7", "color": "#444444"}
PNG_DPI = 144  # twice Graphviz's 72 points per inch: crisp on high-density screens

_LEGEND = (  # (kind, text), in this order, each only when drawn
    ("leaf", "leaf: a tensor you made, gets .grad"),
    ("function", "operation (grad_fn), numbered in recording order"),
    ("output", "output"),
    ("tensor", "tensor, records nothing"),
    ("named", "a named tensor a step produced"),
    ("saved", "saved for backward, alive (self/other: the step's inputs, result: its output)"),
    ("saved_packed", "saved, packed by a saved_tensors_hooks hook"),
    ("saved_modified", "saved, modified in place since (backward would fail)"),
    ("saved_just_freed", "saved, freed just now"),
    ("saved_freed", "saved, freed"),
    ("constant_saved", "constant input (None, 0), kept for backward"),
    ("constant", "constant input: (None, 0) in next_functions"),
    ("more", "steps not drawn"),
)
# marks of a recorded walk that the legend explains, in this order
_MARK_LEGEND = (
    ("current", "running now"),
    ("new", "just recorded"),
    ("walked", "already run"),
)


class Box:
    """One box of the picture: a dot id, a kind (see ``KINDS``), label rows, marks."""

    __slots__ = ("id", "kind", "marks", "rows")

    def __init__(self, id, kind, rows, marks=()):
        self.id = id
        self.kind = kind
        self.rows = rows  # list of (text, "title" | "small" | "value" | "plain")
        self.marks = set(marks)


# ------------------------------------------------------------ Graphviz source

def _q(s):
    """A DOT double-quoted string."""
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _attr_list(d):
    return ", ".join(f"{k}={_q(v)}" if not str(v).startswith("<") else f"{k}={v}"
                     for k, v in d.items())


def _esc(text):
    return html.escape(text, quote=False)


def html_label(rows):
    """A Graphviz HTML-like label: rows of (text, "title" | "small" | "value" | "plain").

    A "value" (a tensor's printout, possibly several lines) is set in a fixed-width
    font, left-aligned, in a table cell; a label mixing tables and text must
    then be one table, so the other rows become cells too.
    """
    def fmt(text, style):
        t = _esc(text)
        if style == "title":
            return f"<B>{t}</B>"
        if style == "small":
            return f'<FONT POINT-SIZE="{SMALL}" COLOR="{MUTED}">{t}</FONT>'
        return t

    if all(style != "value" for _, style in rows):
        return "<" + "<BR/>".join(fmt(text, style) for text, style in rows) + ">"
    cells = []
    for text, style in rows:
        if style == "value":
            lines = text.split("\n")
            if len(lines) > 6:
                lines = lines[:5] + ["..."]
            body = "<BR/>".join(_esc(ln) for ln in lines)
            cells.append(f'<TD BALIGN="LEFT"><FONT POINT-SIZE="9" FACE="Courier">{body}</FONT></TD>')
        else:
            cells.append(f"<TD>{fmt(text, style)}</TD>")
    return ('<<TABLE BORDER="0" CELLBORDER="0" CELLPADDING="0" CELLSPACING="0">'
            + "".join(f"<TR>{c}</TR>" for c in cells) + "</TABLE>>")


def _edge_label(name, value, seed=False):
    """An edge's label: the named tensor leaving by it, and the gradient it carries."""
    parts = []
    if name:
        parts.append(f'<FONT COLOR="{MUTED}">{_esc(name)}</FONT>')
    if value is not None:
        word = "seed " if seed else ""
        parts.append(f'<FONT COLOR="#A04000" POINT-SIZE="10"><B>{word}{_esc(value)}</B></FONT>')
    if not parts:
        return None
    return "< " + "<BR/> ".join(parts) + " >"


def _box_attrs(box):
    """Graphviz attributes of a box: its kind's style, then each of its marks on top."""
    a = dict(KINDS[box.kind])
    for mark in sorted(box.marks):
        a.update(MARKS.get(mark, {}))
    return a


def _more_box(g, gap, lo, hi):
    """The box standing for steps ``lo`` to ``hi``, which a collapsed graph does not draw."""
    rows = [(f"... {plural(hi - lo + 1, 'more step')} ...", "title")]
    if gap == g.gaps[0][0]:
        rows += [(f"this graph has {g.n_steps} steps ({g.n_nodes} nodes):", "small"),
                 ("only the first and last steps are drawn", "small")]
    else:
        rows.append((f"steps {lo} to {hi}", "small"))
    return Box(f"more{gap}", "more", rows)


def _constant_box(cid, inp):
    """One box per constant input: its value when kept, ``(None, 0)``, and whether it was kept."""
    rows = [(inp["value"] or "constant", "title"), ("(None, 0)", "small")]
    kind = "constant"
    if inp["saved"] is not None:
        name, state = inp["saved"]
        rows.append((f"kept as {name}: {STATE_WORDS[state]}", "small"))
        if state == "alive":
            kind = "constant_saved"
    else:
        rows.append(("not saved for backward", "small"))
    return Box(cid, kind, rows)


def boxes_and_edges(g):
    """The picture as ``Box`` es and edges ``(from, to, kind, label)``, in a stable order."""
    boxes, edges = [], []
    for leaf in g.leaves:
        rows = [(leaf["name"], "title"), (f"shape {leaf['shape']}", "small")]
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
        boxes.append(Box(f"leaf{leaf['k'] + 1}", kind, rows, leaf["marks"]))
    gaps = list(g.gaps)
    consumed = set()  # (step, output_nr) whose tensor an edge of the picture carries
    for s in g.steps:
        for inp in s["inputs"]:
            if inp["kind"] == "step" and inp["ref"][2] is None:
                consumed.add(inp["ref"][:2])
    for s in g.steps:
        k = s["k"]
        while gaps and gaps[0][1] < k:
            boxes.append(_more_box(g, *gaps.pop(0)))
        sid = f"step{k}"
        rows = [(s["name"], "title"), (f"step {k}", "small")]
        rows += [(f"{a}={v}", "small") for a, v in s["attrs"]]
        rows += s["rows"]
        boxes.append(Box(sid, "function", rows, s["marks"]))
        from_more = set()
        grads = s["grads"]
        for j, inp in enumerate(s["inputs"]):
            # the gradient this step sent back along the edge, once it has run
            grad = grads[j] if grads is not None and j < len(grads) else None
            kind = inp["kind"]
            if kind == "constant":
                cid = f"const{k}_{j + 1}"
                boxes.append(_constant_box(cid, inp))
                edges.append((cid, sid, "constant", None))
            elif kind == "leaf":
                edges.append((f"leaf{inp['ref'] + 1}", sid, "data" if grad is None else "grad",
                              _edge_label(None, grad)))
            else:
                src, nr, gap = inp["ref"]
                name = inp.get("label") or (f"output {nr}" if nr else None)
                if gap is None:
                    edges.append((f"step{src}", sid, "data" if grad is None else "grad",
                                  _edge_label(name, grad)))
                elif gap not in from_more:
                    from_more.add(gap)
                    edges.append((f"more{gap}", sid, "more", None))
        for j, (name, state, ref, shape, merged) in enumerate(s["saved"]):
            if merged:  # the constant's own box says it was kept
                continue
            vid = f"saved{k}_{j + 1}"
            what = STATE_WORDS[state]
            rows = [(f"{name} = {ref}" if ref else name, "title"),
                    (", ".join(x for x in (shape and f"shape {shape}", what) if x), "small")]
            boxes.append(Box(vid, "saved" if state == "alive" else f"saved_{state}", rows))
            edges.append((vid, sid, "saved_freed" if state in ("freed", "just_freed") else "saved",
                          None))
        # a named tensor no drawn edge carries (the newest step of a recording) gets its own tag
        for nm in s["named"]:
            if (k, 0) not in consumed:
                nid = f"named{k}"
                boxes.append(Box(nid, "named", [(nm, "title")]))
                edges.append((sid, nid, "output", None))
                break
    for gap in gaps:
        boxes.append(_more_box(g, *gap))
    for src, gap in g.into_hidden:
        edges.append((src, f"more{gap}", "more", None))
    for i, r in enumerate(g.roots, 1):
        if r["kind"] != "output":
            continue
        rows = [(r["name"], "title"), (f"shape {r['shape']}", "small")]
        if g.show_values:
            rows.append((r["values"], "value"))
        rows.append(("output", "small"))
        oid = f"out{i}"
        boxes.append(Box(oid, "output", rows))
        out = f"output {r['nr']}" if r["nr"] else None
        if r["grad"] is not None:  # the seed of a backward walk starts here
            edges.append((f"step{r['step']}", oid, "grad", _edge_label(out, r["grad"], seed=True)))
        else:
            edges.append((f"step{r['step']}", oid, "output", _edge_label(out, None)))
    return boxes, edges


# --------------------------------------------------------------------- legend

def _swatch(kind):
    """A small sample of a kind of box, as an HTML-like table: fill, border, dashes, corners."""
    a = KINDS[kind]
    styles = a["style"].split(",")
    fill = f' BGCOLOR="{a["fillcolor"]}"' if "filled" in styles else ""
    shape = a["shape"]
    table_style = [x for x in styles if x in ("rounded", "dashed", "dotted")]
    if shape == "ellipse" and "rounded" not in table_style:
        table_style.append("rounded")
    table_style = f' STYLE="{",".join(table_style)}"' if table_style else ""
    border = "2" if "bold" in styles or shape == "ellipse" else "1"
    if a.get("peripheries") == "2":  # a box inside a box
        return (f'<TABLE BORDER="1" COLOR="{a["color"]}" CELLPADDING="1" CELLSPACING="0">'
                f'<TR><TD BORDER="1" COLOR="{a["color"]}"{fill} WIDTH="18" HEIGHT="7" '
                'FIXEDSIZE="TRUE"></TD></TR></TABLE>')
    cell = '<TR><TD BORDER="0"></TD></TR>'
    width = "30" if shape == "ellipse" else "22"
    return (f'<TABLE BORDER="{border}" COLOR="{a["color"]}"{fill}{table_style} CELLPADDING="0" '
            f'CELLSPACING="0" WIDTH="{width}" HEIGHT="12" FIXEDSIZE="TRUE">{cell}</TABLE>')


def _mark_swatch(mark):
    """A sample of a marked operation box: its fill and border."""
    a = dict(KINDS["function"])
    a.update(MARKS[mark])
    border = "3" if float(a.get("penwidth", 1)) >= 2.5 else "2"
    return (f'<TABLE BORDER="{border}" COLOR="{a["color"]}" BGCOLOR="{a["fillcolor"]}" '
            'STYLE="rounded" CELLPADDING="0" CELLSPACING="0" WIDTH="22" HEIGHT="11" '
            'FIXEDSIZE="TRUE"><TR><TD BORDER="0"></TD></TR></TABLE>')


def _arrow(color, backwards, bold):
    body = "&#8212;&#8212;&#8212;"
    text = ("&#8592;" + body) if backwards else (body + "&#8594;")
    if bold:
        text = f"<B>{text}</B>"
    return f'<FONT COLOR="{color}" POINT-SIZE="{12 if bold else 10}">{text}</FONT>'


def _row(sample, text):
    return f'<TR><TD>{sample}</TD><TD ALIGN="LEFT">{_esc(text)}</TD></TR>'


def legend_rows(kinds, marks=(), edge_kinds=()):
    """The legend's rows (HTML-like table rows): a sample of each kind drawn, and its meaning."""
    rows = [_row(_swatch(kind), text) for kind, text in _LEGEND if kind in kinds]
    for mark, text in _MARK_LEGEND:
        if mark in marks:
            rows.append(_row(_mark_swatch(mark), text))
    if edge_kinds & {"data", "output", "constant"}:
        rows.append(_row(_arrow(RECORDING, False, False),
                         "recorded: an input to the step that used it "
                         "(next_functions point back, from a step to its inputs)"))
    if "grad" in edge_kinds:
        rows.append(_row(_arrow(GRADIENT, True, True),
                         "gradient sent back from a step to its input, labelled with its value"))
    return rows


def legend_label(rows):
    """The legend as an HTML-like label: a small framed table of ``rows``."""
    return (f'<<FONT POINT-SIZE="{SMALL}"><TABLE BORDER="1" COLOR="#BBBBBB" STYLE="rounded" '
            'CELLBORDER="0" CELLSPACING="2" CELLPADDING="1">'
            f'<TR><TD COLSPAN="2" ALIGN="LEFT"><FONT COLOR="{MUTED}">legend</FONT></TD></TR>'
            + "".join(rows) + "</TABLE></FONT>>")


def legend_source(rows):
    """A DOT graph that is only a legend (the strip of a recording shares one)."""
    return (f'digraph legend {{ graph [label={legend_label(rows)}, labeljust="l", pad="0.1", '
            f'fontname="{FONT}"]; }}\n')


def picture_legend(g, boxes, edges, legend):
    """What the legend of a picture of ``g`` explains: ``(kinds, marks, edge kinds)`` drawn.

    A graph label takes no part in the layout's ranks, so the legend (drawn
    as the graph's label, under the picture) never pushes boxes apart.  A
    graph without steps is one box that says what it is: no legend.
    """
    if not legend or not g.n_steps:
        return None
    kinds = {b.kind for b in boxes}
    marks = set().union(*(b.marks for b in boxes))
    return kinds, marks, {e[2] for e in edges}


_CAPTION_SIZE = 13


def _caption_label(caption, width=90):
    """A recorded step's caption, above the picture: bold, wrapped at about 90 characters."""
    lines = textwrap.wrap(caption, width, break_long_words=False, break_on_hyphens=False) or [""]
    body = '<BR ALIGN="LEFT"/>'.join(_esc(ln) for ln in lines)
    return (f'<<FONT POINT-SIZE="{_CAPTION_SIZE}"><B>{body}</B>'
            + ('<BR ALIGN="LEFT"/>' if len(lines) > 1 else "") + "</FONT>>")


def source_of(g, legend, dpi=None, caption_width=90):
    """``(DOT source, what its legend explains)``: deterministic, no addresses or ids."""
    boxes, edges = boxes_and_edges(g)
    graph_attrs = dict(GRAPH_ATTRS)
    if dpi is not None:
        graph_attrs["dpi"] = str(dpi)
    keys = picture_legend(g, boxes, edges, legend)
    rows = legend_rows(*keys) if keys else None
    lines = ["digraph autograd {",
             f"  graph [{_attr_list(graph_attrs)}];",
             f"  node [{_attr_list(_NODE_DEFAULTS)}];",
             f"  edge [{_attr_list(_EDGE_DEFAULTS)}];"]
    if rows:
        lines.append(f'  graph [label={legend_label(rows)}, labelloc="b", labeljust="l"];')
    indent = "  "
    if g.caption is not None:
        # the caption of a recorded step: the label of a borderless cluster holding every box,
        # so it sits on top while the legend stays the graph's label underneath
        lines.append("  subgraph cluster_step {")
        lines.append(f'    graph [label={_caption_label(g.caption, caption_width)}, labelloc="t", '
                     'labeljust="l", peripheries="0"];')
        indent = "    "
    for b in boxes:
        lines.append(f"{indent}{b.id} [label={html_label(b.rows)}, {_attr_list(_box_attrs(b))}];")
    leaf_ids = [b.id for b in boxes if b.id.startswith("leaf")]
    if len(leaf_ids) > 1:
        # the leaves keep their order (first use) left to right in every picture of the graph
        lines.append(f"{indent}{{rank=same; " + " -> ".join(leaf_ids) + " [style=invis]}")
    saved_of = {}
    for b in boxes:
        if b.id.startswith("saved"):
            saved_of.setdefault(b.id.split("_")[0], []).append(b.id)
    for ids in saved_of.values():
        if len(ids) > 1:  # a step's saved values side by side, in order: self, other, ...
            lines.append(f"{indent}{{rank=same; " + " -> ".join(ids) + " [style=invis]}")
    if g.caption is not None:
        lines.append("  }")
    for src, dst, kind, label in edges:
        a = dict(EDGES[kind])
        if label:
            a["label"] = label
        lines.append(f"  {src} -> {dst}" + (f" [{_attr_list(a)}]" if a else "") + ";")
    lines.append("}")
    return "\n".join(lines) + "\n", keys


# ------------------------------------------------------------------ rendering

def render(source, fmt):
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


def png_size(png):
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

    def __init__(self, text, source, png_source, legend=None):
        self.text = text
        self.source = source
        self.legend = legend  # (kinds, marks, edge kinds) the legend explains: a strip shares one
        self._png_source = png_source
        self._svg = None
        self._png = None

    @classmethod
    def of(cls, snapshot, legend=True, caption_width=90):
        """The picture of a ``Snapshot``."""
        source, keys = source_of(snapshot, legend, caption_width=caption_width)
        png_source, _ = source_of(snapshot, legend, dpi=PNG_DPI, caption_width=caption_width)
        return cls(text_of(snapshot), source, png_source, keys)

    def svg(self):
        """The picture as SVG text (deterministic for one graph on one machine).

        Raises:
            GraphvizMissingError: the ``graphviz`` package or the ``dot`` program is missing.
        """
        if self._svg is None:
            self._svg = render(self.source, "svg").decode("utf-8")
        return self._svg

    def png(self):
        """The picture as PNG bytes, at 144 dpi (twice Graphviz's 72 points per inch).

        Raises:
            GraphvizMissingError: the ``graphviz`` package or the ``dot`` program is missing.
        """
        if self._png is None:
            self._png = render(self._png_source, "png")
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
        return mime_bundle(self.text, self.svg, self.png, include, exclude)

    def __repr__(self):
        return self.text


def mime_bundle(text, svg, png, include=None, exclude=None):
    """``(data, metadata)`` for Jupyter: text/plain, and SVG and PNG when Graphviz draws them.

    ``svg`` and ``png`` are callables (rendering is lazy); the PNG's display
    size is set to the SVG's, so the picture is the same size trusted or not.
    """
    import base64

    data = {"text/plain": text}
    metadata = {}
    try:
        svg_text, png_bytes = svg(), png()
    except GraphvizMissingError as err:
        data["text/plain"] = f"{text}\n\n(no picture: {err})"
    else:
        data["image/svg+xml"] = svg_text
        data["image/png"] = base64.b64encode(png_bytes).decode("ascii")
        w, h = png_size(png_bytes)
        scale = 96 / PNG_DPI  # CSS pixels per PNG pixel: same size as the SVG
        metadata["image/png"] = {"width": round(w * scale), "height": round(h * scale)}
    if include:
        data = {k: v for k, v in data.items() if k in include}
    if exclude:
        data = {k: v for k, v in data.items() if k not in exclude}
    metadata = {k: v for k, v in metadata.items() if k in data}
    return data, metadata
