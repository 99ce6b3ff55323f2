"""More activation layers: ``LeakyReLU``, ``GELU``, ``SiLU``, ``Softplus``, ``ELU``, ``Hardtanh``,
``Softmax``, ``LogSoftmax``.

Modules without parameters around the functions of ``nn.functional``;
``model(x)`` records the function's node (LeakyReluBackward0, GeluBackward0,
SiluBackward0, SoftplusBackward0, EluBackward0, HardtanhBackward0,
SoftmaxBackward0, LogSoftmaxBackward0).  Each prints as PyTorch's does
(``LeakyReLU(negative_slope=0.01)``, ``GELU(approximate='none')``, ...).

Source: torch/nn/modules/activation.py.
"""

from .. import functional as F
from .module import Module

__all__ = ["ELU", "GELU", "Hardtanh", "LeakyReLU", "LogSoftmax", "SiLU", "Softmax", "Softplus"]


def _inplace_str(inplace):
    return ", inplace=True" if inplace else ""


class LeakyReLU(Module):
    """``F.leaky_relu`` as a layer (``torch.nn.LeakyReLU``).

    Args:
        negative_slope (float): slope for x <= 0 (default 0.01).
        inplace (bool): write into the input.
    """

    def __init__(self, negative_slope=1e-2, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}{_inplace_str(self.inplace)}"


class GELU(Module):
    """``F.gelu`` as a layer (``torch.nn.GELU``); ``approximate`` is ``'none'`` or ``'tanh'``."""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class SiLU(Module):
    """``F.silu`` (x σ(x)) as a layer (``torch.nn.SiLU``)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Softplus(Module):
    """``F.softplus`` as a layer (``torch.nn.Softplus``); prints ``Softplus(beta=1.0, threshold=20.0)``."""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class ELU(Module):
    """``F.elu`` as a layer (``torch.nn.ELU``); prints ``ELU(alpha=1.0)``."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}{_inplace_str(self.inplace)}"


class Hardtanh(Module):
    """``F.hardtanh`` as a layer (``torch.nn.Hardtanh``); prints ``Hardtanh(min_val=-1.0, max_val=1.0)``.

    Raises:
        AssertionError: "max_val (-1.0) must be greater than min_val (1.0)" (PyTorch asserts it).
    """

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if not self.max_val > self.min_val:
            raise AssertionError(f"max_val ({max_val}) must be greater than min_val ({min_val})")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace_str(self.inplace)}"


class Softmax(Module):
    """``F.softmax`` along ``dim`` as a layer (``torch.nn.Softmax``); prints ``Softmax(dim=1)``.

    ``dim=None`` takes PyTorch's deprecated implicit choice (with its warning).
    """

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    """``F.log_softmax`` along ``dim`` as a layer (``torch.nn.LogSoftmax``); prints ``LogSoftmax(dim=1)``."""

    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)
