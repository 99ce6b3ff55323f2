"""Each fast path of the reading core gives what its general path gives.

The reading core reads as the idea (the general path); a fast path comes after
it, marked, and must store exactly the same state.  Here: ``saved_fast.pack_fast``
(what ``Function.apply`` calls) against ``saved.pack``, over the values a node
saves: inputs, its own output, None, Python numbers, views, inference tensors,
parameters an optimizer has stepped (version > 0), and under active hooks.
"""

import numpy as np
import pytest

import minigrad
from minigrad.autograd import saved, saved_fast
from minigrad.autograd.graph import Node
from minigrad.ops._util import wrap_scalar


def _state(node):
    """A node's saved storage, comparable: entries by identity / content, and versions."""
    out = []
    for e in node._kept:
        if e is None:
            out.append(None)
        elif isinstance(e, saved.SavedOutput):  # an own output
            out.append(("output", id(e.data), id(e.vc), e.output_nr))
        elif isinstance(e, saved.Packed):  # a hook's
            out.append(("packed", e.is_output, e.output_nr, e.origin, e.unpack_hook))
        else:
            out.append(("tensor", id(e)))
    return tuple(out), tuple(node._kept_versions)


def _fresh_node():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    return (x * 2).grad_fn


def _cases():
    """(name, make) pairs; make() gives (node, tensors) afresh each call."""
    def inputs(*make_tensors):
        def make():
            return _fresh_node(), tuple(m() for m in make_tensors)
        return make

    def leaf():
        return minigrad.tensor([1.0, 2.0], requires_grad=True)

    def plain():
        return minigrad.tensor([3.0, 4.0])

    def stepped():
        p = minigrad.nn.Parameter(minigrad.tensor([1.0, 2.0]))
        with minigrad.no_grad():
            p.mul_(0.5)  # an optimizer's step: version 1
        return p

    def stepped_tensor():
        t = minigrad.tensor([1.0, 2.0], requires_grad=True)
        with minigrad.no_grad():
            t.mul_(0.5)  # written in place since it was made: version 1
        return t

    def parameter():
        return minigrad.nn.Parameter(minigrad.tensor([1.0, 2.0]))

    def number():
        return wrap_scalar(2.5)

    def view():
        base = minigrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True) * 1
        return base[0]

    def inference():
        with minigrad.inference_mode():
            return minigrad.tensor([1.0, 2.0])

    def own_output(fresh_counter):
        def make():
            x = minigrad.tensor([0.5, 1.5], requires_grad=True)
            out = x.exp()
            if fresh_counter:
                out._vc = None  # no version counter made yet
            return out.grad_fn, (out,)
        return make

    def output_and_input():
        x = minigrad.tensor([0.5, 1.5], requires_grad=True)
        out = x.exp()
        return out.grad_fn, (x, out)

    def many():
        return _fresh_node(), tuple(leaf() for _ in range(9))

    return [
        ("one input", inputs(leaf)),
        ("one plain tensor", inputs(plain)),
        ("one stepped parameter", inputs(stepped)),
        ("one stepped tensor", inputs(stepped_tensor)),
        ("two stepped tensors", inputs(stepped_tensor, stepped_tensor)),
        ("one parameter", inputs(parameter)),
        ("None", inputs(lambda: None)),
        ("None and an input", inputs(lambda: None, leaf)),
        ("two inputs", inputs(leaf, plain)),
        ("an input and a stepped parameter", inputs(leaf, stepped)),
        ("an input and a number", inputs(leaf, number)),
        ("a number", inputs(number)),
        ("a view", inputs(view)),
        ("a view and an input", inputs(view, leaf)),
        ("three inputs", inputs(leaf, plain, parameter)),
        ("nine inputs", many),
        ("its own output", own_output(False)),
        ("its own output, no counter yet", own_output(True)),
        ("an input and its own output", output_and_input),
        ("an inference tensor", inputs(inference)),
        ("an input and an inference tensor", inputs(leaf, inference)),
    ]


@pytest.mark.parametrize("hooks", [False, True], ids=["no hooks", "hooks active"])
@pytest.mark.parametrize("name, make", _cases(), ids=[n for n, _ in _cases()])
def test_pack_fast_equals_general(name, make, hooks):
    # the same tensors for both: build once, replay on two fresh copies of the storage
    node, tensors = make()
    results = []
    same = (lambda t: t, lambda t: t)  # (one pair for both, compared by identity)
    for pack in (saved.pack, saved_fast.pack_fast):
        node._kept = node._kept_versions = ()
        try:
            if hooks:
                with minigrad.autograd.graph.saved_tensors_hooks(*same):
                    pack(node, tensors)
            else:
                pack(node, tensors)
            results.append(_state(node))
        except RuntimeError as err:
            results.append(("raised", str(err)))
    general, fast = results
    assert fast == general
    if "inference" in name:
        assert general[0] == "raised"  # both refuse it, in PyTorch's words
    if not hooks and general[0] != "raised":
        # and the node gives back what was saved, checked
        out = saved.unpack(node)
        assert len(out) == len(tensors)
        for got, t in zip(out, tensors):
            if t is None:
                assert got is None
            else:
                assert np.array_equal(got._data, t._data)


def _freed_state(node):
    return tuple("FREED" if e is saved.FREED else "FREED_OUTPUT" if e is saved.FREED_OUTPUT
                 else None if e is None else type(e).__name__ for e in node._kept)


@pytest.mark.parametrize("hooks", [False, True], ids=["no hooks", "hooks active"])
@pytest.mark.parametrize("name, make", [c for c in _cases() if "inference" not in c[0]],
                         ids=[n for n, _ in _cases() if "inference" not in n])
def test_free_fast_equals_general(name, make, hooks):
    """``saved_fast.free_fast`` (what the engine calls) leaves what ``saved.free`` leaves."""
    results = []
    same = (lambda t: t, lambda t: t)
    for free in (saved.free, saved_fast.free_fast):
        node, tensors = make()  # afresh: freeing is one-way
        if hooks:
            with minigrad.autograd.graph.saved_tensors_hooks(*same):
                saved.pack(node, tensors)
        else:
            saved.pack(node, tensors)
        free(node)
        results.append(_freed_state(node))
        assert "Tensor" not in results[-1] and "SavedOutput" not in results[-1]
        if any(e is not None for e in node._kept):
            with pytest.raises(RuntimeError, match="backward through the graph a second time"):
                saved.unpack(node)
    general, fast = results
    assert fast == general
    if "own output" in name and "input" not in name:
        assert general == ("FREED_OUTPUT",)


@pytest.mark.parametrize("name, make", [c for c in _cases() if "inference" not in c[0]],
                         ids=[n for n, _ in _cases() if "inference" not in n])
def test_unpack_arrays_equals_unpack(name, make):
    """The arrays a formula computes with are the saved tensors' own arrays (0-d ones as
    numpy scalars, a Python number as itself), the same check passed."""
    node, tensors = make()
    saved_fast.pack_fast(node, tensors)
    arrays, same = saved_fast.unpack_arrays(node, np.dtype(np.float32))
    for a, t in zip(arrays, saved.unpack(node, formula=True)):
        if t is None:
            assert a is None
        elif t._wrapped:
            assert type(a) is float and a == t._data.item()
        else:
            assert a is t._data or (t._data.ndim == 0 and a == t._data[()])
    kinds = {a.dtype for a in arrays if isinstance(a, (np.ndarray, np.generic))}
    assert same == (kinds <= {np.dtype(np.float32)})


# --- collect_next_edges: the fast path against the general loop ----------------------

from minigrad.autograd import edges, edges_fast  # noqa: E402
from minigrad.ops.elementwise import Add, Mul  # noqa: E402
from minigrad.ops.reductions import Sum  # noqa: E402


def _edge_cases():
    """(name, cls, make) with make() giving fresh inputs (a stale view is refreshed on use)."""
    def leaf():
        return minigrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)

    def made():
        return leaf() * 2

    def const():
        return minigrad.tensor([[5.0, 6.0], [7.0, 8.0]])

    def f64():
        return minigrad.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=minigrad.float64, requires_grad=True)

    def view():
        return made()[0]

    def stale_view():
        base = made()
        v = base[0]
        base[1].mul_(2)  # written through another view since v's grad_fn was made
        v.add_(0)  # ... and through v itself
        return base[:1]

    def written_view():
        base = made()
        v = base[0]
        base.mul_(3)  # v's memory written since its grad_fn was made: stale
        return v

    def second_output():
        return made().split(1)[1]  # output_nr 1

    def no_grad_view():
        x = leaf()
        with minigrad.no_grad():
            return x[0]

    return [
        ("a leaf", Sum, lambda: (leaf(),)),
        ("a recorded tensor", Sum, lambda: (made(),)),
        ("a constant", Sum, lambda: (const(),)),
        ("a tensor and a number", Sum, lambda: (made(), 1)),
        ("a tensor and two numbers", Sum, lambda: (made(), 1, True)),
        ("a view", Sum, lambda: (view(),)),
        ("a stale view", Sum, lambda: (written_view(),)),
        ("a view written through another", Sum, lambda: (stale_view(),)),
        ("a second output", Sum, lambda: (second_output(),)),
        ("a view taken under no_grad", Sum, lambda: (no_grad_view(),)),
        ("two leaves", Mul, lambda: (leaf(), leaf())),
        ("a leaf and a constant", Mul, lambda: (leaf(), const())),
        ("a constant and a leaf", Mul, lambda: (const(), leaf())),
        ("two constants", Mul, lambda: (const(), const())),
        ("a float64 and a float32", Mul, lambda: (f64(), leaf())),
        ("a view and a second output", Mul, lambda: (view(), second_output())),
        ("a stale view and a leaf", Mul, lambda: (written_view(), leaf())),
        ("add(a, b, alpha)", Add, lambda: (leaf(), made(), 2.0)),
        ("add(a, const, alpha)", Add, lambda: (leaf(), const(), 2.0)),
        ("a number first", Mul, lambda: (2.0, leaf())),
        ("three tensors", Mul, lambda: (leaf(), const(), made())),
    ]


def _edges_state(node, inputs):
    """A node's edges, comparable across two fresh sets of the same inputs."""
    if node is None:
        return None

    def where(fn):
        for k, a in enumerate(inputs):
            if isinstance(a, minigrad.Tensor) and fn is not None and (
                    fn is a._grad_fn or (a._accum is not None and fn is a._accum())):
                return ("input", k, type(fn).__name__)
        return None if fn is None else ("other", type(fn).__name__)

    return (node.needs_input_grad, tuple(where(fn) for fn in node._next_fns),
            tuple(node._next_nrs), node._in_meta, node._edge_args, type(node).__name__)


@pytest.mark.parametrize("name, cls, make", _edge_cases(), ids=[n for n, _, _ in _edge_cases()])
def test_collect_edges_fast_equals_general(name, cls, make):
    states, metas = [], []
    for collect in (edges.collect_next_edges, edges_fast.collect_next_edges_fast):
        inputs = make()
        node = collect(cls, inputs)
        states.append(_edges_state(node, inputs))
        metas.append(None if node is None else node._in_meta)
    general, fast = states
    assert fast == general
    unusual = ("stale", "written", "second output", "no_grad")  # (rebuilt edges: not interned)
    if general is not None and not any(u in name for u in unusual):
        assert metas[0] is metas[1]  # (the same interned tuple)
    if "constant" in name and "leaf" not in name:
        assert general is None  # nothing requires grad: no node


# --- route_gradients: the fast path against the three named steps ---------------------

from minigrad.autograd import engine  # noqa: E402


def _walk_programs():
    """(name, run) pairs: run(log) builds a graph afresh, walks it and returns what to compare."""
    def leaves(*shapes, dtype=None):
        rng = np.random.default_rng(0)
        return [minigrad.tensor(rng.standard_normal(s), dtype=dtype or minigrad.float32,
                                requires_grad=True) for s in shapes]

    def watch(log, root):
        """A prehook on every node behind ``root``: the order nodes run in."""
        seen, stack = set(), [root.grad_fn]
        while stack:
            n = stack.pop()
            if n is None or n in seen:
                continue
            seen.add(n)
            n.register_prehook(lambda g, n=n: log.append(n.name()))
            stack.extend(f for f, _ in n.next_functions)

    def grads(*ts):
        return [None if t.grad is None else t.grad.numpy().tolist() for t in ts]

    def fan_in(log):
        x, w = leaves((3,), (3,))
        y = x * w
        z = (y * y + y.exp() + y).sum()  # y reaches three consumers
        watch(log, z)
        z.backward()
        return grads(x, w)

    def several_outputs(log):
        (x,) = leaves((4, 3))
        a, b = x.split(2)  # SplitBackward0: two outputs, one buffer slot each
        z = (a * 2).sum() + (b.tanh()).sum()
        watch(log, z)
        z.backward()
        return grads(x)

    def unused_output(log):
        (x,) = leaves((4, 3))
        a, _b = x.split(2)  # a None gradient for the unused output
        z = a.sum()
        watch(log, z)
        z.backward()
        return grads(x)

    def broadcasting(log):
        x, bias = leaves((5, 3), (3,))
        z = ((x + bias) * (x + bias[None, :])).sum()  # summed back to (3,)
        watch(log, z)
        z.backward()
        return grads(x, bias)

    def dtype_cast(log):
        (x,) = leaves((3,))
        (d,) = leaves((3,), dtype=minigrad.float64)
        z = (x * d).sum()  # x's gradient arrives as float64 and is cast to float32
        watch(log, z)
        z.backward()
        return grads(x, d) + [str(x.grad.dtype)]

    def hooks(log):
        x, w = leaves((3,), (3,))
        y = x * w
        y.register_hook(lambda g: log.append(("y hook", g.numpy().tolist())) or g * 2)
        y.retain_grad()
        x.register_hook(lambda g: log.append(("x hook", g.numpy().tolist())))
        z = y.sin().sum()
        z.grad_fn.register_hook(lambda gi, go: log.append(("post", len(gi))))
        watch(log, z)
        z.backward()
        return grads(x, w, y)

    def inputs_given(log):
        x, w = leaves((3,), (3,))
        y = x * w
        z = (y * y).sum()
        watch(log, z)
        z.backward(inputs=[w, y])
        return grads(x, w, y)

    def autograd_grad(log):
        x, w = leaves((3,), (3,))
        z = ((x * w).exp() * x).sum()
        watch(log, z)
        return [g.numpy().tolist() for g in minigrad.autograd.grad(z, (x, w))]

    def retain_graph(log):
        x, w = leaves((3,), (3,))
        z = (x * w).tanh().sum()
        watch(log, z)
        z.backward(retain_graph=True)
        z.backward()
        return grads(x, w)

    def create_graph(log):
        x, w = leaves((3,), (3,))
        z = (x * x * w).sum()
        watch(log, z)
        (gx,) = minigrad.autograd.grad(z, x, create_graph=True)
        gx.sum().backward()  # through the recorded walk
        return [gx.detach().numpy().tolist()] + grads(x, w)

    return [(f.__name__, f) for f in (fan_in, several_outputs, unused_output, broadcasting,
                                      dtype_cast, hooks, inputs_given, autograd_grad,
                                      retain_graph, create_graph)]


@pytest.mark.parametrize("name, run", _walk_programs(), ids=[n for n, _ in _walk_programs()])
def test_route_fast_equals_general(name, run, monkeypatch):
    """The walk gives the same ``.grad`` values, node order and hook calls with the fast route
    (``route_gradients_fast``) and with the three named steps (``engine._FAST_ROUTE = False``)."""
    results = []
    for fast in (False, True):
        monkeypatch.setattr(engine, "_FAST_ROUTE", fast)
        log = []
        out = run(log)
        results.append((out, log))
    general, fast = results
    assert fast == general
    assert general[1]  # (the nodes were seen running)
