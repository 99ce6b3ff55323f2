"""Optimizers (``torch.optim``): ``SGD``, ``Adam``, ``AdamW``, ``RMSprop``, ``Adagrad``; schedulers.

* ``optimizer.py``: ``Optimizer``: parameter groups, state, ``zero_grad``;
* ``sgd.py``: ``SGD`` with momentum, dampening, Nesterov, weight decay;
* ``adam.py``: ``Adam`` with bias corrections, amsgrad, decoupled decay;
* ``adamw.py``: ``AdamW`` (Adam with decoupled weight decay);
* ``rmsprop.py``: ``RMSprop`` (centered, momentum);
* ``adagrad.py``: ``Adagrad`` (lr decay, initial accumulator);
* ``lr_scheduler.py``: ``StepLR``, ``ExponentialLR``, ``CosineAnnealingLR``, ``LambdaLR``.

A training step::

    opt.zero_grad()          # .grad = None for every parameter
    loss = loss_fn(model(x), y)
    loss.backward()          # fills .grad
    opt.step()               # updates the parameters in place, recording off
"""

from . import lr_scheduler
from .adagrad import Adagrad
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "lr_scheduler"]
