"""Comparisons and logic: ``== != < <= > >=``, ``& | ^ ~``, ``isnan``, ``isfinite``, ``nonzero``.

(With ``argwhere`` and ``count_nonzero``: which elements are nonzero, and how many.)

Their results are bool tensors and are never recorded: a comparison has no
useful derivative, so, as in PyTorch, the result has ``requires_grad=False``
and no ``grad_fn`` even when the inputs are tracked.  Branching on one
(``if z > 5:``) is how a program's control flow picks which operations get
recorded.
"""

import numpy as np

from ..tensor import Tensor
from ._util import broadcast_shape, is_scalar

__all__ = [
    "all",
    "any",
    "argwhere",
    "count_nonzero",
    "nonzero",
    "eq",
    "ge",
    "gt",
    "isfinite",
    "isinf",
    "isnan",
    "le",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "lt",
    "ne",
]

_make = Tensor._make


def _values(x):
    if isinstance(x, Tensor):
        return x._data
    if is_scalar(x):
        return x
    raise TypeError(f"comparison with an object of type {type(x).__name__} is not supported")


def _compare(ufunc, name):
    def fn(input, other):
        if isinstance(other, Tensor) and isinstance(input, Tensor):
            broadcast_shape(input, other)
        return _make(np.asarray(ufunc(_values(input), _values(other))))

    fn.__name__ = name
    fn.__doc__ = (f"Elementwise ``{name}`` as a bool tensor, never recorded (``torch.{name}``).\n\n"
                  "Raises:\n    RuntimeError: for shapes that do not broadcast.")
    return fn


eq = _compare(np.equal, "eq")
ne = _compare(np.not_equal, "ne")
lt = _compare(np.less, "lt")
le = _compare(np.less_equal, "le")
gt = _compare(np.greater, "gt")
ge = _compare(np.greater_equal, "ge")
logical_and = _compare(np.logical_and, "logical_and")
logical_or = _compare(np.logical_or, "logical_or")
logical_xor = _compare(np.logical_xor, "logical_xor")


def logical_not(input):
    """Elementwise not, as a bool tensor (``torch.logical_not``)."""
    return _make(np.logical_not(input._data))


def isnan(input):
    """True where the value is nan (``torch.isnan``)."""
    return _make(np.isnan(input._data) if input._data.dtype.kind == "f" else np.zeros(input.shape, bool))


def isinf(input):
    """True where the value is ±inf (``torch.isinf``)."""
    return _make(np.isinf(input._data) if input._data.dtype.kind == "f" else np.zeros(input.shape, bool))


def isfinite(input):
    """True where the value is neither nan nor ±inf (``torch.isfinite``)."""
    return _make(np.isfinite(input._data) if input._data.dtype.kind == "f" else np.ones(input.shape, bool))


def _bitwise(ufunc, name):
    def fn(input, other):
        """Elementwise bitwise/logical operation of integer or bool tensors, never recorded.

        Raises:
            RuntimeError: PyTorch's "not implemented for 'Float'" for float inputs.
        """
        a, b = _values(input), _values(other)
        kinds = {np.asarray(a).dtype.kind, np.asarray(b).dtype.kind}
        if "f" in kinds:
            raise RuntimeError(f'"{name}_cpu" not implemented for \'Float\'')
        return _make(np.asarray(ufunc(a, b)))

    fn.__name__ = name
    return fn


bitwise_and = _bitwise(np.bitwise_and, "bitwise_and")
bitwise_or = _bitwise(np.bitwise_or, "bitwise_or")
bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor")


def bitwise_not(input):
    """``~input``: logical not for bool tensors, bitwise not for integers (``torch.bitwise_not``)."""
    if input._data.dtype.kind == "f":
        raise TypeError("~ (bitwise_not) is only supported for integer and bool tensors")
    return _make(np.invert(input._data))


def _reduce_logical(fn, name):
    def reduce(input, dim=None, keepdim=False):
        from ._util import canonical_dims

        if not isinstance(input, Tensor):
            raise TypeError(
                f"{name}() received an invalid combination of arguments - got "
                f"({type(input).__name__}), but expected one of:\n"
                " * (Tensor input, *, Tensor out = None)\n"
                " * (Tensor input, tuple of ints dim = None, bool keepdim = False, *, Tensor out = None)\n"
                " * (Tensor input, int dim, bool keepdim = False, *, Tensor out = None)")
        data = input._data
        axis = None if dim is None else canonical_dims(dim, data.ndim)
        return _make(np.asarray(fn(data, axis=axis, keepdims=keepdim)))

    reduce.__name__ = name
    return reduce


all = _reduce_logical(np.all, "all")
all.__doc__ = """True where every element (over ``dim``, an int or a tuple; all by default) is nonzero.

A bool tensor, never recorded (``torch.all``, ``Tensor.all``).

Raises:
    IndexError: "Dimension out of range ..." for a bad dim.
"""
any = _reduce_logical(np.any, "any")
any.__doc__ = """True where some element (over ``dim``, an int or a tuple; all by default) is nonzero.

A bool tensor, never recorded (``torch.any``, ``Tensor.any``).

Raises:
    IndexError: "Dimension out of range ..." for a bad dim.
"""


def nonzero(input, *, as_tuple=False):
    """The indices of the nonzero elements (``torch.nonzero``); never recorded, int64.

    Without ``as_tuple``: an (n, ndim) tensor, one row per nonzero element in
    row-major order (a 0-d tensor gives (1, 0) or (0, 0)); laid out by column,
    as PyTorch's (``is_contiguous()`` is False for n, ndim > 1).  With
    ``as_tuple=True``: one 1-d tensor of indices per dim (a 0-d input counts
    as 1-d), what ``x[x.nonzero(as_tuple=True)]`` indexes with.  nan is nonzero.
    """
    data = input._data
    if as_tuple:
        return tuple(_make(np.asarray(i, dtype=np.int64)) for i in np.nonzero(np.atleast_1d(data)))
    return _make(np.asfortranarray(np.argwhere(data).astype(np.int64, copy=False)))


def argwhere(input):
    """``torch.argwhere``: ``nonzero(input)``, the (n, ndim) indices of the nonzero elements."""
    return nonzero(input)


def count_nonzero(input, dim=None):
    """How many elements are nonzero, over all or over ``dim`` (``torch.count_nonzero``); int64.

    ``dim``: an int, a tuple or list of ints (``()``: all).  nan counts as nonzero.

    Raises:
        IndexError: for a dim out of range.
        RuntimeError: "dim 0 appears multiple times in the list of dims".
        TypeError: PyTorch's "invalid combination of arguments" for a ``dim``
            that is neither.
    """
    import builtins

    from ._util import reduction_dims

    ok = dim is None or isinstance(dim, (int, np.integer)) or isinstance(dim, (tuple, list)) and builtins.all(
        isinstance(d, (int, np.integer)) for d in dim)
    if not ok or isinstance(dim, bool):
        got = type(dim).__name__
        raise TypeError(
            "count_nonzero() received an invalid combination of arguments - got (Tensor, "
            f"{got}), but expected one of:\n * (Tensor input, int dim = None)\n      didn't match "
            f"because some of the arguments have invalid types: (Tensor, !{got}!)\n * (Tensor input, "
            "tuple of ints dim)\n      didn't match because some of the arguments have invalid types: "
            f"(Tensor, !{got}!)\n")
    data = input._data
    dims = reduction_dims(dim, data.ndim)
    return _make(np.asarray(np.count_nonzero(data, axis=dims) if data.ndim else np.count_nonzero(data),
                            dtype=np.int64))
