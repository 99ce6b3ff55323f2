"""Whole-function derivatives: ``vjp``, ``jvp``, ``jacobian``, ``hessian``, ``vhp``, ``hvp``.

``backward()`` differentiates one tensor you already computed.  These take a
*function* and a point, run the function, and return a derivative of it
there, built from the two primitive products of automatic differentiation:

* reverse mode gives a **vector-Jacobian product** vᵀJ in one backward pass
  (``vjp``); the Jacobian of f: Rⁿ → Rᵐ then costs **m** backward passes, one
  per output element (one row each) (``jacobian``, the default strategy);
* forward mode gives a **Jacobian-vector product** Jv in one forward pass with
  dual numbers (``forward_ad``); the Jacobian then costs **n** passes, one per
  input element (one column each) (``jacobian(..., strategy="forward-mode",
  vectorize=True)``).  So reverse mode wins for few outputs (a loss: m = 1),
  forward mode for few inputs.

``jvp`` here is computed as PyTorch's ``torch.autograd.functional.jvp`` does,
with the *double-backward trick*, not with dual numbers: the vjp
g(u) = uᵀJ is linear in u, so differentiating g once more, with respect to u,
along v gives (∂g/∂u)ᵀ v = J v.  It costs two backward passes and needs a
differentiable backward (``create_graph=True``), which every minigrad
primitive has.  ``forward_ad`` is the cheaper route for the same number.

Second derivatives are derivatives of derivatives: ``hessian`` is the
Jacobian of the gradient (reverse-over-reverse by default,
forward-over-reverse with ``outer_jacobian_strategy="forward-mode"``);
``vhp`` is one backward pass through a gradient computed with
``create_graph=True`` (vᵀH); ``hvp`` uses the double-backward trick on top
(Hv; equal to ``vhp`` for twice continuously differentiable functions,
where H is symmetric).

Return structures follow PyTorch: a single Tensor where the inputs (and
outputs) were a single Tensor, a tuple where they were a tuple, and for
``jacobian`` with tuple outputs *and* inputs a tuple of tuples,
``J[i][j]`` of shape ``outputs[i].shape + inputs[j].shape``.

minigrad has no ``vmap``: ``vectorize=True`` is accepted (and required for
forward mode, as in PyTorch) but computes the rows (or columns) one by one.
The results are the same; only PyTorch's speed-up is missing.

Source: ``torch.autograd.functional`` (torch/autograd/functional.py): same
signatures, defaults, checks, return structures and error messages.  The
mathematics: Griewank & Walther, *Evaluating Derivatives* (2nd ed., SIAM
2008), ch. 3-5 (forward and reverse mode and their costs); Baydin,
Pearlmutter, Radul & Siskind, "Automatic differentiation in machine
learning: a survey", JMLR 18 (2018), sections 3.1-3.2; Pearlmutter, "Fast
exact multiplication by the Hessian", Neural Computation 6 (1994) for vhp/hvp.
"""

import numpy as np

from ..tensor import Tensor
from . import forward_ad as fwAD
from . import grad_mode

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _size(shape):
    return "torch.Size([" + ", ".join(str(s) for s in shape) + "])"


# ------------------------------------------------------------------ helpers
# (the same helpers, under the same names, as torch/autograd/functional.py)


def _as_tuple_nocheck(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _as_tuple(inp, arg_name=None, fn_name=None):
    """``(was_a_tuple, tuple_of_tensors)``; PyTorch's TypeError for anything but tensors."""
    if arg_name is None and fn_name is None:
        return _as_tuple_nocheck(inp)
    is_inp_tuple = True
    if not isinstance(inp, tuple):
        inp = (inp,)
        is_inp_tuple = False
    for i, el in enumerate(inp):
        if not isinstance(el, Tensor):
            if is_inp_tuple:
                raise TypeError(
                    f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                    f"Tensors but the value at index {i} has type {type(el)}."
                )
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors "
                f"but the given {arg_name} has type {type(el)}."
            )
    return is_inp_tuple, inp


def _tuple_postprocess(res, to_unpack):
    """Undo ``_as_tuple``: unwrap the tuples the caller did not pass (one flag, or two for nesting)."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs, create_graph, need_graph):
    """Fresh tensor objects for the inputs, so the function's own captures are told apart.

    With ``create_graph`` an input that requires grad is taken through a
    differentiable ``view_as`` (the result stays connected to it); otherwise
    it is detached and made a leaf that requires grad if ``need_graph``.
    """
    res = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            res.append(inp.view_as(inp))
        else:
            res.append(inp.detach().requires_grad_(need_graph))
    return tuple(res)


def _grad_postprocess(inputs, create_graph):
    """Detach the results unless ``create_graph`` (nested tuples are walked)."""
    if isinstance(inputs[0], Tensor):
        if not create_graph:
            return tuple(inp.detach() for inp in inputs)
        return inputs
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.shape != el_other.shape:
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(
                f"{prepend}v has invalid size: should be {_size(el_other.shape)} but got "
                f"{_size(el_v.shape)}."
            )


def _check_requires_grad(inputs, input_type, strict):
    """In strict mode, refuse outputs (or gradients) that do not depend on the inputs."""
    if not strict:
        return
    if input_type not in ["outputs", "grad_inputs", "jacobian", "hessian"]:
        raise RuntimeError("Invalid input_type to _check_requires_grad")
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}."
                " This is not allowed in strict mode."
            )
        if not inp.requires_grad:
            if input_type == "hessian":
                raise RuntimeError(
                    f"The hessian of the user-provided function with respect to input {i}"
                    " is independent of the input. This is not allowed in strict mode."
                    " You should ensure that your function is thrice differentiable and that"
                    " the hessian depends on the inputs."
                )
            if input_type == "jacobian":
                raise RuntimeError(
                    "While computing the hessian, found that the jacobian of the user-provided"
                    f" function with respect to input {i} is independent of the input. This is not"
                    " allowed in strict mode. You should ensure that your function is twice"
                    " differentiable and that the jacobian depends on the inputs (this would be"
                    " violated by a linear function for example)."
                )
            if input_type == "grad_inputs":
                raise RuntimeError(
                    f"The gradient with respect to input {i} is independent of the inputs of the"
                    " user-provided function. This is not allowed in strict mode."
                )
            raise RuntimeError(
                f"Output {i} of the user-provided function does not require gradients."
                " The outputs must be computed in a differentiable manner from the input"
                " when running in strict mode."
            )


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` that skips outputs which do not require grad (None for every input if none do)."""
    from . import grad

    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    new_outputs = ()
    new_grad_outputs = ()
    for out, grad_out in zip(outputs, grad_outputs):
        if out is not None and out.requires_grad:
            new_outputs += (out,)
            new_grad_outputs += (grad_out,)
    if len(new_outputs) == 0:
        return (None,) * len(inputs)
    return grad(new_outputs, inputs, new_grad_outputs, allow_unused=True,
                create_graph=create_graph, retain_graph=retain_graph)


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    """Zeros for inputs that got no gradient; in strict mode, PyTorch's error for that stage."""
    from ..creation import zeros_like

    if stage not in ["back", "back_trick", "double_back", "double_back_trick"]:
        raise RuntimeError(f"Invalid stage argument '{stage}' to _fill_in_zeros")
    res = ()
    for i, grads_i in enumerate(grads):
        if grads_i is None:
            if strict:
                if stage == "back":
                    raise RuntimeError(
                        "The output of the user-provided function is independent of "
                        f"input {i}. This is not allowed in strict mode."
                    )
                if stage == "back_trick":
                    raise RuntimeError(
                        f"The gradient with respect to the input is independent of entry {i}"
                        " in the grad_outputs when using the double backward trick to compute"
                        " forward mode gradients. This is not allowed in strict mode."
                    )
                if stage == "double_back":
                    raise RuntimeError(
                        "The jacobian of the user-provided function is independent of "
                        f"input {i}. This is not allowed in strict mode."
                    )
                raise RuntimeError(
                    "The hessian of the user-provided function is independent of "
                    f"entry {i} in the grad_jacobian. This is not allowed in strict "
                    "mode as it prevents from using the double backward trick to "
                    "replace forward mode AD."
                )
            grads_i = zeros_like(refs[i])
        elif strict and create_graph and not grads_i.requires_grad:
            if "double" not in stage:
                raise RuntimeError(
                    "The jacobian of the user-provided function is independent of "
                    f"input {i}. This is not allowed in strict mode when create_graph=True."
                )
            raise RuntimeError(
                "The hessian of the user-provided function is independent of "
                f"input {i}. This is not allowed in strict mode when create_graph=True."
            )
        res += (grads_i,)
    return res


# --------------------------------------------------------------- public API


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """The vector-Jacobian product vᵀ J_f(inputs): one backward pass (``torch.autograd.functional.vjp``).

    Args:
        func (callable): takes the tensors of ``inputs`` positionally and
            returns a Tensor or a tuple of Tensors.
        inputs (Tensor | tuple of Tensor): the point (floating point).
        v (Tensor | tuple of Tensor | None): one tensor per output, of that
            output's shape; may be omitted only when ``func`` returns a
            single one-element tensor (it is then 1).
        create_graph (bool): compute the result differentiably (results keep
            their ``grad_fn``).
        strict (bool): raise instead of returning zeros for an input that no
            output depends on.

    Returns:
        tuple ``(func_output, vjp)``: ``func_output`` as ``func`` returned it;
        ``vjp`` with the structure and shapes of ``inputs`` (the gradient of
        ``sum(v * func(inputs))``), dtype of each input.

    Raises:
        TypeError: "The inputs given to vjp must be either a Tensor or a tuple
            of Tensors but the given inputs has type <class 'list'>." (and the
            same for outputs and v).
        RuntimeError: "v has invalid size: should be torch.Size([3]) but got
            torch.Size([2])."; "v is a tuple of invalid length: ..."; "The
            vector v can only be None if the user-provided function returns a
            single Tensor with a single element."; in strict mode "The output
            of the user-provided function is independent of input 0. This is
            not allowed in strict mode." and "Output 0 of the user-provided
            function does not require gradients. ...".

    Source: ``torch.autograd.functional.vjp``.
    """
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, outputs, is_outputs_tuple)
        elif len(outputs) != 1 or outputs[0].numel() != 1:
            raise RuntimeError(
                "The vector v can only be None if the user-provided function returns a single "
                "Tensor with a single element."
            )
    enable = True if create_graph else grad_mode.is_grad_enabled()
    with grad_mode.set_grad_enabled(enable):
        grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "back")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return (_tuple_postprocess(outputs, is_outputs_tuple),
            _tuple_postprocess(result, is_inputs_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """The Jacobian-vector product J_f(inputs) v, by the double-backward trick (``torch.autograd.functional.jvp``).

    As in PyTorch this does not use forward mode: with u a dummy ``grad_output``,
    g(u) = uᵀJ is computed with ``create_graph=True``; g is linear in u, so
    one more backward pass, of g with respect to u along v, gives J v.  Two
    backward passes; see ``forward_ad`` for the one-forward-pass way.

    Args:
        func (callable): tensors in, a Tensor or a tuple of Tensors out.
        inputs (Tensor | tuple of Tensor): the point.
        v (Tensor | tuple of Tensor | None): one tensor per input, of its
            shape; may be omitted only for a single one-element input.
        create_graph (bool): compute the result differentiably.
        strict (bool): raise instead of returning zeros when an output does
            not depend on the inputs.

    Returns:
        tuple ``(func_output, jvp)``: ``jvp`` with the structure and shapes of
        the outputs.

    Raises:
        TypeError / RuntimeError: as ``vjp`` ("v has invalid size: ...",
            "The vector v can only be None if the input to the user-provided
            function is a single Tensor with a single element."); in strict
            mode "The gradient with respect to the input is independent of
            entry 0 in the grad_outputs when using the double backward trick
            to compute forward mode gradients. This is not allowed in strict
            mode." and the ``vjp`` ones.

    Source: ``torch.autograd.functional.jvp``.
    """
    from ..creation import zeros_like

    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, inputs, is_inputs_tuple)
        elif len(inputs) != 1 or inputs[0].numel() != 1:
            raise RuntimeError(
                "The vector v can only be None if the input to the user-provided function is a "
                "single Tensor with a single element."
            )
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        # The backward is linear in grad_outputs, so their value does not
        # matter (zeros: no inf or nan); they only have to require grad.
        grad_outputs = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    if create_graph:
        with grad_mode.enable_grad():
            grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
            result = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    else:
        grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return (_tuple_postprocess(outputs, is_outputs_tuple),
            _tuple_postprocess(result, is_outputs_tuple))


def _basis_column(inp, k):
    """The k-th standard basis vector in ``inp``'s shape and dtype (a one-hot tangent)."""
    arr = np.zeros(inp.numel(), dtype=inp._data.dtype)
    arr[k] = 1
    return Tensor._make(arr.reshape(inp.shape))


def _jacfwd(func, inputs, strict=False, vectorize=False):
    """The Jacobian by forward mode: one dual-number pass per input element (one column each)."""
    from ..ops.shape import stack
    from ..creation import zeros_like

    if strict:
        raise RuntimeError(
            "torch.autograd.functional.jacobian: `strict=True` "
            'and `strategy="forward-mode"` are not supported together (yet). '
            "Please either set `strict=False` or "
            '`strategy="reverse-mode"`.'
        )
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        raise NotImplementedError(
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
            "only implemented for `vectorize=True`."
        )
    # columns[i][j]: the list of tangents of output i, one per element of input j
    columns = None
    is_outputs_tuple = None
    primal_outs = None
    for j, inp in enumerate(inputs):
        for k in range(inp.numel()):
            with fwAD.dual_level():
                dual_inputs = tuple(
                    fwAD.make_dual(x, _basis_column(x, k) if i == j else zeros_like(x))
                    for i, x in enumerate(inputs)
                )
                is_out_tuple, dual_outputs = _as_tuple(func(*dual_inputs), "outputs")
                jv = []
                primals = []
                for dual_out in dual_outputs:
                    primal, tangent = fwAD.unpack_dual(dual_out)
                    primals.append(primal)
                    jv.append(tangent if tangent is not None else zeros_like(primal))
            if columns is None:
                is_outputs_tuple, primal_outs = is_out_tuple, primals
                columns = [[[] for _ in inputs] for _ in primals]
            for i, t in enumerate(jv):
                columns[i][j].append(t)
    jacobian_output_input = []
    for i, out in enumerate(primal_outs):
        row = []
        for j, inp in enumerate(inputs):
            jac = stack(columns[i][j], 0)  # (input numel,) + output shape
            jac = jac.permute(*range(1, jac.ndim), 0).reshape(tuple(out.shape) + tuple(inp.shape))
            row.append(jac)
        jacobian_output_input.append(tuple(row))
    return _tuple_postprocess(tuple(jacobian_output_input), (is_outputs_tuple, is_inputs_tuple))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs`` (``torch.autograd.functional.jacobian``).

    ``strategy="reverse-mode"`` (default): one backward pass per output
    element, each giving one row (a vjp with a one-hot v); cost O(outputs).
    ``strategy="forward-mode"``: one dual-number forward pass per input
    element, each giving one column; cost O(inputs); needs ``vectorize=True``
    as in PyTorch (minigrad still loops: it has no vmap).

    Args:
        func (callable): tensors in, a Tensor or a tuple of Tensors out.
        inputs (Tensor | tuple of Tensor): the point (floating point).
        create_graph (bool): compute the Jacobian differentiably (reverse mode only).
        strict (bool): raise instead of returning zeros for an output that
            does not depend on an input (reverse mode, not vectorized, only).
        vectorize (bool): accepted for PyTorch compatibility; required for
            forward mode; no speed-up here.
        strategy (str): ``"reverse-mode"`` or ``"forward-mode"``.

    Returns:
        Tensor: for one input and one output, of shape
        ``output.shape + input.shape``; a tuple over the inputs (or over the
        outputs) when only that one was a tuple; a tuple of tuples
        ``J[i][j]`` (output i, input j) when both were.  dtype: the input's
        (reverse mode) or the output's (forward mode).

    Raises:
        AssertionError: 'Expected strategy to be either "forward-mode" or
            "reverse-mode". ...' for another strategy.
        NotImplementedError: "Computing Jacobian using forward-AD or
            forward-over-reverse Hessian isonly implemented for
            `vectorize=True`." (PyTorch's text, missing space included);
            "... `create_graph=True` and `strategy="forward-mode"` are not
            supported together (yet). ...".
        RuntimeError: in strict mode "Output 0 of the user-provided function
            is independent of input 1. This is not allowed in strict mode.",
            "Output 0 of the user-provided function does not require
            gradients. ...", and the refusals of strict with vectorize or
            forward mode.
        TypeError: for inputs or outputs that are not Tensors (PyTorch's text).

    Source: ``torch.autograd.functional.jacobian``.
    """
    from ..ops.shape import stack
    from ..creation import zeros_like

    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` "
                'and `strategy="forward-mode"` are not supported together (yet). '
                "Please either set `create_graph=False` or "
                '`strategy="reverse-mode"`.'
            )
        return _jacfwd(func, inputs, strict, vectorize)

    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(
            outputs, "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if vectorize and strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` "
                "and `vectorized=True` are not supported together. "
                "Please either set `strict=False` or "
                "`vectorize=False`."
            )
        result = ()
        for i, out in enumerate(outputs):
            jac_i = tuple([] for _ in range(len(inputs)))
            flat = out.reshape(-1)
            for j in range(out.numel()):
                vj = _autograd_grad((flat[j],), inputs, retain_graph=True,
                                    create_graph=create_graph)
                for el_idx, (jac_i_el, vj_el, inp_el) in enumerate(zip(jac_i, vj, inputs)):
                    if vj_el is not None:
                        if strict and create_graph and not vj_el.requires_grad:
                            raise RuntimeError(
                                "The jacobian of the user-provided function is "
                                f"independent of input {i}. This is not allowed in "
                                "strict mode when create_graph=True."
                            )
                        jac_i_el.append(vj_el)
                    else:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is "
                                f"independent of input {el_idx}. This is not allowed in "
                                "strict mode."
                            )
                        jac_i_el.append(zeros_like(inp_el))
            result += (
                tuple(
                    stack(jac_i_el, 0).view(tuple(out.shape) + tuple(inputs[el_idx].shape))
                    for el_idx, jac_i_el in enumerate(jac_i)
                ),
            )
        result = _grad_postprocess(result, create_graph)
        return _tuple_postprocess(result, (is_outputs_tuple, is_inputs_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function: the Jacobian of its gradient (``torch.autograd.functional.hessian``).

    The inner Jacobian (the gradient) is always reverse mode, computed with
    ``create_graph=True`` so that it can be differentiated again; the outer
    one is reverse mode (reverse-over-reverse: one more backward pass per
    input element) or, with ``outer_jacobian_strategy="forward-mode"`` and
    ``vectorize=True``, forward mode (forward-over-reverse: the backward pass
    runs on dual numbers, one pass per input element).

    Args:
        func (callable): tensors in, a Tensor with a single element out.
        inputs (Tensor | tuple of Tensor): the point.
        create_graph (bool): compute the Hessian differentiably.
        strict (bool): raise when the output, or its gradient, does not
            depend on an input (a linear function fails this).
        vectorize (bool): accepted; required for the forward-mode outer Jacobian.
        outer_jacobian_strategy (str): ``"reverse-mode"`` or ``"forward-mode"``.

    Returns:
        Tensor of shape ``input.shape + input.shape`` for a single input; for
        a tuple of inputs a tuple of tuples, ``H[i][j]`` of shape
        ``inputs[i].shape + inputs[j].shape``.

    Raises:
        RuntimeError: "The function given to hessian should return a single
            Tensor"; "The Tensor returned by the function given to hessian
            should contain a single element"; in strict mode "While computing
            the hessian, found that the jacobian of the user-provided function
            with respect to input 0 is independent of the input. ..." and the
            ``jacobian`` ones.
        AssertionError: 'Expected strategy to be either "forward-mode" or
            "reverse-mode".'
        NotImplementedError: the forward-mode refusals of ``jacobian``.

    Source: ``torch.autograd.functional.hessian``.
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single element"
            )
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            # _grad_preprocess must keep the dual inputs connected: require grad
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def _scalar_function_outputs(func, inputs, name, strict):
    outputs = func(*inputs)
    is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    if is_outputs_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {name} should contain a single element"
        )
    return is_outputs_tuple, outputs


def _prepare_v(v, inputs, is_inputs_tuple, name, create_graph):
    if v is not None:
        _, v = _as_tuple(v, "v", name)
        v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
        _validate_v(v, inputs, is_inputs_tuple)
    elif len(inputs) != 1 or inputs[0].numel() != 1:
        raise RuntimeError(
            "The vector v can only be None if the input to the user-provided function "
            "is a single Tensor with a single element."
        )
    return v


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """The vector-Hessian product vᵀ H of a scalar function (``torch.autograd.functional.vhp``).

    The gradient is computed with ``create_graph=True`` and then one more
    backward pass through it with v as its ``grad_output``: two backward
    passes in all, without ever forming H (Pearlmutter 1994).

    Args:
        func (callable): tensors in, a one-element Tensor out.
        inputs (Tensor | tuple of Tensor): the point.
        v (Tensor | tuple of Tensor | None): shaped like ``inputs``; may be
            omitted only for a single one-element input.
        create_graph (bool): compute the result differentiably.
        strict (bool): raise instead of returning zeros for inputs the
            output or its gradient does not depend on.

    Returns:
        tuple ``(func_output, vhp)``; ``vhp`` shaped like ``inputs``.

    Raises:
        RuntimeError: "The function given to vhp should return a single
            Tensor"; "The Tensor returned by the function given to vhp should
            contain a single element"; the ``v`` errors of ``vjp``; in strict
            mode "While computing the hessian, found that the jacobian of the
            user-provided function with respect to input 0 is independent of
            the input. ..." and "The jacobian of the user-provided function is
            independent of input 0. This is not allowed in strict mode.".

    Source: ``torch.autograd.functional.vhp``.
    """
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, "vhp", create_graph)
        is_outputs_tuple, outputs = _scalar_function_outputs(func, inputs, "vhp", strict)
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
    enable = True if create_graph else grad_mode.is_grad_enabled()
    with grad_mode.set_grad_enabled(enable):
        grad_res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return (_tuple_postprocess(outputs, is_outputs_tuple),
            _tuple_postprocess(result, is_inputs_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """The Hessian-vector product H v of a scalar function (``torch.autograd.functional.hvp``).

    Reverse-over-reverse with the double-backward trick on top: the gradient
    g (``create_graph=True``), then u ↦ uᵀ∂g (``create_graph=True``), then its
    derivative with respect to u along v: three backward passes.  For a twice
    continuously differentiable function H is symmetric and ``vhp`` gives
    the same numbers more cheaply, as PyTorch's documentation notes.

    Args, Returns and Raises: as ``vhp`` (with "hvp" in the messages; in
        strict mode also "The hessian of the user-provided function is
        independent of entry 0 in the grad_jacobian. ...").

    Source: ``torch.autograd.functional.hvp``.
    """
    from ..creation import zeros_like

    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, "hvp", create_graph)
        is_outputs_tuple, outputs = _scalar_function_outputs(func, inputs, "hvp", strict)
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        grad_jac = tuple(zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict=strict)  # (sic) PyTorch checks jac here
    enable = True if create_graph else grad_mode.is_grad_enabled()
    with grad_mode.set_grad_enabled(enable):
        grad_res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return (_tuple_postprocess(outputs, is_outputs_tuple),
            _tuple_postprocess(result, is_inputs_tuple))
