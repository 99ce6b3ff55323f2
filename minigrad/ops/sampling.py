"""Drawing indices at random: ``multinomial`` (``torch.multinomial``).

A language model's sampling loop (``torch.multinomial(probs, num_samples=1,
generator=g)``) draws the next token's index from a row of probabilities.
The draws come from minigrad's generator (PyTorch's mt19937 words, but turned
into choices by numpy's samplers), so they are other numbers than PyTorch's
for the same seed; what is drawn from, the shapes, the dtype and the errors
are PyTorch's.

Source: ``torch.multinomial`` (aten/src/ATen/native/Distributions.cpp).
"""

import numpy as np

from .._dtype import SCALAR_TYPE_NAMES
from ..creation import _gen
from ..tensor import Tensor

__all__ = ["multinomial"]


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """``num_samples`` indices per row of ``input``, drawn in proportion to its weights.

    Args:
        input (Tensor): 1-d or 2-d, float, non-negative weights (need not sum to 1).
        num_samples (int): draws per row; without ``replacement`` at most the row's length
            (categories of weight 0 come last, once the others are drawn).
        replacement (bool): draw with replacement.
        generator (Generator | None): the generator to draw from.

    Returns:
        Tensor: int64, ``(num_samples,)`` or ``(rows, num_samples)``.

    Raises:
        RuntimeError: PyTorch's messages for a non-float input, one of more than 2 dims,
            ``num_samples <= 0``, too many samples without replacement, a negative, inf or
            nan weight, a row whose weights sum to 0.
    """
    w = input._data
    if w.dtype.kind != "f":
        raise RuntimeError("multinomial only supports floating-point dtypes for input, got: "
                           + SCALAR_TYPE_NAMES[str(w.dtype)])
    if w.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > w.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    rows = np.atleast_2d(w).astype(np.float64)
    totals = rows.sum(axis=1)
    if np.any(totals <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rng = _gen(generator)
    out = np.empty((rows.shape[0], num_samples), dtype=np.int64)
    for r, (row, total) in enumerate(zip(rows, totals)):
        if replacement:
            out[r] = rng.choice(row.size, size=num_samples, p=row / total)
        else:  # a race of exponential clocks (Efraimidis and Spirakis 2006): weight 0 never wins
            with np.errstate(divide="ignore"):
                keys = np.log(rng.random(row.size)) / row
            out[r] = np.argsort(-keys, kind="stable")[:num_samples]
    return Tensor._make(out if w.ndim == 2 else out[0])
