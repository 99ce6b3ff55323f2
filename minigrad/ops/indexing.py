"""Indexing: ``x[i]``, ``x[a:b]``, ``x[None]``, masks and integer arrays, ``gather``, ``narrow``.

``x[...]`` is taken apart as PyTorch takes it apart, so the recording shows
the same nodes: an int is a ``select`` (SelectBackward0), a slice that is not
``:`` a ``slice`` (SliceBackward0), ``None`` an ``unsqueeze``; boolean masks
and integer lists/tensors are one advanced ``index`` (IndexBackward0).

The backward of picking elements is putting the gradient back where they came
from, into zeros; an element picked twice (``x[[0, 0]]``) receives the sum of
both gradients (a scatter-add).

Source: PyTorch's ``applySlicing`` (torch/csrc/autograd/python_variable_indexing.cpp)
and derivatives.yaml (``select``, ``slice``, ``index``, ``gather``).
"""

import numpy as np

from .._dtype import SCALAR_TYPE_NAMES
from ..autograd.function import Function
from ..tensor import Tensor
from ._util import as_saved_int, canonical_dim

__all__ = ["Gather", "Index", "IndexAdd", "IndexSelect", "Roll", "Select", "Slice", "gather", "getitem",
           "index_add", "index_select", "narrow", "roll", "select"]

_make = Tensor._make


_ZERO_DIM_INDEX = (
    "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in "
    "C++ to convert a 0-dim tensor to a number"
)


def _check_index(i, size, dim):
    if not -size <= i < size:
        raise IndexError(f"index {i} is out of bounds for dimension {dim} with size {size}")
    return i % size if size else i


class Select(Function):
    """One position along ``dim`` (SelectBackward0); saves dim, index and the input's sizes."""

    _is_view = True
    _quiet_numpy = False

    node_name = "SelectBackward0"
    saved_attrs = ("dim", "index", "self_sym_sizes")

    @staticmethod
    def forward(ctx, a, dim, index, report_dim=None):
        data = a._data
        if data.ndim == 0:
            raise IndexError(_ZERO_DIM_INDEX)
        d = canonical_dim(dim, data.ndim)
        # `report_dim`: the dim of the original tensor, for x[i, j]'s messages
        i = _check_index(int(index), data.shape[d], d if report_dim is None else report_dim)
        ctx.dim, ctx.index, ctx.self_sym_sizes = as_saved_int(dim), as_saved_int(index), data.shape
        ctx._key = (slice(None),) * d + (i,)
        # `...` keeps even a single element a view (not a copy), as PyTorch's select
        return _make(data[ctx._key + (Ellipsis,)], vc=a._shared_vc(), base=a)

    @staticmethod
    def backward(ctx, grad):
        return _PutInZeros.apply(grad, ctx._key, ctx.self_sym_sizes), None, None, None


class Slice(Function):
    """A strided range along ``dim`` (SliceBackward0); saves dim, start, end, step, sizes."""

    _is_view = True
    _quiet_numpy = False

    node_name = "SliceBackward0"
    saved_attrs = ("dim", "start", "end", "step", "self_sym_sizes")

    @staticmethod
    def forward(ctx, a, dim, start, end, step):
        data = a._data
        d = canonical_dim(dim, data.ndim)
        if step is not None and step <= 0:
            raise ValueError("step must be greater than zero")
        sl = slice(start, end, step)
        s0, e0, st = sl.indices(data.shape[d])
        # saved as given, as PyTorch shows them (an open end is INT64_MAX)
        ctx.dim, ctx.self_sym_sizes = as_saved_int(dim), data.shape
        ctx.start = as_saved_int(0 if start is None else start)
        ctx.end = as_saved_int(2**63 - 1 if end is None else end)
        ctx.step = as_saved_int(1 if step is None else step)
        ctx._key = (slice(None),) * d + (slice(s0, e0, st),)
        return _make(data[ctx._key], vc=a._shared_vc(), base=a)

    @staticmethod
    def backward(ctx, grad):
        return _PutInZeros.apply(grad, ctx._key, ctx.self_sym_sizes), None, None, None, None


class Index(Function):
    """Advanced indexing with masks or integer arrays (IndexBackward0).

    Saves the index tensors (``_saved_indices``: one per indexed dim, None
    for ``:``, as PyTorch shows them) for backward, where they are freed as
    every saved tensor is: a second walk raises.  The backward scatter-adds,
    so repeated indices accumulate.
    """

    node_name = "IndexBackward0"
    saved_attrs = ("self_sym_sizes",)

    @staticmethod
    def forward(ctx, a, key, given=None):
        data = a._data
        ctx.self_sym_sizes = data.shape
        try:
            out = data[key]
        except IndexError as err:
            raise IndexError(_numpy_index_message(err, data.shape, key)) from None
        # PyTorch shows the indices as given: a tensor per indexed dim, None for `:`
        shown = given if given is not None else tuple(
            None if isinstance(k, slice) else Tensor._make(np.asarray(k)) for k in key
        )
        ctx._shown = tuple(t is not None for t in shown)
        ctx.save_for_backward(*[t for t in shown if t is not None])
        return _make(np.array(out, order="C"))  # a new tensor, contiguous as PyTorch's

    @staticmethod
    def backward(ctx, grad):
        key = _key_of(ctx.saved_tensors, ctx._shown, len(ctx.self_sym_sizes))
        return _ScatterAdd.apply(grad, key, ctx.self_sym_sizes), None, None


def _key_of(indices, shown, ndim):
    """The numpy key that the saved index tensors stand for (a mask: its nonzero positions)."""
    key = [slice(None)] * ndim
    it = iter(indices)
    pos = 0
    for present in shown:
        if not present:
            pos += 1
            continue
        data = next(it)._data
        comps = np.nonzero(np.atleast_1d(data)) if data.dtype == np.bool_ else (data,)
        for c in comps:
            key[pos] = c
            pos += 1
    return tuple(key)


def _saved_indices(node):
    it = iter(node.saved_tensors)  # raises once freed, as PyTorch's _saved_indices
    return tuple(next(it) if present else None for present in node._shown)


Index._backward_cls._saved_indices = property(
    _saved_indices, doc="The index tensors, None for ``:`` (PyTorch's ``_saved_indices``).")
Index._backward_cls._raw_saved_indices = property(
    lambda node: node._raw_saved_tensors,
    doc="The index tensors, not unpacked (PyTorch's ``_raw_saved_indices``).")


def _numpy_index_message(err, shape, key):
    msg = str(err)
    import re

    m = re.search(r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)", msg)
    if m:
        return f"index {m.group(1)} is out of bounds for dimension {m.group(2)} with size {m.group(3)}"
    return msg


class _PutInZeros(Function):
    """Backward of select/slice: zeros of ``sizes`` with ``grad`` written at ``key``."""

    node_name = "SliceBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, key, sizes):
        ctx.key = key
        out = np.zeros(sizes, dtype=grad._data.dtype)
        out[key] = grad._data
        return _make(out)

    @staticmethod
    def backward(ctx, gg):
        return _Pick.apply(gg, ctx.key), None, None


class _Pick(Function):
    """Indexing by a precomputed numpy key (backward helpers use it); backward scatter-adds."""

    node_name = "IndexBackward0"

    @staticmethod
    def forward(ctx, a, key):
        ctx.key, ctx.sizes = key, a._data.shape
        return _make(np.array(a._data[key], order="C"))

    @staticmethod
    def backward(ctx, grad):
        return _ScatterAdd.apply(grad, ctx.key, ctx.sizes), None


class _ScatterAdd(Function):
    """Backward of advanced indexing: zeros of ``sizes``, gradients added at ``key`` (np.add.at)."""

    node_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, grad, key, sizes):
        ctx.key = key
        out = np.zeros(sizes, dtype=grad._data.dtype)
        np.add.at(out, key, grad._data)
        return _make(out)

    @staticmethod
    def backward(ctx, gg):
        return Index.apply(gg, ctx.key), None, None


def _as_index_array(k, dim_size=None):
    if isinstance(k, Tensor):
        arr = k._data
    else:
        arr = np.asarray(k)
    if arr.dtype == np.bool_:
        return arr
    if arr.dtype.kind not in "iu":
        if arr.size == 0:
            return arr.astype(np.int64)
        raise IndexError(
            "tensors used as indices must be long, int, byte or bool tensors"
        )
    return arr.astype(np.int64, copy=False)


def check_key(ndim, key):
    """``(key as a tuple, dims it consumes)``, or PyTorch's IndexError for a key too long for ``ndim``.

    Raises:
        IndexError: "too many indices for tensor of dimension 0", or, for a
            lone int or slice key of a 0-d tensor, PyTorch's own sentences.
        TypeError: for a string in the key.
    """
    if ndim == 0 and not isinstance(key, tuple):
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            raise IndexError(_ZERO_DIM_INDEX)
        if isinstance(key, slice):
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if not isinstance(key, tuple):
        key = (key,)
    # how many dims the key consumes (None, Ellipsis and Python bools consume none)
    consumed = 0
    for k in key:
        if isinstance(k, str):
            raise TypeError(f"new(): invalid data type '{type(k).__name__}'")
        if k is None or k is Ellipsis or isinstance(k, bool):
            continue
        if isinstance(k, (Tensor, np.ndarray, list)) and _as_index_array(k).dtype == np.bool_:
            consumed += _as_index_array(k).ndim
        else:
            consumed += 1
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    return key, consumed


def ints_for_scalar_tensors(key):
    """The key with each 0-d integer tensor replaced by its int, and each ``range`` by the
    list it is (a tuple stays a tuple).

    PyTorch's indexing (``applySlicing``) selects with such a tensor, as with a
    Python int (SelectBackward0); bool 0-d tensors stay masks.  A ``range``
    (``logprobs[range(n), Yb]``) is read as any sequence of ints.
    """
    def one(k):
        if isinstance(k, Tensor) and k._data.ndim == 0 and k._data.dtype.kind in "iu":
            return int(k._data)
        if type(k) is range:
            return list(k)
        return k

    return tuple(one(k) for k in key) if isinstance(key, tuple) else one(key)


def getitem(self, key):
    """``self[key]`` with PyTorch's decomposition into select / slice / unsqueeze / index.

    Raises:
        IndexError: PyTorch's "index 5 is out of bounds for dimension 0 with
            size 2", "too many indices for tensor of dimension 2", "invalid
            index of a 0-dim tensor. ..."
        TypeError: for a key that is not an index at all (a string, ...).
    """
    # PyTorch (applySlicing): a lone slice is always recorded (SliceBackward0);
    # inside a tuple, a slice that covers its whole dim is skipped, and a key
    # that leaves the tensor as it is gives an alias (AliasBackward0)
    single_slice = isinstance(key, slice)
    key, consumed = check_key(self._data.ndim, key)
    key = ints_for_scalar_tensors(key)
    ndim = self._data.ndim
    out = self
    dim = 0        # position in `out`
    orig = 0       # position in `self`, for error messages
    advanced = []  # (dim in `out`, index array, the index as given, dims it covers)
    for k in key:
        if k is Ellipsis:
            skip = ndim - consumed
            dim += skip
            orig += skip
        elif k is None:
            out = unsqueeze_for_index(out, dim)
            dim += 1
        elif isinstance(k, bool):
            out = unsqueeze_for_index(out, dim)
            arr = np.array([0] if k else [], dtype=np.int64)
            advanced.append((dim, arr, Tensor._make(arr), 1))  # PyTorch shows tensor([0])
            dim += 1
        elif isinstance(k, (int, np.integer)):
            out = Select.apply(out, dim, int(k), orig)
            orig += 1
        elif isinstance(k, slice):
            if single_slice or not _covers_dim(k, out._data.shape[dim]):
                out = Slice.apply(out, dim, k.start, k.stop, k.step)
            dim += 1
            orig += 1
        elif isinstance(k, (Tensor, list, tuple, np.ndarray)):
            arr = _as_index_array(k)
            given = k if isinstance(k, Tensor) else Tensor._make(np.asarray(arr))
            if arr.dtype == np.bool_:
                expected = out._data.shape[dim:dim + arr.ndim]
                if arr.shape != expected:
                    for j, (m, sz) in enumerate(zip(arr.shape, expected)):
                        if m != sz:
                            raise IndexError(
                                f"The shape of the mask {list(arr.shape)} at index {j} does not "
                                f"match the shape of the indexed tensor {list(out._data.shape)} "
                                f"at index {dim + j}"
                            )
                if arr.ndim == 0:
                    out = unsqueeze_for_index(out, dim)
                    idx = np.nonzero(np.atleast_1d(arr))[0]
                    advanced.append((dim, idx, Tensor._make(idx), 1))  # shown as tensor([0])
                    dim += 1
                    continue
                for j, idx in enumerate(np.nonzero(arr)):
                    advanced.append((dim + j, idx, given if j == 0 else None, arr.ndim if j == 0 else 0))
                dim += arr.ndim
                orig += arr.ndim
            else:
                size = out._data.shape[dim]
                if arr.size and (arr.max() >= size or arr.min() < -size):
                    bad = int(arr.max()) if arr.max() >= size else int(arr.min())
                    # PyTorch's index kernel counts dims among the advanced indices
                    raise IndexError(
                        f"index {bad} is out of bounds for dimension {len(advanced)} with size {size}"
                    )
                advanced.append((dim, arr, given, 1))
                dim += 1
                orig += 1
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                "are valid indices (got " + type(k).__name__ + ")"
            )
    if advanced:
        full = [slice(None)] * out._data.ndim
        shown, pos = [], 0
        for d, arr, given, covers in advanced:
            full[d] = arr
            if given is not None:
                shown.extend([None] * (d - pos))
                shown.append(given)
                pos = d + covers
        out = Index.apply(out, tuple(full), tuple(shown))
    elif out is self:
        # x[...], x[()], x[:, :]: the whole tensor, as a view (AliasBackward0)
        from .shape import Alias

        out = Alias.apply(self)
    return out


def _covers_dim(k, size):
    """True for a slice that takes a whole dim of ``size`` in order (PyTorch skips it in a tuple)."""
    if k.step is not None and k.step <= 0:
        return False  # (Slice raises "step must be greater than zero")
    start, stop, step = k.indices(size)
    return start == 0 and stop == size and step == 1


def unsqueeze_for_index(t, dim):
    """``x[None]``: insert a size-1 dim (UnsqueezeBackward0), as PyTorch's indexing does."""
    from .shape import Unsqueeze

    return Unsqueeze.apply(t, dim)


def select(input, dim, index):
    """The slice at ``index`` along ``dim``, that dim removed (``torch.select``); SelectBackward0.

    Raises:
        IndexError: PyTorch's "select(): index 3 out of range for tensor of size [2, 3] at
            dimension 1"; "Dimension out of range ..." for a bad dim.
    """
    if not input._data.ndim:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    if input._data.ndim:
        d = canonical_dim(dim, input._data.ndim)
        size = input._data.shape[d]
        if not -size <= index < size:
            raise IndexError(
                f"select(): index {index} out of range for tensor of size "
                f"{list(input._data.shape)} at dimension {d}"
            )
    return Select.apply(input, dim, index)


def narrow(input, dim, start, length):
    """``length`` positions from ``start`` along ``dim`` (``torch.narrow``); SliceBackward0."""
    if not input._data.ndim:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = canonical_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    if start < 0:
        start += size
    if not 0 <= start <= size or start + length > size or length < 0:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return Slice.apply(input, dim, start, start + length, 1)


class Gather(Function):
    """Pick ``input[..., index[i], ...]`` along ``dim`` (GatherBackward0); backward scatter-adds."""

    node_name = "GatherBackward0"
    saved_names = ("index", "self")  # PyTorch's order; it saves self too (for its shape)
    saved_attrs = ("dim", "sparse_grad")

    @staticmethod
    def forward(ctx, a, dim, idx):
        # `idx` is the index tensor in a 1-tuple, or a plain array (internal
        # callers): not a Tensor argument, so, as in PyTorch, it gets no edge
        if type(idx) is tuple:
            (index,) = idx
            idx = index._data
        else:
            index = Tensor._make(idx)
        d = canonical_dim(dim, a._data.ndim)
        if idx.dtype != np.int64 and idx.dtype != np.int32:
            raise RuntimeError("gather(): Expected dtype int32/int64 for index")
        if idx.ndim != a._data.ndim:
            raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
        size = a._data.shape[d]
        if idx.size and (idx.max() >= size or idx.min() < -size):
            raise RuntimeError(f"index {int(idx.max())} is out of bounds for dimension {d} with size {size}")
        ctx.dim, ctx.sparse_grad = d, False
        ctx.save_for_backward(index, a)  # freed after the walk, as PyTorch's _saved_index
        return _make(np.take_along_axis(a._data, idx, axis=d))

    @staticmethod
    def backward(ctx, grad):
        index, a = ctx.saved_tensors
        return _GatherScatterAdd.apply(grad, ctx.dim, index, a._data.shape), None, None


class _GatherScatterAdd(Function):
    """Backward of gather: zeros of ``sizes`` with ``grad`` added at ``index`` along ``dim``."""

    node_name = "ScatterAddBackward0"

    @staticmethod
    def forward(ctx, grad, d, index, sizes):
        ctx.d, ctx.index = d, index
        out = np.zeros(sizes, dtype=grad._data.dtype)
        idx = index._data
        # np.add.at over explicit coordinates, so repeated indices accumulate
        coords = list(np.indices(idx.shape, sparse=True))
        coords[d] = idx
        np.add.at(out, tuple(coords), grad._data)
        return _make(out)

    @staticmethod
    def backward(ctx, gg):
        return Gather.apply(gg, ctx.d, ctx.index._data), None, None, None


def gather(input, dim, index):
    """Values along ``dim`` at ``index`` (int64 or int32, same ndim as input) (``torch.gather``)."""
    if not isinstance(index, Tensor):
        raise TypeError(f"gather(): argument 'index' (position 3) must be Tensor, not {type(index).__name__}")
    return Gather.apply(input, dim, (index,))


# -------------------------------------------- index_select and index_add

def _vector_index(index, name):
    """Check an index tensor the way index_select / index_add_ do; return its (int64 or int32) data."""
    if not isinstance(index, Tensor):
        raise TypeError(f"{name}(): argument 'index' (position 2) must be Tensor, not "
                        f"{type(index).__name__}")
    data = index._data
    if data.dtype != np.int64 and data.dtype != np.int32:
        if name == "index_select":
            raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index but got: "
                           f"{SCALAR_TYPE_NAMES[str(data.dtype)]}")
    if data.ndim > 1:
        if name == "index_select":  # (its message stops there)
            raise IndexError("index_select(): Index is supposed to be a vector")
        raise IndexError(f"{name}(): Index is supposed to be a vector, but got dim: {data.ndim} "
                         f"with type: {SCALAR_TYPE_NAMES[str(data.dtype)]} and size: {list(data.shape)}")
    return data.reshape(-1)


class IndexSelect(Function):
    """The entries ``index`` along ``dim`` (IndexSelectBackward0); saves dim, index, sizes."""

    node_name = "IndexSelectBackward0"
    saved_names = ("index",)
    saved_attrs = ("dim", "self_sym_sizes")

    @staticmethod
    def forward(ctx, a, dim, held):
        (index,) = held  # in a tuple: no edge for the index, as in PyTorch
        idx = _vector_index(index, "index_select")
        data = a._data
        d = canonical_dim(dim, data.ndim)
        size = data.shape[d] if data.ndim else 1
        if idx.size and (idx.max() >= size or idx.min() < -size):
            raise IndexError("index out of range in self")
        ctx.dim, ctx.self_sym_sizes, ctx._d = d, data.shape, d
        ctx.save_for_backward(index)
        out = np.take(data, idx, axis=d) if data.ndim else data.reshape(-1)[idx].reshape(
            index._data.shape)
        return _make(np.ascontiguousarray(out))

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        from ..creation import zeros

        base = zeros(ctx.self_sym_sizes, dtype=grad.dtype)
        return IndexAdd.apply(base, ctx._d, (index,), grad, 1), None, None


class IndexAdd(Function):
    """``self`` with ``alpha * source`` added at ``index`` along ``dim`` (IndexAddBackward0).

    Backward: ``self`` gets the gradient as it is; ``source`` gets
    ``alpha * grad.index_select(dim, index)``.
    """

    node_name = "IndexAddBackward0"
    saved_names = ("index", "source")
    saved_attrs = ("alpha", "dim", "source_dim")

    @staticmethod
    def forward(ctx, a, dim, held, source, alpha):
        (index,) = held
        idx = _vector_index(index, "index_add_")
        data, src = a._data, source._data
        if data.dtype != src.dtype:
            raise RuntimeError(f"index_add_(): self ({SCALAR_TYPE_NAMES[str(data.dtype)]}) and source "
                               f"({SCALAR_TYPE_NAMES[str(src.dtype)]}) must have the same scalar type")
        d = canonical_dim(dim, data.ndim)
        if data.ndim and src.ndim == 0 and idx.size != 1:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        n_src = src.shape[d] if src.ndim else 1
        if idx.size != n_src:
            raise RuntimeError(f"index_add_(): Number of indices ({idx.size}) should be equal to "
                               f"source.size(dim): ({n_src}), for dim: {d}")
        if src.ndim and (src.ndim != data.ndim or any(
                s != t for i, (s, t) in enumerate(zip(src.shape, data.shape)) if i != d)):
            raise RuntimeError(
                "source tensor shape must match self tensor shape, excluding the specified "
                f"dimension. Got self.shape = {list(data.shape)} source.shape = {list(src.shape)}")
        size = data.shape[d] if data.ndim else 1
        if idx.size and (idx.max() >= size or idx.min() < -size):
            bad = int(idx.max()) if idx.max() >= size else int(idx.min())
            raise RuntimeError(f"index {bad} is out of bounds for dimension {d} with size {size}")
        ctx.alpha, ctx.dim, ctx.source_dim, ctx._d = alpha, d, src.ndim, d
        if ctx.needs_input_grad[3]:
            ctx.save_for_backward(index, source)
        else:
            ctx.save_for_backward(index, None)
        out = data.copy()
        if not data.ndim:
            out = out + alpha * src.reshape(())
        else:
            key = [slice(None)] * data.ndim
            key[d] = idx
            moved = src if src.ndim else src.reshape((1,) * data.ndim)
            np.add.at(out, tuple(key), (alpha * moved).astype(data.dtype, copy=False))
        return _make(out)

    @staticmethod
    def backward(ctx, grad):
        index, source = ctx.saved_tensors
        gs = None
        if ctx.needs_input_grad[3]:
            gs = IndexSelect.apply(grad, ctx._d, (index,)) if grad.ndim else grad.reshape(1)
            if ctx.alpha != 1:
                gs = gs * ctx.alpha
            gs = gs.reshape(source.shape) if gs.shape != source.shape else gs
        return grad, None, None, gs, None


def index_select(input, dim, index):
    """The entries of ``input`` at ``index`` (1-d int64) along ``dim`` (``torch.index_select``).

    Raises:
        RuntimeError: "index_select(): Expected dtype int32/int64 for index ...".
        IndexError: "index out of range in self" for an index beyond the dim.
    """
    return IndexSelect.apply(input, dim, (index,))


def index_add(input, dim, index, source, *, alpha=1):
    """``input`` with ``alpha * source`` added at ``index`` along ``dim`` (``torch.index_add``).

    Args:
        input (Tensor): any shape.
        dim (int): the dim ``index`` refers to.
        index (Tensor): 1-d int64, one entry per slice of ``source`` along ``dim``;
            repeated entries accumulate.
        source (Tensor): ``input``'s shape except ``len(index)`` along ``dim``; same dtype.
        alpha (number): the factor on ``source``.

    Raises:
        RuntimeError / IndexError: PyTorch's messages for a bad index dtype,
            shape or value, and for shapes that do not fit.
    """
    if not isinstance(source, Tensor):
        raise TypeError(f"index_add(): argument 'source' (position 3) must be Tensor, not "
                        f"{type(source).__name__}")
    return IndexAdd.apply(input, dim, (index,), source, alpha)


class Roll(Function):
    """The elements shifted cyclically by ``shifts`` along ``dims`` (RollBackward0).

    With ``dims`` empty the tensor is rolled as if flattened, then given its
    shape back.  Saves ``shifts`` and ``dims`` (as given, a negative one read
    as unsigned 64-bit, as PyTorch shows them); the gradient is the incoming
    one rolled back: PyTorch's ``grad.roll(-reversed(shifts), reversed(dims))``.
    """

    node_name = "RollBackward0"
    saved_attrs = ("dims", "shifts")
    _numpy_forward = True
    _quiet_numpy = False

    @staticmethod
    def forward(ctx, a, shifts, dims):
        data = a._data
        if not data.ndim and dims:
            raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
        # an empty tensor is copied before any dim is read, as PyTorch's roll does
        axes = tuple(canonical_dim(d, data.ndim) for d in dims) if data.size else ()
        ctx.shifts, ctx.dims = tuple(as_saved_int(s) for s in shifts), tuple(as_saved_int(d) for d in dims)
        ctx._shifts, ctx._dims = shifts, dims
        if not data.ndim or not data.size:
            return _make(data.copy())
        return _make(np.ascontiguousarray(np.roll(data, shifts, axes if axes else None)))  # as PyTorch's

    @staticmethod
    def formula(F, ctx, grad):
        back = tuple(-s for s in reversed(ctx._shifts))
        return F.roll(grad, back, tuple(reversed(ctx._dims))), None, None


def _int_tuple(name, arg, position, value):
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return (int(value),)
    if isinstance(value, (tuple, list)) and all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value):
        return tuple(int(v) for v in value)
    raise TypeError(f"{name}(): argument '{arg}' (position {position}) must be tuple of ints, not "
                    f"{type(value).__name__}")


_NO_SHIFTS = object()


def roll(input, shifts=_NO_SHIFTS, dims=()):
    """Roll the elements cyclically along ``dims`` (``torch.roll``); node RollBackward0.

    Args:
        input (Tensor): any shape and dtype.
        shifts (int | tuple[int]): how far each dim rolls (elements leaving at
            the end come back at the start; negative rolls the other way).
        dims (int | tuple[int]): the dims, one per shift; none (the default):
            the tensor rolls as if flattened, by one shift.

    Raises:
        RuntimeError: "shifts and dimensions must align. shifts: 2, dims:1";
            "`shifts` required" for an empty ``shifts``.
        IndexError: for a dim out of range.
        TypeError: without ``shifts``, or for a shift or dim that is not an int.
    """
    return _roll(input, shifts, dims, 2)


def roll_method(self, shifts=_NO_SHIFTS, dims=()):
    """``Tensor.roll(shifts, dims=())``: ``roll`` of this tensor (arguments from position 1)."""
    return _roll(self, shifts, dims, 1)


def _roll(input, shifts, dims, first):
    if shifts is _NO_SHIFTS:
        raise TypeError('roll() missing 1 required positional arguments: "shifts"')
    shifts = _int_tuple("roll", "shifts", first, shifts)
    dims = () if dims is None else _int_tuple("roll", "dims", first + 1, dims)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if len(shifts) != len(dims) and not (len(shifts) == 1 and not dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    return Roll.apply(input, shifts, dims)
