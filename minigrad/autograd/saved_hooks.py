"""Saved-tensor hooks: a saved value replaced by what a pack hook made of it.

Inside ``with saved_tensors_hooks(pack, unpack):`` each tensor an operation
saves for backward is given to ``pack(tensor)``; the node keeps what it
returns (a ``Packed`` entry, see ``saved.py``) instead of the tensor, and
``unpack(packed)`` gives a tensor back when backward needs it.  A lesson uses
this to count, log or offload saved activations (``memory.SavedTensorsMeter``,
``save_on_cpu``, ``utils.checkpoint``).

Source: ``torch.autograd.graph.saved_tensors_hooks`` and the hook branch of
``SavedVariable::unpack`` (torch/csrc/autograd/saved_variable.cpp).
"""

import weakref

from ..tensor import Tensor

__all__ = ["saved_tensors_hooks"]

hooks = []  # the open blocks' (pack_hook, unpack_hook), innermost last


class saved_tensors_hooks:
    """Intercept every value a node saves for backward: ``pack`` on save, ``unpack`` on use.

    Args:
        pack_hook: callable(Tensor) -> anything; called when a value is saved
            (a node's own output is passed as itself, as in PyTorch).
        unpack_hook: callable(packed) -> Tensor of the saved value's shape and
            dtype; called each time backward needs it.  Anything else raises
            PyTorch's TypeError "Output of saved tensor unpack_hook expected to
            be a Tensor ...".

    Source: ``torch.autograd.graph.saved_tensors_hooks``.
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):  # (returns None, as PyTorch's: `as h` binds None)
        hooks.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *exc):
        hooks.pop()
        return False


class Packed:
    """A node's saved value as a pack hook returned it, and the hook that gives it back.

    ``t``: the value saved; ``given``: what ``pack_hook`` receives if not ``t``
    (``register_hooks`` passes it without its history).  ``origin`` is where
    the unpacked value returns to the graph, as PyTorch re-attaches it, with
    no version check through hooks: ``(grad_fn, output_nr)``; the leaf whose
    ``.grad`` its gradients reach; or None.  For an output it is ``moved``:
    None (the node itself, as output ``output_nr``) or the history of the view
    it was since written into.
    """

    __slots__ = ("packed", "unpack_hook", "is_output", "output_nr", "origin")

    def __init__(self, t, hooks, is_output=False, output_nr=0, moved=None, given=None):
        pack_hook, self.unpack_hook = hooks
        self.is_output, self.output_nr = is_output, output_nr
        self.origin = (moved if is_output else None if not t._requires_grad
                       else (t._grad_fn, t._output_nr) if t._grad_fn else t)
        self.packed = pack_hook(t if given is None else given)

    def unpack(self, node, version=None):
        t = self.unpack_hook(self.packed)
        if not isinstance(t, Tensor):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                            f"result of type {type(t).__name__}")
        origin = self.origin
        if self.is_output or type(origin) is tuple:
            grad_fn, output_nr = origin or (node, self.output_nr)
            out = Tensor._make(t._data, grad_fn=grad_fn)
            if output_nr:
                out._output_nr = output_nr
            return out
        if origin is not None:  # a leaf: gradients reach its .grad
            out = Tensor._make(t._data, requires_grad=True)
            out._accum = weakref.ref(origin._accumulator())
            return out
        return t
