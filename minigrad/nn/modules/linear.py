"""``Linear``: y = x Wᵀ + b, recorded as PyTorch records it.

For a 2-d input and a bias, PyTorch does not record a matmul and an add: it
calls one fused primitive, ``addmm(bias, x, W.t())``, so the graph of
``lin(x)`` is::

    AddmmBackward0
      ├─ AccumulateGrad (bias)
      ├─ x's node (or None if x needs no gradient)
      └─ TBackward0 ─ AccumulateGrad (weight)

``Addmm`` below is that primitive, with PyTorch's saved values
(``_saved_mat1``, ``_saved_mat2``, ``_saved_alpha``, ``_saved_beta``, sizes and
strides).  Other inputs follow ``at::native::linear``: a contiguous input of
any other number of dims is flattened to 2-d, sent through addmm and viewed
back (ViewBackward0 ← AddmmBackward0 ← ViewBackward0); without a bias, or for
a non-contiguous input, it is ``matmul(x, W.t())`` (+ ``bias``).

The vector-Jacobian products of out = β·bias + α·mat1 @ mat2:
bias̄ = β·out̄ (summed over the batch by the engine), mat1̄ = α·out̄ mat2ᵀ,
mat2̄ = α·mat1ᵀ out̄.

Source: ``torch.nn.Linear`` (torch/nn/modules/linear.py), ``at::native::linear``
(aten/src/ATen/native/Linear.cpp), ``addmm`` in derivatives.yaml.
"""

import math

import numpy as np

from ... import creation
from ...autograd.function import Function
from ...ops.linalg import matmul
from ...tensor import Tensor
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Addmm", "addmm", "linear", "Linear"]

_make = Tensor._make
_TYPE = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}


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
                f"mat1 and mat2 must have the same dtype, but got {_TYPE[mat1.dtype.name]} and "
                f"{_TYPE[mat2.dtype.name]}"
            )
        if C.dtype != A.dtype:
            raise RuntimeError(
                f"self and mat2 must have the same dtype, but got {_TYPE[input.dtype.name]} and "
                f"{_TYPE[mat2.dtype.name]}"
            )
        out_shape = (A.shape[0], B.shape[1])
        try:
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
        ctx.mat1_sym_strides = tuple(s // A.itemsize for s in A.strides) if need[1] else ()
        ctx.mat2_sym_strides = tuple(s // B.itemsize for s in B.strides) if need[2] else ()
        ctx.save_for_backward(mat1 if need[2] else None, mat2 if need[1] else None)
        prod = A @ B
        if alpha != 1:
            prod = prod * A.dtype.type(alpha)
        bias = C if beta == 1 else C * C.dtype.type(beta)
        return _make(np.add(prod, bias) if beta != 0 else prod)

    @staticmethod
    def backward(ctx, grad):
        mat1, mat2 = ctx.saved_tensors
        need = ctx.needs_input_grad
        alpha, beta = ctx.alpha, ctx.beta
        g_input = (grad if beta == 1 else grad * beta) if need[0] else None
        g_mat1 = g_mat2 = None
        if need[1]:
            g_mat1 = grad.mm(mat2.t())
            if alpha != 1:
                g_mat1 = g_mat1 * alpha
        if need[2]:
            g_mat2 = mat1.t().mm(grad)
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
        out = out + bias
    return out


class Linear(Module):
    """A fully connected layer: y = x Wᵀ + b (``torch.nn.Linear``).

    Args:
        in_features (int): size of each input's last dim.
        out_features (int): size of each output's last dim.
        bias (bool): learn an additive bias (default True).
        device: only None or "cpu".
        dtype: of the parameters; default float32.

    Attributes:
        weight (Parameter): (out_features, in_features), initialised
            U(-1/√in_features, 1/√in_features) (Kaiming uniform with a=√5).
        bias (Parameter | None): (out_features,), U(-1/√in_features, 1/√in_features).

    Prints as ``Linear(in_features=2, out_features=3, bias=True)``.
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        if device not in (None, "cpu"):
            raise RuntimeError(f"minigrad computes on the CPU only, got device={device!r}")
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(creation.empty(out_features, in_features, dtype=dtype))
        if bias:
            self.bias = Parameter(creation.empty(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Draw the weight and bias again from PyTorch's default distributions.

        ``kaiming_uniform_(weight, a=√5)`` gives bound √3·√(2/(1+5))/√fan_in =
        1/√fan_in; the bias uses the same bound (0 when fan_in is 0).
        """
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")
