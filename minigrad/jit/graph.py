"""The static graph and its text: what ``print(traced.graph)`` shows.

A ``Graph`` is the define-then-run form of a program: its inputs, then one
node per operation in the order they ran, each producing values that later
nodes use, then the outputs.  Nothing here is recorded during a forward pass;
the graph exists before any input is given, and can be run again and again.

The text follows TorchScript's IR, as ``print(torch.jit.trace(f, ...).graph)``
prints it::

    graph(%x : Float(3, strides=[1], requires_grad=0, device=cpu),
          %w : Float(3, strides=[1], requires_grad=1, device=cpu)):
      %2 : Float(3, strides=[1], requires_grad=1, device=cpu) = aten::mul(%x, %w) # f.py:4:0
      %3 : NoneType = prim::Constant()
      %z : Float(requires_grad=1, device=cpu) = aten::sum(%2, %3) # f.py:4:0
      %7 : Float(requires_grad=1, device=cpu) = aten::mul(%z, %z) # f.py:5:0
      return (%7)

* every value is ``%name : type``; a tensor's type gives its dtype (``Float``
  is float32, ``Double`` float64, ``Long`` int64, ``Bool``), sizes, strides
  (in elements), ``requires_grad`` and device;
* a value is named after the learner's variable that held it when a later
  operation used it (``%z``); otherwise it shows its number.  Numbers count
  every value ever made, so a value that was made and then removed as dead
  code (here the ``z > 5`` whose result only steered an ``if``: ``%5`` and
  ``%6``) leaves a gap;
* arguments that are not tensors become ``prim::Constant`` nodes (``None``
  for ``sum``'s ``dtype``, ``1`` for ``add``'s ``alpha``), a Python number in
  tensor arithmetic a 0-d tensor constant (``value={1}``);
* ``# file:line:0`` is the learner's line that ran the operation.

What differs from PyTorch, and why: the operation names are those of
minigrad's primitives (the same as ATen's for the common operations; a public
function made of several primitives prints as one node named after it when
PyTorch has that operator, e.g. ``aten::linear``); PyTorch writes the location
of operators it implements in Python (``x ** 2``) as its own file, minigrad as
the learner's line; a constant tensor of more than one element prints as
``value=<Tensor>``.

Source: TorchScript's IR printer (torch/csrc/jit/ir/ir.cpp: ``Graph::print``,
``Value::setDebugName`` with its ``.1`` suffix rule).
"""

import numpy as np

from .._dtype import _ALL, SCALAR_TYPE_NAMES
__all__ = ["Graph", "GraphNode", "GraphValue", "tensor_type_str"]

_DTYPE_WORD = {d.np: SCALAR_TYPE_NAMES[d.name] for d in _ALL}  # float32: "Float", ...


def tensor_type_str(shape, strides, dtype, requires_grad):
    """``Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)``, as TorchScript writes a tensor's type."""
    word = _DTYPE_WORD.get(np.dtype(dtype), "Tensor")
    parts = [str(s) for s in shape]
    if shape:
        parts.append("strides=[" + ", ".join(str(s) for s in strides) + "]")
    parts.append(f"requires_grad={int(bool(requires_grad))}")
    parts.append("device=cpu")
    return f"{word}(" + ", ".join(parts) + ")"


def _float_str(v):
    s = format(v, ".17g")  # as TorchScript prints a double: 0.10000000000000001, 2.
    if s.lstrip("-").isdigit():
        s += "."
    return s


def _scalar_str(v):
    """A 0-d tensor constant's value: ``{1}``, ``{0.1}``, ``{1e-05}``."""
    if isinstance(v, (bool, np.bool_)):
        return "{" + str(int(v)) + "}"
    if isinstance(v, (int, np.integer)):
        return "{" + str(int(v)) + "}"
    return "{" + format(float(v), "g") + "}"


class GraphValue:
    """One value of a ``Graph``: ``unique`` number, optional ``debug_name``, ``type`` text.

    ``value`` is the recording's ``Value`` it stands for (None for constants).
    """

    __slots__ = ("debug_name", "node", "type", "unique", "value")

    def __init__(self, unique, type_, node=None, value=None):
        self.unique = unique
        self.type = type_
        self.node = node
        self.value = value
        self.debug_name = None

    def __str__(self):
        return "%" + (self.debug_name if self.debug_name is not None else str(self.unique))

    def debugName(self):
        """The name printed without the ``%`` (TorchScript's ``Value.debugName()``)."""
        return str(self)[1:]


class GraphNode:
    """One node: ``kind`` (``aten::mul``, ``prim::Constant``), ``inputs``, ``outputs`` (GraphValues).

    Attributes:
        attrs (str): the ``[value=...]`` part of a constant, or ``""``.
        location (tuple[str, int] | None): the learner's file and line.
        steps (list): the recorded primitive steps this node stands for.
    """

    __slots__ = ("attrs", "inputs", "kind", "location", "outputs", "steps")

    def __init__(self, kind, inputs, outputs, attrs="", location=None, steps=()):
        self.kind = kind
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.attrs = attrs
        self.location = location
        self.steps = list(steps)

    def __str__(self):
        if len(self.outputs) == 1:
            lhs = f"{self.outputs[0]} : {self.outputs[0].type}"
        else:
            lhs = ", ".join(f"{o} : {o.type}" for o in self.outputs)
        args = ", ".join(str(i) for i in self.inputs)
        text = f"{lhs} = {self.kind}{self.attrs}({args})"
        if self.location is not None:
            text += f" # {self.location[0]}:{self.location[1]}:0"
        return text

    def __repr__(self):
        return str(self) + "\n"


class Graph:
    """A static graph: ``inputs``, ``nodes`` in execution order, ``outputs``; prints as TorchScript IR.

    Methods mirror the few of ``torch._C.Graph`` a lesson uses: ``inputs()``,
    ``nodes()``, ``outputs()``, ``str()``.  ``edges()`` gives the data-flow
    edges (producer node index, consumer node index, value) for drawing.
    """

    def __init__(self):
        self._inputs = []
        self._nodes = []
        self._outputs = []
        self._next = 0
        self._names = {}
        self._suffix = {}

    # ------------------------------------------------------------ building

    def new_value(self, type_, value=None):
        """A new GraphValue with the next number."""
        v = GraphValue(self._next, type_, value=value)
        self._next += 1
        return v

    def skip(self, n):
        """Use up ``n`` numbers (values made and removed as dead code)."""
        self._next += n

    def add_input(self, gv):
        """Append an input value."""
        self._inputs.append(gv)

    def add_node(self, node):
        """Append a node; its outputs now belong to it."""
        for o in node.outputs:
            o.node = node
        self._nodes.append(node)

    def set_outputs(self, outs):
        """Set the returned values."""
        self._outputs = list(outs)

    def set_debug_name(self, gv, name):
        """Name ``gv``; a value that already has the name becomes ``name.1`` (TorchScript's rule)."""
        if name.isdigit() or not name:
            return
        old = self._names.get(name)
        if old is gv:
            return
        if gv.debug_name is not None:
            self._names.pop(gv.debug_name, None)
        if old is not None:
            base, suffix = name, 1
            head, dot, tail = name.rpartition(".")
            if dot and tail.isdigit():
                base, suffix = head, int(tail)
            suffix = max(suffix, self._suffix.get(base, 0) + 1)
            while f"{base}.{suffix}" in self._names:
                suffix += 1
            self._suffix[base] = suffix
            self._names.pop(name)
            replacement = f"{base}.{suffix}"
            old.debug_name = replacement
            self._names[replacement] = old
        gv.debug_name = name
        self._names[name] = gv

    # ------------------------------------------------------------ reading

    def inputs(self):
        """The graph's inputs (GraphValues)."""
        return list(self._inputs)

    def nodes(self):
        """The nodes in execution order, constants included."""
        return list(self._nodes)

    def outputs(self):
        """The returned values."""
        return list(self._outputs)

    def operations(self):
        """The nodes that compute (not ``prim::Constant`` / ``prim::ListConstruct`` / ``prim::TupleConstruct``)."""
        return [n for n in self._nodes if not n.kind.startswith("prim::")]

    def edges(self):
        """Data-flow edges for a picture: ``(source, node_index, value)``.

        ``source`` is ``("input", k)`` or ``("node", j)``; only operations
        (``operations()`` indices) are nodes here; constants feed as
        ``("constant", text)``.
        """
        ops = self.operations()
        index = {id(n): i for i, n in enumerate(ops)}
        producer = {}
        for k, v in enumerate(self._inputs):
            producer[id(v)] = ("input", k)
        for i, n in enumerate(ops):
            for o in n.outputs:
                producer[id(o)] = ("node", i)
        out = []
        for n in ops:
            for v in n.inputs:
                src = producer.get(id(v))
                if src is None:
                    src = ("constant", _constant_text(v))
                out.append((src, index[id(n)], v))
        return out

    def str(self):
        """The text (as ``torch._C.Graph.str()``)."""
        return self.__str__()

    def __str__(self):
        lines = []
        ins = [f"{v} : {v.type}" for v in self._inputs]
        if ins:
            lines.append("graph(" + (",\n      ").join(ins) + "):")
        else:
            lines.append("graph():")
        for n in self._nodes:
            lines.append("  " + str(n))
        lines.append("  return (" + ", ".join(str(v) for v in self._outputs) + ")")
        return "\n".join(lines) + "\n"

    def __repr__(self):
        return self.__str__()

    def __minigrad_draw__(self, **kwargs):
        from .draw import draw_graph

        return draw_graph(self, **kwargs)


def _constant_text(gv):
    node = gv.node
    if node is None:
        return str(gv)
    if node.kind == "prim::Constant":
        attr = node.attrs
        if not attr:
            return "None"
        val = attr[len("[value="):-1]
        return val.strip("{}")
    if node.kind == "prim::ListConstruct":
        return "[" + ", ".join(_constant_text(i) for i in node.inputs) + "]"
    return str(gv)


def constant_node(graph, obj, location):
    """Add the ``prim::Constant`` (or ``prim::ListConstruct``) node for Python value ``obj``; its value."""
    if isinstance(obj, (list, tuple)) and all(isinstance(e, (int, np.integer)) for e in obj):
        elems = [constant_node(graph, int(e), location) for e in obj]
        lst = graph.new_value("int[]")
        graph.add_node(GraphNode("prim::ListConstruct", elems, [lst]))
        return lst
    if obj is None:
        v = graph.new_value("NoneType")
        graph.add_node(GraphNode("prim::Constant", [], [v]))
        return v
    if isinstance(obj, (bool, np.bool_)):
        type_, attr = "bool", f"[value={int(obj)}]"
    elif isinstance(obj, (int, np.integer)):
        type_, attr = "int", f"[value={int(obj)}]"
    elif isinstance(obj, (float, np.floating)):
        type_, attr = "float", f"[value={_float_str(float(obj))}]"
    elif isinstance(obj, str):
        type_, attr = "str", f'[value="{obj}"]'
    else:
        type_, attr = "Any", f"[value={obj!r}]"
    v = graph.new_value(type_)
    graph.add_node(GraphNode("prim::Constant", [], [v], attr, location))
    return v


def tensor_constant_node(graph, data, location, wrapped):
    """A ``prim::Constant`` holding a tensor: ``value={2}`` for a 0-d one, else ``value=<Tensor>``."""
    arr = np.asarray(data)
    if wrapped:
        # a Python number in tensor arithmetic: Long for int, Double for float
        kind = arr.dtype.kind
        dt = np.dtype(np.int64) if kind in "iu" else (np.dtype(np.bool_) if kind == "b"
                                                     else np.dtype(np.float64))
    else:
        dt = arr.dtype
    item = arr.itemsize or 1
    type_ = tensor_type_str(arr.shape, tuple(s // item for s in arr.strides), dt, False)
    attr = f"[value={_scalar_str(arr.item())}]" if arr.ndim == 0 else "[value=<Tensor>]"
    v = graph.new_value(type_)
    graph.add_node(GraphNode("prim::Constant", [], [v], attr, location))
    return v
