"""Floor division and remainder (``//``, ``%``, ``torch.remainder``), each next to its gradient.

Split from ``elementwise.py``, on which it builds (it imports nothing back): the elementwise
ops whose forward rounds.  ``remainder`` passes the gradient to ``self`` unchanged and sends
``-grad * floor(self / other)`` to a tensor ``other``; each class's docstring gives its node.

Source: the formulas of PyTorch's tools/autograd/derivatives.yaml; the remainder kernel of
aten/src/ATen/native/BinaryOps.cpp (fmod, then moved into the divisor's sign).
"""

import numpy as np

from ..autograd.function import Function
from ..tensor import Tensor
from ._util import operands
from .elementwise import Div, _const

__all__ = ["DivFloor", "DivRounding", "ROUNDING_MODES", "FloorDivide", "Remainder", "RemainderScalarTensor", "RemainderTensor"]

_make = Tensor._make


def _remainder(A, B):
    """PyTorch's remainder kernel: fmod, then moved into the divisor's sign (a 0 stays +0)."""
    if np.asarray(A).dtype == np.bool_ and np.asarray(B).dtype == np.bool_:
        raise NotImplementedError('"remainder_cpu" not implemented for \'Bool\'')
    _no_integer_zero_division(A, B)
    if np.asarray(A).dtype.kind != "f" and np.asarray(B).dtype.kind != "f":
        return _make(np.asarray(np.remainder(A, B)))
    mod = np.fmod(A, B)
    return _make(np.asarray(np.where((mod != 0) & ((B < 0) != (mod < 0)), mod + B, mod)))


class Remainder(Function):
    """``self % number``, the sign of the number (RemainderBackward0): d/dself = 1."""

    node_name = "RemainderBackward0"

    @staticmethod
    def forward(ctx, a, b):
        # `b` is a Python number (remainder.Scalar): it gets no edge
        return _remainder(a._data, b)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class RemainderTensor(Function):
    """``self % other`` for two tensors (RemainderBackward1).

    d/dself = 1; d/dother = -floor(self / other).
    """

    node_name = "RemainderBackward1"
    saved_names = ("other", "self")  # saved when other needs a gradient; PyTorch's order

    @staticmethod
    def forward(ctx, a, b):
        A, B = operands(a, b)
        if ctx.needs_input_grad[1]:
            ctx.save_for_backward(b, a)
        return _remainder(A, B)

    @staticmethod
    def backward(ctx, grad):
        need = ctx.needs_input_grad
        gb = None
        if need[1]:
            b, a = ctx.saved_tensors
            # PyTorch: -grad * self.div(other, rounding_mode="floor"), recorded (DivBackward2)
            gb = -grad * DivRounding.apply(a, b, "floor")
        return (grad if need[0] else None), gb


ROUNDING_MODES = (None, "trunc", "floor")


class DivRounding(Function):
    """``div(self, other, rounding_mode=...)`` given a rounding mode (DivBackward2).

    ``"trunc"`` rounds the quotient toward zero, ``"floor"`` toward minus
    infinity (numpy's ``floor_divide``, PyTorch's kernel: fmod first, so
    ``floor(0.3 / 0.1)`` is 2 and ``inf // 2`` is nan), integers stay
    integers; ``None`` (passed by name) is true division, as ``/``, but
    recorded as this node.  Its derivative is 0 everywhere for a rounding
    mode (the quotient is piecewise constant), ``/``'s otherwise.

    Raises:
        RuntimeError: an integer divided by an integer zero ("ZeroDivisionError").
        NotImplementedError: two bool tensors (``"div_floor_cpu" not implemented for 'Bool'``).

    Source: ``div.Tensor_mode`` in PyTorch's derivatives.yaml; ``div_floor_floating``
    and ``div_trunc`` in aten/src/ATen/native/cpu/BinaryOpsKernel.cpp.
    """

    node_name = "DivBackward2"
    saved_names = ("other", "self")
    saved_attrs = ("rounding_mode",)

    @staticmethod
    def forward(ctx, a, b, rounding_mode):
        ctx.rounding_mode = rounding_mode
        if rounding_mode is None:
            ctx.save_for_backward(b, a if ctx.needs_input_grad[1] else None)  # as Div's
            return Div.forward(_NoSave, a, b)
        # as PyTorch's generated code: `self` is kept only for `other`'s gradient
        ctx.save_for_backward(b, a if ctx.needs_input_grad[1] else None)
        A, B = operands(a, b)
        if np.asarray(A).dtype == np.bool_ and np.asarray(B).dtype == np.bool_:
            raise NotImplementedError(f'"div_{rounding_mode}_cpu" not implemented for \'Bool\'')
        _no_integer_zero_division(A, B)
        with np.errstate(divide="ignore", invalid="ignore"):
            if rounding_mode == "floor":
                out = np.floor_divide(A, B)
            elif np.result_type(A, B).kind == "f":
                out = np.trunc(np.true_divide(A, B)).astype(np.result_type(A, B), copy=False)
            else:  # integers: C's division, toward zero
                q = np.floor_divide(A, B)
                out = q + ((q < 0) & (q * B != A))
        return _make(np.asarray(out))

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        if ctx.rounding_mode is None:
            need = ctx.needs_input_grad
            return (grad / b if need[0] else None), (-grad * ((a / b) / b) if need[1] else None), None
        zero = _const(np.zeros(grad._data.shape, dtype=grad._data.dtype))
        return zero, zero, None


class _NoSave:
    """A ctx for running ``Div.forward`` as a plain computation: it needs no gradient, saves nothing."""

    needs_input_grad = (False, False)

    @staticmethod
    def save_for_backward(*tensors):
        pass


DivFloor = DivRounding  # the name remainder's backward used (PyTorch: self.div(other, rounding_mode="floor"))


def _unsequenced(node):
    """Give a NotImplemented node PyTorch's sequence number for it: UINT64_MAX.

    PyTorch makes these nodes without a sequence number, so the walk runs
    them as soon as they are ready, before any other node (its error is
    raised before a leaf elsewhere got a gradient).
    """
    from ..autograd.graph import UINT64_MAX

    # AccumulateGrad's number too: on a tie, the node that became ready first
    # runs first, as in PyTorch's queue
    node._seq = UINT64_MAX
    node._is_primitive = False  # it runs (and raises) even with no edge that needs it


class RemainderScalarTensor(Function):
    """``number % tensor``: no derivative in PyTorch (its NotImplemented node; backward raises)."""

    node_name = "NotImplemented"

    @staticmethod
    def _name():
        return "torch::autograd::NotImplemented"

    @staticmethod
    def forward(ctx, a, b):
        _unsequenced(ctx)
        (a,) = a  # the number, in a tuple: no edge for it
        A, B = operands(a, b)
        return _remainder(A, B)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::remainder is not implemented")


def _no_integer_zero_division(A, B):
    """PyTorch raises for an integer divided by an integer zero (floats give inf or nan).

    Only where a quotient is computed: an empty dividend (so an empty result)
    divides nothing, and PyTorch does not raise.
    """
    A, B = np.asarray(A), np.asarray(B)
    if A.dtype.kind in "biu" and B.dtype.kind in "biu" and A.size and (B == 0).any():
        raise RuntimeError("ZeroDivisionError")


class FloorDivide(Function):
    """``self // other`` (no derivative in PyTorch either: backward raises its message)."""

    node_name = "NotImplemented"  # what PyTorch records for a non-differentiable op

    @staticmethod
    def _name():
        return "torch::autograd::NotImplemented"

    @staticmethod
    def forward(ctx, a, b):
        _unsequenced(ctx)
        # an input that needs no gradient comes in a 1-tuple (no edge for it)
        a = a[0] if type(a) is tuple else a
        b = b[0] if type(b) is tuple else b
        A, B = operands(a, b)
        if np.asarray(A).dtype == np.bool_ and np.asarray(B).dtype == np.bool_:
            raise NotImplementedError('"div_floor_cpu" not implemented for \'Bool\'')
        _no_integer_zero_division(A, B)
        return _make(np.asarray(np.floor_divide(A, B)))

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::floor_divide is not implemented")


# As elementwise.py's: these forwards compute with numpy alone, so Function.apply need not
# switch recording off around them.
Remainder._numpy_forward = FloorDivide._numpy_forward = True
