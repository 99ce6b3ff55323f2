"""Neural-network building blocks (``torch.nn``).

* ``Parameter`` (parameter.py): a tensor a Module registers to learn;
* ``Module``, ``Linear``, ``Sequential``, ``ReLU``, ``Tanh``, ``Sigmoid``,
  ``MSELoss``, ``CrossEntropyLoss``, ``BCELoss``, ``BCEWithLogitsLoss``, ``Dropout``
  (modules/, one file per idea);
* ``init``: PyTorch's initialisations, drawn from minigrad's seeded generator;
* ``functional``: activations and losses as functions.
"""

from . import functional, init, utils
from .modules import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    Dropout,
    Linear,
    Module,
    ModuleList,
    MSELoss,
    ReLU,
    Sequential,
    Sigmoid,
    Tanh,
)
from .parameter import Parameter

__all__ = ["functional", "init", "utils", "Parameter", "Module", "Linear", "Sequential", "ModuleList", "ReLU", "Tanh",
           "Sigmoid", "MSELoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss", "Dropout"]
