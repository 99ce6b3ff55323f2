"""Real PyTorch's static graphs and compile reports, read into minigrad's teaching helpers.

A lesson's cells run on minigrad and on real PyTorch (``import torch``) and
must print the same.  The teaching helpers are minigrad's on both sides; for
PyTorch they read what PyTorch exposes, without importing torch themselves:

* ``graph_from_torch(g)``: a traced ``torch.jit`` graph (``traced.graph``)
  read from its TorchScript text into a minigrad ``Graph``, so
  ``viz.draw(traced)`` draws PyTorch's trace exactly as it draws minigrad's;
* ``explain_torch(fn, *args)``: ``torch._dynamo.explain(fn)(*args)`` turned
  into the same report as ``jit.explain`` gives for minigrad: graphs and the
  operations in each (``mul``, ``sum``, ``gt``: the FX graph's
  ``call_function`` / ``call_method`` targets by name), graph breaks with
  PyTorch's reason and the learner's line, the guards on the arguments.

Source: ``torch._C.Graph`` (its printed form), ``torch._dynamo.explain``.
"""

import re

from .graph import Graph, GraphNode, GraphValue

__all__ = ["explain_torch", "graph_from_torch", "is_torch_object"]

_NODE = re.compile(r"^\s*(?P<outs>.+?) = (?P<kind>[\w:]+)(?P<attrs>\[.*\])?\((?P<args>.*?)\)"
                   r"(?: # (?P<loc>.*))?$")
_INPUT = re.compile(r"%(?P<name>[\w.]+) : (?P<type>.+?)(?:,|\):)\s*$")


def is_torch_object(obj):
    """True for an object of PyTorch's (by its type's module; torch is not imported)."""
    return type(obj).__module__.split(".")[0] == "torch"


def _split_outs(text):
    # "%7 : Float(...)" or several "%a : T, %b : T" (types may contain ", ")
    parts = re.split(r",\s*(?=%)", text)
    return [p.split(" : ", 1) for p in parts]


def graph_from_torch(torch_graph):
    """A minigrad ``Graph`` with the nodes, names, types and constants of a traced PyTorch graph.

    Args:
        torch_graph: ``traced.graph`` of ``torch.jit.trace`` (a ``torch._C.Graph``).

    Returns:
        Graph: prints as the PyTorch graph prints; ``viz.draw`` draws it.
    """
    g = Graph()
    by_name = {}

    def value(name, type_):
        gv = GraphValue(int(name) if name.isdigit() else -1, type_)
        if not name.isdigit():
            gv.debug_name = name
        by_name[name] = gv
        return gv

    lines = str(torch_graph).splitlines()
    i = 0
    while i < len(lines):
        m = _INPUT.search(lines[i])
        if m:
            g.add_input(value(m.group("name"), m.group("type")))
        if lines[i].rstrip().endswith("):"):
            i += 1
            break
        i += 1
    for line in lines[i:]:
        s = line.strip()
        if s.startswith("return ("):
            names = [n.strip().lstrip("%") for n in s[len("return ("):-1].split(",") if n.strip()]
            g.set_outputs([by_name[n] for n in names])
            break
        m = _NODE.match(s)
        if not m:
            continue
        outs = [value(name.strip().lstrip("%"), type_.strip()) for name, type_ in _split_outs(m.group("outs"))]
        args = [by_name[a.strip().lstrip("%")] for a in m.group("args").split(",") if a.strip()]
        loc = None
        if m.group("loc"):
            f, _, rest = m.group("loc").rpartition(":")  # file:line:col
            f, _, ln = f.rpartition(":")
            loc = (f, int(ln)) if ln.isdigit() else None
        g.add_node(GraphNode(m.group("kind"), args, outs, m.group("attrs") or "", loc))
    return g


def _op_name(node):
    target = node.target
    if node.op == "call_method":
        return str(target)
    name = getattr(target, "__name__", str(target))
    return name.rsplit(".", 1)[-1]


def explain_torch(fn, *args, **kwargs):
    """``torch._dynamo.explain(fn)(*args, **kwargs)`` as a minigrad ``ExplainOutput``."""
    import sys

    import numpy as np

    torch = sys.modules["torch"]
    from .explain import BreakReason, ExplainOutput
    from .guards import Guard, flatten_inputs

    ex = torch._dynamo.explain(fn)(*args, **kwargs)
    report = ExplainOutput.__new__(ExplainOutput)
    report.graphs = list(ex.graphs)
    report.graph_count = ex.graph_count
    report.ops_per_graph = [[_op_name(n) for n in gm.graph.nodes
                             if n.op in ("call_function", "call_method")] for gm in ex.graphs]
    report.op_count = sum(len(o) for o in report.ops_per_graph)
    report.break_reasons = []
    from .breaks import _BREAK_EXPLANATIONS

    for b in ex.break_reasons:
        reason = str(b.reason).strip().split("\n")[0]
        kind = "bool" if reason.startswith("generic_jump") else (
            "item" if "Tensor.item()" in reason else None)
        report.break_reasons.append(BreakReason(reason, _BREAK_EXPLANATIONS.get(kind),
                                                list(b.user_stack)[-1:]))
    report.graph_break_count = len(report.break_reasons)
    # the guards on the arguments, written as minigrad writes its own
    guards = [Guard("GLOBAL_STATE", "", (bool(torch.is_grad_enabled()),
                                         bool(torch.is_inference_mode_enabled())))]
    dtypes = {torch.float32: np.dtype(np.float32), torch.float64: np.dtype(np.float64),
              torch.int64: np.dtype(np.int64), torch.int32: np.dtype(np.int32),
              torch.bool: np.dtype(np.bool_)}
    for source, obj in flatten_inputs(fn, args, kwargs):
        if isinstance(obj, torch.Tensor):
            gd = Guard("TENSOR_MATCH", source)
            gd.shape, gd.dtype, gd.requires_grad = tuple(obj.shape), dtypes[obj.dtype], obj.requires_grad
        elif isinstance(obj, (bool, int, float, str, type(None))):
            gd = Guard("CONSTANT_MATCH", source, obj)
        else:
            gd = Guard("ID_MATCH", source, obj)
        guards.append(gd)
    report.out_guards = guards
    report._versions = [guards]
    report.recompiles = []
    report.fallbacks = []
    report.compile_times = str(ex.compile_times)
    return report
