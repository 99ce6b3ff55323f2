"""``Adam``: per-parameter step sizes from running moments of the gradient.

For each parameter p with gradient g, at step t = 1, 2, ... (PyTorch's
single-tensor algorithm, the one it runs on the CPU)::

    g = -g                                  if maximize
    g = g + weight_decay * p                if weight_decay (p *= 1 - lr*wd if decoupled)
    m = m + (1 - β1) (g - m)                (m.lerp_(g, 1 - β1): β1 m + (1 - β1) g)
    v = β2 v + (1 - β2) g²
    v̂max = max(v̂max, v)                     if amsgrad (and v̂max is used below)
    denom = √v / √(1 - β2ᵗ) + eps
    p = p - lr / (1 - β1ᵗ) · m / denom

m and v start at zero; the bias corrections 1 - βᵗ undo that start.

Source: ``torch.optim.Adam`` (torch/optim/adam.py, ``_single_tensor_adam``);
Kingma & Ba 2015, "Adam: A Method for Stochastic Optimization", arXiv:1412.6980;
Reddi et al. 2018 for amsgrad; Loshchilov & Hutter 2019 for decoupled decay.
"""

import numpy as np

from ..tensor import Tensor
from .optimizer import Optimizer, _bump_version, _check_plain, lerp_

__all__ = ["Adam"]


class Adam(Optimizer):
    """Adam (``torch.optim.Adam``).

    Args:
        params: ``model.parameters()`` or a list of parameter-group dicts.
        lr (float): learning rate (default 1e-3).
        betas (tuple[float, float]): decay rates of the moment estimates (default (0.9, 0.999)).
        eps (float): added to the denominator (default 1e-8).
        weight_decay (float): L2 penalty (default 0).
        amsgrad (bool): use the running maximum of v (default False).
        maximize (bool): ascend instead of descend (default False).
        decoupled_weight_decay (bool): AdamW's decay (default False).
        foreach, fused, capturable: accepted for compatibility; one code path here.
        differentiable (bool): only False.

    State per parameter: ``step`` (a float32 0-d tensor), ``exp_avg``,
    ``exp_avg_sq`` (and ``max_exp_avg_sq`` with amsgrad).

    Raises:
        ValueError: "Invalid learning rate: -1", "Invalid epsilon value: -1",
            "Invalid beta parameter at index 0: 1.0", "Invalid weight_decay
            value: -1", "betas must be either both floats or both Tensors".
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not (isinstance(betas[0], float) and isinstance(betas[1], float)):
            raise ValueError("betas must be either both floats or both Tensors")
        _check_plain(differentiable)
        defaults = {
            "lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
            "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
            "capturable": capturable, "differentiable": differentiable, "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)

    def _update_group(self, group):
        lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
        beta1, beta2 = group["betas"]
        amsgrad = group["amsgrad"]
        for p in group["params"]:
            if p._grad is None:
                continue
            data = p._data
            f = data.dtype.type  # scalars in the parameter's dtype, as PyTorch casts them
            state = self.state[p]
            if len(state) == 0:  # lazy initialisation on the first step
                state["step"] = Tensor._make(np.zeros((), dtype=np.float32))
                state["exp_avg"] = Tensor._make(np.zeros_like(data))
                state["exp_avg_sq"] = Tensor._make(np.zeros_like(data))
                if amsgrad:
                    state["max_exp_avg_sq"] = Tensor._make(np.zeros_like(data))
            grad = p._grad._data
            if group["maximize"]:
                grad = -grad
            m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
            step_t = state["step"]._data
            step_t += 1
            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    data *= f(1 - lr * weight_decay)           # param.mul_(1 - lr*wd)
                    _bump_version(p)
                else:
                    grad = grad + f(weight_decay) * data       # grad.add(param, alpha=wd)
            lerp_(m, grad, f(1 - beta1))                       # exp_avg.lerp_(grad, 1 - beta1)
            v *= f(beta2)                                      # exp_avg_sq.mul_(beta2)
            v += f(1 - beta2) * grad * grad                    # .addcmul_(grad, grad, 1 - beta2)
            step = float(step_t)
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            step_size = lr / bias_correction1
            bias_correction2_sqrt = bias_correction2 ** 0.5
            if amsgrad:
                vmax = state["max_exp_avg_sq"]._data
                np.maximum(vmax, v, out=vmax)
                denom = np.sqrt(vmax) / f(bias_correction2_sqrt) + f(eps)
            else:
                denom = np.sqrt(v) / f(bias_correction2_sqrt) + f(eps)
            data += f(-step_size) * m / denom                  # param.addcdiv_(m, denom, -step_size)
            _bump_version(p)
