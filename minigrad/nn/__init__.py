"""Neural-network building blocks (``torch.nn``): ``functional`` for now."""

from . import functional  # noqa: F401
