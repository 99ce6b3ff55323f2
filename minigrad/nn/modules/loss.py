"""Loss layers: ``MSELoss`` and ``CrossEntropyLoss``, Modules around ``nn.functional``.

``MSELoss()(pred, target)`` records MseLossBackward0; ``CrossEntropyLoss()``
records NllLossBackward0 ← LogSoftmaxBackward0, as in PyTorch.

Source: torch/nn/modules/loss.py.
"""

from .. import functional as F
from .module import Module

__all__ = ["MSELoss", "CrossEntropyLoss"]


def _legacy(size_average, reduce):
    if size_average is not None or reduce is not None:
        raise NotImplementedError(
            "minigrad: size_average and reduce are deprecated in PyTorch and not supported; "
            "use reduction='mean' | 'sum' | 'none'"
        )


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        _legacy(size_average, reduce)
        self.reduction = reduction


class MSELoss(_Loss):
    """Mean squared error (``torch.nn.MSELoss``); node MseLossBackward0.

    Args:
        reduction: "mean" (default), "sum" or "none".

    Raises (when called):
        ValueError: for an unknown reduction; RuntimeError if the shapes differ.
    """

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class CrossEntropyLoss(_Loss):
    """Cross-entropy of logits (N, C) and int64 class indices (N,) (``torch.nn.CrossEntropyLoss``).

    ``nll_loss(log_softmax(input, 1), target)``; nodes NllLossBackward0 ←
    LogSoftmaxBackward0.

    Args:
        weight: only None (class weights are not supported).
        ignore_index (int): targets equal to it contribute nothing (default -100).
        reduction: "mean" (default, over non-ignored targets), "sum" or "none".
        label_smoothing: only 0.0.

    Raises:
        NotImplementedError: for ``weight`` or ``label_smoothing``.
    """

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean", label_smoothing=0.0):
        super().__init__(size_average, reduce, reduction)
        if weight is not None or label_smoothing != 0.0:
            raise NotImplementedError(
                "minigrad: CrossEntropyLoss supports neither class weights nor label smoothing"
            )
        self.weight = None
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, reduction=self.reduction,
                               ignore_index=self.ignore_index)
