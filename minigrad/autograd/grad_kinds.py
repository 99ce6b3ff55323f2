"""How gradients travel through a walk: the ``F`` that each node's ``apply(grads, F)`` is given.

* ``ARRAYS``: numpy arrays (None: no gradient), on a walk that records
  nothing (``create_graph=False``, the usual case): no Tensor is made per step.
* ``TENSORS``: Tensors, each step recorded when grad mode is on
  (``create_graph=True``, and calling a node, ``y.grad_fn(v)``).

``ops/formulas.py`` extends the two classes here into ``ARRAY_OPS`` and
``TENSOR_OPS`` (what a primitive's formula computes with) and registers them
in their place.  A node written on Tensors serves an ``ARRAYS`` walk through
``F.to_tensors`` and ``F.from_tensors``.
"""

from ..tensor import Tensor

__all__ = ["ARRAYS", "Arrays", "TENSORS", "Tensors", "register_grad_kinds"]


class Arrays:
    """Gradients as numpy arrays (None: no gradient), on a walk that records nothing.
    ops/formulas.py extends it into ``ARRAY_OPS``, what a formula computes with there."""

    __slots__ = ()
    records = False

    def to_tensors(self, grads):
        return tuple(None if g is None else Tensor._make(g) for g in grads)

    def from_tensors(self, out):
        return tuple(None if g is None else g._data for g in (out if type(out) is tuple else (out,)))


class Tensors:
    """Gradients as Tensors, each step recorded when grad mode is on (``create_graph=True``).
    ops/formulas.py extends it into ``TENSOR_OPS``."""

    __slots__ = ()
    records = True

    def to_tensors(self, grads):
        return tuple(grads)

    def from_tensors(self, out):
        return out if type(out) is tuple else (out,)


# ------------------------------------------------------------ registration slot
# The kinds the walk passes to apply: ops/formulas.py's ARRAY_OPS and TENSOR_OPS (read as
# grad_kinds.ARRAYS at call time: they are replaced when ops load).
ARRAYS, TENSORS = Arrays(), Tensors()


def register_grad_kinds(arrays, tensors):
    """Called by ``minigrad/ops/formulas.py`` with ``ARRAY_OPS`` and ``TENSOR_OPS``."""
    global ARRAYS, TENSORS
    ARRAYS, TENSORS = arrays, tensors
