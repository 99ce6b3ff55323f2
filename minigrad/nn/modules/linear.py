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

from ... import creation
from .. import init
from ..functional import linear
from ..parameter import Parameter
from .module import Module

__all__ = ["Linear"]



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
        from ..._device import check

        check(device)
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
