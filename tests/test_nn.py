"""``minigrad.nn``: Parameter, Module, Linear, Sequential, activations, losses, init.

Strings, names, graphs and error messages are compared with what PyTorch 2.13
produced for the same code, recorded in tests/fixtures/mlp_torch.json by
tests/fixtures/record_mlp.py (PyTorch is not needed to run these tests).
The training-loop parity (losses and weights step by step) is in test_optim.py.
"""

import json
import math
import re
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pytest

import minigrad
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.autograd.gradcheck import gradcheck
from minigrad.nn import init
from minigrad.nn.functional import linear
from minigrad.ops.linalg import Addmm, addmm

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "mlp_torch.json").read_text())
STRINGS = FIXTURE["strings"]
ERRORS = FIXTURE["errors"]
GRAPHS = FIXTURE["graphs"]
F64 = minigrad.float64


def normalise(text):
    """minigrad prints its dtypes as ``minigrad.float64``; PyTorch as ``torch.float64``."""
    return re.sub(r"\bminigrad\.(?=(?:float32|float64|int64|bool)\b)", "torch.", text)


def saved_names(node):
    """The ``_saved_*`` properties of a node (minigrad's internal methods aside)."""
    return sorted(a for a in dir(node)
                  if a.startswith("_saved_") and not callable(getattr(type(node), a, None)))


def raises_like(name, fn):
    """Call ``fn``; it must raise PyTorch's exception type and message recorded as ``name``."""
    expected = ERRORS[name]
    with pytest.raises(Exception) as info:
        fn()
    assert type(info.value).__name__ == expected["type"]
    message = info.value.args[0] if isinstance(info.value, KeyError) else str(info.value)
    assert message == expected["message"]


def graph_of(fn):
    if fn is None:
        return None
    return [type(fn).__name__, [graph_of(nxt) for nxt, _ in fn.next_functions]]


class Net(nn.Module):
    """The same custom module as in record_mlp.py."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
        self.head = nn.Linear(8, 3)
        self.scale = nn.Parameter(minigrad.ones(1))

    def forward(self, x):
        return self.head(self.body(x)) * self.scale


def mlp():
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))


# ---------------------------------------------------------------- Parameter


def test_parameter_reprs_match_pytorch():
    got = [
        repr(nn.Parameter(minigrad.tensor([1.0, 2.0]))),
        repr(nn.Parameter(minigrad.tensor([1.0, 2.0]), requires_grad=False)),
        repr(nn.Parameter(minigrad.tensor(3.0))),
        repr(nn.Parameter()),
        repr(nn.Parameter(minigrad.tensor([[1.0, -2.5], [0.125, 4.0]], dtype=F64))),
    ]
    assert [normalise(g) for g in got] == STRINGS["parameter_reprs"]


def test_parameter_is_a_leaf_that_requires_grad_and_shares_memory():
    data = minigrad.tensor([1.0, 2.0])
    p = nn.Parameter(data)
    assert isinstance(p, minigrad.Tensor) and isinstance(p, nn.Parameter)
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    assert np.shares_memory(p._data, data._data)
    assert not data.requires_grad
    y = p * 2
    assert type(y) is minigrad.Tensor and y.grad_fn.name() == "MulBackward0"
    assert type(p.detach()) is minigrad.Tensor
    y.sum().backward()
    np.testing.assert_array_equal(p.grad._data, [2.0, 2.0])


def test_parameter_rejects_integers_and_non_tensors():
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        nn.Parameter(minigrad.tensor([1, 2]))
    assert not nn.Parameter(minigrad.tensor([1, 2]), requires_grad=False).requires_grad
    with pytest.raises(TypeError):
        nn.Parameter([1.0, 2.0])


# ---------------------------------------------------------------- Module registration


def test_registration_order_and_names_match_pytorch():
    net = Net()
    assert [k for k, _ in net.named_parameters()] == STRINGS["net_named_parameters"]
    assert list(net.state_dict().keys()) == STRINGS["net_state_dict_keys"]
    assert [k for k, _ in net.named_children()] == STRINGS["net_named_children"]
    assert [k for k, _ in net.named_modules()] == STRINGS["net_named_modules"]
    assert [type(m).__name__ for m in net.modules()] == STRINGS["net_module_types"]
    m = mlp()
    assert [k for k, _ in m.named_parameters()] == STRINGS["mlp_named_parameters"]
    assert list(m.state_dict().keys()) == STRINGS["mlp_state_dict_keys"]


def test_parameters_are_the_registered_objects_in_order():
    net = Net()
    params = list(net.parameters())
    assert params[0] is net.scale
    assert params[1] is net.body[0].weight and params[2] is net.body[0].bias
    assert params[3] is net.head.weight and params[4] is net.head.bias
    assert list(net.children()) == [net.body, net.head]
    assert [m for m in net.modules()][0] is net
    assert list(net.parameters(recurse=False)) == [net.scale]


def test_shared_parameters_are_listed_once():
    lin = nn.Linear(2, 2)
    seq = nn.Sequential(lin, nn.ReLU(), lin)
    assert len(list(seq.parameters())) == 2
    assert [k for k, _ in seq.named_parameters()] == ["0.weight", "0.bias"]
    assert len(list(seq.children())) == 2  # the shared module once, plus ReLU


def test_setattr_rules():
    m = nn.Linear(2, 3)
    m.note = "plain attribute"
    assert "note" in m.__dict__ and "note" not in m._parameters
    m.extra = nn.Parameter(minigrad.zeros(2))
    assert "extra" in m._parameters and "extra" not in m.__dict__
    m.child = nn.ReLU()
    assert "child" in m._modules
    m.bias = None  # allowed: a parameter may be None
    assert m.bias is None and [k for k, _ in m.named_parameters()] == ["weight", "extra"]
    assert list(m.state_dict().keys()) == ["weight", "extra"]
    del m.extra
    assert "extra" not in m._parameters
    with pytest.raises(AttributeError):
        m.extra
    m.register_parameter("gone", None)
    assert m.gone is None


def test_registration_errors_match_pytorch():
    lin = nn.Linear(2, 3)

    def assign_tensor():
        lin.weight = minigrad.zeros(3, 2)

    class NoInit(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(minigrad.zeros(1))

    class NoInitModule(nn.Module):
        def __init__(self):
            self.l = nn.Linear(1, 1)

    raises_like("assign_tensor_to_parameter", assign_tensor)
    raises_like("parameter_before_init", NoInit)
    raises_like("module_before_init", NoInitModule)
    raises_like("missing_forward", lambda: nn.Module()(1))
    raises_like("missing_attribute", lambda: nn.Linear(2, 3).foo)
    with pytest.raises(KeyError) as info:
        lin.register_parameter("a.b", None)
    assert info.value.args[0] == 'parameter name can\'t contain "."'
    with pytest.raises(TypeError, match="as child module"):
        seq = nn.Sequential(nn.ReLU())
        setattr(seq, "0", 5)


def test_buffers_are_state_but_not_parameters():
    m = nn.Linear(2, 2)
    m.register_buffer("running", minigrad.ones(2))
    m.register_buffer("scratch", minigrad.zeros(2), persistent=False)
    assert [k for k, _ in m.named_parameters()] == ["weight", "bias"]
    assert [k for k, _ in m.named_buffers()] == ["running", "scratch"]
    assert list(m.state_dict().keys()) == ["weight", "bias", "running"]
    m.running = minigrad.full((2,), 5.0)
    assert m._buffers["running"]._data.tolist() == [5.0, 5.0]
    with pytest.raises(TypeError, match="as buffer"):
        m.running = 3


def test_forward_hooks():
    lin = nn.Linear(2, 2)
    seen = []
    h1 = lin.register_forward_pre_hook(lambda mod, args: seen.append(("pre", args[0].shape)))
    h2 = lin.register_forward_hook(lambda mod, args, out: out * 0)
    out = lin(minigrad.ones(3, 2))
    assert seen == [("pre", (3, 2))]
    assert np.all(out._data == 0)
    h1.remove()
    h2.remove()
    assert np.any(lin(minigrad.ones(3, 2))._data != 0) and len(seen) == 1


# ---------------------------------------------------------------- printing


def test_reprs_match_pytorch():
    assert repr(mlp()) == STRINGS["mlp_repr"]
    assert repr(nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Tanh(), nn.Sigmoid(),
                              nn.Linear(3, 1, bias=False))) == STRINGS["all_layers_repr"]
    assert [repr(nn.MSELoss()), repr(nn.CrossEntropyLoss()),
            repr(nn.MSELoss(reduction="sum"))] == STRINGS["loss_reprs"]
    assert repr(nn.Sequential(OrderedDict([("a", nn.Linear(1, 1)), ("b", nn.ReLU())]))) == \
        STRINGS["ordered_dict_repr"]
    assert repr(mlp()[1:]) == STRINGS["slice_repr"]
    assert [repr(nn.Module()), repr(nn.Sequential())] == STRINGS["empty_reprs"]
    assert repr(Net()) == STRINGS["net_repr"]
    assert nn.Linear(2, 3).extra_repr() == "in_features=2, out_features=3, bias=True"


# ---------------------------------------------------------------- state_dict


def test_state_dict_round_trip():
    minigrad.manual_seed(0)
    a = Net()
    minigrad.manual_seed(1)
    b = Net()
    x = minigrad.randn(5, 4)
    assert not np.allclose(a(x)._data, b(x)._data)
    params_before = list(b.parameters())
    result = b.load_state_dict(a.state_dict())
    assert repr(result) == STRINGS["load_all_matched"]
    assert result.missing_keys == [] and result.unexpected_keys == []
    np.testing.assert_array_equal(a(x)._data, b(x)._data)
    # the values were copied into the same Parameter objects (optimizers hold them)
    assert all(p is q for p, q in zip(params_before, b.parameters()))
    assert not np.shares_memory(a.head.weight._data, b.head.weight._data)


def test_state_dict_holds_detached_tensors_sharing_memory():
    net = Net()
    sd = net.state_dict()
    assert isinstance(sd, OrderedDict)
    for t in sd.values():
        assert type(t) is minigrad.Tensor and not t.requires_grad and t.grad_fn is None
    assert np.shares_memory(sd["head.weight"]._data, net.head.weight._data)
    kept = net.state_dict(keep_vars=True)
    assert kept["head.weight"] is net.head.weight


def test_load_state_dict_errors_match_pytorch():
    lin = nn.Linear(2, 3)
    z = minigrad.zeros
    raises_like("load_missing", lambda: lin.load_state_dict({"weight": z(3, 2)}))
    raises_like("load_unexpected", lambda: lin.load_state_dict(
        {"weight": z(3, 2), "bias": z(3), "foo": z(1)}))
    raises_like("load_size_mismatch", lambda: lin.load_state_dict(
        {"weight": z(2, 2), "bias": z(3)}))
    raises_like("load_all_three", lambda: lin.load_state_dict({"weight": z(2, 2), "foo": z(3)}))
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    raises_like("load_nested_missing", lambda: seq.load_state_dict({"0.weight": z(3, 2)}))
    result = lin.load_state_dict({"weight": z(3, 2), "foo": z(3)}, strict=False)
    assert repr(result) == STRINGS["load_non_strict"]
    assert np.all(lin.weight._data == 0)  # what matched was loaded
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        lin.load_state_dict([1, 2])


# ---------------------------------------------------------------- modes and grads


def test_train_eval_flags_reach_every_module():
    net = Net()
    assert net.training and all(m.training for m in net.modules())
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    assert net.train() is net and all(m.training for m in net.modules())
    net.body.train(False)
    assert net.training and not net.body.training and not net.body[0].training
    raises_like("train_not_bool", lambda: net.train("yes"))


def test_eval_does_not_switch_off_recording():
    net = Net().eval()
    assert net(minigrad.ones(2, 4)).grad_fn is not None


def test_zero_grad_sets_none():
    net = Net()
    net(minigrad.ones(2, 4)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    net(minigrad.ones(2, 4)).sum().backward()
    grad = net.head.weight.grad
    net.zero_grad(set_to_none=False)
    assert net.head.weight.grad is grad and np.all(grad._data == 0)


def test_requires_grad_and_double():
    net = Net()
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())
    assert net(minigrad.ones(1, 4)).grad_fn is None
    net.requires_grad_()
    params = list(net.parameters())
    assert net.double() is net
    assert all(p.dtype is F64 for p in net.parameters())
    assert all(p is q for p, q in zip(params, net.parameters()))
    assert net(minigrad.ones(1, 4, dtype=F64)).dtype is F64


# ---------------------------------------------------------------- Sequential


def test_sequential_indexing_and_composition():
    minigrad.manual_seed(0)
    seq = mlp()
    assert len(seq) == 3
    assert seq[0] is seq._modules["0"] and seq[-1] is seq._modules["2"]
    assert list(seq) == [seq[0], seq[1], seq[2]]
    sub = seq[1:]
    assert isinstance(sub, nn.Sequential) and sub[0] is seq[1]
    raises_like("sequential_index", lambda: seq[10])
    x = minigrad.randn(5, 4)
    np.testing.assert_array_equal(seq(x)._data, seq[2](seq[1](seq[0](x)))._data)
    seq.append(nn.Sigmoid())
    assert len(seq) == 4 and isinstance(seq[3], nn.Sigmoid)
    seq[1] = nn.ReLU()
    assert isinstance(seq[1], nn.ReLU)
    del seq[1]
    assert [k for k, _ in seq.named_children()] == ["0", "1", "2"]
    assert isinstance(seq[1], nn.Linear)


def test_deepcopy_gives_an_independent_model():
    import copy

    net = Net()
    twin = copy.deepcopy(net)
    x = minigrad.ones(2, 4)
    np.testing.assert_array_equal(twin(x)._data, net(x)._data)
    for p, q in zip(net.parameters(), twin.parameters()):
        assert type(q) is nn.Parameter and q.requires_grad and q is not p
        assert not np.shares_memory(p._data, q._data)


# ---------------------------------------------------------------- Linear: the recorded graph


@pytest.mark.parametrize("case", sorted(GRAPHS["linear"]))
def test_linear_graph_matches_pytorch(case):
    rec = GRAPHS["linear"][case]
    module = nn.Linear(4, 3, bias=not case.startswith("nobias"))
    x = minigrad.randn(*rec["shape"], requires_grad=rec["requires_grad"])
    y = module(x)
    assert list(y.shape) == rec["out_shape"]
    assert graph_of(y.grad_fn) == rec["graph"]


def test_linear_next_functions_point_at_the_parameters():
    lin = nn.Linear(4, 3)
    x = minigrad.randn(5, 4, requires_grad=True)
    fn = lin(x).grad_fn
    assert fn.name() == "AddmmBackward0"
    (bias_acc, _), (x_acc, _), (t_node, _) = fn.next_functions
    assert bias_acc.variable is lin.bias and x_acc.variable is x
    assert t_node.name() == "TBackward0" and t_node.next_functions[0][0].variable is lin.weight
    assert lin(x.detach()).grad_fn.next_functions[1] == (None, 0)


@pytest.mark.parametrize("case", ["both", "input_no_grad", "weight_no_grad"])
def test_addmm_saved_values_match_pytorch(case):
    rec = GRAPHS["addmm_saved"][case]
    lin = nn.Linear(4, 3)
    lin.weight.requires_grad_(case != "weight_no_grad")
    x = minigrad.randn(5, 4, requires_grad=case != "input_no_grad")
    fn = lin(x).grad_fn
    assert fn.name() == rec["node"]
    assert saved_names(fn) == rec["attrs"]
    assert fn._saved_alpha == rec["alpha"] and fn._saved_beta == rec["beta"]
    for name in ("mat1_sym_sizes", "mat1_sym_strides", "mat2_sym_sizes", "mat2_sym_strides"):
        assert list(getattr(fn, "_saved_" + name)) == rec[name], name
    assert (fn._saved_mat1 is None) == rec["mat1_is_none"]
    assert (fn._saved_mat2 is None) == rec["mat2_is_none"]
    mat2_fn = None if fn._saved_mat2 is None or fn._saved_mat2.grad_fn is None \
        else fn._saved_mat2.grad_fn.name()
    assert mat2_fn == rec["mat2_grad_fn"]
    if not rec["mat1_is_none"]:
        np.testing.assert_array_equal(fn._saved_mat1._data, x._data)


def test_linear_errors_match_pytorch():
    lin = nn.Linear(2, 3)
    raises_like("linear_in_features_2d", lambda: lin(minigrad.randn(4, 5)))
    raises_like("linear_in_features_1d", lambda: lin(minigrad.randn(5)))
    raises_like("linear_in_features_3d", lambda: lin(minigrad.randn(2, 4, 5)))
    raises_like("linear_dtype", lambda: lin(minigrad.randn(4, 2, dtype=F64)))
    raises_like("linear_0d", lambda: lin(minigrad.tensor(1.0)))


def test_linear_values_and_dtype():
    lin = nn.Linear(3, 2, dtype=F64)
    assert lin.weight.dtype is F64 and lin.bias.dtype is F64
    x = minigrad.randn(4, 3, dtype=F64)
    expected = x._data @ lin.weight._data.T + lin.bias._data
    np.testing.assert_allclose(lin(x)._data, expected, rtol=1e-12)
    np.testing.assert_allclose(lin(x[0])._data, expected[0], rtol=1e-12)
    x3 = minigrad.randn(2, 4, 3, dtype=F64)
    np.testing.assert_allclose(lin(x3)._data, x3._data @ lin.weight._data.T + lin.bias._data,
                               rtol=1e-12)
    # a non-contiguous input takes matmul + add, as in PyTorch (AddBackward0)
    xt = minigrad.randn(3, 4, 2, dtype=F64).permute(2, 1, 0)
    y = lin(xt)
    assert y.grad_fn.name() == "AddBackward0"
    np.testing.assert_allclose(y._data, xt._data @ lin.weight._data.T + lin.bias._data,
                               rtol=1e-12)


@pytest.mark.parametrize("shape", [(5, 3), (3,), (2, 4, 3)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_gradients_against_finite_differences(shape, bias):
    rng = np.random.default_rng(0)
    x = minigrad.tensor(rng.standard_normal(shape), dtype=F64, requires_grad=True)
    w = minigrad.tensor(rng.standard_normal((2, 3)), dtype=F64, requires_grad=True)
    b = minigrad.tensor(rng.standard_normal(2), dtype=F64, requires_grad=True)
    if bias:
        assert gradcheck(lambda x, w, b: linear(x, w, b), (x, w, b))
    else:
        assert gradcheck(lambda x, w: linear(x, w), (x, w))


def test_addmm_with_alpha_beta():
    rng = np.random.default_rng(1)
    c, a, b = (minigrad.tensor(rng.standard_normal(s), dtype=F64, requires_grad=True)
               for s in [(3,), (4, 2), (2, 3)])
    y = addmm(c, a, b, beta=0.5, alpha=2.0)
    np.testing.assert_allclose(y._data, 0.5 * c._data + 2.0 * a._data @ b._data)
    assert y.grad_fn._saved_alpha == 2.0 and y.grad_fn._saved_beta == 0.5
    assert gradcheck(lambda c, a, b: addmm(c, a, b, beta=0.5, alpha=2.0), (c, a, b))
    assert Addmm.node_name == "AddmmBackward0"


# ---------------------------------------------------------------- default initialisation


@pytest.mark.parametrize("fan_in, fan_out", [(1, 1), (4, 8), (8, 3), (100, 50), (1000, 2)])
def test_kaiming_uniform_bounds(fan_in, fan_out):
    minigrad.manual_seed(fan_in)
    lin = nn.Linear(fan_in, fan_out)
    bound = 1 / math.sqrt(fan_in)
    assert np.all(np.abs(lin.weight._data) <= bound)
    assert np.all(np.abs(lin.bias._data) <= bound)
    assert lin.weight.dtype is minigrad.float32


def test_kaiming_uniform_distribution():
    minigrad.manual_seed(0)
    lin = nn.Linear(400, 500)
    w = lin.weight._data.astype(np.float64)
    bound = 1 / 20
    # U(-b, b): mean 0, variance b²/3, spread over the whole interval
    assert abs(w.mean()) < 0.01 * bound
    assert abs(w.var() / (bound**2 / 3) - 1) < 0.02
    assert w.min() < -0.99 * bound and w.max() > 0.99 * bound


def test_initialisation_is_reproducible_with_manual_seed():
    minigrad.manual_seed(42)
    a = mlp()
    minigrad.manual_seed(42)
    b = mlp()
    c = mlp()
    for (k, p), q, r in zip(a.named_parameters(), b.parameters(), c.parameters()):
        np.testing.assert_array_equal(p._data, q._data, err_msg=k)
        assert not np.array_equal(p._data, r._data)


def test_reset_parameters_draws_again_in_place():
    lin = nn.Linear(3, 2)
    w = lin.weight
    before = w._data.copy()
    lin.reset_parameters()
    assert lin.weight is w and not np.array_equal(before, w._data)


def test_init_functions():
    t = nn.Parameter(minigrad.empty(50, 20))
    assert init.zeros_(t) is t and np.all(t._data == 0) and t.is_leaf
    assert np.all(init.ones_(t)._data == 1)
    assert np.all(init.constant_(t, 0.25)._data == 0.25)
    assert t.grad_fn is None and t.requires_grad
    init.uniform_(t, -2.0, 3.0)
    assert t._data.min() >= -2.0 and t._data.max() <= 3.0
    init.normal_(t, 1.0, 0.01)
    assert abs(t._data.mean() - 1.0) < 0.01
    a = math.sqrt(6 / 70)
    assert np.all(np.abs(init.xavier_uniform_(t)._data) <= a)
    init.kaiming_uniform_(t, nonlinearity="relu")
    assert np.all(np.abs(t._data) <= math.sqrt(6 / 20))
    assert init.calculate_gain("tanh") == 5 / 3
    assert init.calculate_gain("relu") == math.sqrt(2)
    assert init.calculate_gain("leaky_relu", math.sqrt(5)) == math.sqrt(2 / 6)
    with pytest.raises(ValueError, match="Fan in and fan out can not be computed"):
        init.kaiming_uniform_(nn.Parameter(minigrad.empty(3)))
    with pytest.raises(ValueError, match="Unsupported nonlinearity"):
        init.calculate_gain("swish")


# ---------------------------------------------------------------- activations and losses


def test_activation_modules_record_their_primitives():
    x = minigrad.tensor([-1.0, 0.5], requires_grad=True)
    assert nn.ReLU()(x).grad_fn.name() == "ReluBackward0"
    assert nn.Tanh()(x).grad_fn.name() == "TanhBackward0"
    assert nn.Sigmoid()(x).grad_fn.name() == "SigmoidBackward0"
    np.testing.assert_array_equal(nn.ReLU()(x)._data, [0.0, 0.5])
    relu = nn.ReLU(inplace=True)
    assert repr(relu) == "ReLU(inplace=True)"
    y = x * 1
    out = relu(y)
    assert out is y and y._version == 1 and y.grad_fn.name() == "ReluBackward0"


def test_loss_modules_wrap_functional():
    minigrad.manual_seed(0)
    logits = minigrad.randn(4, 3, requires_grad=True)
    target = minigrad.tensor([0, 2, 1, 2])
    ce = nn.CrossEntropyLoss()(logits, target)
    assert ce.grad_fn.name() == "NllLossBackward0"
    assert ce.grad_fn.next_functions[0][0].name() == "LogSoftmaxBackward0"
    assert ce.item() == F.cross_entropy(logits, target).item()
    assert nn.CrossEntropyLoss(reduction="sum")(logits, target).item() == pytest.approx(
        4 * ce.item(), rel=1e-6)
    y = minigrad.randn(4, 3)
    mse = nn.MSELoss()(logits, y)
    assert mse.grad_fn.name() == "MseLossBackward0"
    assert mse.item() == F.mse_loss(logits, y).item()
    assert nn.MSELoss(reduction="none")(logits, y).shape == (4, 3)
    with pytest.raises(NotImplementedError):
        nn.CrossEntropyLoss(weight=minigrad.ones(3))
