"""Random fills in place (``x.uniform_()``, ``normal_``, ``exponential_``, ``bernoulli_``,
``random_``) and ``torch.normal``.

Each method draws with ``_random_kernels.py`` in the order of the tensor's
memory, as PyTorch's CPU kernels do, so the same seed gives PyTorch's numbers,
and writes through ``ops/inplace.py``'s ``inplace``: the version moves, a leaf
that requires grad is refused with grad mode on, and a tensor that requires
grad records PyTorch's node (``UniformBackward0``, ...), whose gradient is
zero.  The checks run after the leaf check and before any word is drawn, in
PyTorch's order.  ``METHODS`` is attached to Tensor by ``ops/__init__``.

Source: aten/src/ATen/native/DistributionTemplates.h (``uniform_impl_``,
``normal_impl_``, ``random_from_to_impl``, ``check_from_to_in_range``,
``normal_out_impl``), native/Distributions.cpp, native/cpu/DistributionTemplates.h;
the nodes: tools/autograd/derivatives.yaml.
"""

import math
import warnings

import numpy as np

from .. import _random_kernels as _kernels
from .._dtype import C_TYPE_NAMES, SCALAR_TYPE_NAMES
from ..autograd import grad_mode
from ..autograd.function import Function
from ..creation import _check_device, _float_dtype, _leaf, _shape_arg
from ..random import default_generator
from ..tensor import Tensor
from . import inplace as _ip
from ._util import broadcast_shape
from .sampling import check_probabilities
from .shape import Expand

__all__ = ["METHODS", "normal"]


def _c(x):
    """A number as C++'s ``ostream`` prints a double (six significant digits)."""
    return f"{x:g}"


def _overlap_check(arr):
    """PyTorch's refusal of an expanded tensor, before any word is drawn."""
    if not arr.flags.writeable or (arr.size > 1 and any(
            st == 0 and n > 1 for st, n in zip(arr.strides, arr.shape))):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation.")


class _Drawn(Function):
    """Every element overwritten with drawn values: the old values get a zero gradient."""

    @staticmethod
    def forward(ctx, a, draw):
        return Tensor._make(draw())

    @staticmethod
    def backward(ctx, grad):
        return _ip._zeros_like(grad), None


def _node(name):
    return type(name.replace("Backward", "_"), (_Drawn,), {"node_name": name})


_Uniform, _Normal, _Exponential = (_node(n) for n in
                                   ("UniformBackward0", "NormalBackward0", "ExponentialBackward0"))
_BernoulliScalar = _node("BernoulliBackward2")
_RandomFromTo, _RandomTo, _Random = (_node(f"RandomBackward{i}") for i in range(3))


class _BernoulliTensor(Function):
    """``bernoulli_(p)`` with a tensor ``p`` (BernoulliBackward1): zero gradients for both."""

    node_name = "BernoulliBackward1"

    @staticmethod
    def forward(ctx, a, p, draw):
        ctx.p_meta = (p._data.shape, p._data.dtype)
        return Tensor._make(draw())

    @staticmethod
    def backward(ctx, grad):
        gp = Tensor._make(np.zeros(*ctx.p_meta)) if ctx.needs_input_grad[1] else None
        return _ip._zeros_like(grad), gp, None


def _fill(self, node, check, kernel, *args, serial=False):
    """Write ``kernel(generator, n, np_dtype, *args)`` into ``self`` in place, recorded as ``node``.

    ``check()`` runs after the leaf check, before drawing; ``serial``: pass
    ``serial=True`` to the kernel for a tensor that is not contiguous (``normal``).
    """
    arr = self._data

    def draw():
        check()
        _overlap_check(arr)
        extra = {"serial": True} if serial and not arr.flags.c_contiguous else {}
        values = kernel(*args[:1], arr.size, arr.dtype.type, *args[1:], **extra)
        return _kernels.in_memory_order(arr, values.astype(arr.dtype, copy=False))

    return _ip.inplace(self, lambda a: node.apply(a, draw), reads_self=False)


def _bounds(name, args, kwargs, names, defaults):
    """The positional and keyword arguments of ``uniform_`` / ``normal_``, as numbers."""
    if len(args) > len(names):
        raise TypeError(f"{name}() takes from 0 to {len(names)} positional arguments but "
                        f"{len(args)} were given")
    values = dict(zip(names, defaults))
    values.update(zip(names, args))
    for key, v in kwargs.items():
        if key not in names:
            raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
        values[key] = v
    return [float(values[n]) for n in names]


def _float_kernel_check(arr, kind):
    if arr.dtype.kind != "f":
        raise NotImplementedError(f'"{kind}" not implemented for '
                                  f"'{SCALAR_TYPE_NAMES[str(arr.dtype)]}'")


def uniform_(self, *args, generator=None, **kwargs):
    """Fill with U(from, to) in place (``Tensor.uniform_(from=0, to=1, *, generator=None)``).

    ``u · (to - from) + from`` in the tensor's dtype, one fused multiply-add
    (``uniform_kernel``); records UniformBackward0 (a zero gradient).

    Raises:
        NotImplementedError: '"check_uniform_bounds" not implemented for 'Long'' (not a float).
        RuntimeError: "from is out of bounds for float" (nan, inf, beyond the dtype), "uniform_
            expects to return a [from, to) range, but found from=1 > to=0", "uniform_ expects
            to-from <= std::numeric_limits<Float>::max(), ...".
    """
    low, high = _bounds("uniform_", args, kwargs, ("from", "to"), (0.0, 1.0))
    arr = self._data

    def check():
        _float_kernel_check(arr, "check_uniform_bounds")
        biggest = float(np.finfo(arr.dtype).max)
        for v, what in ((low, "from"), (high, "to")):
            if not -biggest <= v <= biggest:
                raise RuntimeError(f"{what} is out of bounds for {C_TYPE_NAMES[str(arr.dtype)]}")
        if low > high:
            raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                               f"from={_c(low)} > to={_c(high)}")
        if high - low > biggest:
            raise RuntimeError(
                f"uniform_ expects to-from <= std::numeric_limits<"
                f"{SCALAR_TYPE_NAMES[str(arr.dtype)]}>::max(), but found to={_c(high)} and "
                f"from={_c(low)} which result in to-from to exceed the limit")

    return _fill(self, _Uniform, check, _kernels.uniform_between,
                 generator or default_generator, low, high)


def normal_(self, *args, generator=None, **kwargs):
    """Fill with N(mean, std²) in place (``Tensor.normal_(mean=0, std=1, *, generator=None)``).

    ``randn``'s values times ``std`` plus ``mean`` in one fused multiply-add; a
    tensor that is not contiguous, or of fewer than 16 elements, draws one double
    at a time (``normal_kernel``).  Records NormalBackward0 (a zero gradient).

    Raises:
        NotImplementedError: '"normal_kernel_cpu" not implemented for 'Long'' (not a float).
        RuntimeError: "normal expects std >= 0.0, but found std -1" (nan too).
    """
    mean, std = _bounds("normal_", args, kwargs, ("mean", "std"), (0.0, 1.0))
    arr = self._data

    def check():
        if not std >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_c(std)}")
        _float_kernel_check(arr, "normal_kernel_cpu")

    return _fill(self, _Normal, check, _kernels.normal, generator or default_generator,
                 mean, std, serial=True)


def exponential_(self, lambd=1.0, *, generator=None):
    """Fill with Exp(λ) in place (``Tensor.exponential_(lambd=1, *, generator=None)``).

    ``-1/λ · log1p(-u)`` in double from one 53-bit uniform, then the tensor's
    dtype; records ExponentialBackward0 (a zero gradient).

    Raises:
        RuntimeError: "exponential_ expects lambda > 0.0, but found lambda=0" (nan too);
            for an integer tensor that is not empty, "Exponential distribution is a continuous
            probability distribution. dtype must be a floating point but you specified Long".
    """
    lambd = float(lambd)
    arr = self._data

    def check():
        if not lambd > 0.0:
            raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_c(lambd)}")
        if arr.size and arr.dtype.kind != "f":
            raise RuntimeError("Exponential distribution is a continuous probability distribution. "
                               "dtype must be a floating point but you specified "
                               f"{SCALAR_TYPE_NAMES[str(arr.dtype)]}")

    if arr.size == 0 and arr.dtype.kind != "f":  # PyTorch returns before its dtype check
        check()
        return self
    return _fill(self, _Exponential, check, _kernels.exponential, generator or default_generator,
                 lambd)


def bernoulli_(self, p=0.5, *, generator=None):
    """0 or 1 per element in place (``Tensor.bernoulli_(p=0.5, *, generator=None)``).

    ``u < p`` with a double uniform for a number ``p`` (BernoulliBackward2); a
    float tensor ``p``, broadcast to ``self``'s shape, compares float32 ``p``
    with float uniforms and float64 ``p`` with double ones (BernoulliBackward1).
    ``self`` may have any dtype.  The draws are PyTorch's except a number ``p`` on
    an Intel CPU (README, "Differences by design").

    Raises:
        RuntimeError: "bernoulli_ expects p to be in [0, 1], but got p=1.5"; for a tensor ``p``,
            expand's error for a shape that does not broadcast, and "Expected p_in >= 0 && p_in
            <= 1 to be true, but got false. ..." (checked before drawing, where PyTorch writes the
            elements before the bad one first).
        NotImplementedError: '"bernoulli_tensor_cpu_p_" not implemented for 'Long'' for an
            integer or bool ``p``.
    """
    gen = generator or default_generator
    arr = self._data
    if not isinstance(p, Tensor):
        p = float(p)

        def check():
            if not 0 <= p <= 1:
                raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_c(p)}")

        return _fill(self, _BernoulliScalar, check,
                     lambda g, n, _dt: _kernels.bernoulli_scalar(g, n, p), gen)

    def draw():
        with grad_mode.no_grad():  # only for expand's error
            probs = Expand.apply(p, tuple(arr.shape))._data
        _overlap_check(arr)
        check_probabilities(probs)
        ordered = probs.transpose(_kernels.memory_axes(arr)).reshape(-1)  # in self's memory order
        drawn = _kernels.bernoulli_tensor(gen, ordered).astype(arr.dtype)
        return _kernels.in_memory_order(arr, drawn)

    return _ip.inplace(self, lambda a, q: _BernoulliTensor.apply(a, q, draw), p, reads_self=False)


_RANDOM_SIGNATURES = (" * (*, torch.Generator generator = None)\n"
                      " * (int from, int to, *, torch.Generator generator = None)\n"
                      " * (int to, *, torch.Generator generator = None)\n")
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _random_int(v, got):
    """A bound of ``random_``: an int, or a one-element integer tensor."""
    if isinstance(v, Tensor) and v._data.size == 1 and v._data.dtype.kind in "iu":
        v = v.item()
    if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
        raise TypeError("random_() received an invalid combination of arguments - got "
                        f"({', '.join(got)}), but expected one of:\n" + _RANDOM_SIGNATURES)
    if not _INT64_MIN <= v <= _INT64_MAX:
        raise ValueError("Overflow when unpacking long long")
    return int(v)


def _update_from(low, digits):
    """PyTorch's ``update_from``: ``from`` moved up to a value the float dtype holds."""
    plus_1 = int(np.float64(low + 1).astype(_float_of(digits)))
    if plus_1 < low:
        n = abs(low + 1).bit_length() - 1
        low = plus_1 + (1 << (n - digits + 1))
    return low


def _update_to(high, digits):
    """PyTorch's ``update_to``: ``to`` moved down to a value the float dtype holds."""
    minus_1 = int(np.float64(high - 1).astype(_float_of(digits)))
    if minus_1 >= high:
        n = abs(high - 1).bit_length() - 1
        high = minus_1 - (1 << (n - digits + 1))
    return high


def _float_of(digits):
    return np.float32 if digits == 24 else np.float64


def _check_from_to_in_range(low, to_inc, dtype):
    """PyTorch's ``check_from_to_in_range``: errors for bounds the dtype cannot hold, warnings
    for a float dtype's bounds beyond its consecutive integers."""
    name = C_TYPE_NAMES[str(dtype)]
    if dtype.kind == "f":
        info = np.finfo(dtype)
        lo, hi, digits = float(info.min), float(info.max), info.nmant + 1
    else:
        info = np.iinfo(dtype) if dtype.kind != "b" else None
        lo, hi = (int(info.min), int(info.max)) if info else (0, 1)
    for v, what in ((low, "from"), (to_inc, "to - 1")):
        if not lo <= v <= hi:
            raise RuntimeError(f"{what} is out of bounds for {name}")
    if dtype.kind == "f":
        for v, what in ((low, "from"), (to_inc, "to - 1")):
            if not -(1 << digits) <= v <= 1 << digits:
                warnings.warn(f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to "
                              f"precision limitations {name} can support discrete uniform distribution only "
                              "within this range. This warning will become an error in version 1.7 "
                              "release, please fix the code in advance", UserWarning, stacklevel=4)


def random_(self, *args, generator=None, **kwargs):
    """Random integers in place: ``random_(from, to)``, ``random_(to)``, ``random_()``.

    ``[from, to)``: one 32-bit word a value, two for a range of 2²⁸ or more
    (RandomBackward0; ``random_(to)`` is ``[0, to)``, RandomBackward1);
    ``to=None``: up to the dtype's largest integer (2²⁴ for float32, 2⁵³ for
    float64); ``random_()``: ``[0, 2ᵈ]`` for a float of d digits, ``[0, max]`` for
    an integer dtype, the low bit for bool (RandomBackward2).  Any dtype.

    Raises:
        RuntimeError: "random_ expects 'from' to be less than 'to', but got from=0 >= to=0";
            "to - 1 is out of bounds for bool" (int, long int, float, double alike).
        TypeError: bounds that are not ints ("random_() received an invalid combination of
            arguments - got (float), ...").
        UserWarning: a float dtype's bound beyond ±2ᵈ (PyTorch's warning).
    """
    names = [type(v).__name__ for v in args]
    names += [f"{k}={type(v).__name__}" for k, v in kwargs.items()]
    if len(args) > 2 or set(kwargs) - {"from", "to"} or (len(args) == 2 and kwargs):
        raise TypeError("random_() received an invalid combination of arguments - got "
                        f"({', '.join(names)}), but expected one of:\n" + _RANDOM_SIGNATURES)
    bound = dict(zip(("from", "to") if len(args) == 2 else ("to",), args), **kwargs)
    gen = generator or default_generator
    arr = self._data
    if not bound:
        return _fill(self, _Random, lambda: None, _kernels.random_bits, gen)
    low = _random_int(bound.get("from", 0), names)
    high = bound.get("to")
    high = None if high is None else _random_int(high, names)
    node = _RandomFromTo if "from" in bound else _RandomTo
    dtype = arr.dtype
    digits = np.finfo(dtype).nmant + 1 if dtype.kind == "f" else None

    def check_range():
        nonlocal low, high
        if high is not None:
            if low >= high:
                raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                                   f"from={low} >= to={high}")
            if digits:
                low, high = _update_from(low, digits), _update_to(high, digits)
                if low >= high:
                    raise RuntimeError("random_ expects 'from' casted to dtype to be less than "
                                       f"'to' casted to dtype, but got from={low} >= to={high}")
            _check_from_to_in_range(low, high - 1, dtype)
            return low, high - low
        if low == _INT64_MIN:
            return None
        if digits:
            to_inc = min(1 << digits, _INT64_MAX)
            low = _update_from(low, digits)
            if not low < to_inc:
                raise RuntimeError("random_ expects 'from' casted to dtype to be less than or "
                                   f"equal to 'to_inc' casted to dtype, but got from={low} > "
                                   f"to_inc={to_inc}")
        else:
            to_inc = 1 if dtype.kind == "b" else int(np.iinfo(dtype).max)
        _check_from_to_in_range(low, to_inc, dtype)
        return low, to_inc - low + 1

    def kernel(g, n, np_dtype):
        span = check_range()
        if span is None:
            return _kernels.random_full_range(g, n, np_dtype)
        base, width = span
        return _kernels.random_from_to(g, n, base, base + width).astype(np_dtype)

    return _fill(self, node, lambda: None, kernel, gen)


METHODS = {"uniform_": uniform_, "normal_": normal_, "exponential_": exponential_,
           "bernoulli_": bernoulli_, "random_": random_}


# ---- torch.normal --------------------------------------------------------------------------

_NORMAL_SIGNATURES = (
    " * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, Tensor "
    "out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
    "bool pin_memory = False, bool requires_grad = False)\n")


def _is_number(v):
    return isinstance(v, (int, float, np.integer, np.floating))


class _NormalMean(Function):
    """``normal(mean, std)`` with a tensor mean and a number std (NormalBackward1)."""

    node_name = "NormalBackward1"

    @staticmethod
    def forward(ctx, mean, values):
        ctx.shape = mean._data.shape
        return Tensor._make(values)

    @staticmethod
    def backward(ctx, grad):
        return Tensor._make(np.zeros(ctx.shape, dtype=grad._data.dtype)), None


class _NormalStd(_NormalMean):
    """``normal(mean, std)`` with a number mean and a tensor std (NormalBackward2)."""

    node_name = "NormalBackward2"


class _NormalBoth(Function):
    """``normal(mean, std)`` with two tensors (NormalBackward3): zero gradients for both."""

    node_name = "NormalBackward3"

    @staticmethod
    def forward(ctx, mean, std, values):
        ctx.metas = [(t._data.shape, t._data.dtype) for t in (mean, std)]
        return Tensor._make(values)

    @staticmethod
    def backward(ctx, grad):
        return tuple(Tensor._make(np.zeros(*m)) if need else None
                     for m, need in zip(ctx.metas, ctx.needs_input_grad)) + (None,)


def _check_std_tensor(std):
    if std._data.size and not std._data.min() >= 0:  # a nan minimum fails too, as in PyTorch
        raise RuntimeError("normal expects all elements of std >= 0.0")


def _standard(gen, shape, np_dtype, std=1.0):
    """``normal_(0, std)`` into a new contiguous array of ``shape``."""
    return _kernels.normal(gen, math.prod(shape), np_dtype, 0.0, std).reshape(shape)


def normal(mean, std=None, size=None, *, generator=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False):
    """Normal samples (``torch.normal``), PyTorch's for a seed, in its four forms.

    * ``normal(mean: Tensor, std: Tensor)``: the broadcast shape, ``mean``'s dtype;
      ``z · std + mean`` (``output.mul_(std).add_(mean)``); NormalBackward3.
    * ``normal(mean: Tensor, std=1.0)``: ``mean``'s shape and dtype, ``normal_(0, std)``
      then ``+ mean``; NormalBackward1.
    * ``normal(mean: float, std: Tensor)``: ``std``'s shape and dtype; NormalBackward2.
    * ``normal(mean: float, std: float, size)``: ``empty(size).normal_(mean, std)``,
      float32 unless ``dtype`` says otherwise.

    Each node's gradient is zero.  ``out=`` is not supported.

    Raises:
        TypeError: "normal() received an invalid combination of arguments - got (float,
            float), ..." for any other combination.
        RuntimeError: "normal expects std >= 0.0, but found std -1"; "normal expects all
            elements of std >= 0.0"; broadcasting's "The size of tensor a (2) must match ...".
        NotImplementedError: '"normal_kernel_cpu" not implemented for 'Long'' for an integer
            result.
    """
    gen = generator or default_generator
    m_t, s_t = isinstance(mean, Tensor), isinstance(std, Tensor)
    if m_t and (s_t or std is None or _is_number(std)) and size is None:
        out_dtype = mean._data.dtype
        if s_t:
            _check_std_tensor(std)
            shape = broadcast_shape(mean, std)
            _float_kernel_check(mean._data, "normal_kernel_cpu")
            # output.mul_(std): in the promoted dtype (float64 for a float64 std), then rounded
            values = (_standard(gen, shape, out_dtype) * std._data).astype(out_dtype)
            values += mean._data
            return _NormalBoth.apply(mean, std, values)
        s = 1.0 if std is None else float(std)
        if not s >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_c(s)}")
        _float_kernel_check(mean._data, "normal_kernel_cpu")
        values = _standard(gen, mean._data.shape, out_dtype, s)
        values += mean._data
        return _NormalMean.apply(mean, values)
    if _is_number(mean) and s_t and size is None:
        out_dtype = std._data.dtype
        _check_std_tensor(std)
        _float_kernel_check(std._data, "normal_kernel_cpu")
        values = _standard(gen, std._data.shape, out_dtype)
        values *= std._data
        values += out_dtype.type(mean)  # PyTorch's full({}, mean) in the result's dtype
        return _NormalStd.apply(std, values)
    if _is_number(mean) and _is_number(std) and isinstance(size, (tuple, list)):
        _check_device(device)
        s = float(std)
        if not s >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_c(s)}")
        d = _float_dtype(dtype)
        _float_kernel_check(np.empty(0, dtype=d.np), "normal_kernel_cpu")
        shape = _shape_arg(tuple(size))
        values = _kernels.normal(gen, math.prod(shape), d.np, float(mean), s)
        return _leaf(values.reshape(shape), requires_grad)
    given = [mean] + [v for v in (std, size) if v is not None]
    names = ["Tensor" if isinstance(v, Tensor) else type(v).__name__ for v in given]
    raise TypeError("normal() received an invalid combination of arguments - got "
                    f"({', '.join(names)}), but expected one of:\n" + _NORMAL_SIGNATURES)
