"""``detect_anomaly``: find the operation whose backward produced nan.

Inside ``with detect_anomaly():`` every recorded node remembers the Python
stack of the forward call that created it, and the backward walk checks each
gradient a node sends on.  The first nan raises ``RuntimeError`` naming the
node (PyTorch's "Function 'LogBackward0' returned nan values in its 0th
output.") and carries the forward traceback of the operation that created it
(printed as a warning, and kept as ``err.forward_traceback``).

Source: ``torch.autograd.detect_anomaly`` / ``set_detect_anomaly``
(torch/autograd/anomaly_mode.py, torch/csrc/autograd/anomaly_mode.cpp).
"""

import traceback
import warnings

import numpy as np

__all__ = ["detect_anomaly", "is_anomaly_enabled", "set_detect_anomaly"]


class _State:
    # Process-wide, as PyTorch's anomaly mode is (AnomalyMode is a global flag).
    __slots__ = ("check_nan", "current", "enabled")

    def __init__(self):
        self.enabled = False
        self.check_nan = True
        self.current = None


_state = _State()


def is_anomaly_enabled():
    """True inside ``detect_anomaly`` (``torch.is_anomaly_enabled``)."""
    return _state.enabled


def record_forward_trace(node):
    """Called when a node is recorded in anomaly mode: keep the creating stack."""
    node._anomaly_trace = "".join(traceback.format_stack()[:-3])


def check_gradient(node, index, grad):
    """Raise if ``grad`` (sent by ``node`` for input ``index``) holds nan."""
    if not _state.check_nan:
        return
    data = grad._data
    if data.dtype.kind == "f" and np.isnan(data).any():
        trace = node._anomaly_trace or "(no forward traceback: the node was recorded outside detect_anomaly)\n"
        warnings.warn(
            f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n{trace}",
            UserWarning,
            stacklevel=2,
        )
        err = RuntimeError(f"Function '{node.name()}' returned nan values in its {index}th output.")
        err.forward_traceback = trace
        raise err


class detect_anomaly:
    """Context manager: record forward tracebacks and stop at the first nan gradient.

    Args:
        check_nan (bool): raise on nan gradients (default True).

    Slows every operation down (it captures a stack per node): for debugging only.
    """

    def __init__(self, check_nan=True):
        self.check_nan = check_nan

    def __enter__(self):
        self._prev = (_state.enabled, _state.check_nan)
        _state.enabled = True
        _state.check_nan = self.check_nan
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and "
            "should only be enabled for debugging.",
            UserWarning,
            stacklevel=2,
        )
        return self

    def __exit__(self, *exc):
        _state.enabled, _state.check_nan = self._prev
        return False


class set_detect_anomaly:
    """Switch anomaly detection on or off, at once or for a ``with`` block."""

    def __init__(self, mode, check_nan=True):
        self._prev = (_state.enabled, _state.check_nan)
        _state.enabled = bool(mode)
        _state.check_nan = check_nan

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _state.enabled, _state.check_nan = self._prev
        return False
