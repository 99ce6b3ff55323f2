"""``minigrad.autograd.functional`` (jacobian, hessian, vjp, jvp, hvp, vhp) and ``gradgradcheck``.

1. Hand-derived values: f(x) = x³ has J = diag(3x²); Σx³ has H = diag(6x);
   f(x, y) = (x*y, x+y) has the nested-tuple Jacobian ((diag y, diag x), (I, I)).
2. The same numbers against central finite differences, on compositions of ops.
3. Return structures (Tensor vs tuple vs tuple of tuples) and ``create_graph``.
4. PyTorch 2.13's errors, text included: strict mode, a ``v`` of the wrong
   size, non-Tensor inputs and outputs, the forward-mode refusals.
5. ``jacobian(strategy="forward-mode", vectorize=True)`` equals reverse mode.
6. ``gradgradcheck`` passes on correct double backwards and catches a wrong one.
7. Values recorded from PyTorch 2.13 (``_record_with_torch`` at the end:
   ``/root/torchvenv/bin/python tests/test_functional.py``).
"""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad
from minigrad.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp
from minigrad.autograd.gradcheck import GradcheckError
from minigrad.autograd.gradgradcheck import gradgradcheck

F64 = minigrad.float64


def t64(data, requires_grad=False):
    return minigrad.tensor(data, dtype=F64, requires_grad=requires_grad)


def arr(t):
    return t.detach().numpy()


# ------------------------------------------------------------------ finite differences


def numerical_jacobian(fn, inputs, eps=1e-6):
    """Central differences: J[i][j] of shape outputs[i].shape + inputs[j].shape (numpy)."""
    base = [np.array(x, dtype=np.float64) for x in inputs]

    def run(arrays):
        out = fn(*[t64(a) for a in arrays])
        outs = out if isinstance(out, tuple) else (out,)
        return [arr(o).copy() for o in outs]

    outs0 = run(base)
    jac = [[np.zeros(o.shape + b.shape) for b in base] for o in outs0]
    for j, b in enumerate(base):
        for k in np.ndindex(b.shape):
            plus = [a.copy() for a in base]
            minus = [a.copy() for a in base]
            plus[j][k] += eps
            minus[j][k] -= eps
            for i, (p, m) in enumerate(zip(run(plus), run(minus))):
                jac[i][j][(...,) + k] = (p - m) / (2 * eps)
    return jac


def numerical_hessian(fn, x, eps=1e-4):
    """Central differences of the (analytical) gradient: H[:, k] = (g(x + eps e_k) - g(x - eps e_k)) / 2eps."""
    def grad_at(a):
        t = t64(a, requires_grad=True)
        (g,) = minigrad.autograd.grad(fn(t), t)
        return arr(g)

    x = np.array(x, dtype=np.float64)
    H = np.zeros(x.shape + x.shape)
    for k in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[k] += eps
        minus[k] -= eps
        H[(...,) + k] = (grad_at(plus) - grad_at(minus)) / (2 * eps)
    return H


# ------------------------------------------------------------------ hand-derived values


def test_jacobian_of_cube_is_diag_3x2():
    x = t64([1.0, 2.0, 3.0])
    J = jacobian(lambda a: a ** 3, x)
    assert isinstance(J, minigrad.Tensor) and J.shape == (3, 3) and J.dtype is F64
    np.testing.assert_array_equal(arr(J), np.diag([3.0, 12.0, 27.0]))
    assert J.grad_fn is None and not J.requires_grad


def test_hessian_of_sum_of_cubes_is_diag_6x():
    x = t64([1.0, 2.0, 3.0])
    H = hessian(lambda a: (a ** 3).sum(), x)
    np.testing.assert_array_equal(arr(H), np.diag([6.0, 12.0, 18.0]))
    Hf = hessian(lambda a: (a ** 3).sum(), x, vectorize=True, outer_jacobian_strategy="forward-mode")
    np.testing.assert_array_equal(arr(Hf), np.diag([6.0, 12.0, 18.0]))


def test_jacobian_of_two_outputs_and_two_inputs_is_a_tuple_of_tuples():
    x, y = t64([1.0, 2.0, 3.0]), t64([4.0, 5.0, 6.0])
    J = jacobian(lambda a, b: (a * b, a + b), (x, y))
    assert isinstance(J, tuple) and len(J) == 2
    assert all(isinstance(row, tuple) and len(row) == 2 for row in J)
    (dprod_dx, dprod_dy), (dsum_dx, dsum_dy) = J
    np.testing.assert_array_equal(arr(dprod_dx), np.diag([4.0, 5.0, 6.0]))
    np.testing.assert_array_equal(arr(dprod_dy), np.diag([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(arr(dsum_dx), np.eye(3))
    np.testing.assert_array_equal(arr(dsum_dy), np.eye(3))


def test_return_structure_follows_the_tuples_given():
    x, y = t64([1.0, 2.0]), t64([3.0, 4.0, 5.0])
    # one input in a tuple, one output: a tuple of one Tensor
    J = jacobian(lambda a: a * 2, (x,))
    assert isinstance(J, tuple) and len(J) == 1 and J[0].shape == (2, 2)
    # one input, a tuple of outputs: a tuple over the outputs
    J = jacobian(lambda a: (a.sum(), a * a), x)
    assert isinstance(J, tuple) and J[0].shape == (2,) and J[1].shape == (2, 2)
    # two inputs, one output: a tuple over the inputs, shapes out.shape + in.shape
    J = jacobian(lambda a, b: a.sum() * b, (x, y))
    assert isinstance(J, tuple) and J[0].shape == (3, 2) and J[1].shape == (3, 3)
    # hessian of two inputs: H[i][j] of shape in_i.shape + in_j.shape
    H = hessian(lambda a, b: (a ** 2).sum() * b.sum(), (x, y))
    assert [[h.shape for h in row] for row in H] == [[(2, 2), (2, 3)], [(3, 2), (3, 3)]]
    np.testing.assert_array_equal(arr(H[0][0]), 2 * 12.0 * np.eye(2))
    np.testing.assert_array_equal(arr(H[0][1]), np.full((2, 3), 2.0) * [[1.0], [2.0]])
    np.testing.assert_array_equal(arr(H[1][1]), np.zeros((3, 3)))
    # vjp and friends: (output as returned, result shaped like the inputs)
    out, v = vjp(lambda a, b: a.sum() * b, (x, y), t64([1.0, 0.0, 0.0]))
    assert isinstance(out, minigrad.Tensor) and isinstance(v, tuple) and len(v) == 2
    out, j = jvp(lambda a: (a * 2, a.sum()), x, t64([1.0, 1.0]))
    assert isinstance(out, tuple) and isinstance(j, tuple) and j[1].item() == 2.0


def test_zero_dim_input_and_output():
    x = t64(2.0)
    assert jacobian(lambda a: a ** 3, x).item() == 12.0
    assert hessian(lambda a: a ** 3, x).item() == 12.0
    out, g = vjp(lambda a: a ** 3, x)  # v may be omitted for a one-element output
    assert out.item() == 8.0 and g.item() == 12.0
    out, j = jvp(lambda a: a ** 3, x)  # ... and for a one-element input
    assert j.item() == 12.0
    assert vhp(lambda a: a ** 3, x)[1].item() == 12.0
    assert hvp(lambda a: a ** 3, x)[1].item() == 12.0


def test_vjp_jvp_vhp_hvp_by_hand():
    x = t64([1.0, 2.0, 3.0])
    v = t64([1.0, -1.0, 0.5])
    out, g = vjp(lambda a: a ** 3, x, v)
    np.testing.assert_array_equal(arr(out), [1.0, 8.0, 27.0])
    np.testing.assert_array_equal(arr(g), [3.0, -12.0, 13.5])     # vᵀ diag(3x²)
    out, j = jvp(lambda a: a ** 3, x, v)
    np.testing.assert_array_equal(arr(j), [3.0, -12.0, 13.5])     # diag(3x²) v
    # a non-symmetric Jacobian tells vjp from jvp: f(a) = a * a[0], J = diag(a0) + a e0ᵀ
    _, g = vjp(lambda a: a * a[0], x, v)
    _, j = jvp(lambda a: a * a[0], x, v)
    J = np.diag([1.0, 1.0, 1.0]) * 1.0 + np.outer([1.0, 2.0, 3.0], [1.0, 0.0, 0.0])
    np.testing.assert_allclose(arr(g), J.T @ arr(v), rtol=1e-15)
    np.testing.assert_allclose(arr(j), J @ arr(v), rtol=1e-15)
    out, h = vhp(lambda a: (a ** 3).sum(), x, v)
    assert out.item() == 36.0
    np.testing.assert_array_equal(arr(h), [6.0, -12.0, 9.0])      # diag(6x) v
    out, h = hvp(lambda a: (a ** 3).sum(), x, v)
    np.testing.assert_array_equal(arr(h), [6.0, -12.0, 9.0])


def test_inputs_that_an_output_ignores_get_zeros_when_not_strict():
    x, y = t64([1.0, 2.0]), t64([3.0])
    J = jacobian(lambda a, b: a * 2, (x, y))
    np.testing.assert_array_equal(arr(J[1]), np.zeros((2, 1)))
    _, (gx, gy) = vjp(lambda a, b: a * 2, (x, y), t64([1.0, 1.0]))
    np.testing.assert_array_equal(arr(gy), [0.0])
    H = hessian(lambda a, b: (a ** 2).sum(), (x, y))
    np.testing.assert_array_equal(arr(H[1][1]), [[0.0]])
    # an output that does not depend on the inputs at all: a zero Jacobian
    np.testing.assert_array_equal(arr(jacobian(lambda a: minigrad.ones(2, dtype=F64), x)),
                                  np.zeros((2, 2)))


def test_inputs_are_not_modified_and_results_carry_no_graph():
    x = t64([1.0, 2.0], requires_grad=True)
    out, g = vjp(lambda a: (a * a).sum(), x)
    assert out.grad_fn is None and g.grad_fn is None
    assert x.grad is None and x.is_leaf
    J = jacobian(lambda a: a.exp(), x)
    assert J.grad_fn is None


# ------------------------------------------------------------------ against finite differences

COMPOSITIONS = {
    "tanh_matmul": (lambda a, w: (a @ w).tanh(), [(3,), (3, 2)]),
    "softmax_exp": (lambda a, w: a.softmax(0) * (w.sum(1) * 0.3).exp(), [(3,), (3, 2)]),
    "two_outputs": (lambda a, w: ((a.unsqueeze(1) * w).sigmoid(), (a ** 2).sum() / w.abs().sum()),
                    [(3,), (3, 2)]),
    "broadcast_pow": (lambda a, w: (w * w + 1) ** a.unsqueeze(1).tanh(), [(3,), (3, 2)]),
    "logsumexp_max": (lambda a, w: (w.logsumexp(1) + a.max()) * a.cos(), [(3,), (3, 2)]),
}


@pytest.mark.parametrize("name", sorted(COMPOSITIONS))
@pytest.mark.parametrize("strategy", ["reverse-mode", "forward-mode"])
def test_jacobian_against_central_differences(name, strategy):
    fn, shapes = COMPOSITIONS[name]
    rng = np.random.default_rng(3)
    arrays = [rng.uniform(-1.5, 1.5, size=s) for s in shapes]
    J = jacobian(fn, tuple(t64(a) for a in arrays), strategy=strategy, vectorize=True)
    N = numerical_jacobian(fn, arrays)
    J = J if isinstance(J[0], tuple) else (J,)
    for Jrow, Nrow in zip(J, N):
        for Jij, Nij in zip(Jrow, Nrow):
            assert Jij.shape == Nij.shape
            np.testing.assert_allclose(arr(Jij), Nij, rtol=1e-6, atol=1e-8)


HESSIAN_CASES = {
    "cubic": lambda a: (a ** 3).sum(),
    "exp_sin": lambda a: (a.exp() * a.sin()).sum(),
    "rosenbrock": lambda a: ((1 - a[:-1]) ** 2 + 100 * (a[1:] - a[:-1] ** 2) ** 2).sum(),
    "softmax_entropy": lambda a: -(a.softmax(0) * a.log_softmax(0)).sum(),
    "quadratic_form": lambda a: a @ (t64([[2.0, 1.0, 0.0], [0.0, 3.0, 1.0], [1.0, 0.0, 4.0]]) @ a),
}


@pytest.mark.parametrize("name", sorted(HESSIAN_CASES))
def test_hessian_hvp_vhp_against_central_differences(name):
    fn = HESSIAN_CASES[name]
    x = np.array([0.3, -0.7, 1.1])
    H_num = numerical_hessian(fn, x)
    H = hessian(fn, t64(x))
    np.testing.assert_allclose(arr(H), H_num, rtol=1e-6, atol=1e-6)
    H_fwd = hessian(fn, t64(x), vectorize=True, outer_jacobian_strategy="forward-mode")
    np.testing.assert_allclose(arr(H_fwd), arr(H), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(arr(H), arr(H).T, rtol=1e-12, atol=1e-12)  # symmetric
    v = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(arr(hvp(fn, t64(x), t64(v))[1]), H_num @ v, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(arr(vhp(fn, t64(x), t64(v))[1]), v @ H_num, rtol=1e-6, atol=1e-6)


def test_vjp_and_jvp_against_central_differences():
    fn, shapes = COMPOSITIONS["two_outputs"]
    rng = np.random.default_rng(5)
    arrays = [rng.uniform(-1.5, 1.5, size=s) for s in shapes]
    N = numerical_jacobian(fn, arrays)
    v_out = [rng.normal(size=n[0].shape[:n[0].ndim - len(shapes[0])]) for n in N]
    v_in = [rng.normal(size=s) for s in shapes]
    inputs = tuple(t64(a) for a in arrays)
    _, g = vjp(fn, inputs, tuple(t64(v) for v in v_out))
    for j in range(len(shapes)):
        expected = sum(np.tensordot(v_out[i], N[i][j], axes=v_out[i].ndim) for i in range(2))
        np.testing.assert_allclose(arr(g[j]), expected, rtol=1e-6, atol=1e-8)
    _, jv = jvp(fn, inputs, tuple(t64(v) for v in v_in))
    for i in range(2):
        expected = sum(np.tensordot(N[i][j], v_in[j], axes=len(shapes[j])) for j in range(2))
        np.testing.assert_allclose(arr(jv[i]), expected, rtol=1e-6, atol=1e-8)


# Each step keeps values bounded (exp of a tanh, not of h itself): the test is
# about the two modes agreeing, not about floats overflowing to inf and nan.
STEPS = [
    lambda h, x: (h * x).tanh(),
    lambda h, x: h.tanh().exp() / (1 + x * x),
    lambda h, x: minigrad.maximum(h, x) * h.sigmoid(),
    lambda h, x: (h - x).sin() + h.softmax(-1) if h.ndim else (h - x).sin(),
    lambda h, x: h.sum(-1, keepdim=True) * x if h.ndim else h * x,
    lambda h, x: (1 + h * h).log() + x.abs(),
]


@settings(deadline=None, max_examples=25)
@given(shape=hnp.array_shapes(min_dims=0, max_dims=2, max_side=3),
       steps=st.lists(st.integers(0, len(STEPS) - 1), min_size=1, max_size=4),
       seed=st.integers(0, 2**32 - 1))
@example(shape=(3,), steps=[4, 1, 1, 1], seed=0)  # three exps in a row once overflowed
def test_forward_mode_jacobian_equals_reverse_mode_on_random_functions(shape, steps, seed):
    def fn(x):
        h = x
        for s in steps:
            h = STEPS[s](h, x)
        return h, h.sum() * x

    x = t64(np.random.default_rng(seed).uniform(-2, 2, size=shape))
    rev = jacobian(fn, x)
    fwd = jacobian(fn, x, vectorize=True, strategy="forward-mode")
    for r, f in zip(rev, fwd):
        assert r.shape == f.shape
        np.testing.assert_allclose(arr(f), arr(r), rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------ create_graph


def test_create_graph_keeps_the_results_differentiable():
    x = t64([1.0, 2.0])
    J = jacobian(lambda a: a ** 3, x, create_graph=True)
    assert J.grad_fn.name() == "ViewBackward0"  # as PyTorch prints it
    out, g = vjp(lambda a: a ** 3, x, t64([1.0, 1.0]), create_graph=True)
    assert out.grad_fn.name() == "PowBackward0" and g.grad_fn.name() == "MulBackward0"
    # the third derivative of x³ through a Hessian computed with create_graph: 6
    x = t64([1.5], requires_grad=True)
    H = hessian(lambda a: (a ** 3).sum(), x, create_graph=True)
    (d3,) = minigrad.autograd.grad(H.sum(), x)
    assert d3.tolist() == [6.0]
    # jvp and hvp with create_graph, differentiated once more
    _, j = jvp(lambda a: a ** 3, x, t64([1.0]), create_graph=True)
    (dj,) = minigrad.autograd.grad(j.sum(), x)
    assert dj.tolist() == [9.0]   # d/dx 3x² = 6x
    _, h = hvp(lambda a: (a ** 4).sum(), x, t64([1.0]), create_graph=True)
    (dh,) = minigrad.autograd.grad(h.sum(), x)
    assert dh.tolist() == [36.0]  # d/dx 12x² = 24x


# ------------------------------------------------------------------ errors (PyTorch 2.13's text)


def _raises(exc, message, fn):
    with pytest.raises(exc) as info:
        fn()
    assert str(info.value) == message


X3 = [1.0, 2.0, 3.0]
Y2 = [0.5, -1.0]


def test_wrong_v_errors():
    x, y = t64(X3), t64(Y2)
    cube = lambda a: a ** 3  # noqa: E731
    _raises(RuntimeError, "v has invalid size: should be torch.Size([3]) but got torch.Size([2]).",
            lambda: vjp(cube, x, t64([1.0, 1.0])))
    _raises(RuntimeError, "v has invalid size: should be torch.Size([3]) but got torch.Size([2]).",
            lambda: jvp(cube, x, t64([1.0, 1.0])))
    _raises(RuntimeError, "v has invalid size: should be torch.Size([3]) but got torch.Size([2]).",
            lambda: vhp(lambda a: cube(a).sum(), x, t64([1.0, 1.0])))
    _raises(RuntimeError, "v has invalid size: should be torch.Size([3]) but got torch.Size([2]).",
            lambda: hvp(lambda a: cube(a).sum(), x, t64([1.0, 1.0])))
    _raises(RuntimeError, "The vector v can only be None if the user-provided function returns a "
            "single Tensor with a single element.", lambda: vjp(cube, x))
    _raises(RuntimeError, "The vector v can only be None if the input to the user-provided "
            "function is a single Tensor with a single element.", lambda: jvp(cube, x))
    _raises(RuntimeError, "The vector v can only be None if the input to the user-provided "
            "function is a single Tensor with a single element.",
            lambda: vhp(lambda a: cube(a).sum(), x))
    _raises(RuntimeError, "v is a tuple of invalid length: should be 2 but got 1.",
            lambda: vjp(lambda a, b: (cube(a), b), (x, y), t64([1.0, 1.0, 1.0])))
    _raises(RuntimeError, "Entry 1 in v has invalid size: should be torch.Size([2]) but got "
            "torch.Size([3]).",
            lambda: vjp(lambda a, b: (cube(a), b), (x, y), (t64(X3), t64(X3))))
    _raises(RuntimeError, "v is a tuple of invalid length: should be 1 but got 2.",
            lambda: vjp(lambda a: (cube(a),), x, (t64(X3), t64(X3))))
    _raises(RuntimeError, "The given v should contain a single Tensor.",
            lambda: vjp(cube, x, (t64(X3), t64(X3))))
    _raises(TypeError, "The v given to vjp must be either a Tensor or a tuple of Tensors but the "
            "given v has type <class 'list'>.", lambda: vjp(lambda a: (cube(a),), x, [t64(X3)]))


def test_non_tensor_inputs_and_outputs():
    x = t64(X3)
    _raises(TypeError, "The inputs given to jacobian must be either a Tensor or a tuple of Tensors "
            "but the given inputs has type <class 'list'>.", lambda: jacobian(lambda a: a, [x]))
    _raises(TypeError, "The inputs given to jacobian must be either a Tensor or a tuple of Tensors "
            "but the value at index 1 has type <class 'int'>.",
            lambda: jacobian(lambda a, b: a, (x, 3)))
    _raises(TypeError, "The outputs of the user-provided function given to jacobian must be "
            "either a Tensor or a tuple of Tensors but the given outputs of the user-provided "
            "function has type <class 'int'>.", lambda: jacobian(lambda a: 3, x))
    _raises(TypeError, "The outputs of the user-provided function given to jacobian must be "
            "either a Tensor or a tuple of Tensors but the value at index 1 has type "
            "<class 'int'>.", lambda: jacobian(lambda a: (a, 3), x))
    _raises(TypeError, "The inputs given to vjp must be either a Tensor or a tuple of Tensors "
            "but the given inputs has type <class 'float'>.", lambda: vjp(lambda a: a, 1.0))
    _raises(RuntimeError, "The Tensor returned by the function given to hessian should contain a "
            "single element", lambda: hessian(lambda a: a ** 3, x))
    _raises(RuntimeError, "The function given to hessian should return a single Tensor",
            lambda: hessian(lambda a: (a ** 3, a), x))
    _raises(RuntimeError, "The Tensor returned by the function given to hvp should contain a "
            "single element", lambda: hvp(lambda a: a ** 3, x, t64(X3)))
    _raises(RuntimeError, "The function given to vhp should return a single Tensor",
            lambda: vhp(lambda a: (a ** 3, a), x, t64(X3)))
    _raises(RuntimeError, "only Tensors of floating point dtype can require gradients",
            lambda: jacobian(lambda a: a, minigrad.tensor([1, 2])))


def test_strict_mode_errors():
    x, y = t64(X3), t64(Y2)
    ones3 = t64([1.0, 1.0, 1.0])
    _raises(RuntimeError, "Output 0 of the user-provided function is independent of input 1. "
            "This is not allowed in strict mode.",
            lambda: jacobian(lambda a, b: a ** 2, (x, y), strict=True))
    _raises(RuntimeError, "Output 0 of the user-provided function does not require gradients. "
            "The outputs must be computed in a differentiable manner from the input when running "
            "in strict mode.", lambda: jacobian(lambda a: minigrad.ones(2), x, strict=True))
    _raises(RuntimeError, "The jacobian of the user-provided function is independent of input 0. "
            "This is not allowed in strict mode when create_graph=True.",
            lambda: jacobian(lambda a: a * 2, x, strict=True, create_graph=True))
    _raises(RuntimeError, "The output of the user-provided function is independent of input 1. "
            "This is not allowed in strict mode.",
            lambda: vjp(lambda a, b: a ** 3, (x, y), ones3, strict=True))
    _raises(RuntimeError, "Output 1 of the user-provided function does not require gradients. "
            "The outputs must be computed in a differentiable manner from the input when running "
            "in strict mode.",
            lambda: jvp(lambda a, b: (a ** 3, minigrad.ones(2)), (x, y), (ones3, t64([1.0, 1.0])),
                        strict=True))
    _raises(RuntimeError, "The output of the user-provided function is independent of input 1. "
            "This is not allowed in strict mode.",
            lambda: jvp(lambda a, b: a ** 3, (x, y), (ones3, t64([1.0, 1.0])), strict=True))
    jac_msg = ("While computing the hessian, found that the jacobian of the user-provided "
               "function with respect to input {} is independent of the input. This is not "
               "allowed in strict mode. You should ensure that your function is twice "
               "differentiable and that the jacobian depends on the inputs (this would be "
               "violated by a linear function for example).")
    _raises(RuntimeError, jac_msg.format(1),
            lambda: hessian(lambda a, b: (a ** 2).sum(), (x, y), strict=True))
    _raises(RuntimeError, jac_msg.format(0), lambda: hessian(lambda a: a.sum(), x, strict=True))
    _raises(RuntimeError, jac_msg.format(0), lambda: vhp(lambda a: a.sum(), x, ones3, strict=True))
    _raises(RuntimeError, jac_msg.format(0), lambda: hvp(lambda a: a.sum(), x, ones3, strict=True))
    _raises(RuntimeError, "The output of the user-provided function is independent of input 1. "
            "This is not allowed in strict mode.",
            lambda: vhp(lambda a, b: (a ** 3).sum(), (x, y), (ones3, t64([1.0, 1.0])), strict=True))
    # not strict: zeros, the mathematically expected value
    _, h = vhp(lambda a: a.sum(), x, ones3)
    assert arr(h).tolist() == [0.0, 0.0, 0.0]


def test_strategy_and_vectorize_errors():
    x = t64(X3)
    cube = lambda a: a ** 3  # noqa: E731
    _raises(NotImplementedError, "Computing Jacobian using forward-AD or forward-over-reverse "
            "Hessian isonly implemented for `vectorize=True`.",
            lambda: jacobian(cube, x, strategy="forward-mode"))
    _raises(NotImplementedError, "Computing Jacobian using forward-AD or forward-over-reverse "
            "Hessian isonly implemented for `vectorize=True`.",
            lambda: hessian(lambda a: cube(a).sum(), x, outer_jacobian_strategy="forward-mode"))
    _raises(RuntimeError, 'torch.autograd.functional.jacobian: `strict=True` and '
            '`strategy="forward-mode"` are not supported together (yet). Please either set '
            '`strict=False` or `strategy="reverse-mode"`.',
            lambda: jacobian(cube, x, strategy="forward-mode", vectorize=True, strict=True))
    _raises(NotImplementedError, 'torch.autograd.functional.jacobian: `create_graph=True` and '
            '`strategy="forward-mode"` are not supported together (yet). Please either set '
            '`create_graph=False` or `strategy="reverse-mode"`.',
            lambda: jacobian(cube, x, strategy="forward-mode", vectorize=True, create_graph=True))
    _raises(AssertionError, 'Expected strategy to be either "forward-mode" or "reverse-mode". '
            'Hint: If your function has more outputs than inputs, "forward-mode" tends to be more '
            'performant. Otherwise, prefer to use "reverse-mode".',
            lambda: jacobian(cube, x, strategy="fwd"))
    _raises(RuntimeError, "torch.autograd.functional.jacobian: `strict=True` and "
            "`vectorized=True` are not supported together. Please either set `strict=False` or "
            "`vectorize=False`.", lambda: jacobian(cube, x, vectorize=True, strict=True))
    _raises(AssertionError, 'Expected strategy to be either "forward-mode" or "reverse-mode".',
            lambda: hessian(lambda a: cube(a).sum(), x, outer_jacobian_strategy="x"))
    # reverse mode with vectorize=True: same numbers (minigrad loops instead of vmap)
    np.testing.assert_array_equal(arr(jacobian(cube, x, vectorize=True)), np.diag([3.0, 12.0, 27.0]))


# ------------------------------------------------------------------ gradgradcheck

W_VALUES = [[0.3, -0.8], [1.2, 0.5], [-0.4, 0.9]]


@pytest.mark.parametrize("fn", [
    lambda a, w: (a @ w).tanh(),
    lambda a, w: (a @ w).exp() * a.sum(),
    lambda a, w: ((a.unsqueeze(1) * w).tanh() @ w.t()).exp().sum(),
    lambda a, w: (a.tanh() * a.exp(), (w @ w.t()).tanh()),
], ids=["tanh_matmul", "exp_mul", "tanh_mm_exp", "two_outputs"])
def test_gradgradcheck_passes_on_correct_double_backwards(fn):
    a = t64([0.2, -0.5, 0.7], requires_grad=True)
    w = t64(W_VALUES, requires_grad=True)
    minigrad.manual_seed(0)
    assert gradgradcheck(fn, (a, w))
    assert gradgradcheck(fn, (a, w), gen_non_contig_grad_outputs=True)
    # given grad_outputs, including one that does not require grad
    out = fn(a, w)
    outs = out if isinstance(out, tuple) else (out,)
    gos = tuple(minigrad.ones_like(o) * 0.5 for o in outs)
    assert gradgradcheck(fn, (a, w), gos)


class _DetachedBackward(minigrad.autograd.Function):
    """x² with a backward that is right (2x·g) but not differentiable in x (x is detached)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return minigrad.Tensor._make(x._data * x._data)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 2 * x.detach()


def test_gradgradcheck_catches_a_backward_that_is_not_differentiable():
    from minigrad.autograd.gradcheck import gradcheck

    x = t64([0.5, -1.5], requires_grad=True)
    assert gradcheck(_DetachedBackward.apply, (x,))        # the first derivative is right
    assert gradgradcheck(_DetachedBackward.apply, (x,), raise_exception=False) is False
    with pytest.raises(GradcheckError) as info:
        gradgradcheck(_DetachedBackward.apply, (x,), t64([1.0, 1.0], requires_grad=True))
    message = str(info.value)
    assert message.startswith("Jacobian mismatch for output 0 with respect to input 0,")
    # numerically d/dx (2x·g) = 2g on the diagonal; analytically 0 (x was detached)
    assert "numerical:tensor([[2.0000, 0.0000],\n        [0.0000, 2.0000]]" in message
    assert "analytical:tensor([[0., 0.],\n        [0., 0.]], dtype=minigrad.float64)" in message


def test_gradgradcheck_flag_errors():
    x = t64([1.0], requires_grad=True)
    _raises(AssertionError, "Expected at least one of check_fwd_over_rev or check_rev_over_rev to "
            "be True", lambda: gradgradcheck(lambda a: a, (x,), check_rev_over_rev=False))
    _raises(AssertionError, "Setting check_undefined_grad=True requires check_rev_over_rev to be "
            "True", lambda: gradgradcheck(lambda a: a, (x,), check_fwd_over_rev=True,
                                          check_rev_over_rev=False))


# ------------------------------------------------------------------ values recorded from PyTorch

# ``_record_with_torch`` below printed these with PyTorch 2.13.0+cpu.
TORCH_HESSIAN_F = [[2.8937780731683387, 2.0, -1.0],
                   [2.0, 0.3975322206928259, 0.5],
                   [-1.0, 0.5, -6.149864641278718]]
TORCH_JACOBIAN_G = (
    ([[0.028041486618043267, 0.0841244598541298, -0.14020743309021633],
      [-0.12694791799649172, 0.25389583599298343, 0.3808437539894752]],
     [[[0.14020743309021633, 0.0], [-0.28041486618043265, -0.0], [0.5608297323608653, 0.0]],
      [[0.0, 0.3173697949912293], [-0.0, -0.6347395899824586], [0.0, 1.2694791799649172]]]),
    ([[0.14456367056342886, -0.006856058306224722, -0.13770761225720413],
      [-0.006856058306224722, 0.03758277988283256, -0.03072672157660784],
      [-0.13770761225720413, -0.03072672157660784, 0.16843433383381196]],
     [[[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]],
      [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]]),
)
TORCH_VJP_K = [6.237328119797784, -0.7784124693866016, 2.0719586883944454]
TORCH_JVP_K = [3.2373281197977843, -1.7784124693866015, 4.071958688394446]
TORCH_HVP_H = (1.7229369808020294, [0.40533794817789454, 0.5142216535662395, -0.05529736309571853])
TORCH_VHP_H = (1.7229369808020294, [0.40533794817789454, 0.5142216535662396, -0.05529736309571842])
X = [0.5, -1.0, 2.0]
W = [[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]]
V = [1.0, -2.0, 0.5]


def _f(a):
    return (a.exp() * a.sin()).sum() + a[0] * a[1] * a[2]


def _g(a, w):
    return (a @ w).tanh(), a.softmax(0)


def _h(a):
    return (a ** 2 * a.sigmoid()).sum() / (a * a).sum().sqrt()


def _k(a):
    return a.exp() * a.sin() + a * a[0]


def test_values_recorded_from_pytorch():
    x, w, v = t64(X), t64(W), t64(V)
    np.testing.assert_allclose(arr(hessian(_f, x)), TORCH_HESSIAN_F, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(
        arr(hessian(_f, x, vectorize=True, outer_jacobian_strategy="forward-mode")),
        TORCH_HESSIAN_F, rtol=1e-13, atol=1e-15)
    for strategy in ("reverse-mode", "forward-mode"):
        J = jacobian(_g, (x, w), vectorize=True, strategy=strategy)
        for i in range(2):
            for j in range(2):
                np.testing.assert_allclose(arr(J[i][j]), TORCH_JACOBIAN_G[i][j], rtol=1e-13,
                                           atol=1e-15)
    np.testing.assert_allclose(arr(vjp(_k, x, v)[1]), TORCH_VJP_K, rtol=1e-13)
    np.testing.assert_allclose(arr(jvp(_k, x, v)[1]), TORCH_JVP_K, rtol=1e-13)
    out, h = hvp(_h, x, v)
    assert out.item() == pytest.approx(TORCH_HVP_H[0], rel=1e-14)
    np.testing.assert_allclose(arr(h), TORCH_HVP_H[1], rtol=1e-12)
    out, h = vhp(_h, x, v)
    np.testing.assert_allclose(arr(h), TORCH_VHP_H[1], rtol=1e-12)


def _record_with_torch():  # pragma: no cover - run by hand with PyTorch installed
    import torch
    from torch.autograd import functional as tf

    def T(v):
        return torch.tensor(v, dtype=torch.float64)

    def L(t):
        return tuple(L(e) for e in t) if isinstance(t, tuple) else t.tolist()

    x, w, v = T(X), T(W), T(V)
    print("TORCH_HESSIAN_F =", L(tf.hessian(_f, x)))
    print("TORCH_JACOBIAN_G =", L(tf.jacobian(_g, (x, w))))
    print("TORCH_VJP_K =", L(tf.vjp(_k, x, v)[1]))
    print("TORCH_JVP_K =", L(tf.jvp(_k, x, v)[1]))
    out, h = tf.hvp(_h, x, v)
    print("TORCH_HVP_H =", (out.item(), h.tolist()))
    out, h = tf.vhp(_h, x, v)
    print("TORCH_VHP_H =", (out.item(), h.tolist()))


if __name__ == "__main__":  # pragma: no cover
    _record_with_torch()
