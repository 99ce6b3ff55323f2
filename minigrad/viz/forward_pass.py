"""The forward pass, recorded as the graph grows: ``record_forward(fn, x)``.

``record_forward(fn, 3.0)`` runs ``fn`` on a fresh leaf (a number becomes a
tensor that requires grad, so that its operations are recorded) and keeps
what it recorded, in the order it recorded it: every node gets a sequence
number when it is made (PyTorch: ``node._sequence_nr()``), so the nodes of the
result's graph, sorted by it, replay the recording.  Picture ``k`` draws the
graph after ``k`` operations, the newest one yellow ("just recorded")::

    >>> rec = record_forward(f, 3.0)
    >>> rec
    forward recording of f(x): 2 nodes recorded
      #1 MulBackward0(x, x) recorded, saves self and other
      #2 AddBackward0(y, constant) recorded, saves nothing

Names come from ``fn`` itself: its parameters, and its local variables when
it returns (``y`` in ``y = x * x``).  Works on minigrad and on PyTorch: the
library of the tensors given, or for numbers the library ``fn`` computes
with (the module its code calls ``torch``), or the one named.
"""

import contextlib
import inspect
import sys

from . import reading
from .drawing import as_list, draw_marked
from .recording import Naming, Recording, Step, View, constants_of, merge_names, snapshot_saved
from .snapshot import parse_names
from .values import and_list, plural

__all__ = ["ForwardRecording", "ForwardStep", "record_forward"]


class _ForwardData:
    """Everything a forward recording knows; shared by its steps."""

    def __init__(self, lib, fn_name, inputs, input_names, result, outputs, new, old, nodes,
                 consumers, name_pairs):
        self.lib = lib
        self.fn_name = fn_name
        self.inputs = inputs
        self.input_names = input_names
        self.result = result
        self.outputs = outputs
        self.new = new  # nodes fn recorded, oldest first
        self.old = old  # nodes that existed before fn ran (the inputs' history)
        self.name_pairs = name_pairs
        self.naming = Naming(nodes, consumers, name_pairs, lib)
        self.snapshot = snapshot_saved(list(old) + list(new))
        self.texts = [self._text(k) for k in range(1, len(new) + 1)]

    def inputs_of(self, node):
        consts = constants_of(node, self.snapshot.get(node, []))
        return [self.naming.ref(nxt, nr, consts.get(j))
                for j, (nxt, nr) in enumerate(node.next_functions)]

    def _text(self, k):
        node = self.new[k - 1]
        args = ", ".join(self.inputs_of(node))
        saved = [r.name for r in self.snapshot.get(node, [])]
        saves = "saves " + and_list(saved) if saved else "saves nothing"
        return (f"#{self.naming.step_no[node]} {reading.node_name(node)}({args}) "
                f"recorded, {saves}")

    def start_text(self):
        if not self.inputs:
            return "before the forward pass: nothing recorded yet"
        return f"before the forward pass: nothing recorded yet; inputs {and_list(self.input_names)}"

    def caption(self, k):
        if k == 0:
            return self.start_text()
        return f"forward {k} of {len(self.new)}: {self.texts[k - 1]}"

    def view(self, k, caption=True, mark_new=True, leaf_grads=None):
        visible = set(self.old) | set(self.new[:k])
        if isinstance(caption, str):
            text = caption
        else:
            text = self.caption(k) if caption else None
        view = View(caption=text, header="recorded so far", visible=visible, kind="forward")
        if leaf_grads:
            view.leaf_grads.update(leaf_grads)
        for node, records in self.snapshot.items():
            if node in visible:
                view.saved[node] = [r.value(alive=r.state in ("alive", "modified"))
                                    for r in records]
        if k and mark_new:
            view.rows[self.new[k - 1]] = [("just recorded", "small")]
        return view

    def roots(self, k):
        """What to draw from at step ``k``: the outputs at the end, else the newest nodes."""
        if k == len(self.new):
            roots = list(self.outputs)
        else:
            visible = list(self.old) + list(self.new[:k])
            used = set()
            for n in visible:
                for nxt, _nr in n.next_functions:
                    used.add(nxt)
            roots = [n for n in visible if n not in used]
        starts = [r.grad_fn if reading.is_tensor(r) else r for r in roots
                  if not reading.is_tensor(r) or r.grad_fn is not None]
        nodes, _ = reading.walk(starts, set(self.old) | set(self.new[:k]))
        drawn_leaves = {id(n.variable) for n in nodes if reading.is_accumulate(n)}
        drawn_leaves.update(id(r) for r in roots if reading.is_tensor(r) and r.grad_fn is None)
        for t in self.inputs:  # inputs not used yet are drawn on their own
            if reading.is_tensor(t) and t.grad_fn is None and id(t) not in drawn_leaves:
                drawn_leaves.add(id(t))
                roots.append(t)
        return roots

    def draw(self, k, *, highlight=None, names=None, caption=True, mark_new=True, leaf_grads=None,
             **kwargs):
        marks = {"new": [self.new[k - 1]]} if k and mark_new else {}
        if highlight is not None:
            marks["highlight"] = as_list(highlight)
        roots = self.roots(k)
        if not roots:
            roots = list(self.outputs) or list(self.inputs)
        return draw_marked(roots, marks, names=merge_names(self.name_pairs, names),
                           view=self.view(k, caption, mark_new, leaf_grads), **kwargs)


class ForwardStep(Step):
    """One node recorded by the forward pass, as ``record_forward`` saw it.

    Attributes:
        index (int): 1 for the first node recorded (0 for ``recording.start``:
            the inputs, nothing recorded yet); also its ``step`` number in ``draw``.
        node: the node recorded (the ``grad_fn`` of that op's result).
        name (str): its name, e.g. ``MulBackward0``.
        inputs (tuple[str]): what it points back at, one per ``next_functions``
            entry: an input's name, ``#1``, a named intermediate, a kept
            constant's value (``3``) or ``constant``.
        saved (tuple[str]): the names of the values it saved for backward.
        text (str): one line: ``#2 AddBackward0(y, constant) recorded, saves nothing``.
    """

    __slots__ = ()

    def __init__(self, data, index):
        self._data = data
        self.index = index

    @property
    def node(self):
        return self._data.new[self.index - 1] if self.index else None

    @property
    def name(self):
        return reading.node_name(self.node) if self.index else "start"

    @property
    def inputs(self):
        if not self.index:
            return ()
        return tuple(self._data.inputs_of(self.node))

    @property
    def saved(self):
        if not self.index:
            return ()
        return tuple(r.name for r in self._data.snapshot.get(self.node, []))

    @property
    def text(self):
        return self._data.texts[self.index - 1] if self.index else self._data.start_text()


class ForwardRecording(Recording):
    """The nodes a function recorded, in the order it recorded them (``record_forward``).

    A sequence of ``ForwardStep`` (``rec[0]`` is the first node recorded, its
    ``index`` is 1), plus:

    Attributes:
        start: the state before the first operation (``index`` 0): the inputs alone.
        result: what the function returned.
        outputs (list[Tensor]): the tensors in ``result``.
        inputs (list[Tensor]): the inputs it was called with (numbers made leaves).
        names (dict): ``{name: tensor}`` of the inputs and of ``fn``'s local tensors.
        tape (list[str]): the node names in the order recorded.
        text (str): a header and one line per step (also the repr).
        library (str): ``"minigrad"`` or ``"torch"``.

    ``rec.draw(k)`` draws the recording as it was after ``k`` operations (later
    nodes not drawn yet; the newest in yellow, "just recorded").  The
    recording keeps the result, and so its graph, alive.
    """

    __slots__ = ()

    def __init__(self, data):
        self._data = data
        self._steps = [ForwardStep(data, k) for k in range(1, len(data.new) + 1)]

    def _make_step(self, i):
        return ForwardStep(self._data, i)

    @property
    def result(self):
        return self._data.result

    @property
    def outputs(self):
        return list(self._data.outputs)

    @property
    def inputs(self):
        return list(self._data.inputs)

    @property
    def names(self):
        """``{name: tensor}``: the inputs' and the function's local tensors' names."""
        return {name: obj for obj, name in self._data.name_pairs}

    @property
    def tape(self):
        return [s.name for s in self._steps]

    @property
    def text(self):
        d = self._data
        lines = [f"forward recording of {d.fn_name}({', '.join(d.input_names)}): "
                 f"{plural(len(self._steps), 'node')} recorded"]
        lines += [f"  {t}" for t in d.texts]
        return "\n".join(lines)


def _call_capturing_locals(fn, args, kwargs, lib=None):
    """Call ``fn``; return ``(result, its local variables when it returned, operations seen)``.

    A profile function (``sys.setprofile``) sees the ``return`` event of
    ``fn``'s own frame and copies its locals: that is how ``y`` and ``z``
    in ``def f(x): y = x * x; z = y + 1; return z`` get their names.  The
    operations seen are ``(arguments, result)`` pairs, so that a constant an
    operation does not save (the ``1`` of ``y + 1``) can still be shown: for
    minigrad the profile function also sees each ``Function.apply`` return,
    for PyTorch a ``TorchFunctionMode`` sees each call.
    """
    code = getattr(fn, "__code__", None)
    captured = {}
    ops = []
    apply_code = None
    mode = contextlib.nullcontext()
    if lib is not None and lib.name == "minigrad":
        from ..autograd.function import Function

        apply_code = Function.apply.__func__.__code__
    elif lib is not None:
        mode = _torch_mode(lib.module, ops)
    if code is None and apply_code is None:
        with mode:
            return fn(*args, **kwargs), captured, ops
    prev = sys.getprofile()

    def profile(frame, event, arg):
        if event == "return":
            if frame.f_code is code:
                captured.clear()
                captured.update(frame.f_locals)
            elif frame.f_code is apply_code:
                ops.append((frame.f_locals.get("args", ()), arg))
        if prev is not None:
            prev(frame, event, arg)

    sys.setprofile(profile)
    try:
        with mode:
            result = fn(*args, **kwargs)
    finally:
        sys.setprofile(prev)
    return result, captured, ops


def _torch_mode(torch, ops):
    """A ``TorchFunctionMode`` that appends ``(args, result)`` of every call to ``ops``."""
    from torch.overrides import TorchFunctionMode

    class Watch(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            ops.append((args, out))
            return out

    return Watch()


def _note_constants(lib, ops, new):
    """Note, on each node recorded, how its constant inputs read (see ``reading.note_constants``).

    minigrad: a node's edges are its tensor arguments in order, so edge ``j``
    is the ``j``-th tensor argument.  PyTorch: the arguments that are tensors
    or numbers, in order, when there are as many as edges.
    """
    mine = set(new)
    for args, out in ops:
        node = getattr(out, "grad_fn", None) if reading.is_tensor(out) else None
        if node is None or node not in mine:
            continue
        edges = node.next_functions
        if lib.name == "minigrad":
            inputs = [a for a in args if reading.is_tensor(a)]
        else:
            inputs = [a for a in args if reading.is_tensor(a)
                      or (isinstance(a, (int, float)) and not isinstance(a, bool))]
        if len(inputs) != len(edges):
            continue
        texts = {j: reading.constant_text(a) for j, ((nxt, _nr), a) in enumerate(zip(edges, inputs))
                 if nxt is None}
        reading.note_constants(node, texts)


def choose_library(fn, values, library=None, caller_globals=None):
    """The library ``fn`` is to run on: named, else the inputs', else the one ``fn`` uses.

    Raises:
        TypeError: the inputs are tensors of two libraries, or ``library``
            contradicts the tensors given.
    """
    libs = {reading.library_of(v).name for v in values if reading.is_tensor(v)}
    if len(libs) > 1:
        raise TypeError("the inputs are tensors of two libraries (minigrad.Tensor and "
                        "torch.Tensor): a graph belongs to one")
    if library is not None:
        lib = reading.library_named(library)
        if libs and libs != {lib.name}:
            raise TypeError(f"library={lib.name!r} but the inputs are {libs.pop()}.Tensor")
        return lib
    if libs:
        return reading.library_named(libs.pop())
    lib = reading.library_used_by(fn, caller_globals)
    return lib if lib is not None else reading.library_named("minigrad")


def record_forward(fn, *inputs, names=None, library=None, **kwinputs):
    """Run ``fn(*inputs)`` and record the graph as it grows; returns a ``ForwardRecording``.

    Numbers among the inputs become leaves that require grad (``tensor(3.,
    requires_grad=True)``: a plain number would record nothing); tensors are
    used as given.  The library: the one the tensors given belong to; for
    numbers, ``library`` (``"minigrad"``, ``"torch"`` or the module), else the
    one ``fn``'s code uses (a global it calls, such as ``torch`` after
    ``import minigrad as torch`` or ``import torch``), else the caller's
    ``torch``, else minigrad.  Each node ``fn`` records gets a sequence number
    when created, so after ``fn`` has run the nodes of its result's graph,
    sorted by that number, are the order of recording: step ``k`` is the graph
    restricted to the first ``k`` of them.  Only nodes the result depends on
    are seen (a computation whose result is thrown away leaves no graph).

    Names: the inputs are named after ``fn``'s parameters, and any tensor that
    is a local variable of ``fn`` when it returns after that variable (``y``
    in ``y = x * x``); ``names`` adds or overrides (``{"x": x}``).

    Args:
        fn: a function of tensors, returning a tensor (or a tuple or list of them).
        *inputs: its positional arguments; **kwinputs: its keyword arguments.
        names (dict | None): extra labels, as for ``draw``.
        library: see above.

    Returns:
        ForwardRecording: ``rec[k].text`` such as ``#2 AddBackward0(y,
        constant) recorded, saves nothing``; ``draw(rec[k])`` the graph after
        ``k`` operations; ``rec.result`` what ``fn`` returned.

    Raises:
        TypeError: inputs of two libraries, or a ``library`` the tensors contradict.

    Example::

        def f(x):
            y = x * x
            z = y + 1
            return z
        rec = record_forward(f, 3.0)
        rec.tape       # ['MulBackward0', 'AddBackward0']
        rec[1].text    # '#2 AddBackward0(y, constant) recorded, saves nothing'
    """
    caller = sys._getframe(1).f_globals
    lib = choose_library(fn, list(inputs) + list(kwinputs.values()), library, caller)
    return run_recorded(lib, fn, inputs, kwinputs, names)


def run_recorded(lib, fn, inputs, kwinputs, names):
    """``record_forward`` on a chosen library (numbers made its leaves)."""
    def as_input(v):
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return lib.leaf(v)
        return v

    args = [as_input(v) for v in inputs]
    kwargs = {k: as_input(v) for k, v in kwinputs.items()}
    # names of the inputs: fn's parameter names
    pairs = []
    try:
        bound = inspect.signature(fn).bind_partial(*args, **kwargs)
        for pname, value in bound.arguments.items():
            if reading.is_tensor(value):
                pairs.append((value, pname))
    except (TypeError, ValueError):
        pass
    with lib.module.enable_grad():  # a marker: every node made after it is fn's
        marker = lib.seq((lib.leaf(0.0) * 1).grad_fn)
    result, local_vars, ops = _call_capturing_locals(fn, args, kwargs, lib)
    for lname, value in local_vars.items():
        if reading.is_tensor(value) and not lname.startswith("_"):
            pairs.append((value, lname))
    # explicit names win
    name_pairs = []
    seen = set()
    for obj, name in parse_names(names) + pairs:
        if id(obj) not in seen:
            seen.add(id(obj))
            name_pairs.append((obj, name))
    if reading.is_tensor(result):
        outputs = [result]
    elif isinstance(result, (list, tuple)):
        outputs = [r for r in result if reading.is_tensor(r)]
    else:
        outputs = []
    starts = [t.grad_fn for t in outputs if t.grad_fn is not None]
    nodes, consumers = reading.walk(starts)
    steps = sorted((n for n in nodes if not reading.is_accumulate(n)), key=lib.seq)
    new = [n for n in steps if lib.seq(n) > marker]
    old = [n for n in steps if lib.seq(n) < marker]
    _note_constants(lib, ops, new)
    all_inputs = args + list(kwargs.values())
    input_names = []
    lookup = {id(o): nm for o, nm in name_pairs}
    unnamed = 0
    for t in all_inputs:
        if reading.is_tensor(t):
            nm = lookup.get(id(t))
            if nm is None:
                unnamed += 1
                nm = f"input {unnamed}"
            input_names.append(nm)
    fn_name = getattr(fn, "__name__", "fn")
    if fn_name == "<lambda>":
        fn_name = "lambda"
    data = _ForwardData(lib, fn_name, [t for t in all_inputs if reading.is_tensor(t)],
                        input_names, result, outputs, new, old, nodes, consumers, name_pairs)
    return ForwardRecording(data)
