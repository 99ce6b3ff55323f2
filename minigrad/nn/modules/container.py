"""``Sequential``: modules run one after the other, each output the next input.

Children are named "0", "1", ... (or by the keys of an OrderedDict), so the
parameters are "0.weight", "0.bias", "2.weight", ...  Indexing gives a child;
a slice gives a new Sequential sharing the children.

Source: ``torch.nn.Sequential`` (torch/nn/modules/container.py).
"""

from collections import OrderedDict

from .module import Module, _addindent

__all__ = ["Sequential", "ModuleList"]


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

    @staticmethod
    def _get_item_by_idx(iterator, idx):
        """The idx-th item of ``iterator`` (negative counts from the end)."""
        items = list(iterator)
        size = len(items)
        idx = int(idx)
        if not -size <= idx < size:
            raise IndexError(f"index {idx} is out of range")
        return items[idx % size]

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return self._get_item_by_idx(self._modules.values(), idx)

    def __setitem__(self, idx, module):
        key = self._get_item_by_idx(self._modules.keys(), idx)
        setattr(self, key, module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            delattr(self, self._get_item_by_idx(self._modules.keys(), idx))
        # renumber, as PyTorch does, so the names stay "0", "1", ...
        str_indices = [str(i) for i in range(len(self._modules))]
        self._modules = OrderedDict(zip(str_indices, self._modules.values()))

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


class ModuleList(Module):
    """A list of sub-modules, registered so their parameters are found (``torch.nn.ModuleList``).

    Unlike ``Sequential`` it has no ``forward``: the owner decides how to call them.
    Children are named "0", "1", ...

    Raises:
        IndexError: "index 10 is out of range" for a bad index.
        TypeError: for items that are not Modules.
    """

    def __init__(self, modules=None):
        super().__init__()
        for module in modules or ():
            self.append(module)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return Sequential._get_item_by_idx(self._modules.values(), idx)

    def __setitem__(self, idx, module):
        setattr(self, Sequential._get_item_by_idx(self._modules.keys(), idx), module)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        """Add ``module`` at the end; returns self."""
        if not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self.add_module(str(len(self)), module)
        return self

    def __repr__(self):
        # PyTorch's ModuleList repr: runs of identical children print once, "(0-2): 3 x ..."
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        blocks = []  # [start, end, repr]
        for i, r in enumerate(reprs):
            if blocks and blocks[-1][2] == r:
                blocks[-1][1] = i
            else:
                blocks.append([i, i, r])
        lines = []
        for start, end, r in blocks:
            head = f"({start})" if start == end else f"({start}-{end}): {end - start + 1} x"
            lines.append(_addindent(f"{head}: {r}" if start == end else f"{head} {r}", 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def extend(self, modules):
        """Append each of ``modules``; returns self."""
        for module in modules:
            self.append(module)
        return self
