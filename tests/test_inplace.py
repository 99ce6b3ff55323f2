"""In-place operations and the version counter, beyond what the parity fixtures pin.

* the counter is shared by a tensor, its views and ``detach()``, never by a clone;
* an optimizer-style update under ``no_grad`` is allowed, and a graph recorded
  before it can no longer be walked (PyTorch's error, naming shape, node and
  both versions); a fresh forward pass after the update works;
* each in-place op on a non-leaf gives the gradient of its out-of-place twin
  (values by hand), checked numerically in float64 too;
* ``x[i] = v`` sends the gradient of the written positions to ``v`` and zeros
  them for the old values.
"""

import numpy as np
import pytest

import minigrad
from minigrad.autograd import gradcheck

MODIFIED = ("one of the variables needed for gradient computation has been modified by an inplace "
            "operation: ")


def f64(data, requires_grad=True):
    return minigrad.tensor(data, dtype=minigrad.float64, requires_grad=requires_grad)


# ------------------------------------------------------------------ the version counter

def test_version_counts_each_inplace_write_and_nothing_else():
    t = minigrad.zeros(3)
    assert t._version == 0
    t.add_(1)
    t += 1
    t.mul_(2)
    t[0] = 5.0
    t.zero_()
    assert t._version == 5
    u = t * 2
    _ = t.sum(), t.exp(), t.reshape(3, 1)
    assert t._version == 5 and u._version == 0


def test_version_shared_between_tensor_views_and_detach():
    t = minigrad.zeros(2, 3)
    row, col, flat, tr, det = t[0], t[:, 1], t.view(6), t.T, t.detach()
    viewed = (t, row, col, flat, tr, det, row[1:], det.view(3, 2))
    row.add_(1)
    assert {v._version for v in viewed} == {1}
    det.mul_(2)
    flat[5] = 9.0
    tr.zero_()
    assert {v._version for v in viewed} == {4}
    clone = t.clone()
    assert clone._version == 0
    clone.add_(1)
    assert t._version == 4


def test_detach_shares_memory_so_writes_show_through():
    x = f64([1.0, 2.0, 3.0])
    y = x.exp()
    d = y.detach()
    d[1] = 0.0
    assert y._data[1] == 0.0 and y._version == 1
    with pytest.raises(RuntimeError) as err:
        y.sum().backward()
    assert str(err.value).startswith(
        MODIFIED + "[torch.DoubleTensor [3]], which is output 0 of Exp, is at version 1; "
                   "expected version 0 instead.")


# ------------------------------------------------------------------ optimizer-style updates

def test_no_grad_update_then_backward_through_the_old_graph_raises():
    a = f64([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=False)
    w1 = f64(np.eye(3))
    w2 = f64([[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]])
    loss = ((a @ w1).tanh() @ w2).sum()     # MmBackward0 saved w2 (for the hidden layer's gradient)
    with minigrad.no_grad():
        w2.sub_(0.1)         # allowed: this is what an optimizer does
    assert w2.is_leaf and w2.requires_grad and w2._version == 1
    with pytest.raises(RuntimeError) as err:
        loss.backward()
    assert str(err.value).startswith(
        MODIFIED + "[torch.DoubleTensor [3, 2]] is at version 1; expected version 0 instead. Hint:")


def test_no_grad_update_of_a_weight_nobody_saved_is_not_an_error():
    # data @ w: w's gradient needs only the data, so w itself was not saved (as in PyTorch)
    a = f64([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=False)
    w = f64([[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]])
    loss = (a @ w).sum()
    with minigrad.no_grad():
        w.sub_(0.1)
    loss.backward()
    np.testing.assert_array_equal(w.grad._data, [[5.0, 5.0], [7.0, 7.0], [9.0, 9.0]])


def test_no_grad_update_then_fresh_forward_is_fine():
    w = f64([1.0, -2.0])
    target = f64([3.0, 1.0], requires_grad=False)
    for _ in range(3):
        loss = ((w - target) ** 2).sum()
        loss.backward()
        with minigrad.no_grad():
            w.sub_(0.1 * w.grad)
        w.grad = None
    # w_{k+1} - t = 0.8 (w_k - t): after 3 steps w = t + 0.512 (w_0 - t)
    np.testing.assert_allclose(w._data, [3 + 0.512 * -2, 1 + 0.512 * -3])
    assert w._version == 3


def test_leaf_that_requires_grad_cannot_be_written_while_recording():
    x = f64([1.0, 2.0])
    for op in (lambda: x.add_(1), lambda: x.mul_(2), lambda: x.zero_(), lambda: x.clamp_(0, 1)):
        with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used in an "
                                               r"in-place operation\.$"):
            op()
    assert x._version == 0
    np.testing.assert_array_equal(x._data, [1.0, 2.0])


def test_grad_zero_then_accumulate_again():
    x = f64([1.0, 2.0])
    (x * 2).sum().backward()
    g = x.grad
    g.zero_()
    (x * 3).sum().backward()
    assert x.grad is g                        # accumulated into the same tensor
    np.testing.assert_array_equal(x.grad._data, [3.0, 3.0])


# ------------------------------------------------------------------ gradients of in-place ops

W = np.array([1.0, 2.0, 3.0])
X0 = np.array([1.0, -2.0, 3.0])


def _grad_after(stmt, extra=None):
    """x.grad for L = sum(W * y) after ``y = x * 1`` and ``stmt(y[, extra])``."""
    x = f64(X0)
    y = x * 1
    if extra is None:
        stmt(y)
    else:
        stmt(y, extra)
    (y * f64(W, False)).sum().backward()
    return x.grad._data


@pytest.mark.parametrize("stmt, expected", [
    (lambda y: y.add_(2), W),
    (lambda y: y.sub_(1.5), W),
    (lambda y: y.mul_(3), 3 * W),
    (lambda y: y.div_(4), W / 4),
    (lambda y: y.zero_(), 0 * W),
    (lambda y: y.fill_(7.0), 0 * W),
    (lambda y: y.clamp_(-1.0, 2.0), W * ((X0 >= -1) & (X0 <= 2))),
    (lambda y: y.relu_(), W * (X0 > 0)),
    (lambda y: y.mul_(y.detach() * 0 + f64([2.0, -1.0, 0.5], False)), W * [2.0, -1.0, 0.5]),
], ids=["add_", "sub_", "mul_", "div_", "zero_", "fill_", "clamp_", "relu_", "mul_tensor"])
def test_inplace_gradients_by_hand(stmt, expected):
    np.testing.assert_allclose(_grad_after(stmt), expected)


def test_inplace_chain_gradient_by_hand():
    # y = ((x + 1) * x_detached-free) : y.add_(1); y.mul_(y0) with y0 = x * 2 recorded
    x = f64(X0)
    y = x * 1
    y.add_(1)
    y.mul_(x * 2)          # y = (x + 1) * 2x ; dy/dx = 4x + 2
    (y * f64(W, False)).sum().backward()
    np.testing.assert_allclose(x.grad._data, W * (4 * X0 + 2))


def test_inplace_copy_sends_gradient_to_source_only():
    x = f64(X0)
    src = f64(5.0)
    y = x * 1
    y.copy_(src)           # broadcast from a 0-d source
    (y * f64(W, False)).sum().backward()
    np.testing.assert_array_equal(x.grad._data, [0.0, 0.0, 0.0])
    assert src.grad.item() == W.sum()


def test_setitem_gradients_by_hand():
    x = f64(X0)
    v = f64([5.0, 6.0])
    y = x * 2
    y[1:] = v
    (y * f64(W, False)).sum().backward()
    np.testing.assert_array_equal(x.grad._data, [2 * W[0], 0.0, 0.0])
    np.testing.assert_array_equal(v.grad._data, W[1:])


def test_setitem_into_a_constant_records_the_value():
    x = f64([1.0, 2.0])
    c = minigrad.zeros(4, dtype=minigrad.float64)
    c[1:3] = x * 3
    assert not c.is_leaf and c.requires_grad
    (c * f64([1.0, 10.0, 100.0, 1000.0], False)).sum().backward()
    np.testing.assert_array_equal(x.grad._data, [30.0, 300.0])


@pytest.mark.parametrize("fn", [
    lambda x: (x * 1).mul_(x.exp()).sum(),
    lambda x: (x * 1).add_(x * x, alpha=2).div_(x + 3),
    lambda x: (x.sin() * 1).clamp_(-0.5, 0.9) * x,
    lambda x: _setitem_fn(x),
], ids=["mul_", "add_alpha_div_", "clamp_", "setitem"])
def test_inplace_gradcheck_float64(fn):
    x = f64([0.3, -0.7, 1.1, 0.2])
    assert gradcheck(fn, (x,))


def _setitem_fn(x):
    y = x * x
    y[1:3] = x[:2].exp()
    return y


# ------------------------------------------------------------------ the error, node by node

@pytest.mark.parametrize("make, op", [
    (lambda x: x.exp(), "Exp"),
    (lambda x: x.sigmoid(), "Sigmoid"),
    (lambda x: x.tanh(), "Tanh"),
    (lambda x: x.relu(), "Relu"),
])
def test_modified_saved_result_names_its_node(make, op):
    x = f64(X0)
    y = make(x)
    loss = y.sum()
    with minigrad.no_grad():
        y.mul_(2)
    with pytest.raises(RuntimeError) as err:
        loss.backward()
    assert str(err.value).startswith(
        MODIFIED + f"[torch.DoubleTensor [3]], which is output 0 of {op}, is at version 1; "
                   "expected version 0 instead. Hint: enable anomaly detection")


def test_modified_saved_input_names_the_op_that_last_wrote_it():
    x = f64(X0)
    w = f64(W)
    a = x * 2
    y = a * w            # saves a for w's gradient
    a.add_(1)            # a is now the output of Add
    with pytest.raises(RuntimeError) as err:
        y.sum().backward()
    assert str(err.value).startswith(
        MODIFIED + "[torch.DoubleTensor [3]], which is output 0 of Add, is at version 1; "
                   "expected version 0 instead.")


def test_saved_tensor_not_needed_is_not_checked():
    x = f64(X0)
    y = x + 1            # AddBackward0 saves nothing
    z = y * 2            # saves only the number 2
    y.mul_(10)
    z.sum().backward()
    np.testing.assert_array_equal(x.grad._data, [2.0, 2.0, 2.0])
