"""The layers: one idea per file.

* ``module.py``: ``Module``, the registration, traversal, state and printing every layer shares;
* ``linear.py``: ``Linear`` (its forward is ``F.linear``, which records ``Addmm``);
* ``activation.py``: ``ReLU``, ``Tanh``, ``Sigmoid``;
* ``activation_more.py``: ``LeakyReLU``, ``GELU``, ``SiLU``, ``Softplus``, ``ELU``,
  ``Hardtanh``, ``Softmax``, ``LogSoftmax``;
* ``container.py``: ``Sequential``;
* ``flatten.py``: ``Flatten``, ``Identity``;
* ``normalization.py``: ``LayerNorm``; ``batchnorm.py``: ``BatchNorm1d``, ``BatchNorm2d``;
* ``sparse.py``: ``Embedding``;
* ``dropout.py``: ``Dropout`` (what ``model.eval()`` switches off);
* ``loss.py``: ``MSELoss``, ``CrossEntropyLoss``, ``BCELoss``, ``BCEWithLogitsLoss``, ``NLLLoss``,
  ``L1Loss``, ``SmoothL1Loss``, ``HuberLoss``, ``KLDivLoss``.
"""

from .activation import ReLU, Sigmoid, Tanh
from .batchnorm import BatchNorm1d, BatchNorm2d
from .activation_more import ELU, GELU, Hardtanh, LeakyReLU, LogSoftmax, SiLU, Softmax, Softplus
from .container import ModuleList, Sequential
from .dropout import Dropout
from .flatten import Flatten, Identity
from .linear import Linear
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
)
from .module import Module
from .normalization import LayerNorm
from .sparse import Embedding

__all__ = ["Module", "Linear", "Sequential", "ModuleList", "ReLU", "Tanh", "Sigmoid", "MSELoss",
           "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss", "Dropout", "LeakyReLU", "GELU", "SiLU",
           "Softplus", "ELU", "Hardtanh", "Softmax", "LogSoftmax", "Flatten", "Identity", "NLLLoss",
           "L1Loss", "SmoothL1Loss", "HuberLoss", "LayerNorm", "Embedding", "KLDivLoss",
           "BatchNorm1d", "BatchNorm2d"]
