"""``jit.trace``: run a function once, keep the operations it ran, replay them on new inputs.

Tracing is the simplest define-then-run: call ``fn`` on example inputs with a
recorder on (``recording.py``), keep the list of operations that ran, and
from then on run that list instead of ``fn``.  What the recording cannot see
is baked in: every Python decision (an ``if`` on a tensor's value, a
``float(t)``) took one way during the trace, and the replay takes that way
forever, whatever the new inputs say.  ``f`` below returns ``z + 1`` for the
inputs it was traced with; the trace returns ``z + 1`` for every input, even
one where ``f`` would return ``z * z``: a silent wrong answer, announced only
by the ``TracerWarning`` at trace time::

    def f(x, w):
        z = (x * w).sum()
        return z * z if z > 5 else z + 1

    traced = minigrad.jit.trace(f, (x, w))   # TracerWarning: Converting a tensor to a
                                             # Python boolean might cause the trace ...
    print(traced.graph)                      # aten::mul, aten::sum, aten::add: no branch

A replay runs each operation through ``Function.apply``, so its result has
the usual recorded graph (``grad_fn=<AddBackward0>``) and ``backward`` works
as for eager code, as the output of PyTorch's ``torch.jit.trace`` does.

Source: ``torch.jit.trace`` (torch/jit/_trace.py): the deprecation warning,
``TracerWarning``, ``check_trace`` (the function is traced a second time and
the two traces compared), the error for a captured tensor that requires grad.
"""

import warnings

from ..tensor import Tensor
from .aten import build_graph, live_steps
from .recording import Recorder, TracerWarning, Value

__all__ = ["ScriptFunction", "TracerWarning", "trace"]

_DEPRECATED = "`torch.jit.trace` is deprecated. Please switch to `torch.compile` or `torch.export`."


def record_call(fn, args, kwargs, mode):
    """Run ``fn(*args, **kwargs)`` under a ``Recorder``; return ``(recording, result, flat inputs)``."""
    from .guards import flatten_inputs

    flat = flatten_inputs(fn, args, kwargs)
    recorder = Recorder(mode, fn)
    with recorder:
        for source, obj in flat:
            if isinstance(obj, Tensor):
                recorder.add_input(obj, source)
        out = fn(*args, **kwargs)
        recorder.rec.output = _to_values(out, recorder)
    return recorder.rec, out, flat


def _to_values(obj, recorder):
    if isinstance(obj, Tensor):
        return recorder._lookup(obj) or recorder._resolve(obj)
    if isinstance(obj, tuple):
        return tuple(_to_values(o, recorder) for o in obj)
    if isinstance(obj, list):
        return [_to_values(o, recorder) for o in obj]
    if isinstance(obj, dict):
        return {k: _to_values(o, recorder) for k, o in obj.items()}
    return obj


def _traceable(obj):
    if isinstance(obj, Tensor):
        return True
    if isinstance(obj, (tuple, list)):
        return all(_traceable(o) for o in obj)
    if isinstance(obj, dict):
        return all(_traceable(o) for o in obj.values())
    return False


def _type_name(obj):
    """TorchScript's name of a value's type: ``Tensor``, ``int``, ``Tuple[int, Tensor]``."""
    if isinstance(obj, Tensor):
        return "Tensor"
    if isinstance(obj, tuple):
        return "Tuple[" + ", ".join(_type_name(o) for o in obj) + "]"
    if isinstance(obj, list):
        return "List[" + (_type_name(obj[0]) if obj else "Tensor") + "]"
    if isinstance(obj, dict):
        return "Dict[str, Tensor]"
    return type(obj).__name__


def _check_traceable(obj):
    if not _traceable(obj):
        raise RuntimeError(
            f"Type '{_type_name(obj)}' cannot be traced. Only Tensors and (possibly nested) "
            "Lists, Dicts, and Tuples of Tensors can be traced"
        )


class ScriptFunction:
    """What ``jit.trace`` returns for a function: call it like the function; ``.graph`` is its static graph.

    Calling it replays the recorded operations on the new inputs (tensors in
    the same positions as the example inputs; any shapes the operations
    accept, as in PyTorch), each through ``Function.apply``, so the result is
    recorded for ``backward`` as eager code's is.  The Python code of the
    function does not run: every decision it took while tracing is baked in.

    Attributes:
        graph (Graph): the static graph; ``print(traced.graph)`` shows it as
            TorchScript IR (see ``graph.py`` for what matches PyTorch).
        code (str): the graph written back as Python-like code (as ``.code``).
        name (str): the traced function's name.

    Source: ``torch.jit.ScriptFunction`` (what ``torch.jit.trace`` returns for a function).
    """

    def __init__(self, fn, rec, flat):
        self._fn = fn
        self.name = getattr(fn, "__name__", type(fn).__name__)
        self.__name__ = self.name
        self.__doc__ = getattr(fn, "__doc__", None)
        self._rec = rec
        names, seen = [], []
        for v, src in zip(rec.inputs, rec.input_sources):
            if any(v is s for s in seen):
                continue
            seen.append(v)
            names.append(_input_name(src))
        self._n_inputs = len(rec.inputs)
        live = live_steps(rec)
        self._steps = [s for s in rec.steps if id(s) in live]
        self.graph = build_graph(rec, names)

    def __call__(self, *args):
        flat = []
        for a in args:
            _flatten_tensors(a, flat)
        if len(flat) != self._n_inputs:
            raise TypeError(
                f"{self.name}() expected {self._n_inputs} tensor argument(s), as it was traced "
                f"with, but got {len(flat)}"
            )
        env = {}
        for v, t in zip(self._rec.inputs, flat):
            env[id(v)] = t
        for step in self._steps:
            call_args = tuple(_arg(a, env, i, step.data_pos) for i, a in enumerate(step.args))
            if step.kind == "function":
                out = step.op.apply(*call_args)
            else:
                out = step.op(*call_args, **step.kwargs)
            outs = out if step.out_tuple else (out,)
            for v in step.outputs:
                env[id(v)] = outs[v.out_nr]
        return _build(self._rec.output, env)

    @property
    def code(self):
        """The static graph written as TorchScript code (as ``ScriptFunction.code``).

        As PyTorch prints it: a value with a name gets a line, an unnamed value
        used once is written inline, arguments left at their defaults are
        dropped, tensor constants are ``CONSTANTS.c0``, ... .  What differs:
        PyTorch also breaks a long expression into ``_0 = ...`` temporaries.
        """
        from .codegen import script_code

        return script_code(self.graph, self.name)

    def __repr__(self):
        return f"<minigrad.jit.ScriptFunction object at {hex(id(self))}>"

    def __minigrad_draw__(self):
        from .draw import draw_graph

        return draw_graph(self.graph, f"static graph of {self.name}")


def _input_name(source):
    if source.startswith("L['"):
        return source[3:source.index("']")]
    return source


def _flatten_tensors(obj, out):
    if isinstance(obj, Tensor):
        out.append(obj)
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            _flatten_tensors(o, out)


def _arg(a, env, path=None, data=frozenset()):
    if isinstance(a, Value):
        t = env.get(id(a))
        if t is None:  # a constant, or a parameter: read again, as it may have been replaced
            t = a.getter() if a.getter is not None else a.tensor
        return t._data if path in data else t  # a tensor's array where the call took that
    if isinstance(a, (tuple, list)) and any(isinstance(e, Value) for e in a):
        return type(a)(_arg(e, env, (path, j), data) for j, e in enumerate(a))
    return a


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


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None,
          check_tolerance=1e-5, strict=True, example_kwarg_inputs=None):
    """Trace ``func`` on ``example_inputs`` into a static graph; return a ``ScriptFunction`` that replays it.

    Args:
        func: a function of tensors (or a ``Module``: its parameters are then
            read afresh on each call).
        example_inputs (Tensor | tuple): the arguments to run it with once;
            tensors, or (nested) tuples and lists of tensors.
        check_trace (bool): trace a second time and compare, as PyTorch does
            (so each warning is given twice when warnings are set to "always").
        optimize, check_inputs, check_tolerance, strict, example_kwarg_inputs:
            accepted for PyTorch compatibility.

    Returns:
        ScriptFunction: ``traced(*inputs)`` replays the recording; ``traced.graph``.

    Warns:
        DeprecationWarning: ```torch.jit.trace` is deprecated. Please switch to
            `torch.compile` or `torch.export`.`` (PyTorch's text).
        TracerWarning: "Converting a tensor to a Python boolean might cause the
            trace to be incorrect. ..." at each line that turns a tensor into a
            Python value (boolean, float, integer, index, number, list).

    Raises:
        RuntimeError: "Type 'int' cannot be traced. ..." for an example input
            that is not a tensor; "Cannot insert a Tensor that requires grad as
            a constant. ..." when ``func`` uses a tensor it did not receive
            (a global or closure variable) that requires grad.

    Source: ``torch.jit.trace`` (PyTorch 2.13).
    """
    # stacklevel 1: attributed to this module, as PyTorch's is to torch/jit/_trace.py, so the
    # default filters hide it outside __main__ exactly when they hide PyTorch's
    warnings.warn(_DEPRECATED, DeprecationWarning, stacklevel=1)
    if isinstance(example_inputs, Tensor):
        example_inputs = (example_inputs,)
    if example_inputs is None:
        example_inputs = ()
    _check_traceable(tuple(example_inputs))
    rec, _, flat = record_call(func, tuple(example_inputs), {}, "trace")
    live = live_steps(rec)
    for s in rec.steps:
        if id(s) not in live:
            continue
        for a in s.args:
            if isinstance(a, Value) and a.kind == "captured" and a.requires_grad and not (
                    a.source or "").startswith("L['self']"):
                raise RuntimeError(
                    "Cannot insert a Tensor that requires grad as a constant. Consider making it "
                    "a parameter or input, or detaching the gradient"
                )
    traced = ScriptFunction(func, rec, flat)
    if check_trace:
        # PyTorch traces again to check the trace is deterministic (its warnings come twice)
        trace(func, example_inputs, check_trace=False)
        if check_inputs:
            for inp in check_inputs:
                trace(func, inp, check_trace=False)
    return traced
