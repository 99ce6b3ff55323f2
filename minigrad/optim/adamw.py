"""``AdamW``: Adam with decoupled weight decay (Loshchilov & Hutter 2019).

In PyTorch 2.13, ``AdamW`` *is* ``Adam`` with ``decoupled_weight_decay=True``
and a default ``weight_decay`` of 1e-2: each step first shrinks the
parameter, ``p *= 1 - lr * weight_decay``, and then takes Adam's step from the
gradient alone (the decay never enters the moment estimates).  Its groups
carry ``decoupled_weight_decay: True``, and it prints as ``AdamW (...)``.

Source: ``torch.optim.AdamW`` (torch/optim/adamw.py); Loshchilov & Hutter,
"Decoupled Weight Decay Regularization", ICLR 2019, arXiv:1711.05101.
"""

from .adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    """AdamW (``torch.optim.AdamW``): ``Adam(..., decoupled_weight_decay=True)``, weight_decay 1e-2.

    Args: as ``Adam``'s, without ``decoupled_weight_decay`` (always True here).

    Raises:
        ValueError: as ``Adam``.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable, differentiable=differentiable,
                         fused=fused, decoupled_weight_decay=True)
