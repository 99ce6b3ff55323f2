"""``Embedding``: a lookup table of learned vectors, one row per index.

``Embedding(10, 3)(indices)`` is ``F.embedding(indices, weight)``: rows of
the (10, 3) ``weight``, recorded as EmbeddingBackward0, whose gradient adds
each looked-up row's gradient into that row of ``weight.grad``.  ``weight``
starts N(0, 1) (from minigrad's seeded generator), with the row of
``padding_idx`` zeroed.  Prints as PyTorch's: ``Embedding(10, 3, padding_idx=0)``.

Source: torch/nn/modules/sparse.py.
"""

from ... import creation
from ...autograd.grad_mode import no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Embedding"]


class Embedding(Module):
    """A table of ``num_embeddings`` vectors of size ``embedding_dim`` (``torch.nn.Embedding``).

    Args:
        num_embeddings (int), embedding_dim (int): the weight's shape.
        padding_idx (int | None): its row starts at zero and gets no gradient
            (negative counts from the end).
        max_norm (float | None), norm_type (float): rows looked up are renormalized in place.
        scale_grad_by_freq (bool): divide each row's gradient by its index's count in the batch.
        sparse (bool): only False.

    Raises:
        AssertionError: "Padding_idx must be within num_embeddings"; "Shape of
            weight does not match num_embeddings and embedding_dim".
    """

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None,
                 dtype=None):
        super().__init__()
        from ..._device import check

        check(device)
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        if padding_idx is not None:
            if padding_idx > 0 and padding_idx >= num_embeddings or padding_idx < -num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            if padding_idx < 0:
                padding_idx = num_embeddings + padding_idx
        self.padding_idx = padding_idx
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if _weight is None:
            self.weight = Parameter(creation.empty(num_embeddings, embedding_dim, dtype=dtype),
                                    requires_grad=not _freeze)
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight, requires_grad=not _freeze)
        self.sparse = sparse

    def reset_parameters(self):
        """weight ~ N(0, 1), the padding row zeroed."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        if self.sparse is not False:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, sparse=False):
        """An Embedding whose weight is ``embeddings`` (2-d), frozen unless ``freeze=False``.

        Raises:
            AssertionError: "Embeddings parameter is expected to be 2-dimensional".
        """
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, _freeze=freeze,
                   padding_idx=padding_idx, max_norm=max_norm, norm_type=norm_type,
                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)
