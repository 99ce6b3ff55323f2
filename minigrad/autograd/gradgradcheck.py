"""``gradgradcheck``: check second derivatives against finite differences.

A backward written with tensor operations is itself differentiable, which is
what ``create_graph=True``, ``hessian`` and ``hvp`` rely on.  But a backward
can be right and its derivative wrong: a mask or a factor taken with
``.detach()`` or from raw numpy values is treated as a constant the second
time round.  ``gradgradcheck`` catches that by turning the first derivative
into a function and handing it to ``gradcheck``::

    new_func(inputs..., grad_outputs...) = autograd.grad(func(inputs), inputs,
                                                         grad_outputs, create_graph=True)

The gradients of ``new_func`` (computed by backward through the recorded
backward pass) are compared with central finite differences of ``new_func``,
with respect to the inputs and to the ``grad_outputs`` (the vjp is linear in
them, so that part checks that backward multiplies by its ``grad_output``).

Source: ``torch.autograd.gradgradcheck`` (torch/autograd/gradcheck.py): same
signature, defaults and method.
"""

import numpy as np

from .gradcheck import GradcheckError, gradcheck

__all__ = ["gradgradcheck", "GradcheckError"]


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _differentiable_outputs(x):
    return tuple(o for o in _as_tuple(x) if o.requires_grad)


def _random_grad_output(x, noncontiguous):
    """Uniform in [-1, 1), x's shape, float dtype, requiring grad (``torch.testing.make_tensor``).

    Drawn from minigrad's global generator, so ``minigrad.manual_seed`` makes it
    reproducible.  ``noncontiguous`` lays the values out with a stride of 2.
    """
    from .. import _dtype
    from ..creation import rand
    from ..tensor import Tensor

    dtype = x.dtype if x.is_floating_point() else _dtype.float64
    values = rand(*x.shape, dtype=dtype)._data * 2 - 1
    if noncontiguous and values.size > 1:
        buf = np.zeros(values.shape + (2,), dtype=values.dtype)
        buf[..., 0] = values
        values = buf[..., 0]
    return Tensor._make(np.asarray(values, dtype=dtype.np)).requires_grad_(True)


def gradgradcheck(
    func,
    inputs,
    grad_outputs=None,
    *,
    eps=1e-6,
    atol=1e-5,
    rtol=1e-3,
    gen_non_contig_grad_outputs=False,
    raise_exception=True,
    nondet_tol=0.0,
    check_undefined_grad=True,
    check_grad_dtypes=False,
    check_batched_grad=False,
    check_fwd_over_rev=False,
    check_rev_over_rev=True,
    fast_mode=False,
    masked=False,
):
    """Check the gradients of the gradients of ``func`` against finite differences.

    Runs ``gradcheck`` on the function ``(inputs, grad_outputs) ->
    autograd.grad(func(inputs), inputs, grad_outputs, create_graph=True)``,
    for the inputs and ``grad_outputs`` that require grad.

    Args:
        func (callable): tensors in, a Tensor or a tuple of Tensors out.
        inputs (Tensor | tuple): the point; float64 tensors that require grad
            for the default tolerances.
        grad_outputs (Tensor | tuple | None): one per differentiable output;
            None draws them uniformly from [-1, 1) (``minigrad.manual_seed``
            makes that reproducible), requiring grad.
        eps, atol, rtol (float): as ``gradcheck``.
        gen_non_contig_grad_outputs (bool): lay the drawn ``grad_outputs`` out
            non-contiguously.
        raise_exception (bool): raise ``GradcheckError`` on a mismatch (True)
            or return False.
        nondet_tol, check_undefined_grad, check_grad_dtypes, fast_mode, masked:
            passed to ``gradcheck``.
        check_batched_grad, check_fwd_over_rev: PyTorch's vmap and
            forward-over-reverse checks; ``gradcheck`` refuses them here.
        check_rev_over_rev (bool): the reverse-over-reverse check (the one
            minigrad does).

    Returns:
        bool: True if the second derivatives match.

    Raises:
        GradcheckError: "Jacobian mismatch for output 0 with respect to input
            0, ..." where output k is the gradient of input k and the inputs
            are ``inputs`` followed by ``grad_outputs``.
        AssertionError: PyTorch's messages for inconsistent check flags.

    Source: ``torch.autograd.gradgradcheck``.
    """
    from ..tensor import Tensor
    from . import grad

    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError(
            "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True"
        )
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_undefined_grad=True requires check_rev_over_rev to be True"
        )
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_rev_over_rev to be True"
        )
    tupled_inputs = _as_tuple(inputs)

    if grad_outputs is None:
        outputs = _differentiable_outputs(func(*tupled_inputs))
        tupled_grad_outputs = tuple(
            _random_grad_output(x, gen_non_contig_grad_outputs) for x in outputs
        )
    else:
        tupled_grad_outputs = _as_tuple(grad_outputs)

    num_outputs = len(tupled_grad_outputs)

    # gradcheck may hand new_func detached copies: remember what required grad
    diff_input_args_indices = {
        i for i, x in enumerate(tupled_inputs) if isinstance(x, Tensor) and x.requires_grad
    }
    diff_grad_output_indices = {
        i for i, x in enumerate(tupled_grad_outputs) if x.requires_grad
    }

    def new_func(*args):
        input_args = tuple(
            x.requires_grad_() if i in diff_input_args_indices else x
            for i, x in enumerate(args[:-num_outputs])
        )
        outputs = _differentiable_outputs(func(*input_args))
        grad_outputs = tuple(
            x.requires_grad_() if i in diff_grad_output_indices else x
            for i, x in enumerate(args[-num_outputs:])
        )
        diff_input_args = tuple(
            x for i, x in enumerate(input_args) if i in diff_input_args_indices
        )
        grad_inputs = grad(outputs, diff_input_args, grad_outputs, create_graph=True,
                           allow_unused=True)
        return tuple(g for g in grad_inputs if g is not None)

    return gradcheck(
        new_func,
        tupled_inputs + tupled_grad_outputs,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        nondet_tol=nondet_tol,
        check_undefined_grad=check_undefined_grad,
        check_grad_dtypes=check_grad_dtypes,
        check_batched_grad=check_batched_grad,
        fast_mode=fast_mode,
        check_forward_ad=check_fwd_over_rev,
        check_backward_ad=check_rev_over_rev,
        masked=masked,
    )
