"""minigrad's teaching tools on real PyTorch graphs: the same texts and pictures as on minigrad's.

Run by ``make test-torch``.  Every program of ``tests/viz_programs.py`` runs
on both libraries and must give identical text forms and Graphviz sources;
then what only PyTorch can show: the library chosen for numbers, the errors,
and that minigrad never imports torch for its own graphs.
"""

import subprocess
import sys

import pytest
import torch

import minigrad
from minigrad import memory, viz, widgets
from tests import viz_programs


@pytest.mark.parametrize("program", sorted(viz_programs.PROGRAMS))
def test_same_texts_and_pictures_on_both_libraries(program):
    on_torch = viz_programs.PROGRAMS[program](torch)
    on_minigrad = viz_programs.PROGRAMS[program](minigrad)
    assert sorted(on_torch) == sorted(on_minigrad)
    for key in on_minigrad:
        assert on_torch[key] == on_minigrad[key], key


def test_freed_is_read_from_pytorchs_own_error():
    x = torch.tensor(3.0, requires_grad=True)
    y = x * x
    z = y + 1.0
    assert "saved: self = x (alive), other = x (alive)" in viz.draw(z, names={"x": x}).text
    z.backward()
    assert "saved: self (freed), other (freed)" in viz.draw(z, names={"x": x}).text
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.grad_fn._saved_self
    # and the walk saw it happen, right after the node ran
    x = torch.tensor(3.0, requires_grad=True)
    steps = viz.record_backward(x * x + 1.0)
    assert steps[1].freed == ("self", "other") and steps.saved_bytes == [4, 4, 0, 0]


def journey(x):
    if x > 0:
        return x ** 2 + 1
    return x * 3 + 1


def test_numbers_become_leaves_of_the_library_the_function_uses():
    rec = viz.record_forward(journey, 2.0)  # this module imported torch: journey uses it?
    # journey names no library: the caller's `torch` (this module's) decides
    assert rec.library == "torch" and isinstance(rec.inputs[0], torch.Tensor)
    r = widgets.run_explore(journey, x=-2.0)
    assert r.library == "torch" and isinstance(r.inputs["x"], torch.Tensor)
    assert r.grads["x"].item() == 3.0
    w = widgets.explore(journey, x=(-3.0, 3.0, 0.5, 2.0))
    assert w.library == "torch" and isinstance(w.result.inputs["x"], torch.Tensor)
    w.update(x=-1.0)
    assert isinstance(w.result.inputs["x"], torch.Tensor)
    # named explicitly, or by the tensors given
    assert viz.record_forward(journey, 2.0, library="minigrad").library == "minigrad"
    assert viz.record_forward(journey, minigrad.tensor(2.0, requires_grad=True)).library == (
        "minigrad")
    with pytest.raises(TypeError, match="library='minigrad' but the inputs are torch.Tensor"):
        viz.record_forward(journey, torch.tensor(2.0, requires_grad=True), library="minigrad")


def test_a_function_that_calls_minigrad_runs_on_minigrad():
    import minigrad as mg

    def f(x):
        return mg.exp(x) * 2

    assert widgets.run_explore(f, x=1.0).library == "minigrad"


def test_errors_name_the_type_in_full():
    with pytest.raises(TypeError, match=r"got float$"):
        viz.draw(3.0)
    with pytest.raises(TypeError, match="two libraries"):
        viz.draw([torch.tensor(1.0, requires_grad=True) * 2,
                  minigrad.tensor(1.0, requires_grad=True) * 2])
    with pytest.raises(TypeError, match=r"got str$"):
        widgets.step_through("steps")
    # PyTorch's own error, not a wrapper's
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        viz.record_backward(torch.tensor(1.0))


def test_meter_counts_pytorchs_saved_tensors():
    w = torch.ones(1000, requires_grad=True)
    with memory.SavedTensorsMeter() as meter:
        losses = []
        for i in range(3):
            losses.append((torch.ones(1000) * w).tanh().sum())
            meter.record(i)
    assert [n for _i, n in meter.history] == [8000, 16000, 24000]
    losses[0].backward()
    assert meter.bytes_alive == 16000
    del losses
    assert meter.bytes_alive == 0


def test_step_through_and_strip_on_a_pytorch_walk():
    x = torch.tensor(3.0, requires_grad=True)
    steps = viz.record_backward(x * x + 1.0, names={"x": x})
    w = widgets.step_through(steps)
    assert w.static.text == viz.strip(steps).text
    assert w.static.png().startswith(b"\x89PNG")
    w.show(2)
    assert bytes(w.image.value).startswith(b"\x89PNG")


def test_minigrad_never_imports_torch_for_its_own_graphs():
    code = (
        "import sys\n"
        "import minigrad as mg\n"
        "from minigrad import viz, widgets, memory\n"
        "x = mg.tensor(3.0, requires_grad=True)\n"
        "z = x * x + 1.0\n"
        "viz.draw(z).text\n"
        "with memory.SavedTensorsMeter() as m:\n"
        "    q = (x * 2).exp()\n"
        "viz.record_backward(z).text\n"
        "widgets.run_explore(lambda x: x * x, x=2.0).text\n"
        "viz.record_forward(lambda x: x * 3, 2.0).text\n"
        "memory.saved_memory(q).text\n"
        "assert 'torch' not in sys.modules, sorted(m for m in sys.modules if 'torch' in m)\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
