"""``minigrad.linalg``: the vector norm (``torch.linalg.vector_norm``, ``torch.linalg.norm``).

The products themselves (``matmul``, ``mm``, ...) are in ``ops/linalg.py``.
"""

from .ops.statistics import vector_norm

__all__ = ["norm", "vector_norm"]


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """``torch.linalg.norm`` of a vector (or of all elements): ``vector_norm`` with ord 2 by default.

    Raises:
        RuntimeError: for matrix norms (a 2-d ``dim`` with a matrix ``ord``),
            which minigrad does not have.
    """
    if isinstance(ord, str) and ord != "fro":
        raise RuntimeError(f"minigrad: linalg.norm(ord={ord!r}) is not supported")
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
