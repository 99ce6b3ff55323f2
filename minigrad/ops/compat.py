"""What code written for older PyTorch, or with numpy's habits, calls: it runs as in PyTorch.

* numpy's argument names, which PyTorch's argument parser takes too:
  ``x.sum(1, keepdims=True)``, ``x.mean(axis=0)`` (``with_numpy_names``);
* tensor methods that older tutorials use: ``new_tensor``, ``new_full``,
  ``new_empty``, ``nelement`` (``METHODS``, attached by ``ops/__init__``);
* the namespace's in-place functions, ``torch.sin_(x)`` and the like: each is
  the method itself (``namespace_inplace``);
* the namespace functions' first argument checked as PyTorch checks it
  (``torch.exp(2.0)``: its TypeError) and numpy's names read (``tensor_first``).

Source: ``numpy_compatibility_arg_names`` in torch/csrc/utils/python_arg_parser.cpp;
the ``Tensor.new_*`` factories (torch/_tensor_docs.py).
"""

import functools
import inspect

from .. import creation
from ..tensor import Tensor

__all__ = ["METHODS", "NAMESPACE_INPLACE", "namespace_inplace", "numpy_names", "tensor_first",
           "with_numpy_names"]


# PyTorch's argument parser also takes numpy's names for two arguments: x.sum(1, keepdims=True),
# x.mean(axis=0) (python_arg_parser.cpp's numpy_compatibility_arg_names); norm, a Python
# function in PyTorch, does not.
NUMPY_NAMES = {"axis": "dim", "keepdims": "keepdim"}
PYTHON_IN_PYTORCH = {"norm"}


def numpy_names(kwargs, name):
    """``kwargs`` with ``axis`` read as ``dim`` and ``keepdims`` as ``keepdim``."""
    out = {}
    for k, v in kwargs.items():
        k = NUMPY_NAMES.get(k, k)
        if k in out:
            raise TypeError(f"{name}() got multiple values for argument '{k}'")
        out[k] = v
    return out


def with_numpy_names(fn, name):
    """``fn``, or, if it takes ``dim`` or ``keepdim``, ``fn`` taking numpy's names for them too."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return fn
    if name in PYTHON_IN_PYTORCH or not ({"dim", "keepdim"} & set(params)):
        return fn

    @functools.wraps(fn)
    def with_numpy_names(*args, **kwargs):
        if kwargs and ("axis" in kwargs or "keepdims" in kwargs):
            kwargs = numpy_names(kwargs, name)
        return fn(*args, **kwargs)

    return with_numpy_names


def tensor_first(fn, name):
    """``fn`` (a namespace function) refusing a first argument that is not a Tensor, in PyTorch's
    words (``torch.exp(2.0)``), and reading numpy's argument names."""
    @functools.wraps(fn)
    def checked(input, *args, **kwargs):
        if not isinstance(input, Tensor):
            if name in ("clamp", "clip"):  # overloaded in PyTorch: its other message
                got = [type(a).__name__ for a in (input,) + args]
                got += [f"{k}={type(v).__name__}" for k, v in kwargs.items()]
                raise TypeError(
                    f"{name}() received an invalid combination of arguments - got "
                    f"({', '.join(got)}), but expected one of:\n"
                    " * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n"
                    " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)")
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        if kwargs and ("axis" in kwargs or "keepdims" in kwargs) and name not in PYTHON_IN_PYTORCH:
            kwargs = numpy_names(kwargs, name)
        return fn(input, *args, **kwargs)

    checked.__name__ = name  # an alias (clip, moveaxis) reports its own name
    return checked


def _new_full(self, size, fill_value, *, dtype=None, requires_grad=False):
    """``fill_value`` repeated to ``size``, this tensor's dtype by default (``Tensor.new_full``)."""
    return creation.full(size, fill_value, dtype=dtype or self.dtype, requires_grad=requires_grad)


def _new_empty(self, *size, dtype=None, requires_grad=False):
    """A tensor of ``size``, this tensor's dtype by default (``Tensor.new_empty``; PyTorch
    leaves its values uninitialised, minigrad gives zeros)."""
    return creation.empty(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)


def _new_tensor(self, data, *, dtype=None, requires_grad=False):
    """``data`` as a new tensor, this tensor's dtype by default (``Tensor.new_tensor``)."""
    return creation.tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad)


def _nelement(self):
    """The number of elements: ``numel()`` (``Tensor.nelement``, its older name)."""
    return self.numel()


METHODS = {"new_full": _new_full, "new_empty": _new_empty, "new_tensor": _new_tensor,
           "nelement": _nelement}


# torch.sin_(x), torch.exp_(x), ...: PyTorch's namespace has an in-place function for most
# in-place methods; each is the method itself (its code, its checks, what it records).
NAMESPACE_INPLACE = (
    "abs_", "ceil_", "clamp_", "clamp_max_", "clamp_min_", "clip_", "cos_", "detach_", "exp_",
    "expm1_", "fill_", "fix_", "floor_", "frac_", "log10_", "log1p_", "log2_", "log_",
    "nan_to_num_", "neg_", "reciprocal_", "round_", "sigmoid_", "sin_", "sqrt_", "square_",
    "tanh_", "trunc_", "zero_")


def namespace_inplace(name):
    method = getattr(Tensor, name)

    def inplace_function(input, *args, **kwargs):
        return method(input, *args, **kwargs)

    inplace_function.__name__ = inplace_function.__qualname__ = name
    inplace_function.__doc__ = f"``input.{name}(...)`` (``torch.{name}``)."
    return inplace_function
