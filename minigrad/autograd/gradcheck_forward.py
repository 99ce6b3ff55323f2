"""``gradcheck(..., check_forward_ad=True)``: the Jacobian from forward mode against finite differences.

For each input that requires grad and each of its elements, the function is
run once on dual numbers (``forward_ad.make_dual``) with a one-hot tangent;
the output tangents form one row of the Jacobian, which must match the
central-difference Jacobian elementwise, as in PyTorch's slow mode.

Source: ``torch.autograd.gradcheck``'s ``_get_analytical_jacobian_forward_ad``
(torch/autograd/gradcheck.py).
"""

import numpy as np

__all__ = ["check_forward_jacobians"]


def _forward_jacobians(func, tupled_inputs, diff_idx, keep, outputs_of):
    """``result[k][i]``: (input numel, output numel) Jacobian of output ``keep[i]`` w.r.t. input k."""
    from ..tensor import Tensor
    from . import forward_ad as fwAD

    result = []
    for k in diff_idx:
        inp = tupled_inputs[k]
        jacs = None
        for d in range(inp._data.size):
            flat = np.zeros(inp._data.size, dtype=inp._data.dtype)
            flat[d] = 1
            with fwAD.dual_level():
                args = list(tupled_inputs)
                args[k] = fwAD.make_dual(inp.detach(), Tensor._make(flat.reshape(inp._data.shape)))
                outs = outputs_of(func(*args))
                cols = []
                for i in keep:
                    tangent = fwAD.unpack_dual(outs[i]).tangent
                    size = outs[i]._data.size
                    cols.append(np.zeros(size) if tangent is None else
                                np.array(tangent._data, dtype=np.float64).reshape(-1))
            if jacs is None:
                jacs = [np.zeros((inp._data.size, c.size)) for c in cols]
            for jac, col in zip(jacs, cols):
                jac[d, :] = col
        result.append(jacs or [])
    return result


def check_forward_jacobians(func, tupled_inputs, func_outs, diff_idx, numerical, rtol, atol,
                            helpers):
    """Raise ``GradcheckError`` if a forward-mode Jacobian differs from the numerical one.

    Args:
        numerical: ``numerical[k][i]`` from ``gradcheck._numerical_jacobians``.
        helpers: gradcheck's own (``GradcheckError``, ``_allclose``,
            ``_as_printable``, ``_worst_element``, ``_outputs_of``), passed in to
            keep one definition of each.

    Raises:
        GradcheckError: "Jacobian computed with forward mode mismatch for
            output 0 with respect to input 0," and both Jacobians, as PyTorch.
        NotImplementedError: PyTorch's messages for an operation or a custom
            Function without a forward-mode rule.
    """
    error, allclose, printable, worst, outputs_of = helpers
    keep = [i for i, o in enumerate(func_outs) if o._data.dtype.kind == "f"]
    forward = _forward_jacobians(func, tupled_inputs, diff_idx, keep, outputs_of)
    for k, per_input in enumerate(forward):
        for j, (a, i) in enumerate(zip(per_input, keep)):
            n = numerical[k][i]
            if not allclose(a, n, rtol, atol):
                shape_in = tupled_inputs[diff_idx[k]]._data.shape
                raise error(
                    f"Jacobian computed with forward mode mismatch for output {j:d} with respect "
                    f"to input {k:d},\nnumerical:{printable(n)}\nanalytical:{printable(a)}\n"
                    + worst(a, n, rtol, atol, shape_in, func_outs[i]._data.shape, k, j))
