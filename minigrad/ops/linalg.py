"""Linear algebra: matrix products, each with its two vector-Jacobian products; triangles.

For C = A @ B with A (n, k) and B (k, m): Ā = C̄ Bᵀ and B̄ = Aᵀ C̄.  ``dot``,
``mv`` and ``bmm`` are the same rule for vectors and batches; ``matmul``
dispatches to them the way PyTorch does, so the recorded nodes match.

``tril``/``triu`` keep a triangle of each matrix (their gradient: the same
triangle of the incoming one); ``outer`` is a reshape and a product.

Source: PyTorch's derivatives.yaml (``mm``, ``mv``, ``dot``, ``bmm``, ``tril``, ``triu``) and
``at::native::matmul`` (aten/src/ATen/native/LinearAlgebra.cpp).
"""

import math

import numpy as np

from .._dtype import C_TYPE_NAMES, SCALAR_TYPE_NAMES
from ..autograd.function import Function
from ..tensor import Tensor
from ._util import as_saved_int
from .shape import (
    SqueezeDim,
    Transpose,
    UnsafeView,
    Unsqueeze,
    contiguous,
    expand,
    squeeze_,
)

__all__ = ["Bmm", "DiagEmbed", "Diagonal", "DiagonalCopy", "Dot", "Mm", "Mv", "Tril", "Triu", "bmm", "diag",
           "diagonal", "dot", "ger", "matmul", "mm", "mv", "outer", "tril", "triu"]

_make = Tensor._make


def _dtype_name(d):
    return C_TYPE_NAMES[d.name]


def _no_bool(a, b, kernel):
    """PyTorch's products have no bool kernel: its error, not numpy's logical product."""
    if a._data.dtype == np.bool_ and b._data.dtype == np.bool_:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


class Mm(Function):
    """2-d matrix product (MmBackward0); saves each operand if the other needs a gradient."""

    node_name = "MmBackward0"
    saved_names = ("mat2", "self")  # PyTorch's order (saved_tensors_hooks see mat2 first)
    saved_attrs = ("self_sym_sizes", "self_sym_strides", "mat2_sym_sizes", "mat2_sym_strides")

    @staticmethod
    def forward(ctx, a, b):
        _no_bool(a, b, "addmm_impl_cpu_")
        A, B = a._data, b._data
        if A.ndim != 2:
            raise RuntimeError("self must be a matrix")
        if B.ndim != 2:
            raise RuntimeError("mat2 must be a matrix")
        if A.shape[1] != B.shape[0]:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({A.shape[0]}x{A.shape[1]} and "
                f"{B.shape[0]}x{B.shape[1]})"
            )
        if A.dtype != B.dtype:
            raise RuntimeError(
                f"expected m1 and m2 to have the same dtype, but got: {_dtype_name(a.dtype)} != "
                f"{_dtype_name(b.dtype)}"
            )
        need = ctx.needs_input_grad
        ctx.save_for_backward(b if need[0] else None, a if need[1] else None)
        ctx.self_sym_sizes, ctx.mat2_sym_sizes = A.shape, B.shape
        # each operand's strides are kept only if that operand needs a gradient
        ctx.self_sym_strides = _element_strides(A) if need[0] else ()
        ctx.mat2_sym_strides = _element_strides(B) if need[1] else ()
        return _make(A @ B)

    @staticmethod
    def formula(F, ctx, grad, b, a):
        need = ctx.needs_input_grad
        ga = mm_mat1_backward(F, grad, b, ctx.self_sym_sizes, ctx.self_sym_strides) if need[0] else None
        gb = mm_mat2_backward(F, grad, a, ctx.mat2_sym_sizes, ctx.mat2_sym_strides) if need[1] else None
        return ga, gb


def _element_strides(m):
    """A matrix's strides in elements, as PyTorch's ``stride()`` counts them."""
    s0, s1 = m.strides
    n = m.itemsize
    return (s0 // n, s1 // n)


def _transposed(sizes, strides):
    """True for a 2-d operand laid out as the transpose of a contiguous matrix (``w.t()``)."""
    return len(strides) == 2 and strides[0] == 1 and strides[1] == sizes[0]


def mm_mat1_backward(F, grad, mat2, sizes, strides):
    """The gradient of ``mat1`` in ``mat1 @ mat2``: ``grad @ mat2ᵀ``, computed in mat1's layout.

    For a transposed ``mat1`` the product is taken as ``(mat2 @ gradᵀ)ᵀ``, so
    the gradient comes out laid out as ``mat1`` is (PyTorch's ``mm_mat1_backward``).
    """
    if _transposed(sizes, strides):
        return F.t(F.mm(mat2, F.t(grad)))
    return F.mm(grad, F.t(mat2))


def mm_mat2_backward(F, grad, mat1, sizes, strides):
    """The gradient of ``mat2``: ``mat1ᵀ @ grad``, in mat2's layout (``mm_mat2_backward``).

    For ``x @ w.t()`` (``nn.Linear``), ``w.t()`` is transposed: the gradient is
    ``(gradᵀ @ x)ᵀ``, whose transpose, ``w.grad``, is then contiguous like ``w``.
    """
    if _transposed(sizes, strides):
        return F.t(F.mm(F.t(grad), mat1))
    return F.mm(F.t(mat1), grad)


class Dot(Function):
    """Inner product of two 1-d tensors (DotBackward0); saves ``self`` and ``tensor``."""

    node_name = "DotBackward0"
    saved_names = ("self", "tensor")

    @staticmethod
    def forward(ctx, a, b):
        _no_bool(a, b, "dot")
        if a._data.shape != b._data.shape:
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{a._data.shape[0]}] and src [{b._data.shape[0]}] to have the same "
                f"number of elements, but got {a._data.shape[0]} and {b._data.shape[0]} elements respectively"
            )
        if a._data.dtype != b._data.dtype:
            raise RuntimeError(
                "dot : expected both vectors to have same dtype, but found "
                f"{SCALAR_TYPE_NAMES[a.dtype.name]} and {SCALAR_TYPE_NAMES[b.dtype.name]}"
            )
        need = ctx.needs_input_grad
        ctx.save_for_backward(a if need[1] else None, b if need[0] else None)
        return _make(np.asarray(np.dot(a._data, b._data)))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need = ctx.needs_input_grad
        return (grad * b if need[0] else None), (grad * a if need[1] else None)


class Mv(Function):
    """Matrix times vector (MvBackward0); saves ``self`` and ``vec``."""

    node_name = "MvBackward0"
    saved_names = ("self", "vec")

    @staticmethod
    def forward(ctx, a, v):
        _no_bool(a, v, "addmv_impl_cpu")
        A, V = a._data, v._data
        if A.shape[1] != V.shape[0]:
            raise RuntimeError(
                f"size mismatch, got input ({A.shape[0]}), mat ({A.shape[0]}x{A.shape[1]}), "
                f"vec ({V.shape[0]})"
            )
        if A.dtype != V.dtype:
            tv, ta = SCALAR_TYPE_NAMES[v.dtype.name], SCALAR_TYPE_NAMES[a.dtype.name]
            raise RuntimeError(
                f"addmv input tensors must have the same dtype, but got {tv}, {ta}, and {tv}"
            )
        need = ctx.needs_input_grad
        ctx.save_for_backward(a if need[1] else None, v if need[0] else None)
        return _make(A @ V)

    @staticmethod
    def backward(ctx, grad):
        a, v = ctx.saved_tensors
        need = ctx.needs_input_grad
        ga = grad.unsqueeze(1).mm(v.unsqueeze(0)) if need[0] else None
        gv = a.t().mv(grad) if need[1] else None
        return ga, gv


class Bmm(Function):
    """Batched matrix product of two 3-d tensors (BmmBackward0); saves ``self`` and ``mat2``."""

    node_name = "BmmBackward0"
    saved_names = ("mat2", "self")  # PyTorch's order

    @staticmethod
    def forward(ctx, a, b):
        _no_bool(a, b, "bmm")
        A, B = a._data, b._data
        if A.ndim != 3 or B.ndim != 3:
            raise RuntimeError("batch1 must be a 3D tensor")
        if A.shape[0] != B.shape[0] or A.shape[2] != B.shape[1]:
            raise RuntimeError(
                f"Expected size for first two dimensions of batch2 tensor to be: "
                f"[{A.shape[0]}, {A.shape[2]}] but got: [{B.shape[0]}, {B.shape[1]}]."
            )
        if A.dtype != B.dtype:
            raise RuntimeError(
                f"expected scalar type {SCALAR_TYPE_NAMES[a.dtype.name]} but found "
                f"{SCALAR_TYPE_NAMES[b.dtype.name]}"
            )
        need = ctx.needs_input_grad
        ctx.save_for_backward(b if need[0] else None, a if need[1] else None)
        return _make(np.matmul(A, B))

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        need = ctx.needs_input_grad
        ga = grad.bmm(b.transpose(1, 2)) if need[0] else None
        gb = a.transpose(1, 2).bmm(grad) if need[1] else None
        return ga, gb


class Addmm(Function):
    """``beta * input + alpha * (mat1 @ mat2)`` for 2-d mat1, mat2 (AddmmBackward0).

    Saves, as PyTorch does: ``mat1`` if mat2 needs a gradient, ``mat2`` if mat1
    does; both sizes always; each operand's strides only if it needs a
    gradient (``()`` otherwise); ``alpha`` and ``beta``.
    """

    node_name = "AddmmBackward0"
    saved_names = ("mat1", "mat2")
    saved_attrs = ("alpha", "beta", "mat1_sym_sizes", "mat1_sym_strides", "mat2_sym_sizes",
                   "mat2_sym_strides")

    @staticmethod
    def forward(ctx, input, mat1, mat2, beta=1, alpha=1):
        A, B, C = mat1._data, mat2._data, input._data
        if A.ndim != 2:
            raise RuntimeError(f"mat1 must be a matrix, got {A.ndim}-D tensor")
        if B.ndim != 2:
            raise RuntimeError(f"mat2 must be a matrix, got {B.ndim}-D tensor")
        if A.shape[1] != B.shape[0]:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({A.shape[0]}x{A.shape[1]} and "
                f"{B.shape[0]}x{B.shape[1]})"
            )
        if A.dtype != B.dtype:
            raise RuntimeError(
                f"mat1 and mat2 must have the same dtype, but got {SCALAR_TYPE_NAMES[mat1.dtype.name]} and "
                f"{SCALAR_TYPE_NAMES[mat2.dtype.name]}"
            )
        if C.dtype != A.dtype:
            raise RuntimeError(
                f"self and mat2 must have the same dtype, but got {SCALAR_TYPE_NAMES[input.dtype.name]} and "
                f"{SCALAR_TYPE_NAMES[mat2.dtype.name]}"
            )
        out_shape = (A.shape[0], B.shape[1])
        try:
            # (the usual bias, one value per column, broadcasts: no need to ask numpy)
            if C.shape != out_shape[1:]:
                np.broadcast_to(C, out_shape)
        except ValueError:
            target = ", ".join(map(str, out_shape))
            sizes = ", ".join(map(str, C.shape))
            raise RuntimeError(
                f"The expanded size of the tensor ({out_shape[-1]}) must match the existing "
                f"size ({C.shape[-1] if C.ndim else 1}) at non-singleton dimension "
                f"{len(out_shape) - 1}.  Target sizes: [{target}].  Tensor sizes: [{sizes}]"
            ) from None
        need = ctx.needs_input_grad
        ctx.alpha, ctx.beta = alpha, beta
        ctx.mat1_sym_sizes, ctx.mat2_sym_sizes = A.shape, B.shape
        ctx.mat1_sym_strides = _element_strides(A) if need[1] else ()
        ctx.mat2_sym_strides = _element_strides(B) if need[2] else ()
        ctx.save_for_backward(mat1 if need[2] else None, mat2 if need[1] else None)
        prod = A @ B
        if alpha != 1:
            prod *= A.dtype.type(alpha)
        if beta != 0:
            # the product is a new array: the bias goes into it (no second array)
            np.add(prod, C if beta == 1 else C * C.dtype.type(beta), out=prod)
        return _make(prod)

    @staticmethod
    def formula(F, ctx, grad, mat1, mat2):
        need = ctx.needs_input_grad
        alpha, beta = ctx.alpha, ctx.beta
        g_input = (grad if beta == 1 else grad * beta) if need[0] else None
        g_mat1 = g_mat2 = None
        if need[1]:
            g_mat1 = mm_mat1_backward(F, grad, mat2, ctx.mat1_sym_sizes, ctx.mat1_sym_strides)
            if alpha != 1:
                g_mat1 = g_mat1 * alpha
        if need[2]:
            g_mat2 = mm_mat2_backward(F, grad, mat1, ctx.mat2_sym_sizes, ctx.mat2_sym_strides)
            if alpha != 1:
                g_mat2 = g_mat2 * alpha
        return g_input, g_mat1, g_mat2, None, None


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)`` (``torch.addmm``); node AddmmBackward0.

    Raises:
        RuntimeError: "mat1 and mat2 shapes cannot be multiplied (4x5 and 3x2)";
            "mat1 and mat2 must have the same dtype, but got Double and Float".
    """
    return Addmm.apply(input, mat1, mat2, beta, alpha)


def mm(input, mat2):
    """Matrix product of two 2-d tensors (``torch.mm``).

    Args:
        input (Tensor): (n, k).
        mat2 (Tensor): (k, m), same dtype.

    Returns:
        Tensor (n, m).

    Raises:
        RuntimeError: PyTorch's "mat1 and mat2 shapes cannot be multiplied
            (2x3 and 4x5)", or "self must be a matrix" for a non-2-d operand.
    """
    return Mm.apply(input, mat2)


def mv(input, vec):
    """Matrix (n, k) times vector (k,) (``torch.mv``); node MvBackward0.

    Raises:
        RuntimeError: PyTorch's "vector + matrix @ vector expected, got 1, 1, 1"
            for operands of the wrong dimensions, "size mismatch, ..." for sizes.
    """
    if input._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got 1, {input._data.ndim}, {vec._data.ndim}"
        )
    return Mv.apply(input, vec)


def dot(input, other):
    """Inner product of two 1-d tensors of equal length (``torch.dot``); node DotBackward0."""
    if input._data.ndim != 1 or other._data.ndim != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {input._data.ndim}D and {other._data.ndim}D tensors"
        )
    return Dot.apply(input, other)


def bmm(input, mat2):
    """Batched product of (b, n, k) and (b, k, m) tensors (``torch.bmm``); node BmmBackward0."""
    return Bmm.apply(input, mat2)


def matmul(input, other):
    """``input @ other`` with PyTorch's rules and recorded nodes (``torch.matmul``).

    * 1-d @ 1-d: ``dot`` (DotBackward0);
    * 2-d @ 1-d: ``mv`` (MvBackward0);
    * 1-d @ 2-d: unsqueeze, ``mm``, squeeze (SqueezeBackward4 ← MmBackward0 ← UnsqueezeBackward0);
    * 2-d @ 2-d: ``mm`` (MmBackward0);
    * 3-d or more @ 1-d or 2-d (or the other way round), when PyTorch's
      ``should_fold`` says so (the small operand requires grad, or the large
      one folds without a copy): the large operand's batch dims folded into
      its rows, one ``mm``/``mv``, reshaped back (UnsafeViewBackward0 ←
      MmBackward0 ← ViewBackward0); for a right-hand batch, on the
      transposed problem, transposed back and made contiguous
      (CloneBackward0 ← TransposeBackward0 ← UnsafeViewBackward0 ← ...);
    * both 3-d, one a batch of one matrix that requires grad, the other a
      real batch: that one is squeezed to a matrix first (SqueezeBackward1);
    * otherwise the batch dims broadcast, both operands are expanded and
      reshaped, one ``bmm``, reshaped back (UnsafeViewBackward0 ← BmmBackward0
      ← ViewBackward0 ← ExpandBackward0).

    Raises:
        RuntimeError: PyTorch's messages for operands that cannot be
            multiplied, naming both shapes; "both arguments to matmul need to
            be at least 1D" for 0-d operands.
        TypeError: if ``other`` is not a Tensor.

    Source: ``at::native::_matmul_impl`` (aten/src/ATen/native/LinearAlgebra.cpp).
    """
    if not isinstance(other, Tensor):
        raise TypeError(f"matmul(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    da, db = input._data.ndim, other._data.ndim
    if da == 0 or db == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
        )
    if da == 1 and db == 1:
        return dot(input, other)
    if da == 2 and db == 1:
        return Mv.apply(input, other)
    if da == 1 and db == 2:
        # PyTorch squeezes the product in place (squeeze_: SqueezeBackward4, version 1): the
        # result is the product itself, not a view of it
        return squeeze_(Mm.apply(Unsqueeze.apply(input, 0), other), 0)
    if da == 2 and db == 2:
        return Mm.apply(input, other)
    if da == 3 and db == 3:
        # a batch of one matrix against a real batch, when that one matrix
        # requires grad, is squeezed to a matrix first (so its gradient is one mm)
        a0, b0 = input._data.shape[0], other._data.shape[0]
        if a0 == 1 and b0 != 1 and input._requires_grad:
            return matmul(SqueezeDim.apply(input, 0), other)
        if b0 == 1 and a0 != 1 and other._requires_grad:
            return matmul(input, SqueezeDim.apply(other, 0))
    A, B = input._data.shape, other._data.shape
    if _should_fold(input, other):
        if da >= 3:
            # fold the left operand's batch dims into its rows: one mm (or mv); the
            # row count is spelled out, as PyTorch does (-1 is ambiguous when A[-1] is 0)
            folded = input.reshape(math.prod(A[:-1]), A[-1])
            if db == 1:
                return UnsafeView.apply(Mv.apply(folded, other), A[:-1])
            return UnsafeView.apply(Mm.apply(folded, other), A[:-1] + (B[-1],))
        # (A @ B) = (Bᵀ @ Aᵀ)ᵀ: fold the right operand instead (a size mismatch is
        # then mm's "mat1 and mat2 shapes cannot be multiplied", as in PyTorch)
        folded = Transpose.apply(other, -2, -1).reshape(math.prod(B[:-2]) * B[-1], B[-2])
        if da == 1:
            return UnsafeView.apply(Mv.apply(folded, input), B[:-2] + (B[-1],))
        out = UnsafeView.apply(Mm.apply(folded, input.t()), B[:-2] + (B[-1], A[0]))
        return contiguous(Transpose.apply(out, -2, -1))
    # batched: broadcast the batch dims, expand, one bmm (a 1-d operand as a
    # single row or column)
    n = A[-2] if da > 1 else 1
    m2 = B[-2] if db > 1 else B[0]
    p = B[-1] if db > 1 else 1
    batch_a, batch_b = A[:max(da - 2, 0)], B[:max(db - 2, 0)]
    batch = _broadcast_batch(batch_a, batch_b)  # PyTorch checks the batch dims first
    if A[-1] != m2:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{int(np.prod(batch))}, {A[-1]}] but got: "
            f"[{int(np.prod(batch))}, {m2}]."
        )
    nb = int(np.prod(batch))
    a3 = expand(input, *(batch + (n, A[-1]))).reshape(nb, n, A[-1])
    rhs = other if db > 1 else Unsqueeze.apply(other, 1)
    b3 = expand(rhs, *(batch + (m2, p))).reshape(nb, m2, p)
    shape = batch + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ())
    out = Bmm.apply(a3, b3)
    if db == 1:
        out = SqueezeDim.apply(out, -1)  # the column a 1-d right operand became
    return UnsafeView.apply(out, shape)


def _should_fold(t1, t2):
    """PyTorch's ``should_fold(tensor1, tensor2)``: fold the larger operand into rows (mm/mv), not bmm.

    Only for a 3-d-or-more operand against a 1-d or 2-d one (a right-hand
    batch is considered transposed): when the small operand requires grad
    (so its gradient is one mm, not a batch summed afterwards), or, unless
    the left operand is 2-d, when the larger one folds without a copy.
    """
    larger = t1._data.ndim >= t2._data.ndim
    big = t1._data if larger else np.swapaxes(t2._data, -1, -2)
    small = t2 if larger else t1
    if not (big.ndim >= 3 and small._data.ndim <= 2):
        return False
    if small._requires_grad:
        return True
    if t1._data.ndim == 2:
        return False  # it would be mm of the transposed problem and a copy back
    if big.size == 0:
        return True
    st, sh = big.strides, big.shape
    return all(st[i] == st[i + 1] * sh[i + 1] for i in range(big.ndim - 2))


def _broadcast_batch(sa, sb):
    """Broadcast two batch shapes, or PyTorch's error naming the mismatching dim."""
    n = max(len(sa), len(sb))
    pa = (1,) * (n - len(sa)) + tuple(sa)
    pb = (1,) * (n - len(sb)) + tuple(sb)
    out = []
    for i, (x, y) in enumerate(zip(pa, pb)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                f"non-singleton dimension {i}"
            )
        out.append(y if x == 1 else x)  # a size-1 dim takes the other's, 0 too
    return tuple(out)


# These forwards compute with numpy alone: Function.apply need not switch
# recording off around them.
for _cls in (Mm, Dot, Mv, Bmm, Addmm,):
    _cls._numpy_forward = True
del _cls

# ---------------------------------------------------------------- diagonals

def _diag_view(arr, offset, d1, d2):
    """The (writable) view of ``arr``'s diagonal ``offset`` over dims ``d1``, ``d2`` (last dim)."""
    shape = np.diagonal(arr, offset, d1, d2).shape
    if 0 in shape:
        return np.zeros(shape, dtype=arr.dtype)
    start = [slice(None)] * arr.ndim
    start[d1] = slice(max(-offset, 0), None)
    start[d2] = slice(max(offset, 0), None)
    base = arr[tuple(start)]
    strides = [st for i, st in enumerate(base.strides) if i not in (d1, d2)]
    strides.append(base.strides[d1] + base.strides[d2])
    return np.lib.stride_tricks.as_strided(base, shape, strides, writeable=arr.flags.writeable)


def _diag_dims(a, dim1, dim2):
    from ._util import canonical_dim

    n = a._data.ndim
    d1, d2 = canonical_dim(dim1, n), canonical_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


class Diagonal(Function):
    """A diagonal as a view (DiagonalBackward0): ``x.diagonal(offset, dim1, dim2)``."""

    _is_view = True
    _quiet_numpy = False
    node_name = "DiagonalBackward0"
    saved_attrs = ("dim1", "dim2", "offset", "self_sym_sizes")

    @staticmethod
    def forward(ctx, a, offset, dim1, dim2):
        from ._util import as_saved_int

        d1, d2 = _diag_dims(a, dim1, dim2)
        ctx.dim1, ctx.dim2, ctx.offset = as_saved_int(dim1), as_saved_int(dim2), as_saved_int(offset)
        ctx.self_sym_sizes, ctx._dims = a._data.shape, (offset, d1, d2)
        return _make(_diag_view(a._data, offset, d1, d2), vc=a._shared_vc(), base=a)

    @staticmethod
    def backward(ctx, grad):
        return _DiagScatter.apply(grad, ctx._dims, ctx.self_sym_sizes), None, None, None


class DiagonalCopy(Diagonal):
    """``diag`` of a 2-d tensor: its diagonal as a new tensor (DiagonalBackward0_copy)."""

    _is_view = False
    node_name = "DiagonalBackward0_copy"

    @staticmethod
    def forward(ctx, a, offset, dim1, dim2):
        view = Diagonal.forward(ctx, a, offset, dim1, dim2)
        return _make(view._data.copy())


class _DiagScatter(Function):
    """Zeros of ``sizes`` with ``grad`` on the diagonal (the backward of Diagonal)."""

    node_name = "DiagonalBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, dims, sizes):
        ctx.dims = dims
        out = np.zeros(sizes, dtype=grad._data.dtype)
        _diag_view(out, *dims)[...] = grad._data
        return _make(out)

    @staticmethod
    def backward(ctx, gg):
        offset, d1, d2 = ctx.dims
        return DiagonalCopy.apply(gg, offset, d1, d2), None, None


class DiagEmbed(Function):
    """``diag`` of a 1-d tensor: a square matrix with it on diagonal ``offset`` (DiagEmbedBackward0)."""

    node_name = "DiagEmbedBackward0"
    saved_attrs = ("dim1", "dim2", "offset")

    @staticmethod
    def forward(ctx, v, offset):
        from ._util import as_saved_int

        n = v._data.shape[0] + abs(offset)
        out = np.zeros((n, n), dtype=v._data.dtype)
        _diag_view(out, offset, 0, 1)[...] = v._data
        ctx.dim1, ctx.dim2, ctx.offset = as_saved_int(-2), as_saved_int(-1), as_saved_int(offset)
        ctx._offset = offset
        return _make(out)

    @staticmethod
    def backward(ctx, grad):
        return Diagonal.apply(grad, ctx._offset, 0, 1), None


def diag(input, diagonal=0):
    """A 1-d tensor as a diagonal matrix, or a 2-d tensor's diagonal (``torch.diag``).

    Args:
        input (Tensor): 1-d of length n, giving an (n + |diagonal|)² matrix
            (DiagEmbedBackward0); or 2-d, giving its diagonal as a new 1-d
            tensor (DiagonalBackward0_copy).
        diagonal (int): 0 the main diagonal, > 0 above it, < 0 below.

    Raises:
        RuntimeError: PyTorch's "diag(): Supports 1D or 2D tensors. Got 3D".
    """
    n = input._data.ndim
    if n == 1:
        return DiagEmbed.apply(input, int(diagonal))
    if n == 2:
        return DiagonalCopy.apply(input, int(diagonal), 0, 1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {n}D")


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal over ``dim1`` and ``dim2`` as a view, moved to the last dim (``torch.diagonal``).

    Raises:
        RuntimeError: "diagonal dimensions cannot be identical 0, 0".
        IndexError: "Dimension out of range ..." for a bad dim.
    """
    return Diagonal.apply(input, int(offset), dim1, dim2)


def _int_argument(name, value, position):
    """PyTorch's binding of an ``int`` argument: a bool or a float is a TypeError."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name}(): argument 'diagonal' (position {position}) must be int, not "
                        f"{type(value).__name__}")
    return int(value)


class Tril(Function):
    """The lower triangle of the last two dims, ``diagonal`` above the main one (TrilBackward0).

    Elements above the ``diagonal``-th diagonal become 0 (0 is the main
    diagonal, > 0 above it, < 0 below); a batch of matrices is done matrix by
    matrix.  Saves ``diagonal``; the gradient is the incoming one's same
    triangle (``grad.tril(diagonal)``).
    """

    node_name = "TrilBackward0"
    saved_attrs = ("diagonal",)
    _numpy_forward = True
    _quiet_numpy = False
    _np = staticmethod(np.tril)
    _op = "tril"

    @classmethod
    def forward(cls, ctx, a, diagonal):
        if a._data.ndim < 2:
            raise RuntimeError(f"{cls._op}: input tensor must have at least 2 dimensions")
        ctx.diagonal, ctx._k = as_saved_int(diagonal), diagonal
        return _make(cls._np(a._data, diagonal))

    @staticmethod
    def formula(F, ctx, grad):
        return F.tril(grad, ctx._k), None


class Triu(Function):
    """The upper triangle of the last two dims (TriuBackward0); as ``Tril``, the other side."""

    node_name = "TriuBackward0"
    saved_attrs = ("diagonal",)
    _numpy_forward = True
    _quiet_numpy = False
    _np = staticmethod(np.triu)
    _op = "triu"
    forward = Tril.__dict__["forward"]

    @staticmethod
    def formula(F, ctx, grad):
        return F.triu(grad, ctx._k), None


def tril(input, diagonal=0):
    """The lower triangle of a matrix or a batch of them (``torch.tril``); node TrilBackward0.

    Args:
        input (Tensor): at least 2-d, any dtype; the last two dims are the matrix.
        diagonal (int): the last diagonal kept: 0 the main one, > 0 above, < 0 below.

    Raises:
        RuntimeError: "tril: input tensor must have at least 2 dimensions".
        TypeError: a ``diagonal`` that is not an int.
    """
    return Tril.apply(input, _int_argument("tril", diagonal, 2))


def tril_method(self, diagonal=0):
    """``Tensor.tril(diagonal=0)``: ``tril`` of this tensor (its argument is position 1)."""
    return Tril.apply(self, _int_argument("tril", diagonal, 1))


def triu_method(self, diagonal=0):
    """``Tensor.triu(diagonal=0)``: ``triu`` of this tensor."""
    return Triu.apply(self, _int_argument("triu", diagonal, 1))


def triu(input, diagonal=0):
    """The upper triangle of a matrix or a batch of them (``torch.triu``); node TriuBackward0.

    Arguments and errors as ``tril``'s; ``diagonal`` is the first diagonal kept.
    """
    return Triu.apply(input, _int_argument("triu", diagonal, 2))


def outer(input, vec2):
    """The outer product ``input[i] * vec2[j]`` of two 1-d tensors, (n, m) (``torch.outer``).

    Computed as PyTorch does, ``input.reshape(n, 1) * vec2``: nodes
    MulBackward0 and ViewBackward0, dtypes promoted as by ``*``.

    Raises:
        RuntimeError: "outer: Expected 1-D argument self, but got 2-D" (or ``vec2``).
    """
    if not isinstance(vec2, Tensor):
        raise TypeError(f"outer(): argument 'vec2' (position 2) must be Tensor, not {type(vec2).__name__}")
    for name, t in (("self", input), ("vec2", vec2)):
        if t._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t._data.ndim}-D")
    return input.reshape(input._data.shape[0], 1) * vec2


def ger(input, vec2):
    """``torch.ger``: the old name of ``outer``."""
    return outer(input, vec2)
