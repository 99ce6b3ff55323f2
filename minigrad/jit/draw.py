"""A picture of a static graph: inputs, operations and outputs, arrows in the direction data flows.

``viz.draw(traced.graph)`` (or ``viz.draw(traced)``, ``viz.draw(region)``)
comes here.  Unlike a picture of a recorded ``grad_fn`` graph, whose arrows
follow ``next_functions`` backwards from the output, a static graph is drawn
forwards, as it runs: each input at the top, each operation (its ATen name)
below the values it reads, the outputs at the bottom; every arrow goes from
the value's producer to its consumer and is labelled with the value's name
(``%z``).  Constant arguments (``alpha=1``, ``None``) are small dashed boxes;
an input that requires grad is drawn as a leaf (light blue), the outputs with
a double border (green), as in ``viz.draw``'s pictures.

What is drawn here is a ``StaticDrawing``: ``.text`` (the graph as lines
without file locations, stable for nbval) and ``.source`` (DOT); ``viz.draw``
makes it a ``viz.GraphPicture`` (``.svg()``, ``.png()``), as viz sits above jit.

Source: the same picture language as ``minigrad.viz`` (torchviz's colours)
applied to a TorchScript-style graph.
"""

import html
from collections import namedtuple

__all__ = ["StaticDrawing", "draw_graph", "graph_text", "static_drawing"]

StaticDrawing = namedtuple("StaticDrawing", "text source png_source")
StaticDrawing.__doc__ = """A static graph drawn: its text form, its DOT source, and the DOT
source for a PNG (higher dpi); ``viz.GraphPicture(*drawing)`` shows it."""

_FONT = "Helvetica"
_STYLE = {
    "leaf": 'shape="box", style="filled", fillcolor="#CCE8F8", color="#0072B2"',
    "input": 'shape="box", style="filled", fillcolor="#FFFFFF", color="#666666"',
    "op": 'shape="box", style="rounded,filled", fillcolor="#E6E6E6", color="#666666"',
    "output": 'shape="box", style="filled", fillcolor="#B3E2D4", color="#006B4F", peripheries="2"',
    "constant": ('shape="box", style="rounded,dashed", color="#999999", fontcolor="#666666", '
                 'fontsize="9", height="0.2", margin="0.06,0.02"'),
}
_SWATCH = {"leaf": "#CCE8F8", "input": "#FFFFFF", "op": "#E6E6E6", "constant": "#F4F4F4",
           "output": "#B3E2D4"}
_LEGEND = (("leaf", "input that requires grad"), ("input", "input"), ("op", "operation (rounded)"),
           ("constant", "constant argument (dashed)"), ("output", "output (double border)"))


def _short_type(t):
    """``Float(3, strides=[1], requires_grad=1, device=cpu)`` -> ``Float(3)``."""
    if "(" not in t:
        return t
    head, _, rest = t.partition("(")
    rest = rest.split("strides=")[0].split("requires_grad=")[0]
    sizes = [p.strip() for p in rest.split(",") if p.strip().isdigit()]
    return f"{head}({', '.join(sizes)})" if sizes else head + "()"


def graph_text(graph, title="static graph"):
    """The graph as deterministic lines: inputs, one line per operation, outputs (no file locations)."""
    ops = graph.operations()
    ins = graph.inputs()
    lines = [f"{title}: {len(ins)} input{'s' if len(ins) != 1 else ''}, "
             f"{len(ops)} operation{'s' if len(ops) != 1 else ''}"]
    for v in ins:
        rg = ", requires grad" if "requires_grad=1" in v.type else ""
        lines.append(f"  input {v}: {_short_type(v.type)}{rg}")
    from .graph import _constant_text

    for i, n in enumerate(ops, 1):
        args = ", ".join(str(v) if v.node is None or not v.node.kind.startswith("prim::")
                         else _constant_text(v) for v in n.inputs)
        outs = ", ".join(f"{o} {_short_type(o.type)}" for o in n.outputs)
        lines.append(f"  {i}. {n.kind}({args}) -> {outs}")
    lines.append("  returns " + ", ".join(_returned(graph)))
    return "\n".join(lines)


def _returned(graph):
    out = []
    for v in graph.outputs():
        node = v.node
        if node is not None and node.kind in ("prim::TupleConstruct", "prim::ListConstruct"):
            out.extend(str(i) for i in node.inputs)
        else:
            out.append(str(v))
    return out


def _label(lines):
    rows = []
    for i, t in enumerate(lines):
        text = html.escape(t)
        if i:
            text = '<FONT POINT-SIZE="9">' + text + "</FONT>"
        rows.append(f"<TR><TD>{text}</TD></TR>")
    return '<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0">' + "".join(rows) + "</TABLE>>"


def _source(graph, dpi=None):
    lines = ["digraph static_graph {",
             f'  graph [rankdir="TB", bgcolor="white", pad="0.15", nodesep="0.25", ranksep="0.3", '
             f'fontname="{_FONT}", fontsize="10"' + (f', dpi="{dpi}"' if dpi else "") + "];",
             f'  node [fontname="{_FONT}", fontsize="11", height="0.3", margin="0.1,0.04"];',
             f'  edge [fontname="{_FONT}", fontsize="9", arrowsize="0.7", color="#444444"];']
    kinds = set()
    for k, v in enumerate(graph.inputs()):
        kind = "leaf" if "requires_grad=1" in v.type else "input"
        kinds.add(kind)
        lines.append(f"  in{k} [label={_label([f'input {v}', _short_type(v.type)])}, {_STYLE[kind]}];")
    ops = graph.operations()
    for i, n in enumerate(ops):
        kinds.add("op")
        outs = ", ".join(_short_type(o.type) for o in n.outputs)
        lines.append(f"  op{i} [label={_label([n.kind, f'{i + 1}. ' + outs])}, {_STYLE['op']}];")
    const = 0
    for src, dst, value in graph.edges():
        if src[0] == "input":
            a = f"in{src[1]}"
        elif src[0] == "node":
            a = f"op{src[1]}"
        else:
            kinds.add("constant")
            a = f"c{const}"
            const += 1
            lines.append(f"  {a} [label={_label([src[1]])}, {_STYLE['constant']}];")
            lines.append(f'  {a} -> op{dst} [style="dashed", color="#999999"];')
            continue
        lines.append(f'  {a} -> op{dst} [label="{html.escape(str(value))}"];')
    producer = {}
    for k, v in enumerate(graph.inputs()):
        producer[id(v)] = f"in{k}"
    for i, n in enumerate(ops):
        for o in n.outputs:
            producer[id(o)] = f"op{i}"
    names = _returned(graph)
    flat = []
    for v in graph.outputs():
        node = v.node
        if node is not None and node.kind in ("prim::TupleConstruct", "prim::ListConstruct"):
            flat.extend(node.inputs)
        else:
            flat.append(v)
    for k, (v, name) in enumerate(zip(flat, names)):
        kinds.add("output")
        lines.append(f"  out{k} [label={_label([f'output {name}', _short_type(v.type)])}, {_STYLE['output']}];")
        if id(v) in producer:
            lines.append(f'  {producer[id(v)]} -> out{k} [color="#006B4F"];')
    legend = [(kind, text) for kind, text in _LEGEND if kind in kinds]
    if legend:
        rows = ('<TR><TD COLSPAN="2" ALIGN="LEFT">arrows: data flowing forward, labelled with '
                "the value</TD></TR>")
        rows += "".join(f'<TR><TD BGCOLOR="{_SWATCH[k]}" BORDER="1" WIDTH="16"> </TD>'
                        f'<TD ALIGN="LEFT">{html.escape(t)}</TD></TR>' for k, t in legend)
        lines.append(f'  graph [label=<<TABLE BORDER="0" CELLSPACING="2">{rows}</TABLE>>, '
                     'labelloc="b", labeljust="l"];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def draw_graph(graph, title="static graph"):
    """A static ``Graph`` drawn with forward arrows, inputs to outputs.

    Args:
        graph (Graph): e.g. ``traced.graph`` or ``region.graph``.
        title (str): the first words of the text form.

    Returns:
        StaticDrawing: ``.text``, ``.source``, ``.png_source`` (``viz.draw`` shows it).
    """
    return StaticDrawing(graph_text(graph, title), _source(graph), _source(graph, dpi=144))


def static_drawing(obj):
    """The drawing of a static graph, or None if ``obj`` is not one (what ``viz.draw`` asks first).

    Static graphs: minigrad's (a traced function, its ``.graph``, a compiled
    region: anything with ``__minigrad_draw__``) and PyTorch's
    (``torch.jit.trace``'s ``ScriptFunction`` or its ``.graph``, read with
    ``from_torch.graph_from_torch``; torch is never imported here).
    """
    if hasattr(obj, "__minigrad_draw__"):
        return obj.__minigrad_draw__()
    from .from_torch import graph_from_torch, is_torch_object

    if is_torch_object(obj):
        kind = type(obj).__name__
        if kind == "Graph":
            return draw_graph(graph_from_torch(obj))
        if hasattr(obj, "graph") and kind in ("ScriptFunction", "TopLevelTracedModule"):
            return draw_graph(graph_from_torch(obj.graph), f"static graph of {obj.name}")
    return None
