"""``Sequential``: modules run one after the other, each output the next input.

Children are named "0", "1", ... (or by the keys of an OrderedDict), so the
parameters are "0.weight", "0.bias", "2.weight", ...  Indexing gives a child;
a slice gives a new Sequential sharing the children.

Source: ``torch.nn.Sequential`` (torch/nn/modules/container.py).
"""

from collections import OrderedDict

from .module import Module

__all__ = ["Sequential"]


class Sequential(Module):
    """``Sequential(m0, m1, ...)`` or ``Sequential(OrderedDict(name=module, ...))`` (``torch.nn.Sequential``).

    ``forward(x)`` returns ``m_last(...m1(m0(x)))``.

    Raises:
        IndexError: "index 10 is out of range" for a bad index.
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _get_item_by_idx(self, idx):
        size = len(self)
        idx = int(idx)
        if not -size <= idx < size:
            raise IndexError(f"index {idx} is out of range")
        return list(self._modules.values())[idx % size]

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return self._get_item_by_idx(idx)

    def __setitem__(self, idx, module):
        key = list(self._modules.keys())[list(self._modules.values()).index(
            self._get_item_by_idx(idx))] if not isinstance(idx, str) else idx
        setattr(self, key, module)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        """Add ``module`` at the end (named by its position); returns self."""
        self.add_module(str(len(self)), module)
        return self

    def forward(self, input):
        for module in self:
            input = module(input)
        return input
