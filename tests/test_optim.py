"""``minigrad.optim``: SGD and Adam, step for step with PyTorch.

* Parity: the MLP of tests/fixtures/record_mlp.py (Linear(4, 8) -> Tanh ->
  Linear(8, 3)), from the same initial weights on the same data, trained for
  20 steps with CrossEntropyLoss or MSELoss and SGD or Adam in several
  settings: every step's loss and the final weights must match PyTorch's
  (float32, so to 1e-5 relative; they agree to about one float32 ulp).
* Single steps against hand computation of the update formulas.
* ``zero_grad``, parameter groups, closures, in-place updates, printing, errors.
"""

import json
import math
from pathlib import Path

import numpy as np
import pytest

import minigrad
import minigrad.nn as nn
import minigrad.optim as optim

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "mlp_torch.json").read_text())
STRINGS = FIXTURE["strings"]
ERRORS = FIXTURE["errors"]
F32 = np.float32


def raises_like(name, fn):
    expected = ERRORS[name]
    with pytest.raises(Exception) as info:
        fn()
    assert type(info.value).__name__ == expected["type"]
    assert str(info.value) == expected["message"]


def mlp():
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))


def fixture_model():
    model = mlp()
    model.load_state_dict({k: minigrad.tensor(np.array(v, dtype=F32))
                           for k, v in FIXTURE["init"].items()})
    return model


# ---------------------------------------------------------------- parity with PyTorch


@pytest.mark.parametrize("run", sorted(FIXTURE["training"]))
def test_training_matches_pytorch_step_by_step(run):
    rec = FIXTURE["training"][run]
    data = FIXTURE["data"]
    model = fixture_model()
    x = minigrad.tensor(np.array(data["x"], dtype=F32))
    if rec["loss"] == "cross_entropy":
        loss_fn, y = nn.CrossEntropyLoss(), minigrad.tensor(data["y_class"])
        assert y.dtype is minigrad.int64
    else:
        loss_fn, y = nn.MSELoss(), minigrad.tensor(np.array(data["y_reg"], dtype=F32))
    kwargs = dict(rec["kwargs"])
    if "betas" in kwargs:
        kwargs["betas"] = tuple(kwargs["betas"])
    opt = getattr(optim, rec["optimizer"])(model.parameters(), **kwargs)
    losses = []
    for _ in range(FIXTURE["steps"]):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert loss.dtype is minigrad.float32
    np.testing.assert_allclose(losses, rec["losses"], rtol=1e-5, atol=1e-6)
    final = model.state_dict()
    assert sorted(final) == sorted(rec["final"])  # (the JSON keys are sorted)
    for name, values in rec["final"].items():
        np.testing.assert_allclose(final[name]._data, np.array(values, dtype=F32),
                                   rtol=1e-5, atol=1e-6, err_msg=name)


def test_the_runs_really_train():
    """A sanity check on the fixture itself: minimising runs lower the loss, maximize raises it."""
    for name, rec in FIXTURE["training"].items():
        first, last = rec["losses"][0], rec["losses"][-1]
        assert (last > first) if rec["kwargs"].get("maximize") else (last < first), name


# ---------------------------------------------------------------- single steps by hand


def param(values, grad):
    p = nn.Parameter(minigrad.tensor(np.array(values, dtype=F32)))
    p.grad = minigrad.tensor(np.array(grad, dtype=F32))
    return p


P0 = [1.0, -2.0, 3.0, 0.5]
G1 = [0.5, 0.25, -1.0, 0.0]
G2 = [-0.3, 0.1, 2.0, 1e-3]


def close(p, expected):
    np.testing.assert_allclose(p._data, np.array(expected, dtype=np.float64), rtol=1e-6,
                               atol=1e-7)


def test_sgd_plain_step():
    p = param(P0, G1)
    optim.SGD([p], lr=0.1).step()
    close(p, np.array(P0) - 0.1 * np.array(G1))


@pytest.mark.parametrize("dampening", [0.0, 0.5])
def test_sgd_momentum_buffer_starts_as_the_gradient(dampening):
    p = param(P0, G1)
    opt = optim.SGD([p], lr=0.1, momentum=0.9, dampening=dampening)
    opt.step()
    g1, g2 = np.array(G1), np.array(G2)
    # first step: buf = g (a copy; no dampening on the first step, as in PyTorch)
    p1 = np.array(P0) - 0.1 * g1
    close(p, p1)
    buf = opt.state[p]["momentum_buffer"]
    np.testing.assert_array_equal(buf._data, np.array(G1, dtype=F32))
    assert not np.shares_memory(buf._data, p.grad._data)
    p.grad = minigrad.tensor(np.array(G2, dtype=F32))
    opt.step()
    buf2 = 0.9 * g1 + (1 - dampening) * g2
    close(p, p1 - 0.1 * buf2)
    np.testing.assert_allclose(opt.state[p]["momentum_buffer"]._data, buf2, rtol=1e-6)
    assert list(opt.state[p]) == STRINGS["sgd_state_keys"]


def test_sgd_nesterov_weight_decay_maximize():
    g1, p0 = np.array(G1), np.array(P0)
    p = param(P0, G1)
    optim.SGD([p], lr=0.1, momentum=0.9, nesterov=True).step()
    close(p, p0 - 0.1 * (g1 + 0.9 * g1))
    p = param(P0, G1)
    optim.SGD([p], lr=0.1, weight_decay=0.01).step()
    close(p, p0 - 0.1 * (g1 + 0.01 * p0))
    p = param(P0, G1)
    optim.SGD([p], lr=0.1, maximize=True).step()
    close(p, p0 + 0.1 * g1)


def adam_by_hand(p0, grads, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8, amsgrad=False):
    p, m, v, vmax = np.array(p0), 0.0, 0.0, 0.0
    for t, g in enumerate(grads, start=1):
        g = np.array(g)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        vmax = np.maximum(vmax, v)
        vhat = (vmax if amsgrad else v) / (1 - b2**t)
        p = p - lr * (m / (1 - b1**t)) / (np.sqrt(vhat) + eps)
    return p, m, v


def test_adam_first_step_moves_each_weight_by_about_lr():
    p = param(P0, G1)
    opt = optim.Adam([p], lr=0.01)
    opt.step()
    g = np.array(G1)
    close(p, np.array(P0) - 0.01 * g / (np.abs(g) + 1e-8))  # m̂ = g, v̂ = g² on step 1
    state = opt.state[p]
    assert list(state) == STRINGS["adam_state_keys"]
    assert repr(state["step"]) == STRINGS["adam_step_repr"]
    assert state["step"].dtype is minigrad.float32


@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam_two_steps_by_hand(amsgrad):
    p = param(P0, G1)
    opt = optim.Adam([p], lr=0.05, betas=(0.8, 0.99), eps=1e-6, amsgrad=amsgrad)
    opt.step()
    p.grad = minigrad.tensor(np.array(G2, dtype=F32))
    opt.step()
    expected, m, v = adam_by_hand(P0, [G1, G2], lr=0.05, b1=0.8, b2=0.99, eps=1e-6,
                                  amsgrad=amsgrad)
    close(p, expected)
    np.testing.assert_allclose(opt.state[p]["exp_avg"]._data, m, rtol=1e-6)
    np.testing.assert_allclose(opt.state[p]["exp_avg_sq"]._data, v, rtol=1e-5)
    assert opt.state[p]["step"].item() == 2.0
    assert ("max_exp_avg_sq" in opt.state[p]) == amsgrad


def test_adam_weight_decay_and_maximize():
    g, p0 = np.array(G1), np.array(P0)
    p = param(P0, G1)
    optim.Adam([p], lr=0.01, weight_decay=0.1).step()
    gw = g + 0.1 * p0
    close(p, p0 - 0.01 * gw / (np.abs(gw) + 1e-8))
    p = param(P0, G1)
    optim.Adam([p], lr=0.01, weight_decay=0.1, decoupled_weight_decay=True).step()
    close(p, p0 * (1 - 0.01 * 0.1) - 0.01 * g / (np.abs(g) + 1e-8))
    p = param(P0, G1)
    optim.Adam([p], lr=0.01, maximize=True).step()
    close(p, p0 + 0.01 * g / (np.abs(g) + 1e-8))


# ---------------------------------------------------------------- zero_grad, groups, in place


def test_zero_grad_sets_grads_to_none():
    model = mlp()
    opt = optim.SGD(model.parameters(), lr=0.1)
    model(minigrad.ones(2, 4)).sum().backward()
    assert all(p.grad is not None for p in model.parameters())
    opt.zero_grad()
    assert all(p.grad is None for p in model.parameters())
    model(minigrad.ones(2, 4)).sum().backward()
    g = model[0].weight.grad
    opt.zero_grad(set_to_none=False)
    assert model[0].weight.grad is g and np.all(g._data == 0)


def test_forgetting_zero_grad_accumulates():
    model = mlp()
    x = minigrad.ones(2, 4)
    model(x).sum().backward()
    once = model[0].weight.grad._data.copy()
    model(x).sum().backward()
    np.testing.assert_allclose(model[0].weight.grad._data, 2 * once, rtol=1e-6)


def test_parameters_without_grad_are_skipped():
    used, unused = param(P0, G1), nn.Parameter(minigrad.ones(2))
    for opt in (optim.SGD([used, unused], lr=0.1, momentum=0.9),
                optim.Adam([used, unused], lr=0.1)):
        before = unused._data.copy()
        opt.step()
        np.testing.assert_array_equal(unused._data, before)
        assert unused not in opt.state and len(opt.state[used]) > 0


def test_step_updates_in_place_without_recording():
    model = mlp()
    params = list(model.parameters())
    arrays = [p._data for p in params]
    snapshot = model.state_dict()
    before = snapshot["0.weight"]._data.copy()
    opt = optim.Adam(model.parameters(), lr=0.1)
    model(minigrad.ones(2, 4)).sum().backward()
    opt.step()
    assert minigrad.is_grad_enabled()
    for p, arr in zip(model.parameters(), arrays):
        assert p._data is arr and p.is_leaf and p.grad_fn is None and p.requires_grad
    assert all(p is q for p, q in zip(params, model.parameters()))
    # state_dict() tensors share memory with the parameters, as in PyTorch
    assert not np.array_equal(snapshot["0.weight"]._data, before)


def test_param_groups_have_their_own_hyperparameters():
    a, b = param(P0, G1), param(P0, G1)
    opt = optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5}], lr=0.1)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    assert opt.param_groups[1]["params"] == [b]
    opt.step()
    close(a, np.array(P0) - 0.1 * np.array(G1))
    close(b, np.array(P0) - 0.5 * np.array(G1))
    c = param(P0, G1)
    opt.add_param_group({"params": [c], "momentum": 0.9})
    assert opt.param_groups[2]["lr"] == 0.1 and opt.param_groups[2]["momentum"] == 0.9


def test_closure_is_run_with_grad_and_its_loss_returned():
    model = mlp()
    opt = optim.SGD(model.parameters(), lr=0.1)
    x = minigrad.ones(2, 4)

    def closure():
        opt.zero_grad()
        loss = model(x).sum()
        loss.backward()
        return loss

    with minigrad.no_grad():
        loss = opt.step(closure)
    assert loss.grad_fn is not None
    assert model[0].weight.grad is not None


def test_learning_rate_can_be_changed_through_param_groups():
    p = param(P0, G1)
    opt = optim.SGD([p], lr=0.1)
    for group in opt.param_groups:
        group["lr"] = 1.0
    opt.step()
    close(p, np.array(P0) - np.array(G1))


# ---------------------------------------------------------------- printing and errors


def test_reprs_and_keys_match_pytorch():
    model = mlp()
    sgd = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    adam = optim.Adam(model.parameters())
    assert repr(sgd) == STRINGS["sgd_repr"]
    assert repr(adam) == STRINGS["adam_repr"]
    assert list(sgd.param_groups[0]) == STRINGS["sgd_group_keys"]
    assert list(adam.param_groups[0]) == STRINGS["adam_group_keys"]
    assert repr(optim.SGD(model.parameters()).defaults) == STRINGS["sgd_defaults_repr"]
    groups = optim.SGD([{"params": [model[0].weight]}, {"params": [model[0].bias], "lr": 0.5}],
                       lr=0.1, momentum=0.5)
    assert repr(groups) == STRINGS["sgd_two_groups_repr"]


@pytest.mark.parametrize("name, ctor, kwargs", [
    ("sgd_lr", "SGD", {"lr": -1}), ("sgd_momentum", "SGD", {"lr": 0.1, "momentum": -1}),
    ("sgd_weight_decay", "SGD", {"lr": 0.1, "weight_decay": -1}),
    ("sgd_nesterov", "SGD", {"lr": 0.1, "nesterov": True}),
    ("sgd_nesterov_dampening", "SGD",
     {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "nesterov": True}),
    ("adam_lr", "Adam", {"lr": -1}), ("adam_lr_float", "Adam", {"lr": -0.5}),
    ("adam_eps", "Adam", {"eps": -1}), ("adam_beta0", "Adam", {"betas": (1.0, 0.999)}),
    ("adam_beta1", "Adam", {"betas": (0.9, 1.0)}),
    ("adam_weight_decay", "Adam", {"weight_decay": -1}),
])
def test_hyperparameter_errors_match_pytorch(name, ctor, kwargs):
    params = list(nn.Linear(2, 3).parameters())
    raises_like(name, lambda: getattr(optim, ctor)(params, **kwargs))


def test_parameter_list_errors_match_pytorch():
    lin = nn.Linear(2, 3)
    raises_like("optim_empty", lambda: optim.SGD([], lr=0.1))
    raises_like("optim_tensor", lambda: optim.SGD(lin.weight, lr=0.1))
    raises_like("optim_non_leaf", lambda: optim.SGD(
        [minigrad.zeros(2, requires_grad=True) * 2], lr=0.1))
    raises_like("optim_two_groups_same_param", lambda: optim.SGD(
        [{"params": [lin.weight]}, {"params": [lin.weight]}], lr=0.1))
    raises_like("optim_set_in_group", lambda: optim.SGD([{"params": {lin.weight}}], lr=0.1))
    with pytest.warns(UserWarning, match="duplicate parameters"):
        optim.SGD([lin.weight, lin.weight], lr=0.1)
    with pytest.raises(NotImplementedError):
        optim.Adam(lin.parameters(), differentiable=True)
    assert math.isclose(optim.Adam(lin.parameters()).defaults["eps"], 1e-8)


# ---------------------------------------------------------------- in-place writes are counted


def test_version_counters_count_in_place_writes_as_pytorch():
    versions = STRINGS["versions"]
    lin = nn.Linear(3, 2)
    assert [lin.weight._version, lin.bias._version] == versions["after_init"]
    lin.load_state_dict(lin.state_dict())
    assert [lin.weight._version, lin.bias._version] == versions["after_load"]
    for name, opt in (("sgd", optim.SGD(lin.parameters(), lr=0.1, momentum=0.9)),
                      ("adam", optim.Adam(lin.parameters())),
                      ("adamw", optim.Adam(lin.parameters(), weight_decay=0.1,
                                           decoupled_weight_decay=True))):
        before = lin.weight._version
        lin(minigrad.ones(1, 3)).sum().backward()
        opt.step()
        assert lin.weight._version - before == versions[name + "_step"], name
        opt.zero_grad()


def test_backward_through_a_graph_recorded_before_step_fails_as_pytorch():
    w = nn.Parameter(minigrad.ones(2))
    opt = optim.SGD([w], lr=0.1)
    loss = (w * w).sum()
    loss.backward(retain_graph=True)
    opt.step()
    raises_like("backward_after_step", loss.backward)


def test_optimizer_state_dict_round_trip_continues_identically():
    """Saving and loading an optimizer's state resumes the same trajectory (PyTorch's layout)."""

    def run(steps, opt_state=None):
        w = minigrad.tensor([1.0, -2.0, 0.5], requires_grad=True)
        opt = minigrad.optim.Adam([w], lr=0.1)
        if opt_state is not None:
            w.data = opt_state[0]
            opt.load_state_dict(opt_state[1])
        for _ in range(steps):
            opt.zero_grad()
            ((w * w).sum() + w.sum()).backward()
            opt.step()
        return w, opt

    w_full, _ = run(6)
    w_half, opt_half = run(3)
    sd = opt_half.state_dict()
    assert sd["param_groups"][0]["params"] == [0] and list(sd["state"]) == [0]
    assert sd["param_groups"][0]["lr"] == 0.1
    w_resumed, _ = run(3, (w_half.detach().clone(), sd))
    np.testing.assert_allclose(w_resumed.detach().numpy(), w_full.detach().numpy(), rtol=1e-6)


def test_optimizer_load_state_dict_checks_groups():
    w = minigrad.tensor([1.0], requires_grad=True)
    opt = minigrad.optim.SGD([w], lr=0.1)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict({"state": {}, "param_groups": []})
