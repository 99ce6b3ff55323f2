"""The recording switch: ``no_grad``, ``enable_grad``, ``set_grad_enabled``.

While grad mode is off, operations compute their values but record nothing:
results have no ``grad_fn`` and ``requires_grad=False``, whatever their
inputs.  This is how evaluation loops and optimizer updates avoid building
graphs nobody will walk.

As in PyTorch the switch is thread-local, and each of these objects works
both as a context manager and as a function decorator.

Source: ``torch.no_grad``, ``torch.enable_grad``, ``torch.set_grad_enabled``,
``torch.is_grad_enabled`` (torch/autograd/grad_mode.py).
"""

import functools
import threading

__all__ = [
    "enable_grad",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "no_grad",
    "set_grad_enabled",
]


class _State(threading.local):
    # Read on every operation: a plain attribute on a thread-local object.
    enabled = True
    inference = False


_state = _State()


def is_grad_enabled():
    """True if operations are being recorded right now (``torch.is_grad_enabled``)."""
    return _state.enabled


class _GradModeBase:
    """Context manager and decorator that sets grad mode, restoring it on exit."""

    _mode = True

    def __enter__(self):
        self._prev = _state.enabled
        _state.enabled = self._mode

    def __exit__(self, *exc):
        _state.enabled = self._prev
        return False

    def __call__(self, fn):
        if not callable(fn):
            raise TypeError(f"{type(self).__name__} can decorate a function, not {fn!r}")
        mode = self._mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            prev = _state.enabled
            _state.enabled = mode
            try:
                return fn(*args, **kwargs)
            finally:
                _state.enabled = prev

        return wrapper

    def clone(self):
        return type(self)()


class no_grad(_GradModeBase):
    """Switch recording off inside a ``with`` block or a decorated function.

    Tensors computed inside have ``requires_grad=False`` and no ``grad_fn``;
    leaves keep their own ``requires_grad``.  Mirrors ``torch.no_grad``.

    Example::

        with minigrad.no_grad():
            val_loss = model(x_val)        # nothing recorded
    """

    _mode = False


class enable_grad(_GradModeBase):
    """Switch recording back on, e.g. inside a ``no_grad`` block (``torch.enable_grad``)."""

    _mode = True


class set_grad_enabled(_GradModeBase):
    """Set recording on or off: ``set_grad_enabled(mode)`` (``torch.set_grad_enabled``).

    Like PyTorch, calling it as a plain function sets the mode at once (and
    the returned object also restores the previous mode when used in ``with``).

    Args:
        mode (bool): True to record, False not to.

    Raises:
        TypeError: if ``mode`` is not a bool.
    """

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'mode' must be bool, not {type(mode).__name__}")
        self._prev = _state.enabled
        self._mode = mode
        _state.enabled = mode

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _state.enabled = self._prev
        return False

    def __call__(self, fn):
        # Used as a decorator: undo the immediate switch made by __init__.
        _state.enabled = self._prev
        return super().__call__(fn)

    def clone(self):
        return type(self)(self._mode)


def is_inference_mode_enabled():
    """True inside ``inference_mode`` (``torch.is_inference_mode_enabled``)."""
    return _state.inference


class inference_mode(_GradModeBase):
    """Like ``no_grad``, and the tensors made inside are *inference tensors*.

    An inference tensor can never be saved for backward later: using one in a
    recorded operation that must save it raises PyTorch's "Inference tensors
    cannot be saved for backward. ..." and writing into one outside the block
    raises too.  ``t.is_inference()`` tells.  (PyTorch uses the guarantee to
    skip version counting; minigrad keeps the rules so lessons can show them.)

    Args:
        mode (bool): False makes it a no-op (as PyTorch's ``inference_mode(False)``).

    Source: ``torch.inference_mode``.
    """

    def __init__(self, mode=True):
        self.mode = bool(mode)

    def __enter__(self):
        self._prev = (_state.enabled, _state.inference)
        if self.mode:
            _state.enabled = False
            _state.inference = True

    def __exit__(self, *exc):
        _state.enabled, _state.inference = self._prev
        return False

    def __call__(self, fn):
        if not callable(fn):
            raise TypeError(f"inference_mode can decorate a function, not {fn!r}")
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(mode):
                return fn(*args, **kwargs)

        return wrapper

    def clone(self):
        return type(self)(self.mode)
