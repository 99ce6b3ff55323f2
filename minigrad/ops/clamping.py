"""Clamping: ``clamp``, ``clamp_min``, ``clamp_max``, with numbers or tensors as bounds;
``nan_to_num``, which replaces the values no bound can hold (nan, ±inf).

PyTorch records a different node for each form, and so does minigrad:

* ``clamp(x, min=a, max=b)`` with numbers: ClampBackward1 (saves self, min, max);
* ``clamp_min(x, a)`` / ``clamp_max(x, b)`` with a number: ClampMinBackward0 /
  ClampMaxBackward0 (saves self and the bound);
* with a tensor bound: ClampBackward0 (``clamp``; edges to self, min and max,
  all three differentiable), ClampMinBackward1, ClampMaxBackward1.

The gradient passes to ``self`` where it lies within the bounds (bounds
included); a tensor bound gets it where it won (``self < min``, ``self >
max``; with both, where the bounds are in order, as PyTorch's
``clamp_backward_min_max``).  The result's dtype follows type promotion with
the bounds: ``int_tensor.clamp(min=1.5)`` is float32, as in PyTorch.

Source: derivatives.yaml (``clamp``, ``clamp.Tensor``, ``clamp_min``,
``clamp_min.Tensor``, ...) and ``clamp_backward_min_max``
(torch/csrc/autograd/FunctionsManual.cpp).
"""

import numpy as np

from .._dtype import C_TYPE_NAMES, SCALAR_TYPE_NAMES, result_type
from ..autograd.function import Function
from ..tensor import Tensor
from ._util import broadcast_shape, wrap_scalar

__all__ = ["Clamp", "ClampMax", "ClampMaxTensor", "ClampMin", "ClampMinTensor", "ClampTensor",
           "NanToNum", "bound_arguments", "clamp", "entry", "clamp_max", "clamp_min", "nan_to_num"]

_make = Tensor._make


def _select(keep, grad):
    """``grad`` where ``keep``, an exact 0 elsewhere (a select, as PyTorch's formulas)."""
    from .elementwise import where

    zero = _make(np.zeros((), dtype=grad._data.dtype))
    return where(_make(np.asarray(keep)), grad, zero)


def _out_dtype(a, bounds):
    """The result dtype: ``a`` promoted with all the bounds at once (numbers as Python scalars).

    Together, as PyTorch's TensorIterator does: a 0-d float64 clamped at a
    float32 tensor bound is float32 (the bound has dimensions), not float64.
    """
    given = [b for b in bounds if b is not None]
    return (result_type(a, *given) if given else a.dtype).np


def _check_bool(a, bounds, kernel):
    if a._data.dtype == np.bool_ and all(
            b is None or isinstance(b, bool) or isinstance(b, Tensor) and b.dtype.name == "bool"
            for b in bounds):
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def _clip(data, lo, hi, dt):
    """PyTorch's kernel, min(max(x, lo), hi) with std::max/min: x is kept where it equals a
    bound (so -0. stays -0.), a nan in x or in a bound gives nan."""
    out = np.asarray(data).astype(dt, copy=False)
    with np.errstate(invalid="ignore"):
        if lo is not None:
            out = np.where(out < lo, lo, out)
            out = np.where(np.isnan(lo), lo, out) if np.isnan(lo).any() else out
        if hi is not None:
            out = np.where(out > hi, hi, out)
            out = np.where(np.isnan(hi), hi, out) if np.isnan(hi).any() else out
    return _make(np.asarray(out).astype(dt, copy=False))


class Clamp(Function):
    """Clamp into ``[min, max]``, numbers (ClampBackward1); saves self, min, max."""

    node_name = "ClampBackward1"
    saved_names = ("self",)
    saved_attrs = ("min", "max")

    @staticmethod
    def forward(ctx, a, lo, hi):
        if lo is None and hi is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        _check_bool(a, (lo, hi), "clamp_scalar_cpu" if lo is not None and hi is not None
                    else "clamp_min_scalar_cpu" if lo is not None else "clamp_max_scalar_cpu")
        ctx.min, ctx.max = lo, hi
        ctx.save_for_backward(a)
        return _clip(a._data, lo, hi, _out_dtype(a, (lo, hi)))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        keep = np.ones(a._data.shape, dtype=bool)
        if ctx.min is not None:
            keep &= a._data >= ctx.min
        if ctx.max is not None:
            keep &= a._data <= ctx.max
        return _select(keep, grad), None, None


class ClampMin(Function):
    """``clamp_min(x, number)`` (ClampMinBackward0); saves self and min."""

    node_name = "ClampMinBackward0"
    saved_names = ("self",)
    saved_attrs = ("min",)

    @staticmethod
    def forward(ctx, a, lo):
        _check_bool(a, (lo,), "clamp_min_scalar_cpu")
        ctx.min = lo
        ctx.save_for_backward(a)
        return _clip(a._data, lo, None, _out_dtype(a, (lo,)))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return _select(a._data >= ctx.min, grad), None


class ClampMax(Function):
    """``clamp_max(x, number)`` (ClampMaxBackward0); saves self and max."""

    node_name = "ClampMaxBackward0"
    saved_names = ("self",)
    saved_attrs = ("max",)

    @staticmethod
    def forward(ctx, a, hi):
        _check_bool(a, (hi,), "clamp_max_scalar_cpu")
        ctx.max = hi
        ctx.save_for_backward(a)
        return _clip(a._data, None, hi, _out_dtype(a, (hi,)))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return _select(a._data <= ctx.max, grad), None


def _shape_check(a, bounds):
    for b in bounds:
        if b is not None:
            broadcast_shape(a, b)


class ClampTensor(Function):
    """``clamp`` with tensor bounds (ClampBackward0): self, min and max all get gradients."""

    node_name = "ClampBackward0"
    saved_names = ("max", "min", "self")  # PyTorch's order

    @staticmethod
    def forward(ctx, a, lo, hi):
        lo = None if lo is _NO_BOUND else lo
        hi = None if hi is _NO_BOUND else hi
        _shape_check(a, (lo, hi))
        ctx.save_for_backward(hi, lo, a)
        return _clip(a._data, None if lo is None else lo._data, None if hi is None else hi._data,
                     _out_dtype(a, (lo, hi)))

    @staticmethod
    def backward(ctx, grad):
        hi, lo, a = ctx.saved_tensors
        x = a._data
        need = ctx.needs_input_grad
        ga = gl = gh = None
        if lo is not None and hi is not None:
            if need[0]:
                ga = _select((x >= lo._data) & (x <= hi._data), grad)
            if need[1]:
                gl = _select((x < lo._data) & (lo._data < hi._data), grad)
            if need[2]:
                gh = _select((x > hi._data) | (hi._data < lo._data), grad)
        elif lo is not None:
            ga = _select(x >= lo._data, grad) if need[0] else None
            gl = _select(x < lo._data, grad) if need[1] else None
        else:
            ga = _select(x <= hi._data, grad) if need[0] else None
            gh = _select(x > hi._data, grad) if need[2] else None
        return ga, gl, gh


class ClampMinTensor(Function):
    """``clamp_min(x, tensor)`` (ClampMinBackward1): the bound gets the gradient where it won."""

    node_name = "ClampMinBackward1"
    saved_names = ("self", "min")

    @staticmethod
    def forward(ctx, a, lo):
        _shape_check(a, (lo,))
        ctx.save_for_backward(a, lo)
        return _clip(a._data, lo._data, None, _out_dtype(a, (lo,)))

    @staticmethod
    def backward(ctx, grad):
        a, lo = ctx.saved_tensors
        need = ctx.needs_input_grad
        return (_select(a._data >= lo._data, grad) if need[0] else None,
                _select(a._data < lo._data, grad) if need[1] else None)


class ClampMaxTensor(Function):
    """``clamp_max(x, tensor)`` (ClampMaxBackward1)."""

    node_name = "ClampMaxBackward1"
    saved_names = ("self", "max")

    @staticmethod
    def forward(ctx, a, hi):
        _shape_check(a, (hi,))
        ctx.save_for_backward(a, hi)
        return _clip(a._data, None, hi._data, _out_dtype(a, (hi,)))

    @staticmethod
    def backward(ctx, grad):
        a, hi = ctx.saved_tensors
        need = ctx.needs_input_grad
        return (_select(a._data <= hi._data, grad) if need[0] else None,
                _select(a._data > hi._data, grad) if need[1] else None)


# stands for a bound not given, so ClampTensor's node keeps PyTorch's three
# edges (min and max are optional Tensor arguments: an absent one is (None, 0))
_NO_BOUND = Tensor._make(np.zeros(()))


def _bound(v):
    """A number as a Python number (numpy scalars and 1-element arrays are unwrapped)."""
    if v is None or isinstance(v, Tensor):
        return v
    if isinstance(v, np.generic):
        return v.item()
    return v


def _is_number(v):
    return isinstance(v, (int, float, np.number, np.bool_))


def _type(v):
    return "Tensor" if isinstance(v, Tensor) else type(v).__name__


def _signature_text(name, method, pos, kw):
    """PyTorch's "received an invalid combination of arguments" message for these arguments.

    Its argument parser lists the arguments as passed (keywords sorted by
    name; a method's without ``self``) and the two overloads, Tensor bounds
    and Number bounds; a method call whose arguments fit an overload in
    number also says why they did not match.
    """
    one = name.rstrip("_") in ("clamp_min", "clamp_max")
    bound = name.rstrip("_")[-3:] if one else None
    parts = [_type(v) for v in pos] + [f"{k}={_type(kw[k])}" for k in sorted(kw)]
    got = ", ".join(parts) + (", " if method and kw and not pos else "")
    msg = f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
    details = None
    if method:
        fits = len(pos) + len(kw) == 2 and set(kw) <= {"min", "max"}
        if one or (fits and not kw):
            marks = ", ".join(f"!{p}!" for p in parts) + (", " if kw and not pos else "")
            details = f"some of the arguments have invalid types: ({marks})"
        elif fits:
            details = "some of the keywords were incorrect: " + ", ".join(sorted(kw))
    for kind in ("Tensor", "Number"):
        args = f"{kind} {bound}" if one else f"{kind} min = None, {kind} max = None"
        msg += f" * (Tensor input, {args}, *, Tensor out = None)\n" if not method else f" * ({args})\n"
        if details:
            msg += f"      didn't match because {details}\n"
    return msg


def bound_arguments(name, method, input, args, kwargs):
    """The bounds of a call to ``clamp``/``clip``/``clamp_min``/``clamp_max`` (or their ``_`` forms).

    Returns ``(min, max)`` (``clamp``, ``clip``) or the one bound, as
    PyTorch's argument parser reads them: a bound is None, a number or a
    tensor, both bounds of one kind (a 0-d tensor that needs no gradient next
    to a number is read as a number).

    Raises:
        TypeError: PyTorch's "clamp() received an invalid combination of
            arguments - got (...)" for anything else, the arguments listed as passed.
    """
    one = name.rstrip("_") in ("clamp_min", "clamp_max")
    names = (name.rstrip("_")[-3:],) if one else ("min", "max")
    values = dict(zip(names, args))
    ok = len(args) <= len(names) and set(kwargs) <= set(names) and not set(kwargs) & set(values)
    values.update(kwargs)
    bounds = [_bound(values.get(n)) for n in names]
    if ok:
        for v in bounds:
            if not (v is None and not one or isinstance(v, Tensor) or _is_number(v)):
                ok = False
    if ok and not one and bounds[0] is not None and bounds[1] is not None:
        lo, hi = bounds
        if isinstance(lo, Tensor) != isinstance(hi, Tensor):
            t = lo if isinstance(lo, Tensor) else hi
            if t._data.ndim == 0 and not t._requires_grad:
                bounds = [v.item() if v is t else v for v in bounds]  # read as a Number
            else:
                ok = False
    if not ok:
        pos = tuple(args) if method else (input,) + tuple(args)
        raise TypeError(_signature_text(name, method, pos, kwargs))
    return bounds[0] if one else tuple(bounds)


def clamp(input, min=None, max=None):
    """Limit values to ``[min, max]`` (``torch.clamp``, ``Tensor.clamp``).

    Args:
        input (Tensor): any dtype (bool only with a non-bool bound).
        min, max: numbers (ClampBackward1) or tensors that broadcast with
            ``input`` (ClampBackward0, the bounds differentiable too); one may
            be None.

    Returns:
        Tensor of ``input``'s shape (broadcast with tensor bounds), its dtype
        promoted with the bounds (an int tensor clamped at 1.5 is float32).

    Raises:
        RuntimeError: "torch.clamp: At least one of 'min' or 'max' must not be
            None"; PyTorch's broadcasting error for a tensor bound.
        TypeError: PyTorch's "clamp() received an invalid combination of
            arguments" for one tensor bound and one number bound (unless the
            tensor is 0-d and needs no gradient: then it is read as a number).
    """
    lo, hi = bound_arguments("clamp", False, input, (min, max), {})
    if isinstance(lo, Tensor) or isinstance(hi, Tensor):
        lo = _NO_BOUND if lo is None else lo if isinstance(lo, Tensor) else wrap_scalar(lo)
        hi = _NO_BOUND if hi is None else hi if isinstance(hi, Tensor) else wrap_scalar(hi)
        return ClampTensor.apply(input, lo, hi)
    return Clamp.apply(input, lo, hi)


def clamp_min(input, min):
    """``max(input, min)`` elementwise (``torch.clamp_min``): ClampMinBackward0 / 1 (tensor bound)."""
    lo = bound_arguments("clamp_min", False, input, (min,), {})
    if isinstance(lo, Tensor):
        return ClampMinTensor.apply(input, lo)
    return ClampMin.apply(input, lo)


def clamp_max(input, max):
    """``min(input, max)`` elementwise (``torch.clamp_max``): ClampMaxBackward0 / 1 (tensor bound)."""
    hi = bound_arguments("clamp_max", False, input, (max,), {})
    if isinstance(hi, Tensor):
        return ClampMaxTensor.apply(input, hi)
    return ClampMax.apply(input, hi)


def check_inplace_cast(t, *bounds):
    """PyTorch's error for ``int_tensor.clamp_(min=1.5)``: the result would not fit ``t``'s dtype.

    Raises:
        RuntimeError: "result type Float can't be cast to the desired output type long int"
            for number bounds; "... type Int" (the ScalarType's name) for a tensor bound.
    """
    dt = np.dtype(_out_dtype(t, [_bound(b) for b in bounds]))
    own = t._data.dtype
    if dt != own and (dt.kind == "f" and own.kind in "biu" or dt.kind in "iu" and own.kind == "b"):
        names = SCALAR_TYPE_NAMES if any(isinstance(b, Tensor) for b in bounds) else C_TYPE_NAMES
        raise RuntimeError(f"result type {SCALAR_TYPE_NAMES[dt.name]} can't be cast to the desired "
                           f"output type {names[own.name]}")


class NanToNum(Function):
    """nan, +inf and -inf replaced by numbers (NanToNumBackward0); saves self.

    The gradient passes where ``self`` is finite and is an exact 0 where it
    was replaced (a select, so an inf there never makes a nan).
    Source: ``nan_to_num`` in PyTorch's derivatives.yaml.
    """

    node_name = "NanToNumBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx, a, nan, posinf, neginf):
        ctx.save_for_backward(a)
        A = a._data
        if A.dtype.kind != "f":
            return _make(A.copy())  # integers and bools are finite: a copy, as PyTorch
        return _make(np.nan_to_num(A, nan=nan, posinf=posinf, neginf=neginf))

    @staticmethod
    def formula(F, ctx, grad, a):
        return F.select(np.isfinite(F.data(a)), grad), None, None, None


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """``input`` with nan as ``nan``, +inf as ``posinf``, -inf as ``neginf`` (``torch.nan_to_num``).

    ``posinf`` / ``neginf`` default to the largest / lowest finite value of
    the dtype (3.4028e+38 for float32).  Shape and dtype are ``input``'s.

    Raises:
        TypeError: a replacement that is not a number (PyTorch's message).
    """
    for name, v in (("nan", nan), ("posinf", posinf), ("neginf", neginf)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
            raise TypeError(f"nan_to_num(): argument '{name}' must be float, not {type(v).__name__}")
    return NanToNum.apply(input, nan, posinf, neginf)


def entry(name, impl, method=False):
    """``impl`` as PyTorch's ``torch.<name>`` (``method=False``) or ``Tensor.<name>``.

    The bounds are read as PyTorch's argument parser reads them
    (``bound_arguments``), so a bad call names its arguments as they were
    passed; ``impl(input, *bounds)`` does the work.
    """

    def call(input, *args, **kwargs):
        bounds = bound_arguments(name, method, input, args, kwargs)
        return impl(input, *bounds) if type(bounds) is tuple else impl(input, bounds)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = impl.__doc__
    return call
