"""Gradient clipping: shrink the gradients in place before the optimizer reads them.

``clip_grad_norm_(params, max_norm)`` treats every gradient as one long
vector: its p-norm is the norm of the per-tensor norms, and when it exceeds
``max_norm`` every gradient is multiplied by ``max_norm / (norm + 1e-6)``
(the factor is clamped at 1, so small gradients are left as they are).
``clip_grad_value_(params, v)`` clamps each element into [-v, v].

Both run with recording off and write into ``p.grad`` in place (each
gradient's version counter is bumped); parameters whose ``.grad`` is None are
skipped.

Source: torch/nn/utils/clip_grad.py (PyTorch 2.13): ``_get_total_norm``,
``_clip_grads_with_norm_``, ``clip_grad_norm_``, ``clip_grad_value_``.
"""

import types
import warnings

from ... import linalg
from ...autograd.grad_mode import no_grad
from ...tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]


def _as_list(tensors):
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The p-norm of ``tensors`` seen as one vector (``torch.nn.utils.get_total_norm``).

    Args:
        tensors (Tensor | iterable of Tensor): any shapes, one float dtype.
        norm_type (float | str): p; ``'inf'`` (or ``float('inf')``) for the max-norm.
        error_if_nonfinite (bool): raise when the norm is nan or ±inf.
        foreach: accepted for compatibility (one code path here).

    Returns:
        Tensor: 0-d, the dtype of the tensors; ``tensor(0.)`` for none.

    Raises:
        RuntimeError: "The total norm of order 2.0 for gradients from
            `parameters` is non-finite, so it cannot be clipped. ..." with
            ``error_if_nonfinite=True``, in PyTorch's words.
    """
    from ...creation import tensor

    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return tensor(0.0)
    with no_grad():
        norms = [linalg.vector_norm(t, norm_type) for t in tensors]
        from ...ops import stack

        total = linalg.vector_norm(stack(norms), norm_type)
    if error_if_nonfinite and (bool(total.isnan()) or bool(total.isinf())):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
            "so it cannot be clipped. To disable this error and scale the gradients by the "
            "non-finite norm anyway, set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Multiply every ``p.grad`` by ``min(max_norm / (total_norm + 1e-6), 1)`` in place.

    (``torch.nn.utils.clip_grads_with_norm_``.)

    Args:
        parameters (Tensor | iterable of Tensor): those whose ``.grad`` is not None are scaled.
        max_norm (float): the largest norm allowed.
        total_norm (Tensor): 0-d, as ``get_total_norm`` returns it.
    """
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    max_norm = float(max_norm)
    if not grads:
        return
    with no_grad():
        coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale the gradients so that their joint p-norm is at most ``max_norm`` (``torch.nn.utils.clip_grad_norm_``).

    Args:
        parameters (Tensor | iterable of Tensor): usually ``model.parameters()``.
        max_norm (float): the largest norm allowed.
        norm_type (float | str): p (default 2.0); ``'inf'`` for the max-norm.
        error_if_nonfinite (bool): raise when the norm is nan or ±inf (default False:
            the gradients are then scaled by a nan factor, as in PyTorch).
        foreach: accepted for compatibility.

    Returns:
        Tensor: the total norm before clipping (0-d).

    Raises:
        RuntimeError: see ``get_total_norm``.

    Warns:
        UserWarning: "`parameters` is an empty generator, no gradient clipping will occur."
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)  # a generator would be exhausted by the first pass
        if is_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=2)
    grads = [p.grad for p in parameters if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every element of every ``p.grad`` into [-clip_value, clip_value] in place.

    (``torch.nn.utils.clip_grad_value_``; returns None.)
    """
    clip_value = float(clip_value)
    with no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
