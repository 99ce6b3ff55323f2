"""A node's ``_saved_<name>`` attributes: what it saved, by PyTorch's names.

PyTorch's generated nodes expose each saved value as an attribute:
``z.grad_fn._saved_self`` and ``_saved_other`` for ``z = x * y``, the tensor
as it was saved (unpacked: it raises once the walk freed it), and
``_raw_saved_self``, the same value not unpacked (a ``SavedTensor`` whose
``register_hooks`` gives it its own pack/unpack pair); a non-tensor value
(``_saved_exponent`` of ``pow``) is read as it was set on ``ctx``.
``Function.__init_subclass__`` (function.py) puts them on each node class
from the Function's ``saved_names`` and ``saved_attrs``.

Source: the ``_saved_*`` properties of torch/csrc/autograd/generated/python_functions.cpp.
"""

from . import saved
from .hooks import SavedTensor

__all__ = ["node_attributes", "raw_saved_tensors"]


def node_attributes(saved_names, saved_attrs):
    """``{attribute name: property}`` for a node class whose forward saves ``saved_names``
    (in the order given to ``save_for_backward``) and sets the ctx attributes ``saved_attrs``."""
    attrs = {}
    for i, name in enumerate(saved_names):
        attrs["_saved_" + name] = _saved_tensor_property(i, name)
        attrs["_raw_saved_" + name] = _raw_saved_property(i, name)
    for name in saved_attrs:
        attrs["_saved_" + name] = _saved_attr_property(name)
    return attrs


def raw_saved_tensors(node):
    """``node._raw_saved_tensors``: every saved tensor, not unpacked (None where none was saved)."""
    return tuple(None if s is None else SavedTensor(node, i) for i, s in enumerate(saved.records(node)))


def _saved_tensor_property(index, name):
    def get(self):
        return saved.unpack_one(self, index)

    get.__name__ = "_saved_" + name
    return property(get, doc=f"The saved tensor ``{name}`` (PyTorch's ``_saved_{name}``).")


def _raw_saved_property(index, name):
    def get(self):
        records = saved.records(self)
        if index < len(records) and records[index] is not None:
            return SavedTensor(self, index)
        return SavedTensor(None, None)  # (PyTorch gives one for a value not saved, too)

    get.__name__ = "_raw_saved_" + name
    return property(get, doc=f"The saved tensor ``{name}``, not unpacked (``_raw_saved_{name}``).")


def _saved_attr_property(name):
    def get(self):
        return getattr(self, name, None)

    return property(get, doc=f"The saved value ``{name}`` (PyTorch's ``_saved_{name}``).")
