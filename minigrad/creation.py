"""Making tensors: ``tensor`` from Python data or numpy, ``zeros``, ``ones``, ``full``, ``arange``, ``eye``, random ones.

``tensor(data)`` infers the dtype as PyTorch does (Python floats: float32,
ints: int64, bools: bool; a numpy array keeps its dtype if minigrad has it)
and always copies.

Random numbers come from PyTorch's CPU generator, mt19937 (``random.py``),
turned into numbers as PyTorch's kernels do (``_random_kernels.py``): after
``manual_seed(s)``, ``rand``, ``randn``, ``randint`` and ``randperm`` give
PyTorch's numbers, which is also what keeps the lessons' stored outputs stable.

Every factory takes ``device=``: None, ``"cpu"`` or ``minigrad.device("cpu")``
(anything else raises as a CPU-only PyTorch build does, see ``_device.py``).

Source: ``torch.full``, ``torch.arange``, ``torch.eye``, ``torch.randn``,
``torch.rand``, ``torch.randint``, ``torch.randperm`` (aten/src/ATen/native/TensorFactories.cpp).
"""

import math
import numbers
import warnings

import numpy as np

from . import _dtype
from . import _random_kernels as _kernels
from ._device import check as _check_device
from ._dtype import as_dtype, from_numpy_dtype
from ._tensor_checks import ERR_INT_GRAD
from .random import Generator, default_generator, manual_seed, register_tensor
from .tensor import Size, Tensor

register_tensor(Tensor)  # Generator.get_state returns a Tensor

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


def is_tensor(obj):
    """True if ``obj`` is a minigrad Tensor (``torch.is_tensor``)."""
    return isinstance(obj, Tensor)


_KEPT_NUMPY = tuple(d.np for d in _dtype._ALL)


def numpy_dtype_of(arr):
    """The minigrad dtype that holds a numpy array as it is, or a clear refusal.

    PyTorch keeps an array's dtype (uint8, int16, float16, ...); minigrad has
    five dtypes, so any other is refused rather than silently converted.

    Raises:
        TypeError: "can't convert np.ndarray of type numpy.uint8. The only
            supported types are: float64, float32, int64, int32, and bool ..."
            (PyTorch's first sentence), naming what to do.
    """
    if arr.dtype in _KEPT_NUMPY:
        return from_numpy_dtype(arr.dtype)
    name = arr.dtype.name if arr.dtype.kind != "O" else "object_"
    hint = {"i": "int64", "u": "int64", "f": "float32", "c": None}.get(arr.dtype.kind)
    advice = (f" Convert it first, e.g. arr.astype(numpy.{hint}), or pass dtype=minigrad.{hint}."
              if hint else "")
    raise TypeError(f"can't convert np.ndarray of type numpy.{name}. The only supported types "
                    f"are: float64, float32, int64, int32, and bool (minigrad's five dtypes; "
                    f"PyTorch has more).{advice}")


def _unwrap_tensors(data):
    """Tensors inside a (nested) list as their one value, as torch.tensor reads them."""
    if isinstance(data, Tensor):
        if data._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return data._data.reshape(())
    if isinstance(data, (list, tuple)):
        return [_unwrap_tensors(d) for d in data]
    return data


def _infer_array(data, dtype):
    """Turn Python data or an array into a numpy array of a minigrad dtype, as torch.tensor does."""
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), "
            "rather than torch.tensor(sourceTensor).", UserWarning, stacklevel=3)
        arr = data._data
        with np.errstate(invalid="ignore"):  # a tensor's nan to int64: silently, as a cast
            return arr.astype(as_dtype(dtype).np) if dtype is not None else arr.copy()
    if isinstance(data, np.ndarray):
        target = as_dtype(dtype) if dtype is not None else numpy_dtype_of(data)
        with np.errstate(invalid="ignore"):  # nan to int64: the CPU's value, silently (PyTorch)
            return np.array(data, dtype=target.np)
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if data is None:
        raise RuntimeError("Could not infer dtype of NoneType")
    if isinstance(data, np.generic):
        data = np.asarray(data)  # a numpy scalar keeps its dtype, as an array does
        target = as_dtype(dtype) if dtype is not None else numpy_dtype_of(data)
        return np.array(data, dtype=target.np)
    declared = None
    if isinstance(data, (list, tuple)):
        data = _unwrap_tensors(data)
        declared = _declared_float(data)
    try:
        arr = np.array(data)
    except ValueError:
        raise ValueError(_ragged_message(data)) from None
    if arr.dtype == object:
        # lists of tensors, or ragged lists
        try:
            arr = np.array([_infer_array(d, dtype) for d in data])
        except (ValueError, TypeError, RuntimeError):
            raise _data_error(data) or ValueError(
                f"expected a rectangular (nested) list of numbers, got {type(data).__name__}"
            ) from None
    if dtype is not None:
        return cast_python_values(arr, as_dtype(dtype).np)
    kind = arr.dtype.kind
    if kind == "b":
        return arr
    if kind in "iu":
        # numpy promotes a list's numbers as PyTorch does: int32 values (numpy's, or
        # int32 tensors) with bools or narrower ints stay int32, a Python int makes int64
        return arr.astype(np.int32 if arr.dtype == _INT32 else np.int64, copy=False)
    if kind == "f":
        # Python floats give the default dtype; float values that came with a
        # dtype (numpy scalars, one-element tensors) keep the widest of theirs
        with np.errstate(over="ignore"):  # too large for float32: inf, silently, as in PyTorch
            return arr.astype(np.float32 if declared is None else declared)
    raise _data_error(data) or TypeError(f"can't convert data of type {arr.dtype} to a tensor")


def _data_error(data):
    """PyTorch's error for Python data holding something other than numbers, or None if none.

    As torch/csrc/utils/tensor_new.cpp: the sizes follow each first element, where a str
    is a sequence of itself ("too many dimensions 'str'"); then each value's type is read,
    in order ("new(): invalid data type 'str'", "Could not infer dtype of NoneType").
    """
    first = data
    while isinstance(first, (list, tuple)) and first:
        first = first[0]
        if isinstance(first, str):
            return ValueError("too many dimensions 'str'")
    stack = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(reversed(x))
        elif isinstance(x, str):
            return TypeError("new(): invalid data type 'str'")
        elif not isinstance(x, (bool, int, float, complex, np.generic, np.ndarray, Tensor)):
            return RuntimeError(f"Could not infer dtype of {type(x).__name__}")
    return None


def cast_python_values(arr, target, name=None):
    """``arr`` (from Python numbers) as ``target``; PyTorch's RuntimeError for a value it cannot hold.

    PyTorch checks each Python number it converts (``torch.tensor([nan],
    dtype=torch.long)``, ``torch.full``): nan, inf and values out of the
    integer dtype's range raise "value cannot be converted to type int64
    without overflow" (``name``: the target's name unless given), where numpy
    would warn and give a made-up integer (an int too large for int32 too).
    """
    if target.kind in "iu" and arr.size and (
            arr.dtype.kind == "f" or arr.dtype.kind in "iu" and arr.dtype.itemsize > target.itemsize):
        info = np.iinfo(target)
        with np.errstate(invalid="ignore"):  # (2.0 ** 63: int64's max as a float rounds up to it)
            bad = (arr > info.max) | (arr < info.min) | (arr >= 2.0 ** (info.bits - 1))
            if arr.dtype.kind == "f":
                bad |= ~np.isfinite(arr)
        if bad.any():
            raise RuntimeError(f"value cannot be converted to type {name or target.name} without overflow")
    with np.errstate(over="ignore"):  # a float too large for float32 is inf, silently, as in PyTorch
        return arr.astype(target)


_FLOAT32_MAX = float(np.finfo(np.float32).max)
_INT32 = np.dtype(np.int32)


def check_fill_value(value, target):
    """PyTorch's RuntimeError for a Python number a float32 or int32 ``target`` (numpy dtype) cannot hold.

    ``full``, ``full_like``, ``fill_`` and ``t[i] = value`` convert their value
    checked, as PyTorch's ``checked_convert``: "value cannot be converted to type
    float without overflow" for a finite float too large for float32 (inf and nan
    pass; ``torch.tensor`` does not check, and gives inf); "... to type int ..."
    for an int32 target and an int or float outside [-2³¹, 2³¹ - 1] (2³¹ - 0.5 too),
    or nan.
    """
    if (target == np.float32 and type(value) is float and math.isfinite(value)
            and abs(value) > _FLOAT32_MAX):
        raise RuntimeError("value cannot be converted to type float without overflow")
    if target == _INT32 and isinstance(value, (int, float)) and not -(1 << 31) <= value <= (1 << 31) - 1:
        raise RuntimeError("value cannot be converted to type int without overflow")


def _declared_float(data):
    """The widest float dtype among the numpy values in nested ``data`` (None: Python floats only)."""
    best = None
    stack = [data]
    while stack:
        d = stack.pop()
        if isinstance(d, list):
            stack.extend(d)
        elif isinstance(d, (np.ndarray, np.generic)):
            dt = np.dtype(d.dtype)
            if dt.kind == "f":
                numpy_dtype_of(np.empty(0, dtype=dt))  # float16 is refused, not widened
                best = dt if best is None or dt.itemsize > best.itemsize else best
    return best


def _ragged_message(data):
    """PyTorch's message for a nested list whose rows differ in length."""
    level = [data]
    dim = 0
    while level:
        seqs = [x for x in level if isinstance(x, (list, tuple))]
        if not seqs:
            break
        want = len(seqs[0])
        for x in level:
            got = len(x) if isinstance(x, (list, tuple)) else None
            if got != want:
                if got is None:
                    return f"expected sequence of length {want} at dim {dim} (got {type(x).__name__})"
                return f"expected sequence of length {want} at dim {dim} (got {got})"
        level = [y for x in seqs for y in x]
        dim += 1
    return "expected a rectangular (nested) list of numbers"


def tensor(data, dtype=None, device=None, requires_grad=False):
    """Make a leaf tensor from Python numbers, (nested) lists, or a numpy array.

    Args:
        data: a number, a rectangular nested list of numbers or booleans, or a
            numpy array.  The values are copied.
        dtype: None to infer (bool, int64 for integers, float32 for Python
            floats, the array's own dtype for numpy floats), or
            ``minigrad.float32`` / ``float64`` / ``int64`` / ``int32`` / ``bool``.
        device: None, ``"cpu"`` or ``minigrad.device("cpu")``: the only device.
        requires_grad (bool): record operations on the new tensor.

    Returns:
        Tensor of ``data``'s shape.

    Raises:
        RuntimeError: "Only Tensors of floating point and complex dtype can
            require gradients" for ``requires_grad=True`` with an integer or
            bool dtype.
        TypeError / ValueError: for data that is not numbers or not rectangular.

    Source: ``torch.tensor``.
    """
    _check_device(device)
    arr = _infer_array(data, dtype)
    if requires_grad and arr.dtype.kind != "f":
        raise RuntimeError(ERR_INT_GRAD)
    return Tensor._make(arr, requires_grad=bool(requires_grad))


def _shape_arg(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for s in size:
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"size must be a tuple of ints, but got an element of type {type(s).__name__}")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
    return tuple(int(s) for s in size)


def _filled(value, size, dtype, requires_grad):
    dt = as_dtype(dtype) if dtype is not None else _dtype.float32
    if requires_grad and not dt.is_floating_point:
        raise RuntimeError(ERR_INT_GRAD)
    return Tensor._make(np.full(_shape_arg(size), value, dtype=dt.np), requires_grad=requires_grad)


def zeros(*size, dtype=None, device=None, requires_grad=False):
    """A tensor of zeros: ``zeros(2, 3)`` or ``zeros((2, 3))`` (``torch.zeros``).

    Args:
        size: ints, or one tuple of ints.
        dtype: default float32.
        requires_grad (bool): make it a leaf that records.

    Raises:
        RuntimeError: for a negative size, or ``requires_grad`` with an integer dtype.
    """
    _check_device(device)
    flat = size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    if any(isinstance(s, (int, np.integer)) and s < 0 for s in flat):
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    return _filled(0, size, dtype, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False):
    """A tensor of ones: ``ones(2, 3)`` or ``ones((2, 3))`` (``torch.ones``).

    Args and errors as ``zeros``.
    """
    _check_device(device)
    return _filled(1, size, dtype, requires_grad)


def zeros_like(t, dtype=None, device=None, requires_grad=False):
    """Zeros with ``t``'s shape and dtype (``torch.zeros_like``)."""
    _check_device(device)
    return _filled(0, t.shape, dtype or t.dtype, requires_grad)


def ones_like(t, dtype=None, device=None, requires_grad=False):
    """Ones with ``t``'s shape and dtype (``torch.ones_like``)."""
    _check_device(device)
    return _filled(1, t.shape, dtype or t.dtype, requires_grad)


def _float_dtype(dtype):
    d = as_dtype(dtype) if dtype is not None else _dtype.float32
    return d


def _leaf(arr, requires_grad):
    if requires_grad and arr.dtype.kind != "f":
        raise RuntimeError(ERR_INT_GRAD)
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
    check_fill_value(fill_value, d.np)
    if isinstance(fill_value, float) and d.np.kind in "iu":
        fill_value = cast_python_values(np.asarray(fill_value), d.np, "int64_t")
    with np.errstate(over="ignore"):  # a float too large for float32 is inf, silently, as in PyTorch
        data = np.full(_shape_arg((size,) if isinstance(size, int) else tuple(size)), fill_value, dtype=d.np)
    return _leaf(data, requires_grad)


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


def _float_numbers(kind, size, generator, dtype, requires_grad, kernel):
    """A float tensor of ``size`` filled by ``kernel(generator, n, np_dtype)``."""
    d = _float_dtype(dtype)
    if not d.is_floating_point:
        raise NotImplementedError(f'"{kind}" not implemented for \'{_dtype.SCALAR_TYPE_NAMES[d.name]}\'')
    shape = _shape_arg(size)
    values = kernel(generator or default_generator, math.prod(shape), d.np)
    return _leaf(values.reshape(shape), requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False):
    """Standard normal samples of ``size``, PyTorch's numbers for its seed (``torch.randn``).

    float32 by default; fewer than 16 values use (and refill) the generator's
    cached normal, 16 or more do not (see ``_random_kernels.normal``).

    Raises:
        NotImplementedError: PyTorch's '"normal_kernel_cpu" not implemented for 'Long''.
    """
    _check_device(device)
    return _float_numbers("normal_kernel_cpu", size, generator, dtype, requires_grad,
                          _kernels.normal)


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False):
    """Uniform samples in [0, 1) of ``size``, PyTorch's numbers for its seed (``torch.rand``).

    Raises:
        NotImplementedError: PyTorch's '"check_uniform_bounds" not implemented for 'Long''.
    """
    _check_device(device)
    return _float_numbers("check_uniform_bounds", size, generator, dtype, requires_grad,
                          _kernels.uniform)


def _long(value, what):
    """``value`` as a Python int for randint's bounds (a 1-element int tensor too)."""
    if isinstance(value, Tensor) and value.numel() == 1 and value._data.dtype.kind == "i":
        value = value.item()
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        raise TypeError(f"randint() received an invalid combination of arguments - got {what}")
    value = int(value)
    if not -(1 << 63) <= value < 1 << 63:
        raise ValueError("Overflow when unpacking long long")
    return value


def randint(low=None, high=None, size=None, *, generator=None, dtype=None, device=None,
            requires_grad=False):
    """Random integers in [low, high) of ``size``, PyTorch's numbers (``torch.randint``).

    ``randint(high, size)`` or ``randint(low, high, size)``; int64 unless ``dtype``
    says otherwise.  A range below 2²⁸ takes one 32-bit word a value, a wider
    one two (``uniform_int_from_to_distribution`` in aten/src/ATen/core/DistributionsHelper.h).

    Raises:
        TypeError: no ``size``, or bounds that are not ints ("randint() received an
            invalid combination of arguments").
        RuntimeError: "random_ expects 'from' to be less than 'to', but got from=5 >= to=5";
            bool bounds outside [0, 2) ("to - 1 is out of bounds for bool").
        ValueError: a bound outside int64 ("Overflow when unpacking long long").
    """
    _check_device(device)
    if size is None and isinstance(high, (tuple, list)):
        low, high, size = 0, low, high
    if low is None:
        low = 0
    if size is None or high is None:
        got = ", ".join(type(v).__name__ for v in (low, high, size) if v is not None)
        raise TypeError(f"randint() received an invalid combination of arguments - got ({got})")
    got = f"({type(low).__name__}, {type(high).__name__}, {type(size).__name__})"
    low, high = _long(low, got), _long(high, got)
    d = as_dtype(dtype) if dtype is not None else _dtype.int64
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    if d == _dtype.bool and (low < 0 or high > 2):
        raise RuntimeError("from is out of bounds for bool" if low < 0 else
                           "to - 1 is out of bounds for bool")
    shape = _shape_arg(tuple(size))
    values = _kernels.random_from_to(generator or default_generator, math.prod(shape), low, high)
    return _leaf(values.reshape(shape).astype(d.np), requires_grad)


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    """A random permutation of ``0 .. n-1``, PyTorch's for its seed (``torch.randperm``).

    int64 by default.  PyTorch's Fisher–Yates for n < 2³²/20 (``randperm_cpu``);
    minigrad uses it for every n, PyTorch another shuffle above that.

    Raises:
        RuntimeError: PyTorch's "Trying to create tensor with negative dimension -1: [-1]".
    """
    _check_device(device)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    d = as_dtype(dtype) if dtype is not None else _dtype.int64
    return _leaf(_kernels.randperm(generator or default_generator, n).astype(d.np), requires_grad)


def randn_like(input, *, generator=None, dtype=None, device=None, requires_grad=False):
    """``randn`` with ``input``'s shape and dtype (``torch.randn_like``)."""
    _check_device(device)
    return randn(*input.shape, generator=generator, dtype=dtype or input.dtype,
                 requires_grad=requires_grad)


def rand_like(input, *, generator=None, dtype=None, device=None, requires_grad=False):
    """``rand`` with ``input``'s shape and dtype (``torch.rand_like``)."""
    _check_device(device)
    return rand(*input.shape, generator=generator, dtype=dtype or input.dtype,
                requires_grad=requires_grad)


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, device=None,
                 requires_grad=False):
    """``randint`` with ``input``'s shape and dtype (``torch.randint_like``): called as
    ``randint_like(input, high)`` or ``randint_like(input, low, high)``; the same draws."""
    if high is None:
        low, high = 0, low
    _check_device(device)
    return randint(low, high, tuple(input.shape), generator=generator, dtype=dtype or input.dtype,
                   requires_grad=requires_grad)


def from_numpy(ndarray):
    """A tensor that shares memory with a numpy array (``torch.from_numpy``).

    Writing into one is seen by the other; the dtype is the array's (float32,
    float64, int64, int32 or bool: minigrad's five).

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


# --- PyTorch's legacy spelling: torch.Tensor(data), torch.FloatTensor, ... ----------------
# Older tutorials, answers and test suites still write it; one map (_dtype.SCALAR_TYPE_NAMES,
# which PyTorch's messages use too: "[torch.FloatTensor [3]]") gives the type objects.

def legacy_new(dtype, args, kwargs, any_dtype=False):
    """``torch.Tensor(data)``, ``torch.Tensor(*sizes)``, ``torch.FloatTensor(...)``: the legacy
    constructor (``Tensor.__new__``).  Sizes (ints, or one ``Size``) give zeros, where PyTorch
    leaves the memory uninitialised; data is read as ``tensor(data, dtype=dtype)``; no
    argument gives an empty 1-d tensor; one tensor gives an alias of it (its memory, an
    ``AliasBackward0`` node if it requires grad), of any dtype for ``torch.Tensor``
    (``any_dtype``), of ``dtype`` only for a type object.  Only ``device`` may be a keyword.

    Raises:
        TypeError: PyTorch's "new() received an invalid combination of arguments - got (...)";
            "expected TensorOptions(dtype=float, ...) (got TensorOptions(dtype=double, ...))".
    """
    _check_device(kwargs.pop("device", None))
    if not kwargs and len(args) == 1 and isinstance(args[0], Tensor):
        return _legacy_of_tensor(dtype, args[0], any_dtype)
    if kwargs or any(isinstance(a, Tensor) for a in args):
        got = ", ".join([type(a).__name__ for a in args]
                        + [f"{k}={type(v).__name__}" for k, v in kwargs.items()])
        raise TypeError(f"new() received an invalid combination of arguments - got ({got}), "
                        "but expected one of: (*, device), (tuple of ints size, *, device), "
                        "(object data, *, device)")
    if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args) or (
            len(args) == 1 and isinstance(args[0], Size)):
        return zeros(*args, dtype=dtype) if args else zeros(0, dtype=dtype)
    if len(args) != 1:
        raise TypeError(f"new(): data must be a sequence (got {len(args)} arguments)")
    return tensor(args[0], dtype=dtype)


def _legacy_of_tensor(dtype, t, any_dtype):
    if not any_dtype and t.dtype is not dtype:
        def options(d):
            return (f"TensorOptions(dtype={_dtype.C_TYPE_NAMES[d.name]}, device=cpu, layout=Strided, "
                    "requires_grad=false (default), pinned_memory=false (default), "
                    "memory_format=(nullopt))")
        raise TypeError(f"expected {options(dtype)} (got {options(t.dtype)})")
    return _alias(t)


def _legacy_constructor(cls, *args, **kwargs):
    """``Tensor(data)`` or ``Tensor(*sizes)``: PyTorch's legacy constructor, float32
    (``legacy_new``); ``minigrad.tensor(data)`` is the modern spelling."""
    return legacy_new(_dtype.float32, args, kwargs, any_dtype=True)


Tensor.__new__ = staticmethod(_legacy_constructor)  # (tensor.py sits below this module)


class tensortype(type):
    """The class of the legacy type objects: ``torch.FloatTensor`` and its kind.

    Calling one constructs as ``torch.Tensor`` does, in its dtype; ``isinstance(t,
    torch.FloatTensor)`` holds for a float32 tensor; ``t.type(torch.DoubleTensor)``
    converts.  Source: PyTorch's ``torch/csrc/tensor/python_tensor.cpp``.
    """

    def __call__(cls, *args, **kwargs):
        return legacy_new(cls.dtype, args, kwargs)

    def __instancecheck__(cls, other):
        return isinstance(other, Tensor) and other.dtype is cls.dtype

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"


# ------------------------------------------------------------ registration slot
_alias = None  # ops/shape.py: Alias.apply (AliasBackward0), a layer above


def register_alias(fn):
    """Called by ``minigrad/ops/shape.py`` with ``Alias.apply``."""
    global _alias
    _alias = fn


LEGACY_TYPES = {d: tensortype(_dtype.SCALAR_TYPE_NAMES[d.name] + "Tensor", (),
                              {"dtype": d, "__module__": "torch"})
                for d in _dtype._ALL}
FloatTensor, DoubleTensor, LongTensor, IntTensor, BoolTensor = (
    LEGACY_TYPES[d] for d in (_dtype.float32, _dtype.float64, _dtype.int64, _dtype.int32, _dtype.bool))
