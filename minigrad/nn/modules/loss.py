"""Loss layers: ``MSELoss``, ``CrossEntropyLoss``, ``BCELoss``, ``BCEWithLogitsLoss``.

Modules around ``nn.functional``.

``MSELoss()(pred, target)`` records MseLossBackward0; ``CrossEntropyLoss()``
records NllLossBackward0 ← LogSoftmaxBackward0, as in PyTorch.

Source: torch/nn/modules/loss.py.
"""

from .. import functional as F
from .module import Module

__all__ = ["BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss", "MSELoss"]


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


class BCELoss(_Loss):
    """Binary cross-entropy of probabilities (``torch.nn.BCELoss``); BinaryCrossEntropyBackward0.

    Args:
        weight: only None (element weights are not supported).
        reduction: "mean" (default), "sum" or "none".

    Raises:
        NotImplementedError: for ``weight``.
    """

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        if weight is not None:
            raise NotImplementedError("minigrad: BCELoss does not support weights")
        self.register_buffer("weight", None)

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Sigmoid and binary cross-entropy in one stable loss (``torch.nn.BCEWithLogitsLoss``).

    ``F.binary_cross_entropy_with_logits``; node BinaryCrossEntropyWithLogitsBackward0.

    Args:
        weight (Tensor | None): per-element weight, a buffer.
        reduction: "mean" (default), "sum" or "none".
        pos_weight (Tensor | None): weight of positive examples per class, a buffer.
    """

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean",
                 pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  pos_weight=self.pos_weight,
                                                  reduction=self.reduction)
