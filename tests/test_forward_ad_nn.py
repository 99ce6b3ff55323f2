"""Forward-mode AD of ``minigrad.nn``'s primitives (nn/forward_rules.py).

The activations and their backward kernels, the piecewise losses, xlogy,
constant padding, layer_norm, batch_norm and embedding: every JVP rule equals the
reverse-mode Jacobian times the tangent (the check of ``test_forward_ad``,
whose coverage test counts these cases too), and forward-over-reverse
Hessians equal reverse-over-reverse ones through the backward kernels.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad
from minigrad.autograd.functional import hessian
from minigrad.nn import activations as NA
from minigrad.nn import activations_backward as NB
from minigrad.nn import batchnorm as NBN
from minigrad.nn import functional as NF
from minigrad.nn import losses as NL
from minigrad.nn import normalization as NN
from minigrad.nn import sparse as NS
from tests.test_forward_ad import (
    POSITIVE,
    _binary,
    _fixed,
    _jvp_by_forward_mode,
    _jvp_by_reverse_jacobian,
    _unary,
    recording_rules,
    t64,
)

# running statistics for batch_norm in evaluation (float64, as the inputs)
_RM = minigrad.tensor([0.3, -0.2, 0.5], dtype=minigrad.float64)
_RV = minigrad.tensor([1.5, 0.8, 2.0], dtype=minigrad.float64)


def _batch_norm_kernels(g, a, w):
    """native_batch_norm_backward's three outputs, in training (the batch's statistics) and evaluation."""
    data = a.detach().numpy()
    mean, invstd = minigrad.tensor(data.mean(0)), minigrad.tensor((data.var(0) + 1e-5) ** -0.5)
    total = 0
    for k, train in ((1.0, True), (0.5, False)):
        for o in NBN.NativeBatchNormGrad.apply(g, a, w, (_RM, _RV), mean, invstd, train, 1e-5):
            total = total + o.sum() * k
    return total

NN_CASES = {
    # the activations of minigrad.nn (activations.py) and their backward kernels
    "leaky_relu": (_unary(lambda a: NF.leaky_relu(a, 0.2)), {"LeakyRelu"}),
    "leaky_relu_inplace": (_unary(lambda a: NF.leaky_relu_(a * 1, 0.3)), {"LeakyReluResult"}),
    "gelu": (_unary(lambda a: NF.gelu(a)), {"Gelu"}),
    "gelu_tanh": (_unary(lambda a: NF.gelu(a, approximate="tanh")), {"Gelu"}),
    "silu": (_unary(lambda a: NF.silu(a)), {"Silu"}),
    "softplus": (_unary(lambda a: NF.softplus(a, 2, 1.5)), {"Softplus"}),
    "elu": (_unary(lambda a: NF.elu(a, 0.7)), {"Elu"}),
    "elu_inplace": (_unary(lambda a: NF.elu_(a * 1, 0.7)), {"EluResult"}),
    "hardtanh": (_unary(lambda a: NF.hardtanh(a, -0.5, 0.8)), {"Hardtanh"}),
    "add_scalar_ATen": (_unary(lambda a: NA.AddScalar.apply(a, 2.5)), {"AddScalar"}),
    "activation_backward_kernels": (_fixed(lambda g, a: NB.LeakyReluBackward.apply(g, a, 0.1)
                                           + NB.HardtanhBackward.apply(g, a, -0.5, 0.5)
                                           + NB.GeluBackward.apply(g, a, "none")
                                           + NB.GeluBackward.apply(g, a, "tanh")
                                           + NB.SoftplusBackward.apply(g, a, 1.5, 1.0)
                                           + NB.EluBackward.apply(g, a, 0.5, 1, 1)
                                           + NB.EluBackward.apply(g, a * 0.5, 0.5, 1, 1, True),
                                           (2, 3), (2, 3)),
                                    {"LeakyReluBackward", "HardtanhBackward", "GeluBackward",
                                     "SoftplusBackward", "EluBackward"}),
    "smooth_l1_huber": (_fixed(lambda a, b: NF.smooth_l1_loss(a, b, beta=0.8)
                               + NF.huber_loss(a, b, delta=0.6, reduction="sum")
                               + NF.smooth_l1_loss(a, b, reduction="none").sum(), (2, 3), (2, 3)),
                        {"SmoothL1Loss", "HuberLoss"}),
    "smooth_l1_huber_kernels": (_fixed(lambda g, a, b: NL.SmoothL1LossGrad.apply(g, a, b, 1, 0.8)
                                       + NL.HuberLossGrad.apply(g, a, b, 0, 0.6), (2, 3), (2, 3), (2, 3)),
                                {"SmoothL1LossGrad", "HuberLossGrad"}),
    "constant_pad": (_fixed(lambda a: NF.pad(a, (1, -1, 2, 0), value=3.0), (2, 3)), {"ConstantPadNd"}),
    "layer_norm": (_fixed(lambda a, w, b: NF.layer_norm(a, (2, 3), w, b) + NF.layer_norm(a, (3,))[0],
                          (2, 2, 3), (2, 3), (2, 3)), {"NativeLayerNorm"}),
    "layer_norm_grad": (_fixed(lambda g, a, w: sum(o.sum() for o in NN.NativeLayerNormGrad.apply(
        g, a, a.mean(1, keepdim=True).detach(), a.mean(1, keepdim=True).detach(), w, NN.UNDEFINED,
        (3,), 1e-5)), (2, 3), (2, 3), (3,)), {"NativeLayerNormGrad"}),
    "batch_norm": (_fixed(lambda a, w, b: NF.batch_norm(a, None, None, w, b, training=True)
                          + NF.batch_norm(a, _RM, _RV, w, None)[0], (4, 3, 2), (3,), (3,)),
                   {"NativeBatchNorm"}),
    "batch_norm_grad": (_fixed(_batch_norm_kernels, (4, 3), (4, 3), (3,)), {"NativeBatchNormGrad"}),
    # (padding_idx and scale_grad_by_freq change the reverse gradient on purpose: not here)
    "embedding": (_fixed(lambda w: NF.embedding(minigrad.tensor([[0, 2], [2, 1]]), w), (3, 2)),
                  {"Embedding"}),
    "embedding_dense_backward": (_fixed(lambda g: NS.EmbeddingDenseBackward.apply(
        g, np.array([[0, 2], [2, 1]]), 3, 1, False), (2, 2, 2)), {"EmbeddingDenseBackward"}),
    "kl_div": (_binary(lambda a, b: NF.kl_div(a, b, reduction="sum"), db=POSITIVE), {"Xlogy"}),
}

NN_HESSIANS = {
    "activations": (lambda a: (NF.gelu(a) * NF.gelu(a, approximate="tanh") + NF.softplus(a, 2, 1.0)
                               + NF.elu(a, 0.5) * NF.silu(a)).sum() + (NF.leaky_relu(a) ** 2).sum()
                    + (NF.hardtanh(a, -0.9, 0.9) ** 3).sum(), (3,),
                    {"GeluBackward", "SoftplusBackward", "EluBackward", "LeakyReluBackward",
                     "HardtanhBackward"}),
    "layer_norm": (lambda a: (NF.layer_norm(a.reshape(2, 3), (3,), a[:3] * 2, a[3:]) ** 3).sum(), (6,),
                   {"NativeLayerNormGrad"}),
    "batch_norm": (lambda a: (NF.batch_norm(a.reshape(2, 3), None, None, a[:3] * 2, a[3:], training=True)
                              ** 3).sum() + (NF.batch_norm(a.reshape(2, 3), _RM, _RV, a[:3]) ** 3).sum(),
                   (6,), {"NativeBatchNormGrad"}),
    "embedding": (lambda a: (NF.embedding(minigrad.tensor([0, 2, 2]), a) ** 3).sum(), (3, 2),
                  {"EmbeddingDenseBackward"}),
    "smooth_l1_huber": (lambda a: NF.smooth_l1_loss(a, a.tanh(), beta=0.3)
                        + NF.huber_loss(a * a, a.sin(), delta=0.5), (3,),
                        {"SmoothL1LossGrad", "HuberLossGrad"}),
    # (a weight through the logits makes the Hessian non-zero: nll_loss's own is 0)
    "cross_entropy": (lambda a: NF.cross_entropy(a.reshape(2, 3) * a[:3], minigrad.tensor([2, 0])), (6,),
                      {"NllLossGrad", "LogSoftmaxBackwardData"}),
}


@pytest.mark.parametrize("name", sorted(NN_CASES))
@settings(deadline=None, max_examples=6)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_every_nn_jvp_rule_equals_the_reverse_jacobian_times_v(name, data, seed):
    make, classes = NN_CASES[name]
    rng = np.random.default_rng(seed)
    fn, arrays = make(data.draw, rng)
    inputs = [t64(a) for a in arrays]
    tangents = [t64(rng.normal(size=a.shape)) for a in arrays]
    with recording_rules() as seen:
        primal, tangent = _jvp_by_forward_mode(fn, inputs, tangents)
    assert classes <= seen, f"rules that did not run: {classes - seen}"
    expected_primal, expected_tangent = _jvp_by_reverse_jacobian(fn, inputs, tangents)
    np.testing.assert_allclose(primal.numpy(), expected_primal.numpy(), rtol=1e-12, atol=1e-12)
    assert tangent is not None and tangent.shape == expected_primal.shape
    np.testing.assert_allclose(tangent.numpy(), expected_tangent, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("name", sorted(NN_HESSIANS))
def test_nn_forward_over_reverse_hessian_equals_reverse_over_reverse(name):
    fn, shape, internal = NN_HESSIANS[name]
    x = t64(np.random.default_rng(7).uniform(-1.5, 1.5, size=shape))
    with recording_rules() as seen:
        fwd = hessian(fn, x, vectorize=True, outer_jacobian_strategy="forward-mode")
    assert internal <= seen, internal - seen
    rev = hessian(fn, x)
    np.testing.assert_allclose(fwd.detach().numpy(), rev.numpy(), rtol=1e-9, atol=1e-12)
