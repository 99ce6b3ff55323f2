"""``gradcheck``: compare the gradients backward computes with finite differences.

A backward formula can be wrong in ways no error message reveals: a missing
factor, a transposed product, a gradient that forgets to sum a broadcast
dimension.  ``gradcheck`` catches them by measuring the derivative a second,
independent way:

* **numerically**, nudging one input element at a time by ``±eps`` and taking
  the central difference ``(f(x + eps) - f(x - eps)) / (2 eps)``: one column
  of the Jacobian per input element;
* **analytically**, running backward once per output element with a unit
  ``grad_output`` (a one-hot vector ``e_j``): the vector-Jacobian product
  ``e_jᵀ J`` is row ``j`` of the Jacobian, so every element of ``J`` comes out
  of the recorded graph.

The two must agree to ``|analytical - numerical| <= atol + rtol * |numerical|``
elementwise.  In float32 the finite difference itself is too noisy for the
default tolerances (rounding error ~1e-7 divided by ``2 eps`` = 2e-6), which is
why inputs should be float64 and why a warning says so otherwise.

Source: ``torch.autograd.gradcheck`` (torch/autograd/gradcheck.py): the same
signature, defaults, checks, order and error messages.  The Jacobians are laid
out as PyTorch prints them: one row per input element, one column per output
element (the transpose of the textbook ``∂out/∂in``), elements in row-major
(C) order.
"""

import warnings

import numpy as np

__all__ = ["gradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` when a check fails (``torch.autograd.gradcheck.GradcheckError``)."""


_NONDET_MSG = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""

_FAST_FAIL_SLOW_OK_MSG = """
Fast gradcheck failed but element-wise differences are small. This means that the
test might've passed in slow_mode!

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck:

If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `fast_mode=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_fast_mode=False`
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_fast_mode=False`
""".strip()

_UNDEFINED_NOTE = 'Please look at "Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"'

# fast_mode draws its random vectors from its own generator, so that the
# check is reproducible and leaves the user's random state alone (as PyTorch
# does with a fresh torch.Generator()).
_FAST_MODE_SEED = 67280421310721


def gradcheck(
    func,
    inputs,
    *,
    eps=1e-6,
    atol=1e-5,
    rtol=1e-3,
    raise_exception=True,
    nondet_tol=0.0,
    check_undefined_grad=True,
    check_grad_dtypes=False,
    check_batched_grad=False,
    check_batched_forward_grad=False,
    check_forward_ad=False,
    check_backward_ad=True,
    fast_mode=False,
    masked=None,
):
    """Check the gradients of ``func`` against central finite differences.

    For every input tensor with ``requires_grad=True`` and every output that
    requires grad, the analytical Jacobian (built row by row with
    ``autograd.grad`` and one-hot ``grad_outputs``) must match the numerical
    one elementwise: ``|analytical - numerical| <= atol + rtol * |numerical|``.
    Backward is run twice per row and the two results must agree within
    ``nondet_tol``.  Then, as in PyTorch, zero ``grad_outputs`` must give zero
    gradients of each input's shape and dtype, and (``check_undefined_grad``)
    leaving one output's gradient undefined must work and give zeros.

    Args:
        func (callable): takes the tensors of ``inputs`` (positionally) and
            returns a Tensor or a tuple/list of Tensors.  Outputs that do not
            require grad are not differentiated.
        inputs (Tensor | tuple of Tensor/other): the point at which to check.
            Use float64 for the tensors that require grad (the default
            tolerances assume it); other entries are passed through.
        eps (float): the finite-difference step.
        atol (float): absolute tolerance.
        rtol (float): relative tolerance (relative to the numerical value).
        raise_exception (bool): raise ``GradcheckError`` on failure (True) or
            return False (False).  Other errors are always raised.
        nondet_tol (float): how far two backward runs with the same inputs and
            ``grad_output`` may differ.
        check_undefined_grad (bool): check that an output whose gradient is
            left undefined is treated as a zero gradient.
        check_grad_dtypes (bool): fail if a gradient's dtype differs from its input's.
        check_forward_ad (bool): also compare the Jacobian computed with
            forward mode (dual numbers, ``autograd.forward_ad``) with the
            numerical one ("Jacobian computed with forward mode mismatch ...").
        check_backward_ad (bool): compare the reverse-mode Jacobian (the
            default); at least one of the two must be True.
        check_batched_grad, check_batched_forward_grad (bool): PyTorch's vmap
            checks; minigrad has no vmap, so True raises NotImplementedError.
        fast_mode (bool): compare one random projection ``vᵀ J u`` per
            (input, output) pair instead of the whole Jacobian (PyTorch's fast
            mode); on failure the full Jacobians are recomputed for the message.
        masked (bool | None): about sparse tensors in PyTorch; minigrad has
            none, so it is accepted and ignored.

    Returns:
        bool: True if every check passed; False on a failed check when
        ``raise_exception=False``.

    Raises:
        GradcheckError (a RuntimeError): "Jacobian mismatch for output 0 with
            respect to input 0," followed by the numerical and analytical
            Jacobians (rows: input elements, columns: output elements) and the
            worst element (its position, both values and their difference);
            also "Backward is not reentrant, ...", "Analytical gradient has
            incorrect size", "Gradient has dtype mismatch", "backward not
            multiplied by grad_output", "Numerical gradient for function
            expected to be zero" and the undefined-gradient messages, as in PyTorch.
        ValueError: "gradcheck expects at least one input tensor to require
            gradient, but none of them have requires_grad=True."
        RuntimeError: "The 0th input has a dimension with stride 0. ..." for an
            expanded (broadcast, overlapping) input, which cannot be perturbed
            one element at a time.
        NotImplementedError: for the batched checks; PyTorch's messages for
            forward mode through an operation without a rule.

    Warns:
        UserWarning: "Input #0 requires gradient and is not a double precision
            floating point or complex. This check will likely fail if all the
            inputs are not of double precision floating point or complex. "

    Example::

        x = minigrad.tensor([1.0, 2.0], dtype=minigrad.float64, requires_grad=True)
        gradcheck(lambda t: (t * t).sum(), (x,))    # True

    Source: ``torch.autograd.gradcheck``.
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    for flag, name in ((check_batched_grad, "check_batched_grad"),
                       (check_batched_forward_grad, "check_batched_forward_grad")):
        if flag:
            raise NotImplementedError(
                f"minigrad's gradcheck has no vmap: {name}=True is not supported"
            )
    try:
        return _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol,
                                 check_undefined_grad, check_grad_dtypes, fast_mode,
                                 check_forward_ad, check_backward_ad)
    except GradcheckError:
        if raise_exception:
            raise
        return False


# ---------------------------------------------------------------- helpers


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _tensor_cls():
    from ..tensor import Tensor

    return Tensor


def _make(array):
    """A leaf Tensor over ``array`` (no copy, no history)."""
    return _tensor_cls()._make(array)


def _grad(outputs, inputs, grad_outputs, retain_graph=None):
    from . import grad

    return grad(outputs, inputs, grad_outputs, retain_graph=retain_graph, allow_unused=True)


def _check_inputs(tupled_inputs):
    """Warn about non-float64 inputs; reject overlapping inputs and inputs that need no grad."""
    Tensor = _tensor_cls()
    any_requires_grad = False
    for idx, inp in enumerate(tupled_inputs):
        if isinstance(inp, Tensor) and inp.requires_grad:
            if inp._data.dtype != np.float64:
                warnings.warn(
                    f"Input #{idx} requires gradient and "
                    "is not a double precision floating point or complex. "
                    "This check will likely fail if all the inputs are "
                    "not of double precision floating point or complex. ",
                    UserWarning,
                    stacklevel=4,  # the caller of gradcheck
                )
            data = inp._data
            if data.size and not all(st > 0 or sz <= 1 for st, sz in zip(data.strides, data.shape)):
                raise RuntimeError(
                    f"The {idx}th input has a dimension with stride 0. gradcheck only "
                    "supports inputs that are non-overlapping to be able to "
                    "compute the numerical gradients correctly. You should call "
                    ".contiguous on the input before passing it to gradcheck."
                )
            if not data.flags.writeable:
                raise RuntimeError(
                    f"The {idx}th input is read-only memory, which gradcheck cannot perturb "
                    "to compute the numerical gradients; pass a copy."
                )
            any_requires_grad = True
    if not any_requires_grad:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, "
            "but none of them have requires_grad=True."
        )


def _outputs_of(func_out):
    Tensor = _tensor_cls()
    outs = _as_tuple(func_out)
    for o in outs:
        if not isinstance(o, Tensor):
            raise TypeError(
                f"gradcheck: func must return a Tensor or a tuple of Tensors, got an output "
                f"of type {type(o).__name__}"
            )
    return outs


def _differentiable(outs):
    return tuple(o for o in outs if o.requires_grad)


def _evaluate(func, tupled_inputs):
    """Copies of the values ``func`` returns now (outputs may alias the perturbed input)."""
    return tuple(np.array(o._data, copy=True) for o in _outputs_of(func(*tupled_inputs)))


def _check_same_dtype_and_shape(a, b, eps, idx=None):
    on_index = f"on index {idx} " if idx is not None else ""
    if a.shape != b.shape:
        raise AssertionError(
            f"Expected `func` to return outputs with the same shape when inputs are perturbed "
            f"{on_index}by {eps}, but got: shapes {a.shape} and {b.shape}."
        )
    if a.dtype != b.dtype:
        raise AssertionError(
            f"Expected `func` to return outputs with the same dtype when inputs are perturbed "
            f"{on_index}by {eps}, but got: dtypes {a.dtype} and {b.dtype}."
        )


def _jac_dtype(array_dtype):
    return array_dtype if array_dtype.kind == "f" else np.dtype(np.float64)


def _central_difference(func, tupled_inputs, data, idx, delta, eps, check_idx=None):
    """``(f(x + delta) - f(x - delta)) / (2 eps)`` for each output, flattened.

    ``data[idx]`` (one element, or ``...`` for the whole array) is changed in
    place and restored exactly afterwards, even if ``func`` raises.  Going
    through the raw values, as PyTorch goes through ``.data``, moves no
    version counter.
    """
    orig = data[idx].copy()
    try:
        data[idx] = orig - delta
        outa = _evaluate(func, tupled_inputs)
        data[idx] = orig + delta
        outb = _evaluate(func, tupled_inputs)
    finally:
        data[idx] = orig
    cols = []
    for a, b in zip(outa, outb):
        _check_same_dtype_and_shape(a, b, eps, check_idx)
        if a.dtype.kind in "biu":
            a, b = a.astype(np.float64), b.astype(np.float64)
        cols.append(((b - a) / (2 * eps)).reshape(-1))
    return cols


def _numerical_jacobians(func, tupled_inputs, func_outs, diff_idx, eps):
    """``result[k][i]``: Jacobian of output ``i`` (all outputs) w.r.t. differentiable input ``k``.

    Each is an array (input numel, output numel) of the output's dtype, one
    column of the textbook Jacobian per perturbed input element.
    """
    result = []
    for k in diff_idx:
        data = tupled_inputs[k]._data
        jacs = [np.zeros((data.size, o._data.size), dtype=_jac_dtype(o._data.dtype))
                for o in func_outs]
        for d_idx, idx in enumerate(np.ndindex(data.shape)):
            cols = _central_difference(func, tupled_inputs, data, idx, eps, eps, idx)
            for jac, col in zip(jacs, cols):
                jac[d_idx, :] = col
        result.append(jacs)
    return result


def _unit_grad_outputs(output):
    """One-hot ``grad_output`` tensors, one per element of ``output`` (row-major)."""
    flat = np.zeros(output._data.size, dtype=output._data.dtype)
    for j in range(flat.size):
        flat[:] = 0
        flat[j] = 1
        yield _make(flat.reshape(output._data.shape).copy())


def _stack_columns(columns, diff_inputs, n_out):
    """Stack per-grad_output input gradients into (input numel, n_out) Jacobians.

    Returns:
        (jacobians, sizes_ok, types_ok)
    """
    jacs = [np.zeros((inp._data.size, n_out), dtype=inp._data.dtype) for inp in diff_inputs]
    sizes_ok = types_ok = True
    for k, (inp, cols) in enumerate(zip(diff_inputs, columns)):
        for j, g in enumerate(cols):
            if g is None:
                continue
            if g._data.shape != inp._data.shape:
                sizes_ok = False
                continue
            if g._data.dtype != inp._data.dtype:
                types_ok = False
            jacs[k][:, j] = g._data.reshape(-1)
    return jacs, sizes_ok, types_ok


def _vjp_columns(output, diff_inputs, grad_outputs):
    """``columns[k][j]``: gradient of input ``k`` for ``grad_outputs[j]`` (None if unused)."""
    columns = [[] for _ in diff_inputs]
    for g_out in grad_outputs:
        grads = _grad(output, diff_inputs, g_out, retain_graph=True)
        for k, g in enumerate(grads):
            columns[k].append(None if g is None else _make(np.array(g._data, copy=True)))
    return columns


def _analytical_jacobians(output, diff_inputs, nondet_tol, check_grad_dtypes, grad_outputs=None):
    """The Jacobians of ``output`` w.r.t. each differentiable input, computed twice and compared.

    With ``grad_outputs`` (fast mode) the "Jacobian" has one column per given
    ``grad_output``: the vector-Jacobian products themselves.
    """
    if grad_outputs is None:
        grad_outputs = list(_unit_grad_outputs(output))
    n_out = len(grad_outputs)
    jacs1, sizes_ok, types_ok = _stack_columns(
        _vjp_columns(output, diff_inputs, grad_outputs), diff_inputs, n_out)
    jacs2, _, _ = _stack_columns(
        _vjp_columns(output, diff_inputs, grad_outputs), diff_inputs, n_out)
    reentrant = all(
        j1.size == 0 or not (np.abs(j1 - j2).max() > nondet_tol) for j1, j2 in zip(jacs1, jacs2)
    )
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckError(
            "Backward is not reentrant, i.e., running backward with "
            "same input and grad_output multiple times gives different values, "
            "although analytical gradient matches numerical gradient."
            f"The tolerance for nondeterminism was {nondet_tol}." + _NONDET_MSG
        )
    return jacs1


def _promote(a, n):
    dt = np.promote_types(a.dtype, n.dtype)
    return a.astype(dt, copy=False), n.astype(dt, copy=False)


def _allclose(a, n, rtol, atol):
    a, n = _promote(np.asarray(a), np.asarray(n))
    return bool(np.allclose(a, n, rtol=rtol, atol=atol))


def _worst_element(a, n, rtol, atol, in_shape, out_shape, in_k, out_i):
    """A sentence naming the element that exceeds its tolerance the most (nan first)."""
    a, n = _promote(a, n)
    diff = np.abs(a - n)
    allowed = atol + rtol * np.abs(n)
    excess = np.where(np.isnan(diff), np.inf, diff - allowed)
    r, c = np.unravel_index(int(np.argmax(excess)), excess.shape)
    in_idx = tuple(int(i) for i in np.unravel_index(r, in_shape)) if in_shape else ()
    out_idx = tuple(int(i) for i in np.unravel_index(c, out_shape)) if out_shape else ()
    return (
        f"Worst element: row {r}, column {c} (input {in_k} at index {in_idx}, output {out_i} "
        f"at index {out_idx}): numerical {float(n[r, c])!r}, analytical {float(a[r, c])!r}, "
        f"difference {float(diff[r, c])!r} > allowed {float(allowed[r, c])!r} "
        f"(atol + rtol * |numerical|).\n"
    )


def _notallclose_msg(analytical, numerical, output_idx, input_idx):
    return (
        f"Jacobian mismatch for output {output_idx:d} with respect to input {input_idx:d},\n"
        f"numerical:{numerical}\nanalytical:{analytical}\n"
    )


def _as_printable(jac):
    return repr(_make(jac))


# ------------------------------------------------------------ the checks


def _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
                      check_grad_dtypes, fast_mode, check_forward_ad=False,
                      check_backward_ad=True):
    Tensor = _tensor_cls()
    tupled_inputs = _as_tuple(inputs)
    _check_inputs(tupled_inputs)
    func_outs = _outputs_of(func(*tupled_inputs))
    outputs = _differentiable(func_outs)
    diff_idx = [i for i, t in enumerate(tupled_inputs) if isinstance(t, Tensor) and t.requires_grad]
    diff_inputs = [tupled_inputs[i] for i in diff_idx]

    if check_forward_ad:
        from .gradcheck_forward import check_forward_jacobians

        numerical = _numerical_jacobians(func, tupled_inputs, func_outs, diff_idx, eps)
        check_forward_jacobians(func, tupled_inputs, func_outs, diff_idx, numerical, rtol, atol,
                                (GradcheckError, _allclose, _as_printable, _worst_element,
                                 _outputs_of))
    if not check_backward_ad:
        return True
    if fast_mode:
        _fast_gradcheck(func, tupled_inputs, func_outs, outputs, diff_idx, diff_inputs,
                        eps, rtol, atol, nondet_tol, check_grad_dtypes)
    else:
        _slow_gradcheck(func, tupled_inputs, func_outs, outputs, diff_idx, diff_inputs,
                        eps, rtol, atol, nondet_tol, check_grad_dtypes)

    _test_backward_mul_by_grad_output(outputs, diff_inputs)
    if check_undefined_grad:
        _test_undefined_backward_mode(func, tupled_inputs, diff_inputs)
    return True


def _slow_gradcheck(func, tupled_inputs, func_outs, outputs, diff_idx, diff_inputs,
                    eps, rtol, atol, nondet_tol, check_grad_dtypes):
    numerical = _numerical_jacobians(func, tupled_inputs, func_outs, diff_idx, eps)
    if not outputs:
        for per_input in numerical:
            for jac in per_input:
                if np.count_nonzero(jac) > 0:
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return
    # numerical[k][i] -> by differentiable output: numerical_out[i][k]
    keep = [i for i, o in enumerate(func_outs) if o.requires_grad]
    numerical_out = [[numerical[k][i] for k in range(len(diff_idx))] for i in keep]
    for i, o in enumerate(outputs):
        analytical = _analytical_jacobians(o, diff_inputs, nondet_tol, check_grad_dtypes)
        for k, (a, n) in enumerate(zip(analytical, numerical_out[i])):
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(
                    _notallclose_msg(_as_printable(a), _as_printable(n), i, k)
                    + _worst_element(a, n, rtol, atol, diff_inputs[k]._data.shape,
                                     o._data.shape, k, i)
                )


def _random_unit_vector(rng, numel, dtype):
    v = rng.random(numel).astype(dtype)
    norm = np.sqrt((v.astype(np.float64) ** 2).sum())
    return v / dtype.type(norm) if norm > 0 else v


def _fast_gradcheck(func, tupled_inputs, func_outs, outputs, diff_idx, diff_inputs,
                    eps, rtol, atol, nondet_tol, check_grad_dtypes):
    """PyTorch's fast mode: compare ``vᵀ (J u)`` (finite differences) with ``(vᵀ J) u`` (backward)."""
    rng = np.random.default_rng(_FAST_MODE_SEED)
    all_u = [_random_unit_vector(rng, t._data.size, t._data.dtype) for t in diff_inputs]
    all_v = [_random_unit_vector(rng, o._data.size, o._data.dtype) for o in outputs]

    # numerical J u for each input, for every output
    all_Ju = []
    for k, u in zip(diff_idx, all_u):
        data = tupled_inputs[k]._data
        step = (u * eps).reshape(data.shape).astype(data.dtype, copy=False)
        all_Ju.append(_central_difference(func, tupled_inputs, data, ..., step, eps))

    if not outputs:
        for Ju in all_Ju:
            for jvp in Ju:
                if jvp.size and np.abs(jvp).max() > nondet_tol:
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return

    keep = [i for i, o in enumerate(func_outs) if o.requires_grad]
    # numerical[k][i] = v_i . (J_ik u_k)
    numerical = [[float(np.dot(all_v[i], Ju[o_idx].astype(all_v[i].dtype)))
                  for i, o_idx in enumerate(keep)] for Ju in all_Ju]
    # analytical[i][k] = (v_i^T J_ik) . u_k
    analytical = []
    for o, v in zip(outputs, all_v):
        vJ = _analytical_jacobians(o, diff_inputs, nondet_tol, check_grad_dtypes,
                                   grad_outputs=[_make(v.reshape(o._data.shape).copy())])
        analytical.append([float(np.dot(vj[:, 0], u)) for vj, u in zip(vJ, all_u)])

    for k in range(len(diff_inputs)):
        for i in range(len(outputs)):
            a, n = analytical[i][k], numerical[k][i]
            adjusted_atol = atol * float(all_u[k].sum()) * float(all_v[i].sum())
            if not _allclose(a, n, rtol, adjusted_atol):
                raise GradcheckError(
                    _notallclose_msg(a, n, i, k)
                    + _slow_mode_message(func, tupled_inputs, func_outs, outputs, diff_idx,
                                         diff_inputs, k, i, rtol, atol, eps)
                )


def _slow_mode_message(func, tupled_inputs, func_outs, outputs, diff_idx, diff_inputs,
                       k, i, rtol, atol, eps):
    """Recompute the full Jacobians of one pair for the message, as PyTorch's fast mode does."""
    keep = [idx for idx, o in enumerate(func_outs) if o.requires_grad]
    n = _numerical_jacobians(func, tupled_inputs, func_outs, diff_idx, eps)[k][keep[i]]
    a = _analytical_jacobians(outputs[i], diff_inputs, float("inf"), False)[k]
    pa, pn = _promote(a, n)
    max_diff = float(np.abs(pn - pa).max()) if pa.size else 0.0
    msg = (
        "\nThe above quantities relating the numerical and analytical jacobians are computed \n"
        "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
        "about fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\n"
        f"Numerical:\n {_as_printable(n)}\n"
        f"Analytical:\n{_as_printable(a)}\n\n"
        f"The max per-element difference (slow mode) is: {max_diff}.\n"
    )
    if _allclose(a, n, rtol, atol):
        msg += _FAST_FAIL_SLOW_OK_MSG
    elif pa.size:
        msg += _worst_element(a, n, rtol, atol, diff_inputs[k]._data.shape,
                              outputs[i]._data.shape, k, i)
    return msg


def _test_backward_mul_by_grad_output(outputs, diff_inputs):
    """Zero ``grad_outputs`` must give zero gradients of the inputs' shapes and dtypes."""
    from ..creation import zeros_like

    if not diff_inputs:
        raise GradcheckError("no Tensors requiring grad found in input")
    if not outputs:
        return
    grads = _grad(list(outputs), diff_inputs, [zeros_like(o) for o in outputs])
    for gi, di in zip(grads, diff_inputs):
        if gi is None:
            continue
        if not (gi._data == 0).all():
            raise GradcheckError("backward not multiplied by grad_output")
        if gi._data.dtype != di._data.dtype:
            raise GradcheckError("grad is incorrect type")
        if gi._data.shape != di._data.shape:
            raise GradcheckError("grad is incorrect size")


def _warn_bc_breaking():
    warnings.warn(
        "Backwards compatibility: New undefined gradient support checking "
        "feature is enabled by default, but it may break existing callers "
        "of this function. If this is true for you, you can call this "
        'function with "check_undefined_grad=False" to disable the feature',
        UserWarning,
        stacklevel=5,  # the caller of gradcheck
    )


def _test_undefined_backward_mode(func, tupled_inputs, diff_inputs):
    """An output whose gradient is undefined must count as a zero gradient.

    PyTorch marks outputs with an undefined gradient; minigrad's equivalent
    is to leave the output out of ``autograd.grad`` altogether, so that its
    node receives ``None`` for it (materialised as zeros, or passed as None
    after ``ctx.set_materialize_grads(False)``).  With every output undefined
    nothing runs, so only the one-at-a-time case can fail.
    """
    from ..creation import zeros_like

    n_outputs = len(_differentiable(_outputs_of(func(*tupled_inputs))))
    if n_outputs < 2:
        return
    for undefined in range(n_outputs):
        outs = _differentiable(_outputs_of(func(*tupled_inputs)))
        rest = [o for idx, o in enumerate(outs) if idx != undefined]
        try:
            grads = _grad(rest, diff_inputs, [zeros_like(o) for o in rest])
        except RuntimeError as e:
            _warn_bc_breaking()
            raise GradcheckError(
                "Expected backward function to handle undefined output grads. " + _UNDEFINED_NOTE
            ) from e
        for gi in grads:
            if gi is not None and not (gi._data == 0).all():
                _warn_bc_breaking()
                raise GradcheckError(
                    "Expected all input grads to be undefined or zero when all output grads "
                    "are undefined or zero. " + _UNDEFINED_NOTE
                )
