"""Linear algebra: matrix products, each with its two vector-Jacobian products.

For C = A @ B with A (n, k) and B (k, m): Ā = C̄ Bᵀ and B̄ = Aᵀ C̄.

Source: PyTorch's derivatives.yaml (``mm``).
"""

import numpy as np

from ..autograd.function import Function
from ..tensor import Tensor

__all__ = ["Mm", "mm", "matmul"]

_make = Tensor._make


def _dtype_name(d):
    return {"float32": "float", "float64": "double", "int64": "long int", "bool": "bool"}[d.name]


class Mm(Function):
    """2-d matrix product (MmBackward0); saves each operand if the other needs a gradient."""

    node_name = "MmBackward0"
    saved_names = ("self", "mat2")
    saved_attrs = ("self_sym_sizes", "self_sym_strides", "mat2_sym_sizes", "mat2_sym_strides")

    @staticmethod
    def forward(ctx, a, b):
        A, B = a._data, b._data
        if A.ndim != 2:
            raise RuntimeError(f"self must be a matrix")
        if B.ndim != 2:
            raise RuntimeError(f"mat2 must be a matrix")
        if A.shape[1] != B.shape[0]:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({A.shape[0]}x{A.shape[1]} and "
                f"{B.shape[0]}x{B.shape[1]})"
            )
        if A.dtype != B.dtype:
            raise RuntimeError(
                f"expected m1 and m2 to have the same dtype, but got: {_dtype_name(a.dtype)} != "
                f"{_dtype_name(b.dtype)}"
            )
        need = ctx.needs_input_grad
        ctx.save_for_backward(a if need[1] else None, b if need[0] else None)
        ctx.self_sym_sizes, ctx.mat2_sym_sizes = A.shape, B.shape
        ctx.self_sym_strides = tuple(s // A.itemsize for s in A.strides)
        ctx.mat2_sym_strides = tuple(s // B.itemsize for s in B.strides)
        return _make(A @ B)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need = ctx.needs_input_grad
        ga = grad.mm(b.t()) if need[0] else None
        gb = a.t().mm(grad) if need[1] else None
        return ga, gb


def mm(input, mat2):
    """Matrix product of two 2-d tensors (``torch.mm``).

    Args:
        input (Tensor): (n, k).
        mat2 (Tensor): (k, m), same dtype.

    Returns:
        Tensor (n, m).

    Raises:
        RuntimeError: PyTorch's "mat1 and mat2 shapes cannot be multiplied
            (2x3 and 4x5)", or "self must be a matrix" for a non-2-d operand.
    """
    return Mm.apply(input, mat2)


def matmul(input, other):
    """``input @ other`` (``torch.matmul``); 2-d operands here, more in a later issue.

    Raises:
        TypeError: if ``other`` is not a Tensor.
        RuntimeError: for shapes that cannot be multiplied.
    """
    if not isinstance(other, Tensor):
        raise TypeError(f"matmul(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    return Mm.apply(input, other)
