"""A node's saved values have one form: looking at them changes nothing.

``node._saved`` (what viz and memory read) and ``_raw_saved_*`` give records
made afresh from the node's entries; the entries themselves stay as they were
saved, so a node behaves the same whether or not a learner (or a picture)
looked at it first (``autograd/saved.py``).
"""

import pytest

import minigrad
from minigrad.autograd import saved


def _kinds(node):
    return [type(e).__name__ for e in node._kept], tuple(node._kept_versions)


def test_reading_the_records_converts_nothing():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    w = minigrad.tensor([3.0, 4.0], requires_grad=True)
    y = (x * w).exp()  # MulBackward0 saves two inputs, ExpBackward0 its own output
    for node in (y.grad_fn, y.grad_fn.next_functions[0][0]):
        before = _kinds(node)
        records = node._saved
        assert all(isinstance(r, saved.SavedTensor) for r in records)
        node._raw_saved_tensors  # noqa: B018 (a read)
        assert _kinds(node) == before
    assert _kinds(y.grad_fn) == (["SavedOutput"], (0,))


def test_a_detached_input_is_refused_after_it_was_looked_at():
    """The refusal (PyTorch's) holds whether or not the node was inspected first."""
    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a = x * 1
    y = a.sin()
    y.grad_fn._saved  # noqa: B018 (a learner looks at the node)
    a.detach_()
    with pytest.raises(RuntimeError, match="detached in-place"):
        y.sum().backward()


def test_an_output_written_in_place_is_caught_after_it_was_looked_at():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.grad_fn._saved  # noqa: B018
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_register_hooks_packs_the_value_it_names():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    packed = []
    y.grad_fn._raw_saved_result.register_hooks(lambda t: packed.append(t) or t.clone(),
                                              lambda p: p * 2)
    assert len(packed) == 1 and packed[0].tolist() == y.tolist()
    with pytest.raises(RuntimeError, match="already been set"):
        y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda p: p)
    y.sum().backward()
    # ExpBackward0 used the unpacked (doubled) result: grad = 2 * exp(x)
    assert x.grad.tolist() == pytest.approx([2 * v for v in y.tolist()])


def test_forward_mode_keeps_the_entry_a_saved_output():
    """A dual output saved for backward keeps its form; its unpack re-attaches the tangent."""
    import minigrad.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        x = fwAD.make_dual(minigrad.tensor([0.5, 1.0], dtype=minigrad.float64),
                           minigrad.tensor([1.0, 0.0], dtype=minigrad.float64))
        x.requires_grad_()
        y = x.exp()
        assert _kinds(y.grad_fn)[0] == ["SavedOutput"]
        (unpacked,) = saved.unpack(y.grad_fn)
        assert fwAD.unpack_dual(unpacked).tangent.tolist() == pytest.approx(
            [fwAD.unpack_dual(y).tangent.tolist()[0], 0.0])
