"""How PyTorch's CPU kernels compute a power: the exponents that become other operations.

``x ** 0.5`` is not ``np.power(x, 0.5)`` in PyTorch: its kernel sends some
exponents to cheaper exact operations, which round (and treat -0.0 and
infinities) differently; integer powers with negative exponents, which numpy
refuses, truncate.  The pow primitives (``ops/elementwise.py``) and their
gradient formulas compute through these.

Source: ``pow_tensor_scalar_kernel`` and ``pow_tensor_scalar_optimized_kernel``
(aten/src/ATen/native/cpu/PowKernel.cpp).
"""

import numpy as np

__all__ = ["int_power", "pow_scalar_array"]


def pow_scalar_array(data, exponent):
    """``data ** exponent`` for a number ``exponent``, computed as PyTorch's CPU kernel does.

    For a floating array PyTorch turns some exponents into other operations
    (``pow_tensor_scalar_kernel``, aten/src/ATen/native/cpu/PowKernel.cpp):
    0.5 is ``sqrt`` and -0.5 ``1 / sqrt`` (so ``(-0.0) ** -0.5`` is -inf, where
    ``np.power`` gives +inf), -1 a reciprocal, and 2, 3 and -2 the products
    ``x*x``, ``x*x*x`` and ``1 / (x*x)``, which round differently from
    ``np.power`` in the last bit of about a quarter of float32 values.  Any
    other exponent, or an integer array: ``np.power``.
    """
    if data.dtype.kind == "f" and type(exponent) is not bool:
        if exponent == 0.5:
            return np.sqrt(data)
        if exponent == -0.5:
            return np.reciprocal(np.sqrt(data))
        if exponent == -1:
            return np.reciprocal(data)
        if exponent == 2:
            return np.multiply(data, data)
        if exponent == 3:
            return np.multiply(np.multiply(data, data), data)
        if exponent == -2:
            return np.reciprocal(np.multiply(data, data))
    return np.power(data, exponent)


def int_power(A, B):
    """Integer powers with negative exponents, as PyTorch computes them (numpy refuses).

    A negative power of an integer truncates to 0, except for a base of 1
    (always 1) and of -1 (±1 by the exponent's parity).
    """
    A, B = np.broadcast_arrays(A, B)
    pos = np.power(A, np.maximum(B, 0))
    neg = np.where(A == 1, 1, np.where(A == -1, np.where(B % 2 == 0, 1, -1), 0))
    return np.where(B >= 0, pos, neg).astype(A.dtype)
