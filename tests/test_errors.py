"""Errors and warnings, worded as PyTorch words them.

Every expected message below is what PyTorch 2.13 prints for the same code
(checked by running it there), so a learner who reads a minigrad error can
search for it and find PyTorch's explanations.
"""

import warnings

import pytest

import minigrad

F64 = minigrad.float64

NONLEAF_GRAD_WARNING_START = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed"
)
NONLEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information."
)
NONLEAF_REQUIRES_GRAD = (
    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
    "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
)


def t64(data, requires_grad=True):
    return minigrad.tensor(data, dtype=F64, requires_grad=requires_grad)


def raises_exactly(exc, message):
    """pytest.raises for an exact message (not a regex)."""
    import re

    return pytest.raises(exc, match="^" + re.escape(message) + "$")


# ----------------------------------------------------------------- backward


def test_backward_on_non_scalar_without_gradient():
    x = t64([1.0, 2.0, 3.0])
    with raises_exactly(RuntimeError, "grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()
    with raises_exactly(RuntimeError, "grad can be implicitly created only for scalar outputs"):
        minigrad.autograd.grad(x * 2, x)
    assert x.grad is None


def test_backward_on_tensor_without_grad_fn():
    with raises_exactly(RuntimeError,
                        "element 0 of tensors does not require grad and does not have a grad_fn"):
        minigrad.tensor([1.0, 2.0]).sum().backward()
    with raises_exactly(RuntimeError,
                        "element 0 of tensors does not require grad and does not have a grad_fn"):
        minigrad.tensor(1.0).backward()


def test_backward_names_the_element_that_does_not_require_grad():
    x = t64([1.0])
    with raises_exactly(RuntimeError,
                        "element 1 of tensors does not require grad and does not have a grad_fn"):
        minigrad.autograd.backward([x.sum(), minigrad.tensor(1.0)])


def test_backward_gradient_of_the_wrong_shape():
    x = t64([1.0, 2.0, 3.0])
    with raises_exactly(RuntimeError,
                        "Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) and "
                        "output[0] has a shape of torch.Size([3])."):
        (x * 2).backward(t64([1.0, 1.0], requires_grad=False))


def test_backward_under_no_grad_of_a_result_made_under_no_grad():
    x = t64([1.0])
    with minigrad.no_grad():
        y = (x * 2).sum()
    with raises_exactly(RuntimeError,
                        "element 0 of tensors does not require grad and does not have a grad_fn"):
        y.backward()


# ------------------------------------------------------------ requires_grad


@pytest.mark.parametrize("make", [
    lambda: minigrad.tensor([1, 2], requires_grad=True),
    lambda: minigrad.tensor([True], requires_grad=True),
    lambda: minigrad.ones(2, dtype=minigrad.int64, requires_grad=True),
    lambda: minigrad.zeros(2, dtype=minigrad.int64, requires_grad=True),
])
def test_integer_tensor_cannot_require_grad_at_creation(make):
    with raises_exactly(RuntimeError,
                        "Only Tensors of floating point and complex dtype can require gradients"):
        make()


def test_requires_grad_underscore_on_integer_tensor():
    """PyTorch's ``requires_grad_()`` words it differently from the factory (lower case, no complex)."""
    t = minigrad.tensor([1, 2])
    with raises_exactly(RuntimeError, "only Tensors of floating point dtype can require gradients"):
        t.requires_grad_()
    assert t.requires_grad_(False).requires_grad is False  # switching off is fine


def test_requires_grad_setter_on_integer_tensor():
    """The setter's message starts with a lower-case "only", unlike the factory's."""
    t = minigrad.tensor([1, 2])
    with raises_exactly(RuntimeError,
                        "only Tensors of floating point and complex dtype can require gradients"):
        t.requires_grad = True


def test_requires_grad_false_on_non_leaf():
    x = t64([1.0])
    y = x * 2
    with raises_exactly(RuntimeError, NONLEAF_REQUIRES_GRAD):
        y.requires_grad_(False)
    with raises_exactly(RuntimeError, NONLEAF_REQUIRES_GRAD):
        y.requires_grad = False
    assert y.requires_grad_(True) is y  # asking for what it already has is allowed
    assert y.grad_fn.name() == "MulBackward0"


# ------------------------------------------------------------------- shapes


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "**"])
def test_broadcast_mismatch_message(op):
    a, b = minigrad.ones(2, 3), minigrad.ones(2, 4)
    fn = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
          "/": lambda: a / b, "**": lambda: a ** b}[op]
    with raises_exactly(RuntimeError, "The size of tensor a (3) must match the size of tensor b "
                                      "(4) at non-singleton dimension 1"):
        fn()


def test_broadcast_mismatch_names_the_aligned_dimension():
    with raises_exactly(RuntimeError, "The size of tensor a (3) must match the size of tensor b "
                                      "(4) at non-singleton dimension 0"):
        minigrad.ones(3) * minigrad.ones(4)
    with raises_exactly(RuntimeError, "The size of tensor a (3) must match the size of tensor b "
                                      "(5) at non-singleton dimension 1"):
        minigrad.ones(2, 3, 4) * minigrad.ones(5, 4)


def test_broadcast_mismatch_with_requires_grad_records_nothing():
    a = t64([[1.0, 2.0, 3.0]])
    with pytest.raises(RuntimeError, match="^The size of tensor a"):
        a + t64([[1.0, 2.0, 3.0, 4.0]])
    (a * 2).sum().backward()  # the failed op left the leaf usable
    assert a.grad.tolist() == [[2.0, 2.0, 2.0]]


@pytest.mark.parametrize("fn", [
    lambda a, b: a.mm(b), lambda a, b: a @ b, lambda a, b: minigrad.mm(a, b),
    lambda a, b: minigrad.matmul(a, b),
])
def test_mm_inner_dimension_mismatch(fn):
    with raises_exactly(RuntimeError, "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"):
        fn(minigrad.ones(2, 3), minigrad.ones(4, 5))


def test_mm_of_a_vector():
    x = minigrad.ones(3)
    with raises_exactly(RuntimeError, "self must be a matrix"):
        minigrad.mm(x, minigrad.ones(3, 3))


# ------------------------------------------------------------------ warnings


def test_reading_grad_of_non_leaf_warns():
    x = t64([1.0, 2.0])
    y = x * 2
    with pytest.warns(UserWarning) as record:
        g = y.grad
    assert g is None
    assert len(record) == 1
    msg = str(record[0].message)
    assert msg.startswith(NONLEAF_GRAD_WARNING_START)
    assert msg == NONLEAF_GRAD_WARNING  # PyTorch adds only "(Triggered internally at ...)"
    assert record[0].filename == __file__  # points at the line that read .grad


def test_reading_grad_of_non_leaf_after_backward_still_warns_and_is_none():
    x = t64([1.0, 2.0])
    y = x * 2
    y.sum().backward()
    with pytest.warns(UserWarning, match="^The .grad attribute of a Tensor that is not a leaf"):
        assert y.grad is None


def test_reading_grad_of_a_leaf_does_not_warn():
    x = t64([1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x.grad is None
        (x * 2).sum().backward()
        assert x.grad.tolist() == [2.0, 2.0]
        assert minigrad.tensor([1.0]).grad is None


def test_retain_grad_silences_the_warning():
    x = t64([1.0, 2.0])
    y = x * 2
    y.retain_grad()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert y.grad is None
        (y * 3).sum().backward()
        assert y.grad.tolist() == [3.0, 3.0]


def test_no_warning_when_a_non_leaf_grad_is_set():
    """PyTorch warns only while the non-leaf's .grad is undefined (TensorBody.h: ``!grad.defined()``).

    (Was a bug:) minigrad warns on every read of a non-leaf's .grad unless
    retain_grad() was called, even when a value was assigned to it.
    """
    x = t64([2.0])
    y = x * 3
    y.grad = t64([1.0], requires_grad=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert y.grad.tolist() == [1.0]
