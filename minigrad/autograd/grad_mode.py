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
import inspect
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
    numpy_quiet = False  # True while the engine walks: numpy's errors are already silenced


_state = _State()

# How many inference_mode(True) blocks are open, in all threads: while none is,
# no tensor can be an inference tensor, and Tensor._make need not read the
# (slower) thread-local flag.  Updated under a lock; only a hint, the flag
# itself stays per thread.
inference_blocks = 0
_blocks_lock = threading.Lock()


def _count_inference_block(delta):
    global inference_blocks
    with _blocks_lock:
        inference_blocks += delta


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
        return _decorate(fn, self.clone)

    def clone(self):
        return type(self)()


def _decorate(fn, make_context):
    """Run ``fn`` (every step of it, for a generator function) inside a fresh context."""
    if inspect.isgeneratorfunction(fn):

        @functools.wraps(fn)
        def generator(*args, **kwargs):
            gen = fn(*args, **kwargs)
            # Each resumption runs under the mode, the caller's code in between does not.
            with make_context():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with make_context():
                        gen.close()
                    raise
                except BaseException as exc:  # thrown into the generator
                    with make_context():
                        response = gen.throw(exc)
                else:
                    try:
                        with make_context():
                            response = gen.send(request)
                    except StopIteration as stop:
                        return stop.value

        return generator

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with make_context():
            return fn(*args, **kwargs)

    return wrapper


class _NoParamDecorator(_GradModeBase):
    """Usable as ``@no_grad`` as well as ``@no_grad()``, as in PyTorch."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)

    def __init__(self, orig_func=None):
        pass


class no_grad(_NoParamDecorator):
    """Switch recording off inside a ``with`` block or a decorated function.

    Tensors computed inside have ``requires_grad=False`` and no ``grad_fn``;
    leaves keep their own ``requires_grad``.  Mirrors ``torch.no_grad``.

    Example::

        with minigrad.no_grad():
            val_loss = model(x_val)        # nothing recorded
    """

    _mode = False


class enable_grad(_NoParamDecorator):
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
            raise TypeError(
                f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, not "
                f"{type(mode).__name__}"
            )
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
        mode = self._mode
        return _decorate(fn, lambda: _Switch(mode))

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
            _count_inference_block(1)
        # PyTorch: inference_mode(False) switches inference off and recording on
        _state.enabled = not self.mode
        _state.inference = self.mode

    def __exit__(self, *exc):
        _state.enabled, _state.inference = self._prev
        if self.mode:
            _count_inference_block(-1)
        return False

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):  # bare @inference_mode
            return cls()(mode)
        return super().__new__(cls)

    def __call__(self, fn):
        if not callable(fn):
            raise TypeError(f"inference_mode can decorate a function, not {fn!r}")
        mode = self.mode
        return _decorate(fn, lambda: inference_mode(mode))

    def clone(self):
        return type(self)(self.mode)


class _Switch(_GradModeBase):
    """A plain context setting grad mode to a given value (used by decorators)."""

    def __init__(self, mode):
        self._mode = mode
