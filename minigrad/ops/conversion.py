"""Converting a tensor: ``to(dtype)``, ``to(device)``, ``float()``, ``double()``, ``type()``, ``cpu()``.

And the data's conveniences, attached to Tensor with them: its shape read other
ways (``size()``, ``dim()``, ``ndim``, ``numel()``, ``len(t)``), ``device``,
``is_cuda``, ``nbytes``, ``.data``, ``numpy()``, ``np.asarray(t)``, ``tolist()``,
``float(t)``, ``int(t)``, ``bool(t)``, iteration, ``__array_wrap__`` (a numpy
ufunc's result as a tensor), ``__format__``, ``__index__``.

A conversion to another floating dtype is recorded (ToCopyBackward0: the
gradient is converted back); one to an integer or bool dtype is not (no
gradient flows into integers).  A conversion to what the tensor already is
returns the tensor itself, unless ``copy=True``.  The only device is the CPU
(``minigrad._device``): ``to("cpu")`` and ``cpu()`` return the tensor,
``cuda()`` and ``to("cuda")`` fail as a CPU-only PyTorch build does.

Source: ``Tensor.to`` (aten/src/ATen/native/TensorConversions.cpp), ``Tensor.type``.
"""

import warnings

import numpy as np

from .. import _device
from .._dtype import _ALL, SCALAR_TYPE_NAMES, as_dtype, dtype
from .._layout import canonical_dim
from ..autograd import grad_mode
from ..creation import from_numpy, tensortype
from ..tensor import Size, Tensor
from . import shape as _sh

__all__ = ["METHODS", "to"]

_state = grad_mode._state
_LEGACY = {name: kind + "Tensor" for name, kind in SCALAR_TYPE_NAMES.items()}
_FROM_LEGACY = {"torch." + v: d for d in _ALL for k, v in _LEGACY.items() if d.name == k}


def _convert(t, d, copy=False):
    if d is t.dtype and not copy:
        return t
    if not d.is_floating_point:
        # integers and bools carry no gradient: nothing is recorded; nan, inf
        # and out-of-range floats become what the CPU's conversion gives, as in
        # PyTorch's kernel, which does not warn (numpy would)
        with np.errstate(invalid="ignore"):
            return Tensor._make(t._data.astype(d.np, order=_sh._preserve_order(t._data)))
    return _sh.ToCopy.apply(t, d)


def to(self, *args, **kwargs):
    """Convert dtype and/or device (``Tensor.to``), as PyTorch's three forms take them.

    ``to(dtype, non_blocking=False, copy=False)``, ``to(device=None,
    dtype=None, non_blocking=False, copy=False)``, ``to(other, ...)`` (other's
    dtype and device).  A string is a device, as in PyTorch.

    Returns:
        the tensor itself when nothing changes (and not ``copy``); else a new
        tensor, ToCopyBackward0 when it records.

    Raises:
        AssertionError: "Torch not compiled with CUDA enabled" for a CUDA device.
        RuntimeError: PyTorch's device-string errors (see ``minigrad.device``).
        TypeError: PyTorch's "to() received an invalid combination of arguments".
    """
    dev = kwargs.pop("device", None)
    dt = kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if kwargs:
        got = ", ".join(f"{k}={type(v).__name__}" for k, v in kwargs.items())
        raise TypeError(f"to() received an invalid combination of arguments - got ({got}, ), "
                        "but expected one of: (device, dtype, non_blocking, copy), "
                        "(dtype, non_blocking, copy), (tensor, non_blocking, copy)")
    flags = []
    for a in args:
        if isinstance(a, Tensor):
            dt = a.dtype
        elif isinstance(a, (dtype, np.dtype)):
            dt = a  # (a numpy dtype: minigrad's own code converts with it)
        elif isinstance(a, bool):
            flags.append(a)  # non_blocking, then copy
        elif isinstance(a, (str, int, _device.device)):
            dev = a
        else:
            raise TypeError(f"to() received an invalid combination of arguments - got "
                            f"({type(a).__name__}, )")
    if len(flags) > 1:
        copy = flags[1]
    if dev is not None:
        _device.check(dev)
    return _convert(self, self.dtype if dt is None else as_dtype(dt), copy)


def _float(self):
    """Convert to float32 (``Tensor.float``); the same tensor if already float32."""
    return _convert(self, as_dtype("float"))


def _double(self):
    """Convert to float64 (``Tensor.double``)."""
    return _convert(self, as_dtype("double"))


def _long(self):
    """Convert to int64 (``Tensor.long``); the result does not require grad."""
    return _convert(self, as_dtype("long"))


def _int(self):
    """Convert to int32 (``Tensor.int``); the result does not require grad."""
    return _convert(self, as_dtype("int"))


def _bool(self):
    """Convert to bool (``Tensor.bool``)."""
    return _convert(self, as_dtype("bool"))


def _type_as(self, other):
    """Convert to ``other``'s dtype (``Tensor.type_as``)."""
    return _convert(self, other.dtype)


def _type(self, dtype=None):
    """With no argument, PyTorch's legacy type name (``"torch.FloatTensor"``); else ``to(dtype)``.

    ``dtype`` may be a dtype or a legacy name (``"torch.DoubleTensor"``).
    """
    if dtype is None:
        return "torch." + _LEGACY[self.dtype.name]
    if isinstance(dtype, str) and dtype in _FROM_LEGACY:
        dtype = _FROM_LEGACY[dtype]
    elif isinstance(dtype, tensortype):  # a legacy type object: torch.DoubleTensor
        dtype = dtype.dtype
    return _convert(self, as_dtype(dtype))


def _cpu(self, memory_format=None):
    """The tensor itself: minigrad computes on the CPU (``Tensor.cpu``)."""
    return self


def _cuda(self, device=None, non_blocking=False, memory_format=None):
    """Fails as a CPU-only PyTorch build fails (``Tensor.cuda``).

    Raises:
        AssertionError: "Torch not compiled with CUDA enabled".
    """
    raise AssertionError("Torch not compiled with CUDA enabled")


# ---------------------------------------------------------- the data's conveniences
# Where the tensor lives and how its values read as Python and numpy objects: plain
# reads of the numpy array, attached to Tensor with the conversions above.

def _size(self, dim=None):
    """``shape``, or the size of one dimension (``Tensor.size``).

    Raises:
        IndexError: PyTorch's "Dimension out of range" for a bad ``dim``.
    """
    if dim is None:
        return Size(self._data.shape)
    return self._data.shape[canonical_dim(dim, self._data.ndim)]


def _dim(self):
    """Number of dimensions, 0 for a scalar tensor (``Tensor.dim()``, and ``Tensor.ndim``)."""
    return self._data.ndim


def _numel(self):
    """Number of elements."""
    return self._data.size


def _len(self):
    if self._data.ndim == 0:
        raise TypeError("len() of a 0-d tensor")
    return self._data.shape[0]


def _is_floating_point(self):
    """True for float32 and float64 tensors."""
    return self._data.dtype.kind == "f"


def _data_of(self):
    """The values as a new tensor outside the graph (``Tensor.data``).

    Unlike ``detach()``, in-place changes through it are not seen by the
    version counter: this is the old back door PyTorch keeps for code such
    as ``w.data.fill_(0.5)``; prefer ``detach()`` or ``no_grad()``.
    Assigning ``t.data = other`` replaces the values (any shape or dtype)
    and keeps the graph state.
    """
    return Tensor._make(self._data)


def _set_data(self, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
    self._data = value._data


def _alias_of(cls, t):
    """A new tensor object over the same array and version counter, without history.

    No reference back to ``t``: a node saving its own output keeps such an
    alias, and a reference to the output would be a cycle.
    """
    return cls._make(t._data, vc=t._shared_vc())


def _copy(self):
    """An independent copy of the values, no history (internal)."""
    return Tensor._make(self._data.copy())


def _is_inference(self):
    """True for a tensor made inside ``inference_mode`` (``Tensor.is_inference``)."""
    return self._inference


_ERR_NUMPY = "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."


def _numpy(self):
    """The values as a numpy array sharing memory with the tensor.

    Raises:
        RuntimeError: PyTorch's message if the tensor requires grad while
            grad mode is on (call ``.detach().numpy()``); under
            ``no_grad`` (inside a custom Function's forward, say) it is
            allowed, as in PyTorch.
    """
    if self._requires_grad and _state.enabled:
        raise RuntimeError(_ERR_NUMPY)
    return self._data


def _array(self, dtype=None, copy=None):
    """``np.asarray(t)``: the values, refused as ``numpy()`` refuses them."""
    if self._requires_grad and _state.enabled:
        raise RuntimeError(_ERR_NUMPY)
    return self._data if dtype is None else self._data.astype(dtype)


# PyTorch warns once per process (TORCH_WARN_ONCE), whatever the warnings filter says
_WARN_SCALAR = ("Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
                "behavior.\nConsider using tensor.detach() first.")
_warned_scalar = False


def _float_value(self):
    """``float(t)`` (also ``'%.4f' % t``): the one value.

    Warns (UserWarning, once per process, as PyTorch's TORCH_WARN_ONCE) when ``t``
    requires grad and grad mode is on: the float is cut off from the graph.

    Raises:
        ValueError: "only one element tensors can be converted to Python scalars".
    """
    global _warned_scalar
    if self._data.size != 1:
        raise ValueError("only one element tensors can be converted to Python scalars")
    if self._requires_grad and _state.enabled and not _warned_scalar:
        _warned_scalar = True
        warnings.warn(_WARN_SCALAR, UserWarning, stacklevel=2)
    return float(self.item())


def _int_value(self):
    if self._data.size != 1:
        raise ValueError("only one element tensors can be converted to Python scalars")
    return int(self.item())


def _bool_value(self):
    if self._data.size != 1:
        raise RuntimeError(
            "Boolean value of Tensor with more than one value is ambiguous"
        )
    return bool(self._data.reshape(()).item())


def _iter(self):
    if self._data.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    return iter(self.unbind(0))  # as PyTorch: one UnbindBackward0 node for all rows


def _element_size(self):
    """Bytes per element (``Tensor.element_size``): 4 for float32, 8 for float64."""
    return self._data.itemsize


def _itemsize(self):
    """Bytes per element (``Tensor.itemsize``)."""
    return self._data.itemsize


def _nbytes(self):
    """Bytes the elements take (``Tensor.nbytes``): ``numel() * element_size()``."""
    return self._data.nbytes


def _device_of(self):
    """``device(type='cpu')``: minigrad computes with numpy (``Tensor.device``)."""
    return _device.CPU


def _is_cuda(self):
    """False: no tensor lives on a GPU here (``Tensor.is_cuda``)."""
    return False


def _is_cpu(self):
    """True (``Tensor.is_cpu``)."""
    return True


def _get_device(self):
    """-1, PyTorch's number for the CPU (``Tensor.get_device``)."""
    return -1


def _tolist(self):
    """The values as (nested) Python lists, or a number for a 0-d tensor."""
    return self._data.tolist()


def _array_wrap(self, array, context=None, return_scalar=False):
    """A numpy ufunc's result on this tensor, as a tensor: ``t * ndarray``, ``np.sin(t)``.

    Mirrors PyTorch's ``Tensor.__array_wrap__``: numpy computed the result from
    ``__array__`` (so a tensor that requires grad raises there, as in PyTorch), and
    it comes back as a tensor over the same memory, as ``from_numpy`` gives it (its
    dtype numpy's: ``float32 * float64 array`` is float64), recorded nowhere.  A 0-d
    result stays a 0-d tensor.  Difference by design: a bool result is a bool tensor,
    where PyTorch (which turns it into uint8) gives a uint8 one; minigrad has no uint8.
    """
    return from_numpy(np.asarray(array))


def _index(self):
    if self._data.dtype.kind not in "iu" or self._data.size != 1:
        raise TypeError("only integer tensors of a single element can be converted to an index")
    return int(self.item())


def _format(self, spec):
    if self._data.ndim == 0:
        return self.item().__format__(spec)
    return repr(self).__format__(spec)


METHODS = {"to": to, "float": _float, "double": _double, "long": _long, "int": _int, "bool": _bool,
           "type_as": _type_as, "type": _type, "cpu": _cpu, "cuda": _cuda,
           "size": _size, "ndim": property(_dim), "dim": _dim, "numel": _numel,
           "__len__": _len, "is_floating_point": _is_floating_point,
           "device": property(_device_of), "is_cuda": property(_is_cuda),
           "is_cpu": property(_is_cpu), "get_device": _get_device,
           "element_size": _element_size, "itemsize": property(_itemsize),
           "nbytes": property(_nbytes), "data": property(_data_of, _set_data),
           "_alias_of": classmethod(_alias_of), "_copy": _copy, "is_inference": _is_inference,
           "numpy": _numpy, "__array__": _array, "tolist": _tolist,
           "__float__": _float_value, "__int__": _int_value, "__bool__": _bool_value,
           "__iter__": _iter, "__array_wrap__": _array_wrap,
           "__index__": _index, "__format__": _format}
