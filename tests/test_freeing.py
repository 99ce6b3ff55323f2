"""Freeing: saved values go after backward, whole graphs go when their output is dropped.

Two kinds of evidence, never a flag:

* errors, worded exactly as PyTorch's, when a freed value is needed again;
* the memory itself: weak references to the numpy arrays a graph saved (and to
  its nodes) must die, and tracemalloc must see the bytes come back.  These
  tests switch the cyclic garbage collector off, so only reference counting can
  free anything: a graph that needs ``gc`` to be collected holds a reference
  cycle, which PyTorch's graphs never do.

Which graphs can be walked twice was checked against PyTorch 2.13: nodes that
saved nothing (``x + 1``, ``sum``, ``-x``, ``reshape``, ...) keep working;
``x * 2`` fails because MulBackward0 saves the wrapped number.
"""

import gc
import tracemalloc
import weakref
from contextlib import contextmanager

import numpy as np
import pytest

import minigrad
from minigrad.autograd import paths

F64 = minigrad.float64

PYTORCH_SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)

BIG = 1_000_000  # 8 MB per float64 array: freeing it is unmistakable


def t64(data, requires_grad=True):
    return minigrad.tensor(data, dtype=F64, requires_grad=requires_grad)


@contextmanager
def gc_disabled():
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def graph_nodes(t):
    """Every node reachable from ``t.grad_fn`` (iteratively)."""
    seen, stack = [], [t.grad_fn]
    while stack:
        n = stack.pop()
        if n is None or any(n is s for s in seen):
            continue
        seen.append(n)
        stack.extend(nxt for nxt, _ in n.next_functions)
    return seen


# ------------------------------------------------------------------ errors


def test_second_backward_raises_pytorchs_error():
    x = t64([1.0, 2.0])
    z = (x * x).sum()
    z.backward()
    with pytest.raises(RuntimeError) as info:
        z.backward()
    msg = str(info.value)
    assert msg.startswith(
        "Trying to backward through the graph a second time (or directly access saved tensors "
        "after they have already been freed)."
    )
    assert msg == PYTORCH_SECOND_BACKWARD
    assert x.grad.tolist() == [2.0, 4.0]  # the failed walk added nothing


def test_second_autograd_grad_raises_too():
    x = t64([1.0, 2.0])
    z = x.exp().sum()
    minigrad.autograd.grad(z, x)
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        minigrad.autograd.grad(z, x)


def test_reading_a_saved_value_after_backward_raises():
    x, y = t64([1.0, 2.0]), t64([3.0, 4.0])
    z = x * y
    assert z.grad_fn._saved_self is x  # before backward: the saved input itself
    assert z.grad_fn._saved_other is y
    z.sum().backward()
    with pytest.raises(RuntimeError) as info:
        z.grad_fn._saved_self
    assert str(info.value) == PYTORCH_SECOND_BACKWARD
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        z.grad_fn._saved_other


def test_reading_a_saved_result_after_backward_raises():
    x = t64([1.0, 2.0])
    z = x.exp()
    np.testing.assert_allclose(z.grad_fn._saved_result.detach().numpy(), np.exp([1.0, 2.0]))
    z.sum().backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        z.grad_fn._saved_result


def test_retained_graph_can_be_walked_again():
    x = t64(3.0)
    y = x * x
    y.backward(retain_graph=True)
    assert y.grad_fn._saved_self is x  # still there
    y.backward(retain_graph=True)
    y.backward()  # the third walk frees
    assert x.grad.item() == 18.0
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        y.backward()


def test_retain_graph_with_autograd_grad():
    x = t64([1.0, 2.0])
    z = (x.exp() * x).sum()
    (g1,) = minigrad.autograd.grad(z, x, retain_graph=True)
    (g2,) = minigrad.autograd.grad(z, x)
    np.testing.assert_array_equal(g1.numpy(), g2.numpy())


NOTHING_SAVED = {
    "x + 1": (lambda x: (x + 1).sum(), [2.0, 2.0, 2.0, 2.0]),
    "x - 3": (lambda x: (x - 3).sum(), [2.0, 2.0, 2.0, 2.0]),
    "2 - x": (lambda x: (2 - x).sum(), [-2.0, -2.0, -2.0, -2.0]),
    "sum": (lambda x: x.sum(), [2.0, 2.0, 2.0, 2.0]),
    "mean": (lambda x: x.mean(), [0.5, 0.5, 0.5, 0.5]),
    "-x": (lambda x: (-x).sum(), [-2.0, -2.0, -2.0, -2.0]),
    "reshape": (lambda x: x.reshape(2, 2).sum(), [2.0, 2.0, 2.0, 2.0]),
    "t": (lambda x: x.reshape(2, 2).t().sum(), [2.0, 2.0, 2.0, 2.0]),
    "expand": (lambda x: x.reshape(4, 1).expand(4, 3).sum(), [6.0, 6.0, 6.0, 6.0]),
}


@pytest.mark.parametrize("name", list(NOTHING_SAVED))
def test_graph_that_saved_nothing_can_be_walked_twice(name):
    """As in PyTorch: with nothing saved there is nothing to free, so no error."""
    fn, twice = NOTHING_SAVED[name]
    x = t64([1.0, 2.0, 3.0, 4.0])
    y = fn(x)
    y.backward()
    y.backward()
    assert x.grad.tolist() == twice


SAVES_SOMETHING = {
    "x * 2": lambda x: (x * 2).sum(),  # MulBackward0 saves the wrapped number 2
    "x / 2": lambda x: (x / 2).sum(),
    "x * x": lambda x: (x * x).sum(),
    "exp": lambda x: x.exp().sum(),
}


@pytest.mark.parametrize("name", list(SAVES_SOMETHING))
def test_graph_that_saved_something_cannot(name):
    x = t64([1.0, 2.0, 3.0, 4.0])
    y = SAVES_SOMETHING[name](x)
    y.backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        y.backward()


# ------------------------------------------------------------- real memory


def test_saved_arrays_are_released_by_backward_while_the_output_lives():
    with gc_disabled():
        x = t64(np.linspace(-1.0, 1.0, BIG))
        y = x.exp()  # ExpBackward0 saves y's values
        w = y.tanh()  # TanhBackward0 saves w's values
        z = (y * w).sum()  # MulBackward0 saves both
        arrays = [weakref.ref(y._data), weakref.ref(w._data)]
        saved_by_exp = weakref.ref(z.grad_fn.next_functions[0][0].next_functions[0][0]
                                   ._saved_result._data)
        del y, w
        assert all(r() is not None for r in arrays)  # the graph holds them
        assert saved_by_exp() is not None
        z.backward()
        assert all(r() is None for r in arrays)  # gone, although z is alive
        assert saved_by_exp() is None
        assert z.grad_fn is not None  # the nodes are still there, empty


def test_backward_returns_the_memory_tracemalloc():
    with gc_disabled():
        x = t64(np.linspace(-1.0, 1.0, BIG))
        tracemalloc.start()
        try:
            base = tracemalloc.get_traced_memory()[0]
            z = x.exp().tanh().sum()
            held = tracemalloc.get_traced_memory()[0] - base
            z.backward()
            x.grad = None
            after = tracemalloc.get_traced_memory()[0] - base
        finally:
            tracemalloc.stop()
    assert held > 2 * 8 * BIG * 0.95  # two saved float64 intermediates
    assert after < 0.05 * 8 * BIG  # all back, with z still alive
    assert z.grad_fn is not None


def test_retain_graph_keeps_the_saved_arrays():
    with gc_disabled():
        x = t64(np.linspace(-1.0, 1.0, 1000))
        y = x.exp()
        ref = weakref.ref(y._data)
        z = y.sum()
        del y
        z.backward(retain_graph=True)
        assert ref() is not None
        z.backward()
        assert ref() is None


def test_deleting_an_output_that_saved_only_inputs_frees_the_graph():
    with gc_disabled():
        x = t64(np.linspace(-1.0, 1.0, 1000))
        y = x * 3
        z = (y * y).sum()  # MulBackward0 saves y (an input of the node)
        arr = weakref.ref(y._data)
        nodes = [weakref.ref(n) for n in graph_nodes(z)]
        del y
        assert arr() is not None and all(n() is not None for n in nodes)
        del z
        assert arr() is None
        assert all(n() is None for n in nodes)  # every node, AccumulateGrad included


def test_deleting_the_output_frees_every_saved_array_without_backward():
    """Dropping the output must free the graph by reference counting alone, as in PyTorch.

    (Was a bug:) a node that saves its own output (ExpBackward0, TanhBackward0,
    SigmoidBackward0, ReluBackward0, ReciprocalBackward0, PowBackward1/2)
    stores it via ``Tensor._alias_of``, which sets ``alias._base = output``;
    the output's ``grad_fn`` is that node, so node -> SavedTensor -> alias ->
    output -> node is a reference cycle.  Without backward nothing breaks it,
    and the arrays stay until the cyclic gc happens to run.
    """
    with gc_disabled():
        x = t64(np.linspace(-1.0, 1.0, 1000))
        y = x.exp()
        w = y.tanh()
        z = (y * w).sum()
        arrays = [weakref.ref(y._data), weakref.ref(w._data)]
        nodes = [weakref.ref(n) for n in graph_nodes(z)]
        assert len(nodes) == 5  # Sum, Mul, Tanh, Exp, AccumulateGrad
        del y, w, z
        assert [r() is None for r in arrays] == [True, True]
        assert all(n() is None for n in nodes)


@pytest.mark.parametrize("op", ["exp", "tanh", "sigmoid", "relu", "2 / x", "2 ** x", "x ** x"])
def test_nodes_that_save_their_result_die_with_the_output(op):
    """(Was a bug, same cycle as above): these nodes survive ``del`` of their output with gc off."""
    fn = {"exp": lambda x: x.exp(), "tanh": lambda x: x.tanh(),
          "sigmoid": lambda x: x.sigmoid(), "relu": lambda x: x.relu(),
          "2 / x": lambda x: 2 / x, "2 ** x": lambda x: 2 ** x, "x ** x": lambda x: x ** x}[op]
    with gc_disabled():
        x = t64([0.5, 1.5])
        y = fn(x)
        nodes = [weakref.ref(n) for n in graph_nodes(y)]
        del y
        assert [n() is None for n in nodes] == [True] * len(nodes)


def test_deleting_the_output_returns_the_memory_tracemalloc():
    """(Was a bug, same cycle): 16 MB stay allocated after ``del z`` until gc.collect()."""
    with gc_disabled():
        x = t64(np.linspace(-1.0, 1.0, BIG))
        tracemalloc.start()
        try:
            base = tracemalloc.get_traced_memory()[0]
            z = x.exp().tanh().sum()
            held = tracemalloc.get_traced_memory()[0] - base
            del z
            after = tracemalloc.get_traced_memory()[0] - base
        finally:
            tracemalloc.stop()
    assert held > 2 * 8 * BIG * 0.95
    assert after < 0.05 * 8 * BIG


def test_nodes_die_after_backward_and_del():
    with gc_disabled():
        x = t64([1.0, 2.0])
        z = (x.exp() * x).sum()
        nodes = [weakref.ref(n) for n in graph_nodes(z)]
        z.backward()
        assert all(n() is not None for n in nodes)  # z still owns its graph
        del z
        assert all(n() is None for n in nodes)
        assert x.grad is not None  # the gradient outlives the graph


def test_leaf_does_not_keep_its_accumulate_grad_alive():
    with gc_disabled():
        x = t64([1.0, 2.0])
        y = x * 3
        acc = weakref.ref(y.grad_fn.next_functions[0][0])
        assert acc().variable is x
        del y
        assert acc() is None  # x keeps only a weak reference to it
        assert x._data is not None


@pytest.mark.skipif(paths.GENERAL, reason="a property of the fast paths (MINIGRAD_GENERAL_PATHS=1)")
def test_a_recorded_op_leaves_few_objects_for_the_collector():
    # Every object the collector tracks that outlives the op brings its next
    # collection closer, and a long graph's full collections walk all of them
    # (PyTorch's graph, in C++, costs its collector nothing).  One op of the
    # 0-d chain leaves 11 per 3 ops: the node and its edge tuple (3 + 3), the
    # product's saved (y, a) tuple and the tensor y it keeps, tanh's saved
    # output (its entry, the tuple holding it) and the version counter it
    # shares with y.  Nodes share their (shape, dtype) metadata tuples
    # (edges._METAS): made afresh, they were 8 more per 3 ops.
    x = minigrad.tensor(0.5, requires_grad=True)
    a = minigrad.tensor(0.9, requires_grad=True)
    b = minigrad.tensor(0.1, requires_grad=True)
    y = x
    with gc_disabled():  # (the count then only moves with allocations and frees)
        for _ in range(300):  # (the metadata patterns, the accumulators: made once, here)
            y = (y * a + b).tanh()
        before = gc.get_count()[0]
        for _ in range(1000):
            y = (y * a + b).tanh()
        tracked = gc.get_count()[0] - before
    assert tracked <= 11 * 1000, f"{tracked / 3000:.2f} tracked objects per op, not 3.67"
    add = y.grad_fn.next_functions[0][0]
    assert type(add).__name__ == "AddBackward0"
    assert (y * a + b).grad_fn._in_meta is add._in_meta  # one shared tuple
