"""``Variable``: the wrapper PyTorch merged into Tensor in 0.4, kept for older code.

``Variable(t, requires_grad=True)`` is a Tensor: ``t``'s values without its
history (the same memory), requiring grad if asked; ``isinstance(x, Variable)``
holds for every Tensor.  Older tutorials and answers still write it.

Source: ``torch.autograd.Variable`` (torch/autograd/variable.py and the
``_VariableFunctions`` constructor it calls).
"""

from ..creation import tensor
from ..tensor import Tensor

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """``Variable(data, requires_grad=False)``: ``data.detach()``, requiring grad if asked.

    Raises:
        TypeError: PyTorch's "Variable data has to be a tensor, but got list".
        RuntimeError: PyTorch's "Only Tensors of floating point and complex
            dtype can require gradients" for integer data with ``requires_grad``.
    """

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if data is None:
            return tensor([])
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        if requires_grad:
            if not data.dtype.is_floating_point:
                raise RuntimeError(
                    "Only Tensors of floating point and complex dtype can require gradients")
            out.requires_grad_(True)
        return out
