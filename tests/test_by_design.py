"""Where minigrad differs from PyTorch on purpose, each difference checked as it is.

The README's "differences by design" lists these with their reasons; the
parity fixtures (tests/fixtures/) pin everything else against a real PyTorch
run.  A test here fails if a difference disappears or changes shape unnoticed.
"""

import numpy as np
import pytest

import minigrad
from minigrad.autograd import forward_ad as fwAD


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "uint16", "float16",
                                   "complex64"])
def test_numpy_arrays_of_other_dtypes_are_refused_not_converted(dtype):
    # PyTorch keeps uint8, int32, float16, ...; minigrad has four dtypes, and
    # converting silently would hide a difference, so it says what to do
    arr = np.array([1, 2], dtype=dtype)
    for make in (minigrad.tensor, minigrad.from_numpy, minigrad.as_tensor):
        with pytest.raises(TypeError, match=f"can't convert np.ndarray of type numpy.{dtype}. "
                                            "The only supported types are: float64, float32"):
            make(arr)
    with pytest.raises(TypeError):
        minigrad.tensor(arr[0])  # a numpy scalar of that dtype too
    if dtype != "complex64":  # asking for a dtype converts, as PyTorch does
        assert minigrad.tensor(arr, dtype=minigrad.float32).tolist() == [1.0, 2.0]


def test_tangent_graphs_record_only_the_terms_that_exist():
    # PyTorch's codegen adds a (zero) term for a tangent that is absent, so the
    # tangent of d.sin() * 2 ends in AddBackward0; minigrad's rule for x * 2 is
    # one product (MulBackward0).  Values agree (parity case
    # forward_ad_tangent_of_a_primal_that_requires_grad).
    x = minigrad.tensor([0.5, 1.5], dtype=minigrad.float64, requires_grad=True)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, minigrad.ones(2, dtype=minigrad.float64))
        tangent = fwAD.unpack_dual(d.sin() * 2).tangent
    assert tangent.grad_fn.name() == "MulBackward0"
    np.testing.assert_allclose(tangent.detach().numpy(), 2 * np.cos([0.5, 1.5]))


def test_pickled_views_come_back_contiguous():
    # PyTorch pickles a view with its storage and strides; minigrad stores the
    # values only, so a view comes back as a new contiguous tensor
    import pickle

    v = minigrad.arange(6.0).reshape(2, 3)[:, 1]
    back = pickle.loads(pickle.dumps(v))
    assert back.tolist() == [1.0, 4.0] and back.is_contiguous()


def test_saved_views_do_not_share_memory_after_load():
    # PyTorch's torch.save writes storages, so a tensor and its view saved
    # together share memory again after torch.load (and a small view saved
    # alone drags its whole storage into the file); minigrad writes values
    import io

    v = minigrad.arange(6.0).reshape(2, 3)
    buf = io.BytesIO()
    minigrad.save([v, v[0]], buf)
    buf.seek(0)
    a, b = minigrad.load(buf)
    b[0] = 100.0
    assert a.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


def test_a_numpy_ufunc_with_a_bool_result_gives_a_bool_tensor():
    # PyTorch's __array_wrap__ turns a bool result into uint8; minigrad has no uint8
    t = minigrad.tensor([0.5, -1.0])
    out = np.greater(t, 0)
    assert isinstance(out, minigrad.Tensor) and out.dtype is minigrad.bool
    assert out.tolist() == [True, False]
    # a float result shares numpy's array, as from_numpy does, and records nothing
    s = np.sin(minigrad.tensor([0.0], requires_grad=False))
    assert s.grad_fn is None and s.tolist() == [0.0]


def test_median_along_an_expanded_dim_is_the_median():
    # PyTorch 2.13 (CPU) returns [[-1.0, -1.0, 0.3], [0.5, -0.7, -0.7]] here, and values
    # read from outside the tensor for x[:, None].expand(2, 3, 3).median(1): minigrad
    # gives what both libraries give on a contiguous copy
    x = minigrad.tensor([[1.5, -1.0, 0.3], [2.0, 0.5, -0.7]], requires_grad=True)
    e = x.expand(2, 2, 3)
    m = e.median(0)
    assert m.values.tolist() == x.tolist() and m.indices.tolist() == [[0, 0, 0], [0, 0, 0]]
    assert x[:, None].expand(2, 3, 3).median(1).values.tolist() == x.tolist()
    m.values.sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]


def test_memory_is_never_left_uninitialised():
    """``empty``, ``new_empty`` and the legacy ``Tensor(*sizes)`` give zeros (PyTorch: whatever
    the memory held), in the dtype PyTorch gives."""
    x = minigrad.tensor([1, 2])
    made = [minigrad.empty(2, 3), x.new_empty((2, 3)), minigrad.Tensor(2, 3),
            minigrad.FloatTensor(2, 3), minigrad.LongTensor(2, 3)]
    for t, dtype in zip(made, [minigrad.float32, minigrad.int64, minigrad.float32,
                               minigrad.float32, minigrad.int64]):
        assert t.shape == (2, 3) and t.dtype is dtype
        assert np.array_equal(t.numpy(), np.zeros((2, 3)))
