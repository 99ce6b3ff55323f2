"""Graphviz rendering: the picture language, and ``GraphPicture``.

The picture language (the same in every picture a lesson shows):

* a **leaf** (a tensor you made that requires grad; the graph reaches it
  through its ``AccumulateGrad`` node): a square box, light blue, its name,
  shape and, once known, ``.grad``;
* an **operation** (a ``grad_fn`` node, e.g. ``MulBackward0``): a grey box with
  rounded corners, numbered ``#1``, ``#2``, ... in recording order;
* the **output**: a green box with a double border;
* a **saved value** (what a step keeps for its backward: ``self`` and
  ``other`` are the step's inputs, ``result`` its output): a page with a
  folded corner on the step's own row, beside it, joined to it by a dashed
  line (a step's values share one page, a line each); orange and solid while
  alive, white with a dashed border once freed, the names struck out and the
  word "freed" (the graph let go of it: not to be mistaken for a constant that was
  never saved);
* a **constant** (an input that needs no gradient: ``(None, 0)`` in
  ``next_functions``): an oval with a dotted border, its value (``2``) when the
  step kept it, with ``(None, 0)`` under it, on the row of the step it goes
  into, beside it (a kept constant is one of the step's saved values: so it sits
  where its pages sit, and the step's pages go on its other side);
* **arrows**: thin grey arrows are the recording and point forward, from an
  input to the node that used it (``next_functions`` point the other way, from
  a node back to its inputs); in pictures of the backward walk, thick
  vermillion arrows are the gradients and point back, from a node to its
  input, labelled with the value they carry.  A named tensor
  (``names={"y": y}``) labels the arrow it leaves by.

Shape, border and label carry every distinction, so the picture reads in grey
scale too; colours come from the Okabe-Ito palette (safe for colour-blind
readers).  A small legend under each picture lists the kinds drawn, each
drawn as the picture draws it: a small box with the same attributes, an
arrow as a real edge of the same style pointing the same way (it is a graph
of its own, ``legend.py``'s ``legend_source``, set under the picture).

Layout: Graphviz orders the boxes to cross as few arrows as it can (the
leaves keep their order of first use; a step joining copies of a graph, a
training loop's running total, keeps its inputs in recording order); a step's
pages and constants sit on its outer side, never between it and another box of
its row (``best_side``); a picture wider than 1,000 CSS pixels is scaled down
to fit a page.

The attributes each kind of box, mark and arrow is drawn with, and running
Graphviz, are in ``style.py``.  Rendering needs the ``graphviz`` Python
package and Graphviz's ``dot``; both are looked for only when a picture is
asked for.  ``import minigrad`` never imports ``graphviz``; the text form and
the DOT source work without it.

Source: torchviz's ``make_dot`` (github.com/szagoruyko/pytorchviz,
torchviz/dot.py), whose boxes this follows, with arrows that say which way
what they show travels.
"""

import struct
import textwrap

from .style import (
    EDGES,
    GRAPH_ATTRS,
    KINDS,
    MARKS,
    MUTED,
    PNG_DPI,
    SMALL,
    _EDGE_DEFAULTS,
    _NODE_DEFAULTS,
    GraphvizMissingError,
    _attr_list,
    _esc,
    _plain,
    render,
)
from .legend import legend_entries, picture_legend
from .text import STATE_WORDS, text_of
from .values import plural

_GONE = ("freed", "just_freed")  # the saved states a picture draws struck out


class Box:
    """One box of the picture: a dot id, a kind (see ``KINDS``), label rows, marks."""

    __slots__ = ("id", "kind", "marks", "rows", "ordered")

    def __init__(self, id, kind, rows, marks=(), ordered=False):
        self.id = id
        self.kind = kind
        self.rows = rows  # list of (text, "title" | "struck" | "small" | "value" | "plain")
        self.marks = set(marks)
        self.ordered = ordered  # its inputs left to right in next_functions order


# ------------------------------------------------------------ Graphviz source

def html_label(rows):
    """A Graphviz HTML-like label: rows of (text, style), style one of "title", "struck",
    "small", "struck_small", "value", "plain".

    A "value" (a tensor's printout, possibly several lines) is set in a fixed-width
    font, left-aligned, in a table cell; a label mixing tables and text must
    then be one table, so the other rows become cells too.
    """
    def fmt(text, style):
        t = _esc(text)
        if style == "title":
            return f"<B>{t}</B>"
        if style == "struck":  # a saved value's name, once the graph let go of it
            return f"<S><B>{t}</B></S>"
        if style == "struck_small":
            return f'<FONT POINT-SIZE="{SMALL}"><S>{t}</S></FONT>'
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
    if box.ordered:
        a["ordering"] = "in"
    return a


def _joins_copies(g):
    """The steps that join separate recordings of several steps each: ``{step number}``.

    ``total = total + loss`` in a training loop joins the copies of the model's graph; its
    inputs keep their order (``ordering=in``), so the copies read left to right in recording
    order.  Elsewhere Graphviz orders the boxes freely, which leaves fewer arrows crossed
    (``x * y + x * 2``: step 2 left of step 1 under ``x`` and ``y``).
    """
    below = {}  # step -> the steps it was computed from, itself included
    for s in g.steps:
        mine = {s["k"]}
        for inp in s["inputs"]:
            if inp["kind"] == "step" and inp["ref"][2] is None:
                mine |= below.get(inp["ref"][0], set())
        below[s["k"]] = mine
    joins = set()
    for s in g.steps:
        parts = [below.get(inp["ref"][0], set()) for inp in s["inputs"]
                 if inp["kind"] == "step" and inp["ref"][2] is None]
        if (len(parts) > 1 and all(len(p) > 1 for p in parts)
                and sum(map(len, parts)) == len(set().union(*parts))):
            joins.add(s["k"])
    return joins


def _more_box(g, gap, lo, hi):
    """The box standing for steps ``lo`` to ``hi``, which a collapsed graph does not draw."""
    rows = [(f"... {plural(hi - lo + 1, 'more node')} ...", "title")]
    if gap == g.gaps[0][0]:
        rows += [(f"this graph has {g.n_steps} nodes recorded", "small"),
                 (f"({g.n_nodes} with AccumulateGrad):", "small"),
                 ("only the first and last are drawn", "small")]
    else:
        rows.append((f"#{lo} to #{hi}", "small"))
    return Box(f"more{gap}", "more", rows)


def _constant_box(cid, inp):
    """One box per constant input: its value when kept, ``(None, 0)``, and whether it was kept."""
    rows = [(inp["value"] or "constant", "title"), ("(None, 0)", "small")]
    kind = "constant"
    if inp["saved"] is not None:  # (two short lines: an oval is much wider than its text)
        name, state = inp["saved"]
        if state in _GONE:  # as a freed page: "kept as" struck out, then the word
            rows += [(f"kept as {name}", "struck_small"), (STATE_WORDS[state], "plain")]
            kind = f"constant_{state}"
        else:
            rows += [(f"kept as {name}:", "small"), (STATE_WORDS[state], "small")]
            if state == "alive":
                kind = "constant_saved"
    else:
        rows += [("not saved", "small"), ("for backward", "small")]
    return Box(cid, kind, rows)


def _saved_pages(k, values):
    """The pages of step ``k``'s saved values ``[(name, state, ref, shape)]``: ``(id, kind, rows)``.

    Values in one state share one page (a line each, in order: self, other, ...); a step
    whose values differ in state (one modified in place) has a page for each.  A freed
    value's name is struck out: the graph let go of it (not merely unsaved).
    """
    if not values:
        return []
    if len({state for _n, state, _r, _s in values}) > 1:
        groups = [(f"saved{k}_{j}", [v]) for j, v in enumerate(values, 1)]
    else:
        groups = [(f"saved{k}", values)]
    pages = []
    for vid, group in groups:
        state = group[0][1]
        shapes = [shape for _n, _st, _r, shape in group]
        one_shape = len(set(shapes)) == 1 and shapes[0]
        rows = []
        for name, _st, ref, shape in group:
            if state in _GONE:
                rows.append((name, "struck"))
            else:
                rows.append((f"{name} = {ref}" if ref else name, "title"))
            if shape and not one_shape:
                rows.append((f"shape {shape}", "small"))
        what = STATE_WORDS[state]
        if state in _GONE:
            rows.append((what, "plain"))
        else:
            rows.append((f"shape {one_shape}, {what}" if one_shape else what, "small"))
        pages.append((vid, "saved" if state == "alive" else f"saved_{state}", rows))
    return pages


def boxes_and_edges(g, side="left", const_side="left"):
    """The picture as ``Box`` es and edges ``(from, to, kind, label)``, in a stable order.

    ``side``: where a step's first page of saved values goes, "left" or "right" of it;
    ``const_side``: where its constant inputs go (its pages then go on the other side).
    """
    boxes, edges = [], []
    for leaf in g.leaves:
        rows = [(leaf["name"], "title"), (f"shape {leaf['shape']}", "small")]
        if g.show_values:
            rows.append((leaf["values"], "value"))
        if leaf["requires_grad"]:
            # in a graph a leaf is its AccumulateGrad node (two short lines: a narrower box);
            # alone it has no node yet
            # "requires grad" stays on the box once the node is there: it still takes notes
            rows.append(("requires grad", "small"))
            if leaf["accumulate_grad"]:
                rows += [("leaf:", "small"), ("AccumulateGrad", "small")]
            else:
                rows.append(("leaf", "small"))
            kind = "leaf"
        else:
            rows.append(("requires no grad", "small"))
            kind = "tensor"
        if leaf["grad"] is not None:
            rows.append((f".grad = {leaf['grad']}", "plain"))
        rows += leaf["rows"]
        boxes.append(Box(f"leaf{leaf['k'] + 1}", kind, rows, leaf["marks"]))
    gaps = list(g.gaps)
    joins = _joins_copies(g)
    consumed = set()  # (step, output_nr) whose tensor an edge of the picture carries
    for s in g.steps:
        for inp in s["inputs"]:
            if inp["kind"] == "step" and inp["ref"][2] is None:
                consumed.add(inp["ref"][:2])
    for s in g.steps:
        k = s["k"]
        while gaps and gaps[0][1] < k:
            boxes.append(_more_box(g, *gaps.pop(0)))
        sid = f"node{k}"
        rows = [(s["name"], "title"), (f"#{k}", "small")]
        rows += [(f"{a}={v}", "small") for a, v in s["attrs"]]
        rows += s["rows"]
        boxes.append(Box(sid, "function", rows, s["marks"], ordered=k in joins))
        from_more = set()
        grads = s["grads"]
        for j, inp in enumerate(s["inputs"]):
            # the gradient this step sent back along the edge, once it has run
            grad = grads[j] if grads is not None and j < len(grads) else None
            kind = inp["kind"]
            if kind == "constant":
                cid = f"const{k}_{j + 1}"
                boxes.append(_constant_box(cid, inp))
                if const_side == "right":
                    # on the step's row, right of it: the arrow still points into the step (a
                    # flat edge runs from left to right, so it is written the other way
                    # round, with its arrowhead at the tail)
                    edges.append((sid, cid, "constant_back", None))
                else:
                    edges.append((cid, sid, "constant", None))
            elif kind == "leaf":
                edges.append((f"leaf{inp['ref'] + 1}", sid, "data" if grad is None else "grad",
                              _edge_label(None, grad)))
            else:
                src, nr, gap = inp["ref"]
                name = inp.get("label") or (f"output {nr}" if nr else None)
                if gap is None:
                    edges.append((f"node{src}", sid, "data" if grad is None else "grad",
                                  _edge_label(name, grad)))
                elif gap not in from_more:
                    from_more.add(gap)
                    edges.append((f"more{gap}", sid, "more", None))
        # the saved values (a constant's own box says it was kept) on pages beside the step,
        # on its row: the first on its ``side``, any others on its right, each joined to the
        # one before (a flat edge runs from left to right).  A constant input sits on the row
        # too, on ``const_side``: the step's pages then all go on the other side, outwards,
        # so that no line runs through another box
        has_const = any(inp["kind"] == "constant" for inp in s["inputs"])
        pages = _saved_pages(k, [v[:4] for v in s["saved"] if not v[4]])
        prev = sid
        for j, (vid, kind, rows) in enumerate(pages):
            boxes.append(Box(vid, kind, rows))
            line = "saved_freed" if kind in ("saved_freed", "saved_just_freed") else "saved"
            if has_const and const_side == "right":  # ... <- page 2 <- page 1 <- step
                edges.append((vid, prev, line, None))
                prev = vid
            elif j == 0 and side == "left" and not has_const:
                edges.append((vid, sid, line, None))
            else:
                edges.append((prev, vid, line, None))
                prev = vid
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
            edges.append((f"node{r['step']}", oid, "grad", _edge_label(out, r["grad"], seed=True)))
        else:
            edges.append((f"node{r['step']}", oid, "output", _edge_label(out, None)))
    return boxes, edges


_CAPTION_SIZE = 13


def _caption_label(caption, width=90):
    """A recorded step's caption, above the picture: bold, wrapped at about 90 characters."""
    lines = textwrap.wrap(caption, width, break_long_words=False, break_on_hyphens=False) or [""]
    body = '<BR ALIGN="LEFT"/>'.join(_esc(ln) for ln in lines)
    return (f'<<FONT POINT-SIZE="{_CAPTION_SIZE}"><B>{body}</B>'
            + ('<BR ALIGN="LEFT"/>' if len(lines) > 1 else "") + "</FONT>>")


def _beside(boxes):
    """``{step number: [ids of the boxes on its row]}``: its pages of saved values and its
    constant inputs (kept for backward or not: one oval, one place, so that an oval not kept
    never sits between another step and the constant that step kept).

    A box's id carries its step (``saved3``, ``saved3_1``, ``const3_2``): each step draws its
    own pages and constant boxes (x saved by two steps is on a page of each), so a box has one
    owner.  Were a box ever shared, it would stay beside the first step in recording order
    only (``setdefault``): a box in two ``rank=same`` groups would pull both steps onto one
    row.
    """
    owner = {}  # box id -> the step whose row it sits on
    for b in boxes:
        if b.id.startswith("saved"):
            owner.setdefault(b.id, int(b.id.split("_")[0][len("saved"):]))
        elif b.id.startswith("const"):
            owner.setdefault(b.id, int(b.id.split("_")[0][len("const"):]))
    rows = {}
    for bid, k in sorted(owner.items(), key=lambda item: item[1]):
        rows.setdefault(k, []).append(bid)
    return rows


def source_of(g, legend, dpi=None, caption_width=90, side="left", const_side="left"):
    """``(DOT source, what its legend explains)``: deterministic, no addresses or ids.

    ``side``, ``const_side``: where each step's pages of saved values and its constant
    inputs go (``best_side`` chooses).
    """
    boxes, edges = boxes_and_edges(g, side, const_side)
    graph_attrs = dict(GRAPH_ATTRS)
    if dpi is not None:
        graph_attrs["dpi"] = str(dpi)
    keys = picture_legend(g, boxes, edges, legend)
    lines = ["digraph autograd {",
             f"  graph [{_attr_list(graph_attrs)}];",
             f"  node [{_attr_list(_NODE_DEFAULTS)}];",
             f"  edge [{_attr_list(_EDGE_DEFAULTS)}];"]
    indent = "  "
    if g.caption is not None:
        # the caption of a recorded step: the graph's label, on top (the legend is a graph of
        # its own, set underneath; a cluster around the boxes would let Graphviz reorder them)
        lines.append(f'  graph [label={_caption_label(g.caption, caption_width)}, labelloc="t", '
                     'labeljust="l"];')
    # the constants first: Graphviz starts from the order it meets the boxes in, and a
    # constant met first, left of the other boxes of its row, leaves the recording's arrows
    # uncrossed more often
    for b in sorted(boxes, key=lambda b: not b.id.startswith("const")):
        lines.append(f"{indent}{b.id} [label={html_label(b.rows)}, {_attr_list(_box_attrs(b))}];")
    leaf_ids = [b.id for b in boxes if b.id.startswith("leaf")]
    if len(leaf_ids) > 1:
        # the leaves keep their order (first use) left to right in every picture of the graph
        lines.append(f"{indent}{{rank=same; " + " -> ".join(leaf_ids) + " [style=invis]}")
    for k, ids in _beside(boxes).items():
        # a step's saved values (pages, kept constants) and its other constants beside it, on
        # its row: their lines are short and cross no other box, and they add no row
        lines.append(f"{indent}{{rank=same; " + "; ".join([f"node{k}"] + ids) + "}")
    for src, dst, kind, label in edges:
        a = dict(EDGES[kind])
        if label:
            a["label"] = label
        lines.append(f"  {src} -> {dst}" + (f" [{_attr_list(a)}]" if a else "") + ";")
    lines.append("}")
    return "\n".join(lines) + "\n", keys


def _layout_score(source):
    """How well Graphviz lays ``source`` out, lower is better: ``(saved values not next to
    their step, saved values between their step and another box, arrows crossing)``.  All
    three follow from the order of the boxes, not their sizes: the same graph with other
    labels (before and after a walk) scores the same.

    A saved value (a page, a constant) is a box of a ``{rank=same; nodeK; ...}`` group; it is
    apart when another box, not of its group, lies between it and its step; it is between
    when such a box lies further out on its side of its step (``step, page, other box``: the
    page would read as the other box's).  The positions are the laid-out ones (``dot
    -Tplain``)."""
    groups = [line.strip()[len("{rank=same; "):-1].split("; ")
              for line in source.splitlines()
              if line.strip().startswith("{rank=same; node") and "->" not in line]
    owner = {bid: (g[0], set(g)) for g in groups for bid in g[1:]}
    nodes, edges = {}, []
    for line in _plain(source).splitlines():
        p = line.split()
        if p and p[0] == "node":
            nodes[p[1]] = (float(p[2]), float(p[3]), float(p[4]))
        elif p and p[0] == "edge" and p[-2] != "invis":
            n = int(p[3])
            edges.append((p[1], p[2], [(float(p[4 + 2 * i]), float(p[5 + 2 * i]))
                                       for i in range(n)]))
    apart = between = 0
    for name, (step, group) in owner.items():
        x, y, _w = nodes[name]
        sx = nodes[step][0]
        row = [ox for other, (ox, oy, _ow) in nodes.items()
               if other not in group and abs(oy - y) < 1e-3]
        apart += any(min(x, sx) < ox < max(x, sx) for ox in row)
        between += any((ox - x) * (x - sx) > 0 for ox in row)
    return apart, between, _crossings(edges)


def _crossings(edges):
    """How many pairs of ``edges`` ``(tail, head, Bezier points)`` cross (sharing no end)."""
    def pieces(pts):
        out = []
        for i in range(0, len(pts) - 3, 3):
            a, b, c, d = pts[i:i + 4]
            prev = a
            for step in range(1, 7):
                t = step / 6
                q = tuple((1 - t) ** 3 * a[j] + 3 * (1 - t) ** 2 * t * b[j]
                          + 3 * (1 - t) * t * t * c[j] + t ** 3 * d[j] for j in (0, 1))
                out.append((prev, q))
                prev = q
        return out

    def turn(p, q, r):
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    def cross(s, t):
        (a, b), (c, d) = s, t
        return turn(a, b, c) * turn(a, b, d) < 0 and turn(c, d, a) * turn(c, d, b) < 0

    drawn = [(e[0], e[1], pieces(e[2])) for e in edges]
    n = 0
    for i, (t1, h1, p1) in enumerate(drawn):
        for t2, h2, p2 in drawn[i + 1:]:
            if {t1, h1} & {t2, h2}:
                continue
            n += any(cross(s, t) for s in p1 for t in p2)
    return n


def best_side(g, caption_width=90):
    """Where the saved values of ``g``'s steps read best: ``(side, const_side)``, each "left"
    or "right" of their step (``side``: the pages; ``const_side``: the constant inputs).

    Graphviz lays the picture out every way there is a choice (``dot -Tplain``), and the
    choice is read from the laid-out positions (``_layout_score``): the best layout keeps
    every saved value next to its step; then on its step's outer side, never between its step
    and another box of that row (where it would read as that box's); only then does it
    cross the fewest arrows.  "left" (the narrower, most often) when they tie, when there is
    nothing to choose, or without Graphviz.
    """
    consts = {s["k"] for s in g.steps if any(inp["kind"] == "constant" for inp in s["inputs"])}
    # a step with a constant puts its pages on the constant's other side: no choice of its own
    pages = any(any(not v[4] for v in s["saved"]) for s in g.steps if s["k"] not in consts)
    sides = [(side, const_side) for const_side in (("left", "right") if consts else ("left",))
             for side in (("left", "right") if pages else ("left",))]
    if len(sides) == 1:
        return sides[0]
    try:
        scores = [_layout_score(source_of(g, False, caption_width=caption_width, side=side,
                                          const_side=const_side)[0])
                  for side, const_side in sides]
    except GraphvizMissingError:
        return sides[0]
    return sides[scores.index(min(scores))]


# ------------------------------------------------------------------ rendering

def png_size(png):
    """(width, height) in pixels, from the PNG's IHDR chunk."""
    return struct.unpack(">II", png[16:24])


# The class that sets pictures one under another (``strip.StripPicture``): strip.py imports
# this module, so it registers it here when it loads (``register_stacked``).
_STACKED = None


def register_stacked(cls):
    """Set the class ``GraphPicture`` draws itself and its legend with (strip.py calls it)."""
    global _STACKED
    _STACKED = cls
    return cls


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

    def __init__(self, text, source=None, png_source=None, legend=None, *, sources=None):
        self.text = text
        self.legend = legend  # (kinds, marks, edge kinds) the legend explains: a strip shares one
        # the DOT sources, or a function making them when first asked for (it runs ``dot`` to
        # choose the layout): ``(source, png_source)``
        self._sources = (source, png_source) if sources is None else sources
        self._svg = None
        self._png = None

    @classmethod
    def of(cls, snapshot, legend=True, caption_width=90):
        """The picture of a ``Snapshot``."""
        boxes, edges = boxes_and_edges(snapshot)
        keys = picture_legend(snapshot, boxes, edges, legend)

        def sources():
            side, const_side = best_side(snapshot, caption_width)
            return (source_of(snapshot, legend, caption_width=caption_width, side=side,
                              const_side=const_side)[0],
                    source_of(snapshot, legend, dpi=PNG_DPI, caption_width=caption_width,
                              side=side, const_side=const_side)[0])

        return cls(text_of(snapshot), legend=keys, sources=sources)

    def _source_pair(self):
        if callable(self._sources):
            self._sources = self._sources()
        return self._sources

    @property
    def source(self):
        """The Graphviz DOT source of the picture (without its legend: ``legend_source``)."""
        return self._source_pair()[0]

    @property
    def _png_source(self):
        return self._source_pair()[1]

    def bare(self):
        """The same picture without its legend (a strip's panel), sharing its sources."""
        return GraphPicture(self.text, sources=self._source_pair)

    def _with_legend(self):
        """The picture and its legend under it, one image (a strip of one picture), or None."""
        if not self.legend or not legend_entries(*self.legend) or _STACKED is None:
            return None
        return _STACKED([self.bare()], [], "", "", self.legend, scale=1)

    def svg(self):
        """The picture as SVG text (deterministic for one graph on one machine).

        Raises:
            GraphvizMissingError: the ``graphviz`` package or the ``dot`` program is missing.
        """
        if self._svg is None:
            both = self._with_legend()
            if both is None:
                self._svg = render(self.source, "svg").decode("utf-8")
            else:  # (keeping Graphviz's "Generated by" comment: a Graphviz picture still)
                own = both.pictures[0].svg()
                head = own[own.find("<!--"):own.find("-->") + 3] if "<!--" in own else ""
                self._svg = (head + "\n" if head else "") + both.svg()
        return self._svg

    def png(self):
        """The picture as PNG bytes, at 144 dpi (twice Graphviz's 72 points per inch).

        The legend under it needs Pillow (installed with the lessons); without it, the
        picture alone.

        Raises:
            GraphvizMissingError: the ``graphviz`` package or the ``dot`` program is missing.
        """
        if self._png is None:
            both = self._with_legend()
            try:
                self._png = both.png() if both else None
            except ImportError:  # no Pillow
                pass
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
