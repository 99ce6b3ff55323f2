"""Calling a node, ``y.grad_fn(v)``: its vector–Jacobian product, as PyTorch's ``Node.__call__``.

What PyTorch 2.13 does (checked on it): one gradient per ``next_functions``
entry, a bare tensor when there is one, no hooks, nothing accumulated, no
saved value freed; after a walk freed them, the "second time" error.
"""

import numpy as np
import pytest

import minigrad as torch
from minigrad.autograd.functional import jacobian


def _x():
    return torch.linspace(-1.0, 1.0, 5, dtype=torch.float64).requires_grad_()


def test_a_node_called_on_v_gives_j_transpose_v():
    x = _x()
    w = torch.arange(15.0, dtype=torch.float64).reshape(3, 5)
    v = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)
    y = torch.tanh(w @ x)
    with torch.no_grad():
        got = y.grad_fn(v)
    jac = jacobian(torch.tanh, (w @ x).detach()).numpy()
    np.testing.assert_allclose(got.numpy(), jac.T @ v.numpy(), rtol=1e-12)


def test_one_input_gives_a_tensor_two_give_a_tuple():
    x = _x()
    w = torch.ones(3, 5, dtype=torch.float64, requires_grad=True)
    v3 = torch.ones(3, dtype=torch.float64)
    y1, y2, y3 = torch.tanh(x), w @ x, x * x
    with torch.no_grad():
        single = y1.grad_fn(torch.ones(5, dtype=torch.float64))
        pair = y2.grad_fn(v3)
        square = y3.grad_fn(torch.ones(5, dtype=torch.float64))
    assert isinstance(single, torch.Tensor)
    assert isinstance(pair, tuple) and len(pair) == 2
    np.testing.assert_allclose(pair[0].numpy(), np.outer(v3.numpy(), x.detach().numpy()))
    np.testing.assert_allclose(pair[1].numpy(), w.detach().numpy().T @ v3.numpy())
    # x * x: one gradient per use of x (the engine adds them; the node does not)
    np.testing.assert_allclose(square[0].numpy(), x.detach().numpy())
    np.testing.assert_allclose(square[1].numpy(), x.detach().numpy())


def test_calling_frees_nothing_and_accumulates_nothing():
    x = _x()
    y = x * x
    with torch.no_grad():
        y.grad_fn(torch.ones(5, dtype=torch.float64))
    assert x.grad is None
    y.sum().backward()  # the saved values were still there
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy())


def test_with_grad_mode_on_the_formula_is_recorded():
    x = _x()
    y = torch.tanh(x)
    g = y.grad_fn(torch.ones(5, dtype=torch.float64))
    assert g.requires_grad and g.grad_fn is not None


def test_after_a_walk_freed_the_saved_values_a_call_raises_pytorchs_error():
    x = _x()
    y = torch.tanh(x)
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.grad_fn(torch.ones(5, dtype=torch.float64))
