"""``minigrad.compile``: static graphs that stay correct when the Python code branches on a tensor.

``compile(fn, backend="aot_eager")`` returns a function that behaves like
``fn``.  The first call records ``fn`` (``recording.py``); each later call
checks the recorded assumptions (the *guards*, ``guards.py``) and, when they
hold, replays compiled code instead of running ``fn`` (``replay.py``).

**Graph breaks** (``breaks.py``).  Where the Python code turns a tensor into a Python value,
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
from .breaks import (
    Paths,
    Unsupported,
    _captured_values,
    _convert,
    _key,
    _same_steps,
    _wrap_scalar,
)
from .guards import GuardSet, flatten_inputs, globals_read
from .recording import Value
from .trace import record_call

__all__ = ["InvalidBackend", "Unsupported", "compile", "config", "list_backends", "reset"]

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


# name -> tags, as PyTorch's registry tags its backends (torch/_dynamo/backends/registry.py):
# "debug" backends are left out of list_backends() by default, as PyTorch leaves out its
# aot_eager and eager
_BACKENDS = {
    "aot_eager": ("debug",),  # PyTorch's: the regions replayed with the primitives' own code
    "numpy": (),              # minigrad's: each region written out as numpy source (codegen_numpy.py)
}


def list_backends(exclude_tags=("debug", "experimental")):
    """The backends ``compile`` accepts (``torch._dynamo.list_backends``), sorted.

    Args:
        exclude_tags (tuple[str]): leave out backends with any of these tags
            (by default, as PyTorch, the debug ones: ``aot_eager``); pass
            ``()`` to list them all.

    Returns:
        list[str]: ``["numpy"]`` by default; ``["aot_eager", "numpy"]`` with ``exclude_tags=()``.

    The backends:

    * ``"aot_eager"`` (the default here): what it means in PyTorch: the
      forward and the backward are captured ahead of time (AOTAutograd) and
      run without code generation, each step calling its primitive;
    * ``"numpy"`` (minigrad's own): each region is written out as Python
      source over numpy arrays, one line per operation, forward and backward
      (``region.code``, ``region.backward_code``); a region with a step that
      has no generated form runs as ``aot_eager`` instead, and
      ``jit.explain`` says which.  Gradients are eager's, bit for bit.

    PyTorch's default, ``"inductor"``, generates C++ or Triton kernels and
    is not available in minigrad.
    """
    exclude = set(exclude_tags or ())
    return sorted(n for n, tags in _BACKENDS.items() if not exclude.intersection(tags))

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


class CompiledFunction(Paths):
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
            node each; ``"numpy"`` (minigrad's own): each region is written
            out as numpy source, one line per operation, forward and backward
            (a step with no generated form calls its primitive there),
            falling back to ``aot_eager`` for a region it cannot write
            (``list_backends``).
        fullgraph (bool): raise ``Unsupported`` at the first graph break instead of
            splitting (PyTorch's message for a data-dependent branch).  Unlike
            PyTorch, which then keeps ``t.item()`` inside the graph as a
            symbolic number, minigrad raises at an ``.item()`` too.
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
            than "aot_eager" or "numpy" (PyTorch's first sentence).

    Source: ``torch.compile`` (PyTorch 2.13) with the ``aot_eager`` backend.
    """
    if model is None:
        return functools.partial(compile, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                                 mode=mode, options=options, disable=disable)
    if not isinstance(backend, str) or backend not in _BACKENDS:
        raise InvalidBackend(
            f"Invalid backend: {backend!r}, see `torch._dynamo.list_backends()` for available "
            "backends. (minigrad.compile has 'aot_eager' and 'numpy', see "
            "minigrad.jit.list_backends(exclude_tags=()); 'inductor' would generate C++ code, "
            "which minigrad does not do.)"
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


