"""minigrad.memory: bytes saved for backward, watched as graphs are built, walked and dropped."""

import gc

import pytest

import minigrad as mg
from minigrad import memory, viz
from minigrad.memory import SavedTensorsMeter, plot_saved_bytes, saved_bytes

N = 1000  # elements per activation: 4000 bytes in float32
PER_GRAPH = 2 * 4 * N  # what one make_step graph saves


def make_step(w):
    """One iteration of a toy training loop: a fresh batch, a tanh layer, a loss.

    Saves 8000 bytes: ``x`` for ``x * w`` (only ``w`` needs a gradient, and it is ``x`` times
    the incoming one: 4000 bytes) and the tanh result (4000 bytes).
    """
    x = mg.randn(N)
    return (x * w).tanh().sum()


@pytest.fixture
def w():
    mg.manual_seed(0)
    return mg.randn(N, requires_grad=True)


def test_saved_bytes_of_a_graph_then_zero_after_backward(w):
    loss = make_step(w)
    assert saved_bytes(loss) == PER_GRAPH
    assert saved_bytes(loss.grad_fn) == PER_GRAPH
    assert saved_bytes([loss, loss]) == PER_GRAPH  # each buffer once
    loss.backward()
    assert saved_bytes(loss) == 0
    assert saved_bytes(mg.tensor(1.0)) == 0
    with pytest.raises(TypeError, match="expects minigrad or torch tensors .*; got int$"):
        saved_bytes(3)


def test_one_array_saved_twice_counts_once():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    assert saved_bytes(x * x) == 8  # self and other are the same array
    v = mg.arange(10.0, requires_grad=True)  # 40 bytes
    part = v[2:4]  # a view keeps the whole buffer alive
    assert saved_bytes(part * part) == 40


def test_meter_climbs_when_losses_are_kept(w):
    with SavedTensorsMeter() as meter:
        losses = []
        for i in range(5):
            losses.append(make_step(w))
            meter.record(i)
    assert [b for _i, b in meter.history] == [PER_GRAPH * (i + 1) for i in range(5)]
    assert meter.peak == meter.bytes_alive == 5 * PER_GRAPH
    del losses  # the graphs go, and with them what they saved
    assert meter.bytes_alive == 0 and meter.values_alive == 0
    assert meter.peak == 5 * PER_GRAPH


def test_meter_stays_flat_when_only_numbers_are_kept(w):
    with SavedTensorsMeter() as meter:
        losses = []
        for i in range(5):
            loss = make_step(w)
            losses.append(loss.item())
            meter.record(i)
    # one graph alive at a time: the one `loss` still refers to
    assert [b for _i, b in meter.history] == [PER_GRAPH] * 5
    del loss
    assert meter.bytes_alive == 0


def test_meter_drops_to_zero_after_backward(w):
    with SavedTensorsMeter() as meter:
        loss = make_step(w)
        assert meter.record("forward") == PER_GRAPH
        loss.backward()
        assert meter.record("backward") == 0
    assert meter.history == [("forward", PER_GRAPH), ("backward", 0)]
    assert meter.peak == PER_GRAPH


def test_meter_with_retain_graph_keeps_until_del(w):
    with SavedTensorsMeter() as meter:
        loss = make_step(w)
    loss.backward(retain_graph=True)
    assert meter.bytes_alive == PER_GRAPH  # kept for a second walk
    loss.backward()
    assert meter.bytes_alive == 0
    loss = make_step(w)  # outside the block: not counted
    assert meter.bytes_alive == 0
    del loss
    gc.collect()


def test_meter_is_transparent(w):
    """Under the meter, gradients, errors and pictures are what they are without it."""
    x = mg.tensor(3.0, requires_grad=True)
    with SavedTensorsMeter() as meter:
        y = x * x
        z = y + 1.0
    assert "saved: self = leaf 1 (alive), other = leaf 1 (alive)" in viz.draw(z).text
    z.backward()
    assert x.grad.item() == 6.0
    assert "saved: self (freed), other (freed)" in viz.draw(z).text
    with pytest.raises(RuntimeError, match="second time"):
        z.backward()
    assert meter.bytes_alive == 0
    assert repr(meter).startswith("SavedTensorsMeter(bytes_alive=0, peak=4,")


def test_backward_recording_sees_meter_values_as_alive(w):
    with SavedTensorsMeter() as meter:
        loss = make_step(w)
    steps = viz.record_backward(loss)
    assert steps.names == ["SumBackward0", "TanhBackward0", "MulBackward0", "AccumulateGrad"]
    assert steps.saved_bytes == [PER_GRAPH, PER_GRAPH, 4 * N, 0, 0]
    assert meter.bytes_alive == 0
    assert steps[1].freed == ("result",)


def test_plot_saved_bytes(w):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with SavedTensorsMeter() as meter:
        losses = []
        for i in range(4):
            losses.append(make_step(w))
            meter.record(i)
    fig = plot_saved_bytes(meter, title="a list of losses")
    ax = fig.axes[0]
    assert ax.get_title() == "a list of losses"
    assert ax.get_ylabel() == "saved for backward,\neach storage once (KiB)"
    ys = list(ax.lines[1].get_ydata())
    assert ys == pytest.approx([b / 1024 for _i, b in meter.history])
    assert ys == sorted(ys) and ys[-1] > ys[0]  # climbing
    assert not plt.get_fignums()  # closed in pyplot: a notebook shows it once, as the value

    # over the steps of a backward walk, labelled by node
    steps = viz.record_backward(losses[0])
    fig = plot_saved_bytes(steps)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["start"] + steps.names
    assert list(ax.lines[1].get_ydata())[-1] == 0

    # plain numbers and (label, bytes) pairs, into a given Axes
    fig2, ax2 = plt.subplots()
    assert plot_saved_bytes([0, 100, 50], ax=ax2) is fig2
    assert ax2.get_ylabel() == "saved for backward,\neach storage once (bytes)"
    plt.close(fig2)
    fig3 = plot_saved_bytes([("a", 0), ("b", 30 << 20)])
    assert fig3.axes[0].get_ylabel() == "saved for backward,\neach storage once (MiB)"
    assert memory.unit_for(10 * 1024) == ("KiB", 1024)  # 1,024-byte units are KiB, not kB
    assert memory.unit_for(10 * 1024 - 1) == ("bytes", 1)


def test_module_docstring_and_public_api():
    assert set(memory.__all__) == {"SavedMemory", "SavedTensorsMeter", "plot_saved_bytes",
                                   "saved_bytes", "saved_memory"}
    for obj in (memory, saved_bytes, memory.saved_memory, memory.SavedMemory, SavedTensorsMeter,
                SavedTensorsMeter.record, SavedTensorsMeter.breakdown, plot_saved_bytes):
        assert len(obj.__doc__ or "") > 40, obj


# ------------------------------------------------ only the graph, or also held elsewhere

def mse(w, b, x, y):
    return ((w * x + b - y) ** 2).mean()


def test_saved_memory_tells_the_graph_own_from_what_is_held_anyway():
    """The developer lesson's validation loss: x_val is yours, the error only the graph's."""
    w = mg.tensor(2.0, requires_grad=True)
    b = mg.tensor(1.0, requires_grad=True)
    x_val = mg.linspace(0.0, 3.0, 1000)
    y_val = 2 * x_val + 1
    val_loss = mse(w, b, x_val, y_val)
    names = {"x_val": x_val, "y_val": y_val, "w": w, "b": b, "val_loss": val_loss}
    m = memory.saved_memory(val_loss, namespace=names)
    assert (m.total, m.graph_only, m.elsewhere) == (8000, 4000, 4000)
    assert m.total == saved_bytes(val_loss)
    assert m.text == (
        "saved for backward: 8,000 bytes in 2 storages (each counted once)\n"
        "  held only by the graph: 4,000 bytes (1 storage)\n"
        "  also held elsewhere:    4,000 bytes (1 storage: x_val)")
    # four such graphs in a list: x_val once, four errors
    history = [mse(w, b, x_val, y_val) for _ in range(4)]
    m = memory.saved_memory(history, namespace=dict(names, history=history))
    assert (m.total, m.graph_only, m.elsewhere) == (20000, 16000, 4000)
    # a view and its base reach one storage: named together, counted once
    x_first = x_val[:500]
    m = memory.saved_memory(mse(w, b, x_first, y_val[:500]) + (w * y_val).sum(),
                            namespace={"x_val": x_val, "x_first": x_first, "y_val": y_val})
    assert m.text.splitlines()[2] == (
        "  also held elsewhere:    8,000 bytes (2 storages: x_first and x_val, y_val)")
    # a namespace given explicitly; a leaf held only by the graph is the graph's
    m = memory.saved_memory(mse(w, b, mg.linspace(0.0, 3.0, 1000), y_val), namespace={})
    assert (m.graph_only, m.elsewhere) == (8000, 0)
    # inside containers and modules
    m = memory.saved_memory(val_loss, namespace={"data": {"x": [x_val]}})
    assert m.storages == [(4000, ()), (4000, ("data",))]
    lin = mg.nn.Linear(1000, 1)
    out = lin(mg.linspace(0.0, 3.0, 1000, requires_grad=True))
    m = memory.saved_memory(out, namespace={"model": lin})
    assert ("model.weight",) in [held for _n, held in m.storages]


def test_meter_counts_each_storage_once_and_breaks_it_down():
    w = mg.tensor(2.0, requires_grad=True)
    b = mg.tensor(1.0, requires_grad=True)
    x_val = mg.linspace(0.0, 3.0, 1000)
    y_val = 2 * x_val + 1
    with SavedTensorsMeter() as meter:
        history = []
        for epoch in range(4):
            history.append(mse(w, b, x_val, y_val))
            meter.record(epoch)
    # x_val once; 4,000 new bytes a graph (its error), not 8,000
    assert [n for _e, n in meter.history] == [8000, 12000, 16000, 20000]
    assert meter.values_alive == 8
    bd = meter.breakdown(namespace={"x_val": x_val, "history": history})
    assert (bd.total, bd.graph_only, bd.elsewhere) == (20000, 16000, 4000)
    del history
    assert meter.bytes_alive == 0


def test_saved_memory_defaults_to_the_calling_module(tmp_path):
    """A notebook's variables are its module's: x_val found there without being passed."""
    import subprocess
    import sys

    code = ("import minigrad as mg\nfrom minigrad import memory\n"
            "w = mg.tensor(2.0, requires_grad=True)\n"
            "x_val = mg.linspace(0.0, 3.0, 1000)\n"
            "loss = ((w * x_val - 1) ** 2).mean()\n"
            "print(memory.saved_memory(loss))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[2] == "  also held elsewhere:    4,000 bytes (1 storage: x_val)"


def test_meter_can_leave_out_what_is_held_anyway():
    # a Linear layer saves its weight (as mat2 of addmm): a parameter, not the graph's cost
    layer1, layer2 = mg.nn.Linear(8, 8), mg.nn.Linear(8, 8)
    x = mg.ones(4, 8, requires_grad=True)
    with SavedTensorsMeter() as everything:
        loss_all = layer2(layer1(x).tanh()).tanh().sum()
    with SavedTensorsMeter(ignore=[*layer1.parameters(), *layer2.parameters(), x]) as activations:
        loss = layer2(layer1(x).tanh()).tanh().sum()
    # the two tanh results, 4 x 8 float32 each: the activations alone
    assert activations.bytes_alive == activations.peak == 2 * 4 * 8 * 4
    # counted as well without ignore: x (mat1 of the first addmm) and both weights
    assert everything.bytes_alive == activations.bytes_alive + 4 * 8 * 4 + 2 * 8 * 8 * 4
    loss.backward()
    loss_all.backward()
    assert activations.bytes_alive == 0 and everything.bytes_alive == 0


def test_meter_ignore_takes_only_tensors():
    with pytest.raises(TypeError, match=r"SavedTensorsMeter\(ignore=...\) expects tensors"):
        SavedTensorsMeter(ignore=[3.0])
