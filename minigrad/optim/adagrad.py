"""``Adagrad``: step sizes that shrink with the sum of each weight's squared gradients.

For each parameter p with gradient g, at step t = 1, 2, ... (PyTorch's
single-tensor algorithm, the one it runs on the CPU)::

    g = -g                                  if maximize
    g = g + weight_decay * p                if weight_decay
    lr_t = lr / (1 + (t - 1) lr_decay)
    s = s + g²                              (sum, from initial_accumulator_value)
    p = p - lr_t g / (√s + eps)

Unlike the other optimizers, the state (``step`` and ``sum``) is created in
the constructor, for every parameter, so ``state_dict()`` has it before the
first step, as in PyTorch.

Source: ``torch.optim.Adagrad`` (torch/optim/adagrad.py, ``_single_tensor_adagrad``);
Duchi, Hazan & Singer, "Adaptive Subgradient Methods for Online Learning and
Stochastic Optimization", JMLR 12 (2011).
"""

import numpy as np

from ..tensor import Tensor
from .optimizer import Optimizer, _bump_version, _check_plain

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad (``torch.optim.Adagrad``).

    Args:
        params: ``model.parameters()`` or a list of parameter-group dicts.
        lr (float): learning rate (default 1e-2).
        lr_decay (float): the learning rate at step t is lr / (1 + (t - 1) lr_decay) (default 0).
        weight_decay (float): L2 penalty (default 0).
        initial_accumulator_value (float): the starting value of ``sum`` (default 0).
        eps (float): added to the denominator (default 1e-10).
        maximize (bool): ascend instead of descend.
        foreach, fused: accepted for compatibility; differentiable: only False.

    State per parameter (from the start): ``step`` (a float32 0-d tensor), ``sum``.

    Raises:
        ValueError: "Invalid learning rate: -1", "Invalid lr_decay value: -1",
            "Invalid weight_decay value: -1", "Invalid initial_accumulator_value
            value: -1", "Invalid epsilon value: -1".
    """

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        for name, value in (("learning rate", lr), ("lr_decay value", lr_decay),
                            ("weight_decay value", weight_decay),
                            ("initial_accumulator_value value", initial_accumulator_value),
                            ("epsilon value", eps)):
            if not 0.0 <= value:
                raise ValueError(f"Invalid {name}: {value}")
        _check_plain(differentiable)
        defaults = {
            "lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
            "maximize": maximize, "differentiable": differentiable, "fused": fused,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = Tensor._make(np.zeros((), dtype=np.float32))
                state["sum"] = Tensor._make(np.full_like(p._data, initial_accumulator_value))

    def _update_group(self, group):
        lr, lr_decay, eps, weight_decay = group["lr"], group["lr_decay"], group["eps"], group["weight_decay"]
        for p in group["params"]:
            if p._grad is None:
                continue
            data = p._data
            f = data.dtype.type
            state = self.state[p]
            step_t = state["step"]._data
            step_t += 1
            step = float(step_t)
            grad = p._grad._data
            if group["maximize"]:
                grad = -grad
            if weight_decay != 0:
                grad = grad + f(weight_decay) * data            # grad.add(param, alpha=wd)
            clr = lr / (1 + (step - 1) * lr_decay)
            s = state["sum"]._data
            s += f(1) * grad * grad                             # state_sum.addcmul_(grad, grad, 1)
            std = np.sqrt(s) + f(eps)                           # state_sum.sqrt().add_(eps)
            data += f(-clr) * grad / std                        # param.addcdiv_(grad, std, -clr)
            _bump_version(p)
