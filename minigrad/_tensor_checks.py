"""What Tensor's autograd attributes refuse, in PyTorch's words.

``tensor.py`` states each rule in a line: a non-leaf's ``requires_grad``
cannot be switched off, only floating tensors can require grad, an assigned
``.grad`` must match its tensor, a view cannot be detached in place.  The
checks and messages, long as PyTorch words them, are here.

Below the Tensor (layer 0): the checks read a tensor's slots, they do not
import it.

Source: ``THPVariable_set_requires_grad`` and ``THPVariable_set_grad``
(torch/csrc/autograd/python_variable.cpp), ``detach_``
(torch/csrc/autograd/VariableTypeManual.cpp).
"""

from ._dtype import C_TYPE_NAMES, SCALAR_TYPE_NAMES
from .autograd import grad_mode  # (a leaf module of autograd: it imports nothing of minigrad)

__all__ = ["ERR_DETACH_VIEW", "ERR_INT_GRAD", "WARN_NONLEAF_GRAD",
           "check_assigned_grad", "check_requires_grad"]

_state = grad_mode._state

WARN_NONLEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information."
)
# the factories' and Parameter's words (requires_grad_ has its own, below)
ERR_INT_GRAD = "Only Tensors of floating point and complex dtype can require gradients"
ERR_DETACH_VIEW = (
    "Can't detach views in-place. Use detach() instead. If you are using "
    "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
    "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
    "called on these gradients. To fix this error, please refer to the "
    "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
)


def check_requires_grad(t, requires_grad):
    """Refuse ``t.requires_grad_(requires_grad)`` where PyTorch does.

    Raises:
        RuntimeError: "you can only change requires_grad flags of leaf
            variables. ..." for a non-leaf; "only Tensors of floating point
            dtype can require gradients" for an integer tensor; "Setting
            requires_grad=True on inference tensor outside InferenceMode is
            not allowed." for an inference tensor outside ``inference_mode``.
    """
    if t._grad_fn is not None:
        raise RuntimeError(
            "you can only change requires_grad flags of leaf variables. If you want to "
            "use a computed variable in a subgraph that doesn't require differentiation "
            "use var_no_grad = var.detach()."
        )
    if requires_grad and t._data.dtype.kind != "f":
        # PyTorch's wording differs here from the factories' (lowercase, no "complex")
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    if requires_grad and t._inference and not _state.inference:
        raise RuntimeError(
            "Setting requires_grad=True on inference tensor outside InferenceMode is not "
            "allowed."
        )


def check_assigned_grad(data, grad_data):
    """Refuse a gradient array ``grad_data`` assigned as ``.grad`` of the tensor over ``data``.

    Raises:
        RuntimeError: PyTorch 2.13's "attempting to assign a gradient of size
            ..." for another shape, "... with dtype ..." for another dtype.
    """
    if grad_data.shape != data.shape:
        raise RuntimeError(
            f"attempting to assign a gradient of size '{list(grad_data.shape)}' to a "
            f"tensor of size '{list(data.shape)}'. Please ensure that the gradient "
            "and the tensor are the same size"
        )
    if grad_data.dtype != data.dtype:
        raise RuntimeError(
            f"attempting to assign a gradient with dtype '{C_TYPE_NAMES[grad_data.dtype.name]}' "
            f"to a tensor with grad_dtype '{SCALAR_TYPE_NAMES[data.dtype.name]}'. The "
            "gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). "
            "You can set the tensor's grad_dtype attribute with a specific dtype, or None "
            "to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a "
            "tensor and its gradient may break downstream systems that assume they match."
        )
