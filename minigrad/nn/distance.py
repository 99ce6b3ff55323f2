"""Lengths and angles of vectors: ``F.normalize`` and ``F.cosine_similarity``.

Both are composed of recorded ops, exactly as PyTorch composes them, so their
graphs are PyTorch's:

* ``normalize(x, p, dim, eps)`` is ``x / x.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(x)``:
  DivBackward0 ← ExpandBackward0 ← ClampMinBackward0 ← LinalgVectorNormBackward0;
* ``cosine_similarity(x1, x2, dim, eps)`` divides each vector by its 2-norm
  first and then sums the product (stable for large values):
  ``((x1 / n1) * (x2 / n2)).sum(dim)`` with ``n = ‖x‖.clone()`` clamped at
  ``eps`` *in place under no_grad*, so the clamp is invisible to the
  gradient (SumBackward1 ← MulBackward0 ← DivBackward0 ← CloneBackward0 ←
  LinalgVectorNormBackward0).

Source: torch/nn/functional.py (``normalize``); ATen's Distance.cpp
(``cosine_similarity``).
"""

from .._dtype import SCALAR_TYPE_NAMES
from ..autograd.grad_mode import no_grad
from ..tensor import Tensor

__all__ = ["cosine_similarity", "normalize"]


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input`` divided by its ``p``-norm along ``dim`` (``F.normalize``), the norm clamped at ``eps``.

    Args:
        input (Tensor): any shape, floating.
        p (float): the norm's order (default 2; ``float('inf')`` for the max-norm).
        dim (int | tuple[int, ...]): the dim(s) holding each vector (default 1).
        eps (float): smallest norm divided by (default 1e-12), so zero vectors stay zero.

    Returns:
        Tensor of ``input``'s shape (DivBackward0).

    Raises:
        NotImplementedError: for ``out`` (not supported here).
    """
    if out is not None:
        raise NotImplementedError("minigrad: F.normalize(out=...) is not supported")
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """The cosine of the angle between ``x1`` and ``x2`` along ``dim`` (``F.cosine_similarity``).

    Args:
        x1, x2 (Tensor): broadcastable shapes, floating.
        dim (int): the dim holding the vectors (default 1).
        eps (float): each norm is at least ``eps`` (default 1e-8).

    Returns:
        Tensor: the broadcast shape without ``dim``, in [-1, 1].

    Raises:
        RuntimeError: "expected common dtype to be floating point, yet common
            dtype is Long" for integer inputs.
    """
    from ..ops._util import binary_dtype, broadcast_shape

    if not isinstance(x1, Tensor) or not isinstance(x2, Tensor):
        raise TypeError("cosine_similarity(): argument 'x1' and 'x2' must be Tensor")
    dt = binary_dtype(x1, x2)
    if dt.kind != "f":
        raise RuntimeError("expected common dtype to be floating point, yet common dtype is "
                           + SCALAR_TYPE_NAMES[dt.name])
    if x1.shape != x2.shape:  # expand_outplace: both expanded
        shape = broadcast_shape(x1, x2)
        x1, x2 = x1.expand(*shape), x2.expand(*shape)
    n1 = x1.norm(2, dim, keepdim=True).clone()
    n2 = x2.norm(2, dim, keepdim=True).clone()
    with no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)
