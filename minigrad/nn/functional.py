"""Activations and losses (``torch.nn.functional``).

Activations are the primitives of ``minigrad.ops``; the losses are primitives
of their own so their nodes carry PyTorch's names (MseLossBackward0,
NllLossBackward0, BinaryCrossEntropyBackward0) and save what PyTorch saves.
``cross_entropy`` is ``log_softmax`` followed by ``nll_loss``, as in PyTorch.

Source: torch/nn/functional.py and derivatives.yaml (``mse_loss``,
``nll_loss``, ``binary_cross_entropy``).
"""

import numbers

import numpy as np

from .. import _random_kernels as _kernels
from .. import ops as _ops
from .._dtype import SCALAR_TYPE_NAMES, result_type
from ..autograd.function import Function
from ..random import default_generator
from ..ops import matmul, sigmoid, tanh
from ..ops._util import as_saved_int
from ..ops.linalg import Addmm
from ..tensor import Tensor
from ._reduction import reduction_of

__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "linear",
    "relu_",
    "cross_entropy",
    "dropout",
    "log_softmax",
    "mse_loss",
    "nll_loss",
    "relu",
    "sigmoid",
    "softmax",
    "tanh",
]

_make = Tensor._make


def relu(input, inplace=False):
    """max(x, 0) elementwise (``F.relu``); ReluBackward0; ``inplace=True`` writes into ``input``.

    Raises:
        RuntimeError: with ``inplace=True``, PyTorch's in-place errors (a leaf
            that requires grad).
    """
    return input.relu_() if inplace else _ops.relu(input)


def relu_(input):
    """``relu(input, inplace=True)`` (``F.relu_``)."""
    return input.relu_()


def _implicit_dim(name, ndim):
    """PyTorch's legacy choice of dim when softmax is called without one (and its warning)."""
    import warnings

    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to "
                  "include dim=X as an argument.", UserWarning, stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Softmax along ``dim`` (``F.softmax``); SoftmaxBackward0.

    Without ``dim``, PyTorch's deprecated choice: dim 0 for 0-, 1- and 3-d
    inputs, dim 1 otherwise, with its UserWarning "Implicit dimension choice
    for softmax has been deprecated. ...".
    """
    if dim is None:
        dim = _implicit_dim("softmax", input.ndim)
    return _ops.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Log-softmax along ``dim`` (``F.log_softmax``); LogSoftmaxBackward0; ``dim`` as ``softmax``."""
    if dim is None:
        dim = _implicit_dim("log_softmax", input.ndim)
    return _ops.log_softmax(input, dim, dtype=dtype)


def linear(input, weight, bias=None):
    """``input @ weight.t() + bias`` with PyTorch's recording (``torch.nn.functional.linear``).

    Args:
        input (Tensor): (*, in_features), at least 1-d.
        weight (Tensor): (out_features, in_features).
        bias (Tensor | None): (out_features,).

    Returns:
        Tensor (*, out_features).  Nodes: AddmmBackward0 for a 2-d input with
        a bias; ViewBackward0 ← AddmmBackward0 ← ViewBackward0 for another
        contiguous input with a bias; the ``matmul`` nodes otherwise.

    Raises:
        RuntimeError: "both arguments to linear need to be at least 1D, but
            they are 0D and 2D"; "mat1 and mat2 shapes cannot be multiplied
            (4x5 and 3x2)" for a wrong ``in_features``.
    """
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are {input.ndim}D "
            f"and {weight.ndim}D"
        )
    if bias is not None and input.ndim == 2:
        return Addmm.apply(bias, input, weight.t(), 1, 1)
    if bias is not None and input.is_contiguous():
        # at::native::_flatten_nd_linear: (*, in) -> (prod(*), in) -> addmm -> (*, out)
        lead = input.shape[:-1]
        flat = input.reshape(int(np.prod(lead)) if lead else 1, input.shape[-1])
        out = Addmm.apply(bias, flat, weight.t(), 1, 1)
        return out.view(*lead, out.shape[1])
    out = matmul(input, weight.t())
    if bias is not None:
        out.add_(bias)  # in place, as PyTorch's linear: the result is at version 1
    return out


_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _no_weight(loss, weight, signature=None):
    """Class weights: PyTorch's TypeError for a non-tensor (``signature``: its function's name), else not here."""
    if weight is None:
        return
    if signature is not None and not isinstance(weight, Tensor):
        raise TypeError(f"{signature}(): argument 'weight' (position 3) must be Tensor, not "
                        f"{type(weight).__name__}")
    raise NotImplementedError(f"minigrad: {loss} does not support weight")


def _check_ignore_index(ignore_index, signature):
    """PyTorch's argument parsing of ``ignore_index``: an int64 (not a bool, float or None)."""
    if isinstance(ignore_index, bool) or not isinstance(ignore_index, numbers.Integral):
        raise TypeError(f"{signature}(): argument 'ignore_index' (position 5) must be int, not "
                        f"{type(ignore_index).__name__}")
    if not -(2 ** 63) <= ignore_index < 2 ** 63:
        raise ValueError("Overflow when unpacking long long")


def _reduction(reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


def _reduce(values, code):
    if code == 1:
        return np.asarray(values.mean(dtype=values.dtype))
    if code == 2:
        return np.asarray(values.sum(dtype=values.dtype))
    return values


class MseLoss(Function):
    """Mean squared error (MseLossBackward0); saves self, target and the reduction code."""

    node_name = "MseLossBackward0"
    saved_names = ("self", "target")
    saved_attrs = ("reduction",)

    @staticmethod
    def forward(ctx, input, target, reduction):
        from ..ops._util import binary_dtype

        ctx.reduction = reduction
        ctx.save_for_backward(input, target)
        dt = binary_dtype(input, target)  # an int target with float input: promoted, as PyTorch
        diff = input._data.astype(dt, copy=False) - target._data.astype(dt, copy=False)
        return _make(_reduce(diff * diff, reduction).astype(dt, copy=False))

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        need = ctx.needs_input_grad
        # PyTorch's norm = 2. / numel in C++ doubles: inf for an empty input
        scale = (2 / x._data.size if x._data.size else float("inf")) if ctx.reduction == 1 else 2
        gx = grad * scale * (x - y) if need[0] else None
        gy = grad * scale * (y - x) if need[1] else None  # not -gx: PyTorch's zero is +0.
        return gx, gy, None


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean (or sum, or none) of squared differences (``F.mse_loss``).

    Args:
        input, target (Tensor): same shape; shapes that differ broadcast, with
            PyTorch's warning (``broadcast_tensors``: ExpandBackward0 for the
            one whose shape grows).
        reduction: "mean" (default), "sum" or "none".
        size_average, reduce: PyTorch's deprecated names of a reduction (with its warning).
        weight: only None.

    Raises:
        NotImplementedError: for a ``weight``.
        ValueError: for an unknown reduction.
        RuntimeError: if the shapes do not broadcast.
        NotImplementedError: '"mse_cpu" not implemented for 'Long'' when
            neither tensor is floating, as PyTorch.
    """
    _no_weight("mse_loss", weight)
    code = _reduction(reduction_of(size_average, reduce, reduction))
    if input._data.dtype.kind != "f" and target._data.dtype.kind != "f":
        kind = SCALAR_TYPE_NAMES[result_type(input, target).name]  # the common dtype's
        raise NotImplementedError(f'"mse_cpu" not implemented for \'{kind}\'')
    if input.shape != target.shape:
        import warnings

        warnings.warn(
            f"Using a target size ({_size(target.shape)}) that is different to the input size "
            f"({_size(input.shape)}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.",
            UserWarning,
            stacklevel=2,
        )
        from ..ops._util import broadcast_shape

        shape = broadcast_shape(input, target)  # PyTorch's error if they cannot broadcast
        # broadcast_tensors: a tensor already of the broadcast shape is not expanded
        if tuple(input.shape) != tuple(shape):
            input = input.expand(*shape)
        if tuple(target.shape) != tuple(shape):
            target = target.expand(*shape)
    return MseLoss.apply(input, target, code)


def _size(shape):
    return "torch.Size([" + ", ".join(str(s) for s in shape) + "])"


class NllLoss(Function):
    """Negative log-likelihood of class indices (NllLossBackward0)."""

    node_name = "NllLossBackward0"
    saved_names = ("self", "target", "total_weight")
    saved_attrs = ("ignore_index", "reduction", "weight")

    @staticmethod
    def forward(ctx, input, t, reduction, ignore_index):
        # `t`, the class indices, arrives as a plain array: like PyTorch, the
        # target gets no entry in next_functions.
        x = input._data
        if x.ndim not in (1, 2):
            raise ValueError(f"Expected 1 or 2 dimensions (got {x.ndim})")
        if x.ndim == 1 and t.ndim == 1 and t.shape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: "
                             f"{t.shape[0]}")
        if x.ndim == 2 and (t.ndim == 0 or t.shape[0] != x.shape[0]):
            raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target "
                             f"batch_size ({t.shape[0] if t.ndim else 0}).")
        if t.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = x.ndim == 2
        xb = x if batched else x[None]
        tb = t.reshape(-1) if batched else t.reshape(1)
        if xb.shape[0] != tb.shape[0]:
            raise ValueError(
                f"Expected input batch_size ({xb.shape[0]}) to match target batch_size ({tb.shape[0]})."
            )
        n_classes = xb.shape[1]
        n = tb.shape[0]
        rows = np.arange(n)
        lo, hi = (int(tb.min()), int(tb.max())) if n else (0, -1)
        if not lo <= ignore_index <= hi:  # no target ignored: the usual case, fewer passes
            if lo < 0 or hi >= n_classes:
                raise IndexError(f"Target {int(tb[(tb < 0) | (tb >= n_classes)][0])} is out of bounds.")
            cols = tb
            picked = -xb[rows, cols]
        else:
            valid = tb != ignore_index
            cols = tb[valid]
            if cols.size and (cols.min() < 0 or cols.max() >= n_classes):
                bad = int(cols[(cols < 0) | (cols >= n_classes)][0])
                raise IndexError(f"Target {bad} is out of bounds.")
            # (every target ignored of zero classes: nothing to gather)
            at = -xb[rows, np.where(valid, tb, 0)] if n_classes else np.zeros(n, x.dtype)
            picked = np.where(valid, at, 0).astype(x.dtype)
            rows = rows[valid]
        # (PyTorch's kernel leaves the total at 0 for a batch with reduction='none')
        total = np.asarray(cols.shape[0] if reduction or not batched else 0, dtype=x.dtype)
        ctx.reduction, ctx.ignore_index, ctx.weight = reduction, as_saved_int(ignore_index), None
        # the targets that count, for backward: row rows[k] of the input at class cols[k]
        ctx._batched, ctx._rows, ctx._cols = batched, rows, cols
        ctx.save_for_backward(input, _make(t), _make(total))
        # PyTorch's kernel sums from 0 (a sum of zeros is +0, numpy's of -0s is -0), and
        # computes one sample's loss as 0 - x[target] (+0 for a zero), a batch's as -x[target]
        zero = x.dtype.type(0)
        if reduction == 1:
            if cols.shape[0]:  # (a nonzero count: the division cannot warn)
                return _make(np.asarray((picked.sum() + zero) / total, dtype=x.dtype))
            with np.errstate(invalid="ignore", divide="ignore"):  # 0 / 0: nan, as PyTorch
                return _make(np.asarray(picked.sum() / total, dtype=x.dtype))
        if reduction == 2:
            return _make(np.asarray(picked.sum() + zero, dtype=x.dtype))
        return _make(picked if batched else (picked + zero).reshape(()))

    _ints_are_indices = True  # the saved target: class indices, not a factor

    @staticmethod
    def formula(F, ctx, grad, x, target, total):
        one = F.data(x).dtype.type(1)
        # the gradient at each target: -grad / total (mean), -grad (sum, none)
        # (a mean over no target: -1 / 0, written nowhere; its derivative is PyTorch's 0 / 0)
        coef = -one if ctx.reduction != 1 else -one / F.data(total)
        batched_none = not ctx.reduction and ctx._batched
        out = F.call(NllLossGrad, grad, x, ctx._rows, ctx._cols, coef, batched_none)
        return out, None, None, None


NllLoss._numpy_forward = True  # its forward computes with numpy alone


def nll_loss_backward_array(grad, shape, rows, cols, coef, batched_none):
    """nll_loss's gradient on numpy arrays: ``grad * coef`` at the targets, exact zeros elsewhere.

    ``shape``: the input's, (N, C) or (C,); the targets are ``(rows[k],
    cols[k])`` (row 0 of a (C,) input); ``coef`` a numpy scalar of the input's
    dtype (``-1 / total`` for a mean), which the result has; ``grad`` is 0-d,
    or (N,) for ``reduction='none'`` of a batch (``batched_none``).  Written
    into zeros, so an inf gradient gives no nan off the targets (as PyTorch's
    kernel, which writes only the targets).
    """
    out = np.zeros(shape, dtype=coef.dtype)
    at = out if len(shape) == 2 else out[None]
    at[rows, cols] = (grad[rows] if batched_none else grad) * coef
    return out


class NllLossGrad(Function):
    """nll_loss's backward as its own op (NllLossBackwardBackward0), as PyTorch records it.

    ``-grad / total`` at the targets, exact zeros elsewhere (a select, so an
    inf gradient gives no nan off the targets).  Its derivative: nll_loss of
    the incoming gradient for ``grad``, zeros for ``self`` (so a second
    derivative through nll_loss is 0, not "unused", as in PyTorch).
    """

    node_name = "NllLossBackwardBackward0"

    @staticmethod
    def kernel(grad, x, rows, cols, coef, batched_none):
        """On numpy arrays (what ``F.call`` runs on a walk that records nothing)."""
        return nll_loss_backward_array(grad, x.shape, rows, cols, coef, batched_none)

    @staticmethod
    def forward(ctx, grad, x, rows, cols, coef, batched_none):
        shape = x._data.shape
        ctx._targets, ctx._batched_none = (shape, rows, cols, coef), batched_none
        return _make(nll_loss_backward_array(grad._data, shape, rows, cols, coef, batched_none))

    @staticmethod
    def backward(ctx, gg):
        need = ctx.needs_input_grad
        ggrad = gx = None
        if need[0]:  # the same linear map's adjoint: gg read at the targets, times coef
            shape, rows, cols, coef = ctx._targets
            picks = np.zeros(shape, dtype=gg._data.dtype)
            (picks if len(shape) == 2 else picks[None])[rows, cols] = coef
            prod = gg * Tensor._make(picks)
            ggrad = prod.sum(1) if ctx._batched_none else prod.sum()
            if not len(rows) and not np.isfinite(coef):  # a mean over no target: 0 / 0, as PyTorch
                ggrad = ggrad * float("nan")
        if need[1]:
            gx = _make(np.zeros(gg._data.shape, dtype=gg._data.dtype))
        return ggrad, gx, None, None, None, None


def _type_name(t):
    return SCALAR_TYPE_NAMES[t.dtype.name]


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """Negative log-likelihood of int64 class ``target`` under log-probabilities ``input`` (``F.nll_loss``).

    Args:
        input (Tensor): (N, C) or (C,) float log-probabilities.
        target (Tensor): (N,) or () int64 class indices.
        weight: only None (class weights are not here).
        size_average, reduce: PyTorch's deprecated names of a reduction (with its warning).
        ignore_index (int): targets equal to it contribute nothing.
        reduction: "mean" (default; over non-ignored targets), "sum" or "none".

    Raises:
        TypeError: PyTorch's, for a ``weight`` that is not a tensor.
        NotImplementedError: for a ``weight``; PyTorch's '"nll_loss_out_frame" not implemented for 'Long'' for
            an integer input.
        RuntimeError: "expected target dtype to be Long or Byte, but got Float"
            for a float (or bool) target, as PyTorch 2.13 words it.
        IndexError: "Target 5 is out of bounds." for a class index out of range.
        TypeError, ValueError: PyTorch's, for an ``ignore_index`` that is not an int64.
    """
    # PyTorch's argument parsing first, then nll_loss_nd's checks
    _no_weight("nll_loss", weight, "nll_loss_nd")
    _check_ignore_index(ignore_index, "nll_loss_nd")
    x, t = input._data, target._data
    # PyTorch's order of checks (nll_loss_nd, then the kernel's): dims, batch size, target dims, dtype
    if x.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {x.ndim})")
    if x.ndim != 1 and (t.shape[0] if t.ndim else 0) != x.shape[0]:
        raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target "
                         f"batch_size ({t.shape[0] if t.ndim else 0}).")
    if t.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if t.dtype != np.int64:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_type_name(target)}")
    reduction = reduction_of(size_average, reduce, reduction)
    if x.dtype.kind != "f":
        raise NotImplementedError(f'"nll_loss_out_frame" not implemented for \'{_type_name(input)}\'')
    return NllLoss.apply(input, t, _reduction(reduction), ignore_index)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """Cross-entropy of logits ``input`` (N, C) and int64 class ``target`` (N,) (``F.cross_entropy``).

    Computed as ``nll_loss(log_softmax(input, 1), target)``: stable for logits
    of magnitude 1e3 (the recording shows NllLossBackward0 ← LogSoftmaxBackward0).
    A float ``target`` of the input's shape holds class probabilities
    (soft labels): the loss is then -Σ target · log_softmax(input) per sample.
    ``weight`` must be None and ``label_smoothing`` 0 (NotImplementedError
    otherwise; PyTorch's TypeError for a non-tensor weight); ``size_average``
    and ``reduce`` are PyTorch's deprecated names of a reduction;
    ``ignore_index`` is for class indices only (PyTorch's RuntimeError with
    soft labels).
    """
    _no_weight("cross_entropy", weight, "cross_entropy_loss")
    _check_ignore_index(ignore_index, "cross_entropy_loss")
    reduction = reduction_of(size_average, reduce, reduction)
    if label_smoothing != 0.0:
        raise NotImplementedError("minigrad: cross_entropy does not support label_smoothing")
    dim = 1 if input.ndim >= 2 else 0
    if target._data.dtype.kind == "f" and target.shape == input.shape:
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        # class probabilities (soft labels): -sum(p * log_softmax) per sample
        code = _reduction(reduction)
        per_sample = -(target * log_softmax(input, dim)).sum(dim)
        if code == 0:
            return per_sample
        total = per_sample.sum()
        n = input.shape[0] if input.ndim >= 2 else 1
        return total / n if code == 1 else total
    return nll_loss(log_softmax(input, dim), target, reduction=reduction, ignore_index=ignore_index)


class BinaryCrossEntropy(Function):
    """-(t log p + (1-t) log(1-p)), logs clamped at -100 as PyTorch does (BinaryCrossEntropyBackward0)."""

    node_name = "BinaryCrossEntropyBackward0"
    saved_names = ("self", "target")
    saved_attrs = ("reduction", "weight")

    @staticmethod
    def forward(ctx, input, target, reduction):
        p, t = input._data, target._data
        if not np.all((p >= 0) & (p <= 1)):  # (nan fails too, as in PyTorch)
            raise RuntimeError("all elements of input should be between 0 and 1")
        ctx.reduction, ctx.weight = reduction, None
        ctx.save_for_backward(input, target)
        with np.errstate(divide="ignore"):
            lp = np.maximum(np.log(p), -100)
            l1p = np.maximum(np.log1p(-p), -100)
        loss = -(t * lp + (1 - t) * l1p)
        return _make(_reduce(loss.astype(p.dtype, copy=False), reduction))

    @staticmethod
    def backward(ctx, grad):
        p, t = ctx.saved_tensors
        need = ctx.needs_input_grad
        gp = gt = None
        if need[0]:
            gp = BinaryCrossEntropyGrad.apply(grad, p, t, ctx.reduction)
        if need[1]:
            g = grad / p._data.size if ctx.reduction == 1 else grad
            # d/dt of -(t log p + (1-t) log(1-p)) = log(1-p) - log(p), logs clamped at -100
            gt = g * ((1 - p).log().clamp(min=-100) - p.log().clamp(min=-100))
        return gp, gt, None


_EPS = 1e-12  # PyTorch's EPSILON in binary_cross_entropy_backward


class BinaryCrossEntropyGrad(Function):
    """BCE's gradient ``grad (p - t) / max(p (1 - p), eps)`` as one op (BinaryCrossEntropyBackwardBackward0).

    Its own derivatives are PyTorch's ``binary_cross_entropy_double_backward``
    formulas (with ``p + eps`` and ``1 - p + eps``, so they stay finite where
    a sigmoid saturates to exactly 0 or 1).
    """

    node_name = "BinaryCrossEntropyBackwardBackward0"
    saved_names = ("grad_output", "self", "target")
    saved_attrs = ("reduction",)

    @staticmethod
    def forward(ctx, grad, p, t, reduction):
        ctx.reduction = reduction
        ctx.save_for_backward(grad, p, t)
        g, P, T = grad._data, p._data, t._data
        if reduction == 1:
            g = g / P.size
        out = g * (P - T) / np.maximum((1 - P) * P, _EPS)
        return _make(np.asarray(out).astype(P.dtype, copy=False))

    @staticmethod
    def backward(ctx, gg):
        grad, p, t = ctx.saved_tensors
        need = ctx.needs_input_grad
        n = p._data.size
        # (the mean over no elements: nothing is scaled, but 1 / 0 must not raise)
        scale = (1.0 / n if n else float("inf")) if ctx.reduction == 1 else 1.0
        inner = (p + _EPS) * (1 - p + _EPS)
        gg_out = gg * (p - t) / inner * scale if need[0] else None
        gp = None
        if need[1]:  # PyTorch's binary_cross_entropy_double_backward, op for op (its nan/inf at p = 0 or 1)
            gp = (p * p - 2 * p * t + t) / ((p + _EPS).pow(2) * (1 - p + _EPS).pow(2)) * (gg * grad)
            if ctx.reduction == 1:
                gp = gp / p._data.size
        gt = -gg * grad / inner * scale if need[2] else None
        return gg_out, gp, gt, None


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Binary cross-entropy of probabilities ``input`` and ``target`` of one shape (``F.binary_cross_entropy``).

    ``weight``: only None (NotImplementedError otherwise); ``size_average``, ``reduce``:
    PyTorch's deprecated names of a reduction (with its warning).

    Raises:
        RuntimeError: "all elements of input should be between 0 and 1".
        ValueError: if the shapes differ (PyTorch's message).
    """
    if input.shape != target.shape:
        raise ValueError(
            f"Using a target size ({_size(target.shape)}) that is different to the input size "
            f"({_size(input.shape)}) is deprecated. Please ensure they have the same size."
        )
    _no_weight("binary_cross_entropy", weight)
    reduction = reduction_of(size_average, reduce, reduction)
    return BinaryCrossEntropy.apply(input, target, _reduction(reduction))


class BinaryCrossEntropyWithLogits(Function):
    """Binary cross-entropy of logits, computed stably (BinaryCrossEntropyWithLogitsBackward0).

    loss = (1 - t) x + (1 + (pw - 1) t) (log(1 + e^-|x|) + max(-x, 0)), times
    ``weight``; pw is ``pos_weight`` (1 when not given).  d/dx = weight ((pw t
    + 1 - t) σ(x) - pw t); d/dt = weight (log σ(-x) - pw log σ(x)).
    ``weight`` and ``pos_weight`` get no gradient and no edge, as in PyTorch.
    """

    node_name = "BinaryCrossEntropyWithLogitsBackward0"
    saved_names = ("self", "target", "weight", "pos_weight")
    saved_attrs = ("reduction",)

    @staticmethod
    def forward(ctx, input, target, held, reduction):
        weight, pos_weight = held  # in a tuple: no edges for them
        x, t = input._data, target._data
        ctx.reduction = reduction
        ctx.save_for_backward(input, target, weight, pos_weight)
        soft = np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0)  # log(1 + e^-x), stably
        if pos_weight is None:
            loss = (1 - t) * x + soft
        else:
            loss = (1 - t) * x + (1 + (pos_weight._data - 1) * t) * soft
        if weight is not None:
            loss = loss * weight._data
        return _make(_reduce(np.asarray(loss).astype(x.dtype, copy=False), reduction))

    @staticmethod
    def backward(ctx, grad):
        from ..ops.elementwise import Sigmoid

        x, t, weight, pos_weight = ctx.saved_tensors
        need = ctx.needs_input_grad
        if ctx.reduction == 1:
            grad = grad / x._data.size
        gx = gt = None
        if need[0]:
            s = Sigmoid.apply(x)
            if pos_weight is None:
                gx = s - t
            else:
                pt = pos_weight * t
                gx = (pt + 1 - t) * s - pt
            gx = gx * grad if weight is None else gx * weight * grad
        if need[1]:
            if pos_weight is None:
                gt = -x
            else:  # log σ(-x) = -softplus(x), log σ(x) = -softplus(-x), both stably
                gt = -_softplus(x) + pos_weight * _softplus(-x)
            gt = gt * grad if weight is None else gt * weight * grad
        return gx, gt, None, None


def _softplus(x):
    """log(1 + eˣ) computed as max(x, 0) + log(1 + e^-|x|), with tensor ops (recordable)."""
    return x.clamp(min=0) + ((-x.abs()).exp() + 1).log()


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """Binary cross-entropy of logits and targets of one shape (``F.binary_cross_entropy_with_logits``).

    Sigmoid and cross-entropy in one stable formula (see
    ``BinaryCrossEntropyWithLogits``).

    Args:
        input (Tensor): logits, any shape, floating.
        target (Tensor): ``input``'s shape, values in [0, 1], floating.
        weight (Tensor | None): broadcast over the elements' losses.
        reduction: "mean" (default), "sum" or "none".
        pos_weight (Tensor | None): weight of the positive term, broadcast
            along the last dim (one per class).

    Raises:
        ValueError: PyTorch's "Target size (torch.Size([3])) must be the same
            as input size (torch.Size([2, 2]))"; "x is not a valid value for
            reduction".
        RuntimeError: PyTorch's "The function 'binary_cross_entropy_with_logits'
            is not differentiable with respect to argument 'weight'. ..." for a
            weight that requires grad.
    """
    if size_average is not None or reduce is not None:
        raise NotImplementedError("minigrad: size_average and reduce are deprecated in PyTorch and "
                                  "not supported; use reduction='mean' | 'sum' | 'none'")
    if input.shape != target.shape:
        raise ValueError(f"Target size ({_size(target.shape)}) must be the same as input size "
                         f"({_size(input.shape)})")
    code = _reduction(reduction)
    if target._data.dtype.kind != "f":
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{SCALAR_TYPE_NAMES[str(target._data.dtype)]}")
    for name, w in (("weight", weight), ("pos_weight", pos_weight)):
        if w is not None and w._requires_grad:
            raise RuntimeError(
                f"The function 'binary_cross_entropy_with_logits' is not differentiable with "
                f"respect to argument '{name}'. This input cannot have requires_grad True.")
    return BinaryCrossEntropyWithLogits.apply(input, target, (weight, pos_weight), code)


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by 1/(1-p) (``F.dropout``).

    As PyTorch (at::dropout, used on the CPU): with ``training=False``, ``p == 0``
    or an empty input, ``input`` itself is returned (nothing recorded); otherwise
    the result is ``input * mask``, with ``mask`` a tensor of ``input``'s shape
    and dtype holding 0 or 1/(1-p), which needs no gradient: the node is
    ``MulBackward0`` with ``(None, 0)`` for the mask, and it saves the mask as
    ``other``.  The mask is PyTorch's for a seed: ``empty_like(input).bernoulli_(1 - p)``
    divided by ``1 - p`` in ``input``'s dtype (``_dropout_impl`` in
    aten/src/ATen/native/Dropout.cpp; on an Intel CPU PyTorch's MKL build draws
    ``bernoulli_`` with MKL's generator instead: README, "Differences by design").

    Args:
        input (Tensor): any shape, floating point.
        p (float): the probability of zeroing an element, 0 <= p <= 1.
        training (bool): apply dropout (True) or return ``input`` (False).
        inplace (bool): multiply ``input`` by the mask in place and return it
            (``at::dropout_``: the node is MulBackward0 on the input's history).

    Raises:
        ValueError: ``p`` outside [0, 1], in PyTorch's words.
        RuntimeError: ``inplace=True`` on a leaf that requires grad (the
            in-place errors, as PyTorch).
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or input.numel() == 0:
        return input
    if p == 1:
        keep = np.zeros(input.shape, dtype=input._data.dtype)
    else:
        kind = input._data.dtype.type
        drawn = _kernels.bernoulli_scalar(default_generator, input._data.size, 1 - p)
        # 1 - p in double, then divided in the input's dtype, as noise.div_(1 - p)
        keep = drawn.reshape(input.shape).astype(kind) / kind(1 - p)
    return input.mul_(_make(keep)) if inplace else input * _make(keep)


from .activations import (  # noqa: E402  (re-exported: F.leaky_relu, F.gelu, ...)
    elu,
    elu_,
    gelu,
    hardtanh,
    hardtanh_,
    leaky_relu,
    leaky_relu_,
    silu,
    softplus,
)

__all__ += ["elu", "elu_", "gelu", "hardtanh", "hardtanh_", "leaky_relu", "leaky_relu_", "silu",
            "softplus"]
from .losses import huber_loss, kl_div, l1_loss, smooth_l1_loss  # noqa: E402

__all__ += ["huber_loss", "kl_div", "l1_loss", "smooth_l1_loss"]
from .padding import pad  # noqa: E402
from .sparse import embedding, one_hot  # noqa: E402

__all__ += ["embedding", "one_hot", "pad"]
from .distance import cosine_similarity, normalize  # noqa: E402

__all__ += ["cosine_similarity", "normalize"]
from .normalization import layer_norm  # noqa: E402
from .batchnorm import batch_norm  # noqa: E402

__all__ += ["layer_norm", "batch_norm"]
