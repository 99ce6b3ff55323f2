"""Record PyTorch's CPU memory for researcher lesson 2 into notebooks/researcher/data/torch_memory_02.json.

Usage: PYTHONPATH=. .venv-torch/bin/python tests/tools/record_torch_memory.py [--out FILE] [--only FIELD ...]

The lesson (notebooks/researcher/02_memory_and_checkpointing.ipynb) measures
minigrad's memory with ``tracemalloc``, which does not see PyTorch's
allocator.  This script measures PyTorch's side of its checkpointing walk
with the profiler (``profile_memory=True``; its memory timeline, every CPU
allocation and free in order, from ``torch.profiler._memory_profiler``) and
stores it with the versions and the date; the lesson reads the file.

What is recorded: the lesson's chain of k = 16 layers (``Linear`` then
``Tanh``) of width 32 on a batch of 1,024 (one activation: 131,072 bytes),
checkpointed with ``checkpoint_sequential(..., use_reentrant=False,
preserve_rng_state=False)`` for s = 1, 2, 4, 8, 16 (s = 1: no checkpoint).
For each s: the bytes allocated during the forward pass and still alive when
``backward()`` starts, and the peak during ``backward()``, both counted from
the allocations made inside the profiled step (tensors alive before it, the
parameters and the batch, are not counted); the same with
``use_reentrant=True`` (the batch then requires grad), and, as the control
that separates the two changes, ``use_reentrant=False`` on that same batch
requiring grad.  One thread.

Where each walk peaks, from the same timeline: the autograd node(s) running
when the peak is reached (``evaluate_function`` names, outermost first, so
``CheckpointFunctionBackward/AddmmBackward0`` is a node of a reentrant
segment's inner walk) and the outermost ``aten`` operator; and the
allocations made during the walk still alive at the peak, grouped by the node
and operator that made them.  The bytes alive from the forward pass at the peak
plus those groups make the peak.

The step is the lesson's ``traced_walk``: the loss is the sum of the
chain's output, and no variable holds that output (so the walk may free it
as in the lesson).  Also recorded: the CPU model and numpy's version.

``walks_k24_reentrant`` and ``walks_k24_grad_input``: the same two walks on a chain of k = 24 layers
(same width and batch) at s = 3, 8, 24, a configuration the lesson predicts before it is measured
(the reentrant walk's peak above the control's).  The prediction (``PREDICTED_K24``) goes into the
file as ``predicted_k24``, with the second it was written, before those walks are measured; each
of the two fields then gets, in ``re_recorded``, the second its measurement started
(``measured_from``), so the file shows the order.

``timing_s2``: the lesson's one timing check on PyTorch (its section 3): the chain of 16 layers of
width 512 on a batch of 128, ``use_reentrant=False``, five variants interleaved by
``minigrad.timing.measure`` (41 rounds after 3 warm-up, collector off, this process's CPU time,
three steps per call, one thread): layers 1 to 8's forward pass (the unit), the first forward pass
unchecked and with s = 2, and the training step unchecked and with s = 2.  Stored: every round's
times, and per round the time s = 2 adds to a step, and its parts in the first forward pass and in
the walk, each over the unit.  The criterion, fixed before the first recording: the check holds
when the exact 95% interval of the median (``timing.median_ci``) of the added time's round ratios
lies inside 3/4 to 5/4.

``--only FIELD`` (repeatable) re-records those fields alone into the stored file, with their date.

"""

import argparse
import datetime
import json
import os
import pathlib
import platform
import time

import numpy as np

import torch
from torch.profiler import ProfilerActivity, profile
from torch.profiler._memory_profiler import Action, MemoryProfile
from torch.utils.checkpoint import checkpoint_sequential

from minigrad import timing                 # the lesson's interleaving (numpy only; PYTHONPATH=.)

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "notebooks" / "researcher" / "data" / "torch_memory_02.json"
DEPTH, WIDTH, ROWS = 16, 32, 1024
SEGMENTS = [1, 2, 4, 8, 16]
DEPTH_PREDICTED, SEGMENTS_PREDICTED = 24, [3, 8, 24]    # predicted in the lesson before it was recorded
ONE_LAYER_GRADIENTS = (WIDTH * WIDTH + WIDTH) * 4             # one Linear's weight and bias gradients, bytes
PREDICTED_K24 = {                                          # stored, with its time, before the k = 24 walks run
    "rule": "the reentrant walk's peak rises one activation plus one layer's gradients above the control's "
            "(minigrad: where a segment has more than one layer; PyTorch: at every s)",
    "minigrad_extra_rise_bytes": {"3": ROWS * WIDTH * 4 + ONE_LAYER_GRADIENTS,
                                  "8": ROWS * WIDTH * 4 + ONE_LAYER_GRADIENTS, "24": 0},
    "torch_reentrant_minus_control_bytes": {str(s): ROWS * WIDTH * 4 + ONE_LAYER_GRADIENTS
                                            for s in SEGMENTS_PREDICTED},
}


def tanh_mlp(depth, width):
    layers = []
    for _ in range(depth):
        layers += [torch.nn.Linear(width, width), torch.nn.Tanh()]
    return torch.nn.Sequential(*layers)


def batch(rows, width):
    return torch.linspace(-1.0, 1.0, rows * width).reshape(rows, width)


def step_memory(net, x, s, use_reentrant=False):
    """Bytes alive after the forward pass, the peak during backward() and where it falls, from the timeline."""
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True, record_shapes=True,
                 with_stack=True) as prof:
        loss = (net(x) if s == 1 else checkpoint_sequential(net, s, x, use_reentrant=use_reentrant,
                                                            preserve_rng_state=False)).sum()
        with torch.profiler.record_function("backward"):
            loss.backward()
    net.zero_grad()
    x.grad = None
    results = prof.profiler.kineto_results                  # events in microseconds from the trace's start
    origin = results.trace_start_ns()
    spans = sorted((origin + e.time_range.start * 1000, origin + e.time_range.end * 1000, e.name)
                   for e in prof.events())
    start_ns = next(begin for begin, _, name in spans if name == "backward")

    def running_at(t):
        # the autograd nodes (outermost first) and the outermost aten operator running at time t
        names = [name for begin, end, name in spans if begin <= t <= end]
        nodes = [name.split(": ", 1)[1] for name in names if name.startswith("autograd::engine::evaluate_function: ")]
        ops = [name for name in names if name.startswith("aten::")]
        return "/".join(nodes) or "-", ops[0] if ops else "-"

    created, made_in, alive, after_forward, peak, at_peak = {}, {}, 0, None, 0, None
    for t, action, (key, _), size in MemoryProfile(results).timeline:
        if after_forward is None and t >= start_ns:
            after_forward = peak = alive
            at_peak = (None, dict(created))
        if action == Action.CREATE:
            created[key] = size
            alive += size
            if after_forward is not None:
                made_in[key] = running_at(t)
        elif action == Action.DESTROY and key in created:
            alive -= created.pop(key)
        if after_forward is not None and alive > peak:
            peak, at_peak = alive, (t, dict(created))
    peak_t, alive_at_peak = at_peak
    groups = {}
    for key, size in alive_at_peak.items():
        if key in made_in:
            group = groups.setdefault(made_in[key], [0, 0])
            group[0] += 1
            group[1] += size
    return {"after_forward_bytes": after_forward, "peak_in_backward_bytes": peak,
            "peak_at": list(running_at(peak_t)) if peak_t is not None else None,
            "forward_bytes_alive_at_peak": sum(size for key, size in alive_at_peak.items() if key not in made_in),
            "walk_allocations_alive_at_peak": [{"node": node, "op": op, "count": count, "bytes": size}
                                               for (node, op), (count, size) in groups.items()]}


def step_memory_retried(net, x, s, use_reentrant=False):
    for attempt in range(5):          # the profiler's event parser now and then fails to decode a name
        try:
            return step_memory(net, x, s, use_reentrant)
        except UnicodeDecodeError:
            if attempt == 4:
                raise


def walks(net, x, use_reentrant, segments=SEGMENTS):
    measured = {}
    for s in segments:
        measured[str(s)] = step_memory_retried(net, x, s, use_reentrant)
    return measured


def walks_k24(use_reentrant):
    """The walks of the k = 24 chain on the input requiring grad (reentrant, or the control)."""
    torch.manual_seed(0)
    net, x_grad = tanh_mlp(DEPTH_PREDICTED, WIDTH), batch(ROWS, WIDTH).requires_grad_()
    step_memory_retried(net, x_grad, 3, use_reentrant)      # a first run fills one-time caches
    return walks(net, x_grad, use_reentrant, SEGMENTS_PREDICTED)


def timing_s2():
    """The lesson's s = 2 timing check on PyTorch: every round's times and its ratios (docstring above)."""
    torch.manual_seed(0)
    repeats = 3
    wide, x_wide = tanh_mlp(16, 512), batch(128, 512)
    first_half = wide[:16]                                  # layers 1 to 8: what s = 2 recomputes

    def layers_1_to_8():
        for _ in range(repeats):
            first_half(x_wide)

    def forward(s):
        def run():
            for _ in range(repeats):
                wide(x_wide) if s == 1 else checkpoint_sequential(wide, s, x_wide, use_reentrant=False)
        return run

    def training_step(s):
        def run():
            for _ in range(repeats):
                out = wide(x_wide) if s == 1 else checkpoint_sequential(wide, s, x_wide, use_reentrant=False)
                out.sum().backward()
                wide.zero_grad()
        return run

    t = timing.measure({"layers 1-8": layers_1_to_8, "forward, s = 1": forward(1), "forward, s = 2": forward(2),
                        "s = 1": training_step(1), "s = 2": training_step(2)},
                       rounds=41, warmup=3, clock=time.process_time)
    T = t.times
    unit = T["layers 1-8"]
    added = [(b - a) / u for a, b, u in zip(T["s = 1"], T["s = 2"], unit)]
    first_pass = [(b - a) / u for a, b, u in zip(T["forward, s = 1"], T["forward, s = 2"], unit)]
    return {"chain": {"depth": 16, "width": 512, "rows": 128}, "steps_per_call": repeats, "rounds": 41,
            "warmup": 3, "clock": "time.process_time", "load_average_at_start": list(os.getloadavg()),
            "times_s": T,
            "ratios": {"added": added, "first_pass": first_pass,
                       "walk": [a - f for a, f in zip(added, first_pass)]}}


ONLY = {"walks_k24_reentrant": lambda: walks_k24(True), "walks_k24_grad_input": lambda: walks_k24(False),
        "timing_s2": timing_s2}                            # the fields --only can re-record


def now(form):
    return datetime.datetime.now(datetime.timezone.utc).strftime(form)


def store_prediction(data, out):
    """Put ``PREDICTED_K24`` into ``data`` with the second it is written, and write the file, before
    the k = 24 walks are measured."""
    data["predicted_k24"] = {"written": now("%Y-%m-%d %H:%M:%S UTC"), **PREDICTED_K24}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    time.sleep(1)                                          # the measurement's second then follows it


def cpu_model():
    """The CPU's model name from /proc/cpuinfo (Linux), else platform.processor()."""
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, default=OUT)
    parser.add_argument("--only", choices=sorted(ONLY), action="append",
                        help="re-record this field alone into the stored file (repeatable)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.only:
        data = json.loads(args.out.read_text(encoding="utf-8"))
        if any(field.startswith("walks_k24") for field in args.only):
            store_prediction(data, args.out)
        for field in args.only:
            started = now("%Y-%m-%d %H:%M:%S UTC")
            data[field] = ONLY[field]()
            data.setdefault("re_recorded", {})[field] = {"date": now("%Y-%m-%d %H:%M UTC"),
                                                         "torch": torch.__version__, "measured_from": started}
        args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        report(data)
        return
    torch.manual_seed(0)
    net, x = tanh_mlp(DEPTH, WIDTH), batch(ROWS, WIDTH)
    step_memory_retried(net, x, 4)                          # a first run fills one-time caches
    x_grad = batch(ROWS, WIDTH).requires_grad_()            # the reentrant variant needs an input with grad
    step_memory_retried(net, x_grad, 4, use_reentrant=True)
    data = {
        "recorded": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu": cpu_model(),
        "numpy": np.__version__,
        "chain": {"depth": DEPTH, "width": WIDTH, "rows": ROWS, "activation_bytes": ROWS * WIDTH * 4},
        "walks": walks(net, x, use_reentrant=False),
        "walks_reentrant": walks(net, x_grad, use_reentrant=True),
        "walks_grad_input": walks(net, x_grad, use_reentrant=False),   # the control: the input alone changed
    }
    store_prediction(data, args.out)
    for field, record in ONLY.items():
        started = now("%Y-%m-%d %H:%M:%S UTC")
        data[field] = record()
        data.setdefault("re_recorded", {})[field] = {"date": now("%Y-%m-%d %H:%M UTC"), "torch": torch.__version__,
                                                     "measured_from": started}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    report(data)


def report(data):
    for name in ["walks", "walks_reentrant", "walks_grad_input", "walks_k24_reentrant", "walks_k24_grad_input"]:
        for s, w in data.get(name, {}).items():
            print(name, s, {k: w[k] / (ROWS * WIDTH * 4) for k in ["after_forward_bytes", "peak_in_backward_bytes"]},
                  "peak at", w["peak_at"])
    if "timing_s2" in data:
        for part, ratios in data["timing_s2"]["ratios"].items():
            print("timing_s2", part, timing.median_ci(ratios))


if __name__ == "__main__":
    main()
