"""Gradient checkpointing (``minigrad.utils.checkpoint``).

What is pinned here:

* gradients through a checkpointed segment are *identical* (bitwise) to a
  plain run, for both variants, for ``checkpoint_sequential`` with any number
  of segments, with ``retain_graph=True``, for inputs that do not require
  grad, nested in other operations and nested in another checkpoint;
* the segment's saved activations are really dropped: a saved-tensor counter
  and tracemalloc both show O(√k) memory for a chain of k layers cut into √k
  segments, against O(k) without;
* the segment runs exactly once more in backward (and stops early);
* random numbers are replayed (``preserve_rng_state``);
* a function that does not compute the same thing twice raises PyTorch's
  ``CheckpointError``; the warnings and errors are PyTorch's, as recorded in
  tests/fixtures/mlp_torch.json by tests/fixtures/record_mlp.py.
"""

import gc
import json
import math
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pytest

import minigrad
import minigrad.nn as nn
from minigrad.autograd.graph import saved_tensors_hooks
from minigrad.utils.checkpoint import CheckpointError, checkpoint, checkpoint_sequential

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "mlp_torch.json").read_text())
ERRORS = FIXTURE["errors"]


def torch_message(name):
    """PyTorch's message without its trailing debugging tip (minigrad has no debug mode)."""
    return ERRORS[name]["message"].split("\n\nTip:")[0]


def mlp(seed=0, depth=3, width=8, dtype=None):
    minigrad.manual_seed(seed)
    layers = [nn.Linear(4, width, dtype=dtype), nn.Tanh()]
    for _ in range(depth - 2):
        layers += [nn.Linear(width, width, dtype=dtype), nn.Tanh()]
    layers.append(nn.Linear(width, 3, dtype=dtype))
    return nn.Sequential(*layers)


def grads(model, x):
    out = [p.grad._data.copy() for p in model.parameters()]
    if x is not None and x.requires_grad:
        out.append(x.grad._data.copy())
    return out


def reset(model, x):
    model.zero_grad()
    if x is not None:
        x.grad = None


def assert_identical(a, b):
    assert len(a) == len(b)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)


@pytest.fixture
def model_and_input():
    model = mlp(depth=4)
    minigrad.manual_seed(1)
    x = minigrad.randn(5, 4, requires_grad=True)
    return model, x


def plain_grads(model, x, fn=None):
    (fn or model)(x).pow(2).sum().backward()
    g = grads(model, x)
    reset(model, x)
    return g


# ---------------------------------------------------------------- same gradients


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_checkpoint_gives_identical_gradients(model_and_input, use_reentrant):
    model, x = model_and_input
    expected = plain_grads(model, x)
    y = checkpoint(model, x, use_reentrant=use_reentrant)
    y.pow(2).sum().backward()
    assert_identical(grads(model, x), expected)


@pytest.mark.parametrize("use_reentrant", [False, True])
@pytest.mark.parametrize("segments", [1, 2, 3, 4, 7])
def test_checkpoint_sequential_any_number_of_segments(model_and_input, segments, use_reentrant):
    model, x = model_and_input
    expected = plain_grads(model, x)
    y = checkpoint_sequential(model, segments, x, use_reentrant=use_reentrant)
    with minigrad.no_grad():
        np.testing.assert_array_equal(y._data, model(x)._data)
    y.pow(2).sum().backward()
    assert_identical(grads(model, x), expected)


def test_checkpoint_sequential_accepts_a_list_of_functions(leaf):
    x = leaf([0.3, -1.2, 2.0])
    fns = [minigrad.sin, minigrad.exp, minigrad.tanh, minigrad.cos]
    plain = x
    for f in fns:
        plain = f(plain)
    plain.sum().backward()
    expected = x.grad._data.copy()
    x.grad = None
    checkpoint_sequential(fns, 2, x, use_reentrant=False).sum().backward()
    np.testing.assert_array_equal(x.grad._data, expected)


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_retain_graph_walks_twice(model_and_input, use_reentrant):
    model, x = model_and_input
    out = model(x).pow(2).sum()
    out.backward(retain_graph=True)
    out.backward()
    expected = grads(model, x)
    reset(model, x)

    out = checkpoint(model, x, use_reentrant=use_reentrant).pow(2).sum()
    out.backward(retain_graph=True)
    once = grads(model, x)
    out.backward()
    assert_identical(grads(model, x), expected)
    for a, b in zip(once, expected):
        np.testing.assert_allclose(2 * a, b, rtol=1e-6)


def test_second_backward_without_retain_graph_fails_as_usual(model_and_input):
    model, x = model_and_input
    out = checkpoint(model, x, use_reentrant=False).sum()
    out.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        out.backward()


def test_input_that_does_not_require_grad_non_reentrant(model_and_input):
    model, x = model_and_input
    x = x.detach()
    expected = plain_grads(model, x)
    checkpoint(model, x, use_reentrant=False).pow(2).sum().backward()
    assert_identical(grads(model, x), expected)


def test_input_that_does_not_require_grad_reentrant_warns_as_pytorch(model_and_input):
    model, x = model_and_input
    with pytest.warns(UserWarning) as record:
        y = checkpoint(model, x.detach(), use_reentrant=True)
    assert [str(w.message) for w in record] == ERRORS["checkpoint_no_input_requires_grad"]
    # as in PyTorch: the reentrant variant cannot see the parameters, so no graph
    assert y.grad_fn is None and not y.requires_grad


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_nested_inside_other_operations(model_and_input, use_reentrant):
    model, x = model_and_input
    segment = nn.Sequential(*list(model.children())[2:5])

    def whole(t):
        h = model[1](model[0](t * 2.0))
        return (model[6](model[5](segment(h))).exp() + h.sum()).mean(0)

    def checkpointed(t):
        h = model[1](model[0](t * 2.0))
        return (model[6](model[5](checkpoint(segment, h, use_reentrant=use_reentrant))).exp()
                + h.sum()).mean(0)

    expected = plain_grads(model, x, whole)
    checkpointed(x).pow(2).sum().backward()
    assert_identical(grads(model, x), expected)


def test_checkpoint_nested_in_checkpoint(leaf):
    x = leaf([[0.5, -1.0], [2.0, 0.25]])

    def inner(t):
        return (t * t).exp()

    def outer_plain(t):
        return inner(t.sin()).cos().sum(0)

    def outer_checkpointed(t):
        return checkpoint(inner, t.sin(), use_reentrant=False).cos().sum(0)

    outer_plain(x).sum().backward()
    expected = x.grad._data.copy()
    x.grad = None
    out = checkpoint(outer_checkpointed, x, use_reentrant=False).sum()
    out.backward(retain_graph=True)
    np.testing.assert_array_equal(x.grad._data, expected)
    out.backward()  # the second walk recomputes both levels again
    np.testing.assert_allclose(x.grad._data, 2 * expected, rtol=1e-12)


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_in_place_operations_inside_the_segment(leaf, use_reentrant):
    def f(t):
        y = t * 2.0
        y.mul_(3.0)
        y.add_(1.0)
        z = y.sin()
        return (z * y).sum()

    x = leaf([0.1, 0.5, -0.3])
    f(x).backward()
    expected = x.grad._data.copy()
    x.grad = None
    checkpoint(f, x, use_reentrant=use_reentrant).backward()
    np.testing.assert_array_equal(x.grad._data, expected)


def test_input_changed_in_place_before_backward_raises_as_pytorch():
    x = minigrad.tensor([0.1, 0.5, 0.9], requires_grad=True)  # 3 values, as recorded
    h = x * 1.0
    out = checkpoint(lambda t: t.exp().sum(), h, use_reentrant=False)
    with minigrad.no_grad():
        h.mul_(3.0)
    with pytest.raises(RuntimeError) as info:
        out.backward()
    assert str(info.value) == ERRORS["checkpoint_input_modified"]["message"]


def test_autograd_grad_through_checkpoint(leaf):
    x = leaf([0.1, 0.7, -0.4])
    y = checkpoint(lambda t: (t.exp() * t.sin()).sum(), x, use_reentrant=False)
    (g,) = minigrad.autograd.grad(y, x)
    np.testing.assert_allclose(g._data, np.exp(x._data) * (np.sin(x._data) + np.cos(x._data)))
    assert x.grad is None


def test_keyword_arguments_reach_the_function(leaf):
    x = leaf([1.0, 2.0])
    y = checkpoint(lambda t, *, scale: (t * scale).exp(), x, scale=3.0, use_reentrant=False)
    y.sum().backward()
    np.testing.assert_allclose(x.grad._data, 3.0 * np.exp(3.0 * x._data))


def test_under_no_grad_the_function_just_runs(model_and_input):
    model, x = model_and_input
    with minigrad.no_grad():
        y = checkpoint(model, x, use_reentrant=False)
    assert y.grad_fn is None


def test_reentrant_records_one_node():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    y = checkpoint(lambda t: t.exp().sin(), x, use_reentrant=True)
    assert y.grad_fn.name() == "CheckpointFunctionBackward"
    assert y.grad_fn.next_functions[0][0].variable is x
    z = checkpoint(lambda t: t.exp().sin(), x, use_reentrant=False)
    assert z.grad_fn.name() == "SinBackward0"  # the segment's own last node


# ---------------------------------------------------------------- what is kept, what is recomputed


def test_saved_values_are_holders_until_backward_needs_them(leaf):
    x = leaf([0.5, 1.5])
    calls = []

    def f(t):
        calls.append(1)
        return t.exp().tanh()

    y = checkpoint(f, x, use_reentrant=False)
    assert len(calls) == 1
    # Reading a saved value triggers the recomputation and returns the right value.
    np.testing.assert_array_equal(y.grad_fn._saved_result._data, np.tanh(np.exp(x._data)))
    assert len(calls) == 2
    y.sum().backward()
    assert len(calls) == 3  # the value read above was used up; backward recomputes once


def test_backward_runs_the_segment_exactly_once_more(model_and_input):
    model, x = model_and_input
    calls = []
    handle = model.register_forward_pre_hook(lambda m, a: calls.append(1))
    out = checkpoint(model, x, use_reentrant=False).sum()
    assert len(calls) == 1
    out.backward(retain_graph=True)
    assert len(calls) == 2
    out.backward()
    assert len(calls) == 3
    handle.remove()


def counting_hooks():
    """saved_tensors_hooks that count the arrays saved through them (and keep them)."""
    counts = {"tensors": 0, "bytes": 0}

    def pack(t):
        counts["tensors"] += 1
        counts["bytes"] += t._data.nbytes
        return t

    return saved_tensors_hooks(pack, lambda t: t), counts


@pytest.mark.parametrize("use_reentrant", [False, True])
@pytest.mark.parametrize("k", [16, 64])
def test_saved_tensor_count_is_O_sqrt_k(k, use_reentrant):
    """A chain of k tanh layers: k saved activations plainly; 2√k - 1 with √k segments."""
    x = minigrad.tensor(np.linspace(-1, 1, 1000), requires_grad=True)
    layers = [minigrad.tanh] * k
    hooks, plain = counting_hooks()
    with hooks:
        out = checkpoint_sequential(layers, 1, x, use_reentrant=use_reentrant)
    assert plain["tensors"] == k
    del out
    s = int(math.isqrt(k))
    hooks, ckpt = counting_hooks()
    with hooks:
        checkpoint_sequential(layers, s, x, use_reentrant=use_reentrant)
    # s - 1 segment inputs + the k/s activations of the last, plain, segment
    assert ckpt["tensors"] == (s - 1) + k // s == 2 * s - 1
    assert ckpt["bytes"] == (2 * s - 1) * x._data.nbytes


def peak_bytes(run):
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        result = run()
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    return peak, result


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_peak_memory_and_identical_gradients(use_reentrant):
    """tracemalloc over forward + backward of 64 layers of 200 kB activations."""
    k, s, n = 64, 8, 50_000
    x0 = np.random.default_rng(0).uniform(-1, 1, n).astype(np.float32)
    layers = [minigrad.tanh] * k

    def run(segments):
        x = minigrad.tensor(x0, requires_grad=True)
        checkpoint_sequential(layers, segments, x, use_reentrant=use_reentrant).sum().backward()
        return x.grad._data.copy()

    plain_peak, plain_grad = peak_bytes(lambda: run(1))
    ckpt_peak, ckpt_grad = peak_bytes(lambda: run(s))
    np.testing.assert_array_equal(ckpt_grad, plain_grad)
    activation = n * 4
    assert plain_peak > k * activation                   # every activation held at once
    assert ckpt_peak < 0.45 * plain_peak                 # ~ (2√k + a few) activations
    assert ckpt_peak < (3 * s + 6) * activation


# ---------------------------------------------------------------- random numbers


def dropout_like(t):
    mask = (minigrad.rand(*t.shape) > 0.5).float()
    return (t * mask * 2.0).sin()


def test_rng_state_is_replayed(leaf):
    x = leaf(np.linspace(0, 1, 50))
    minigrad.manual_seed(3)
    dropout_like(x).sum().backward()
    expected = x.grad._data.copy()
    after_plain = minigrad.rand(3)._data
    x.grad = None

    minigrad.manual_seed(3)
    y = checkpoint(dropout_like, x, use_reentrant=False)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad._data, expected)
    # the recomputation did not disturb the global stream
    np.testing.assert_array_equal(minigrad.rand(3)._data, after_plain)


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_without_preserve_rng_state_the_mask_changes(leaf, use_reentrant):
    x = leaf(np.linspace(0, 1, 50))
    minigrad.manual_seed(3)
    dropout_like(x).sum().backward()
    expected = x.grad._data.copy()
    x.grad = None
    minigrad.manual_seed(3)
    y = checkpoint(dropout_like, x, use_reentrant=use_reentrant, preserve_rng_state=False)
    y.sum().backward()
    assert not np.array_equal(x.grad._data, expected)


# ---------------------------------------------------------------- non-determinism, warnings, errors


def test_different_number_of_saved_tensors_raises_pytorch_error(leaf):
    calls = {"n": 0}

    def fewer(t):  # the same function as in record_mlp.py
        calls["n"] += 1
        return t.sin().sin() if calls["n"] == 1 else t.sin() * 2

    out = checkpoint(fewer, leaf([0.1, 0.2, 0.3]), use_reentrant=False)
    with pytest.raises(CheckpointError) as info:
        out.sum().backward()
    assert str(info.value) == torch_message("checkpoint_fewer_tensors")
    assert isinstance(info.value, RuntimeError)


def test_different_metadata_raises_pytorch_error():
    calls = {"n": 0}

    def other_shape(t):
        calls["n"] += 1
        return t.sin() if calls["n"] == 1 else t.expand(2, 3).sin().sum(0)

    x = minigrad.tensor([0.1, 0.2, 0.3], requires_grad=True)
    out = checkpoint(other_shape, x, use_reentrant=False)
    with pytest.raises(CheckpointError) as info:
        out.sum().backward()
    assert str(info.value) == torch_message("checkpoint_metadata")


def test_more_saved_tensors_is_an_error_only_without_early_stop(leaf):
    calls = {"n": 0}

    def more(t):  # the recomputation saves one more tensor, after the needed one
        calls["n"] += 1
        return t.sin() if calls["n"] == 1 else t.sin().sin()

    x = leaf([0.1, 0.2])
    checkpoint(more, x, use_reentrant=False).sum().backward()  # early stop: never noticed
    np.testing.assert_allclose(x.grad._data, np.cos(x._data))
    calls["n"] = 0
    out = checkpoint(more, x, use_reentrant=False, early_stop=False)
    with pytest.raises(CheckpointError, match="trying to save more tensors during recomputation"):
        out.sum().backward()


def test_recomputation_leaves_no_reference_cycles(leaf):
    """Activations recomputed in backward are freed by reference counting alone."""
    x = minigrad.tensor(np.ones(1000), requires_grad=True)
    gc.collect()
    gc.disable()
    try:
        out = checkpoint_sequential([minigrad.tanh] * 16, 4, x, use_reentrant=False)
        out.sum().backward()
        del out
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_missing_use_reentrant_warns_with_pytorch_text(leaf):
    x = leaf([0.1, 0.2, 0.3])
    with pytest.warns(UserWarning) as record:
        checkpoint(minigrad.sin, x)
        checkpoint_sequential([minigrad.sin, minigrad.cos], 2, x)
    assert [str(w.message) for w in record] == ERRORS["checkpoint_warnings"]


def test_explicit_use_reentrant_does_not_warn(leaf):
    x = leaf([0.1, 0.2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checkpoint(minigrad.sin, x, use_reentrant=False)
        checkpoint(minigrad.sin, x, use_reentrant=True)
        checkpoint_sequential([minigrad.sin], 1, x, use_reentrant=False)


def test_keyword_errors_as_pytorch(leaf):
    x = leaf([0.1, 0.2, 0.3])
    with pytest.raises(ValueError) as info:
        checkpoint(minigrad.sin, x, use_reentrant=True, foo=1)
    assert str(info.value) == ERRORS["checkpoint_reentrant_kwargs"]["message"]
    with pytest.raises(ValueError) as info:
        checkpoint_sequential([minigrad.sin], 1, x, use_reentrant=False, foo=1)
    assert str(info.value) == ERRORS["checkpoint_sequential_kwargs"]["message"]
    with pytest.raises(ValueError, match="determinism_check should be one of"):
        checkpoint(minigrad.sin, x, use_reentrant=False, determinism_check="strict")
