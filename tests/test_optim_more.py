"""AdamW, RMSprop, Adagrad and the lr schedulers, step for step with PyTorch.

The programs are the functions of tests/fixtures/record_optim_more.py, run
here on minigrad and there on PyTorch 2.13 (optim_more_torch.json): the MLP
of record_mlp.py trained for 20 steps per optimizer setting (every loss, the
final weights and the optimizer state to float32 accuracy; reprs, state keys
and dtypes exactly), SGD under each scheduler (every epoch's lr and
``get_last_lr()`` to 1e-12, the scheduler's state_dict), and the errors and
warnings, word for word.
"""

import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pytest

import minigrad

HERE = Path(__file__).parent / "fixtures"
FIXTURE = json.loads((HERE / "optim_more_torch.json").read_text())
_spec = importlib.util.spec_from_file_location("record_optim_more", HERE / "record_optim_more.py")
R = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(R)


def close(got, expected, rtol, atol, what):
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64), np.asarray(expected, dtype=np.float64),
                               rtol=rtol, atol=atol, err_msg=what)


@pytest.mark.parametrize("name", sorted(FIXTURE["train"]))
def test_training_matches_pytorch(name):
    rec = FIXTURE["train"][name]
    got = R.train(minigrad, rec["loss"], rec["optimizer"], rec["kwargs"])
    close(got["losses"], rec["losses"], 1e-5, 1e-6, "losses")
    assert got["losses"][-1] != got["losses"][0]  # it really moved
    for k, v in rec["final"].items():
        close(got["final"][k], v, 1e-5, 1e-6, k)
    assert got["state"].keys() == rec["state"].keys()
    for i, state in rec["state"].items():
        assert got["state"][i].keys() == state.keys()
        for k, v in state.items():
            close(got["state"][i][k], v, 1e-4, 1e-6, f"state {i} {k}")
    for key in ("state_dtypes", "state_before_the_first_step", "group_keys", "group", "repr"):
        assert got[key] == rec[key], key


@pytest.mark.parametrize("name", sorted(FIXTURE["schedule"]))
def test_schedules_match_pytorch(name):
    rec = FIXTURE["schedule"][name]
    got = R.schedule(minigrad, rec["scheduler"], rec["kwargs"])
    close(got["lrs"], rec["lrs"], 1e-12, 0, "lr per epoch")
    close(got["last_lr"], rec["last_lr"], 1e-12, 0, "get_last_lr")
    assert got["initial_lr"] == rec["initial_lr"]
    assert got["state_dict_keys"] == rec["state_dict_keys"]
    for k, v in rec["state_dict"].items():
        if isinstance(v, float) or isinstance(v, list) and v and isinstance(v[0], float):
            close(got["state_dict"][k], v, 1e-12, 0, k)
        else:
            assert got["state_dict"][k] == v, k
    close(got["losses"], rec["losses"], 1e-5, 1e-6, "losses")
    for k, v in rec["final"].items():
        close(got["final"][k], v, 1e-5, 1e-6, k)


def test_errors_warnings_and_reprs_match_pytorch():
    got = json.loads(json.dumps(R.messages(minigrad)))
    assert got == FIXTURE["messages"]


def test_cosine_schedule_equals_its_closed_form_and_lambda_state_round_trips():
    p = minigrad.nn.Parameter(minigrad.ones(1))
    opt = minigrad.optim.SGD([p], lr=0.2)
    sched = minigrad.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=6, eta_min=0.02)
    for epoch in range(1, 7):
        opt.step()
        sched.step()
        expected = 0.02 + (0.2 - 0.02) * (1 + math.cos(math.pi * epoch / 6)) / 2
        assert sched.get_last_lr()[0] == pytest.approx(expected, rel=1e-12)

    class Scale:
        def __init__(self):
            self.factor = 0.5

        def __call__(self, epoch):
            return self.factor ** epoch

    fn = Scale()
    opt = minigrad.optim.SGD([p], lr=1.0)
    sched = minigrad.optim.lr_scheduler.LambdaLR(opt, fn)
    opt.step()
    sched.step()
    state = sched.state_dict()
    assert state["lr_lambdas"] == [{"factor": 0.5}]
    fn.factor = 0.1
    sched.load_state_dict(state)
    assert fn.factor == 0.5 and "lr_lambdas" in state
