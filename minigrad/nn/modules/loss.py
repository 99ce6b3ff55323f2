"""Loss layers: ``MSELoss``, ``CrossEntropyLoss``, ``BCELoss``, ``BCEWithLogitsLoss``, ``NLLLoss``,
``L1Loss``, ``SmoothL1Loss``, ``HuberLoss``, ``KLDivLoss``.

Modules around ``nn.functional``.

``MSELoss()(pred, target)`` records MseLossBackward0; ``CrossEntropyLoss()``
records NllLossBackward0 ← LogSoftmaxBackward0, as in PyTorch.

Source: torch/nn/modules/loss.py.
"""

from .. import functional as F
from .module import Module

__all__ = ["BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss", "HuberLoss", "KLDivLoss", "L1Loss",
           "MSELoss", "NLLLoss", "SmoothL1Loss"]


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


class NLLLoss(_Loss):
    """Negative log-likelihood of log-probabilities (N, C) and int64 classes (N,) (``torch.nn.NLLLoss``).

    ``F.nll_loss``; node NllLossBackward0.  Pair it with ``LogSoftmax(dim=1)``.

    Args:
        weight: only None (class weights are not supported).
        ignore_index (int): targets equal to it contribute nothing (default -100).
        reduction: "mean" (default), "sum" or "none".

    Raises:
        NotImplementedError: for ``weight``.
    """

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        if weight is not None:
            raise NotImplementedError("minigrad: NLLLoss does not support class weights")
        self.register_buffer("weight", None)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, reduction=self.reduction, ignore_index=self.ignore_index)


class L1Loss(_Loss):
    """Mean absolute error (``torch.nn.L1Loss``); ``F.l1_loss``: MeanBackward0 ← AbsBackward0 ← SubBackward0."""

    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """``F.smooth_l1_loss`` as a layer (``torch.nn.SmoothL1Loss``); SmoothL1LossBackward0.

    Args:
        reduction: "mean" (default), "sum" or "none".
        beta (float): the threshold between the quadratic and linear parts (default 1.0).
    """

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """``F.huber_loss`` as a layer (``torch.nn.HuberLoss``); HuberLossBackward0.

    Args:
        reduction: "mean" (default), "sum" or "none".
        delta (float): the threshold between the quadratic and linear parts (default 1.0).
    """

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class KLDivLoss(_Loss):
    """``F.kl_div`` as a layer (``torch.nn.KLDivLoss``): input log-probabilities, target probabilities.

    Args:
        reduction: "mean" (default, with PyTorch's warning), "batchmean", "sum" or "none".
        log_target (bool): the target is given as log-probabilities.
    """

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)
