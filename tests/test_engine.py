"""The backward walk: fan-in sums, accumulation, seeds, long chains, order, graph structure.

Each expected value and structure here was checked against PyTorch 2.13 running
the same code (``next_functions``, the order in which nodes run, what
``autograd.grad`` and ``backward(inputs=...)`` fill in).
"""

import gc
import warnings
import weakref

import numpy as np
import pytest

import minigrad
from minigrad.autograd.graph import AccumulateGrad

F64 = minigrad.float64


def t64(data, requires_grad=True):
    return minigrad.tensor(data, dtype=F64, requires_grad=requires_grad)


# ------------------------------------------------------------------ fan-in


def test_x_times_x_gives_2x():
    x = t64([1.0, -2.0, 3.0])
    (x * x).sum().backward()
    assert x.grad.tolist() == [2.0, -4.0, 6.0]


def test_a_plus_a_gives_2():
    a = t64(2.0)
    (a + a).backward()
    assert a.grad.item() == 2.0


def test_shared_intermediate_used_twice():
    """y = 3x; z = y*y + y: dz/dx = (2y + 1) * 3 = 39 at x = 2 (y reached by three edges)."""
    x = t64(2.0)
    y = x * 3
    z = y * y + y
    z.backward()
    assert x.grad.item() == 39.0


def test_fan_in_sums_before_the_node_runs_once():
    """A node fed by several consumers runs once, with the summed gradient."""
    x = t64(2.0)
    y = x * 3
    received = []
    y.grad_fn.register_prehook(lambda grads: received.append(grads[0].item()))
    z = y * y + y.exp() + y
    z.backward()
    assert len(received) == 1
    assert received[0] == pytest.approx(2 * 6.0 + np.exp(6.0) + 1)


def test_diamond_graph_values():
    """x -> (a = x², b = 3x) -> a * b: d/dx 3x³ = 9x²."""
    x = t64([1.0, 2.0])
    a, b = x * x, x * 3
    (a * b).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [9.0, 36.0])


# ------------------------------------------------------------ accumulation


def test_gradients_accumulate_across_backward_calls_12_not_6():
    x = t64(3.0)
    y = x * x
    y.backward(retain_graph=True)
    assert x.grad.item() == 6.0
    y.backward()
    assert x.grad.item() == 12.0


def test_accumulation_across_separate_graphs_and_reset():
    x = t64([1.0, 2.0])
    (x * 2).sum().backward()
    first = x.grad
    (x * 3).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]
    assert x.grad is first  # added in place, as PyTorch does
    x.grad = None  # what optimizer.zero_grad() does by default
    (x * 4).sum().backward()
    assert x.grad.tolist() == [4.0, 4.0]


def test_first_gradient_is_owned_by_the_leaf():
    """Accumulating must not write into the seed or into another leaf's .grad."""
    a, b = t64([1.0, 2.0]), t64([3.0, 4.0])
    seed = t64([1.0, 1.0], requires_grad=False)
    (a + b).backward(seed)  # AddBackward0 sends the same gradient to both
    (a * 1).sum().backward()
    assert a.grad.tolist() == [2.0, 2.0]
    assert b.grad.tolist() == [1.0, 1.0]
    assert seed.tolist() == [1.0, 1.0]


def test_backward_after_create_graph_backward_accumulates():
    """PyTorch: x.grad == [2., 2., 2.] here, without an error.

    (A past bug: x.grad was SumBackward0's read-only broadcast gradient itself,
    and the second walk's in-place add failed.)
    """
    x = t64([1.0, 2.0, 3.0])
    with pytest.warns(UserWarning, match="Using backward\\(\\) with create_graph=True"):
        x.sum().backward(create_graph=True)
    x.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


# ---------------------------------------------------------------- seeds


def test_backward_with_gradient_for_non_scalar_output():
    x = t64([1.0, 2.0, 3.0])
    y = x * x
    y.backward(gradient=t64([1.0, 0.1, 0.01], requires_grad=False))
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 0.4, 0.06])


def test_backward_gradient_is_the_vector_of_a_vjp(rng):
    W = rng.normal(size=(3, 4))
    v = rng.normal(size=3)
    x = t64(rng.normal(size=4))
    y = t64(W, requires_grad=False) @ x.reshape(4, 1)
    y.reshape(3).backward(t64(v, requires_grad=False))
    np.testing.assert_allclose(x.grad.numpy(), v @ W)  # vᵀ J with J = W


def test_autograd_backward_several_outputs():
    x = t64(2.0)
    minigrad.autograd.backward([x * 2, x * x], [t64(1.0, False), t64(10.0, False)])
    assert x.grad.item() == 42.0  # 1 * 2 + 10 * 2x


def test_backward_on_a_leaf_itself():
    x = t64(2.0)
    x.backward()
    assert x.grad.item() == 1.0


# ---------------------------------------------------------- long chains

CHAIN = 100_000


def test_100k_op_chain_backward_and_delete_without_recursion_error():
    x = t64(1.5)
    y = x
    for _ in range(CHAIN):
        y = y * 1.0
    y.backward()
    assert x.grad.item() == 1.0
    node = weakref.ref(y.grad_fn)
    del y  # tearing down 100,000 nested nodes must not overflow the C stack
    assert node() is None


def test_100k_op_chain_deleted_without_backward():
    x = t64([1.0, 2.0])
    y = x
    for _ in range(CHAIN):
        y = y + 0.0
    last = weakref.ref(y.grad_fn)
    first_acc = weakref.ref(x._accumulator())
    gc.disable()
    try:
        del y
        assert last() is None
        assert first_acc() is None
    finally:
        gc.enable()


# ------------------------------------------------------------ walk order


def _record_order(named):
    order = []
    for name, t in named:
        t.grad_fn.register_prehook(lambda grads, name=name: order.append(name))
    return order


def test_walk_runs_nodes_in_reverse_creation_order():
    x = t64(2.0)
    a = x * 2
    b = a.exp()
    c = b + a
    d = c.sum()
    order = _record_order([("a", a), ("b", b), ("c", c), ("d", d)])
    d.backward()
    assert order == ["d", "c", "b", "a"]


def test_walk_order_between_independent_branches_follows_creation():
    """Among ready nodes the one created last runs first (PyTorch's sequence numbers)."""
    x = t64(1.0)
    a = x * 2
    b = x * 3
    c = a.exp()
    d = b.exp()
    out = c + d
    order = _record_order([("a", a), ("b", b), ("c", c), ("d", d), ("out", out)])
    out.backward()
    assert order == ["out", "d", "c", "b", "a"]

    x = t64(1.0)
    b = x * 3
    a = x * 2
    d = b.exp()
    c = a.exp()
    out = c + d
    order = _record_order([("a", a), ("b", b), ("c", c), ("d", d), ("out", out)])
    out.backward()
    assert order == ["out", "c", "d", "a", "b"]


def test_prehook_sees_the_gradient_tuple():
    x = t64([1.0, 2.0])
    y = x * 3
    seen = []
    y.grad_fn.register_prehook(lambda grads: seen.append(grads))
    y.sum().backward()
    (grads,) = seen
    assert type(grads) is tuple and len(grads) == 1
    assert grads[0].tolist() == [1.0, 1.0]


# --------------------------------------------------------- graph structure


def test_next_functions_of_x_times_x():
    x = t64(3.0)
    y = x * x
    nf = y.grad_fn.next_functions
    assert type(nf) is tuple and len(nf) == 2
    assert all(type(pair) is tuple and len(pair) == 2 for pair in nf)
    (n0, i0), (n1, i1) = nf
    assert (i0, i1) == (0, 0)
    assert isinstance(n0, AccumulateGrad) and n0.variable is x
    assert n0 is n1  # one AccumulateGrad per leaf while the graph is alive
    assert repr(n0).startswith("<AccumulateGrad object at 0x")
    assert repr(y.grad_fn).startswith("<MulBackward0 object at 0x")


def test_one_accumulate_grad_per_leaf_across_graphs_while_alive():
    x = t64(3.0)
    y1, y2 = x * 2, x.exp()
    assert y1.grad_fn.next_functions[0][0] is y2.grad_fn.next_functions[0][0]


def test_next_functions_chain_down_to_the_leaf():
    x = t64([1.0, 2.0])
    c = t64([5.0, 6.0], requires_grad=False)
    y = (x * c).sum()
    assert y.grad_fn.name() == "SumBackward0"
    ((mul, nr),) = y.grad_fn.next_functions
    assert mul.name() == "MulBackward0" and nr == 0
    assert mul.next_functions[0][0].variable is x
    assert mul.next_functions[1] == (None, 0)  # a tensor that does not require grad


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda x: x * 2, [AccumulateGrad, None]),  # a Python number: (None, 0)
        (lambda x: x + 1, [AccumulateGrad, None]),
        (lambda x: 2 - x, [AccumulateGrad]),  # RsubBackward1 has one edge, as in PyTorch
        (lambda x: x.exp(), [AccumulateGrad]),
    ],
)
def test_constants_appear_as_none_edges(make, expected):
    x = t64([1.0, 2.0])
    nf = make(x).grad_fn.next_functions
    assert [None if n is None else type(n) for n, _ in nf] == expected
    assert all(nr == 0 for _, nr in nf)


def test_output_nr_of_a_multi_output_function():
    class Split(minigrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 3

    x = t64([1.0])
    p, q = Split.apply(x)
    r = p + q
    assert r.grad_fn.next_functions == ((p.grad_fn, 0), (q.grad_fn, 1))
    assert p.grad_fn is q.grad_fn
    r.backward()
    assert x.grad.tolist() == [5.0]


def test_is_leaf_and_grad_fn():
    x = t64([1.0, 2.0])
    c = t64([3.0, 4.0], requires_grad=False)
    assert x.is_leaf and x.grad_fn is None
    assert c.is_leaf and c.grad_fn is None
    y = x * c
    assert not y.is_leaf and y.grad_fn is not None and y.requires_grad
    z = c * 2 + c.exp()  # computed from tensors that do not require grad
    assert z.is_leaf and z.grad_fn is None and not z.requires_grad
    assert minigrad.ones(2).grad_fn is None and minigrad.zeros(2).is_leaf


# ---------------------------------------------------------- autograd.grad


def test_autograd_grad_returns_gradients_and_leaves_dot_grad_alone():
    x = t64([1.0, 2.0])
    y = (x * x).sum()
    (g,) = minigrad.autograd.grad(y, x)
    assert g.tolist() == [2.0, 4.0]
    assert x.grad is None


def test_autograd_grad_of_an_intermediate():
    x = t64(2.0)
    a = x * 3
    b = a * a
    (g,) = minigrad.autograd.grad(b, a)
    assert g.item() == 12.0
    assert x.grad is None


def test_autograd_grad_allow_unused():
    x, unused = t64([1.0, 2.0]), t64(1.0)
    y = (x * x).sum()
    gx, gu = minigrad.autograd.grad(y, [x, unused], allow_unused=True)
    assert gx.tolist() == [2.0, 4.0] and gu is None
    y = (x * x).sum()
    gx, gu = minigrad.autograd.grad(y, [x, unused], allow_unused=True, materialize_grads=True)
    assert gu.item() == 0.0 and gu.shape == ()


def test_autograd_grad_unused_input_error_text():
    """PyTorch 2.13's exact text names the index of the unused input.

    (Was a bug:) minigrad raises the older message "One of the differentiated Tensors
    appears to not have been used in the graph. ..." (PyTorch < 2.x wording).
    """
    x, unused = t64([1.0, 2.0]), t64(1.0)
    y = (x * x).sum()
    with pytest.raises(RuntimeError) as info:
        minigrad.autograd.grad(y, [x, unused])
    assert str(info.value) == (
        "The differentiated Tensor at index 1 appears to not have been used in the graph. "
        "Set allow_unused=True if this is the desired behavior."
    )


def test_autograd_grad_input_that_does_not_require_grad():
    x = t64([1.0, 2.0])
    with pytest.raises(RuntimeError, match="^One of the differentiated Tensors does not require grad$"):
        minigrad.autograd.grad((x * 2).sum(), [minigrad.tensor(1.0)])


def test_autograd_grad_create_graph_gives_second_derivative():
    x = t64(3.0)
    (g,) = minigrad.autograd.grad(x ** 3, x, create_graph=True)
    assert g.item() == 27.0 and g.grad_fn is not None
    (g2,) = minigrad.autograd.grad(g, x)
    assert g2.item() == 18.0


# ------------------------------------------------------- backward(inputs=)


def test_backward_inputs_accumulates_only_into_the_given_leaves():
    x, w = t64(2.0), t64(3.0)
    (x * w).backward(inputs=[x])
    assert x.grad.item() == 3.0 and w.grad is None
    (x * w * x).backward(inputs=x)
    assert x.grad.item() == 3.0 + 12.0 and w.grad is None


def test_backward_inputs_with_a_non_leaf_fills_its_grad():
    """PyTorch fills a.grad, marks a as retaining its grad, and reading it does not warn.

    (Was a bug:) minigrad fills a.grad but leaves ``a.retains_grad`` False, so reading
    ``a.grad`` emits the non-leaf UserWarning although the value is there.
    """
    x, w = t64(2.0), t64(3.0)
    a = x * w
    b = a * a
    b.backward(inputs=[a])
    assert x.grad is None and w.grad is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert a.grad.item() == 12.0
    assert a.retains_grad


def test_backward_inputs_empty_error_text():
    """(Was a bug:) PyTorch writes the names in backticks: "`inputs` argument to `backward()` cannot be empty."."""
    x = t64(2.0)
    with pytest.raises(RuntimeError) as info:
        (x * 2).backward(inputs=[])
    assert str(info.value) == "`inputs` argument to `backward()` cannot be empty."
