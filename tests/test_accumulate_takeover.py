"""AccumulateGrad takes over a leaf's first gradient instead of copying it, when nothing else holds it.

PyTorch's ``AccumulateGrad`` steals the incoming gradient for ``.grad`` when
its use count says only the engine refers to it (accumulate_grad.h), so the
first backward of a large model allocates no second copy of each gradient.
minigrad does the same (``accumulate_grad._can_take_over``, by ``sys.getrefcount``); a change
that keeps one more reference to the gradient silently turns every take-over
into a copy (a trial edit of the redesign did exactly that, and no other test
noticed).  These tests count the copies (``accumulate_grad._own``).
"""

import numpy as np
import pytest

import minigrad
from minigrad.autograd import accumulate_grad


@pytest.fixture
def copies(monkeypatch):
    """The arrays accumulate_grad._own copied during the test."""
    made = []
    own = accumulate_grad._own

    def counting(array):
        made.append(array.shape)
        return own(array)

    monkeypatch.setattr(accumulate_grad, "_own", counting)
    return made


def test_the_first_gradient_is_taken_over_not_copied(copies):
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((4, 3))
    wv = rng.standard_normal((5, 3))
    x = minigrad.tensor(xv, dtype=minigrad.float64, requires_grad=True)
    w = minigrad.tensor(wv, dtype=minigrad.float64, requires_grad=True)
    (x @ w.t()).tanh().sum().backward()
    assert copies == []
    # and the gradients are right: d/dW sum(tanh(x W^T)) = (1 - tanh^2)^T x
    d = 1 - np.tanh(xv @ wv.T) ** 2
    np.testing.assert_allclose(w.grad.numpy(), d.T @ xv, rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), d @ wv, rtol=1e-12)


def test_a_gradient_sent_to_two_leaves_is_copied(copies):
    """AddBackward0 sends one array to both inputs: .grad must not alias it twice."""
    a = minigrad.tensor([1.0, 2.0], requires_grad=True)
    b = minigrad.tensor([3.0, 4.0], requires_grad=True)
    (a + b).sum().backward()
    assert len(copies) >= 1
    assert not np.shares_memory(a.grad.numpy(), b.grad.numpy())
    a.grad.numpy()[0] = 10.0  # writing one .grad leaves the other alone
    assert b.grad.tolist() == [1.0, 1.0]


def test_a_second_backward_adds_in_place(copies):
    w = minigrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    (w * 3).sum().backward()
    first = w.grad
    (w * 3).sum().backward()
    assert w.grad is first  # accumulated into the same tensor, as PyTorch does
    assert w.grad.tolist() == [[6.0, 6.0], [6.0, 6.0]]
