"""``once_differentiable``: a custom backward that is not itself differentiable.

Source: ``torch.autograd.function.once_differentiable`` (torch/autograd/function.py);
the package face makes it ``minigrad.autograd.function.once_differentiable`` too.
"""

import functools

from ..tensor import Tensor
from . import grad_mode
from .function import Function

__all__ = ["once_differentiable"]

_state = grad_mode._state


def once_differentiable(fn):
    """Decorator for a ``backward`` that is not itself differentiable (``torch.autograd.function.once_differentiable``).

    The backward runs with recording off.  Under ``create_graph=True``, when
    a gradient it received requires grad, its results are routed through an
    ``Error`` node, as in PyTorch: differentiating them raises
    "trying to differentiate twice a function that was marked with
    @once_differentiable".
    """
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with grad_mode.no_grad():
            outputs = fn(ctx, *args)
        if not _state.enabled:
            return outputs
        if not any(isinstance(a, Tensor) and a._requires_grad for a in args):
            return outputs
        single = type(outputs) is not tuple
        outs = (outputs,) if single else outputs
        fake = [o if o is None else o.detach().requires_grad_(True) for o in outs]
        wrapped = _DelayedError.apply(*fake)
        wrapped = wrapped if type(wrapped) is tuple else (wrapped,)
        return wrapped[0] if single else wrapped

    return wrapper


class _DelayedError(Function):
    """The node ``once_differentiable`` puts behind its results: differentiating it raises.

    Source: ``torch._C._functions.DelayedError`` (named ``torch::autograd::Error``).
    """

    node_name = "Error"

    @staticmethod
    def _name():
        return "torch::autograd::Error"

    @staticmethod
    def forward(ctx, *tensors):
        outs = tuple(None if t is None else Tensor._make(t._data) for t in tensors)
        return outs if len(outs) != 1 else outs[0]

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(
            "trying to differentiate twice a function that was marked with @once_differentiable")
