"""Reverse-mode automatic differentiation: the recording, the walk, and their switches.

The public entry points mirror ``torch.autograd``:

* ``backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None)``
  accumulates gradients into leaves' ``.grad`` (what ``loss.backward()`` calls);
* ``grad(outputs, inputs, ...)`` returns gradients without touching ``.grad``;
* ``Function`` to define an operation with its own backward;
* ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``detect_anomaly``.

The files: ``graph.py`` (nodes), ``saved.py`` (their saved tensors), ``function.py`` (how an
operation records a node), ``engine.py`` (the walk), ``grad_mode.py`` (the
switch), ``anomaly.py``.
"""

import warnings as _warnings
from types import SimpleNamespace as _Namespace

from .. import tensor as _tensor
from ..tensor import Tensor
from ..creation import ones_like, zeros_like
from . import forward_ad, functional, graph, hooks, saved, saved_edits  # noqa: F401
from . import function as _function
from .anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .engine import run_backward
from .function import Function, FunctionCtx
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .gradcheck import GradcheckError, gradcheck
from .gradgradcheck import gradgradcheck
from .once_differentiable import once_differentiable
from .save_on_cpu import save_on_cpu as _save_on_cpu
from .variable import Variable
from .view_history import refresh_view as _refresh_view

__all__ = [
    "backward", "grad", "Function", "FunctionCtx", "once_differentiable", "gradcheck",
    "GradcheckError", "gradgradcheck", "functional", "forward_ad", "graph",
    "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
    "is_inference_mode_enabled",
    "detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "Variable",
]


def _as_tuple(x):
    if x is None:
        return None
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _make_grads(outputs, grads, is_grads_batched=False):
    """Seed gradients: given ones must match the output's shape; missing ones must be scalars.

    Raises:
        TypeError: "gradients can be either Tensors or None, but got float" for a
            gradient that is not a Tensor (PyTorch's ``_make_grads``).
        RuntimeError: PyTorch's shape-mismatch and implicit-creation errors.
    """
    result = []
    for i, out in enumerate(outputs):
        g = grads[i] if grads is not None and i < len(grads) else None
        if g is None:
            if out._requires_grad and out._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if out._data.dtype.kind != "f":
                raise RuntimeError(
                    f"grad can be implicitly created only for real scalar outputs but got {out.dtype}"
                )
            result.append(ones_like(out))
            continue
        if not isinstance(g, Tensor):  # (a number, an array: PyTorch takes no other kind)
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        if g.shape != out.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {_size(g.shape)} and "
                f"output[{i}] has a shape of {_size(out.shape)}."
            )
        result.append(g)
    return result


def _size(shape):
    return "torch.Size([" + ", ".join(str(s) for s in shape) + "])"


_CREATE_GRAPH_CYCLE = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using "
    "autograd.grad when creating the graph to avoid this. If you have to use this "
    "function, make sure to reset the .grad fields of your parameters to None after use "
    "to break the cycle and avoid the leak.")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate into leaves' ``.grad`` the gradient of ``tensors`` (``torch.autograd.backward``).

    Args:
        tensors (Tensor | sequence of Tensor): outputs to differentiate.
        grad_tensors (Tensor | sequence | None): one seed per output, of the
            output's shape (the "vector" of the vector-Jacobian product);
            None for one-element outputs (seeded with 1).
        retain_graph (bool | None): keep saved tensors for another walk;
            defaults to ``create_graph``.
        create_graph (bool): record the backward pass for higher-order gradients.
        inputs (Tensor | sequence | None): accumulate only into these tensors.

    Raises:
        RuntimeError: "grad can be implicitly created only for scalar outputs";
            "element 0 of tensors does not require grad and does not have a
            grad_fn"; "Trying to backward through the graph a second time ...".
    """
    tensors = _as_tuple(tensors)
    grads = _as_tuple(grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    for i, t in enumerate(tensors):
        if t._grad_fn is None and not t._requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
    seeds = _make_grads(tensors, grads)
    inputs = _as_tuple(inputs)
    if inputs is not None and len(inputs) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    for t in inputs or ():
        # as PyTorch's engine does: a non-leaf input gets its .grad through retain_grad
        t.retain_grad()
    if create_graph and any(t._grad_fn is not None or t._requires_grad for t in tensors):
        _warnings.warn(_CREATE_GRAPH_CYCLE, UserWarning, stacklevel=3)
    run_backward(tensors, seeds, retain_graph, create_graph, inputs=inputs, accumulate_grad=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=None, materialize_grads=False):
    """Return the gradients of ``outputs`` with respect to ``inputs`` (``torch.autograd.grad``).

    No ``.grad`` attribute is touched.

    Args:
        outputs (Tensor | sequence of Tensor): what to differentiate.
        inputs (Tensor | sequence of Tensor): with respect to what.
        grad_outputs: seeds, as ``grad_tensors`` of ``backward``.
        retain_graph (bool | None): defaults to ``create_graph``.
        create_graph (bool): record the backward pass, so the returned
            gradients have a ``grad_fn`` and can be differentiated again.
        allow_unused (bool | None): return None (or zeros with
            ``materialize_grads``) for inputs the outputs do not depend on,
            instead of raising.
        materialize_grads (bool): zeros instead of None for unused inputs.

    Returns:
        tuple of Tensor (or None), one per input.

    Raises:
        RuntimeError: PyTorch's "One of the differentiated Tensors appears to
            not have been used in the graph. Set allow_unused=True if this is
            the desired behavior." and the errors of ``backward``.
    """
    outputs = _as_tuple(outputs)
    inputs_t = _as_tuple(inputs)
    if not inputs_t:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grads = _as_tuple(grad_outputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, but got: allow_unused=False.")
    if retain_graph is None:
        retain_graph = create_graph
    for i, t in enumerate(outputs):
        if t._grad_fn is None and not t._requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
    seeds = _make_grads(outputs, grads)
    result = run_backward(outputs, seeds, retain_graph, create_graph, inputs=inputs_t,
                          allow_unused=allow_unused, accumulate_grad=False)
    if materialize_grads:
        result = tuple(zeros_like(i) if g is None else g for g, i in zip(result, inputs_t))
    return result


# What Tensor's autograd methods call: tensor.py sits below autograd, so autograd
# fills its slot (tensor._autograd) once it is loaded.
_tensor.register_autograd(_Namespace(
    backward=backward,
    note_detached=saved_edits.note_detached,
    refresh_view=_refresh_view,
    register_hook=hooks.register_hook,
    add_retain_hook=hooks.add_retain_hook,
))


def _accumulator(t):
    """``t._accumulator()``: leaf ``t``'s AccumulateGrad, one while a graph holds it."""
    return graph.AccumulateGrad.of(t)


# What only autograd calls on a Tensor is attached as it is: a leaf's AccumulateGrad;
# a leaf's hooks, run by its AccumulateGrad; retain_grad's hook, moved again by an
# in-place write; the hooks run after accumulating into .grad.
Tensor._accumulator = _accumulator
Tensor._run_leaf_hooks = hooks.run_leaf_hooks
Tensor._add_retain_hook = hooks.add_retain_hook
Tensor.register_post_accumulate_grad_hook = hooks.register_post_accumulate_grad_hook
Tensor._post_accumulate_hooks = hooks.post_accumulate_hooks

# torch.autograd.graph also offers these two, written above the core (hooks.py walks
# with the engine, save_on_cpu.py builds on saved_tensors_hooks): set them there.
graph.register_multi_grad_hook = hooks.register_multi_grad_hook
graph.save_on_cpu = _save_on_cpu
graph.saved_tensors_hooks = saved.saved_tensors_hooks
graph.SavedTensor = saved.SavedTensor
# torch.autograd.function.once_differentiable, written beside it (once_differentiable.py)
_function.once_differentiable = once_differentiable
