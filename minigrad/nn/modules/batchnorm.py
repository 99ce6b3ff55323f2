"""``BatchNorm1d`` and ``BatchNorm2d``: normalize each channel over the batch, then scale and shift.

``BatchNorm1d(3)(x)`` is ``F.batch_norm(x, running_mean, running_var, weight,
bias, training, momentum, eps)``: one node, NativeBatchNormBackward0.  In
training mode it normalizes with the batch's statistics and moves the
running ones towards them (``momentum``; ``momentum=None``: their cumulative
average over the ``num_batches_tracked`` batches seen); in evaluation mode
(``.eval()``) it uses the running ones.  ``weight`` starts at ones and
``bias`` at zeros; ``running_mean`` at zeros, ``running_var`` at ones, all
three buffers (in ``state_dict``, not parameters).  ``affine=False`` has no
weight or bias; ``track_running_stats=False`` no running statistics (the
batch's are used in both modes).  Prints as PyTorch's:
``BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)``.

Source: torch/nn/modules/batchnorm.py.
"""

from ... import _dtype, creation
from ..._device import check as _check_device
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d"]


class _BatchNorm(Module):
    """What BatchNorm1d and BatchNorm2d share (``torch.nn.modules.batchnorm._BatchNorm``)."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        super().__init__()
        _check_device(device)
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = Parameter(creation.empty(num_features, dtype=dtype))
            if bias:
                self.bias = Parameter(creation.empty(num_features, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", creation.zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", creation.ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", creation.tensor(0, dtype=_dtype.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        """running_mean = 0, running_var = 1, num_batches_tracked = 0."""
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        """The running statistics reset; weight = 1, bias = 0."""
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # the cumulative average
                factor = 1.0 / float(self.num_batches_tracked)
        # the batch's statistics in training, and always when there are no running ones
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if keep else None,
                            self.running_var if keep else None, self.weight, self.bias, use_batch,
                            factor, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch normalization of (N, C) or (N, C, L) inputs (``torch.nn.BatchNorm1d``).

    Args:
        num_features (int): C.
        eps (float): added to the variance (default 1e-5).
        momentum (float | None): how far the running statistics move per batch
            (default 0.1); None: their cumulative average.
        affine (bool): learn ``weight`` and ``bias`` (C,); ``bias=False``: the weight only.
        track_running_stats (bool): keep running statistics (buffers).
        device: only None or "cpu".  dtype: of the parameters and statistics (default float32).

    Raises (when called):
        ValueError: "expected 2D or 3D input (got 1D input)", and F.batch_norm's errors.
    """

    def _check_input_dim(self, input):
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalization of (N, C, H, W) inputs (``torch.nn.BatchNorm2d``); as BatchNorm1d.

    Raises (when called):
        ValueError: "expected 4D input (got 2D input)", and F.batch_norm's errors.
    """

    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")
