"""A static graph written back as code: what ``traced.code`` prints.

TorchScript prints a traced graph as a small Python-like program::

    def f(x: Tensor,
        w: Tensor) -> Tensor:
      z = torch.sum(torch.mul(x, w))
      return torch.mul(z, z)

There is no ``if``: the trace kept only the branch it took, which the code
makes plain.  The printer's rules, followed here:

* a value the learner named (``z``) gets its own line; an unnamed value used
  once, right where the evaluation order reaches it, is written inline;
* an inlined expression of 38 characters or more is split off into ``_0 = ...``
  lines, with the inputs before it, so that evaluation order is kept;
* arguments left at their defaults (``add``'s ``alpha=1``, ``sum``'s
  ``dtype=None``) are dropped; a tensor constant (the ``1`` of ``z + 1``)
  is ``CONSTANTS.c0``, one name per distinct value.

Source: TorchScript's Python printer (torch/csrc/jit/serialization/python_print.cpp:
``scanBlock`` / ``canInline``, ``isLongLine`` and ``splitLongInlines``,
``genUniqueNameFor``), and ``CalculateNecessaryArgs`` for the defaults.
"""

import keyword

__all__ = ["script_code"]

# (operator, number of arguments) -> each argument's default, as printed (None: no default)
_DEFAULTS = {
    ("add", 3): (None, None, "1"), ("sub", 3): (None, None, "1"), ("rsub", 3): (None, None, "1"),
    ("sum", 2): (None, "None"), ("mean", 2): (None, "None"),
    ("sum", 4): (None, None, "False", "None"), ("mean", 4): (None, None, "False", "None"),
    ("clamp", 3): (None, "None", "None"), ("softmax", 3): (None, None, "None"),
    ("log_softmax", 3): (None, None, "None"), ("linear", 3): (None, None, "None"),
    ("zeros_like", 6): (None, "None", "None", "None", "None", "None"),
    ("ones_like", 6): (None, "None", "None", "None", "None", "None"),
}
_RESERVED = set(keyword.kwlist) | {"_", "torch", "CONSTANTS", "ops", "annotate", "Tensor",
                                   "Tuple", "List", "print", "range", "float", "int", "bool"}


class _Return:
    kind = "prim::Return"

    def __init__(self, inputs):
        self.inputs = list(inputs)
        self.outputs = []


def _literal(node):
    attr = node.attrs
    if not attr:
        return "None"
    val = attr[len("[value="):-1]
    if node.outputs[0].type == "bool":
        return "True" if val == "1" else "False"
    return val


def _base(name):
    head, dot, tail = name.rpartition(".")
    return head if dot and tail.isdigit() else name


def script_code(graph, name):
    """The TorchScript-style code of ``graph`` as a function called ``name``."""
    order = graph.nodes() + [_Return(graph.outputs())]
    pos = {id(n): i for i, n in enumerate(order)}
    uses = {}
    for n in order:
        for k, v in enumerate(n.inputs):
            uses.setdefault(id(v), []).append((n, k))
    inline = set()

    def prev_non_constant(i):
        i -= 1
        while i >= 0 and order[i].kind == "prim::Constant":
            i -= 1
        return i

    def can_inline(v):
        n = v.node
        u = uses.get(id(v), [])
        if len(n.outputs) != 1 or len(u) != 1:
            return False
        return not (v.debug_name is not None and u[0][0].kind != "prim::Return")

    def scan_node(i):
        n = order[i]
        if id(n) in inline:
            return i
        point = prev_non_constant(i)
        for v in reversed(n.inputs):
            p = v.node
            if p is None:
                continue
            if pos[id(p)] == point and can_inline(v):
                point = scan_node(point)
                inline.add(id(p))
            elif p.kind == "prim::Constant":
                inline.add(id(p))
        return point

    scan_node(len(order) - 1)
    for i in range(len(order) - 2, -1, -1):
        scan_node(i)

    used, next_id = set(_RESERVED), {}

    def gen_name(candidate):
        candidate = candidate.replace(".", "_")  # self.0.weight: a name in code
        n = candidate
        while n in used:
            n = candidate + str(next_id.get(candidate, 0))
            next_id[candidate] = next_id.get(candidate, 0) + 1
        used.add(n)
        return n

    text = {}
    constants = {}
    lines = []
    for v in graph.inputs():
        text[id(v)] = gen_name(_base(v.debug_name or "_"))

    def use_of(v):
        if id(v) in text:
            return text[id(v)]
        node = v.node
        if node is not None and node.kind == "prim::Constant":
            if v.type.startswith(("Float(", "Double(", "Long(", "Int(", "Bool(")):
                # one name per distinct value: a number by its value, a larger tensor by itself
                key = node.attrs if "{" in node.attrs else id(node)
                constants.setdefault(key, f"CONSTANTS.c{len(constants)}")
                return constants[key]
            return _literal(node)
        return "<?>"

    def define(v, rhs):
        text[id(v)] = gen_name(_base(v.debug_name) if v.debug_name else "_")
        lines.append(f"  {text[id(v)]} = {rhs}")

    visited = {}

    def scan_long(user, offset, out):
        present = id(user) in visited
        lo = visited[id(user)] + 1 if present else 0
        for i in range(offset, lo - 1, -1):
            a = user.inputs[i]
            if a.node is not None and a.node.kind != "prim::Constant" and id(a.node) in inline:
                out.append(a)
        visited[id(user)] = offset
        if not present and id(user) in inline:
            nxt, k = uses[id(user.outputs[0])][0]
            scan_long(nxt, k - 1, out)

    for n in order:
        if n.kind == "prim::Constant":
            continue
        args = [use_of(v) for v in n.inputs]
        if n.kind == "prim::Return":
            lines.append("  return " + ", ".join(args))
            break
        if n.kind == "prim::TupleConstruct":
            rhs = "(" + ", ".join(args) + ("," if len(args) == 1 else "") + ")"
        elif n.kind == "prim::ListConstruct":
            rhs = "[" + ", ".join(args) + "]"
        else:
            op = n.kind.split("::", 1)[1]
            defaults = _DEFAULTS.get((op, len(args)), ())
            while args and len(args) <= len(defaults) and defaults[len(args) - 1] == args[-1]:
                args.pop()
            rhs = f"torch.{op}(" + ", ".join(args) + ")"
        out = n.outputs[0]
        if id(n) not in inline:
            define(out, rhs)
        else:
            text[id(out)] = rhs
            if len(rhs) + 2 >= 40:  # a long line: split it and the inputs evaluated before it
                split = []
                user, k = uses[id(out)][0]
                scan_long(user, k, split)
                for v in reversed(split):
                    define(v, text[id(v)])
    params = [f"{text[id(v)]}: Tensor" for v in graph.inputs()]
    types = []
    for v in graph.outputs():
        if v.node is not None and v.node.kind == "prim::TupleConstruct":
            types.append("Tuple[" + ", ".join("Tensor" for _ in v.node.inputs) + "]")
        else:
            types.append("Tensor")
    ret = types[0] if len(types) == 1 else "Tuple[" + ", ".join(types) + "]"
    head = f"def {name}(" + ",\n    ".join(params) + f") -> {ret}:"
    return "\n".join([head] + lines) + "\n"
