"""In-place operations (``add_``, ``mul_``, ``x[i] = v``, ...) and the version counter.

Writing into a tensor's memory is where autograd can silently go wrong: a node
may have saved that very tensor for its backward.  PyTorch's guard, mirrored
here: every tensor has a version counter (``x._version``, shared with its
views) that each in-place write bumps; a saved tensor remembers the version it
was saved at, and backward refuses a saved value whose version moved
("one of the variables needed for gradient computation has been modified by
an inplace operation ...").

The rules, as in PyTorch:

* under ``no_grad`` (how optimizers update weights) any tensor may be written:
  nothing is recorded, only the version moves;
* with recording on, a leaf that requires grad may not be written ("a leaf
  Variable that requires grad is being used in an in-place operation.");
* with recording on, writing into a non-leaf records the operation and the
  tensor's ``grad_fn`` moves to the new node (``y.add_(1)`` makes
  ``y.grad_fn`` an ``AddBackward0`` whose ``next_functions`` lead to the old one).

minigrad does not rebase views: an in-place write that must be recorded on a
view of a tensor that requires grad raises instead of giving a wrong gradient.

Source: PyTorch's ``VariableVersion`` and ``check_inplace``
(torch/csrc/autograd/VariableTypeUtils.h), ``CopySlices``.
"""

import numpy as np

from ..autograd import forward_ad, grad_mode
from ..autograd.function import Function
from ..tensor import Tensor
from ._util import is_scalar, wrap_scalar

_state = grad_mode._state
_make = Tensor._make

__all__ = ["inplace", "setitem"]

_TYPE_NAMES = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}


def _check_writable(t):
    if t._inference and not _state.inference:
        raise RuntimeError(
            "Inplace update to inference tensor outside InferenceMode is not allowed.You can make "
            "a clone to get a normal tensor before doing inplace update.See "
            "https://github.com/pytorch/rfcs/pull/17 for more details."
        )
    if not _state.enabled:
        return False
    if t._grad_fn is None and t._requires_grad:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    return True


def _store(t, result):
    """Write ``result``'s values into ``t``'s memory and bump the version."""
    data = t._data
    rdt = result._data.dtype
    if rdt != data.dtype and not np.can_cast(rdt, data.dtype, casting="same_kind"):
        raise RuntimeError(
            f"result type {_TYPE_NAMES[str(rdt)]} can't be cast to the desired output type "
            f"{_TYPE_NAMES[str(data.dtype)]}"
        )
    if rdt.kind == "f" and data.dtype.kind in "biu":
        raise RuntimeError(
            f"result type {_TYPE_NAMES[str(rdt)]} can't be cast to the desired output type "
            f"{_TYPE_NAMES[str(data.dtype)]}"
        )
    if result._data.shape != data.shape:
        try:
            np.broadcast_to(result._data, data.shape)
        except ValueError:
            raise RuntimeError(
                f"output with shape {list(data.shape)} doesn't match the broadcast shape "
                f"{list(np.broadcast_shapes(data.shape, result._data.shape))}"
            ) from None
    if not data.flags.writeable:
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation."
        )
    np.copyto(data, result._data, casting="unsafe")
    t._shared_vc()[0] += 1


def inplace(t, outofplace, *args):
    """Apply ``outofplace(t, *args)`` and write its result into ``t`` (``x.op_(...)``).

    With recording on and anything requiring grad, the out-of-place op is
    recorded on a snapshot of ``t``'s old values (so a node that saves its
    input keeps the value it saw), then ``t`` adopts the new node as its
    ``grad_fn``.

    Raises:
        RuntimeError: PyTorch's leaf, cast and shape errors (see the module docstring).
    """
    recording = _check_writable(t)
    others_need = any(isinstance(a, Tensor) and a._requires_grad for a in args)
    if recording and (t._requires_grad or others_need):
        if t._base is not None and (t._base._requires_grad or t._requires_grad):
            raise RuntimeError(
                "minigrad does not record in-place operations on views of tensors that require "
                "grad (PyTorch rebases the view's base with CopySlices/AsStridedBackward0). "
                "Use an out-of-place operation (y = y + 1) or clone() the view first."
            )
        old = _make(t._data.copy(), grad_fn=t._grad_fn, requires_grad=t._requires_grad)
        if t._grad_fn is not None:
            old._output_nr = t._output_nr
        forward_ad._copy_tangent(t, old)
        result = outofplace(old, *args)
        _store(t, result)
        forward_ad._copy_tangent(result, t)
        node = result._grad_fn
        if node is not None:
            t._grad_fn = node
            t._output_nr = result._output_nr
            t._requires_grad = True
            # A node that saved its output saved what is now `t` itself, so a
            # later write into `t` must be caught, as in PyTorch.
            for saved in node._saved or ():
                if saved is not None and saved._is_output:
                    saved._tensor = Tensor._alias_of(t)
                    saved._version = t._vc[0]
        return t
    with grad_mode.no_grad():
        result = outofplace(t, *args)
    _store(t, result)
    forward_ad._copy_tangent(result, t)
    return t


class _Fill(Function):
    """Overwrite every element with a value (FillBackward2): no gradient reaches the old values."""

    node_name = "FillBackward2"

    @staticmethod
    def forward(ctx, a, value):
        v = value._data if isinstance(value, Tensor) else value
        return _make(np.full(a._data.shape, v, dtype=a._data.dtype))

    @staticmethod
    def backward(ctx, grad):
        return grad * 0, (grad.sum() if ctx.needs_input_grad[1] else None)


class _Zero(Function):
    """Overwrite every element with 0 (ZeroBackward0)."""

    node_name = "ZeroBackward0"

    @staticmethod
    def forward(ctx, a):
        return _make(np.zeros_like(a._data))

    @staticmethod
    def backward(ctx, grad):
        return grad * 0


class _Copy(Function):
    """Overwrite with ``src``, broadcast and cast (CopyBackwards): the gradient goes to ``src``."""

    node_name = "CopyBackwards"

    @staticmethod
    def _name():
        return "torch::autograd::CopyBackwards"

    @staticmethod
    def forward(ctx, a, src):
        ctx.src_dtype = src.dtype
        return _make(np.broadcast_to(src._data, a._data.shape).astype(a._data.dtype))

    @staticmethod
    def backward(ctx, grad):
        g = grad if grad.dtype is ctx.src_dtype else grad.to(ctx.src_dtype)
        return grad * 0, g


class _CopySlices(Function):
    """``self[key] = value`` recorded out of place (CopySlices, PyTorch's node for it).

    The gradient of the old values is the incoming gradient with the written
    positions zeroed; ``value`` receives the gradient at those positions,
    summed back to its own shape.
    """

    node_name = "CopySlices"

    @staticmethod
    def _name():
        return "torch::autograd::CopySlices"

    @staticmethod
    def forward(ctx, a, key, value):
        ctx.key = key
        out = a._data.copy()
        out[key] = value._data
        return _make(out)

    @staticmethod
    def backward(ctx, grad):
        from .indexing import _Pick

        mask = np.ones(grad._data.shape, dtype=grad._data.dtype)
        mask[ctx.key] = 0
        ga = grad * _make(mask)
        gv = _Pick.apply(grad, ctx.key) if ctx.needs_input_grad[2] else None
        return ga, None, gv


def _key_array(key):
    """Turn a Python index (ints, slices, None, tensors) into one numpy can use."""
    if isinstance(key, tuple):
        return tuple(_key_array(k) for k in key)
    if isinstance(key, Tensor):
        return key._data
    if isinstance(key, list):
        return np.asarray([k.item() if isinstance(k, Tensor) else k for k in key])
    return key


def setitem(t, key, value):
    """``t[key] = value`` (``Tensor.__setitem__``): an in-place write, recorded as CopySlices.

    Raises:
        RuntimeError: the in-place errors (a leaf that requires grad, casts, shapes).
        IndexError: for an index out of range.
    """
    np_key = _key_array(key)
    try:
        t._data[np_key] if not isinstance(np_key, tuple) or len(np_key) else None
    except IndexError as err:
        from .indexing import _numpy_index_message

        raise IndexError(_numpy_index_message(err, t._data.shape, np_key)) from None
    if not isinstance(value, Tensor):
        if not is_scalar(value):
            value = Tensor._make(np.asarray(value, dtype=t._data.dtype))
        else:
            value = wrap_scalar(value)
    return inplace(t, lambda a, v: _CopySlices.apply(a, np_key, v), value)


def install():
    """Attach the in-place methods to Tensor."""
    from . import clamp, relu
    from ._util import as_operand
    from .elementwise import Add, Div, Mul, Sub

    def add_(self, other, *, alpha=1):
        """In-place ``self += alpha * other`` (``Tensor.add_``); see ``minigrad.ops.inplace``."""
        return inplace(self, lambda a, b: Add.apply(a, b, alpha), as_operand(other, "add_"))

    def sub_(self, other, *, alpha=1):
        """In-place ``self -= alpha * other`` (``Tensor.sub_``)."""
        return inplace(self, lambda a, b: Sub.apply(a, b, alpha), as_operand(other, "sub_"))

    def mul_(self, other):
        """In-place ``self *= other`` (``Tensor.mul_``)."""
        return inplace(self, Mul.apply, as_operand(other, "mul_"))

    def div_(self, other):
        """In-place ``self /= other`` (``Tensor.div_``)."""
        return inplace(self, Div.apply, as_operand(other, "div_"))

    def zero_(self):
        """Fill with zeros in place (``Tensor.zero_``); records ZeroBackward0."""
        return inplace(self, _Zero.apply)

    def fill_(self, value):
        """Fill with ``value`` in place (``Tensor.fill_``); records FillBackward2."""
        return inplace(self, _Fill.apply, value)

    def copy_(self, src):
        """Copy ``src``'s values in place, broadcasting and casting (``Tensor.copy_``)."""
        if not isinstance(src, Tensor):
            raise TypeError(f"copy_(): argument 'src' (position 1) must be Tensor, not {type(src).__name__}")
        return inplace(self, _Copy.apply, src)

    def clamp_(self, min=None, max=None):
        """Clamp in place (``Tensor.clamp_``)."""
        return inplace(self, lambda a: clamp(a, min, max))

    def relu_(self):
        """ReLU in place (``Tensor.relu_``)."""
        return inplace(self, relu)

    def _iop(method):
        def op(self, other):
            if not isinstance(other, Tensor) and not is_scalar(other):
                return NotImplemented
            return method(self, other)

        return op

    for fn in (add_, sub_, mul_, div_, zero_, fill_, copy_, clamp_, relu_):
        setattr(Tensor, fn.__name__, fn)
    Tensor.__iadd__ = _iop(add_)
    Tensor.__isub__ = _iop(sub_)
    Tensor.__imul__ = _iop(mul_)
    Tensor.__itruediv__ = _iop(div_)
    Tensor.__setitem__ = setitem
