"""Guards: the assumptions a compiled graph was made under, checked on every call.

A compiled graph is only valid for calls that look like the one it was
recorded from.  What it assumed is written down as *guards*, and each call
checks them before replaying the graph:

* for each tensor argument (``L['x']``): its dtype, its rank and sizes,
  whether it requires grad, and its strides (``TENSOR_MATCH``: a graph may
  bake in a decision on the memory layout, as mm's backward does); a tensor
  passed twice must be passed twice again;
* for each other argument, and each global or closure variable the function
  reads (its own code, and the plain functions it calls, two levels deep) that
  holds a Python number, string, None or a tuple of them: its value
  (``n == 3``, ``G['scale'] == 0.5``; Dynamo's ``EQUALS_MATCH``), so a changed
  closed-over float is compiled again, never replayed with its old value; an
  attribute read off such an object, by value (``G['obj'].k == 2.0``); any
  other object that is not a tensor, module, class or function, by identity
  (``ID_MATCH``): see ``globals_read``;
* for a tensor the function reads from a global, a closure or a module
  (a parameter): that it is still the same tensor, and its dtype, sizes and
  ``requires_grad``;
* the grad mode (``GLOBAL_STATE``): a graph recorded with grad mode on
  saves values for backward; one recorded under ``no_grad`` does not.

A failing guard does not raise: the function is compiled again for the new
kind of call (a *recompile*), and the reason is kept; after ``cache_size_limit``
(8) compiled versions, further new kinds of call run eagerly.  The decisions a
Python ``if`` takes on a tensor's value are guarded too, by the compiled
function's branch table (``compile.py``).

The failure messages are PyTorch's (what ``TORCH_LOGS="recompiles"`` prints),
e.g. ``tensor 'x' size mismatch at index 0. expected 3, actual 4``.

*Automatic dynamic shapes* (PyTorch's default): the first version guards
every size; when a call differs from it only in some sizes, the next version
leaves those dims free (any size from 2 on; 0 and 1 stay exact), so a third
size needs no recompile.  What differs from PyTorch, and why: minigrad has no
symbolic shapes, so a dim is freed only if recording at the new size gave the
same operations with the same arguments (nothing read the size); otherwise
sizes stay exact, one version per size.  PyTorch guards on many more
global states (deterministic algorithms, default device, torch function
mode, saved-tensor hooks); minigrad on grad mode and inference mode.

Source: Dynamo's guards (torch/_dynamo/guards.py: ``TENSOR_MATCH`` checked by
``check_tensor``, ``GLOBAL_STATE``, ``CONSTANT_MATCH``; the messages of
``get_guard_fail_reason``).
"""

import dis
import types

import numpy as np

from .._dtype import _ALL, SCALAR_TYPE_NAMES
from ..autograd import grad_mode
from ..tensor import Tensor

__all__ = ["Guard", "GuardSet", "find_sources", "flatten_inputs"]

_DTYPE_WORD = {d.np: SCALAR_TYPE_NAMES[d.name] for d in _ALL}  # float32: "Float", ...
_SIMPLE = (bool, int, float, str, type(None))


def _short(source):
    """``L['x']`` -> ``x`` and ``L['xs'][0]`` -> ``xs[0]``: how PyTorch names a tensor in messages."""
    if source.startswith("L['"):
        end = source.index("']")
        return source[3:end] + source[end + 2:]
    return source


class Guard:
    """One assumption: ``kind`` (``TENSOR_MATCH``, ``CONSTANT_MATCH``, ``ID_MATCH``, ``GLOBAL_STATE``), ``source``.

    ``check(obj)`` returns None if it holds, else PyTorch's message for the failure.
    ``str(guard)`` is a readable line, for ``explain``.
    """

    __slots__ = ("dtype", "dynamic", "expected", "kind", "requires_grad", "shape", "source",
                 "strides")

    def __init__(self, kind, source, expected=None, t=None, dynamic=()):
        self.kind = kind
        self.source = source
        self.expected = expected
        self.dynamic = frozenset(dynamic)  # dims of any size >= 2 (automatic dynamic shapes)
        self.strides = None
        if t is not None:
            self.shape = tuple(t._data.shape)
            self.dtype = t._data.dtype
            self.requires_grad = bool(t._requires_grad)
            # the memory layout, in bytes (numpy's strides): a graph may bake in a decision
            # on it (mm's backward computes in each operand's layout), so PyTorch guards it too
            self.strides = t._data.strides

    def check(self, obj):
        """None if the guard holds for ``obj``, else why not (PyTorch's words)."""
        kind = self.kind
        if kind == "TENSOR_MATCH":
            name = _short(self.source)
            if not isinstance(obj, Tensor):
                return (f"expected type of '{self.source}' to be a tensor type, ' but found "
                        f"{type(obj)}'")
            data = obj._data
            if data.dtype != self.dtype:
                return (f"tensor '{name}' dtype mismatch. expected {_DTYPE_WORD[self.dtype]}, "
                        f"actual {_DTYPE_WORD.get(data.dtype, data.dtype)}")
            shape = data.shape
            if len(shape) != len(self.shape):
                return f"tensor '{name}' rank mismatch. expected {len(self.shape)}, actual {len(shape)}"
            dynamic = self.dynamic
            if shape != self.shape:
                for i, (e, a) in enumerate(zip(self.shape, shape)):
                    if i in dynamic:
                        if a < 2:  # sizes 0 and 1 are never dynamic (PyTorch's 0/1 specialisation)
                            return f"2 <= {name}.size()[{i}]"
                    elif e != a:
                        return f"tensor '{name}' size mismatch at index {i}. expected {e}, actual {a}"
            if bool(obj._requires_grad) != self.requires_grad:
                return (f"tensor '{name}' requires_grad mismatch. expected "
                        f"requires_grad={int(self.requires_grad)}")
            # (sizes that may change change the strides: a dynamic version does not guard them,
            # and an empty tensor has no layout)
            if (self.strides is not None and data.strides != self.strides and not dynamic
                    and data.size):
                item = data.itemsize
                for i, (e, a) in enumerate(zip(self.strides, data.strides)):
                    if e != a:
                        return (f"tensor '{name}' stride mismatch at index {i}. expected "
                                f"{e // item}, actual {a // item}")
            return None
        if kind == "CONSTANT_MATCH":
            if type(obj) is not type(self.expected) or obj != self.expected:
                return f"{_short(self.source)} == {self.expected!r}"
            return None
        if kind == "ID_MATCH":
            return None if obj is self.expected else f"{self.source} is not the object seen when compiling"
        if kind == "GLOBAL_STATE":
            st = grad_mode._state
            now = (bool(st.enabled), bool(st.inference))
            if now != self.expected:
                what = "grad_mode " if now[0] != self.expected[0] else "inference_mode "
                return "GLOBAL_STATE changed: " + what
            return None
        raise AssertionError(kind)

    def __str__(self):
        if self.kind == "TENSOR_MATCH":
            size = ", ".join("s" if i in self.dynamic else str(d) for i, d in enumerate(self.shape))
            return (f"{self.source}: tensor, dtype {_DTYPE_WORD[self.dtype]}, size "
                    f"[{size}], requires_grad={self.requires_grad}")
        if self.kind == "CONSTANT_MATCH":
            return f"{self.source} == {self.expected!r}"
        if self.kind == "ID_MATCH":
            return f"{self.source} is the same object as when compiled"
        if self.kind == "GLOBAL_STATE":
            return (f"grad mode {'on' if self.expected[0] else 'off'}, inference mode "
                    f"{'on' if self.expected[1] else 'off'}")
        return self.kind

    __repr__ = __str__


class GuardSet:
    """The guards of one compiled version of a function, checked against a call's flattened inputs.

    Attributes:
        guards (list[Guard]): in order: global state, then one per input, then captured values.
        aliases (list[tuple[int, int]]): pairs of input positions that were the same tensor.

    ``dynamic`` maps an input's source to the dims whose size is not guarded
    (any size from 2 on: automatic dynamic shapes, see ``compile.py``).
    """

    def __init__(self, flat, captured=(), globals_read=(), dynamic=None):
        dynamic = dynamic or {}
        self.guards = [Guard("GLOBAL_STATE", "", (bool(grad_mode._state.enabled),
                                                   bool(grad_mode._state.inference)))]
        self._input_guards = []
        first = {}
        self.aliases = []
        for k, (source, obj) in enumerate(flat):
            if isinstance(obj, Tensor):
                g = Guard("TENSOR_MATCH", source, t=obj, dynamic=dynamic.get(source, ()))
                j = first.setdefault(id(obj), k)
                if j != k:
                    self.aliases.append((j, k))
            elif isinstance(obj, _SIMPLE):
                g = Guard("CONSTANT_MATCH", source, obj)
            else:
                g = Guard("ID_MATCH", source, obj)
            self.guards.append(g)
            self._input_guards.append((k, g))
        self._captured = []
        for value in captured:
            if value.getter is not None:
                g = Guard("ID_MATCH", value.source, value.tensor)
                self.guards.append(g)
                self._captured.append((value.getter, g))
            g = Guard("TENSOR_MATCH", value.source or "<captured tensor>", t=value.tensor)
            self.guards.append(g)
            self._captured.append((lambda v=value: v.tensor, g))
        self._globals = []
        for kind, source, getter, obj in globals_read:
            g = Guard(kind, source, obj)
            self.guards.append(g)
            self._globals.append((getter, g))

    def check(self, flat):
        """None if every guard holds for this call, else the first failure's message."""
        fail = self.guards[0].check(None)
        if fail:
            return fail
        if len(flat) != len(self._input_guards):
            return f"len(inputs) == {len(self._input_guards)}"
        for k, g in self._input_guards:
            obj = flat[k][1]
            if g.kind == "TENSOR_MATCH" and not g.dynamic and type(obj) is Tensor:
                d = obj._data  # the common case, checked inline: every call pays for it
                if (d.dtype == g.dtype and d.shape == g.shape and obj._requires_grad == g.requires_grad
                        and d.strides == g.strides):
                    continue
            fail = g.check(obj)
            if fail:
                return fail
        for j, k in self.aliases:
            if flat[j][1] is not flat[k][1]:
                return f"{flat[j][0]} is {flat[k][0]}"
        for getter, g in self._captured:
            try:
                obj = getter()
            except Exception:  # a global deleted, a module changed: not the same
                return f"{g.source} could not be read"
            fail = g.check(obj)
            if fail:
                return fail
        for getter, g in self._globals:
            try:
                obj = getter()
            except Exception:
                return f"{g.source} could not be read"
            fail = g.check(obj)
            if fail:
                return fail
        return None


_SIGNATURES = {}


def _positional_names(fn):
    """The parameter names if ``fn`` takes plain positional parameters only (else None); cached."""
    import inspect

    key = getattr(fn, "__code__", None) or id(fn)
    if key not in _SIGNATURES:
        try:
            params = inspect.signature(fn).parameters.values()
        except (TypeError, ValueError):
            params = None
        ok = params is not None and all(
            p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD and p.default is p.empty
            for p in params)
        _SIGNATURES[key] = [f"L['{p.name}']" for p in params] if ok else None
    return _SIGNATURES[key]


def flatten_inputs(fn, args, kwargs):
    """The call's arguments as ``[(source, object), ...]``, tensors inside tuples and lists included.

    Sources are Dynamo's: ``L['x']`` for the parameter ``x``, ``L['xs'][0]`` for
    an element; a positional argument without a parameter name is ``L['args'][i]``.
    """
    import inspect

    if hasattr(fn, "_modules") and hasattr(fn, "forward"):
        fn = fn.forward  # a Module: its forward's parameters name the arguments (L['input'])
    names = None if kwargs else _positional_names(fn)
    if names is not None and len(names) == len(args) and not any(
            type(a) is tuple or type(a) is list for a in args):
        return list(zip(names, args))  # the common case, without inspect (every call)
    try:
        sig = inspect.signature(fn)
        bound = sig.bind(*args, **kwargs)
        items = []
        for name, val in bound.arguments.items():
            kind = sig.parameters[name].kind
            if kind is inspect.Parameter.VAR_POSITIONAL:
                items.extend((f"L['{name}'][{i}]", v) for i, v in enumerate(val))
            elif kind is inspect.Parameter.VAR_KEYWORD:
                items.extend((f"L['{name}']['{k}']", v) for k, v in val.items())
            else:
                items.append((f"L['{name}']", val))
    except (TypeError, ValueError):
        items = [(f"L['args'][{i}]", v) for i, v in enumerate(args)]
        items += [(f"L['kwargs']['{k}']", v) for k, v in kwargs.items()]
    flat = []
    for source, val in items:
        _flatten(source, val, flat)
    return flat


def _flatten(source, val, flat):
    if isinstance(val, (tuple, list)) and any(isinstance(v, Tensor) for v in val):
        for i, v in enumerate(val):
            _flatten(f"{source}[{i}]", v, flat)
    else:
        flat.append((source, val))


def _walk_code(code):
    yield code
    for c in code.co_consts:
        if hasattr(c, "co_names"):
            yield from _walk_code(c)


def _unwrap(fn):
    """(function, self or None) behind a function, bound method or Module."""
    from ..nn.modules.module import Module

    if isinstance(fn, Module):
        return type(fn).forward, fn
    self = getattr(fn, "__self__", None)
    func = getattr(fn, "__func__", fn)
    return func, self


def _tensors_in(source, getter, obj, out, depth=0):
    from ..nn.modules.module import Module

    if isinstance(obj, Tensor):
        out.setdefault(id(obj), (source, getter))
    elif isinstance(obj, Module) and depth < 8:
        for name, p in list(obj.named_parameters()) + list(obj.named_buffers()):
            out.setdefault(id(p), (f"{source}.{name}",
                                   lambda g=getter, n=name: _get_path(g(), n)))
    elif isinstance(obj, (tuple, list)) and depth < 2:
        for i, v in enumerate(obj):
            _tensors_in(f"{source}[{i}]", lambda g=getter, i=i: g()[i], v, out, depth + 1)
    elif isinstance(obj, dict) and depth < 2:
        for k, v in obj.items():
            _tensors_in(f"{source}[{k!r}]", lambda g=getter, k=k: g()[k], v, out, depth + 1)


def _get_path(obj, path):
    for part in path.split("."):
        obj = obj[int(part)] if part.isdigit() and hasattr(obj, "__getitem__") else getattr(obj, part)
    return obj


def find_sources(fn):
    """Tensors the function can reach by name: ``{id(tensor): (source, getter)}``.

    Looked for in the globals its code names (``G['w']``), its closure
    variables (``L['w']``), its ``self`` if it is a method or a Module
    (``L['self'].weight``), one level into tuples, lists and dicts, and into
    modules' parameters and buffers.  ``getter()`` reads the tensor again.
    """
    out = {}
    if fn is None:
        return out
    func, self = _unwrap(fn)
    if self is not None:
        _tensors_in("L['self']", lambda: self, self, out)
    code = getattr(func, "__code__", None)
    if code is None:
        return out
    closure = getattr(func, "__closure__", None) or ()
    for name, cell in zip(code.co_freevars, closure):
        try:
            val = cell.cell_contents
        except ValueError:
            continue
        _tensors_in(f"L['{name}']", lambda c=cell: c.cell_contents, val, out)
    g = getattr(func, "__globals__", {})
    for c in _walk_code(code):
        for name in c.co_names:
            if name in g:
                _tensors_in(f"G['{name}']", lambda n=name: g[n], g[name], out)
    return out


def _is_simple(val):
    """A value Dynamo guards by equality: a number, a string, None, or a tuple of them."""
    if isinstance(val, tuple):
        return all(_is_simple(v) for v in val)
    return isinstance(val, _SIMPLE)


def _by_identity(val):
    """An object guarded by identity (``ID_MATCH``): not a tensor, module, function or class.

    Tensors are guarded by ``TENSOR_MATCH`` (``find_sources``); modules, classes and
    builtins are the program's code, not its data; functions are looked into instead.
    """
    is_module = hasattr(val, "_modules") and hasattr(val, "forward")  # an nn.Module (nn imports after jit)
    return not is_module and not isinstance(val, (Tensor, types.ModuleType, types.FunctionType,
                                                  types.BuiltinFunctionType, types.MethodType, type))


def _loads(code):
    """``[(kind, name, attribute or None)]``: the globals and closure cells the code reads.

    ``kind`` is ``"global"`` (``LOAD_GLOBAL``/``LOAD_NAME``) or ``"cell"``
    (``LOAD_DEREF``); ``attribute`` is the name of a ``LOAD_ATTR`` right after the
    load (``obj.k``), as Dynamo guards ``G['obj'].k`` rather than ``obj`` alone.
    Nested code objects (comprehensions, lambdas) are read too.
    """
    out = []
    for c in _walk_code(code):
        ins = list(dis.get_instructions(c))
        for i, op in enumerate(ins):
            if op.opname in ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF", "LOAD_CLASSDEREF"):
                kind = "cell" if "DEREF" in op.opname else "global"
                nxt = ins[i + 1] if i + 1 < len(ins) else None
                attr = nxt.argval if nxt is not None and nxt.opname == "LOAD_ATTR" else None
                out.append((kind, op.argval, attr))
    return out


def globals_read(fn, _depth=0, _prefix=None, _seen=None):
    """``[(kind, source, getter, value)]``: the Python values outside the call the function reads.

    Mirrors Dynamo, which guards every global and closure variable the traced
    bytecode loads (torch/_dynamo/guards.py):

    * a number, string, None or tuple of them: by value (``CONSTANT_MATCH``; PyTorch's
      ``EQUALS_MATCH`` / ``CONSTANT_MATCH``), so ``G['N'] == 3`` or ``s == 2.0`` fails
      when it changes and the function is compiled again;
    * an attribute read from such an object (``obj.k``): the attribute's value
      (``G['obj'].k == 2.0``), if it is simple;
    * any other object (a list, a dict, an instance), not a tensor, module,
      class or function: by identity (``ID_MATCH``);
    * a plain Python function the code calls (defined outside minigrad): looked
      into, two levels deep, and its globals and closure cells guarded the same way;
      the function itself by identity (Dynamo's ``ID_MATCH`` on an inlined function).

    What differs from Dynamo, and why: Dynamo interprets the bytecode and guards
    exactly what the traced path read (``G['T'][0] == 2.0``, one element);
    minigrad does not interpret bytecode, so it reads the loads off the code
    statically and guards whole values (``G['T'] == (2.0, 1)``), every branch's
    included: more recompiles, never a stale value.  Mutation inside a list or
    dict kept by identity is not seen (Dynamo guards the items it read).
    Tensors reached this way are guarded by ``find_sources``.
    """
    func, _ = _unwrap(fn)
    code = getattr(func, "__code__", None)
    if code is None:
        return []
    if _seen is None:
        _seen = set()
    if id(code) in _seen:
        return []
    _seen.add(id(code))
    out = []
    done = set()
    closure = dict(zip(code.co_freevars, getattr(func, "__closure__", None) or ()))
    g = getattr(func, "__globals__", {})

    def add(kind, source, getter, value):
        if source not in done:
            done.add(source)
            out.append((kind, source, getter, value))

    for kind, name, attr in _loads(code):
        if kind == "cell":
            if name not in closure:  # a cell of this function's own (a local): not outside the call
                continue
            try:
                val = closure[name].cell_contents
            except ValueError:
                continue
            source = (f"L['{name}']" if _prefix is None
                      else f"{_prefix}.__closure__[{code.co_freevars.index(name)}].cell_contents")
            getter = (lambda c=closure[name]: c.cell_contents)
        else:
            if name not in g:
                continue  # a builtin
            val = g[name]
            source = f"G['{name}']"
            getter = (lambda n=name: g[n])
        if _is_simple(val):
            add("CONSTANT_MATCH", source, getter, val)
        elif isinstance(val, types.FunctionType):
            if (_depth < 2 and not (getattr(val, "__module__", "") or "").startswith("minigrad")):
                add("ID_MATCH", source, getter, val)
                out.extend(x for x in globals_read(val, _depth + 1, source, _seen)
                           if x[1] not in done and not done.add(x[1]))
        elif _by_identity(val):
            add("ID_MATCH", source, getter, val)
            if attr is not None:
                try:
                    a = getattr(val, attr)
                except Exception:
                    continue
                if _is_simple(a):
                    add("CONSTANT_MATCH", f"{source}.{attr}",
                        lambda get=getter, n=attr: getattr(get(), n), a)
    return out
