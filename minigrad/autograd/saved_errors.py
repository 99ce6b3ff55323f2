"""The errors a saved value raises when it is read back, in PyTorch's words.

A node checks each value it saved before its gradient formula uses it
(``autograd/graph.py``): freed by an earlier backward, changed in place since
it was saved (the version counter moved), or, for a built-in formula, an
input whose grad_fn was taken away by ``detach_()``.

Source: ``SavedVariable::unpack`` (torch/csrc/autograd/saved_variable.cpp).
"""

import re

from .._dtype import SCALAR_TYPE_NAMES

__all__ = ["ERR_BACKWARD_TWICE", "ERR_HOOKS_FREED", "ERR_HOOKS_SET", "ERR_INFERENCE",
           "check_not_detached", "raise_modified"]

ERR_BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


def raise_modified(t, node, saved_version, is_output, output_nr=0):
    """PyTorch's error for a saved tensor changed in place after it was saved.

    Raises:
        RuntimeError: always, naming the tensor (dtype, shape), the operation
            that produced it, its version now and the version saved.
    """
    # PyTorch names a tensor by its legacy type (torch.FloatTensor), or, for a dtype that
    # has none in that form, by its C++ type: CPUBoolType
    name = SCALAR_TYPE_NAMES[t.dtype.name]
    kind = f"CPU{name}Type" if name == "Bool" else f"torch.{name}Tensor"
    shape = ", ".join(str(s) for s in t.shape)
    # the tensor's history now (a view written since is AsStridedBackward0), as PyTorch names it
    try:
        producer = node if is_output else t.grad_fn
    except RuntimeError:  # (a split/unbind output whose memory was written)
        if t._no_grad_view:  # PyTorch's unpack reads grad_fn first: its no_grad-view error
            raise
        producer = t._grad_fn
    # PyTorch names the producing operation without "Backward0" (MulBackward0: Mul), and
    # without "Backward" only when another number follows (PowBackward1: Pow1)
    where = ""
    if producer is not None:
        op = re.sub(r"Backward(?:0$|(?=\d*$))", "", producer.name())
        nr = output_nr if is_output else t._output_nr
        where = f", which is output {nr} of {op},"
    raise RuntimeError(
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: [{kind} [{shape}]]{where} is at version {t._version}; "
        f"expected version {saved_version} instead. Hint: enable anomaly detection to find the "
        "operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )


_DETACHED = ("Trying to use a saved tensor that has been detached in-place, i.e. with .detach_()."
             "This is not supported, please use out-of-place `.detach()` instead")


def check_not_detached(t, node):
    """Refuse a saved input whose grad_fn ``detach_()`` took away after ``node`` saved it.

    As PyTorch's ``SavedVariable::unpack``: a tensor that had a grad_fn when
    saved and has none now cannot be given back to a built-in formula (its
    place in the graph is lost); checked before the version.  ``detach_``
    notes the sequence number it was called at: a node made before then saved
    the tensor with its grad_fn (one made later saved a leaf).  (A tensor
    saved as a leaf, then given a grad_fn by an in-place op and detached,
    gets this error where PyTorch gives the version error.)

    Raises:
        RuntimeError: PyTorch's "Trying to use a saved tensor that has been
            detached in-place ..." when that is so.
    """
    seq = t._detached_seq
    if seq is not None and node._seq < seq:
        raise RuntimeError(_DETACHED)


ERR_INFERENCE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`.")
ERR_HOOKS_SET = ("Calling register_hooks on a saved tensor whose hooks have already been set. "
                 "Hint: only one pair of hooks is allowed at a time.")
ERR_HOOKS_FREED = ("Calling register_hooks on a saved tensor after it has been freed. "
                   + ERR_BACKWARD_TWICE[ERR_BACKWARD_TWICE.index("Saved "):]
                   .replace("saved tensors after", "saved variables after"))
