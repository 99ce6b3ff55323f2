"""``Parameter``: a tensor that a ``Module`` registers as something to learn.

A Parameter is an ordinary leaf tensor with ``requires_grad=True`` by default;
the only thing special about it is what happens when it is assigned as an
attribute of a ``Module``: ``Module.__setattr__`` files it under
``_parameters``, so ``module.parameters()`` finds it and an optimizer can be
handed the list.  Operations on a Parameter give plain tensors, and
``detach()`` gives a plain tensor too, as in PyTorch.

Source: ``torch.nn.Parameter`` (torch/nn/parameter.py).
"""

import numpy as np

from .._tensor_checks import ERR_INT_GRAD
from ..tensor import Tensor

__all__ = ["Parameter"]


class Parameter(Tensor):
    """A leaf tensor registered by a ``Module`` (``torch.nn.Parameter``).

    Args:
        data (Tensor | None): the values; the Parameter shares its memory (and
            version counter), without its history.  None gives an empty
            float32 tensor, as in PyTorch.
        requires_grad (bool): default True.

    Prints as PyTorch does::

        Parameter containing:
        tensor([1., 2.], requires_grad=True)

    Raises:
        RuntimeError: "Only Tensors of floating point and complex dtype can
            require gradients" for integer data with ``requires_grad=True``.
        TypeError: if ``data`` is not a Tensor.
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            arr, vc = np.zeros((0,), dtype=np.float32), None
        elif isinstance(data, Tensor):
            arr, vc = data._data, data._shared_vc()
        else:
            raise TypeError(
                f"Parameter(): argument 'data' must be Tensor, not {type(data).__name__}"
            )
        if requires_grad and arr.dtype.kind != "f":
            raise RuntimeError(ERR_INT_GRAD)
        return cls._make(arr, requires_grad=bool(requires_grad), vc=vc)

    def __init__(self, data=None, requires_grad=True):
        # Tensor.__init__ refuses direct construction; __new__ did the work.
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol):
        from ..serialization import _rebuild_parameter, reduce_tensor

        return reduce_tensor(self, _rebuild_parameter)
