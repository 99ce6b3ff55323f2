"""Data types: ``minigrad.float32``, ``float64``, ``int64``, ``int32`` and ``bool``.

Each dtype is a small object that names a numpy dtype and prints the way
``torch.float32`` prints in PyTorch (as ``minigrad.float32`` here).  The type
promotion rules of binary operations live here too, because PyTorch's rules
differ from numpy's: ``int64 tensor + float32 tensor`` is float32 in PyTorch
and float64 in numpy, a Python float never upcasts a float32 tensor, and a
Python int never upcasts an int32 tensor (``int32 + 1`` stays int32 in both;
``int32 + int64 tensor`` is int64).

Source: PyTorch's ``torch.dtype`` and its type promotion documentation
(https://pytorch.org/docs/stable/tensor_attributes.html#type-promotion-doc).
"""

import numpy as np

__all__ = ["bool", "dtype", "float32", "float64", "get_default_dtype", "int32", "int64"]


class dtype:
    """A tensor's element type, mirroring ``torch.dtype``.

    Attributes:
        name: PyTorch's name (``"float32"``).
        np: the numpy dtype that stores the elements.
        is_floating_point: True for float32 and float64 (only these can
            require gradients, as in PyTorch).
        itemsize: bytes per element.
    """

    __slots__ = ("_rank", "is_floating_point", "itemsize", "name", "np")

    def __init__(self, name, np_dtype, rank):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = self.np.kind == "f"
        self.itemsize = self.np.itemsize
        # category for promotion: 0 bool, 1 integer, 2 floating
        self._rank = rank

    def __repr__(self):
        return "minigrad." + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))


float32 = dtype("float32", np.float32, 2)
float64 = dtype("float64", np.float64, 2)
int64 = dtype("int64", np.int64, 1)
int32 = dtype("int32", np.int32, 1)
bool = dtype("bool", np.bool_, 0)

_ALL = (float32, float64, int64, int32, bool)

# each dtype as PyTorch's messages name it: its ScalarType ("Float", as in
# torch.FloatTensor) and its C++ element type ("float")
SCALAR_TYPE_NAMES = {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int",
                     "bool": "Bool"}
C_TYPE_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
                "bool": "bool"}
_FROM_NP = {d.np: d for d in _ALL}
_ALIASES = {"float": float32, "double": float64, "long": int64, "int": int32}


def _by_name(name):
    return {d.name: d for d in _ALL}[name]


def get_default_dtype():
    """The dtype of floating tensors made from Python floats: ``float32``.

    Mirrors ``torch.get_default_dtype()`` (minigrad does not let you change it).
    """
    return float32


def from_numpy_dtype(np_dtype):
    """Map a numpy dtype to minigrad's, narrowing as PyTorch does.

    Python ints become int64, Python floats float32 (the default dtype),
    int32 stays int32, other integer widths become int64, float16 float32.

    Raises:
        TypeError: for dtypes PyTorch-minigrad cannot hold (strings, objects,
            complex numbers).
    """
    np_dtype = np.dtype(np_dtype)
    d = _FROM_NP.get(np_dtype)
    if d is not None:
        return d
    if np_dtype.kind in "iu":
        return int64
    if np_dtype.kind == "f":
        return float32 if np_dtype.itemsize < 4 else float64
    raise TypeError(
        f"can't convert np.ndarray of type numpy.{np_dtype}. The only supported types are: "
        "float64, float32, int64, int32, and bool."
    )


def as_dtype(d):
    """Accept a minigrad dtype, a numpy dtype or a name; return a minigrad dtype.

    Raises:
        TypeError: if ``d`` names no dtype minigrad has.
    """
    if isinstance(d, dtype):
        return d
    if isinstance(d, str) and d in _ALIASES:
        return _ALIASES[d]
    try:
        return from_numpy_dtype(d)
    except TypeError:
        raise TypeError(f"dtype must be a minigrad dtype such as minigrad.float32, not {d!r}") from None


def _category(value):
    """Promotion category of a Python scalar: 0 bool, 1 integer, 2 floating."""
    if isinstance(value, type(True)):  # noqa: UP003 - `bool` is minigrad.bool here
        return 0
    if isinstance(value, int):
        return 1
    return 2


def result_type(a, b, *more):
    """The dtype of ``a (op) b`` (or of an op on more operands) under PyTorch's promotion rules.

    ``a``, ``b`` (and ``more``) are Tensors or Python scalars.  PyTorch ranks operands in
    three tiers (tensors with dimensions, zero-dimensional tensors, Python
    scalars): a lower tier only decides the result when its category (bool <
    integer < floating) is higher than every higher tier's; a Python float
    then gives the default dtype, float32.
    """
    tiers = [None, None, None]  # best dtype seen in each tier: dim tensors, 0-d, scalars
    for v in (a, b, *more):
        data = getattr(v, "_data", None)  # a Tensor's values (this module sits below Tensor)
        if data is not None and v._wrapped:
            d = (bool, int64, float32)[v.dtype._rank]
            t = 2
        elif data is not None:
            d = v.dtype
            t = 0 if data.ndim else 1
        else:
            c = _category(v)
            d = (bool, int64, float32)[c]
            t = 2
        cur = tiers[t]
        if cur is None or d._rank > cur._rank or (d._rank == cur._rank and d.itemsize > cur.itemsize):
            tiers[t] = d
    result = None
    for d in tiers:
        if d is None:
            continue
        if result is None:
            result = d
        elif d._rank > result._rank:
            # a lower tier of a higher category: its own dtype for 0-d
            # tensors, the default dtype for a Python float, int64 for an int
            result = d
    return result
