"""Where minigrad differs from PyTorch on purpose, each difference checked as it is.

The README's "differences by design" lists these with their reasons; the
parity fixtures (tests/fixtures/) pin everything else against a real PyTorch
run.  A test here fails if a difference disappears or changes shape unnoticed.
"""

import math
import subprocess
import sys

import numpy as np
import pytest

import minigrad
from minigrad.autograd import forward_ad as fwAD


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "uint32", "uint16", "float16",
                                   "complex64"])
def test_numpy_arrays_of_other_dtypes_are_refused_not_converted(dtype):
    # PyTorch keeps uint8, int16, float16, ...; minigrad has five dtypes, and
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


def test_the_generator_state_is_pytorchs_bytes_in_an_int64_tensor():
    """``get_state`` gives PyTorch's 5056 bytes (CPUGeneratorImplState), one a value, as int64:
    minigrad has no uint8.  ``set_state`` takes them back, and refuses what PyTorch refuses.
    The bytes themselves are pinned by the parity case random_state_round_trip."""
    g = minigrad.Generator().manual_seed(5)
    minigrad.randn(3, generator=g)  # leaves a cached normal in the state
    state = g.get_state()
    assert state.dtype is minigrad.int64 and state.shape == (5056,)
    assert 0 <= state.min().item() and state.max().item() <= 255
    after = minigrad.randn(5, generator=g).tolist()
    assert minigrad.randn(5, generator=minigrad.Generator().set_state(state)).tolist() == after
    with pytest.raises(RuntimeError, match="Expected a CPUGeneratorImplState of size 5056 but "
                                           "found the input RNG state size to be 10"):
        g.set_state(minigrad.zeros(10, dtype=minigrad.int64))
    with pytest.raises(RuntimeError, match="Invalid mt19937 state"):
        g.set_state(minigrad.zeros(5056, dtype=minigrad.int64))


def test_the_default_generator_starts_from_seed_0():
    """PyTorch seeds its default generator from the OS when it loads; minigrad from 0, so a
    lesson that never calls manual_seed prints the same numbers on every run."""
    code = "import minigrad; print(minigrad.initial_seed(), minigrad.rand(2).tolist())"
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout for _ in range(2)]
    assert runs[0] == runs[1] and runs[0].startswith("0 ")
    seeded = minigrad.rand(2, generator=minigrad.Generator().manual_seed(0)).tolist()
    assert runs[0].split(" ", 1)[1].strip() == str(seeded)


def test_float64_randn_from_16_values_uses_numpys_log_sin_and_cos():
    """From 16 values, float64 randn is PyTorch's Box–Muller (normal_fill) over PyTorch's
    uniforms, with numpy's log, sin and cos where PyTorch calls the C library's: a value can
    differ in the last bit or two (measured: at most 2 ulp, in 0.15% of values).  Below 16
    values the double Box–Muller uses Python's math (the C library's) and is exact."""
    u = minigrad.rand(16, generator=minigrad.Generator().manual_seed(3), dtype=minigrad.float64)
    u = u.numpy()
    radius = np.sqrt(-2.0 * np.log(1.0 - u[:8]))
    theta = 2.0 * np.pi * u[8:]
    expected = np.concatenate([radius * np.cos(theta), radius * np.sin(theta)])
    got = minigrad.randn(16, generator=minigrad.Generator().manual_seed(3), dtype=minigrad.float64)
    assert np.array_equal(got.numpy(), expected)


def test_float_of_a_tensor_that_requires_grad_warns_once_per_process(monkeypatch):
    """PyTorch's TORCH_WARN_ONCE: the first ``float(t)`` (or ``'%.4f' % t``) of a tensor that
    requires grad, with grad mode on, warns; later ones do not, whatever the filter; ``int``,
    ``item`` and a call under ``no_grad`` never do."""
    import warnings

    from minigrad.ops import conversion

    monkeypatch.setattr(conversion, "_warned_scalar", False)
    x = minigrad.tensor(2.0, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with minigrad.no_grad():
            float(x)
        int(x), x.item(), float(x.detach())
        assert not caught
        assert "%.1f" % x == "2.0"
        float(x * 3)
    assert [str(w.message).split("\n")[0] for w in caught] == [
        "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior."]
    assert caught[0].category is UserWarning


def test_bernoulli_with_one_p_draws_as_pytorch_on_cpus_other_than_intel():
    """``bernoulli(x, p)`` and dropout's mask are ``u < p``, u a double uniform from mt19937:
    PyTorch's ``bernoulli_kernel``, which its MKL build runs on AMD and ARM CPUs; on Intel
    CPUs that build draws with MKL's VSL MCG31 stream instead (``bernoulli_scalar_kernel``
    checks the vendor), which minigrad does not copy.  Pinned by random_sampling_* cases."""
    drawn = minigrad.bernoulli(minigrad.zeros(50), 0.3, generator=minigrad.Generator().manual_seed(4))
    u = minigrad.rand(50, dtype=minigrad.float64, generator=minigrad.Generator().manual_seed(4))
    assert drawn.tolist() == (u.numpy() < 0.3).astype(np.float32).tolist()
    minigrad.manual_seed(4)
    mask = minigrad.nn.functional.dropout(minigrad.ones(50), 0.7)
    assert (mask.numpy() != 0).tolist() == (u.numpy() < 1 - 0.7).tolist()


def test_float64_exponentials_use_numpys_log1p():
    """``multinomial`` without replacement (or of one sample) races ``p / q`` with
    ``q = -log1p(-u)``: PyTorch calls the C library's log1p, minigrad numpy's, which differs
    in the last bit of some doubles (measured: about 7%, at most 1 ulp; float32 agrees).  An
    index changes only on an exact tie of ``p / q``."""
    g = minigrad.Generator().manual_seed(9)
    u = minigrad.rand(2000, dtype=minigrad.float64, generator=g).numpy()
    ours = -np.log1p(-u)
    libm = np.array([-math.log1p(-v) for v in u])
    assert np.max(np.abs(ours - libm) / np.spacing(libm)) <= 1
    probs = minigrad.tensor([[0.1, 0.2, 0.3, 0.4]] * 500, dtype=minigrad.float64)
    drawn = minigrad.multinomial(probs, 1, generator=minigrad.Generator().manual_seed(9)).numpy()
    assert np.array_equal(drawn[:, 0], np.argmax(probs.numpy() / ours.reshape(500, 4), axis=1))


def test_categories_of_weight_0_come_last_in_index_order():
    """Without replacement, once the categories of positive weight are drawn the ones of
    weight 0 follow: in index order in minigrad (a stable sort), in the order PyTorch's
    ``topk`` (not stable) leaves them in PyTorch."""
    weights = minigrad.tensor([0.0, 0.5, 0.0, 0.5, 0.0, 0.0])
    drawn = minigrad.multinomial(weights, 6, generator=minigrad.Generator().manual_seed(1))
    assert sorted(drawn.tolist()[:2]) == [1, 3] and drawn.tolist()[2:] == [0, 2, 4, 5]
