"""Helpers around a model's parameters (``torch.nn.utils``).

* ``clip_grad.py``: ``clip_grad_norm_``, ``clip_grad_value_``, ``get_total_norm``,
  ``clip_grads_with_norm_``: rescale or clamp the gradients between
  ``backward()`` and ``optimizer.step()``;
* ``convert_parameters.py``: ``parameters_to_vector``, ``vector_to_parameters``.

Source: torch/nn/utils/.
"""

from .clip_grad import clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = ["clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
           "parameters_to_vector", "vector_to_parameters"]
