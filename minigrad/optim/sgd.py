"""``SGD``: stochastic gradient descent, with momentum, dampening, Nesterov and weight decay.

For each parameter p with gradient g, at every ``step()`` (PyTorch's
single-tensor algorithm, the one it runs on the CPU)::

    g = -g                          if maximize
    g = g + weight_decay * p        if weight_decay != 0
    if momentum != 0:
        b = g (a copy)              on the first step
        b = momentum * b + (1 - dampening) * g   afterwards
        g = g + momentum * b        if nesterov, else g = b
    p = p - lr * g

Source: ``torch.optim.SGD`` (torch/optim/sgd.py, ``_single_tensor_sgd``);
Sutskever et al. 2013 for this form of momentum and Nesterov.
"""

import numpy as np

from ..tensor import Tensor
from .optimizer import Optimizer, _bump_version, _check_plain

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent (``torch.optim.SGD``).

    Args:
        params: ``model.parameters()`` or a list of parameter-group dicts.
        lr (float): learning rate (default 1e-3).
        momentum (float): momentum factor (default 0).
        dampening (float): dampening for momentum (default 0).
        weight_decay (float): L2 penalty (default 0).
        nesterov (bool): Nesterov momentum (default False).
        maximize (bool): ascend instead of descend (default False).
        foreach, fused: accepted for compatibility; minigrad has one code path.
        differentiable (bool): only False.

    State per parameter: ``momentum_buffer`` (when momentum != 0).

    Raises:
        ValueError: "Invalid learning rate: -1", "Invalid momentum value: -1",
            "Invalid weight_decay value: -1", "Nesterov momentum requires a
            momentum and zero dampening".
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr, "momentum": momentum, "dampening": dampening,
            "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
            "foreach": foreach, "differentiable": differentiable, "fused": fused,
        }
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        _check_plain(differentiable)
        super().__init__(params, defaults)

    def _update_group(self, group):
        lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
        weight_decay, nesterov = group["weight_decay"], group["nesterov"]
        for p in group["params"]:
            if p._grad is None:
                continue
            data = p._data
            f = data.dtype.type  # scalars in the parameter's dtype, as PyTorch casts them
            grad = p._grad._data
            if group["maximize"]:
                grad = -grad
            if weight_decay != 0:
                grad = grad + f(weight_decay) * data          # grad.add(param, alpha=wd)
            if momentum != 0:
                state = self.state[p]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = Tensor._make(np.array(grad, copy=True))  # grad.detach().clone()
                    state["momentum_buffer"] = buf
                else:
                    b = buf._data
                    b *= f(momentum)                           # buf.mul_(momentum)
                    if dampening == 0:
                        b += grad                              # .add_(grad, alpha=1)
                    else:
                        b += f(1 - dampening) * grad           # .add_(grad, alpha=1-dampening)
                if nesterov:
                    grad = grad + f(momentum) * buf._data      # grad.add(buf, alpha=momentum)
                else:
                    grad = buf._data
            data += f(-lr) * grad                              # param.add_(grad, alpha=-lr)
            _bump_version(p)
