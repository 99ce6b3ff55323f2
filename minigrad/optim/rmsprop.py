"""``RMSprop``: divide each gradient by a running root-mean-square of its past values.

For each parameter p with gradient g, at every step (PyTorch's single-tensor
algorithm, the one it runs on the CPU)::

    g = -g                                  if maximize
    g = g + weight_decay * p                if weight_decay
    v = α v + (1 - α) g²                    (square_avg)
    ḡ = ḡ + (1 - α)(g - ḡ)                  if centered (grad_avg; ḡ.lerp_(g, 1 - α))
    avg = √(v - ḡ²) + eps  if centered,  else √v + eps
    b = μ b + g / avg;  p = p - lr b        if momentum μ > 0 (momentum_buffer)
    p = p - lr g / avg                      otherwise

Source: ``torch.optim.RMSprop`` (torch/optim/rmsprop.py, ``_single_tensor_rmsprop``);
Hinton, Srivastava & Swersky, "Neural Networks for Machine Learning", lecture 6e (2012);
Graves 2013, arXiv:1308.0850, for the centered form.
"""

import numpy as np

from ..tensor import Tensor
from .optimizer import Optimizer, _bump_version, _check_plain, lerp_

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop (``torch.optim.RMSprop``).

    Args:
        params: ``model.parameters()`` or a list of parameter-group dicts.
        lr (float): learning rate (default 1e-2).
        alpha (float): smoothing constant of the squared-gradient average (default 0.99).
        eps (float): added to the denominator (default 1e-8).
        weight_decay (float): L2 penalty (default 0).
        momentum (float): momentum factor (default 0).
        centered (bool): subtract the squared mean gradient (an estimate of the variance).
        maximize (bool): ascend instead of descend.
        capturable, foreach: accepted for compatibility; differentiable: only False.

    State per parameter: ``step`` (a float32 0-d tensor), ``square_avg``
    (and ``momentum_buffer`` with momentum, ``grad_avg`` when centered).

    Raises:
        ValueError: "Invalid learning rate: -1", "Invalid epsilon value: -1",
            "Invalid momentum value: -1", "Invalid weight_decay value: -1",
            "Invalid alpha value: -1".
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        for name, value in (("learning rate", lr), ("epsilon value", eps), ("momentum value", momentum),
                            ("weight_decay value", weight_decay), ("alpha value", alpha)):
            if not 0.0 <= value:
                raise ValueError(f"Invalid {name}: {value}")
        _check_plain(differentiable)
        defaults = {
            "lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
            "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
            "maximize": maximize, "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update_group(self, group):
        lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
        weight_decay, momentum = group["weight_decay"], group["momentum"]
        for p in group["params"]:
            if p._grad is None:
                continue
            data = p._data
            f = data.dtype.type  # scalars in the parameter's dtype, as PyTorch casts them
            state = self.state[p]
            if len(state) == 0:  # lazy initialisation on the first step
                state["step"] = Tensor._make(np.zeros((), dtype=np.float32))
                state["square_avg"] = Tensor._make(np.zeros_like(data))
                if momentum > 0:
                    state["momentum_buffer"] = Tensor._make(np.zeros_like(data))
                if group["centered"]:
                    state["grad_avg"] = Tensor._make(np.zeros_like(data))
            grad = p._grad._data
            if group["maximize"]:
                grad = -grad
            state["step"]._data += 1
            if weight_decay != 0:
                grad = grad + f(weight_decay) * data            # grad.add(param, alpha=wd)
            v = state["square_avg"]._data
            v *= f(alpha)                                       # square_avg.mul_(alpha)
            v += f(1 - alpha) * grad * grad                     # .addcmul_(grad, grad, 1 - alpha)
            if group["centered"]:
                ga = state["grad_avg"]._data
                lerp_(ga, grad, f(1 - alpha))                   # grad_avg.lerp_(grad, 1 - alpha)
                avg = np.sqrt(v + f(-1) * ga * ga)              # square_avg.addcmul(ga, ga, -1).sqrt_()
            else:
                avg = np.sqrt(v)
            avg += f(eps)
            if momentum > 0:
                buf = state["momentum_buffer"]._data
                buf *= f(momentum)                              # buf.mul_(momentum)
                buf += grad / avg                               # .addcdiv_(grad, avg)
                data += f(-lr) * buf                            # param.add_(buf, alpha=-lr)
            else:
                data += f(-lr) * grad / avg                     # param.addcdiv_(grad, avg, -lr)
            _bump_version(p)
