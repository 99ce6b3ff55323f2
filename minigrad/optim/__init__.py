"""Optimizers (``torch.optim``): ``SGD`` and ``Adam`` on the ``Optimizer`` base.

* ``optimizer.py``: ``Optimizer``: parameter groups, state, ``zero_grad``;
* ``sgd.py``: ``SGD`` with momentum, dampening, Nesterov, weight decay;
* ``adam.py``: ``Adam`` with bias corrections, amsgrad, decoupled decay.

A training step::

    opt.zero_grad()          # .grad = None for every parameter
    loss = loss_fn(model(x), y)
    loss.backward()          # fills .grad
    opt.step()               # updates the parameters in place, recording off
"""

from .adam import Adam
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam"]
