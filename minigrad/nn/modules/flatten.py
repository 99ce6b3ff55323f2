"""``Flatten`` and ``Identity``: layers that only reshape, or do nothing.

``Flatten(start_dim=1, end_dim=-1)`` is ``input.flatten(start_dim, end_dim)``:
ViewBackward0 for a contiguous input (UnsafeViewBackward0 ← CloneBackward0
otherwise, as ``reshape``), what the tutorials put between the image and the
first ``Linear``.  ``Identity(*args, **kwargs)`` ignores its arguments and
returns its input itself (nothing recorded): a placeholder when a layer is
swapped out.

Source: torch/nn/modules/flatten.py and torch/nn/modules/linear.py (Identity).
"""

from .module import Module

__all__ = ["Flatten", "Identity"]


class Flatten(Module):
    """Flatten dims ``start_dim`` .. ``end_dim`` into one (``torch.nn.Flatten``).

    Args:
        start_dim (int): first dim to flatten (default 1: keep the batch dim).
        end_dim (int): last dim to flatten (default -1).

    Prints as ``Flatten(start_dim=1, end_dim=-1)``.
    """

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Identity(Module):
    """Return the input unchanged (``torch.nn.Identity``); any constructor arguments are ignored."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input
