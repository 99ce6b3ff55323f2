"""Small helpers shared by the primitives: argument checks in PyTorch's words."""

import numbers
import operator

import numpy as np

from .._dtype import result_type
from .._layout import canonical_dim  # noqa: F401 (the ops read it here)
from ..autograd.grad_mode import _state as _grad_state
from ..tensor import Tensor

_SCALAR_NP = {bool: np.bool_, int: np.int64, float: np.float64}


_PY_NUMBERS = (float, int, bool)


def is_scalar(v):
    """True for a Python (or numpy) number that an operator can take in place of a tensor."""
    if type(v) in _PY_NUMBERS:
        return True
    return isinstance(v, (numbers.Number, np.generic)) and not isinstance(v, complex)


def wrap_scalar(v):
    """A Python number as a 0-d "wrapped number" tensor, as PyTorch dispatches ``x * 2``.

    Wrapped numbers take part in type promotion as Python scalars do (they
    never upcast a float32 tensor), and show up as ``(None, 0)`` in
    ``next_functions``.

    Raises:
        TypeError: if ``v`` is not a number.
    """
    tv = type(v)
    if tv is float:
        arr = np.array(v, dtype=np.float64)
    elif tv is int:
        arr = np.array(v, dtype=np.int64)
    elif isinstance(v, np.generic):
        return wrap_scalar(v.item())
    elif isinstance(v, bool):
        arr = np.array(v, dtype=np.bool_)
    elif isinstance(v, numbers.Integral):
        arr = np.array(v, dtype=np.int64)
    elif isinstance(v, numbers.Real):
        arr = np.array(v, dtype=np.float64)
    else:
        raise TypeError(f"unsupported operand: expected a Tensor or a number, got {type(v).__name__}")
    t = Tensor._make(arr)
    t._wrapped = True  # promotes as a Python number, not as a 0-d tensor
    return t


def as_operand(v, opname):
    """A Tensor as is; a number as a wrapped number; anything else a TypeError."""
    if isinstance(v, Tensor):
        return v
    if is_scalar(v):
        return wrap_scalar(v)
    raise TypeError(
        f"{opname}(): argument 'other' (position 1) must be Tensor or a number, not {type(v).__name__}"
    )


def float32_values(d):
    """An integer or bool array as float32, the dtype PyTorch computes exp, sqrt, ... of them in.

    Laid out as PyTorch lays out such a result: as the input, or row-major
    for an expanded input (numpy's ``astype`` would keep the stride-0 dims
    innermost, and ``is_contiguous()`` would then say False).
    """
    return d.astype(np.float32, order="C" if 0 in d.strides else "K")


def binary_dtype(a, b):
    """numpy dtype of a binary op's result under PyTorch's promotion (fast path first)."""
    da = a._data.dtype
    if da == b._data.dtype:
        return da
    if b._wrapped and da.kind == "f" and b._data.dtype.kind != "c":
        return da  # float tensor (op) Python number stays the tensor's dtype
    return result_type(a, b).np


def operands(a, b):
    """The two arrays a binary op computes with, already promoted PyTorch's way.

    Fast paths first: equal dtypes; a float tensor with a Python number (the
    number is passed as a Python scalar so numpy keeps the tensor's dtype).
    Shapes are checked for broadcasting, with PyTorch's error.
    """
    A = a._data
    B = b._data
    da = A.dtype
    if da is B.dtype or da == B.dtype:  # (one dtype object: no comparison to run)
        if A.shape != B.shape and A.ndim and B.ndim:
            broadcast_shape(a, b)
        return A, B
    if b._wrapped and A.dtype.kind == "f":
        return A, B.item()
    if a._wrapped and B.dtype.kind == "f":
        return A.item(), B
    dt = result_type(a, b).np
    if A.shape != B.shape and A.ndim and B.ndim:
        broadcast_shape(a, b)
    with np.errstate(over="ignore"):  # a float64 too large for float32 becomes inf, silently, as in PyTorch
        return A.astype(dt, copy=False), B.astype(dt, copy=False)


_ndarray = np.ndarray


# module-level names for the ops' hot paths (here and in elementwise.py,
# activation_backward.py): numpy's own module attributes are slow to read
FLOAT32, FLOAT64 = np.dtype(np.float32), np.dtype(np.float64)
_array = np.array
_PYTHON_OP = {np.add: operator.add, np.subtract: operator.sub, np.multiply: operator.mul}


def quiet(ufunc, A, B):
    """``ufunc(A, B)`` (add, subtract, multiply) without numpy's floating-point warnings.

    PyTorch never warns about an overflow or a nan; numpy would, unless inside
    ``np.errstate``, which costs about a microsecond.  Two scalars of moderate
    magnitude (1e-18 < |x| < 1e18, or 0) cannot overflow, underflow or make a
    nan in a sum, difference or product, so for them the ufunc runs as it is;
    two 0-d arrays of one float dtype are computed in Python floats, faster
    than numpy for one value and the same bits: a float64 operation is
    Python's own, and a float32 sum, difference or product computed in
    float64 and rounded once to float32 is the correctly rounded float32
    result (float64 has more than twice float32's digits, plus two: Figueroa,
    "When is double rounding innocuous?", 1995).  The result is then a 0-d
    array (else numpy's scalar).
    """
    # each operand: a 0-d array read as a number, or a Python number
    a = (float(A) if not A.ndim else None) if type(A) is _ndarray else (
        A if type(A) is float or type(A) is int else None)
    if a is not None and (1e-18 < a < 1e18 or -1e18 < a < -1e-18 or a == 0):
        b = (float(B) if not B.ndim else None) if type(B) is _ndarray else (
            B if type(B) is float or type(B) is int else None)
        if b is not None and (1e-18 < b < 1e18 or -1e18 < b < -1e-18 or b == 0):
            if type(B) is _ndarray and type(A) is _ndarray:
                dt = A.dtype
                if dt is B.dtype and (dt is FLOAT32 or dt is FLOAT64):
                    return _array(_PYTHON_OP[ufunc](a, b), dt)
            return ufunc(A, B)
    if _grad_state.numpy_quiet:  # (inside a backward walk, which is in errstate already)
        return ufunc(A, B)
    return _ignoring_fp_errors(ufunc, A, B)


# np.errstate as a decorator: the same context (numpy's public API), entered for
# about half the cost of a with-statement (no errstate object made per call)
@np.errstate(all="ignore")
def _ignoring_fp_errors(ufunc, A, B):
    return ufunc(A, B)


def broadcast_shape(a, b, opname="op"):
    """The broadcast shape of two tensors, or PyTorch's error naming both sizes.

    Raises:
        RuntimeError: "The size of tensor a (3) must match the size of tensor b
            (4) at non-singleton dimension 1".
    """
    sa, sb = a._data.shape, b._data.shape
    if sa == sb:
        return sa
    # one shape the other's trailing dims (a bias): the usual broadcast, no need to ask numpy
    la, lb = len(sa), len(sb)
    if lb < la and sa[la - lb:] == sb:
        return sa
    if la < lb and sb[lb - la:] == sa:
        return sb
    try:
        return np.broadcast_shapes(sa, sb)
    except ValueError:
        n = max(len(sa), len(sb))
        pa = (1,) * (n - len(sa)) + sa
        pb = (1,) * (n - len(sb)) + sb
        for i in range(n - 1, -1, -1):
            if pa[i] != pb[i] and pa[i] != 1 and pb[i] != 1:
                raise RuntimeError(
                    f"The size of tensor a ({pa[i]}) must match the size of tensor b ({pb[i]}) "
                    f"at non-singleton dimension {i}"
                ) from None
        raise


def canonical_dims(dim, ndim):
    """``dim`` (None, an int, or a tuple/list of ints) as a sorted tuple of non-negative dims.

    Raises:
        IndexError: for a dim out of range.
        RuntimeError: PyTorch's "dim 0 appears multiple times in the list of dims".
    """
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (tuple, list)):
        out = [canonical_dim(d, ndim) for d in dim]
        for d in out:
            if out.count(d) > 1:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        return tuple(sorted(out)) if ndim else ()
    d = canonical_dim(dim, ndim)  # checked for a 0-d tensor too: its range is [-1, 0]
    return (d,) if ndim else ()


def reduction_dims(dim, ndim):
    """``canonical_dims`` for sum/mean/var/std/norm/logsumexp: an empty list of dims means all.

    PyTorch's reductions read ``dim=()`` or ``dim=[]`` as "reduce every dim"
    (``x.sum(())`` is the sum of all elements), where a view op reads it as
    "no dim".
    """
    if isinstance(dim, (tuple, list)) and len(dim) == 0:
        dim = None
    return canonical_dims(dim, ndim)


def as_saved_int(v):
    """An int as PyTorch's saved attributes show it: a negative one read as unsigned 64-bit.

    (``x.softmax(-1).grad_fn._saved_dim`` prints 18446744073709551615 in PyTorch.)
    """
    v = int(v)
    return v if v >= 0 else v + 2**64


def size_str(shape):
    """``torch.Size([2, 3])``, as PyTorch writes a shape in messages."""
    return "torch.Size([" + ", ".join(str(s) for s in shape) + "])"


def check_dtype_float_for_grad(t, opname):
    """Raise PyTorch's error if an op that needs floats gets ints while recording."""
    if t._requires_grad and t._data.dtype.kind != "f":
        raise RuntimeError(f"{opname}: expected a floating point tensor")


# An argument not given at all, where PyTorch tells it from one given as None
# (``div(a, b, rounding_mode=None)`` is another overload than ``div(a, b)``).
UNSET = object()
