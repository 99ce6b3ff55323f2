"""Utilities (``torch.utils``): ``checkpoint`` for gradient checkpointing.

``import minigrad.utils.checkpoint`` then
``minigrad.utils.checkpoint.checkpoint(fn, x, use_reentrant=False)``, as in PyTorch.
"""

from . import checkpoint  # noqa: F401

__all__ = ["checkpoint"]
