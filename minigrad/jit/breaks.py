"""Graph breaks: a function's recording cut where Python decides on a tensor's value.

A recording (``recording.py``) is a straight list of operations with, here
and there, a *decision*: the Python code turned a tensor into a Python value
(``if z > 5:`` calls ``bool``; ``t.item()``).  A static graph cannot contain
a decision, so the recording is cut at each one: the operations before it
become one compiled graph (``replay.py``), which outputs the decided value and
every value used after it; then comes the decision, taken in Python at each
call on the replayed value; then, for each outcome seen, what the recording
did next.  The compiled function is thus a tree of ``PathNode`` s: a graph,
then either the result, or a decision with one child per outcome.

When a call takes an outcome not seen before, the function is recorded again
from the start (the graphs before the decision are deterministic, so the new
recording must agree with them, which is checked) and the new branch is
grafted on (``_extend``).  Values a new branch reads from an earlier graph are
added to that graph's outputs.  A number decided by ``.item()`` that takes a
second value makes the graph after it read the number instead (``_generalize``).

Source: TorchDynamo's graph breaks and resume functions
(torch/_dynamo/symbolic_convert.py: ``generic_jump``, ``create_call_resume_at``):
Dynamo splits the bytecode instead; here the recording is split.
"""

import time

from .recording import Value
from .replay import Region
from .trace import record_call

__all__ = ["PathNode", "Paths", "Unsupported"]


class Unsupported(RuntimeError):
    """A graph break under ``fullgraph=True`` (``torch._dynamo.exc.Unsupported``)."""


_BREAK_REASONS = {
    "bool": "generic_jump TensorVariable()",
    "item": "Unsupported Tensor.item() call with capture_scalar_outputs=False",
    "tolist": "Unsupported Tensor.tolist() call",
    "numpy": "Unsupported Tensor.numpy() call",
    "float": "Unsupported: converting a tensor to a Python float",
    "int": "Unsupported: converting a tensor to a Python integer",
    "index": "Unsupported: converting a tensor to a Python index",
}
_BREAK_EXPLANATIONS = {
    "bool": "data-dependent branching: the code takes a Python decision on a tensor's value",
    "item": "a tensor's value is turned into a Python number (Tensor.item())",
}


# what PyTorch raises under fullgraph=True: its first line, then its explanation
_FULLGRAPH_MESSAGES = {
    "bool": ("Data-dependent branching",
             "Detected data-dependent branching (e.g. `if my_tensor.sum() > 0:`). Dynamo does not "
             "support tracing dynamic control flow."),
    "item": ("Unsupported Tensor.item() call with capture_scalar_outputs=False",
             "Dynamo does not support tracing `Tensor.item()` with "
             "config.capture_scalar_outputs=False."),
}


def _key(result):
    """A dictionary key for a decision's outcome (lists and arrays included)."""
    if isinstance(result, list):
        return ("list", tuple(_key(r) for r in result))
    if hasattr(result, "tobytes"):
        return ("array", result.shape, str(result.dtype), result.tobytes())
    if isinstance(result, float) and result != result:
        return ("nan",)
    return (type(result).__name__, result)


def _convert(kind, t):
    if kind == "bool":
        return bool(t)
    if kind == "float":
        return float(t)
    if kind == "int":
        return int(t)
    if kind == "index":
        return t.__index__()
    if kind == "item":
        return t.item()
    if kind == "tolist":
        return t.tolist()
    return t.numpy()


class PathNode:
    """One link of a compiled path: a region (or none), then a return, a decision, or eager code.

    Attributes:
        region (Region | None); kind (str): ``"return"``, ``"decision"`` or ``"eager"``;
        decision (Decision); children (dict): outcome -> PathNode, one per outcome seen;
        output: the result's structure (``"return"``); reason (str): why ``"eager"``.
    """

    __slots__ = ("children", "decision", "kind", "output", "reason", "region", "raw", "generic",
                 "generic_value", "generic_tried")

    def __init__(self, kind, region=None):
        self.kind = kind
        self.region = region
        self.children = {}
        self.decision = None
        self.output = None
        self.reason = None
        self.raw = []
        self.generic = None        # a child for every number (see _generalize)
        self.generic_value = None  # the Value its graph reads the number from
        self.generic_tried = False


class Paths:
    """The graph-break half of a compiled function: builds and grafts its tree of PathNodes.

    ``CompiledFunction`` (``compile.py``) inherits it; it uses ``graphs``,
    ``breaks``, ``fallbacks``, ``compile_seconds``, ``fullgraph`` and ``dynamic``.
    """

    def _extend(self, entry, node, args, kwargs):
        """A decision took an outcome not seen before: record again and graft the new branch."""
        t0 = time.perf_counter()
        rec, _, _ = record_call(self.fn, args, kwargs, "compile")
        vmap = {}
        for new, old in zip(rec.inputs, entry.inputs):
            vmap[id(new)] = old
        old_captured = {id(v.tensor): v for v in entry.captured}
        for v in rec.values:
            if v.kind == "captured" and id(v.tensor) in old_captured:
                vmap[id(v)] = old_captured[id(v.tensor)]
        cur = entry.root
        start = 0
        for di, d in enumerate(rec.decisions + [None]):
            end = d.position if d is not None else len(rec.steps)
            raw = rec.steps[start:end]
            if not _same_steps(cur.raw, raw, vmap, shapes=not entry.dynamic):
                cur.kind = "eager"
                cur.reason = "the function recorded different operations on a second run"
                self.fallbacks.append(cur.reason)
                return
            for old_s, new_s in zip(cur.raw, raw):
                for o_old, o_new in zip(old_s.outputs, new_s.outputs):
                    vmap[id(o_new)] = o_old
            if d is None or cur.kind != "decision":
                return  # nothing new (cannot happen for a deterministic function)
            outcome = _key(d.result)
            child = cur.children.get(outcome)
            if child is None:
                # the new branch: what it reads from the shared prefix must leave those regions
                child = self._build_path(rec, di + 1, end, vmap, entry.dynamic)
                if not self._generalize(cur, child, d.result):
                    cur.children[outcome] = child
                self._export_needed(entry.root, rec, vmap)
                self.compile_seconds.append(time.perf_counter() - t0)
                return
            cur = child
            start = end

    def _generalize(self, node, child, result):
        """The second number seen at a ``.item()``: make the graph after it read the number.

        As PyTorch (which then treats the number as symbolic), from the second
        value on the graph after the break takes the number as an input, if
        the two recordings differ only in that number (used as a Python number
        in tensor arithmetic); otherwise each value keeps its own graph.
        Returns True if ``child`` became the decision's generic child.
        """
        d = node.decision
        if (self.dynamic is False or node.generic_tried or d.kind not in ("item", "float", "int")
                or len(node.children) != 1 or type(result) not in (int, float)):
            return False
        node.generic_tried = True
        (old_key, old), = node.children.items()
        old_result = old_key[1]
        if type(old_result) is not type(result) or old_result == result:
            return False
        if (old.kind != "return" or child.kind != "return" or old.region is None
                or child.region is None):
            return False
        old_steps, new_steps = old.region.raw_steps, child.region.raw_steps
        if not _same_steps(old_steps, new_steps, {}, shapes=True, number=(old_result, result)):
            return False
        if _uses_number(child.output, result) or _uses_number(old.output, old_result):
            return False
        scalar = Value(-1, "scalar", _wrap_scalar(result))
        scalar.index = 10**9 + len(self.graphs)  # a name of its own in the generated code
        for st in new_steps:
            st.args = tuple(scalar if _is_number(a, result) else a for a in st.args)
        region = child.region
        region.raw_steps = new_steps
        region.dynamic = True  # no traced formulas: they could bake the number in
        region._programs = {}
        region._build()
        node.generic = child
        node.generic_value = scalar
        return True

    def _export_needed(self, root, rec, vmap):
        """Make every prefix region output the values later regions (on any path) read."""
        regions = []
        _collect_regions(root, regions)
        made_in = {}
        for r in regions:
            for s in r.raw_steps:
                for o in s.outputs:
                    made_in[id(o)] = r
        for r in regions:
            for s in r.steps:
                for a in s.args:
                    for e in (a if isinstance(a, (tuple, list)) else (a,)):
                        owner = made_in.get(id(e)) if isinstance(e, Value) else None
                        if owner is not None and owner is not r:
                            owner.add_output(e)
        for node in _nodes(root):
            if node.kind == "decision":
                owner = made_in.get(id(node.decision.value))
                if owner is not None:
                    owner.add_output(node.decision.value)
            if node.kind == "return":
                for v in _values_in(node.output):
                    owner = made_in.get(id(v))
                    if owner is not None:
                        owner.add_output(v)

    def _build_path(self, rec, first_decision, start, vmap, dynamic=False):
        """PathNodes for the rest of a recording, from decision index ``first_decision`` on."""
        def mapped(obj):
            if isinstance(obj, Value):
                return vmap.get(id(obj), obj)
            if isinstance(obj, (tuple, list)):
                return type(obj)(mapped(o) for o in obj)
            if isinstance(obj, dict):
                return {k: mapped(o) for k, o in obj.items()}
            return obj

        if rec.unsupported:
            node = PathNode("eager")
            node.reason = rec.unsupported[0][0]
            self.fallbacks.append(node.reason)
            self.breaks.append({"reason": "unsupported: " + node.reason, "kind": "unsupported",
                                "location": rec.unsupported[0][1]})
            return node
        if vmap:  # the public calls' arguments too, for the regions' graph text
            for info in rec.groups.values():
                info["args"] = {k: mapped(v) for k, v in info.get("args", {}).items()}
        decisions = rec.decisions[first_decision:]
        # which values leave each segment: read later (steps, decisions, result)
        later_reads = _reads_after(rec, vmap)
        head = None
        prev = None
        for d in decisions + [None]:
            end = d.position if d is not None else len(rec.steps)
            raw = [_remap_step(s, vmap) for s in rec.steps[start:end]]
            made = [o for s in raw for o in s.outputs]
            outs = []
            if d is not None and any(mapped(d.value) is o for o in made):
                outs.append(mapped(d.value))
            for o in made:
                if later_reads.get(id(o), -1) >= end and all(o is not x for x in outs):
                    outs.append(o)
            region = None
            if raw and outs:
                records = any(s.needs and any(s.needs) for s in raw)
                region = Region(raw, outs, len(self.graphs) + 1, records, rec, dynamic,
                                getattr(self, "backend", "aot_eager"))
                self.graphs.append(region)
            node = PathNode("decision" if d is not None else "return", region)
            node.raw = raw
            if d is not None:
                d.value = mapped(d.value)
                node.decision = d
                self.breaks.append({"reason": _BREAK_REASONS[d.kind], "kind": d.kind,
                                    "location": d.location})
                if self.fullgraph:
                    where = f"{d.location[0]}:{d.location[1]}" if d.location else "?"
                    title, explanation = _FULLGRAPH_MESSAGES.get(
                        d.kind, (_BREAK_REASONS[d.kind], _BREAK_EXPLANATIONS.get(d.kind, "")))
                    raise Unsupported(f"{title}\n  Explanation: {explanation}\n\n  (graph "
                                      f"break at {where}; fullgraph=True allows none)")
            else:
                node.output = mapped(rec.output)
            if head is None:
                head = node
            else:
                prev.children[_key(prev.decision.result)] = node
            prev = node
            start = end
        return head


def _wrap_scalar(v):
    from ..ops._util import wrap_scalar

    return wrap_scalar(v)


def _is_number(a, number):
    """A wrapped Python number equal to ``number`` (of the same type)."""
    if not isinstance(a, Value) or a.kind != "wrapped":
        return False
    item = a.tensor._data.item()
    return type(item) is type(number) and item == number


def _uses_number(spec, number):
    if isinstance(spec, (tuple, list)):
        return any(_uses_number(s, number) for s in spec)
    if isinstance(spec, dict):
        return any(_uses_number(s, number) for s in spec.values())
    return type(spec) is type(number) and spec == number


def _remap_step(step, vmap):
    """The step with its arguments read through ``vmap`` (values of an earlier recording)."""
    if not vmap:
        return step
    args = tuple(vmap.get(id(a), a) if isinstance(a, Value) else
                 (type(a)(vmap.get(id(e), e) if isinstance(e, Value) else e for e in a)
                  if isinstance(a, (tuple, list)) else a) for a in step.args)
    step.args = args
    return step


def _reads_after(rec, vmap):
    """For each value, the step position of its last read (decisions and the result count as the end)."""
    last = {}
    for i, s in enumerate(rec.steps):
        for a in s.args:
            for e in (a if isinstance(a, (tuple, list)) else (a,)):
                if isinstance(e, Value):
                    last[id(vmap.get(id(e), e))] = i
                    last[id(e)] = i
    for d in rec.decisions:
        v = d.value
        last[id(v)] = max(last.get(id(v), -1), d.position)
    for v in _values_in(rec.output):
        last[id(v)] = len(rec.steps) + 1
    return last


def _values_in(obj):
    if isinstance(obj, Value):
        yield obj
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            yield from _values_in(o)
    elif isinstance(obj, dict):
        for o in obj.values():
            yield from _values_in(o)


def _nodes(root):
    stack = [root]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.children.values())


def _collect_regions(root, out):
    for n in _nodes(root):
        if n.region is not None:
            out.append(n.region)


def _const_key(a):
    if hasattr(a, "tobytes"):
        return ("array", a.shape, str(a.dtype), a.tobytes())
    if isinstance(a, slice):
        return ("slice", a.start, a.stop, a.step)
    try:
        hash(a)
        return a
    except TypeError:
        return repr(a)


def _step_sig(s, vmap, shapes=True, number=None):
    def arg(a):
        if isinstance(a, Value):
            if number is not None and _is_number(a, number):
                return ("number",)
            if a.kind == "wrapped":
                return ("w", a.tensor._data.dtype.str, a.tensor._data.item())
            return ("v", id(vmap.get(id(a), a)))
        if isinstance(a, (tuple, list)):
            return tuple(arg(e) for e in a)
        return ("c", _const_key(a))

    return (s.kind, s.op, s.needs, s.data_pos, tuple(arg(a) for a in s.args),
            tuple(sorted((k, _const_key(v)) for k, v in s.kwargs.items())),
            tuple((o.shape if shapes else len(o.shape), o.dtype.str, o.requires_grad)
                  for o in s.outputs))


def _same_steps(old, new, vmap, shapes=True, number=None):
    """True if two recordings ran the same operations on the same arguments.

    Sizes aside if not ``shapes``; with ``number=(a, b)``, a wrapped Python
    number ``a`` in ``old`` matches ``b`` in ``new``.
    """
    if len(old) != len(new):
        return False
    local = dict(vmap)
    na, nb = number if number is not None else (None, None)
    for a, b in zip(old, new):
        if _step_sig(a, {}, shapes, na) != _step_sig(b, local, shapes, nb):
            return False
        for oa, ob in zip(a.outputs, b.outputs):
            local[id(ob)] = oa
    return True


def _captured_values(rec):
    return [v for v in rec.values if v.kind == "captured"]
