"""``Dropout``: the layer ``model.eval()`` switches off (and the recording it does not).

In training mode (a new module's mode, ``model.train()``) each call zeroes
every element with probability ``p`` and scales the others by 1/(1-p), a new
random choice every call; in evaluation mode (``model.eval()``) it returns its
input unchanged.  Either way, operations on tensors that require grad are
recorded as always: ``eval()`` changes what layers compute, not whether
autograd records (that is ``torch.no_grad()``'s job).

Source: ``torch.nn.Dropout`` (torch/nn/modules/dropout.py), ``at::dropout``.
"""

from .. import functional as F
from .module import Module

__all__ = ["Dropout"]


class Dropout(Module):
    """Randomly zero elements while training (``torch.nn.Dropout``); the identity in eval mode.

    Args:
        p (float): the probability of zeroing an element, 0 <= p <= 1 (default 0.5).
        inplace (bool): multiply the input in place (``F.dropout(inplace=True)``).

    Raises:
        ValueError: ``p`` outside [0, 1]: "dropout probability has to be between
            0 and 1, but got 1.5", as PyTorch.

    Shapes: any input; the output has its shape and dtype.  The random choice
    is PyTorch's mask for a seed (see ``F.dropout``).
    """

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"
