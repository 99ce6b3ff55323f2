"""How PyTorch's CPU kernels turn mt19937's 32-bit words into numbers, on numpy arrays.

Each function takes a ``minigrad.Generator`` (``random.py``) and draws its
words with ``generator._words(n)`` (n 32-bit outputs, in order; ``_words32``
and ``_random64`` draw the same words faster), so the same seed gives
PyTorch's numbers:

* ``uniform``: float32 takes one word, ``(w & (2²⁴-1)) · 2⁻²⁴``; float64 one
  ``random64()`` (two words, the first the high half), ``(r & (2⁵³-1)) · 2⁻⁵³``
  (``uniform_real`` in aten/src/ATen/core/TransformationHelper.h).
* ``normal``: 16 or more values: all the uniforms first, then Box–Muller over
  blocks of 16 (``u1 = 1 - d[j]``, ``u2 = d[j + 8]``, j < 8), and for a size
  that is not a multiple of 16 the last 16 redrawn and transformed again
  (``normal_fill`` in aten/src/ATen/native/cpu/DistributionTemplates.h).  For
  float32 that is ``normal_fill_16_AVX2``: Cephes' log and sincos in float32
  (aten/src/ATen/native/cpu/avx_mathfun.h), compiled with fused multiply-adds
  (``_fma``); PyTorch never dispatches ``normal_`` to AVX512, so this is what
  any AVX2 machine computes.  Fewer than 16 values: one double Box–Muller per
  value from two 53-bit uniforms, ``r = √(-2 log1p(-u2))``, ``θ = 2π u1``,
  ``r cos θ`` returned and ``r sin θ`` kept in the generator for the next
  value (``normal_distribution`` in aten/src/ATen/core/DistributionsHelper.h).
* ``random_from_to``: ``w % range + base``, one word a value, or one
  ``random64()`` when the range is 2²⁸ or more (``uniform_int_from_to_distribution``
  in DistributionsHelper.h: PyTorch's wheels take the ``#else`` branch, 2²⁸, to
  keep the skew of ``%`` small; the 2³² one is Meta's internal build's).
* ``random_bits``: ``random_()`` without bounds, one word a value (two for
  float64 and int64), ``% (2ᵈ + 1)`` for a float of d mantissa digits, ``% 2³¹``
  or ``% 2⁶³`` for int32/int64, the low bit for bool (``uniform_int`` in
  aten/src/ATen/core/TransformationHelper.h); ``random_full_range``:
  ``random_(-2⁶³, None)``, ``random64()`` read as int64.
* ``randperm``: Fisher–Yates, swapping ``i`` with ``i + random() % (n - i)``
  (``randperm_cpu`` in aten/src/ATen/native/TensorFactories.cpp).
* ``uniform_between``, and ``normal`` with a mean and std: ``uniform_(a, b)``
  is ``u · (b - a) + a`` and ``normal_(m, s)`` is ``z · s + m``, each one fused
  multiply-add in the tensor's dtype (PyTorch's CPU kernels are compiled
  with FMA: a plain multiply then add differs in about half the values).
* ``exponential``: ``-1/λ · log1p(-u)`` from one 53-bit uniform, in double
  (``exponential_distribution<double>``, DistributionsHelper.h).
* ``bernoulli_scalar`` and ``bernoulli_tensor``: ``u < p``, with a 53-bit
  uniform for a scalar or float64 ``p``, a 24-bit one for float32 ``p``
  (``bernoulli_kernel`` in cpu/DistributionTemplates.h).  On Intel CPUs
  PyTorch's MKL build draws a scalar ``p`` with MKL's own generator instead
  (``bernoulli_scalar_kernel`` in cpu/DistributionKernels.cpp), which
  minigrad does not copy (README, "Differences by design").
* ``multinomial``: with replacement, one 53-bit uniform a sample, searched
  in the row's normalised cumulative sums; without (or for one sample),
  ``argmax``/``topk`` of ``p / q`` with ``q`` from ``exponential`` (``multinomial_out`` in
  native/Distributions.cpp, ``multinomial_with_replacement_apply`` in
  cpu/MultinomialKernel.cpp).

This module imports nothing of minigrad (layer 0).
"""

import math

import numpy as np

__all__ = ["bernoulli_scalar", "bernoulli_tensor", "exponential", "in_memory_order", "memory_axes",
           "multinomial", "normal", "random_bits", "random_from_to", "random_full_range",
           "randperm", "uniform", "uniform_between"]

_F32 = np.float32
_CHUNK = 1 << 16  # values drawn and transformed at once: their arrays stay in the cache


def _random64(generator, n):
    """``n`` of PyTorch's ``random64()``: two words each, the first the high half (uint64)."""
    return generator._random64(n)


def uniform(generator, n, np_dtype, out=None):
    """``n`` uniforms in [0, 1) as ``torch.rand`` draws them: float32 or float64 (a 1-d array).

    ``out``: an array of ``n`` values of ``np_dtype`` to write them into (else a new one).
    """
    if out is None:
        out = np.empty(n, np_dtype)
    if np_dtype == np.float32:
        w = generator._words32(n).view(np.int32)  # < 2²⁴ once masked: int32 converts fastest
        w &= (1 << 24) - 1
        out[...] = w
        out *= _F32(2.0 ** -24)  # exact: a 24-bit integer times a power of two
        return out
    for start in range(0, n, _CHUNK):  # a chunk at a time, for speed: its words stay in the cache
        r = _random64(generator, min(_CHUNK, n - start)).view(np.int64)  # < 2⁵³ once masked
        r &= (1 << 53) - 1
        part = out[start:start + _CHUNK]
        part[...] = r
        part *= 2.0 ** -53  # exact: a 53-bit integer times a power of two
    return out


def normal(generator, n, np_dtype, mean=0.0, std=1.0, serial=False):
    """``n`` normals as ``torch.randn`` / ``normal_(mean, std)`` draw them (1-d, ``np_dtype``).

    ``serial``: one double Box–Muller value at a time, as PyTorch draws fewer
    than 16 values or into a tensor that is not contiguous.
    """
    if n < 16 or serial:
        z = np.array([_one_normal(generator) for _ in range(n)], dtype=np.float64)
        return _scale(z, np.float64(std), np.float64(mean)).astype(np_dtype)
    fill = _fill16_float32 if np_dtype == np.float32 else _fill16_float64
    data = np.empty(n, np_dtype)
    # all the uniforms, then Box–Muller, as PyTorch, but a chunk (a multiple of 16) at a time
    # for speed: Box–Muller reads a chunk's uniforms while they are still in the cache
    for start in range(0, n, _CHUNK):
        chunk = uniform(generator, min(_CHUNK, n - start), np_dtype, data[start:start + _CHUNK])
        fill(chunk[:chunk.size - chunk.size % 16])
    if n % 16:  # PyTorch redraws the last 16 (overlapping the blocks done) rather than pad
        data[n - 16:] = fill(uniform(generator, 16, np_dtype))
    kind = np.dtype(np_dtype).type
    return _scale(data, kind(std), kind(mean))


def _scale(z, std, mean):
    """``fma(z, std, mean)`` in z's dtype; skipped for (1, 0), where it changes nothing."""
    if std == 1 and mean == 0:
        return z
    return fma(z, std, mean)


def _one_normal(generator):
    """One double normal, using and refilling the generator's cached second value."""
    cached = generator._next_double
    if cached is not None:
        generator._next_double = None
        return cached
    u1, u2 = (float(v) for v in uniform(generator, 2, np.float64))
    r = math.sqrt(-2.0 * math.log1p(-u2))
    theta = 2.0 * math.pi * u1
    generator._next_double = r * math.sin(theta)
    return r * math.cos(theta)


def _fill16_float64(d):
    """``normal_fill_16`` in double: rows of 16 uniforms become 16 normals, in place."""
    d = d.reshape(-1, 2, 8)  # a row: 8 u1, then 8 u2
    radius = np.subtract(1.0, d[:, 0])  # contiguous: log, cos and sin run faster on it
    np.log(radius, out=radius)
    radius *= -2.0
    np.sqrt(radius, out=radius)
    theta = d[:, 1] * (2.0 * math.pi)
    np.multiply(radius, np.cos(theta), out=d[:, 0])
    np.multiply(radius, np.sin(theta, out=theta), out=d[:, 1])
    return d.ravel()


# ---- float32: normal_fill_16_AVX2 with avx_mathfun.h's log256_ps and sincos256_ps --------
# Written for speed as much as for reading: each line is one pass over contiguous float32
# or int32 arrays (numpy's where/select are slow, so signs and choices are bit operations,
# as in the C); see the C file for the plain form.

def _fma(a, b, c, scratch, out):
    """``out = a * b + c`` in float32, rounded once, as the compiler's fused multiply-add.

    The product of two float32 values is exact in float64, so only the sum is
    rounded twice (to float64, then float32); that differs from one rounding
    only when the float64 sum lands exactly halfway between two float32 values.
    ``c``: a scalar or a float64 array; ``scratch``: a float64 array of ``out``'s size.
    """
    scratch[...] = a  # the casts as plain copies, in float64 between them: faster than in the ufuncs
    scratch *= b
    scratch += c
    out[...] = scratch
    return out


_LOG_P = [_F32(v) for v in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1,
                            1.4249322787E-1, -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1,
                            3.3333331174E-1)]
_LOG_Q1, _LOG_Q2 = _F32(-2.12194440e-4), _F32(0.693359375)
_SQRTHF = _F32(0.707106781186547524)
_HALF_BITS = np.float32(0.5).view(np.int32)


def _minus_two_log(u, scratch):
    """``-2 · log256_ps(u)``: Cephes' float32 log, for u in (0, 1] (normal numbers only)."""
    bits = u.view(np.int32)
    m = ((bits & ~0x7f800000) | _HALF_BITS).view(_F32)  # the mantissa, in [0.5, 1)
    small = m < _SQRTHF
    e = ((bits >> 23) - 126).astype(_F32)  # the exponent, + 1
    e -= small
    x = m * (small + _F32(1))  # below √½: e - 1 and 2m - 1, else m - 1 (both exact)
    x -= _F32(1)
    z = x * x
    y = np.empty_like(x)
    _fma(x, _LOG_P[0], _LOG_P[1], scratch, y)
    for p in _LOG_P[2:]:
        _fma(y, x, p, scratch, y)
    y *= x
    _fma(y, z, (e * _LOG_Q1).astype(np.float64), scratch, y)  # the compiler fuses the first product
    z *= _F32(0.5)
    y -= z  # a fused z·0.5 is exact: a plain subtraction
    y += x
    e *= _LOG_Q2  # exact: a small integer times 355/512
    y += e
    y *= _F32(-2)
    return y


_DP = (_F32(-0.78515625), _F32(-2.4187564849853515625e-4), _F32(-3.77489497744594108e-8))
_SIN_P = (_F32(-1.9515295891E-4), _F32(8.3321608736E-3), _F32(-1.6666654611E-1))
_COS_P = (_F32(2.443315711809948E-005), _F32(-1.388731625493765E-003), _F32(4.166664568298827E-002))
_FOPI = _F32(1.27323954473516)  # 4 / π


def _sincos(x, scratch):
    """``sincos256_ps`` for x >= 0: Cephes' float32 (sine, cosine); ``x`` is overwritten."""
    j = (x * _FOPI).astype(np.int32)
    j += 1
    j &= ~1  # the octant, rounded up to even
    y = j.astype(_F32)
    x += y * _DP[0]  # x - j·π/4 in three parts; the first two products are exact
    x += y * _DP[1]
    _fma(y, _DP[2], x.astype(np.float64), scratch, x)
    z = x * x
    yc = np.empty_like(x)
    _fma(z, _COS_P[0], _COS_P[1], scratch, yc)
    _fma(yc, z, _COS_P[2], scratch, yc)
    yc *= z
    _fma(yc, z, -(z * _F32(0.5)).astype(np.float64), scratch, yc)
    yc += _F32(1)
    ys = np.empty_like(x)
    _fma(z, _SIN_P[0], _SIN_P[1], scratch, ys)
    _fma(ys, z, _SIN_P[2], scratch, ys)
    ys *= z
    _fma(ys, x, x.astype(np.float64), scratch, ys)
    ys_b, yc_b = ys.view(np.int32), yc.view(np.int32)
    sine_poly = j & 2  # all ones where the sine polynomial gives the sine
    sine_poly -= 1
    sine_poly >>= 31
    swap = ys_b ^ yc_b
    swap &= sine_poly
    s, c = yc_b ^ swap, ys_b ^ swap
    sign = j & 4
    sign <<= 29  # the sign bit, as the C's shift
    s ^= sign
    j -= 2
    np.invert(j, out=j)
    j &= 4
    j <<= 29
    c ^= j
    return s.view(_F32), c.view(_F32)


_TWO_PI = _F32(2.0 * math.pi)


def _fill16_float32(d):
    """``normal_fill_16_AVX2`` (mean 0, std 1): rows of 16 uniforms become 16 normals."""
    d = d.reshape(-1, 2, 8)  # a row: 8 u1, then 8 u2
    u1 = np.subtract(_F32(1), d[:, 0]).ravel()  # contiguous, as the passes below want
    scratch = np.empty(u1.size, dtype=np.float64)
    radius = np.sqrt(_minus_two_log(u1, scratch)).reshape(-1, 8)
    s, c = _sincos(np.multiply(d[:, 1], _TWO_PI).ravel(), scratch)
    np.multiply(c.reshape(-1, 8), radius, out=d[:, 0])
    np.multiply(s.reshape(-1, 8), radius, out=d[:, 1])
    return d.ravel()


# ---- fused multiply-add, and the draws built on it --------------------------------------

def _round_to_odd(s, err):
    """``s`` with its last bit set where ``err`` (what rounding ``s`` lost) is not 0.

    Rounding to odd keeps the sticky information of the bits dropped, so a
    second rounding to fewer bits (float32, or ``s_hi + this``) is the one
    rounding of the exact value (Boldo and Melquiond 2008).
    """
    inexact = err != 0
    bits = s.view(np.int64)
    even = (bits & 1) == 0
    # toward the exact value: up in magnitude if err has s's sign, else down
    step = np.where(np.signbit(err) == np.signbit(s), 1, -1)
    return np.where(inexact & even, (bits + step).view(np.float64), s)


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's split of a double into two 26-bit halves


def _two_product(a, b):
    p = a * b
    ca, cb = _SPLIT * a, _SPLIT * b
    ah, bh = ca - (ca - a), cb - (cb - b)
    al, bl = a - ah, b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def fma(a, b, c):
    """``a * b + c`` rounded once, in ``a``'s dtype (float32 or float64), as the C's ``fmadd``.

    float32: the product is exact in double; where the double sum lies
    exactly halfway between two floats it is rounded to odd, then all to float32.  float64: Dekker's exact product and Knuth's exact sum,
    the low parts added rounded to odd, then added to the high part.
    ``b``, ``c``: scalars of ``a``'s dtype or arrays of its shape.
    """
    if a.dtype == np.float32:
        s = a.astype(np.float64)
        s *= np.float64(b)
        s += c
        # rounding to float32 can go wrong only from a double exactly halfway between two
        # floats (low 29 bits 1000...0): only those few need the exact sum's lost part
        halfway = np.flatnonzero((s.view(np.int64) & 0x1FFFFFFF) == 0x10000000)
        if halfway.size:
            p = a[halfway].astype(np.float64) * np.float64(b)
            cc = np.broadcast_to(np.asarray(c, dtype=np.float64), a.shape)[halfway]
            s[halfway] = _round_to_odd(*_two_sum(p, cc))
        return s.astype(_F32)
    p, e = _two_product(a, np.float64(b))
    s, t = _two_sum(p, np.float64(c))
    low, err = _two_sum(t, e)
    return s + _round_to_odd(np.asarray(low, dtype=np.float64), err)


def uniform_between(generator, n, np_dtype, low, high):
    """``n`` values of ``uniform_(low, high)``: ``fma(u, high - low, low)`` in ``np_dtype``."""
    u = uniform(generator, n, np_dtype)
    kind = np.dtype(np_dtype).type
    lo, hi = kind(low), kind(high)  # PyTorch casts the bounds to the dtype first
    if lo == 0 and hi == 1:
        return u
    return fma(u, hi - lo, lo)


def _uniform53(generator, n):
    """``n`` double uniforms in [0, 1) from ``random64()`` (what ``uniform`` float64 draws)."""
    return uniform(generator, n, np.float64)


def exponential(generator, n, np_dtype, lambd=1.0):
    """``n`` values of ``exponential_(lambd)``: ``-1/λ · log1p(-u)`` in double, then ``np_dtype``.

    numpy's log1p differs from the C library's in the last bit of about 7% of
    doubles; rounded to float32 the values agree.
    """
    out = np.log1p(-_uniform53(generator, n))
    out *= -1.0 / lambd
    return out.astype(np_dtype, copy=False)


def bernoulli_scalar(generator, n, p):
    """``n`` draws of ``bernoulli_(p)`` for a number ``p``: ``u < p``, u a double uniform (bool)."""
    return _uniform53(generator, n) < p


def bernoulli_tensor(generator, p):
    """``bernoulli`` with a probability per element (the flat array ``p``): ``u < p`` (bool).

    A float64 ``p`` is compared with double uniforms, a float32 one with float uniforms.
    """
    if p.dtype == np.float64:
        return _uniform53(generator, p.size) < p
    return uniform(generator, p.size, _F32) < p


def multinomial(generator, rows, num_samples, replacement):
    """Indices drawn from each row of ``rows`` (2-d, float32 or float64): an int64 array.

    With replacement: per row, the cumulative sums in the row's dtype divided
    by their total, the last set to 1, and for each sample the first category
    whose cumulative value is not below a double uniform.  Without, and for
    one sample either way: all the exponentials first (one per element, row by
    row), then per row the ``num_samples`` largest ``p / q`` (ties in another
    order than PyTorch's ``topk``, which is not stable: README).
    """
    if replacement and num_samples > 1:
        out = np.empty((rows.shape[0], num_samples), dtype=np.int64)
        for r, row in enumerate(rows):  # each row draws after the one before: a loop over rows
            cum = np.cumsum(row)  # sequential, in the row's dtype, as the C loop
            cum /= cum[-1]
            cum[-1] = 1
            out[r] = np.searchsorted(cum.astype(np.float64), _uniform53(generator, num_samples))
        return out
    q = exponential(generator, rows.size, rows.dtype).reshape(rows.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        keys = rows / q
    if num_samples == 1:
        return np.argmax(keys, axis=1, keepdims=True)
    return np.argsort(-keys, axis=1, kind="stable")[:, :num_samples]


# ---- integers ---------------------------------------------------------------------------

def random_from_to(generator, n, low, high):
    """``n`` integers in [low, high) as ``random_(from, to)`` draws them (int64 array)."""
    span = high - low
    r = _random64(generator, n) if span >= 1 << 28 else generator._words(n)
    r %= np.uint64(span)
    # int64 wrap-around as PyTorch's static_cast: low + r may pass 2⁶³ only in the arithmetic
    return (r + np.uint64(low % (1 << 64))).view(np.int64)


def random_bits(generator, n, np_dtype):
    """``n`` values of ``random_()`` in ``np_dtype`` (any of minigrad's five dtypes)."""
    kind = np.dtype(np_dtype)
    wide = kind in (np.float64, np.int64)
    r = _random64(generator, n) if wide else generator._words(n)
    if kind == np.bool_:
        return (r & np.uint64(1)).astype(np.bool_)
    if kind.kind == "f":
        r %= np.uint64((1 << np.finfo(kind).nmant + 1) + 1)  # [0, 2^digits]: every integer exact
    else:
        r %= np.uint64(np.iinfo(kind).max + 1)
    return r.astype(kind)


def random_full_range(generator, n, np_dtype):
    """``n`` values of ``random_(-2⁶³, None)``: ``random64()`` as an int64, then ``np_dtype``."""
    return _random64(generator, n).view(np.int64).astype(np_dtype)


def memory_axes(arr):
    """``arr``'s dims from the outermost in memory to the innermost (ties: in order)."""
    if arr.flags.c_contiguous:
        return tuple(range(arr.ndim))
    return tuple(sorted(range(arr.ndim), key=lambda d: -abs(arr.strides[d])))


def in_memory_order(arr, values):
    """``values`` (flat, drawn in ``arr``'s memory order) laid out in ``arr``'s shape.

    PyTorch fills a tensor through a TensorIterator, which walks its memory
    in order: a contiguous tensor row by row, a transposed view down its columns.
    """
    if arr.flags.c_contiguous:
        return values.reshape(arr.shape)
    order = memory_axes(arr)
    out = np.empty(arr.shape, dtype=values.dtype)
    out.transpose(order)[...] = values.reshape([arr.shape[d] for d in order])
    return out


def randperm(generator, n):
    """A permutation of 0 .. n-1 as ``randperm_cpu`` shuffles it (int64 array)."""
    if n < 2:
        return np.arange(n, dtype=np.int64)
    picks = (generator._words(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)).tolist()
    perm = list(range(n))
    for i, z in enumerate(picks):  # each swap depends on the ones before: a loop
        k = i + z
        perm[i], perm[k] = perm[k], perm[i]
    return np.array(perm, dtype=np.int64)
