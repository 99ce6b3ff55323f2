"""Recording a function's primitives into a static list of steps: what ``jit.trace`` and ``compile`` see.

Eager minigrad records a *graph of nodes* as a side effect of computing
(define-by-run).  To get a *static* graph (define-then-run) we run the
function once on example inputs with a ``Recorder`` switched on; it sees

* every call of ``Function.apply`` (one line in ``autograd/function.py``
  hands the call to ``Recorder._on_apply`` while a recorder is active; when
  none is, that line costs one comparison): the primitive, its arguments,
  its outputs;
* the few tensor operations that are not ``Function`` s, because they are
  never differentiated: comparisons and logic (``z > 5``), ``detach``, the
  factories (``zeros_like``, ``randn``, ...); they are wrapped only while the
  recorder is active;
* every place the Python code turns a tensor into a Python value
  (``bool(z > 5)`` in an ``if``, ``float(t)``, ``int(t)``, ``t.item()``,
  ``t.tolist()``, ``t.numpy()``): a *decision* the recording cannot
  follow, because from then on the program is ordinary Python.

Each tensor met is a ``Value``: an input of the function, the output of a
recorded step, a wrapped Python number (``x * 2``), or a tensor that was
already there (a global, a closure variable, a module's parameter: *captured*).
The result is a ``Recording``: inputs, steps in order, decisions, and the
function's output structure.  ``jit.trace`` turns it into a TorchScript-style
``Graph``; ``compile`` cuts it into regions at the decisions.

Source: PyTorch's tracer (torch/csrc/jit/frontend/tracer.cpp: every ATen
operator call is recorded while a ``TracingState`` is active, and converting a
traced tensor to a Python value warns: ``TracerWarning``) and
``torch.jit._trace._create_interpreter_name_lookup_fn`` (values are named after
the Python variable that holds them).
"""

import os
import sys
import warnings
import weakref

import numpy as np

from ..autograd import function as _function
from ..autograd import grad_mode
from ..tensor import Tensor

__all__ = ["Decision", "Recorder", "Recording", "Step", "TracerWarning", "Value", "user_frame"]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_JIT_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


class TracerWarning(Warning):
    """Warned when a trace may not generalise: a tensor turned into a Python value (``torch.jit.TracerWarning``)."""


def user_frame(depth=1):
    """The innermost frame outside the minigrad package (the learner's code), or None."""
    f = sys._getframe(depth)
    while f is not None and f.f_code.co_filename.startswith(_PACKAGE_DIR):
        f = f.f_back
    return f


class Value:
    """One tensor of a recording.

    Attributes:
        index (int): order of first appearance in the recording.
        kind (str): ``"input"`` (an argument of the function), ``"step"``
            (made by a recorded step), ``"wrapped"`` (a Python number turned
            into a 0-d tensor, as ``x * 2`` does), ``"captured"`` (a tensor
            that existed before the call: a global, a closure variable, a
            parameter).
        shape (tuple[int, ...]), dtype (numpy dtype), strides (tuple[int, ...],
            in elements), requires_grad (bool): what the tensor was when recorded.
        step (Step | None), out_nr (int): the step that made it, and which of
            its outputs it is.
        source (str | None): where an input or captured tensor comes from,
            in Dynamo's notation: ``L['x']``, ``G['w']``.
        tensor: the tensor itself for wrapped and captured values (kept);
            None for inputs and step outputs (not kept once recording ends).
    """

    __slots__ = ("dtype", "index", "kind", "out_nr", "requires_grad", "shape", "source",
                 "step", "strides", "tensor", "getter", "pos", "name")

    def __init__(self, index, kind, t, source=None):
        self.index = index
        self.kind = kind
        data = t._data
        self.shape = tuple(data.shape)
        self.dtype = data.dtype
        item = data.itemsize or 1
        self.strides = tuple(s // item for s in data.strides)
        self.requires_grad = bool(t._requires_grad)
        self.step = None
        self.out_nr = 0
        self.source = source
        self.tensor = t if kind in ("wrapped", "captured") else None
        self.getter = None   # for a captured value found by name: reads it again
        self.pos = None      # for an input: its position among the flattened inputs
        self.name = None     # the learner's variable that held it, once found

    def __repr__(self):
        return f"<Value {self.index} {self.kind} {self.shape}>"


class Step:
    """One recorded call: a primitive (``kind="function"``) or a never-differentiated op (``"plain"``).

    Attributes:
        op: the ``Function`` subclass, or the plain function.
        args (tuple): one entry per argument: a ``Value`` for a tensor, else the Python object.
        kwargs (dict): keyword arguments (plain ops only).
        outputs (list[Value]); out_tuple (bool): whether the call returned a tuple.
        needs (tuple[bool, ...]): ``needs_input_grad`` as recorded.
        location (tuple | None): the learner's file, line, line text and function name.
        group (int): steps made by one call of a public function (``linear``
            runs ``t`` and ``addmm``) share a group number.
        nondiff (frozenset[int]): outputs marked non-differentiable.
        data_pos (frozenset): argument positions (``i`` or ``(i, j)`` inside a
            tuple) that were a recorded tensor's numpy array, not the tensor.
    """

    __slots__ = ("args", "data_pos", "group", "kind", "kwargs", "location", "needs", "nondiff",
                 "op", "out_tuple", "outputs")

    def __init__(self, kind, op, args, kwargs, location, group):
        self.kind = kind
        self.op = op
        self.args = args
        self.kwargs = kwargs
        self.location = location
        self.group = group
        self.outputs = []
        self.out_tuple = False
        self.needs = ()
        self.nondiff = frozenset()
        # where an argument was a tensor's numpy array: its Value stands in ``args`` and
        # the replay passes that value's array
        self.data_pos = frozenset()

    @property
    def name(self):
        """The primitive's name: ``"mul"`` for ``Mul`` (from PyTorch's node name), or the op's name."""
        if self.kind == "function":
            return aten_name_of(self.op)
        return getattr(self.op, "__name__", "op")

    def routed_inputs(self, wanted):
        """Where this step's backward results go: ``(pos, edge, value)`` for each tensor argument.

        Only the arguments whose gradient was needed (``needs``) and whose id is in
        ``wanted`` (the values a backward plan gives a gradient) are given.  ``pos``
        indexes the backward's results (one per argument); ``edge`` counts the tensor
        arguments only, as the node's ``next_functions`` do.
        """
        edge = 0
        for pos, v in enumerate(self.args):
            if not isinstance(v, Value):
                continue
            if id(v) in wanted and self.needs[pos]:
                yield pos, edge, v
            edge += 1

    def __repr__(self):
        return f"<Step {self.name}>"


def aten_name_of(cls):
    """``MulBackward0`` -> ``mul``, ``AddmmBackward0`` -> ``addmm``: the forward op PyTorch records."""
    import re

    node = cls.__dict__.get("node_name") or cls.__name__
    base = re.sub(r"Backward\d*$", "", node)
    return re.sub(r"(?<!^)(?=[A-Z])", "_", base).lower()


class Decision:
    """A point where the Python code turned a tensor into a Python value.

    Attributes:
        kind (str): ``"bool"``, ``"float"``, ``"int"``, ``"index"``, ``"item"``, ``"tolist"``, ``"numpy"``.
        value (Value): the tensor converted.
        result: the Python value the code got (what the recording bakes in).
        position (int): how many steps had been recorded before it.
        location (tuple[str, int, str, str]): file, line, the line's text, the function's name.
    """

    __slots__ = ("kind", "location", "position", "result", "value")

    def __init__(self, kind, value, result, position, location):
        self.kind = kind
        self.value = value
        self.result = result
        self.position = position
        self.location = location

    def __repr__(self):
        return f"<Decision {self.kind}() = {self.result!r}>"


# PyTorch's words for each conversion (torch/csrc/jit/frontend/tracer.cpp and torch/_tensor.py)
_CONVERSION_WORDS = {
    "bool": "a Python boolean",
    "float": "a Python float",
    "int": "a Python integer",
    "index": "a Python index",
    "item": "a Python number",
    "tolist": "a Python list",
    "numpy": "a NumPy array",
}
_CONSTANT_WARNING = (
    "torch.tensor results are registered as constants in the trace. You can safely ignore this "
    "warning if you use this function to create tensors out of constant variables that would be "
    "the same every time you call this function. In any other case, this might cause the trace "
    "to be incorrect."
)
_TRACER_WARNING = (
    "Converting a tensor to {what} might cause the trace to be incorrect. We can't record the "
    "data flow of Python values, so this value will be treated as a constant in the future. "
    "This means that the trace might not generalize to other inputs!"
)

_CONVERSIONS = (("__bool__", "bool"), ("__float__", "float"), ("__int__", "int"),
                ("__index__", "index"), ("item", "item"), ("tolist", "tolist"),
                ("numpy", "numpy"), ("__array__", "numpy"), ("equal", "bool"))
_CONVERSION_FUNCTIONS = (("equal", "bool"), ("allclose", "bool"))
# Tensor methods that make a tensor without a Function for some arguments only
# (``x.to(minigrad.int64)``): recorded as a plain step when they did.
_MAYBE_PLAIN_METHODS = ("to", "type")

# Tensor operations that are not Functions (never differentiated) but compute
# from tensors: recorded as "plain" steps while a recorder is active.
_PLAIN_METHODS = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__and__",
                  "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__invert__",
                  "eq", "ne", "lt", "le", "gt", "ge", "logical_not", "logical_and",
                  "logical_or", "logical_xor", "isnan", "isinf", "isfinite", "detach",
                  "argmax", "argmin", "any", "all", "long", "int", "bool")
_PLAIN_FUNCTIONS = ("eq", "ne", "lt", "le", "gt", "ge", "logical_not", "logical_and",
                    "logical_or", "logical_xor", "isnan", "isinf", "isfinite", "zeros", "ones",
                    "full", "empty", "zeros_like", "ones_like", "full_like", "arange",
                    "linspace", "eye", "rand", "randn", "randint", "rand_like", "randn_like")
_DUNDER_NAMES = {"__eq__": "eq", "__ne__": "ne", "__lt__": "lt", "__le__": "le", "__gt__": "gt",
                 "__ge__": "ge", "__and__": "bitwise_and", "__rand__": "bitwise_and",
                 "__or__": "bitwise_or", "__ror__": "bitwise_or", "__xor__": "bitwise_xor",
                 "__rxor__": "bitwise_xor", "__invert__": "bitwise_not"}


# The top package (``torch`` in a lesson's ``import minigrad as torch``), whose functions a
# Recorder wraps too: minigrad/__init__.py registers itself here once it is complete.
_namespace = None


def register_namespace(module):
    """Called by ``minigrad/__init__.py`` at its end with the package itself."""
    global _namespace
    _namespace = module


def _modules_with_functions():
    from .. import creation, ops
    from .. import tensor as tensor_module
    from ..ops import comparison

    return (_namespace, ops, comparison, creation, tensor_module)


class Recording:
    """What one run of a function under a ``Recorder`` did.

    Attributes:
        inputs (list[Value]): the tensors among the arguments, in order.
        input_sources (list[str]): their sources (``L['x']``, ``L['xs'][0]``).
        steps (list[Step]); decisions (list[Decision]); values (list[Value]).
        output: the function's result, with each tensor replaced by its ``Value``.
        unsupported (list[tuple[str, tuple]]): what could not be recorded faithfully
            (reason, location), e.g. an in-place operation.
        groups (dict[int, dict]): per group number, the public function the
            learner called (``name``, its ``args`` by parameter name).
    """

    def __init__(self):
        self.inputs = []
        self.input_sources = []
        self.steps = []
        self.decisions = []
        self.values = []
        self.output = None
        self.unsupported = []
        self.groups = {}
        self.names = {}       # Value -> the learner's variable name, in the order found


class Recorder:
    """Context manager: while active, every primitive call and tensor-to-Python conversion is recorded.

    Args:
        mode (str): ``"trace"`` (conversions warn ``TracerWarning``, as
            ``torch.jit.trace``) or ``"compile"`` (conversions are recorded as
            decisions, silently).
        fn: the function being recorded (its globals and closure are searched
            for the source of captured tensors).

    Only one recorder can be active at a time.

    Raises:
        RuntimeError: if another recorder is active (tracing inside a trace).
    """

    _active = None

    def __init__(self, mode, fn=None):
        self.mode = mode
        self.fn = fn
        self.rec = Recording()
        self._by_id = {}      # id(tensor) -> (weakref or tensor, Value)
        self._by_data = {}    # id(tensor's array) -> the same
        self._busy = False
        self._group = 0
        self._group_frame = None
        self._patched = []
        self._sources = None

    # ------------------------------------------------------------ set up

    def add_input(self, t, source):
        """Register tensor ``t`` as an input of the function, found at ``source`` (``L['x']``)."""
        known = self._lookup(t)
        if known is not None:  # the same tensor passed twice
            self.rec.inputs.append(known)
            self.rec.input_sources.append(source)
            return known
        v = self._new_value("input", t, source)
        v.pos = len(self.rec.inputs)
        self.rec.inputs.append(v)
        self.rec.input_sources.append(source)
        return v

    def __enter__(self):
        if Recorder._active is not None or _function.is_tracing():
            raise RuntimeError("minigrad.jit: cannot trace or compile while another trace is recording")
        self._tracing = _function.tracing(self._on_apply)
        self._tracing.__enter__()
        Recorder._active = self
        saved = self._patched
        for name, kind in _CONVERSIONS:
            saved.append((Tensor, name, Tensor.__dict__[name]))
            setattr(Tensor, name, self._conversion(Tensor.__dict__[name], kind))
        from ..ops import inplace as inplace_module

        saved.append((inplace_module, "inplace", inplace_module.inplace))
        inplace_module.inplace = self._inplace(inplace_module.inplace)
        for name in _MAYBE_PLAIN_METHODS:
            saved.append((Tensor, name, Tensor.__dict__[name]))
            setattr(Tensor, name, self._maybe_plain(Tensor.__dict__[name], name))
        for name in _PLAIN_METHODS:
            orig = Tensor.__dict__.get(name)
            if orig is not None:
                saved.append((Tensor, name, orig))
                setattr(Tensor, name, self._plain(orig, _DUNDER_NAMES.get(name, name)))
        wrapped = {}
        for module in _modules_with_functions():
            for name, kind in _CONVERSION_FUNCTIONS:
                orig = module.__dict__.get(name)
                if orig is not None and callable(orig):
                    if id(orig) not in wrapped:
                        wrapped[id(orig)] = self._conversion(orig, kind)
                    saved.append((module, name, orig))
                    setattr(module, name, wrapped[id(orig)])
            for name in _PLAIN_FUNCTIONS:
                orig = module.__dict__.get(name)
                if orig is None or not callable(orig):
                    continue
                if id(orig) not in wrapped:
                    wrapped[id(orig)] = self._plain(orig, name)
                saved.append((module, name, orig))
                setattr(module, name, wrapped[id(orig)])
        return self

    def __exit__(self, *exc):
        for owner, name, orig in reversed(self._patched):
            setattr(owner, name, orig)
        self._patched = []
        self._tracing.__exit__(*exc)
        Recorder._active = None
        # keep nothing alive: step outputs were referenced weakly only
        self._by_id = {}
        self._by_data = {}
        self._group_frame = None
        return False

    # ------------------------------------------------------------ values

    def _new_value(self, kind, t, source=None):
        v = Value(len(self.rec.values), kind, t, source)
        self.rec.values.append(v)
        if kind in ("wrapped", "captured"):
            self._by_id[id(t)] = (t, v)  # kept: the recording holds these tensors
        else:
            self._by_id[id(t)] = (weakref.ref(t), v)
        self._by_data[id(t._data)] = self._by_id[id(t)]
        return v

    def _lookup(self, t):
        entry = self._by_id.get(id(t))
        if entry is None:
            return None
        ref, v = entry
        obj = ref if isinstance(ref, Tensor) else ref()
        return v if obj is t else None  # a dead tensor's id may be reused

    def _arg_ref(self, a, path, data_pos):
        """How a call's argument is recorded: a Value for a tensor or a recorded tensor's array."""
        if isinstance(a, Tensor):
            return self._resolve(a)
        if isinstance(a, np.ndarray):
            entry = self._by_data.get(id(a))
            if entry is not None:
                ref, v = entry
                t = ref if isinstance(ref, Tensor) else ref()
                if t is not None and t._data is a:
                    data_pos.add(path)
                    return v
            return a
        if type(a) is tuple and any(isinstance(e, (np.ndarray, Tensor)) for e in a):
            # (a tensor's array, or a tensor boxed to get no edge: where's (condition,))
            return tuple(self._arg_ref(e, (path, j), data_pos) for j, e in enumerate(a))
        return a

    def _resolve(self, t):
        """The Value of a tensor met as an argument (registering wrapped numbers and captured tensors)."""
        v = self._lookup(t)
        if v is not None:
            return v
        if t._wrapped:
            return self._new_value("wrapped", t)
        source, getter = self._source_of(t)
        v = self._new_value("captured", t, source)
        v.getter = getter
        if source is None and self.mode == "trace":
            # made inside the function from Python data (minigrad.tensor([...])): a constant of
            # the trace. (Made from a tensor's values, it went through a conversion, which warned.)
            _warn_at_user(_CONSTANT_WARNING, TracerWarning)
        # In compile mode such a tensor is a constant of the graph too: the values it was made
        # from came from Python, or from a conversion (numpy(), tolist()), a graph break whose
        # outcome is guarded.
        return v

    def _source_of(self, t):
        if self._sources is None:
            from .guards import find_sources

            self._sources = find_sources(self.fn)
        return self._sources.get(id(t), (None, None))

    # ------------------------------------------------------------ where

    def _location(self):
        f = user_frame(2)
        if f is None:
            return None
        import linecache

        line = linecache.getline(f.f_code.co_filename, f.f_lineno, f.f_globals).strip()
        return (f.f_code.co_filename, f.f_lineno, line, f.f_code.co_name)

    def _entry(self):
        """The outermost minigrad frame under the learner's frame: the public function called."""
        f = sys._getframe(2)
        chain = []
        while f is not None and f.f_code.co_filename.startswith(_PACKAGE_DIR):
            co = f.f_code
            if co.co_name not in ("apply", "plain") and _JIT_DIR not in co.co_filename:
                chain.append(f)
            f = f.f_back
        user = f
        # outermost first, skipping the generic wrappers (operators, Module.__call__)
        for fr in reversed(chain):
            if fr.f_code.co_name not in _WRAPPERS:
                return fr, user
        # only wrappers (an operator calling its primitive directly): the primitive names itself
        return None, user

    def _name_inputs(self, user, tensors):
        """Name the values used here after the learner's variables that hold them (as PyTorch's tracer)."""
        if user is None:
            return
        names = self.rec.names
        for t in tensors:
            v = self._lookup(t)
            if v is None or v in names or v.kind != "step":
                continue
            for k, obj in user.f_locals.items():
                if obj is t:
                    if k != "self":
                        names[v] = k
                        v.name = k
                    break

    def _ref(self, obj):
        if isinstance(obj, Tensor):
            return self._resolve(obj)
        if isinstance(obj, (tuple, list)) and any(isinstance(o, Tensor) for o in obj):
            return type(obj)(self._resolve(o) if isinstance(o, Tensor) else o for o in obj)
        return obj

    def _open_group(self, entry, user, name):
        if entry is not None and entry is self._group_frame:
            return self._group
        self._group += 1
        self._group_frame = entry
        info = {"name": name, "args": {}}
        if entry is not None and entry.f_code.co_filename.startswith(_PACKAGE_DIR):
            co = entry.f_code
            n = co.co_argcount + co.co_kwonlyargcount + bool(co.co_flags & 0x04)
            info["name"] = co.co_name
            info["args"] = {k: self._ref(entry.f_locals.get(k)) for k in co.co_varnames[:n]}
        self.rec.groups[self._group] = info
        return self._group

    # ------------------------------------------------------------ hooks

    def _on_apply(self, cls, args, kwargs=None):
        """Called by ``Function.apply`` for every primitive while this recorder is active.

        ``kwargs``: keyword arguments of ``apply`` (custom Functions may take
        them); a call with any is run but marks the recording unsupported.
        """
        if kwargs:
            if not self._busy:
                self.rec.unsupported.append(("a Function called with keyword arguments",
                                             self._location()))
            with _function.untraced():
                return cls.apply(*args, **kwargs)
        if self._busy:
            return cls.apply(*args)
        entry, user = self._entry()
        self._name_inputs(user, [a for a in args if isinstance(a, Tensor)])
        group = self._open_group(entry, user, aten_name_of(cls))
        data_pos = set()
        arg_refs = tuple(self._arg_ref(a, i, data_pos) for i, a in enumerate(args))
        self._busy = True
        try:
            with _function.untraced():
                out = cls.apply(*args)
        finally:
            self._busy = False
        step = Step("function", cls, arg_refs, {}, self._location(), group)
        step.data_pos = frozenset(data_pos)
        step.needs = tuple(isinstance(a, Tensor) and a._requires_grad and grad_mode._state.enabled
                           for a in args)
        if any(o is a for o in (out if type(out) is tuple else (out,)) for a in args):
            self.rec.unsupported.append(("an operation that returned its input (" + cls.__name__
                                         + ")", step.location))
        self._add_outputs(step, out)
        return out

    def _plain(self, orig, name):
        recorder = self

        def plain(*args, **kwargs):
            if recorder._busy:
                return orig(*args, **kwargs)
            entry, user = recorder._entry()
            recorder._name_inputs(user, [a for a in args if isinstance(a, Tensor)])
            recorder._group += 1  # a plain op is its own group
            recorder._group_frame = None
            recorder.rec.groups[recorder._group] = {"name": name, "args": {}, "plain": True}
            arg_refs = tuple(recorder._resolve(a) if isinstance(a, Tensor) else a for a in args)
            recorder._busy = True
            try:
                with _function.untraced():
                    out = orig(*args, **kwargs)
            finally:
                recorder._busy = False
            if out is NotImplemented or not isinstance(out, (Tensor, tuple)):
                return out
            step = Step("plain", orig, arg_refs, dict(kwargs), recorder._location(), recorder._group)
            step.needs = (False,) * len(args)
            recorder._add_outputs(step, out)
            return out

        plain.__name__ = getattr(orig, "__name__", name)
        plain.__doc__ = getattr(orig, "__doc__", None)
        plain.__wrapped__ = orig
        return plain

    def _inplace(self, orig):
        """Every in-place write (``add_``, ``x[i] = v``) goes through ``ops.inplace.inplace``."""
        recorder = self

        def inplace(*args, **kwargs):
            if not recorder._busy:
                loc = recorder._location()
                if recorder.mode == "trace":
                    where = f" at {loc[0]}:{loc[1]}" if loc else ""
                    raise RuntimeError(
                        f"minigrad.jit.trace does not record in-place operations{where}: write "
                        "it out of place (y = y + 1 instead of y.add_(1)), or use "
                        "minigrad.compile, which runs such a function eagerly")
                recorder.rec.unsupported.append(("an in-place operation", loc))
            return orig(*args, **kwargs)

        return inplace

    def _maybe_plain(self, orig, name):
        recorder = self

        def method(t, *args, **kwargs):
            if recorder._busy:
                return orig(t, *args, **kwargs)
            n_steps = len(recorder.rec.steps)
            out = orig(t, *args, **kwargs)
            if (isinstance(out, Tensor) and out is not t and len(recorder.rec.steps) == n_steps
                    and recorder._lookup(out) is None):
                # no Function ran (an integer dtype): record the call itself
                recorder._group += 1
                recorder._group_frame = None
                recorder.rec.groups[recorder._group] = {"name": name, "args": {}, "plain": True}
                refs = (recorder._resolve(t),) + tuple(
                    recorder._resolve(a) if isinstance(a, Tensor) else a for a in args)
                step = Step("plain", orig, refs, dict(kwargs), recorder._location(),
                            recorder._group)
                step.needs = (False,) * len(refs)
                recorder._add_outputs(step, out)
            return out

        method.__name__ = getattr(orig, "__name__", name)
        method.__doc__ = getattr(orig, "__doc__", None)
        return method

    def _add_outputs(self, step, out):
        outs = out if type(out) is tuple else (out,)
        step.out_tuple = type(out) is tuple
        nondiff = set()
        for k, o in enumerate(outs):
            if not isinstance(o, Tensor):
                continue
            v = self._new_value("step", o)
            v.step = step
            v.out_nr = k
            step.outputs.append(v)
            if not o._requires_grad:
                nondiff.add(k)
        step.nondiff = frozenset(nondiff)
        self.rec.steps.append(step)

    def _conversion(self, orig, kind):
        recorder = self

        def convert(t, *args, **kwargs):
            if recorder._busy:
                return orig(t, *args, **kwargs)
            recorder._busy = True  # float(t) calls t.item(): one conversion, not two
            try:
                result = orig(t, *args, **kwargs)
            finally:
                recorder._busy = False
            loc = recorder._location()
            v = recorder._lookup(t) or recorder._resolve(t)
            recorder.rec.decisions.append(Decision(kind, v, result, len(recorder.rec.steps), loc))
            if recorder.mode == "trace":
                _warn_at_user(_TRACER_WARNING.format(what=_CONVERSION_WORDS[kind]), TracerWarning)
            return result

        convert.__name__ = getattr(orig, "__name__", kind)
        convert.__doc__ = getattr(orig, "__doc__", None)
        return convert


# minigrad frames that only forward a call (an operator wrapper, Module.__call__):
# the public function the learner called is the next one in.
_WRAPPERS = frozenset({"op", "__call__", "_call_impl", "forward", "wrapper", "<lambda>",
                       "with_numpy_names"})


def _warn_at_user(message, category):
    """Warn as if from the learner's line (as PyTorch's tracer does), once per line by default."""
    f = user_frame(2)
    if f is None:
        warnings.warn(message, category, stacklevel=2)
        return
    g = f.f_globals
    where = (message, category, f.f_code.co_filename, f.f_lineno)
    module, registry = g.get("__name__", "<string>"), g.setdefault("__warningregistry__", {})
    try:
        warnings.warn_explicit(*where, module=module, registry=registry, module_globals=g)
    except ImportError:
        # a script piped to Python (python - < script.py): its __main__'s loader cannot give
        # the source line, so the warning is shown without it, as Python's own warn does
        warnings.warn_explicit(*where, module=module, registry=registry)
