"""The legend under a picture: a small Graphviz graph of its own, one row per thing drawn.

Each row is a sample drawn as the picture draws it (a small box with the same
attributes, an arrow as a real edge of the same style pointing the same way)
and its meaning; only what the picture draws gets a row (``legend_entries``).
``picture_legend`` says what a picture's legend explains; ``legend_source``
writes the legend's DOT source, set under the picture (or under a strip's
pictures) so that it never moves the picture's boxes.

Separate from ``render.py`` (the picture itself and ``GraphPicture``), which
asks it what a picture's legend explains; both draw with ``style.py``'s
attributes.
"""

from .style import (
    EDGES,
    FONT,
    KINDS,
    MARKS,
    MUTED,
    SMALL,
    _EDGE_DEFAULTS,
    _NODE_DEFAULTS,
    _attr_list,
    _esc,
    render,
)

_LEGEND = (  # (kind, text), in this order, each only when drawn
    ("leaf", "leaf: a tensor you made that requires grad; its AccumulateGrad collects its .grad"),
    ("function", "operation (grad_fn node); #N: its place in recording order"),
    ("output", "output"),
    ("tensor", "tensor, records nothing"),
    ("named", "a named tensor a node produced"),
    ("saved", "saved for backward by the node beside it, alive "
              "(self, other: its inputs; result: its output)"),
    ("saved_packed", "saved, packed by a saved_tensors_hooks hook"),
    ("saved_modified", "saved, modified in place since (backward would fail)"),
    ("saved_just_freed", "saved, freed just now (struck out: the graph let go of it; the memory goes if nothing else holds it)"),
    ("saved_freed", "saved, freed by the walk (struck out: the graph let go of it; the memory goes if nothing else holds it)"),
    ("constant_saved", "constant input, kept for backward by the node beside it (the node it goes into)"),
    ("constant_just_freed", "constant input that was kept, freed just now (struck out)"),
    ("constant_freed", "constant input that was kept, freed by the walk (struck out)"),
    ("constant", "constant input: no gradient goes back to it ((None, 0) in next_functions)"),
    ("more", "nodes not drawn"),
)
# marks of a recorded walk that the legend explains, in this order
_MARK_LEGEND = (
    ("current", "running now"),
    ("new", "just recorded"),
    ("walked", "done: already run (the yellow has moved on)"),
)
# the arrows, each drawn in the legend as in the picture: (edge kinds it stands for, style, text)
_ARROW_LEGEND = (
    (("data", "output"), "data",
     "recording, points forward: from an input to the node that used it, and on to what it made"),
    (("constant", "constant_back"), "constant", "a constant going into the node that used it"),
    (("grad",), "grad", "gradient, points back: from a node to its input, with its value"),
)

_SAMPLE = {"width": "0.42", "height": "0.17", "fixedsize": "true", "fontsize": "8", "margin": "0"}


def _sample(name, kind, mark=None):
    """A legend's sample of a kind of box: a small node with the picture's own attributes."""
    a = dict(KINDS[kind])
    if mark is not None:
        a.update(MARKS[mark])
    a.update(_SAMPLE)
    label = '""'
    if kind.startswith("saved"):
        label = "<<S>self</S>>" if kind in ("saved_freed", "saved_just_freed") else '"self"'
    elif kind in ("constant_freed", "constant_just_freed"):
        label = "<<S>kept</S>>"
    return f"{name} [label={label}, {_attr_list(a)}];"


def legend_entries(kinds, marks=(), edge_kinds=()):
    """The legend's rows, each only for what the picture draws: ``(what, key, text)``.

    ``what`` is "box" (``key`` a kind of ``KINDS``), "mark" (a mark of ``MARKS`` on an
    operation) or "arrow" (``key`` an edge style of ``EDGES``).
    """
    rows = [("box", kind, text) for kind, text in _LEGEND if kind in kinds]
    rows += [("mark", mark, text) for mark, text in _MARK_LEGEND if mark in marks]
    rows += [("arrow", style, text) for drawn, style, text in _ARROW_LEGEND
             if set(drawn) & set(edge_kinds)]
    return rows


def _text_label(text, width=None):
    """A legend's text: left-aligned in a cell ``width`` points wide (at least its own width)."""
    cell = f' WIDTH="{width}"' if width else ""
    return (f'<<TABLE BORDER="0" CELLPADDING="0" CELLSPACING="0"><TR><TD ALIGN="LEFT"{cell}>'
            f'<FONT POINT-SIZE="{SMALL}">{_esc(text)}</FONT></TD></TR></TABLE>>')


def _text_width(texts):
    """The width in points of the widest of ``texts`` as Graphviz sets them (its fonts)."""
    nodes = "".join(f"t{i} [label={_text_label(t)}];" for i, t in enumerate(texts))
    plain = render(f'graph {{ node [shape="plaintext", margin="0", fontname="{FONT}"]; {nodes} }}',
                   "plain").decode("utf-8")
    return max(float(line.split()[4]) for line in plain.splitlines()
               if line.startswith("node ")) * 72


def legend_source(kinds, marks=(), edge_kinds=()):
    """The legend, a DOT graph of its own drawn under the picture (or under a strip's pictures).

    Each row is a sample drawn as the picture draws it (a small node with the same
    attributes; an arrow is a real edge with the same style, pointing the same way), and
    its meaning.  The texts are left-aligned: each in a cell as wide as the widest, which
    Graphviz measures first (so this runs ``dot``).  ``None`` when the picture draws
    nothing to explain.

    Raises:
        GraphvizMissingError: no ``graphviz`` package, or no ``dot`` on PATH.
    """
    rows = legend_entries(kinds, marks, edge_kinds)
    if not rows:
        return None
    width = round(_text_width([text for *_, text in rows])) + 1
    lines = ["digraph legend {",
             f'  graph [rankdir="TB", bgcolor="white", pad="0.05", nodesep="0.25", '
             f'ranksep="0.04", fontname="{FONT}"];',
             f"  node [{_attr_list(_NODE_DEFAULTS)}];",
             f"  edge [{_attr_list(_EDGE_DEFAULTS)}];",
             "  subgraph cluster_legend {",
             f'    graph [label=<<FONT POINT-SIZE="{SMALL}" COLOR="{MUTED}">legend</FONT>>, '
             'labeljust="l", style="rounded", color="#BBBBBB", margin="8"];']
    for i, (what, key, text) in enumerate(rows, 1):
        s, t = f"s{i}", f"t{i}"
        if what == "arrow":
            # two invisible ends, the edge from centre to centre: as long as a sample is wide
            edge = {k: v for k, v in EDGES[key].items() if k != "weight"}
            edge.update(tailclip="false", headclip="false")
            end = 'shape="plaintext", label="", width="0.1", height="0.1", style="invis"'
            lines += [f"    {s} [{end}];", f"    a{i} [{end}];",
                      f"    {{rank=same; {s} -> a{i} [{_attr_list(edge)}]; "
                      f"a{i} -> {t} [style=invis]}}"]
        else:
            lines += ["    " + _sample(s, key if what == "box" else "function",
                                       key if what == "mark" else None),
                      f"    {{rank=same; {s} -> {t} [style=invis]}}"]
        lines.append(f'    {t} [shape="plaintext", margin="0", height="0.15", '
                     f"label={_text_label(text, width)}];")
        if i > 1:
            lines.append(f"    t{i - 1} -> {t} [style=invis, weight=10];")
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n"


def picture_legend(g, boxes, edges, legend):
    """What the legend of a picture of ``g`` explains: ``(kinds, marks, edge kinds)`` drawn.

    The legend is a graph of its own (``legend_source``), set under the picture, so it
    never pushes the picture's boxes apart.  A graph without steps is one box that says
    what it is: no legend.
    """
    if not legend or not g.n_steps:
        return None
    kinds = {b.kind for b in boxes}
    marks = set().union(*(b.marks for b in boxes))
    return kinds, marks, {e[2] for e in edges}
