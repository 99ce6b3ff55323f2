"""Tensor's in-place methods: ``x.add_(y)``, ``x.exp_()``, ``x += y``, ``x[i] = v``, ...

Each computes the out-of-place op and writes the result into ``x`` through
``ops/inplace.py``'s ``inplace`` (the version counter, the checks, the rebased
history of a view), so it records the node the out-of-place op records.  They
call it through the module (``_ip.inplace``): jit's Recorder wraps that function
while it records.

Source: the ``*_`` methods of ``torch.Tensor``.
"""

from ..tensor import Tensor
from . import inplace as _ip
from .small_fast import add_fast, setitem_fast
from ._util import UNSET as _UNSET
from ._util import is_scalar

__all__ = ["install"]


def install():
    """Attach the in-place methods to Tensor."""
    from . import relu
    from ._util import as_operand
    from .clamping import bound_arguments, check_inplace_cast, clamp
    from .elementwise import Add, Div, Mul, Sub

    def add_(self, other, *, alpha=1):
        """In-place ``self += alpha * other`` (``Tensor.add_``); see ``minigrad.ops.inplace``."""
        return _ip.inplace(self, lambda a, b: Add.apply(a, b, alpha), as_operand(other, "add_"))

    def sub_(self, other, *, alpha=1):
        """In-place ``self -= alpha * other`` (``Tensor.sub_``)."""
        return _ip.inplace(self, lambda a, b: Sub.apply(a, b, alpha), as_operand(other, "sub_"))

    def mul_(self, other):
        """In-place ``self *= other`` (``Tensor.mul_``)."""
        return _ip.inplace(self, Mul.apply, as_operand(other, "mul_"))

    def pow_(self, exponent):
        """In-place ``self **= exponent`` (``Tensor.pow_``)."""
        from . import pow as _pow

        return _ip.inplace(self, _pow, exponent)

    def div_(self, other, *, rounding_mode=_UNSET):
        """In-place ``self /= other`` (``Tensor.div_``); with ``rounding_mode`` as ``div``'s."""
        if rounding_mode is _UNSET:
            return _ip.inplace(self, Div.apply, as_operand(other, "div_"))
        from . import div

        return _ip.inplace(self, lambda a, b: div(a, b, rounding_mode=rounding_mode), as_operand(other, "div_"))

    def zero_(self):
        """Fill with zeros in place (``Tensor.zero_``); records ZeroBackward0."""
        return _ip.inplace(self, _ip._Zero.apply, reads_self=False)

    def fill_(self, value):
        """Fill with ``value`` in place (``Tensor.fill_``); FillBackward2 (a number) or 3 (a tensor)."""
        if isinstance(value, Tensor):
            return _ip.inplace(self, _ip._FillTensor.apply, value, reads_self=False)
        from ..creation import check_fill_value

        check_fill_value(value, self._data.dtype)  # PyTorch's overflow error for a float too large
        return _ip.inplace(self, _ip._Fill.apply, value, reads_self=False)

    def copy_(self, src):
        """Copy ``src``'s values in place, broadcasting and casting (``Tensor.copy_``)."""
        if not isinstance(src, Tensor):
            raise TypeError(f"copy_(): argument 'src' (position 1) must be Tensor, not {type(src).__name__}")
        return _ip.inplace(self, _ip._Copy.apply, src)

    def clamp_(self, *args, **kwargs):
        """Clamp in place (``Tensor.clamp_(min=None, max=None)``); records what ``clamp`` records.

        Raises:
            RuntimeError: "result type Float can't be cast to the desired output
                type long int" for a float bound on an integer tensor.
            TypeError: ``clamp``'s, for bounds of mixed or other kinds.
        """
        min, max = bound_arguments("clamp_", True, self, args, kwargs)
        check_inplace_cast(self, min, max)
        return _ip.inplace(self, clamp, min, max)  # tensor bounds as arguments: they may require grad

    def relu_(self):
        """ReLU in place (``Tensor.relu_``)."""
        return _ip.inplace(self, relu)

    def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
        """``nan_to_num`` in place (``Tensor.nan_to_num_``); records NanToNumBackward0."""
        from .clamping import nan_to_num

        return _ip.inplace(self, lambda a: nan_to_num(a, nan, posinf, neginf))

    def index_add_(self, dim, index, source, *, alpha=1):
        """In-place ``index_add`` (``Tensor.index_add_``): IndexAddBackward0; see ``index_add``."""
        from .indexing import IndexAdd

        if not isinstance(source, Tensor):
            raise TypeError(f"index_add_(): argument 'source' (position 3) must be Tensor, not "
                            f"{type(source).__name__}")
        return _ip.inplace(self, lambda a, s: IndexAdd.apply(a, dim, (index,), s, alpha), source)

    def _iop(method):
        def op(self, other):
            if not isinstance(other, Tensor) and not is_scalar(other):
                return NotImplemented
            return method(self, other)

        return op

    add_ = add_fast(add_)  # (faster when nothing records: small_fast.py)
    for fn in (add_, sub_, mul_, div_, pow_, zero_, fill_, copy_, clamp_, relu_, nan_to_num_, index_add_):
        setattr(Tensor, fn.__name__, fn)
    _install_unary()
    Tensor.__iadd__ = _iop(add_)
    Tensor.__isub__ = _iop(sub_)
    Tensor.__imul__ = _iop(mul_)
    Tensor.__itruediv__ = _iop(div_)
    Tensor.__setitem__ = setitem_fast  # (inplace.setitem, faster when nothing records)


# The in-place forms of one-argument math (``x.exp_()``): each records the
# out-of-place op's node (ExpBackward0, ...), as PyTorch does.
_UNARY = ("abs", "cos", "exp", "log", "neg", "reciprocal", "sigmoid", "sin", "sqrt", "square",
          "tanh", "ceil", "expm1", "fix", "floor", "frac", "log10", "log1p", "log2", "sign", "trunc",
          "logical_not")


def _unary_inplace(name):
    def method(self):
        from .. import ops

        return _ip.inplace(self, getattr(ops, name))

    method.__name__ = method.__qualname__ = name + "_"
    method.__doc__ = (f"``{name}`` in place (``Tensor.{name}_``); records the node "
                      f"``{name}`` records.\n\nRaises:\n    RuntimeError: the in-place errors "
                      "(a leaf that requires grad; a float result into an integer tensor).")
    return method


def _install_unary():
    for name in _UNARY:
        setattr(Tensor, name + "_", _unary_inplace(name))

    from .clamping import bound_arguments, check_inplace_cast, clamp_max, clamp_min

    def clamp_min_(self, *args, **kwargs):
        """``clamp_min`` in place (``Tensor.clamp_min_(min)``): ClampMinBackward0."""
        min = bound_arguments("clamp_min_", True, self, args, kwargs)
        check_inplace_cast(self, min)
        return _ip.inplace(self, clamp_min, min)

    def clamp_max_(self, *args, **kwargs):
        """``clamp_max`` in place (``Tensor.clamp_max_(max)``): ClampMaxBackward0."""
        max = bound_arguments("clamp_max_", True, self, args, kwargs)
        check_inplace_cast(self, max)
        return _ip.inplace(self, clamp_max, max)

    Tensor.clamp_min_, Tensor.clamp_max_ = clamp_min_, clamp_max_
    Tensor.clip_ = Tensor.clamp_
