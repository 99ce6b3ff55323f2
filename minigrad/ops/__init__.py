"""The primitives, as functions and as Tensor methods and operators.

Each function here checks and converts its arguments, then calls one
``Function.apply``; the Tensor operators (``x * y``, ``x.exp()``) are the same
functions attached to ``Tensor``.  The primitives themselves live by theme:

* ``elementwise.py``: ``+ - * / **``, ``neg``, ``abs``, ``exp``, ``log``, ``sqrt``, ``sin``,
  ``cos``, ``tanh``, ``sigmoid``, ``relu``, ``maximum``, ``minimum``, ``where``, ``%``, ``//``;
* ``rounding.py``: ``floor``, ``ceil``, ``trunc``/``fix``, ``round`` (``decimals=``), ``frac``, ``sign``;
* ``exp_log.py``: ``log1p``, ``expm1``, ``log2``, ``log10``;
* ``pointwise.py``: ``fmax``, ``fmin``, ``atan2``, ``lerp``, ``addcmul``, ``addcdiv``;
* ``clamping.py``: ``clamp``, ``clamp_min``, ``clamp_max`` (number or tensor bounds);
* ``reductions.py``: ``sum``, ``mean``, ``max``, ``min``, ``amax``, ``amin``, ``logsumexp``,
  ``softmax``, ``log_softmax``, ``var``, ``std``, ``prod``, ``sum_to_size``;
* ``nan_reductions.py``: ``nansum``, ``nanmean``; ``cumulative.py``: ``cumsum``, ``cumprod``;
* ``sorting.py``: ``sort``, ``argsort``, ``topk``, ``msort``, ``median``;
* ``shape.py``: ``reshape``/``view``, ``transpose``, ``permute``, ``movedim``, ``t``,
  ``unsqueeze``, ``squeeze``, ``expand``, ``flatten``, ``cat``, ``stack``, ``clone``, ...;
* ``indexing.py``: ``x[...]``, ``select``, ``narrow``, ``gather``, ``index_select``, ``index_add``,
  ``roll``;
* ``linalg.py``: ``dot``, ``mv``, ``mm``, ``bmm``, ``matmul``, ``addmm``, ``diag``, ``diagonal``,
  ``tril``, ``triu``, ``outer``;
* ``inplace.py``: writing in place (``x[i] = v``), the version counter, a view's rebased history
  (``view_writes.py``: its CopySlices, as_strided); ``inplace_methods.py``: ``add_``, ..., ``+=``;
* ``conversion.py``: ``to(dtype / device)``, ``float()``, ``type()``, ``cpu()``, ``cuda()``;
* ``comparison.py``: ``== != < <= > >=``, ``all``, ``any``, logic, ``nonzero``, ``argwhere``,
  ``count_nonzero`` (never recorded).
"""

from ..tensor import Tensor
from . import formulas as _formulas  # (first: every primitive defined below runs its formula there)
from . import clamping as _clamping
from . import comparison as _cmp
from . import elementwise as _ew
from . import rounding_division as _rd
from . import shape as _sh
from ._util import UNSET, as_operand, is_scalar, wrap_scalar
from .clamping import nan_to_num
from . import compat as _compat
from . import small_fast as _small_fast
from . import random_fills as _random_fills

clamp = _clamping.entry("clamp", _clamping.clamp)
clamp_min = _clamping.entry("clamp_min", _clamping.clamp_min)
clamp_max = _clamping.entry("clamp_max", _clamping.clamp_max)
from .comparison import (
    all,
    any,
    argwhere,
    count_nonzero,
    eq,
    ge,
    gt,
    isfinite,
    isinf,
    isnan,
    le,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    lt,
    ne,
    nonzero,
)
from .cumulative import cumprod, cumsum
from .elementwise import where
from .exp_log import expm1, log1p, log2, log10
from .indexing import gather, getitem, index_add, index_select, narrow, roll, select
from .linalg import addmm, bmm, diag, diagonal, dot, ger, matmul, mm, mv, outer, tril, triu
from .nan_reductions import nanmean, nansum
from .pointwise import addcdiv, addcmul, arctan2, atan2, fmax, fmin, lerp
from .reductions import (
    amax,
    amin,
    log_softmax,
    logsumexp,
    max,
    mean,
    min,
    prod,
    softmax,
    sum,
    sum_to_size,
)
from .rounding import ceil, fix, floor, frac, round, sign, trunc
from .shape import (
    cat,
    chunk,
    clone,
    contiguous,
    contiguous_format,
    expand,
    flatten,
    flip,
    memory_format,
    movedim,
    permute,
    preserve_format,
    repeat,
    reshape,
    split,
    squeeze,
    stack,
    transpose,
    unbind,
    unsqueeze,
    view,
)
from .histogram import histc, histogram
from .sampling import bernoulli, multinomial
from .sorting import argsort, median, msort, sort, topk
from .statistics import norm, std, var

clip = _clamping.entry("clip", _clamping.clamp)

moveaxis = movedim

__all__ = [
    "ceil",
    "histc",
    "histogram",
    "multinomial",
    "bernoulli",
    "cumprod",
    "cumsum",
    "expm1",
    "fix",
    "floor",
    "frac",
    "log10",
    "log1p",
    "log2",
    "round",
    "sign",
    "trunc",
    "tril",
    "triu",
    "outer",
    "ger",
    "roll",
    "nonzero",
    "argwhere",
    "count_nonzero",
    "nansum",
    "nanmean",
    "median",
    "fmax",
    "fmin",
    "atan2",
    "arctan2",
    "lerp",
    "addcmul",
    "addcdiv",
    "norm",
    "clamp_min",
    "nan_to_num",
    "clamp_max",
    "clip",
    "all",
    "any",
    "argsort",
    "diag",
    "diagonal",
    "index_add",
    "index_select",
    "moveaxis",
    "movedim",
    "msort",
    "sort",
    "topk",
    "abs",
    "square",
    "reciprocal",
    "relu_",
    "add",
    "addmm",
    "var",
    "std",
    "prod",
    "flip",
    "repeat",
    "split",
    "chunk",
    "remainder",
    "floor_divide",
    "allclose",
    "equal",
    "adjoint",
    "amax",
    "amin",
    "bmm",
    "cat",
    "clamp",
    "clone",
    "contiguous",
    "contiguous_format",
    "cos",
    "memory_format",
    "preserve_format",
    "div",
    "divide",
    "true_divide",
    "dot",
    "eq",
    "exp",
    "expand",
    "flatten",
    "gather",
    "ge",
    "gt",
    "isfinite",
    "isinf",
    "isnan",
    "le",
    "log",
    "log_softmax",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "logsumexp",
    "lt",
    "matmul",
    "max",
    "maximum",
    "mean",
    "min",
    "minimum",
    "mm",
    "mul",
    "mv",
    "narrow",
    "ne",
    "neg",
    "permute",
    "pow",
    "relu",
    "reshape",
    "select",
    "sigmoid",
    "sin",
    "softmax",
    "sqrt",
    "squeeze",
    "stack",
    "sub",
    "sum",
    "sum_to_size",
    "t",
    "tanh",
    "transpose",
    "unsqueeze",
    "unbind",
    "view",
    "where",
]


def add(input, other, *, alpha=1):
    """``input + alpha * other``, broadcasting (``torch.add``); node AddBackward0.

    Raises:
        RuntimeError: "The size of tensor a (3) must match the size of tensor
            b (4) at non-singleton dimension 0" for shapes that do not broadcast.
    """
    return _ew.Add.apply(as_operand(input, "add"), as_operand(other, "add"), alpha)


def sub(input, other, *, alpha=1):
    """``input - alpha * other`` (``torch.sub``); node SubBackward0 (RsubBackward1 for ``2 - x``)."""
    return _ew.Sub.apply(as_operand(input, "sub"), as_operand(other, "sub"), alpha)


def mul(input, other):
    """``input * other``, broadcasting (``torch.mul``); node MulBackward0."""
    return _ew.Mul.apply(as_operand(input, "mul"), as_operand(other, "mul"))


_UNSET = UNSET  # rounding_mode not given: the div.Tensor overload, not div.Tensor_mode


def div(input, other, *, rounding_mode=_UNSET):
    """``input / other`` (``torch.div``, also ``torch.divide``), broadcasting.

    Without ``rounding_mode``: true division, node DivBackward0; integers
    divide to float32.  With ``rounding_mode="trunc"`` (toward zero) or
    ``"floor"`` (toward minus infinity): the rounded quotient, integers stay
    integers, node DivBackward2, whose gradient is zero.  ``rounding_mode=None``
    given by name is true division recorded as DivBackward2, as in PyTorch
    (its ``div.Tensor_mode`` overload).  See ``minigrad.ops.rounding_division``.

    Raises:
        RuntimeError: a rounding mode other than None, "trunc" and "floor"
            (PyTorch's message); an integer divided by an integer zero with
            a rounding mode ("ZeroDivisionError").
        NotImplementedError: a rounding mode on two bool tensors.
    """
    if rounding_mode is _UNSET:
        return _ew.Div.apply(as_operand(input, "div"), as_operand(other, "div"))

    if rounding_mode not in _rd.ROUNDING_MODES:
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                           f"found '{rounding_mode}'")
    return _rd.DivRounding.apply(as_operand(input, "div"), as_operand(other, "div"), rounding_mode)


def divide(input, other, *, rounding_mode=_UNSET):
    """``torch.divide``: another name of ``div`` (the same nodes)."""
    return div(input, other, rounding_mode=rounding_mode)


def true_divide(input, other):
    """``torch.true_divide``: ``div`` without a rounding mode (DivBackward0)."""
    return div(input, other)


def neg(input):
    """``-input`` (``torch.neg``); node NegBackward0."""
    return _ew.Neg.apply(input)


def pow(input, exponent):
    """``input ** exponent`` (``torch.pow``).

    Nodes as PyTorch names them: PowBackward0 for a number exponent,
    PowBackward1 for a tensor exponent, PowBackward2 for a number base.
    """
    if isinstance(input, Tensor):
        if isinstance(exponent, Tensor):
            return _ew.PowTensorTensor.apply(input, exponent)
        if is_scalar(exponent):
            return _ew.PowTensorScalar.apply(input, exponent.item() if hasattr(exponent, "item") else exponent)
        raise TypeError(f"pow(): argument 'exponent' must be Tensor or Number, not {type(exponent).__name__}")
    if is_scalar(input) and isinstance(exponent, Tensor):
        return _ew.PowScalarTensor.apply(input, exponent)
    raise TypeError(f"pow(): argument 'input' must be Tensor or Number, not {type(input).__name__}")


def exp(input):
    """eˣ elementwise (``torch.exp``); node ExpBackward0 saves its result."""
    return _ew.Exp.apply(input)


def log(input):
    """Natural log elementwise (``torch.log``); node LogBackward0 saves its input."""
    return _ew.Log.apply(input)


def tanh(input):
    """tanh elementwise (``torch.tanh``); node TanhBackward0 saves its result."""
    return _ew.Tanh.apply(input)


def sigmoid(input):
    """1 / (1 + e⁻ˣ) elementwise (``torch.sigmoid``); node SigmoidBackward0 saves its result."""
    return _ew.Sigmoid.apply(input)


def relu(input):
    """max(x, 0) elementwise (``torch.relu``); node ReluBackward0; gradient 0 at 0."""
    return _ew.Relu.apply(input)


def square(input):
    """``input ** 2`` elementwise (``torch.square``); node PowBackward0."""
    return pow(input, 2)


def reciprocal(input):
    """1 / x elementwise (``torch.reciprocal``); node ReciprocalBackward0 saves its result."""
    return _ew.Reciprocal.apply(input)


def relu_(input):
    """ReLU in place (``torch.relu_``); records ReluBackward0; returns ``input``."""
    return input.relu_()


def t(input):
    """Transpose a tensor of at most 2 dims (``torch.t``); node TBackward0."""
    return _sh.T.apply(input)


def abs(input):
    """|x| elementwise (``torch.abs``); node AbsBackward0; gradient 0 at 0."""
    return _ew.Abs.apply(input)


def sqrt(input):
    """√x elementwise (``torch.sqrt``); node SqrtBackward0; gradient inf at 0."""
    return _ew.Sqrt.apply(input)


def sin(input):
    """sin elementwise (``torch.sin``); node SinBackward0."""
    return _ew.Sin.apply(input)


def cos(input):
    """cos elementwise (``torch.cos``); node CosBackward0."""
    return _ew.Cos.apply(input)


def maximum(input, other):
    """Elementwise max of two tensors (``torch.maximum``); ties split the gradient evenly."""
    if not isinstance(other, Tensor):
        raise TypeError(f"maximum(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    return _ew.Maximum.apply(input, other)


def minimum(input, other):
    """Elementwise min of two tensors (``torch.minimum``); ties split the gradient evenly."""
    if not isinstance(other, Tensor):
        raise TypeError(f"minimum(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    return _ew.Minimum.apply(input, other)


# ----------------------------------------------------------------- operators

def remainder(input, other):
    """``input % other`` with the sign of ``other``, as Python's (``torch.remainder``).

    Nodes as PyTorch's: RemainderBackward0 for a number ``other``,
    RemainderBackward1 for a tensor, NotImplemented for a number ``input``
    (no derivative: backward raises "derivative for aten::remainder is not
    implemented").
    """
    if isinstance(input, Tensor) and is_scalar(other):
        return _rd.Remainder.apply(input, other.item() if hasattr(other, "item") else other)
    if not isinstance(input, Tensor):
        return _rd.RemainderScalarTensor.apply((as_operand(input, "remainder"),), other)
    return _rd.RemainderTensor.apply(input, as_operand(other, "remainder"))


def _edge_only_if_needed(t):
    """A tensor that needs no gradient, held in a tuple: the NotImplemented nodes of
    non-differentiable ops have edges only for the inputs that require grad (PyTorch)."""
    return t if t._requires_grad else (t,)


def floor_divide(input, other):
    """``input // other`` (``torch.floor_divide``); not differentiable (backward raises).

    Node: NotImplemented, with an edge for each input that requires grad.
    """
    return _rd.FloorDivide.apply(_edge_only_if_needed(as_operand(input, "floor_divide")),
                                 _edge_only_if_needed(as_operand(other, "floor_divide")))


def _radd(self, other):
    return add(self, other)


def _rsub(self, other):
    if isinstance(other, Tensor):
        return sub(other, self)
    if not is_scalar(other):
        return NotImplemented
    return _ew.Rsub.apply(self, other.item() if hasattr(other, "item") else other, 1)


def _rmul(self, other):
    return mul(self, other)


def _rtruediv(self, other):
    if not is_scalar(other):
        return NotImplemented
    return mul(_ew.Reciprocal.apply(self), other)


def _rpow(self, other):
    if not is_scalar(other):
        return NotImplemented
    return pow(other, self)


def _binary(fn):
    def op(self, other):
        if not isinstance(other, Tensor) and not is_scalar(other):
            return NotImplemented
        return fn(self, other)

    op.__name__ = fn.__name__
    op.__doc__ = fn.__doc__
    return op


def _operator(fn, cls, *extra):
    """``fn`` as a Tensor operator, calling its primitive directly (the hot path of ``x * y``)."""

    apply = cls.apply
    if extra:  # add, sub: alpha
        (alpha,) = extra

        def op(self, other):
            if not isinstance(other, Tensor):
                if not is_scalar(other):
                    return NotImplemented
                other = wrap_scalar(other)
            return apply(self, other, alpha)
    else:
        def op(self, other):
            if not isinstance(other, Tensor):
                if not is_scalar(other):
                    return NotImplemented
                other = wrap_scalar(other)
            return apply(self, other)

    op.__name__ = fn.__name__
    op.__doc__ = fn.__doc__
    return op


def _mT(self):
    n = self._data.ndim
    if n == 1:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. "
                           "Got 1-D tensor.")
    if n == 0:
        import warnings

        warnings.warn("Tensor.mT is deprecated on 0-D tensors. This function is the identity in "
                      "these cases.", UserWarning, stacklevel=2)
        return self  # the tensor itself, as PyTorch
    return transpose(self, -2, -1)


def _conj_transpose(name, matrices_only=False):
    """``Tensor.mH``/``adjoint()``/``H``: for minigrad's real dtypes, the transpose (TransposeBackward0).

    As PyTorch: a 0-d tensor is returned as it is, with its deprecation
    warning; a 1-d one (and, for ``H``, anything but 2-d) raises.
    """
    what = "tensor.H" if matrices_only else f"tensor.{name}"

    def conj_transpose(self):
        n = self._data.ndim
        if n == 0:
            import warnings

            shown = "adjoint()" if name == "adjoint()" else f"Tensor.{name}"
            warnings.warn(f"{shown} is deprecated on 0-D tensors. Consider using x.conj().",
                          UserWarning, stacklevel=2)
            return self
        if matrices_only and n != 2:
            hint = " For batches of matrices, consider using tensor.mH" if n > 2 else ""
            raise RuntimeError(f"{what} is only supported on matrices (2-D tensors). Got {n}-D "
                               f"tensor.{hint}")
        if n == 1:
            raise RuntimeError(f"{what} is only supported on matrices or batches of matrices. "
                               "Got 1-D tensor.")
        return transpose(self, -2, -1)

    return conj_transpose


def adjoint(input):
    """The conjugate transpose of the last two dims (``torch.adjoint``); real dtypes: ``mT``."""
    return _conj_transpose("adjoint()")(input)


def _T(self):
    n = self._data.ndim
    if n == 0:
        import warnings

        warnings.warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in "
                      "these cases.", UserWarning, stacklevel=2)
    elif n != 2:
        import warnings

        warnings.warn(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to "
            "reverse the dimensions of a tensor.",
            UserWarning,
            stacklevel=2,
        )
    return permute(self, *reversed(range(n)))


def equal(input, other):
    """True if the two tensors have the same shape and the same values (``torch.equal``)."""
    import numpy as np

    return input._data.shape == other._data.shape and bool(np.array_equal(input._data, other._data))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True if |input - other| <= atol + rtol * |other| everywhere (``torch.allclose``)."""
    import numpy as np

    return bool(np.allclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def _argext(self, dim, keepdim, name):
    import numpy as np

    from ._util import canonical_dim

    fn = getattr(np, name)
    if self._data.dtype == np.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    if self._data.size == 0 and dim is None:
        raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
    if self._data.size == 0 and self._data.shape[canonical_dim(dim, self.ndim)] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {canonical_dim(dim, self.ndim)} to "
                         "have non-zero size.")
    if dim is None:
        return Tensor._make(np.asarray(fn(self._data), dtype=np.int64))
    d = canonical_dim(dim, self._data.ndim)
    return Tensor._make(np.asarray(fn(self._data, axis=d, keepdims=keepdim), dtype=np.int64))


class _Methods:
    """Tensor methods that are small conveniences over the functions above (attached below)."""

    def view_as(self, other):
        """``view`` to ``other``'s shape (``Tensor.view_as``)."""
        return view(self, other.shape)

    def reshape_as(self, other):
        """``reshape`` to ``other``'s shape (``Tensor.reshape_as``)."""
        return reshape(self, other.shape)

    def expand_as(self, other):
        """``expand`` to ``other``'s shape (``Tensor.expand_as``)."""
        return expand(self, other.shape)

    def is_contiguous(self):
        """True if the elements lie in memory in row-major order (``Tensor.is_contiguous``)."""
        return bool(self._data.flags.c_contiguous)

    def where(self, condition, other):
        """``where(condition, self, other)`` (``Tensor.where``)."""
        return where(condition, self, other)

    def argmax(self, dim=None, keepdim=False):
        """Index of the largest element, overall or along ``dim``, as int64 (``Tensor.argmax``)."""
        return _argext(self, dim, keepdim, "argmax")

    def argmin(self, dim=None, keepdim=False):
        """Index of the smallest element, overall or along ``dim``, as int64 (``Tensor.argmin``)."""
        return _argext(self, dim, keepdim, "argmin")

    def new_zeros(self, *size, dtype=None, requires_grad=False):
        """Zeros of ``size`` with this tensor's dtype by default (``Tensor.new_zeros``)."""
        from ..creation import zeros

        return zeros(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)

    def new_ones(self, *size, dtype=None, requires_grad=False):
        """Ones of ``size`` with this tensor's dtype by default (``Tensor.new_ones``)."""
        from ..creation import ones

        return ones(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)

    def equal(self, other):
        """True if same shape and same values (``torch.equal``)."""
        return equal(self, other)

    def __matmul__(self, other):
        if not isinstance(other, Tensor):
            return NotImplemented
        return matmul(self, other)

    def __rmatmul__(self, other):
        return NotImplemented

    def __pos__(self):
        return self

    def __hash__(self):
        # __eq__ is elementwise (it returns a tensor), so hash by identity
        return id(self)


def _install():
    T = Tensor
    T.__add__ = _operator(add, _ew.Add, 1)
    T.__radd__ = _binary(_radd)
    T.__sub__ = _operator(sub, _ew.Sub, 1)
    T.__rsub__ = _rsub
    T.__mul__ = _operator(mul, _ew.Mul)
    T.__rmul__ = _binary(_rmul)
    T.__truediv__ = _operator(div, _ew.Div)
    T.__mod__ = _binary(remainder)
    T.__floordiv__ = _binary(floor_divide)
    T.__rmod__ = _binary(lambda self, other: remainder(other, self))
    T.__rfloordiv__ = _binary(lambda self, other: floor_divide(wrap_scalar(other), self))
    T.__rtruediv__ = _rtruediv
    T.__pow__ = _binary(pow)
    T.__rpow__ = _rpow
    T.__neg__ = neg
    T.__abs__ = abs
    T.__getitem__ = _small_fast.getitem_fast  # (indexing.getitem, faster when nothing records)
    T.__eq__ = _binary(eq)
    T.__ne__ = _binary(ne)
    T.__lt__ = _binary(lt)
    T.__le__ = _binary(le)
    T.__gt__ = _binary(gt)
    T.__ge__ = _binary(ge)
    T.__and__ = T.__rand__ = _binary(_cmp.bitwise_and)
    T.__or__ = T.__ror__ = _binary(_cmp.bitwise_or)
    T.__xor__ = T.__rxor__ = _binary(_cmp.bitwise_xor)
    T.__invert__ = _cmp.bitwise_not
    for name in __all__:
        if name not in ("cat", "stack", "where", "allclose", "equal", "relu_"):  # functions only, or bound differently
            setattr(T, name, _compat.with_numpy_names(globals()[name], name))
    for name, fn in vars(_Methods).items():
        if callable(fn) and (not name.startswith("_") or name.startswith("__")) and name not in (
            "__dict__", "__weakref__", "__module__", "__doc__", "__qualname__"
        ):
            setattr(T, name, _compat.with_numpy_names(fn, name))
    from .conversion import METHODS
    from .sorting import _argsort_method, _sort_method, _topk_method

    T.topk = _topk_method
    for name in ("clamp", "clip", "clamp_min", "clamp_max"):  # as methods: the arguments without self
        setattr(T, name, _clamping.entry(name, getattr(_clamping, "clamp" if name == "clip" else name), True))
    T.sort = _sort_method
    T.argsort = _argsort_method

    for name, fn in METHODS.items():
        setattr(T, name, fn)
    for name, fn in (*_compat.METHODS.items(), *_sh.METHODS.items(),
                     *_random_fills.METHODS.items()):
        setattr(T, name, fn)
    T.T = property(_T, doc="The tensor with its dims reversed (PermuteBackward0 for 2-d).")
    T.mT = property(_mT, doc="Transpose of the last two dims (``Tensor.mT``).")
    T.mH = property(_conj_transpose("mH"), doc="Conjugate transpose of the last two dims (``mT``).")
    T.H = property(_conj_transpose("H", True), doc="Conjugate transpose of a matrix (``Tensor.H``).")
    T.adjoint = _conj_transpose("adjoint()")


_install()

# torch.exp(2.0) and torch.sum([1, 2]) raise PyTorch's TypeError naming the
# argument; the functions PyTorch lets take a number first (torch.add(2, x))
# and those whose first argument is not one tensor are left as they are.  The
# Tensor methods (x.exp()) were bound above to the functions themselves.
_NUMBER_FIRST_OK = {"add", "sub", "mul", "div", "divide", "true_divide", "remainder", "floor_divide", "pow", "eq", "ne",
                    "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"}
_NOT_ONE_TENSOR = {"cat", "stack", "where", "allclose", "equal", "all", "any"}  # (all, any: own message)
_NOT_ONE_TENSOR |= {"memory_format", "preserve_format", "contiguous_format"}  # not functions


for _name in __all__:
    if _name not in _NUMBER_FIRST_OK and _name not in _NOT_ONE_TENSOR:
        globals()[_name] = _compat.tensor_first(globals()[_name], _name)
for _name in ("cat", "stack"):
    globals()[_name] = _compat.with_numpy_names(globals()[_name], _name)

from . import inplace as _inplace
from . import inplace_methods as _inplace_methods

_inplace_methods.install()
Tensor._add_inplace_raw = _inplace.add_inplace_raw  # (what AccumulateGrad adds with)


def _round_(self, *, decimals=None):
    """``round`` in place (``Tensor.round_(decimals=None)``); records what ``round`` records."""
    from .rounding import round_method

    return _inplace.inplace(self, lambda a: round_method(a, decimals=decimals, _name="round_"))


def _install_more_inplace():
    from .cumulative import cumprod_, cumsum_
    from .indexing import roll_method
    from .linalg import tril_method, triu_method
    from .pointwise import install_methods

    install_methods()
    Tensor.tril, Tensor.triu, Tensor.roll = tril_method, triu_method, roll_method
    from .rounding import round_method

    Tensor.round, Tensor.round_ = round_method, _round_
    Tensor.tril_ = lambda self, diagonal=0: _inplace.inplace(self, tril, diagonal, reads_self=True)
    Tensor.triu_ = lambda self, diagonal=0: _inplace.inplace(self, triu, diagonal, reads_self=True)
    Tensor.tril_.__doc__ = "``tril`` in place (``Tensor.tril_(diagonal=0)``); records TrilBackward0."
    Tensor.triu_.__doc__ = "``triu`` in place (``Tensor.triu_(diagonal=0)``); records TriuBackward0."
    Tensor.cumsum_, Tensor.cumprod_ = cumsum_, cumprod_


_install_more_inplace()

# torch.sin_(x), ...: the namespace's in-place functions (ops/compat.py)
for _name in _compat.NAMESPACE_INPLACE:
    globals()[_name] = _compat.tensor_first(_compat.namespace_inplace(_name), _name)
    __all__.append(_name)
