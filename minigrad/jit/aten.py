"""From a recording to a ``Graph``: each public call written as the ATen operator PyTorch records.

PyTorch's tracer records one node per ATen operator call, with every
argument made explicit: ``z.sum()`` is ``aten::sum(%z, %dtype)`` with a
``None`` constant for ``dtype``; ``z + 1`` is ``aten::add(%z, %c, %alpha)``
with a 0-d tensor constant for the number and an ``int`` constant for
``alpha``.  ``SCHEMAS`` writes the common operations' arguments that way,
from the arguments the learner passed to minigrad's public function (a call
of ``linear`` that ran two primitives is one ``aten::linear`` node, as in
PyTorch).  An operation without a schema is written as its primitive with the
primitive's own arguments.

Dead code is removed as PyTorch's tracer does (a node whose values reach no
output, like the comparison whose only use was an ``if``), but the numbers
its values took stay used, so the gaps in the numbering match PyTorch's.

Source: the signatures of ATen's operators (aten/src/ATen/native/native_functions.yaml)
and the tracer's dead-code elimination (torch/csrc/jit/passes/dead_code_elimination.cpp).
"""

import numpy as np

from .graph import Graph, GraphNode, constant_node, tensor_constant_node, tensor_type_str
from .recording import Value

__all__ = ["build_graph", "live_steps"]

# minigrad public functions whose ATen operator has another name
ENTRY_ATEN = {"__matmul__": "matmul", "_radd": "add", "_rmul": "mul", "_rsub": "rsub",
              "__add__": "add", "__radd__": "add", "__sub__": "sub", "__mul__": "mul",
              "__rmul__": "mul", "__truediv__": "div", "__neg__": "neg", "__pow__": "pow",
              "square": "square", "bitwise_and": "__and__", "bitwise_or": "__or__",
              "bitwise_xor": "__xor__", "bitwise_not": "bitwise_not"}


class _T:
    """A tensor argument (a Value, or a Python number PyTorch wraps into a 0-d tensor)."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj


class _S:
    """A scalar argument: int, float, bool, None or a list of ints (a ``prim::Constant``)."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj


def _dims(d):
    return [int(d)] if isinstance(d, (int, np.integer)) else [int(e) for e in d]


def _reduction(p):
    dim = p[1] if len(p) > 1 else None
    if dim is None:
        return [_T(p[0]), _S(None)]
    keep = bool(p[2]) if len(p) > 2 else False
    return [_T(p[0]), _S(_dims(dim)), _S(keep), _S(None)]


def _shape(p):
    shape = p[1] if len(p) > 1 else ()
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    return [_T(p[0]), _S([int(s) for s in shape])]


def _tensor_or_scalar(x):
    return _T(x) if isinstance(x, Value) else _S(x)


_UNARY = ("neg", "exp", "log", "tanh", "sigmoid", "relu", "abs", "sqrt", "sin", "cos", "t",
          "detach", "logical_not", "isnan", "isinf", "isfinite", "bitwise_not", "clone",
          "contiguous", "reciprocal")
SCHEMAS = {
    "add": lambda p: [_T(p[0]), _T(p[1]), _S(p[2] if len(p) > 2 else 1)],
    "sub": lambda p: [_T(p[0]), _T(p[1]), _S(p[2] if len(p) > 2 else 1)],
    "rsub": lambda p: [_T(p[0]), _S(p[1]), _S(1)],
    "mul": lambda p: [_T(p[0]), _T(p[1])],
    "div": lambda p: [_T(p[0]), _T(p[1])],
    "pow": lambda p: [_T(p[0]), _tensor_or_scalar(p[1])],
    "matmul": lambda p: [_T(p[0]), _T(p[1])],
    "mm": lambda p: [_T(p[0]), _T(p[1])],
    "dot": lambda p: [_T(p[0]), _T(p[1])],
    "mv": lambda p: [_T(p[0]), _T(p[1])],
    "bmm": lambda p: [_T(p[0]), _T(p[1])],
    "linear": lambda p: [_T(p[0]), _T(p[1]), _tensor_or_scalar(p[2] if len(p) > 2 else None)],
    "where": lambda p: [_T(p[0]), _T(p[1]), _T(p[2])],
    "sum": _reduction,
    "mean": _reduction,
    "reshape": _shape,
    "view": _shape,
    "transpose": lambda p: [_T(p[0]), _S(int(p[1])), _S(int(p[2]))],
    "clamp": lambda p: [_T(p[0]), _S(p[1] if len(p) > 1 else None), _S(p[2] if len(p) > 2 else None)],
    "softmax": lambda p: [_T(p[0]), _S(int(p[1])), _S(None)],
    "log_softmax": lambda p: [_T(p[0]), _S(int(p[1])), _S(None)],
    "zeros_like": lambda p: [_T(p[0]), _S(None), _S(None), _S(None), _S(False), _S(None)],
    "ones_like": lambda p: [_T(p[0]), _S(None), _S(None), _S(None), _S(False), _S(None)],
}
for _name in ("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
              "__and__", "__or__", "__xor__", "maximum", "minimum"):
    SCHEMAS[_name] = lambda p: [_T(p[0]), _tensor_or_scalar(p[1])]
for _name in _UNARY:
    SCHEMAS[_name] = lambda p: [_T(p[0])]


def value_type(v):
    """The TorchScript type text of a recorded Value."""
    return tensor_type_str(v.shape, v.strides, v.dtype, v.requires_grad)


def _output_values(obj, out):
    if isinstance(obj, Value):
        out.append(obj)
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            _output_values(o, out)
    elif isinstance(obj, dict):
        for o in obj.values():
            _output_values(o, out)
    return out


def live_steps(rec, roots=None):
    """The steps whose values reach ``roots`` (default: the recording's outputs)."""
    roots = _output_values(rec.output, []) if roots is None else roots
    live = set()
    stack = [v for v in roots if v.step is not None]
    seen = set()
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        s = v.step
        live.add(id(s))
        for a in s.args:
            for e in (a if isinstance(a, (tuple, list)) else (a,)):
                if isinstance(e, Value) and e.step is not None:
                    stack.append(e)
    return live


def _groups(rec):
    groups = []
    for s in rec.steps:
        if groups and groups[-1][0] == s.group:
            groups[-1][1].append(s)
        else:
            groups.append((s.group, [s]))
    return groups


def _generic_items(step):
    items = []
    for a in step.args:
        if isinstance(a, Value):
            items.append(_T(a))
        elif a is None or isinstance(a, (bool, int, float, np.number)):
            items.append(_S(a))
        elif isinstance(a, (tuple, list)) and all(isinstance(e, (int, np.integer)) for e in a):
            items.append(_S(list(a)))
        elif isinstance(a, (tuple, list)) and all(isinstance(e, Value) for e in a):
            items.extend(_T(e) for e in a)
    return items


def _escapes(steps, users):
    """True if a value made inside the group (not by its last step) is used outside it."""
    inner = {id(s) for s in steps}
    for s in steps[:-1]:
        for o in s.outputs:
            for u in users.get(id(o), ()):
                if id(u) not in inner:
                    return True
    return False


def build_graph(rec, input_names):
    """The ``Graph`` of a recording: inputs named ``input_names``, nodes per public call, outputs.

    Args:
        rec (Recording): what the trace recorded (``rec.output`` holds Values).
        input_names (list[str]): one name per distinct input Value.

    Returns:
        Graph
    """
    g = Graph()
    gv_of = {}
    seen_inputs = []
    for v in rec.inputs:
        if any(v is s for s in seen_inputs):
            continue
        seen_inputs.append(v)
        gv = g.new_value(value_type(v), v)
        gv_of[id(v)] = gv
        g.add_input(gv)
    for v, name in zip(seen_inputs, input_names):
        g.set_debug_name(gv_of[id(v)], name)
    # a Module's parameters (and tensors of its own) are inputs too, named by their path,
    # as PyTorch's traced module reads them from ``self``
    for v in getattr(rec, "values", ()):
        if (v.kind == "captured" and (v.source or "").startswith("L['self']")
                and id(v) not in gv_of):
            gv = g.new_value(value_type(v), v)
            gv_of[id(v)] = gv
            g.add_input(gv)
            g.set_debug_name(gv, "self" + v.source[len("L['self']"):])

    live = live_steps(rec)
    users = {}
    for s in rec.steps:
        for a in s.args:
            for e in (a if isinstance(a, (tuple, list)) else (a,)):
                if isinstance(e, Value):
                    users.setdefault(id(e), []).append(s)

    for gid, steps in _groups(rec):
        info = rec.groups.get(gid, {})
        emit = any(id(s) in live for s in steps)
        name = ENTRY_ATEN.get(info.get("name"), info.get("name"))
        schema = SCHEMAS.get(name)
        if info.get("plain"):
            params = list(steps[0].args)
        else:
            params = list(info.get("args", {}).values())
        if schema is not None and not _escapes(steps, users):
            try:
                items = schema(params)
            except (IndexError, TypeError, ValueError):
                items = None
            if items is not None:
                _emit(g, gv_of, "aten::" + name, items, steps, emit)
                continue
        if len(steps) > 1 and not _escapes(steps, users) and name and not info.get("plain"):
            tensors = [_T(p) for p in params if isinstance(p, Value)]
            _emit(g, gv_of, "aten::" + name, tensors, steps, emit)
            continue
        for s in steps:
            _emit(g, gv_of, "aten::" + s.name, _generic_items(s), [s], emit and id(s) in live)

    outs = []
    _return_values(g, gv_of, rec.output, outs, top=True)
    g.set_outputs(outs)
    for v, name in rec.names.items():
        gv = gv_of.get(id(v))
        if gv is not None:
            g.set_debug_name(gv, name)
    return g


def _emit(g, gv_of, kind, items, steps, emit):
    loc = steps[0].location
    loc = loc[:2] if loc else None
    target = g if emit else _Sink(g)
    inputs = []
    for it in items:
        obj = it.obj
        if isinstance(it, _T):
            if isinstance(obj, Value):
                gv = gv_of.get(id(obj))
                if gv is None:  # a wrapped number or a captured tensor: a constant
                    gv = tensor_constant_node(target, obj.tensor._data, loc, obj.kind == "wrapped")
                    if obj.kind == "captured":
                        gv_of[id(obj)] = gv
                inputs.append(gv)
            elif obj is None:
                inputs.append(constant_node(target, None, loc))
            else:
                inputs.append(tensor_constant_node(target, np.asarray(obj), loc, True))
        else:
            inputs.append(constant_node(target, obj, loc))
    last = steps[-1]
    outs = []
    for v in last.outputs:
        gv = g.new_value(value_type(v), v)
        gv_of[id(v)] = gv
        outs.append(gv)
    if emit:
        g.add_node(GraphNode(kind, inputs, outs, "", loc, steps))


class _Sink:
    """Stands in for the graph while a dead node is written: numbers are used, nothing is added."""

    def __init__(self, g):
        self._g = g

    def new_value(self, type_, value=None):
        return self._g.new_value(type_, value)

    def add_node(self, node):
        pass


def _return_values(g, gv_of, obj, outs, top):
    if isinstance(obj, Value):
        gv = gv_of.get(id(obj))
        if gv is None:
            gv = tensor_constant_node(g, obj.tensor._data, None, obj.kind == "wrapped")
        outs.append(gv)
        return gv
    if isinstance(obj, (tuple, list)):
        elems = []
        for o in obj:
            _return_values(g, gv_of, o, elems, top=False)
        if isinstance(obj, list):
            v = g.new_value("Tensor[]")
            g.add_node(GraphNode("prim::ListConstruct", elems, [v]))
        else:
            v = g.new_value("(" + ", ".join(e.type for e in elems) + ")")
            g.add_node(GraphNode("prim::TupleConstruct", elems, [v]))
        outs.append(v)
        return v
    v = constant_node(g, obj, None)
    outs.append(v)
    return v
