"""Neural-network building blocks (``torch.nn``).

* ``Parameter`` (parameter.py): a tensor a Module registers to learn;
* ``Module``, ``Linear``, ``Sequential``, ``ReLU``, ``Tanh``, ``Sigmoid``,
  ``MSELoss``, ``CrossEntropyLoss``, ``BCELoss``, ``BCEWithLogitsLoss``, ``Dropout``,
  ``LeakyReLU``, ``GELU``, ``SiLU``, ``Softplus``, ``ELU``, ``Hardtanh``, ``Softmax``,
  ``LogSoftmax``, ``Flatten``, ``Identity``, ``NLLLoss``, ``L1Loss``, ``SmoothL1Loss``,
  ``HuberLoss``, ``KLDivLoss``, ``LayerNorm``, ``BatchNorm1d``, ``BatchNorm2d``, ``Embedding`` (modules/, one file per idea);
* ``utils``: gradient clipping, parameters as one vector;
* ``init``: PyTorch's initialisations, drawn from minigrad's seeded generator;
* ``functional``: activations and losses as functions.
"""

from . import functional, init, utils
from .modules import (
    ELU,
    GELU,
    BatchNorm1d,
    BatchNorm2d,
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    Dropout,
    Embedding,
    Flatten,
    Hardtanh,
    HuberLoss,
    Identity,
    KLDivLoss,
    L1Loss,
    LayerNorm,
    LeakyReLU,
    Linear,
    LogSoftmax,
    Module,
    ModuleList,
    MSELoss,
    NLLLoss,
    ReLU,
    Sequential,
    Sigmoid,
    SiLU,
    SmoothL1Loss,
    Softmax,
    Softplus,
    Tanh,
)
from .parameter import Parameter

from . import forward_rules as _forward_rules  # noqa: E402,F401 (nn's tangent rules register themselves)

__all__ = ["functional", "init", "utils", "Parameter", "Module", "Linear", "Sequential", "ModuleList", "ReLU", "Tanh",
           "Sigmoid", "MSELoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss", "Dropout",
           "LeakyReLU", "GELU", "SiLU", "Softplus", "ELU", "Hardtanh", "Softmax", "LogSoftmax",
           "Flatten", "Identity", "NLLLoss", "L1Loss", "SmoothL1Loss", "HuberLoss",
           "LayerNorm", "Embedding", "KLDivLoss", "BatchNorm1d", "BatchNorm2d"]
