"""What a Function's node does around its ``backward``: PyTorch's ``PyNode``.

``BackwardNode`` (graph.py) takes these methods from ``PyNodeMethods``: its
name and repr, the gradients of unused outputs made zeros before ``backward``
sees them (``ctx.set_materialize_grads``), and what ``backward`` returned (one
gradient per argument of ``forward``) checked and matched to the node's edges.
A primitive's formula node (ops/formulas.py) uses the last two as well.

Source: ``PyNode::apply`` and ``PyNode::name`` (torch/csrc/autograd/python_function.cpp).
"""

import numpy as np

from ..tensor import Tensor

__all__ = ["PyNodeMethods"]


class PyNodeMethods:
    """The methods of ``BackwardNode`` around its ``backward`` (a mixin: it holds no state)."""

    __slots__ = ()
    _materialize = True  # ctx.set_materialize_grads(False) turns it off for one node

    def name(self):
        """The node's PyTorch name, e.g. ``"MulBackward0"``."""
        custom = getattr(self._forward_cls, "_name", None)  # a staticmethod naming hook
        return custom() if callable(custom) else type(self).__name__

    def __repr__(self):
        if "node_name" in self._forward_cls.__dict__:  # a built-in primitive
            return f"<{type(self).__name__} object at {hex(id(self))}>"
        # a user-defined Function, shown as PyTorch shows its Python-defined nodes
        return f"<minigrad.autograd.function.{type(self).__name__} object at {hex(id(self))}>"

    def _materialized(self, grads, zeros):
        """Grads with None replaced by zeros, for nodes with several outputs (PyTorch's default)."""
        if self._out_meta is None or not self._materialize:
            return grads
        return tuple(zeros(shape, dt) if g is None else g
                     for g, (shape, dt) in zip(grads, self._out_meta))

    def _per_edge(self, out):
        """What backward returned (one gradient per argument of forward), one per edge."""
        if type(out) is not tuple:
            out = (out,)
        n = len(self.needs_input_grad)
        if len(out) != n:
            if len(out) > n and all(g is None for g in out[n:]):
                out = out[:n]  # PyTorch tolerates trailing Nones
            else:
                raise RuntimeError(
                    f"function {self.name()} returned an incorrect number of gradients "
                    f"(expected {n}, got {len(out)})"
                )
        if self._edge_args is not None:
            out = tuple(out[i] for i in self._edge_args)
        return out


def _tensor_zeros(shape, dtype):
    """Zeros for ``_materialized`` on a walk of Tensors."""
    return Tensor._make(np.zeros(shape, dtype=dtype.np if hasattr(dtype, "np") else dtype))
