"""Hooks: on tensors, on graph nodes, after accumulation, and on every saved tensor.

Behaviour the parity fixtures cannot express: how many times a hook runs
(exactly once, with the gradient summed over every consumer), the order in
which hooks of several kinds run, hook handles that neither keep a graph alive
nor form reference cycles (checked with the garbage collector switched off),
and ``saved_tensors_hooks`` used to offload saved values and give identical
gradients.
"""

import gc
import weakref

import numpy as np
import pytest

import minigrad
from minigrad.autograd.graph import saved_tensors_hooks


def f64(data, requires_grad=True):
    return minigrad.tensor(data, dtype=minigrad.float64, requires_grad=requires_grad)


class Counter:
    """A hook that counts its calls and records what it saw; returns None."""

    def __init__(self, result=None):
        self.calls = []
        self.result = result

    def __call__(self, g):
        self.calls.append(g._data.copy())
        return None if self.result is None else self.result(g)


# ------------------------------------------------------------------ tensor hooks

def test_nonleaf_hook_runs_once_with_the_summed_gradient():
    x = f64(3.0)
    y = x * 2                       # y = 6
    hook = Counter()
    y.register_hook(hook)
    z = y * y + y * 3 + y.exp() * 0 + y   # dz/dy = 2y + 3 + 0 + 1 = 16, from four consumers
    z.backward()
    assert len(hook.calls) == 1
    assert hook.calls[0] == pytest.approx(16.0)
    assert x.grad.item() == pytest.approx(32.0)


def test_leaf_hook_runs_once_with_the_summed_gradient():
    x = f64([1.0, 2.0])
    hook = Counter()
    x.register_hook(hook)
    (x * x + x * 5 + x.sin() * 0).sum().backward()
    assert len(hook.calls) == 1
    np.testing.assert_allclose(hook.calls[0], [2 * 1 + 5, 2 * 2 + 5])


def test_hook_runs_once_per_backward_call():
    x = f64(3.0)
    y = x * x
    hook = Counter()
    y.register_hook(hook)
    y.backward(retain_graph=True)
    y.backward(f64(2.0, False))
    assert [c.item() for c in hook.calls] == [1.0, 2.0]
    assert x.grad.item() == pytest.approx(6 + 12)


def test_hook_replacement_reaches_upstream_and_leaf_grad():
    x = f64([1.0, -2.0, 3.0])
    y = x.exp()
    y.register_hook(lambda g: g * 0 + f64([1.0, 2.0, 3.0], False))
    (y * 100).sum().backward()
    np.testing.assert_allclose(x.grad._data, np.exp([1.0, -2.0, 3.0]) * [1, 2, 3])


def test_hooks_chain_in_registration_order():
    x = f64(3.0)
    y = x * 1
    y.register_hook(lambda g: g + 1)
    y.register_hook(lambda g: g * 10)
    x.register_hook(lambda g: g - 1)
    x.register_hook(lambda g: g / 2)
    (y * 2).backward()
    # y: (2 + 1) * 10 = 30; through y = x * 1: 30; x: (30 - 1) / 2
    assert x.grad.item() == pytest.approx(14.5)


def test_tensor_hooks_run_before_retain_grad_whatever_the_order():
    x = f64([1.0, 2.0])
    y = x * 2
    y.retain_grad()                      # registered first
    y.register_hook(lambda g: g * 2)     # still runs before retain_grad stores y.grad
    z = x * 2
    z.register_hook(lambda g: g * 2)
    z.retain_grad()
    ((y + z) * f64([1.0, 3.0], False)).sum().backward()
    np.testing.assert_allclose(y.grad._data, [2.0, 6.0])
    np.testing.assert_allclose(z.grad._data, [2.0, 6.0])
    np.testing.assert_allclose(x.grad._data, [8.0, 24.0])


def test_leaf_hook_runs_before_accumulation():
    x = f64([1.0, 2.0])
    seen = []
    x.register_hook(lambda g: seen.append(None if x.grad is None else x.grad._data.copy()))
    (x * 2).sum().backward()
    (x * 3).sum().backward()
    assert seen[0] is None
    np.testing.assert_allclose(seen[1], [2.0, 2.0])
    np.testing.assert_allclose(x.grad._data, [5.0, 5.0])


def test_handle_remove_and_context_manager():
    x = f64([1.0, 2.0])
    h = x.register_hook(lambda g: g * 100)
    h.remove()
    h.remove()  # harmless
    with x.register_hook(lambda g: g * 7):
        (x * 1).sum().backward()
    np.testing.assert_allclose(x.grad._data, [7.0, 7.0])
    x.grad = None
    (x * 1).sum().backward()  # the with block removed the hook
    np.testing.assert_allclose(x.grad._data, [1.0, 1.0])


def test_hook_on_a_branch_the_walk_does_not_reach_is_not_called():
    x = f64(3.0)
    dead = x * 5
    hook = Counter()
    dead.register_hook(hook)
    (x * 2).backward()
    assert hook.calls == []


def test_hook_changing_the_shape_is_an_error():
    x = f64([1.0, 2.0, 3.0])
    y = x * 2

    def bad(g):
        return g[:2]

    y.register_hook(bad)
    with pytest.raises(RuntimeError, match="^hook 'bad' has changed the size of value$"):
        (y * y).sum().backward()


def test_hook_on_a_tensor_that_does_not_require_grad():
    with pytest.raises(RuntimeError, match="^cannot register a hook on a tensor that doesn't require "
                                           "gradient$"):
        minigrad.tensor([1.0]).register_hook(lambda g: g)


def test_post_accumulate_hook_sees_the_accumulated_grad():
    x = f64([1.0, 2.0])
    log = []
    x.register_hook(lambda g: g * 10)
    x.register_post_accumulate_grad_hook(lambda t: log.append((t is x, t.grad._data.copy())))
    (x * 2).sum().backward()
    (x * 1).sum().backward()
    assert [entry[0] for entry in log] == [True, True]
    np.testing.assert_allclose(log[0][1], [20.0, 20.0])
    np.testing.assert_allclose(log[1][1], [30.0, 30.0])


def test_post_accumulate_hook_as_an_optimizer_step():
    w = f64([1.0, -2.0])

    def step(p):
        with minigrad.no_grad():
            p.sub_(p.grad, alpha=0.25)
        p.grad = None

    w.register_post_accumulate_grad_hook(step)
    (w * w).sum().backward()            # grad 2w; w <- w - 0.5 w
    np.testing.assert_allclose(w._data, [0.5, -1.0])
    assert w.grad is None and w._version == 1


# ------------------------------------------------------------------ node hooks

def test_node_pre_and_post_hooks_see_the_gradients_and_may_replace_them():
    x = f64([1.0, 2.0])
    y = f64([3.0, 4.0])
    z = x * y
    log = []
    z.grad_fn.register_prehook(lambda go: log.append(("pre", go[0]._data.copy())) or (go[0] * 2,))
    z.grad_fn.register_hook(
        lambda gi, go: log.append(("post", [g._data.copy() for g in gi], go[0]._data.copy()))
        or (gi[0], gi[1] * 0))
    (z * f64([1.0, 10.0], False)).sum().backward()
    assert log[0][0] == "pre"
    np.testing.assert_allclose(log[0][1], [1.0, 10.0])
    assert log[1][0] == "post"
    np.testing.assert_allclose(log[1][1][0], [2 * 3.0, 20 * 4.0])   # dL/dx = 2 * go * y
    np.testing.assert_allclose(log[1][1][1], [2 * 1.0, 20 * 2.0])   # dL/dy = 2 * go * x
    np.testing.assert_allclose(log[1][2], [2.0, 20.0])               # after the pre-hook
    np.testing.assert_allclose(x.grad._data, [6.0, 80.0])
    np.testing.assert_allclose(y.grad._data, [0.0, 0.0])


def test_order_of_every_kind_of_hook():
    x = f64(3.0)
    y = x * 2
    log = []
    y.grad_fn.register_hook(lambda gi, go: log.append("post"))
    y.register_hook(lambda g: log.append("tensor"))
    x.register_hook(lambda g: log.append("leaf"))
    x.register_post_accumulate_grad_hook(lambda t: log.append("accumulated"))
    (y * 1).backward()
    assert log == ["tensor", "post", "leaf", "accumulated"]


# ------------------------------------------------------------------ no reference cycles

@pytest.fixture
def no_gc():
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _graph_with_hooks():
    x = f64([1.0, 2.0])
    y = x.exp()
    z = (y * y).sum()
    handles = [
        y.register_hook(lambda g: g * 2),
        z.grad_fn.register_hook(lambda gi, go: None),
        z.grad_fn.register_prehook(lambda go: None),
        x.register_hook(lambda g: g),
        x.register_post_accumulate_grad_hook(lambda t: None),
    ]
    y.retain_grad()
    return x, y, z, handles


def test_hooks_and_handles_do_not_keep_a_graph_alive(no_gc):
    x, y, z, handles = _graph_with_hooks()
    nodes = [weakref.ref(z.grad_fn), weakref.ref(y.grad_fn)]
    tensor = weakref.ref(y)
    del y, z
    # the handles are still held: they must not hold the nodes
    assert [n() for n in nodes] == [None, None]
    assert tensor() is None
    for h in handles:
        h.remove()  # removing from a dead graph is harmless


def test_hooks_do_not_keep_a_graph_alive_after_backward(no_gc):
    x, y, z, handles = _graph_with_hooks()
    z.backward()
    node = weakref.ref(y.grad_fn)
    del y, z
    assert node() is None
    np.testing.assert_allclose(x.grad._data, 2 * 2 * np.exp([2.0, 4.0]))


def test_retain_grad_does_not_make_a_cycle(no_gc):
    x = f64([1.0, 2.0])
    y = x * 3
    y.retain_grad()
    node = weakref.ref(y.grad_fn)
    ty = weakref.ref(y)
    del y
    assert node() is None and ty() is None


# ------------------------------------------------------------------ saved_tensors_hooks

def _model(x, w):
    h = (x @ w).tanh()
    return (h * h.sigmoid()).sum() + (w.exp() * x.sum()).mean()


def test_offloading_saved_tensors_to_numpy_gives_identical_gradients():
    rng = np.random.default_rng(0)
    xd, wd = rng.normal(size=(4, 3)), rng.normal(size=(3, 2))

    x, w = f64(xd), f64(wd)
    _model(x, w).backward()
    plain = (x.grad._data.copy(), w.grad._data.copy())

    store = {}

    def pack(t):
        key = len(store)
        store[key] = (np.array(t._data, copy=True), t.dtype)   # "offloaded": a numpy copy
        return key

    def unpack(key):
        data, dtype = store.pop(key)
        return minigrad.tensor(data, dtype=dtype)

    x2, w2 = f64(xd), f64(wd)
    with saved_tensors_hooks(pack, unpack):
        loss = _model(x2, w2)
    assert len(store) > 0
    loss.backward()
    assert store == {}  # every packed value was unpacked exactly once
    np.testing.assert_array_equal(x2.grad._data, plain[0])
    np.testing.assert_array_equal(w2.grad._data, plain[1])


def test_pack_counts_tensors_only_and_unpack_runs_at_backward():
    packed, unpacked = [], []
    x = f64([1.0, 2.0])
    with saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: unpacked.append(t) or t):
        a = x * 2          # the Python number is not packed
        b = x + 1          # AddBackward0 saves nothing
        c = x * x          # self and other
        d = x.exp()        # its result
    assert len(packed) == 3 and unpacked == []
    (a.sum() + b.sum() + c.sum() + d.sum()).backward()
    assert len(unpacked) == 3
    np.testing.assert_allclose(x.grad._data, 2 + 1 + 2 * x._data + np.exp(x._data))


def test_double_backward_through_saved_tensor_hooks():
    x = f64(1.5)
    with saved_tensors_hooks(lambda t: t._data.copy(), lambda a: minigrad.tensor(a)):
        y = x ** 3
        (g,) = minigrad.autograd.grad(y, x, create_graph=True)
        (h,) = minigrad.autograd.grad(g, x)
    assert g.item() == pytest.approx(3 * 1.5 ** 2)
    assert h.item() == pytest.approx(6 * 1.5)


def test_sequence_nr_orders_nodes_as_recorded_and_accumulate_grad_is_uint64_max():
    # PyTorch: node._sequence_nr() grows with recording order; AccumulateGrad's is UINT64_MAX
    # (18446744073709551615), so a leaf's node runs as soon as it is ready.
    x = minigrad.tensor(2.0, requires_grad=True)
    y = minigrad.tensor(3.0, requires_grad=True)
    a = x * y
    b = x * 2
    z = a + b
    assert a.grad_fn._sequence_nr() < b.grad_fn._sequence_nr() < z.grad_fn._sequence_nr()
    acc = a.grad_fn.next_functions[0][0]
    assert acc._sequence_nr() == 18446744073709551615
    # making an AccumulateGrad takes no number from the counter (PyTorch: the next op's
    # number is the previous op's + 1 even when a new leaf joins the graph)
    w = minigrad.tensor(4.0, requires_grad=True)
    c = z * w
    assert c.grad_fn._sequence_nr() == z.grad_fn._sequence_nr() + 1
    order = []
    for node in (z.grad_fn, a.grad_fn, b.grad_fn):
        node.register_prehook(lambda g, node=node: order.append(node))
    z.backward()
    assert order == [z.grad_fn, b.grad_fn, a.grad_fn]  # the later of two ready nodes first
