"""``minigrad.compile``: static graphs that stay correct when the Python code branches on a tensor.

``compile(fn, backend="aot_eager")`` returns a function that behaves like
``fn``.  The first call records ``fn`` (``recording.py``); each later call
checks the recorded assumptions (the *guards*, ``guards.py``) and, when they
hold, replays compiled code instead of running ``fn`` (``replay.py``).

**Graph breaks.**  Where the Python code turns a tensor into a Python value,
``if z > 5:`` (``bool``), ``t.item()``, ``float(t)``, the static graph cannot
go on: what happens next depends on a value known only at run time.  The
recording is cut there.  The graph before the cut is compiled and outputs the
value the decision needs (``z > 5``) and every value used after it; the
decision is taken in Python, on the replayed value, every call; and the code
after it is compiled separately for each outcome seen, the first time that
outcome happens.  So ``f`` below gets the right answer on both sides of the
branch, with three graphs: the one before the ``if`` (``mul``, ``sum``,
``gt``), the one for ``z * z``, the one for ``z + 1``::

    def f(x, w):
        z = (x * w).sum()
        return z * z if z > 5 else z + 1

    cf = minigrad.compile(f, backend="aot_eager")
    cf(x, w)           # z = 6: graphs 1 and 2 compiled; tensor(36., grad_fn=<CompiledFunctionBackward>)
    cf(x / 10, w)      # z = 0.6: graph 1 replayed, graph 3 compiled: tensor(1.6000, grad_fn=...)

**Recompiles.**  A call whose guards fail (another shape, dtype,
``requires_grad``, grad mode, Python argument) compiles a new version of the
function, kept beside the others (a size that changed is left free in the new
version when that is sound: automatic dynamic shapes, as PyTorch's default); after ``config.recompile_limit`` (8)
versions, further new kinds of call run ``fn`` eagerly, with PyTorch's
warning.  ``jit.explain`` reports what was compiled, where the graph broke
and why, the guards, and which guard failed for each recompile.

What differs from PyTorch, and why: Dynamo reads the function's bytecode, so
the Python code between graphs runs on every call (a ``print`` is itself a
graph break there).  minigrad sees only tensor operations and the places
where a tensor becomes a Python value; the Python code between them runs only
while recording, as with ``jit.trace``: keep compiled functions free of side
effects other than computing tensors (as PyTorch recommends).  A number
obtained from a tensor (``t.item()``) is guarded by its value for the first
value; from the second on, as in PyTorch, the graph after the break takes the
number as an input, provided the number is only used as a Python number in
tensor arithmetic (``y * v``); where it is an argument (``x ** v``) each value
keeps a graph of its own, up to the limit (PyTorch's number would be symbolic).
In-place operations, or a tensor made outside the operations minigrad
records, make that path run eagerly (reported by ``explain``).

Source: ``torch.compile`` (torch/__init__.py) with TorchDynamo
(torch/_dynamo: ``eval_frame``, ``convert_frame``, ``guards``; graph breaks
and resume functions in ``symbolic_convert.py``; ``config.recompile_limit``)
and the ``aot_eager`` backend (torch/_dynamo/backends/debugging.py).
"""

import functools
import logging
import time

from ..tensor import Tensor
from .guards import GuardSet, flatten_inputs, globals_read
from .recording import Value
from .replay import Region
from .trace import record_call

__all__ = ["InvalidBackend", "Unsupported", "compile", "config", "reset"]

_log = logging.getLogger("minigrad.jit")


class _Config:
    """Settings, as ``torch._dynamo.config``: ``recompile_limit`` (8) versions per function."""

    recompile_limit = 8

    @property
    def cache_size_limit(self):
        """The older name of ``recompile_limit``."""
        return self.recompile_limit

    @cache_size_limit.setter
    def cache_size_limit(self, v):
        self.recompile_limit = v


config = _Config()


class InvalidBackend(RuntimeError):
    """``compile`` was given a backend minigrad does not have (``torch._dynamo.exc.InvalidBackend``)."""


class Unsupported(RuntimeError):
    """A graph break under ``fullgraph=True`` (``torch._dynamo.exc.Unsupported``)."""


_BACKENDS = ("aot_eager",)
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


class Entry:
    """One compiled version of the function: its guards and the root of its paths."""

    __slots__ = ("guards", "root", "tensor_slots", "captured", "inputs", "number", "dynamic",
                 "first")

    def __init__(self, guards, root, tensor_slots, captured, inputs, number, dynamic=False):
        self.dynamic = dynamic  # some sizes are free (automatic dynamic shapes)
        self.first = None       # its first recording (steps, decisions), to compare another with
        self.guards = guards
        self.root = root
        self.tensor_slots = tensor_slots
        self.captured = captured
        self.inputs = inputs
        self.number = number


_frames = [0]  # frame ids, as Dynamo numbers the code objects it compiles ("0/1" = frame 0, version 1)


def reset():
    """Start numbering compiled functions from 0 again (as ``torch._dynamo.reset`` does)."""
    _frames[0] = 0


class CompiledFunction:
    """The state behind a compiled function: its versions, graphs, graph breaks, recompiles.

    Attributes (read by ``jit.explain``):
        entries (list[Entry]); graphs (list[Region]) in the order compiled;
        breaks (list[dict]): each graph break met (``reason``, ``location``, ``kind``);
        recompiles (list[dict]): for each version after the first, the guard
            failures that caused it; fallbacks (list[str]): why calls ran eagerly;
        compile_seconds (list[float]): time spent recording and compiling, per compile.
    """

    def __init__(self, fn, backend, fullgraph, dynamic=None):
        self.dynamic = dynamic
        self._dynamic_dims = {}   # source -> dims seen with different sizes (PyTorch's frame state)
        self._dynamic_failed = False
        self.fn = fn
        self.backend = backend
        self.fullgraph = fullgraph
        self.entries = []
        self.graphs = []
        self.breaks = []
        self.recompiles = []
        self.fallbacks = []
        self.compile_seconds = []
        self._limit_warned = False
        self.frame = None  # Dynamo's frame id, given at the first compile

    # ------------------------------------------------------------ calls

    def __call__(self, *args, **kwargs):
        flat = flatten_inputs(self.fn, args, kwargs)
        failures = []
        for entry in self.entries:
            fail = entry.guards.check(flat)
            if fail is None:
                return self._run(entry, flat, args, kwargs)
            failures.append(f"{self.frame}/{entry.number}: {fail}")  # PyTorch: frame/version
        if len(self.entries) >= config.recompile_limit:
            if not self._limit_warned:
                self._limit_warned = True
                name = getattr(self.fn, "__name__", type(self.fn).__name__)
                code = getattr(getattr(self.fn, "__code__", None), "co_filename", "?")
                line = getattr(getattr(self.fn, "__code__", None), "co_firstlineno", "?")
                _log.warning(
                    "torch._dynamo hit config.recompile_limit (%d)\n   function: '%s' (%s:%s)\n"
                    "   last reason: %s\nTo log all recompilation reasons, use "
                    "TORCH_LOGS=\"recompiles\".", config.recompile_limit, name, code, line,
                    failures[-1] if failures else "")
            self.fallbacks.append("recompile_limit reached: " + (failures[-1] if failures else ""))
            return self.fn(*args, **kwargs)
        if self.entries:
            self.recompiles.append({"version": len(self.entries), "failures": list(reversed(failures))})
        entry = self._compile_entry(args, kwargs, flat, self._new_dynamic_dims(flat))
        return self._run(entry, flat, args, kwargs)

    def _new_dynamic_dims(self, flat):
        """Automatic dynamic shapes: the dims whose size differs from the first version's.

        Only when the call differs from it in sizes alone (same dtype, rank and
        ``requires_grad``), and never with ``dynamic=False``; a call whose size
        is 0 or 1 gets a version with exact sizes (PyTorch's 0/1 specialisation).
        """
        if self.dynamic is False or not self.entries or self._dynamic_failed:
            return {}
        first = self.entries[0].guards
        changed = False
        for k, g in first._input_guards:
            obj = flat[k][1] if k < len(flat) else None
            if g.kind != "TENSOR_MATCH" or not isinstance(obj, Tensor):
                continue
            shape = obj._data.shape
            if (obj._data.dtype != g.dtype or len(shape) != len(g.shape)
                    or bool(obj._requires_grad) != g.requires_grad):
                continue
            dims = {i for i, (e, a) in enumerate(zip(g.shape, shape)) if e != a}
            known = self._dynamic_dims.setdefault(g.source, set())
            if dims - known:
                known |= dims
                changed = True
        if not changed and not any(self._dynamic_dims.values()):
            return {}
        out = {}
        for source, obj in flat:
            dims = self._dynamic_dims.get(source)
            if dims and isinstance(obj, Tensor):
                if any(obj._data.shape[i] < 2 for i in dims if i < obj._data.ndim):
                    return {}  # a size 0 or 1 is never dynamic: this version guards it exactly
                out[source] = frozenset(dims)
        return out

    def _run(self, entry, flat, args, kwargs):
        env = {}
        for v, k in zip(entry.inputs, entry.tensor_slots):
            env[id(v)] = flat[k][1]
        for v in entry.captured:
            env[id(v)] = v.getter() if v.getter is not None else v.tensor
        node = entry.root
        while True:
            region = node.region
            if region is not None:
                outs = region.run([env[id(v)] if id(v) in env else _captured(v)
                                   for v in region.inputs])
                for v, t in zip(region.outputs, outs):
                    env[id(v)] = t
            kind = node.kind
            if kind == "return":
                return _build(node.output, env)
            if kind == "eager":
                return self.fn(*args, **kwargs)
            d = node.decision
            t = env.get(id(d.value))
            outcome = _convert(d.kind, d.value.tensor if t is None else t)
            child = node.children.get(_key(outcome))
            if child is None and node.generic is not None:
                child = node.generic  # the number is an input of the next graph
                env[id(node.generic_value)] = _wrap_scalar(outcome)
            if child is None:
                if len(node.children) >= config.recompile_limit:
                    # as PyTorch's limit per resume function: this decision has had enough
                    self.fallbacks.append("recompile_limit reached after the graph break at "
                                          f"line {d.location[1] if d.location else '?'}")
                    return self.fn(*args, **kwargs)
                self._extend(entry, node, args, kwargs)
                return self._run(entry, flat, args, kwargs)
            node = child

    # ------------------------------------------------------------ compiling

    def _compile_entry(self, args, kwargs, flat, dynamic=None):
        t0 = time.perf_counter()
        if self.frame is None:
            self.frame = _frames[0]
            _frames[0] += 1
        rec, _, _ = record_call(self.fn, args, kwargs, "compile")
        if dynamic:
            # sound only if nothing read the sizes: the same operations and arguments as at the
            # first version's sizes; else every size stays guarded from now on
            first = self.entries[0]
            steps0, decisions0 = first.first
            vmap = {id(new): old for new, old in zip(rec.inputs, first.inputs)}
            old_captured = {id(v.tensor): v for v in first.captured}
            for v in rec.values:
                if v.kind == "captured" and id(v.tensor) in old_captured:
                    vmap[id(v)] = old_captured[id(v.tensor)]
            if not (_same_steps(steps0, rec.steps, vmap, shapes=False)
                    and [(d.kind, d.position) for d in decisions0]
                    == [(d.kind, d.position) for d in rec.decisions]):
                dynamic = {}
                self._dynamic_failed = True
        captured = _captured_values(rec)
        guards = GuardSet(flat, captured, globals_read(self.fn), dynamic)
        slots = [k for k, (_, obj) in enumerate(flat) if isinstance(obj, Tensor)]
        inputs = list(rec.inputs)
        entry = Entry(guards, None, slots, captured, inputs, len(self.entries), bool(dynamic))
        entry.first = (list(rec.steps), list(rec.decisions))
        entry.root = self._build_path(rec, 0, 0, {}, entry.dynamic)
        self.entries.append(entry)
        self.compile_seconds.append(time.perf_counter() - t0)
        return entry

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
                region = Region(raw, outs, len(self.graphs) + 1, records, rec, dynamic)
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
                    raise Unsupported(f"{_BREAK_REASONS[d.kind]} (graph break at {where}, "
                                      "fullgraph=True)")
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


def _captured(v):
    """A captured tensor first met on a later path: read it by its source again, or as kept."""
    return v.getter() if v.getter is not None else v.tensor


_OPTIMIZED = []


def _optimized_module():
    """The ``OptimizedModule`` class (made on first use: ``nn`` imports after ``jit``)."""
    if not _OPTIMIZED:
        from ..nn.modules.module import Module

        class OptimizedModule(Module):
            """What ``compile`` returns for a Module: it calls the compiled module (``_orig_mod``).

            Prints, names its parameters (``_orig_mod.0.weight``) and trains like
            the module it wraps, as PyTorch's ``OptimizedModule``
            (torch/_dynamo/eval_frame.py).
            """

            def __init__(self, mod, compiled):
                super().__init__()
                self._orig_mod = mod
                self.__dict__["_compiled_call"] = compiled

            def forward(self, *args, **kwargs):
                """Run the compiled module."""
                return self.__dict__["_compiled_call"](*args, **kwargs)

        OptimizedModule.__module__ = "minigrad.jit.compile"
        _OPTIMIZED.append(OptimizedModule)
    return _OPTIMIZED[0]


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

    return (s.kind, s.op, s.needs, tuple(arg(a) for a in s.args),
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


def _build(spec, env):
    if isinstance(spec, Value):
        t = env.get(id(spec))
        return spec.tensor if t is None else t
    if isinstance(spec, tuple):
        return tuple(_build(s, env) for s in spec)
    if isinstance(spec, list):
        return [_build(s, env) for s in spec]
    if isinstance(spec, dict):
        return {k: _build(s, env) for k, s in spec.items()}
    return spec


def compile(model=None, *, fullgraph=False, dynamic=None, backend="aot_eager", mode=None,
            options=None, disable=False):
    """Compile ``model`` (a function or a ``Module``) into guarded static graphs (``torch.compile``).

    Args:
        model: the function to compile; or None, to use ``compile`` as a
            decorator with arguments (``@minigrad.compile(backend="aot_eager")``).
        backend (str): ``"aot_eager"`` (the default here; PyTorch's default,
            ``"inductor"``, generates C++ and is not available): regions are
            replayed as generated code with one ``CompiledFunctionBackward``
            node each.
        fullgraph (bool): raise ``Unsupported`` at the first graph break instead of splitting.
        disable (bool): return ``model`` itself.
        dynamic (bool | None): None (the default, as PyTorch's): automatic
            dynamic shapes: a dim whose size changed between calls is not
            guarded in the next version, if recording showed that nothing read
            it; False: every size guarded, one version per size; True: as None
            (minigrad needs to see a second size before freeing a dim).
        mode, options: accepted for PyTorch compatibility.

    Returns:
        A function with ``model``'s name and signature; for a Module, an
        ``OptimizedModule`` wrapping it (as PyTorch).  ``minigrad.jit.explain``
        reports what it compiled.

    Raises:
        InvalidBackend: "Invalid backend: 'inductor', see ..." for a backend other
            than "aot_eager" (PyTorch's first sentence).

    Source: ``torch.compile`` (PyTorch 2.13) with the ``aot_eager`` backend.
    """
    if model is None:
        return functools.partial(compile, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                                 mode=mode, options=options, disable=disable)
    if not isinstance(backend, str) or backend not in _BACKENDS:
        raise InvalidBackend(
            f"Invalid backend: {backend!r}, see `torch._dynamo.list_backends()` for available "
            "backends. (minigrad.compile has 'aot_eager' and 'eager'; 'inductor' would "
            "generate C++ code, which minigrad does not do.)"
        )
    if disable:
        return model
    state = CompiledFunction(model, backend, fullgraph, dynamic)

    def compiled(*args, **kwargs):
        return state(*args, **kwargs)

    from ..nn.modules.module import Module

    if isinstance(model, Module):
        wrapper = _optimized_module()(model, compiled)
        wrapper._minigrad_compiled = state
        return wrapper

    if isinstance(getattr(model, "__name__", None), str):
        functools.update_wrapper(compiled, model, updated=())
    else:  # a Module (or another callable object): named after its class
        compiled.__name__ = compiled.__qualname__ = type(model).__name__
        compiled.__doc__ = type(model).__doc__
    compiled._minigrad_compiled = state
    compiled._torchdynamo_orig_callable = model
    return compiled


