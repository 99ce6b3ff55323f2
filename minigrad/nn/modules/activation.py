"""Activation layers: ``ReLU``, ``Tanh``, ``Sigmoid``, each a Module around one primitive.

They hold no parameters; ``model(x)`` records the same node as the function
(ReluBackward0, TanhBackward0, SigmoidBackward0).

Source: torch/nn/modules/activation.py.
"""

from .. import functional as F
from .module import Module

__all__ = ["ReLU", "Tanh", "Sigmoid"]


class ReLU(Module):
    """max(x, 0) elementwise (``torch.nn.ReLU``); node ReluBackward0.

    Args:
        inplace (bool): write the result into the input (``relu_``), as PyTorch does.
    """

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Tanh(Module):
    """tanh elementwise (``torch.nn.Tanh``); node TanhBackward0 (saves its result)."""

    def forward(self, input):
        return F.tanh(input)


class Sigmoid(Module):
    """1 / (1 + e⁻ˣ) elementwise (``torch.nn.Sigmoid``); node SigmoidBackward0 (saves its result)."""

    def forward(self, input):
        return F.sigmoid(input)
