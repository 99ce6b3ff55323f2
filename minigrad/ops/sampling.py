"""Drawing at random from given probabilities: ``multinomial`` and ``bernoulli``.

A language model's sampling loop (``torch.multinomial(probs, num_samples=1,
generator=g)``) draws the next token's index from a row of probabilities;
``bernoulli`` draws 0 or 1 per element.  Both draw from minigrad's generator
as PyTorch's CPU kernels do (``_random_kernels.py``), so the same seed gives
PyTorch's numbers; the shapes, dtypes and errors are PyTorch's too.

Source: ``multinomial_out`` (aten/src/ATen/native/Distributions.cpp),
``multinomial_with_replacement_apply`` (native/cpu/MultinomialKernel.cpp),
``bernoulli`` / ``bernoulli_`` (native/Distributions.cpp,
native/cpu/DistributionTemplates.h).
"""

import numpy as np

from .. import _random_kernels as _kernels
from .._dtype import SCALAR_TYPE_NAMES
from ..autograd.function import Function
from ..random import default_generator
from ..tensor import Tensor

__all__ = ["bernoulli", "check_probabilities", "multinomial"]

_FLOAT32_MAX_CONSECUTIVE_INT = 1 << 24  # categories are counted in float32 on other devices


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """``num_samples`` indices per row of ``input``, drawn in proportion to its weights.

    Without replacement, or for one sample, PyTorch races exponential clocks:
    ``q ~ Exp(1)`` per element, then the ``num_samples`` largest ``input / q``
    (``argmax`` for one); with replacement each further sample is a double uniform searched in the
    row's normalised cumulative sums.  Both give PyTorch's indices for a seed,
    except the order among categories of weight 0 once the others are drawn
    (PyTorch's ``topk`` is not stable).

    Args:
        input (Tensor): 1-d or 2-d, float, non-negative weights (need not sum to 1).
        num_samples (int): draws per row; without ``replacement`` at most the row's length.
        replacement (bool): draw with replacement.
        generator (Generator | None): the generator to draw from (default: the global one).

    Returns:
        Tensor: int64, ``(num_samples,)`` or ``(rows, num_samples)``.

    Raises:
        RuntimeError: PyTorch's messages, in its order: "prob_dist must be 1 or 2 dim",
            "multinomial only supports floating-point dtypes for input, got: Long",
            "cannot sample n_sample <= 0 samples", "cannot sample n_sample >
            prob_dist.size(-1) samples without replacement", "number of categories cannot
            exceed 2^24", "probability tensor contains either `inf`, `nan` or element < 0"
            (with replacement and more than one sample, the kernel's "invalid multinomial
            distribution (encountering probability entry < 0)" or "... = infinity or NaN"),
            "invalid multinomial distribution (sum of probabilities <= 0)".
    """
    w = input._data
    if w.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if w.dtype.kind != "f":
        raise RuntimeError("multinomial only supports floating-point dtypes for input, got: "
                           + SCALAR_TYPE_NAMES[str(w.dtype)])
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > w.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if w.shape[-1] > _FLOAT32_MAX_CONSECUTIVE_INT:
        raise RuntimeError("number of categories cannot exceed 2^24")
    rows = np.atleast_2d(w)
    if rows.size == 0:
        return Tensor._make(np.empty((rows.shape[0], num_samples) if w.ndim == 2
                                     else (num_samples,), dtype=np.int64))
    if replacement and num_samples > 1:
        _check_rows_as_the_kernel(rows)
    elif not np.all(np.isfinite(rows)) or np.any(rows < 0):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if np.any(rows.sum(axis=1) <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    out = _kernels.multinomial(generator or default_generator, np.ascontiguousarray(rows),
                               num_samples, replacement)
    return Tensor._make(out if w.ndim == 2 else out[0])


def _check_rows_as_the_kernel(rows):
    """The with-replacement kernel's checks: the first bad weight in row order decides.

    ``val >= 0`` is tested first, so a nan reads as "< 0", as in PyTorch.
    """
    bad = ~(rows >= 0) | ~np.isfinite(rows)
    if np.any(bad):
        first = rows.reshape(-1)[np.argmax(bad.reshape(-1))]
        if not first >= 0:
            raise RuntimeError("invalid multinomial distribution (encountering probability "
                               "entry < 0)")
        raise RuntimeError("invalid multinomial distribution (encountering probability entry = "
                           "infinity or NaN)")


class _Bernoulli(Function):
    """Draw 0 or 1 with each element's probability (BernoulliBackward0: a zero gradient)."""

    node_name = "BernoulliBackward0"

    @staticmethod
    def forward(ctx, input, generator):
        p = input._data
        drawn = _kernels.bernoulli_tensor(generator, p.reshape(-1))
        return Tensor._make(drawn.reshape(p.shape).astype(p.dtype))

    @staticmethod
    def backward(ctx, grad):
        return Tensor._make(np.zeros_like(grad._data)), None


def bernoulli(input, p=None, *, generator=None):
    """0 or 1 per element of ``input``'s shape and dtype (``torch.bernoulli``).

    ``bernoulli(probs)`` draws 1 with each element's probability (float32
    ``probs`` against float uniforms, float64 against double ones);
    ``bernoulli(input, p)`` with one probability for every element
    (``empty_like(input).bernoulli_(p)``).  PyTorch's numbers for a seed,
    except ``bernoulli(input, p)`` on an Intel CPU, where PyTorch's MKL build
    draws with MKL's generator (README, "Differences by design").

    Args:
        input (Tensor): float probabilities in [0, 1]; with ``p``, only its shape and dtype count.
        p (float | None): one probability for all elements.
        generator (Generator | None): the generator to draw from.

    Returns:
        Tensor: ``input``'s shape and dtype.  ``bernoulli(probs)`` of a tensor that
        requires grad records BernoulliBackward0 (its gradient is zero); ``bernoulli(input,
        p)`` records nothing (PyTorch marks it requires_grad with a node that cannot run).

    Raises:
        RuntimeError: "bernoulli_ expects p to be in [0, 1], but got p=1.5"; probabilities
            outside [0, 1] (PyTorch's "Expected p_in >= 0 && p_in <= 1 to be true, but got
            false.").
        NotImplementedError: '"bernoulli_tensor_cpu_p_" not implemented for 'Long'' for
            integer or bool probabilities.
    """
    gen = generator or default_generator
    if p is not None:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
        data = input._data
        drawn = _kernels.bernoulli_scalar(gen, data.size, p)
        return Tensor._make(drawn.reshape(data.shape).astype(data.dtype))
    check_probabilities(input._data)
    return _Bernoulli.apply(input, gen)


def check_probabilities(probs):
    """``bernoulli``'s checks of a probability array: a float dtype, values in [0, 1].

    Raises:
        NotImplementedError: '"bernoulli_tensor_cpu_p_" not implemented for 'Long''.
        RuntimeError: "Expected p_in >= 0 && p_in <= 1 to be true, but got false. ..."
    """
    if probs.dtype.kind != "f":
        raise NotImplementedError('"bernoulli_tensor_cpu_p_" not implemented for '
                                  f"'{SCALAR_TYPE_NAMES[str(probs.dtype)]}'")
    if not np.all((probs >= 0) & (probs <= 1)):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could "
                           "this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")

