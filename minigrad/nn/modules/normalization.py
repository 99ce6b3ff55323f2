"""``LayerNorm``: normalize each sample over its last dims, then scale and shift.

``LayerNorm(4)(x)`` is ``F.layer_norm(x, (4,), weight, bias, eps)``: one
node, NativeLayerNormBackward0.  ``weight`` starts at ones and ``bias`` at
zeros (so a fresh layer only normalizes); ``elementwise_affine=False`` has
neither, ``bias=False`` only the weight.  Prints as PyTorch's:
``LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)``.

Source: torch/nn/modules/normalization.py.
"""

import numbers

from ... import creation
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["LayerNorm"]


class LayerNorm(Module):
    """Layer normalization (``torch.nn.LayerNorm``).

    Args:
        normalized_shape (int | tuple[int, ...]): the trailing shape normalized over.
        eps (float): added to the variance (default 1e-5).
        elementwise_affine (bool): learn ``weight`` and ``bias`` of ``normalized_shape``.
        bias (bool): learn ``bias`` too (default True).
        device: only None or "cpu".  dtype: of the parameters (default float32).
    """

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None,
                 dtype=None):
        super().__init__()
        from ..._device import check

        check(device)
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(creation.empty(self.normalized_shape, dtype=dtype))
            if bias:
                self.bias = Parameter(creation.empty(self.normalized_shape, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """weight = 1, bias = 0."""
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")
