"""``detect_anomaly`` and ``inference_mode``: what the parity fixtures cannot pin.

* anomaly mode's forward traceback is environment-specific (file names, line
  numbers), so it is checked here: the error raised at the first nan gradient
  carries, as ``err.forward_traceback`` and in the warning it emits, the stack
  of the forward call that created the failing node, naming this file and
  the line of the operation;
* inference tensors' rules, as PyTorch states them: created inside the block
  they never require grad through an operation and have no ``grad_fn``; they
  may be used later by operations that save nothing, but not saved for
  backward; they may not be written outside the block; a clone is normal.
"""

import inspect
import warnings

import numpy as np
import pytest

import minigrad
from minigrad.autograd import detect_anomaly, set_detect_anomaly
from minigrad.autograd.anomaly import is_anomaly_enabled

THIS_FILE = "test_inference_anomaly.py"
INFERENCE_SAVED = "Inference tensors cannot be saved for backward."


def _line_of(fragment, fn):
    lines, start = inspect.getsourcelines(fn)
    for i, line in enumerate(lines):
        if fragment in line:
            return start + i
    raise AssertionError(fragment)


# ------------------------------------------------------------------ detect_anomaly

def _forward_with_log_at_zero(x):
    return (x.log() * 0).sum()  # the op that will produce nan in backward


def test_nan_in_backward_raises_naming_the_node_with_forward_traceback():
    x = minigrad.tensor([0.0, 1.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with detect_anomaly():
            z = _forward_with_log_at_zero(x)
            with pytest.raises(RuntimeError) as err:
                z.backward()
    assert str(err.value) == "Function 'LogBackward0' returned nan values in its 0th output."
    trace = err.value.forward_traceback
    line = _line_of("x.log() * 0", _forward_with_log_at_zero)
    assert f'{THIS_FILE}", line {line}, in _forward_with_log_at_zero' in trace
    assert "return (x.log() * 0).sum()" in trace
    # the caller of the forward function is in it too
    assert "z = _forward_with_log_at_zero(x)" in trace
    texts = [str(w.message) for w in caught]
    assert any(t.startswith("Anomaly Detection has been enabled.") for t in texts)
    detected = [t for t in texts if t.startswith("Error detected in LogBackward0.")]
    assert len(detected) == 1
    assert "Traceback of forward call that caused the error:" in detected[0]
    assert f"{THIS_FILE}\", line {line}" in detected[0]


def test_traceback_points_at_the_failing_node_not_the_first_one():
    x = minigrad.tensor([0.0, 4.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with detect_anomaly():
            a = x.exp()
            b = x.sqrt() * 0                          # SqrtBackward0: 0 / (2 sqrt(0)) = nan
            z = (a + b).sum()
            with pytest.raises(RuntimeError, match="^Function 'SqrtBackward0' returned nan values in "
                                                   "its 0th output.$") as err:
                z.backward()
    trace = err.value.forward_traceback
    assert "b = x.sqrt() * 0" in trace
    assert "a = x.exp()" not in trace


def test_nan_in_second_input_names_its_index():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    c = minigrad.tensor([float("nan"), 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with detect_anomaly():
            y = (c * x).sum()
            with pytest.raises(RuntimeError, match="^Function 'MulBackward0' returned nan values in its "
                                                   "1th output.$"):
                y.backward()


def test_without_anomaly_mode_nan_flows_into_grad():
    x = minigrad.tensor([0.0, 1.0], requires_grad=True)
    (x.log() * 0).sum().backward()
    assert np.isnan(x.grad._data[0]) and x.grad._data[1] == 0.0


def test_check_nan_false_records_but_does_not_raise():
    x = minigrad.tensor([0.0, 1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with detect_anomaly(check_nan=False):
            (x.log() * 0).sum().backward()
    assert np.isnan(x.grad._data[0])


def test_anomaly_mode_is_restored_even_after_an_error():
    assert not is_anomaly_enabled()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError):
            with detect_anomaly():
                assert is_anomaly_enabled()
                x = minigrad.tensor([0.0], requires_grad=True)
                (x.sqrt() * 0).sum().backward()
    assert not is_anomaly_enabled()
    with set_detect_anomaly(True):
        assert is_anomaly_enabled()
    assert not is_anomaly_enabled()


def test_node_recorded_outside_anomaly_mode_still_named():
    x = minigrad.tensor([0.0], requires_grad=True)
    z = (x.log() * 0).sum()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with detect_anomaly():
            with pytest.raises(RuntimeError, match="^Function 'LogBackward0' returned nan"):
                z.backward()


def test_anomaly_mode_with_custom_function():
    class Bad(minigrad.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, g):
            return g * float("nan")

    x = minigrad.tensor([1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with detect_anomaly():
            y = Bad.apply(x).sum()
            with pytest.raises(RuntimeError, match="^Function 'BadBackward' returned nan") as err:
                y.backward()
    assert "y = Bad.apply(x).sum()" in err.value.forward_traceback


# ------------------------------------------------------------------ inference_mode

def test_inference_tensors_flags():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    with minigrad.inference_mode():
        assert minigrad.is_inference_mode_enabled() and not minigrad.is_grad_enabled()
        y = x * 2
        c = minigrad.ones(2)
    assert not minigrad.is_inference_mode_enabled() and minigrad.is_grad_enabled()
    assert y.is_inference() and c.is_inference()
    assert not y.requires_grad and y.grad_fn is None and y.is_leaf
    assert not x.is_inference()


def test_inference_tensor_cannot_be_saved_for_backward():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    with minigrad.inference_mode():
        c = minigrad.tensor([3.0, 4.0])
    with pytest.raises(RuntimeError) as err:
        x * c                       # MulBackward0 would save c
    assert str(err.value).startswith(INFERENCE_SAVED + " Please do not use Tensors created in "
                                                       "inference mode in computation tracked by autograd.")
    with pytest.raises(RuntimeError, match=f"^{INFERENCE_SAVED}"):
        x.exp() * c


def test_inference_tensor_in_an_op_that_saves_nothing_is_fine():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    with minigrad.inference_mode():
        c = minigrad.tensor([3.0, 4.0])
    y = (x + c).sum()
    y.backward()
    np.testing.assert_array_equal(x.grad._data, [1.0, 1.0])
    assert not y.is_inference()


def test_clone_outside_is_a_normal_tensor():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    with minigrad.inference_mode():
        c = minigrad.tensor([3.0, 4.0])
    n = c.clone()
    assert not n.is_inference()
    (x * n).sum().backward()
    np.testing.assert_array_equal(x.grad._data, [3.0, 4.0])


def test_inplace_on_inference_tensor_outside_is_an_error_inside_is_fine():
    with minigrad.inference_mode():
        c = minigrad.ones(2)
        c.add_(1)
    with pytest.raises(RuntimeError, match="^Inplace update to inference tensor outside InferenceMode "
                                           "is not allowed"):
        c.mul_(2)
    with pytest.raises(RuntimeError, match="^Inplace update to inference tensor outside InferenceMode"):
        c[0] = 5.0
    np.testing.assert_array_equal(c._data, [2.0, 2.0])
    with minigrad.inference_mode():
        c.mul_(2)
    np.testing.assert_array_equal(c._data, [4.0, 4.0])


def test_inplace_on_normal_tensor_inside_inference_mode():
    n = minigrad.ones(2)
    with minigrad.inference_mode():
        n.mul_(3)
    assert not n.is_inference() and n._version == 1
    np.testing.assert_array_equal(n._data, [3.0, 3.0])


def test_inference_mode_nested_in_no_grad_restores_both():
    with minigrad.no_grad():
        with minigrad.inference_mode():
            assert minigrad.is_inference_mode_enabled()
        assert not minigrad.is_grad_enabled() and not minigrad.is_inference_mode_enabled()
    assert minigrad.is_grad_enabled()


def test_inference_mode_restored_after_exception_and_as_decorator():
    with pytest.raises(ValueError):
        with minigrad.inference_mode():
            raise ValueError
    assert minigrad.is_grad_enabled() and not minigrad.is_inference_mode_enabled()

    @minigrad.inference_mode()
    def f(t):
        return t * 2, minigrad.is_inference_mode_enabled()

    x = minigrad.tensor([1.0], requires_grad=True)
    y, inside = f(x)
    assert inside and y.is_inference() and not y.requires_grad
    assert not minigrad.is_inference_mode_enabled()


def test_backward_works_on_a_graph_recorded_before_inference_mode():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    loss = (x * x).sum()
    with minigrad.inference_mode():
        _ = x * 10          # evaluation in between
    loss.backward()
    np.testing.assert_array_equal(x.grad._data, [2.0, 4.0])
