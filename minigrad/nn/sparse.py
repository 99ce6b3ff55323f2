"""Class indices as vectors: ``F.one_hot`` and ``F.embedding``.

``one_hot(t, num_classes)`` turns int64 indices of any shape into a 0/1
int64 tensor with one more, last dim (nothing recorded: indices have no
gradient).

``embedding(indices, weight)`` looks rows of ``weight`` (num_embeddings, D)
up: ``weight[indices]``, of shape ``indices.shape + (D,)``.  One primitive,
as in PyTorch (EmbeddingBackward0, one edge: the weight; the indices get
none), saving ``indices``, ``padding_idx``, ``scale_grad_by_freq``,
``sparse`` and ``weight_sym_argsize_0`` (num_embeddings).  Its gradient
scatters the incoming rows back, adding the rows of repeated indices
(``embedding_dense_backward``): rows of ``padding_idx`` get nothing, and
with ``scale_grad_by_freq`` each row is divided by how often its index
occurs.  That kernel is an op too (EmbeddingDenseBackwardBackward0), whose
own gradient gathers the rows again.

Source: torch/nn/functional.py (``one_hot``, ``embedding``); ATen's
Onehot.cpp and Embedding.cpp; derivatives.yaml (``embedding``,
``embedding_dense_backward``).
"""

import numpy as np

from ..autograd.function import Function
from ..tensor import Tensor

__all__ = ["embedding", "one_hot"]

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


def _scatter_rows(grad, idx, num_weights, padding_idx, scale_grad_by_freq):
    """``embedding_dense_backward`` on arrays: rows of ``grad`` added at ``idx`` into zeros."""
    d = grad.shape[-1]
    flat = idx.reshape(-1)
    rows = np.broadcast_to(grad, idx.shape + (d,)).reshape(-1, d)
    if scale_grad_by_freq:
        counts = np.bincount(flat, minlength=num_weights)
        rows = rows / counts[flat][:, None].astype(grad.dtype)
    out = np.zeros((num_weights, d), dtype=grad.dtype)
    keep = flat != padding_idx
    np.add.at(out, flat[keep], rows[keep])
    return out


class EmbeddingDenseBackward(Function):
    """``embedding_dense_backward`` as an op (EmbeddingDenseBackwardBackward0); saves indices, padding_idx.

    Its gradient (``embedding_dense_double_backward``) gathers the rows of
    the incoming gradient at the indices (zeros at ``padding_idx``), divided
    by the index counts with ``scale_grad_by_freq`` (PyTorch 2.13 omits that
    division, so its second derivative is wrong there; minigrad's is right).
    """

    node_name = "EmbeddingDenseBackwardBackward0"
    saved_names = ("indices",)
    saved_attrs = ("padding_idx",)
    _numpy_forward = True
    _ints_are_indices = True

    @staticmethod
    def kernel(grad, idx, num_weights, padding_idx, scale_grad_by_freq):
        return _scatter_rows(grad, idx, num_weights, padding_idx, scale_grad_by_freq)

    @staticmethod
    def forward(ctx, grad, idx, num_weights, padding_idx, scale_grad_by_freq):
        ctx.padding_idx = padding_idx % 2**64  # PyTorch's unsigned saved value: -1 is 2**64 - 1
        ctx._padding_idx, ctx._scale = padding_idx, scale_grad_by_freq
        ctx.save_for_backward(_make(idx))
        return _make(_scatter_rows(grad._data, idx, num_weights, padding_idx, scale_grad_by_freq))

    @staticmethod
    def backward(ctx, gg):
        (indices,) = ctx.saved_tensors
        idx = indices._data
        rows = gg.index_select(0, Tensor._make(idx.reshape(-1))).view(*idx.shape, gg.shape[-1])
        factor = (idx != ctx._padding_idx).astype(gg._data.dtype)
        if ctx._scale:
            counts = np.bincount(idx.reshape(-1), minlength=gg.shape[0])
            factor = factor / counts[idx].astype(gg._data.dtype)
        return rows * _make(factor[..., None]), None, None, None, None


class Embedding(Function):
    """``embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse)`` (EmbeddingBackward0)."""

    node_name = "EmbeddingBackward0"
    saved_names = ("indices",)
    saved_attrs = ("padding_idx", "scale_grad_by_freq", "sparse", "weight_sym_argsize_0")
    _numpy_forward = True
    _ints_are_indices = True

    @staticmethod
    def forward(ctx, weight, idx, padding_idx, scale_grad_by_freq, sparse):
        # `idx` arrives as a plain array: like PyTorch, the indices get no edge
        ctx.padding_idx = padding_idx % 2**64
        ctx._padding_idx = padding_idx
        ctx.scale_grad_by_freq, ctx.sparse = scale_grad_by_freq, sparse
        ctx.weight_sym_argsize_0 = weight._data.shape[0]
        ctx.save_for_backward(_make(idx))
        return _make(weight._data[idx])

    @staticmethod
    def formula(F, ctx, grad, indices):
        return (F.call(EmbeddingDenseBackward, grad, F.data(indices), ctx.weight_sym_argsize_0,
                       ctx._padding_idx, ctx.scale_grad_by_freq), None, None, None, None)


def _renorm_(weight, idx, max_norm, norm_type):
    """``embedding_renorm_``: rows of ``weight`` at ``idx`` with norm > max_norm scaled to it, in place."""
    from ..optim.optimizer import _bump_version

    w = weight._data
    rows = np.unique(idx)
    norms = np.linalg.norm(w[rows].astype(np.float64), ord=norm_type, axis=1)
    big = norms > max_norm
    if big.any():
        scale = (max_norm / (norms[big] + 1e-7)).astype(w.dtype)
        w[rows[big]] *= scale[:, None]
        _bump_version(weight)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """Rows of ``weight`` at the indices ``input`` (``F.embedding``); EmbeddingBackward0.

    Args:
        input (Tensor): int64 indices, any shape, in [0, num_embeddings).
        weight (Tensor): (num_embeddings, D).
        padding_idx (int | None): rows at this index get no gradient (negative counts from the end).
        max_norm (float | None): rows looked up with a larger ``norm_type``-norm
            are first scaled down to it, in ``weight`` itself (under no_grad).
        scale_grad_by_freq (bool): divide each row's gradient by its index's count.
        sparse (bool): only False (sparse gradients are not supported).

    Returns:
        Tensor ``input.shape + (D,)``, ``weight``'s dtype.

    Raises:
        IndexError: "index out of range in self".
        RuntimeError: "Expected tensor for argument #1 'indices' to have one of
            the following scalar types: Long, Int; but got torch.FloatTensor
            instead (while checking arguments for embedding)"; "'weight' must be 2-D".
        AssertionError: "Padding_idx must be within num_embeddings".
        NotImplementedError: ``sparse=True``.
    """
    n = weight.shape[0] if weight.ndim else 0
    if padding_idx is not None:
        if padding_idx > 0 and not padding_idx < n or padding_idx < 0 and not padding_idx >= -n:
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0:
            padding_idx = n + padding_idx
    else:
        padding_idx = -1
    idx = input._data
    if idx.dtype not in (np.int64, np.int32):
        kind = {"float32": "Float", "float64": "Double", "bool": "Bool"}.get(idx.dtype.name, "Float")
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following "
                           f"scalar types: Long, Int; but got torch.{kind}Tensor instead (while "
                           "checking arguments for embedding)")
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError("index out of range in self")
    if sparse:
        raise NotImplementedError("minigrad: sparse gradients (sparse=True) are not supported")
    idx = idx.astype(np.int64)
    if max_norm is not None:
        _renorm_(weight, idx, max_norm, norm_type)
    return Embedding.apply(weight, idx, padding_idx, scale_grad_by_freq, sparse)
