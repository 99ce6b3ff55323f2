"""Class indices as vectors: ``F.one_hot`` and ``F.embedding``.

``one_hot(t, num_classes)`` turns int64 indices of any shape into a 0/1
int64 tensor with one more, last dim (nothing recorded: indices have no
gradient).  ``embedding(indices, weight)`` looks rows of ``weight`` up
(see ``Embedding`` below).

Source: torch/nn/functional.py (``one_hot``, ``embedding``); ATen's
Onehot.cpp and Embedding.cpp; derivatives.yaml (``embedding``,
``embedding_dense_backward``).
"""

import numpy as np

from ..tensor import Tensor

__all__ = ["one_hot"]

_make = Tensor._make


def one_hot(tensor, num_classes=-1):
    """One-hot vectors of int64 class indices (``F.one_hot``).

    Args:
        tensor (Tensor): int64 indices, any shape, each in [0, num_classes).
        num_classes (int): the length of the new last dim; -1 (default) is
            ``tensor.max() + 1``.

    Returns:
        Tensor of shape ``tensor.shape + (num_classes,)``, int64, 1 at each index.

    Raises:
        RuntimeError: "one_hot is only applicable to index tensor of type
            LongTensor."; "Class values must be non-negative."; "Class values
            must be smaller than num_classes."; "Can not infer total number of
            classes from empty tensor.".
    """
    t = tensor._data
    if t.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if t.size == 0:
        if num_classes == -1:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return _make(np.zeros(t.shape + (num_classes,), dtype=np.int64))
    if t.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(t.max()) + 1
    elif t.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return _make((t[..., None] == np.arange(num_classes)).astype(np.int64))
