"""The operations a gradient formula may use, twice: on numpy arrays and on Tensors.

Each primitive states its vector-Jacobian product once, as
``formula(F, ctx, *grads, *saved)``.  Arithmetic is written with operators
(``grad * b``, ``1 - r * r``), which numpy arrays and Tensors both have; every
other operation is called through ``F``:

* ``ARRAY_OPS`` when the backward walk records nothing (``create_graph=False``,
  the usual case): ``grads`` and ``saved`` are numpy arrays (a Python number
  saved as a wrapped number stays a Python number), ``F.mm`` is ``a @ b``;
  nothing is recorded, so nothing but numpy runs;
* ``TENSOR_OPS`` under ``create_graph=True``: they are Tensors, ``F.mm`` is
  ``minigrad.mm``, and every step of the formula is itself recorded, so the
  gradient can be differentiated again.

So ``Tanh``'s ``grad * (1 - r * r)`` is one line that is plain numpy in one
walk and a recorded graph (MulBackward0, RsubBackward1, MulBackward0) in the
other.  The two namespaces below have the same names and the same meaning;
numpy and PyTorch agree on type promotion when every value has one dtype, and
the node runs the formula on Tensors when they do not (see
``apply_formula``, below).

Source: the idea of one derivative definition serving both the eager and the
traced backward is PyTorch's derivatives.yaml, whose formulas are compiled
for both (tools/autograd); JAX's ``jax.numpy`` plays the same part for its
transformations.
"""

import numpy as np

from ..tensor import Tensor
from ..autograd import function as _function
from ..autograd import grad_kinds as _grad_kinds
from ..autograd import saved
from ..autograd.validate import sum_to_array as _sum_to_array
from ..autograd.function import BackwardNode
from ..autograd.paths import unpack_arrays as _unpack_arrays  # (saved.unpack, as arrays)

__all__ = ["ARRAY_OPS", "TENSOR_OPS", "select_array"]

_lazy = None  # the ops modules the array formulas call into, once imported (see _ops)


def _ops():
    """The helpers of minigrad's ops that array formulas use (imported on first use:
    those modules define primitives, which need this module loaded first; an import
    statement inside each formula would cost more than the arithmetic)."""
    global _lazy
    if _lazy is None:
        import types

        from .activation_backward import one_minus_square
        from .elementwise import _math_exp, rounded_once
        from .softmax_backward import log_softmax_backward_data, softmax_backward_data

        _lazy = types.SimpleNamespace(one_minus_square=one_minus_square, rounded_once=rounded_once,
                                      math_exp=_math_exp,
                                      log_softmax_backward_data=log_softmax_backward_data,
                                      softmax_backward_data=softmax_backward_data)
    return _lazy


class _ArrayOps(_grad_kinds.Arrays):
    """The formula operations on numpy arrays (nothing recorded)."""

    __slots__ = ()

    @staticmethod
    def const(array):
        """A value the formula treats as a constant (a mask, a sign): the array itself."""
        return array

    @staticmethod
    def data(x):
        """The numpy values of ``x`` (to compute a mask or a sign from)."""
        return x

    @staticmethod
    def where(cond, a, b):
        """``a`` where ``cond`` (a bool array) holds, else ``b``: a select, never a multiply."""
        return np.where(cond, a, b)

    @staticmethod
    def select(mask, grad):
        """``grad`` where ``mask`` (a bool array) holds, else 0: a select, so an inf outside
        the mask gives 0, not nan (PyTorch's masked backward formulas)."""
        return select_array(mask, grad)

    @staticmethod
    def threshold_backward(grad, result):
        """0 where ``result <= 0``, else ``grad`` (relu's backward, PyTorch's
        threshold_backward: a nan result passes the gradient)."""
        return select_array(result <= 0, grad, zero_where=True)

    @staticmethod
    def tanh_backward(grad, result):
        """``grad * (1 - y*y)`` for ``y = tanh(x)``, ``1 - y*y`` rounded once as PyTorch's kernel."""
        return grad * _ops().one_minus_square(result)

    @staticmethod
    def sigmoid_backward(grad, result):
        """``grad * (1 - y) * y`` for ``y = sigmoid(x)``, in PyTorch's order of operations."""
        return grad * (1 - result) * result

    @staticmethod
    def log_softmax_backward(grad, y, d, saved_dim):
        """``grad - exp(y) Σ_d grad`` (PyTorch's _log_softmax_backward_data)."""
        return _ops().log_softmax_backward_data(grad, y, d)

    @staticmethod
    def softmax_backward(grad, y, d, saved_dim):
        """``y (grad - Σ_d grad y)`` (PyTorch's _softmax_backward_data)."""
        return _ops().softmax_backward_data(grad, y, d)

    @staticmethod
    def call(cls, *args):
        """A backward kernel of its own (``cls``, a Function with a numpy ``kernel``) on arrays.

        The ``*_backward`` ops PyTorch computes in one kernel (leaky_relu_backward,
        gelu_backward, ...): plain numpy here, the recorded op under ``TENSOR_OPS``.
        A kernel with several outputs (native_layer_norm_backward) returns a tuple.
        """
        out = cls.kernel(*args)
        return out if type(out) is tuple else np.asarray(out)

    @staticmethod
    def sgn(a):
        """The sign of each element, 0 for nan (PyTorch's sgn)."""
        from .elementwise import sign_data

        return sign_data(a)

    @staticmethod
    def mm(a, b):
        """Matrix product of two 2-d values."""
        return np.matmul(a, b)

    @staticmethod
    def expand(a, shape):
        """``a`` broadcast to ``shape`` (a read-only view: no copy)."""
        if type(a) is not np.ndarray and isinstance(a, np.generic):
            a = np.asarray(a)  # (numpy gives a scalar for arithmetic on 0-d arrays)
        if type(a) is np.ndarray and not a.ndim and shape:
            # the gradient of a sum or mean to one number: its stride-0 view made
            # directly (np.broadcast_to's general route costs about 3x as much)
            view = np.ndarray(shape, a.dtype, a, 0, (0,) * len(shape))
            view.flags.writeable = False
            return view
        return np.broadcast_to(a, shape)

    @staticmethod
    def reshape(a, shape):
        return np.reshape(a, shape)

    @staticmethod
    def unsqueeze(a, dim):
        return np.expand_dims(a, dim)

    @staticmethod
    def squeeze(a, dim):
        return np.squeeze(a, axis=dim)

    @staticmethod
    def transpose(a, dim0, dim1):
        return np.swapaxes(a, dim0, dim1)

    @staticmethod
    def permute(a, dims):
        return np.transpose(a, dims)

    @staticmethod
    def sum(a, dim, keepdim=False):
        """Sum over ``dim`` (an int or a tuple of ints); a 0-d value is its own sum."""
        if np.ndim(a) == 0:
            return a
        return np.sum(a, axis=dim, keepdims=keepdim)

    @staticmethod
    def t(a):
        """Transpose of a 2-d value."""
        return a.T

    @staticmethod
    def exp(a):
        """``exp`` as the ``Exp`` primitive computes it (float32 rounded once from float64)."""
        ops = _ops()
        return ops.rounded_once(np.exp, ops.math_exp, a)

    @staticmethod
    def log(a):
        return np.log(a)

    @staticmethod
    def sin(a):
        return np.sin(a)

    @staticmethod
    def cos(a):
        return np.cos(a)

    @staticmethod
    def mul_scalar(a, s):
        """``a * s`` for a Python number ``s``, in ``a``'s dtype (PyTorch's MulBackward1)."""
        return np.multiply(a, s)

    @staticmethod
    def pow_scalar(a, e):
        """``a ** e`` for a Python number ``e``, as PyTorch's kernel computes it (PowBackward0)."""
        from .power_kernels import pow_scalar_array

        return pow_scalar_array(a, e)

    @staticmethod
    def div_scalar(a, s):
        """``a / s`` for a Python number ``s``, in ``a``'s dtype (PyTorch's DivBackward1)."""
        return np.true_divide(a, s).astype(np.result_type(a), copy=False)

    @staticmethod
    def add_scalar(a, s):
        """``a + s`` for a Python number ``s``, in ``a``'s dtype (PyTorch's AddBackward1)."""
        return np.add(a, s).astype(np.result_type(a), copy=False)

    @staticmethod
    def reciprocal(a):
        """``1 / a`` elementwise (PyTorch's ReciprocalBackward0 under create_graph)."""
        return np.reciprocal(a)

    @staticmethod
    def tril(a, k):
        """The lower triangle of the last two dims, up to the ``k``-th diagonal."""
        return np.tril(a, k)

    @staticmethod
    def triu(a, k):
        """The upper triangle of the last two dims, from the ``k``-th diagonal."""
        return np.triu(a, k)

    @staticmethod
    def roll(a, shifts, dims):
        """``a`` rolled by ``shifts`` along ``dims`` (flattened when ``dims`` is empty)."""
        return np.roll(a, shifts, dims if dims else None) if np.ndim(a) and np.size(a) else a

    @staticmethod
    def zeros(shape, like):
        """Zeros of ``shape`` with ``like``'s dtype."""
        return np.zeros(shape, dtype=np.result_type(like))

    @staticmethod
    def sum_to(a, shape):
        """``a`` summed down to ``shape`` (undoing broadcasting)."""
        return _sum_to_array(a, shape, None, 0) if np.shape(a) != tuple(shape) else a


class _TensorOps(_grad_kinds.Tensors):
    """The formula operations on Tensors (recorded under ``create_graph=True``)."""

    __slots__ = ()

    @staticmethod
    def const(array):
        return Tensor._make(np.asarray(array))

    @staticmethod
    def data(x):
        return x._data

    @staticmethod
    def where(cond, a, b):
        from .elementwise import where

        return where(cond if isinstance(cond, Tensor) else Tensor._make(np.asarray(cond)), a, b)

    @staticmethod
    def select(mask, grad):
        from .elementwise import where

        zero = Tensor._make(np.zeros((), dtype=grad._data.dtype))
        return where(Tensor._make(np.asarray(mask)), grad, zero)

    @staticmethod
    def threshold_backward(grad, result):
        from .elementwise import ThresholdBackward

        return ThresholdBackward.apply(grad, result)

    @staticmethod
    def tanh_backward(grad, result):
        from .activation_backward import TanhBackward

        return TanhBackward.apply(grad, result)

    @staticmethod
    def sigmoid_backward(grad, result):
        from .activation_backward import SigmoidBackward

        return SigmoidBackward.apply(grad, result)

    @staticmethod
    def log_softmax_backward(grad, y, d, saved_dim):
        from .softmax_backward import LogSoftmaxBackwardData

        return LogSoftmaxBackwardData.apply(grad, y, d, saved_dim)

    @staticmethod
    def softmax_backward(grad, y, d, saved_dim):
        from .softmax_backward import SoftmaxBackwardData

        return SoftmaxBackwardData.apply(grad, y, d, saved_dim)

    @staticmethod
    def call(cls, *args):
        return cls.apply(*args)

    @staticmethod
    def sgn(a):
        from .elementwise import Sgn

        return Sgn.apply(a)

    @staticmethod
    def mm(a, b):
        return a.mm(b)

    @staticmethod
    def expand(a, shape):
        return a.expand(shape)

    @staticmethod
    def reshape(a, shape):
        return a.reshape(shape)

    @staticmethod
    def unsqueeze(a, dim):
        return a.unsqueeze(dim)

    @staticmethod
    def squeeze(a, dim):
        return a.squeeze(dim)

    @staticmethod
    def transpose(a, dim0, dim1):
        return a.transpose(dim0, dim1)

    @staticmethod
    def permute(a, dims):
        return a.permute(dims)

    @staticmethod
    def sum(a, dim, keepdim=False):
        return a.sum(dim, keepdim=keepdim)

    @staticmethod
    def t(a):
        return a.t()

    @staticmethod
    def exp(a):
        return a.exp()

    @staticmethod
    def log(a):
        return a.log()

    @staticmethod
    def sin(a):
        return a.sin()

    @staticmethod
    def cos(a):
        return a.cos()

    @staticmethod
    def mul_scalar(a, s):
        from .elementwise import MulScalar

        return MulScalar.apply(a, s)

    @staticmethod
    def pow_scalar(a, e):
        return a ** e

    @staticmethod
    def div_scalar(a, s):
        from .elementwise import DivScalar

        return DivScalar.apply(a, s)

    @staticmethod
    def add_scalar(a, s):
        from .exp_log import AddScalar

        return AddScalar.apply(a, s)

    @staticmethod
    def reciprocal(a):
        return a.reciprocal()

    @staticmethod
    def tril(a, k):
        from .linalg import Tril

        return Tril.apply(a, k)

    @staticmethod
    def triu(a, k):
        from .linalg import Triu

        return Triu.apply(a, k)

    @staticmethod
    def roll(a, shifts, dims):
        from .indexing import Roll

        return Roll.apply(a, shifts, dims)

    @staticmethod
    def zeros(shape, like):
        from ..creation import zeros

        return zeros(shape, dtype=like.dtype)

    @staticmethod
    def sum_to(a, shape):
        return a.sum_to_size(shape)


# float dtype -> the unsigned integer of its width, for branch-free selects
_BITS = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}
_BRANCH_FREE_FROM = 4096  # elements (see select_array)


def select_array(mask, x, zero_where=False):
    """``x`` where ``mask`` holds, else +0.0, branch-free and bit-exact (-0.0 and nan kept).

    With ``zero_where=True`` the other way round: +0.0 where ``mask`` holds.
    ``np.where`` with a data-dependent mask mispredicts a branch per element;
    clearing the bits of the elements not kept is the same select without one.
    That takes four numpy calls where ``np.where`` takes one, so below
    ``_BRANCH_FREE_FROM`` elements ``np.where`` is faster and gives the same
    bits (measured here, random signs: 1.4 against 2.8 us at 100 elements,
    even at 4,096, 7 against 5 us at 10,000, 47 against 10 us at 32,768).
    """
    bits = _BITS.get(x.dtype)
    if bits is None or type(x) is not np.ndarray or x.size < _BRANCH_FREE_FROM or x.shape != (
            mask.shape if type(mask) is np.ndarray else np.shape(mask)):
        zero = np.zeros((), dtype=x.dtype)
        return np.where(mask, zero, x) if zero_where else np.where(mask, x, zero)
    # all ones where the element is kept: -1 or 1 - 1 in unsigned arithmetic; built
    # in one buffer (astype is numpy's fast cast; a ufunc casting on the fly is not)
    keep = np.asarray(mask).view(np.uint8).astype(bits)
    if zero_where:
        np.subtract(keep, 1, out=keep)
    else:
        np.negative(keep, out=keep)
    return np.bitwise_and(keep, x.view(bits), out=keep).view(x.dtype)


ARRAY_OPS = _ArrayOps()
TENSOR_OPS = _TensorOps()


# --- the formula protocol: a primitive's node runs its formula --------------------------

def formula_node(cls, ns):
    """Make ``cls`` (a Function with a ``formula``) a primitive: ``ns`` is its node class's.

    One formula serves both walks: the node's ``apply`` runs it with the
    gradient kind it is given (``apply_formula``), and ``cls.backward``, unless
    the class writes its own, runs it on Tensors (``create_graph=True``, ``node(v)``).
    What ``Function.__init_subclass__`` calls (autograd/function.py's slot).
    """
    if "backward" not in cls.__dict__:
        cls.backward = staticmethod(_backward_from_formula(cls))
    ns["apply"] = apply_formula


def apply_formula(node, grads, F):
    """The node's ``apply`` for a class with a ``formula`` (every primitive).

    A walk that records nothing runs it on numpy arrays (``F`` is ``ARRAY_OPS``),
    but on Tensors (the class's ``backward``) when the values do not share one
    dtype: numpy and PyTorch promote mixed dtypes differently.
    """
    if F.records:
        return BackwardNode.apply(node, grads, F)
    if len(grads) > 1:  # (a node of several outputs)
        grads = node._materialized(grads, _array_zeros)
    cls = node._forward_cls
    g = grads[0]
    dt = None if g is None else g.dtype
    values, same = _unpack_arrays(node, dt)
    if not (same and dt is not None) and not _one_dtype(grads, values, cls._ints_are_indices):
        return BackwardNode.apply(node, grads, F)  # (the formula on Tensors, wrapped)
    try:
        out = cls.formula(F, node, *grads, *values)
    except ValueError:
        # numpy's "operands could not be broadcast together" (a saved tensor's .data
        # replaced by one of another shape since forward): the formula on Tensors
        # raises PyTorch's "The size of tensor a (3) must match the size of tensor b (2) ..."
        return BackwardNode.apply(node, grads, F)
    n = len(node.needs_input_grad)
    if type(out) is tuple:
        if len(out) == n:
            ea = node._edge_args
            if ea is None:  # the usual case: one gradient per edge already
                return out
            if ea[-1] == len(ea) - 1:  # edges on the leading arguments (add's a, b; alpha)
                return out[:len(ea)]
    elif n == 1 and node._edge_args is None:
        return (out,)
    return node._per_edge(out)


def _backward_from_formula(cls):
    def backward(ctx, *grads):
        return cls.formula(TENSOR_OPS, ctx, *grads, *saved.unpack(ctx, formula=True))

    backward.__doc__ = f"``{cls.__name__}.formula`` on Tensors (recorded under create_graph=True)."
    return backward


def _array_zeros(shape, dtype):
    return np.zeros(shape, dtype=dtype.np if hasattr(dtype, "np") else dtype)


def _one_dtype(grads, values, ints_ok):
    """True if every float (or integer) array among the values shares one dtype.

    Bool arrays (masks) never count; integer arrays do not either when the
    formula uses them only as indices (``ints_ok``: the class's
    ``_ints_are_indices``).  (The usual case, every array of the first
    gradient's dtype, is found while unpacking: ``saved.unpack_arrays``.)
    """
    dt = None
    ignored = "biu" if ints_ok else "b"
    for group in (grads, values):
        for v in group:
            if v is None or type(v) in _PY_SCALARS or v.dtype.kind in ignored:
                continue
            d = v.dtype
            if dt is None:
                dt = d
            elif d != dt:
                return False
    return True


_PY_SCALARS = (float, int, bool)

# The walk passes these to each node's apply (autograd/graph.py's slots); Function
# makes a class with a formula a primitive here (autograd/function.py's slot).
_grad_kinds.register_grad_kinds(ARRAY_OPS, TENSOR_OPS)
_function.register_formula_node(formula_node)
