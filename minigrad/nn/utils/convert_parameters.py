"""A model's parameters as one flat vector, and back.

``parameters_to_vector(model.parameters())`` is ``cat([p.view(-1) for p in
params])``: recorded (CatBackward0 over ViewBackward0s), so it can be
differentiated; ``vector_to_parameters(vec, params)`` replaces each
parameter's ``.data`` by the matching slice of ``vec``.

Source: torch/nn/utils/convert_parameters.py.
"""

from ...tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """Flatten ``parameters`` into one 1-d tensor (``torch.nn.utils.parameters_to_vector``).

    Args:
        parameters (iterable of Tensor): any shapes, one dtype.

    Returns:
        Tensor (sum of numels,), recorded as ``cat`` of ``view(-1)``s.

    Raises:
        RuntimeError: ``torch.cat``'s error for an empty iterable.
    """
    from ...ops import cat

    return cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Copy consecutive slices of ``vec`` into ``parameters``' ``.data`` (``torch.nn.utils.vector_to_parameters``).

    Raises:
        TypeError: "expected torch.Tensor, but got: list" when ``vec`` is not a tensor.
    """
    if not isinstance(vec, Tensor):
        from ...optim.optimizer import _typename

        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
