"""Factories beyond ``tensor``, ``zeros`` and ``ones``: ``full``, ``arange``, ``eye``, random tensors.

Random numbers come from one seeded numpy ``Generator``: ``manual_seed(0)``
makes every later ``randn``/``rand`` reproducible, which is what keeps the
lessons' stored outputs stable.  The streams differ from PyTorch's (same
seed, different numbers): compare behaviour, not random draws.

Every factory takes ``device=``: None, ``"cpu"`` or ``minigrad.device("cpu")``
(anything else raises as a CPU-only PyTorch build does, see ``_device.py``).

Source: ``torch.full``, ``torch.arange``, ``torch.eye``, ``torch.randn``,
``torch.rand``, ``torch.manual_seed``.
"""

import math
import numbers

import numpy as np

from . import _dtype
from ._device import check as _check_device
from ._dtype import as_dtype
from .tensor import _INT_GRAD_ERROR, Tensor, _shape_arg, numpy_dtype_of, tensor

__all__ = [
    "Generator",
    "as_tensor",
    "from_numpy",
    "arange",
    "empty",
    "eye",
    "full",
    "full_like",
    "linspace",
    "manual_seed",
    "rand",
    "rand_like",
    "randint",
    "randn",
    "randn_like",
]


class Generator:
    """A seeded source of random numbers (``torch.Generator``), wrapping ``numpy.random.Generator``."""

    def __init__(self, seed=None):
        self.manual_seed(0 if seed is None else seed)

    def manual_seed(self, seed):
        """Reset the stream to ``seed``; returns self."""
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
            raise TypeError(f"manual_seed expected an int, got {type(seed).__name__}")
        self._seed = int(seed)
        self._rng = np.random.default_rng(int(seed))
        return self

    def initial_seed(self):
        """The seed last set."""
        return self._seed

    def __repr__(self):
        return f"<minigrad.Generator object at {hex(id(self))}>"


default_generator = Generator(0)


def manual_seed(seed):
    """Seed minigrad's random numbers (``torch.manual_seed``); returns the default Generator.

    Raises:
        TypeError: if ``seed`` is not an int.
    """
    return default_generator.manual_seed(seed)


def _float_dtype(dtype):
    d = as_dtype(dtype) if dtype is not None else _dtype.float32
    return d


def _leaf(arr, requires_grad):
    if requires_grad and arr.dtype.kind != "f":
        raise RuntimeError(_INT_GRAD_ERROR)
    return Tensor._make(arr, requires_grad=bool(requires_grad))


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False):
    """A tensor of ``size`` filled with ``fill_value`` (``torch.full``).

    The dtype follows the value when not given: bool for a bool, int64 for an
    int (``full((2,), 7)`` is int64), float32 for a float.
    """
    _check_device(device)
    if dtype is None:
        if isinstance(fill_value, bool):
            dtype = _dtype.bool
        elif isinstance(fill_value, numbers.Integral):
            dtype = _dtype.int64
        else:
            dtype = _dtype.float32
    d = as_dtype(dtype)
    if isinstance(fill_value, float) and d.np.kind in "iu":
        from .tensor import cast_python_values

        fill_value = cast_python_values(np.asarray(fill_value), d.np, "int64_t")
    return _leaf(np.full(_shape_arg((size,) if isinstance(size, int) else tuple(size)), fill_value, dtype=d.np), requires_grad)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False):
    """``full`` with ``input``'s shape and (by default) dtype (``torch.full_like``)."""
    _check_device(device)
    return full(input.shape, fill_value, dtype=dtype or input.dtype, requires_grad=requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False):
    """An uninitialised tensor in PyTorch; zeros here, so lessons stay deterministic."""
    _check_device(device)
    d = _float_dtype(dtype)
    return _leaf(np.zeros(_shape_arg(size), dtype=d.np), requires_grad)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    """Values from ``start`` to ``end`` (exclusive) in steps of ``step`` (``torch.arange``).

    int64 when all of start, end and step are ints, float32 otherwise.

    Raises:
        RuntimeError: "step must be nonzero", or a step whose sign points away from ``end``.
    """
    _check_device(device)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0 and end != start:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        ints = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                   for v in (start, end, step))
        dtype = _dtype.int64 if ints else _dtype.float32
    d = as_dtype(dtype)
    n = max(math.ceil((end - start) / step), 0)
    arr = (start + step * np.arange(n, dtype=np.float64)) if d.is_floating_point else \
        np.arange(start, end, step, dtype=np.int64)
    return _leaf(arr.astype(d.np), requires_grad)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False):
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive (``torch.linspace``)."""
    _check_device(device)
    d = _float_dtype(dtype)
    return _leaf(np.linspace(start, end, steps).astype(d.np), requires_grad)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False):
    """The identity matrix, (n, m) with m = n by default (``torch.eye``)."""
    _check_device(device)
    d = _float_dtype(dtype)
    return _leaf(np.eye(n, n if m is None else m, dtype=d.np), requires_grad)


def _gen(generator):
    return (generator or default_generator)._rng


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False):
    """Standard normal samples of ``size`` from the seeded generator (``torch.randn``)."""
    _check_device(device)
    d = _float_dtype(dtype)
    if not d.is_floating_point:
        raise RuntimeError(f'"normal_kernel_cpu" not implemented for \'{d.name.capitalize()}\'')
    return _leaf(_gen(generator).standard_normal(_shape_arg(size)).astype(d.np), requires_grad)


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False):
    """Uniform samples in [0, 1) of ``size`` from the seeded generator (``torch.rand``)."""
    _check_device(device)
    d = _float_dtype(dtype)
    if not d.is_floating_point:
        raise RuntimeError(f'"check_uniform_bounds" not implemented for \'{d.name.capitalize()}\'')
    return _leaf(_gen(generator).random(_shape_arg(size)).astype(d.np), requires_grad)


def randint(low, high=None, size=(), *, generator=None, dtype=None, device=None):
    """Random int64 values in [low, high) (``torch.randint``)."""
    _check_device(device)
    if high is None:
        low, high = 0, low
    d = as_dtype(dtype) if dtype is not None else _dtype.int64
    return _leaf(_gen(generator).integers(low, high, size=_shape_arg(tuple(size))).astype(d.np), False)


def randn_like(input, *, dtype=None, device=None, requires_grad=False):
    """``randn`` with ``input``'s shape and dtype (``torch.randn_like``)."""
    _check_device(device)
    return randn(*input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def rand_like(input, *, dtype=None, device=None, requires_grad=False):
    """``rand`` with ``input``'s shape and dtype (``torch.rand_like``)."""
    _check_device(device)
    return rand(*input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def from_numpy(ndarray):
    """A tensor that shares memory with a numpy array (``torch.from_numpy``).

    Writing into one is seen by the other; the dtype is the array's (float32,
    float64, int64 or bool: minigrad's four).

    Raises:
        TypeError: "expected np.ndarray (got list)" for anything else; for an
            array of another dtype, that minigrad cannot hold it (see
            ``minigrad.tensor``).
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    numpy_dtype_of(ndarray)
    return Tensor._make(ndarray)


def as_tensor(data, dtype=None, device=None):
    """``data`` as a tensor, without a copy when it already is one (``torch.as_tensor``).

    A Tensor of the dtype asked for is returned as it is; a numpy array of a
    minigrad dtype shares its memory; anything else is copied as by
    ``minigrad.tensor``.
    """
    _check_device(device)
    if isinstance(data, Tensor):
        return data if dtype is None or as_dtype(dtype) is data.dtype else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or as_dtype(dtype).np == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype)
