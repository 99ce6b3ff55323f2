"""Learning-rate schedules (``torch.optim.lr_scheduler``): change ``group["lr"]`` once per epoch.

A scheduler wraps an optimizer.  At construction it records each group's
starting rate as ``group["initial_lr"]`` (``base_lrs``) and takes step 0;
each ``scheduler.step()`` (called *after* ``optimizer.step()``) advances
``last_epoch`` by one and writes the new rate into every group:

* ``StepLR(opt, step_size, gamma=0.1)``: multiply by ``gamma`` every ``step_size`` epochs;
* ``ExponentialLR(opt, gamma)``: multiply by ``gamma`` every epoch;
* ``CosineAnnealingLR(opt, T_max, eta_min=0)``: follow half a cosine from the
  base rate down to ``eta_min`` over ``T_max`` epochs (then back up), in
  PyTorch's recursive ("chainable") form;
* ``LambdaLR(opt, lr_lambda)``: ``base_lr * lr_lambda(epoch)``.

``get_last_lr()`` returns the rates the last step set; ``state_dict()`` is
every attribute but the optimizer (and, for LambdaLR, the functions), as in
PyTorch, so a checkpoint can resume the schedule.  PyTorch's warnings are
given in its words: a ``scheduler.step()`` before the first
``optimizer.step()``, ``get_lr()`` called from outside ``step()``, and
``step(epoch)`` (deprecated; it uses the closed form).

Source: torch/optim/lr_scheduler.py (PyTorch 2.13); Loshchilov & Hutter,
"SGDR: Stochastic Gradient Descent with Warm Restarts", ICLR 2017
(arXiv:1608.03983), for the cosine schedule.
"""

import math
import types
import warnings
import weakref
from functools import wraps

from .optimizer import Optimizer

__all__ = ["CosineAnnealingLR", "ExponentialLR", "LRScheduler", "LambdaLR", "StepLR"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where "
    "possible. Please use `scheduler.step()` to step the scheduler. During the deprecation, if "
    "epoch is different from None, the closed form is used instead of the new chainable form, "
    "where available. Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)


def _lrs(optimizer, key):
    return [group[key] for group in optimizer.param_groups]


def _warn_get_lr_called_within_step(scheduler):
    if not scheduler._get_lr_called_within_step:
        warnings.warn("To get the last learning rate computed by the scheduler, please use "
                      "`get_last_lr()`.", UserWarning, stacklevel=3)


def _track_step_called(scheduler, opt):
    """Wrap ``opt.step`` so the scheduler can tell whether it ran before its own first step."""
    if hasattr(opt.step, "_wrapped_by_lr_sched"):
        return
    opt_ref = weakref.ref(opt)
    func = opt.step.__func__

    @wraps(func)
    def wrapper(*args, **kwargs):
        o = opt_ref()
        o._opt_called = True
        return func.__get__(o, o.__class__)(*args, **kwargs)

    wrapper._wrapped_by_lr_sched = True
    opt.step = wrapper


class LRScheduler:
    """Base class of the schedulers (``torch.optim.lr_scheduler.LRScheduler``).

    Args:
        optimizer (Optimizer): whose groups' ``lr`` is scheduled.
        last_epoch (int): -1 (default) to start; the index of the last epoch to resume.

    Raises:
        TypeError: "list is not an Optimizer".
        KeyError: "param 'initial_lr' is not specified in param_groups[0] when
            resuming scheduler with last_epoch >= 0. ..." when resuming without it.
    """

    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when resuming "
                        "scheduler with last_epoch >= 0.\nThis typically happens when:\n1. You're "
                        "trying to resume training from a checkpoint but haven't properly loaded "
                        "the optimizer state\n2. You're using last_epoch >= 0 for a fresh training "
                        "run (not recommended)")
        self.base_lrs = _lrs(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _track_step_called(self, optimizer)
        self._initial_step()

    def _initial_step(self):
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self):
        """Every attribute but the optimizer, as a dict (``LRScheduler.state_dict``)."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        """Restore what ``state_dict()`` returned."""
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """The learning rates the last ``step()`` set, one per parameter group (list of float)."""
        return self._last_lr

    def get_lr(self):
        """The next learning rates (the schedule itself; subclasses define it)."""
        raise NotImplementedError

    def step(self, epoch=None):
        """Advance one epoch (or, deprecated, jump to ``epoch``) and set every group's ``lr``.

        Warns:
            UserWarning: "Detected call of `lr_scheduler.step()` before
                `optimizer.step()`. ..." on a first step before any optimizer
                step; the deprecation warning for ``epoch``.
        """
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn(
                    "Seems like `optimizer.step()` has been overridden after learning rate "
                    "scheduler initialization. Please, make sure to call `optimizer.step()` "
                    "before `lr_scheduler.step()`. See more details at "
                    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                    UserWarning, stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(
                    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch "
                    "1.1.0 and later, you should call them in the opposite order: "
                    "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will "
                    "result in PyTorch skipping the first value of the learning rate schedule. "
                    "See more details at "
                    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                    UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed = getattr(self, "_get_closed_form_lr", None)
                values = closed() if closed is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = _lrs(self.optimizer, "lr")


class StepLR(LRScheduler):
    """Multiply the rate by ``gamma`` every ``step_size`` epochs (``torch.optim.lr_scheduler.StepLR``)."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The current rates, times ``gamma`` at a non-zero multiple of ``step_size``."""
        _warn_get_lr_called_within_step(self)
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _lrs(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the rate by ``gamma`` every epoch (``torch.optim.lr_scheduler.ExponentialLR``)."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The current rates times ``gamma`` (unchanged at the constructor's step)."""
        _warn_get_lr_called_within_step(self)
        if self._is_initial:
            return _lrs(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** self.last_epoch for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Anneal the rate along a cosine from ``base_lr`` to ``eta_min`` over ``T_max`` epochs.

    (``torch.optim.lr_scheduler.CosineAnnealingLR``.)  The rate follows
    ``eta_min + (base_lr - eta_min)(1 + cos(π t / T_max)) / 2``, computed as
    PyTorch does from the previous rate (so a rate changed by hand between
    steps carries on from there).
    """

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The next rates, PyTorch's recursive form."""
        _warn_get_lr_called_within_step(self)
        groups = self.optimizer.param_groups
        if self._is_initial:
            return _lrs(self.optimizer, "lr")
        if self._step_count == 1 and self.last_epoch > 0:
            return [self.eta_min + (base_lr - self.eta_min)
                    * (1 + math.cos(self.last_epoch * math.pi / self.T_max)) / 2
                    for base_lr in self.base_lrs]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [group["lr"] + (base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                    for base_lr, group in zip(self.base_lrs, groups)]
        return [(1 + math.cos(math.pi * self.last_epoch / self.T_max))
                / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
                * (group["lr"] - self.eta_min) + self.eta_min for group in groups]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base_lr - self.eta_min)
                * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base_lr in self.base_lrs]


class LambdaLR(LRScheduler):
    """``base_lr * lr_lambda(epoch)`` (``torch.optim.lr_scheduler.LambdaLR``).

    Args:
        lr_lambda (callable | list of callables): one for every group, or one per group.

    Raises:
        ValueError: "Expected 2 lr_lambdas, but got 1".
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        if not isinstance(lr_lambda, (list, tuple)):
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        else:
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got "
                                 f"{len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        super().__init__(optimizer, last_epoch)

    def state_dict(self):
        """As the base's, with ``lr_lambdas``: None for plain functions, the ``__dict__`` of callable objects."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                               for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        """Restore ``state_dict()``'s values (and the callable objects' attributes)."""
        lr_lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        state_dict["lr_lambdas"] = lr_lambdas
        for fn, saved in zip(self.lr_lambdas, lr_lambdas):
            if saved is not None:
                fn.__dict__.update(saved)

    def get_lr(self):
        """``base_lr * lr_lambda(last_epoch)`` for each group."""
        _warn_get_lr_called_within_step(self)
        return [base_lr * fn(self.last_epoch) for fn, base_lr in zip(self.lr_lambdas, self.base_lrs)]
