"""Record PyTorch's CPU memory for researcher lesson 2 into notebooks/researcher/data/torch_memory_02.json.

Usage: .venv-torch/bin/python tests/tools/record_torch_memory.py [--out FILE]

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

The step is the lesson's ``traced_walk``: the loss is the sum of the
chain's output, and no variable holds that output (so the walk may free it
as in the lesson).  Also recorded: the CPU model and numpy's version.

One more measurement the lesson sets beside minigrad's, the cost per
checkpointed segment: the lesson's chain of 32 ``Tanh`` modules
  on four numbers, one training step unchecked, checkpointed at s = 4, 8, 16,
  32 and the forward pass alone, interleaved round by round with the collector
  off in this process's CPU time (``minigrad/timing.py``'s ``measure``, loaded
  from its file, the lesson's method); in each round the excess
  e(s) = T(s) - T(1) - (s-1)/s F and a least-squares line a + c (s-1) through
  the four values; stored: the median and interquartile range of the rounds'
  c and a, in microseconds, with the generator's state saved (the default)
  and not.
"""

import argparse
import datetime
import importlib.util
import json
import pathlib
import platform
import statistics
import time

import numpy as np

import torch
from torch.profiler import ProfilerActivity, profile
from torch.profiler._memory_profiler import Action, MemoryProfile
from torch.utils.checkpoint import checkpoint_sequential

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "notebooks" / "researcher" / "data" / "torch_memory_02.json"
DEPTH, WIDTH, ROWS = 16, 32, 1024
SEGMENTS = [1, 2, 4, 8, 16]
CHEAP_MODULES, CHEAP_SIZES, CHEAP_STEPS, CHEAP_ROUNDS = 32, [4, 8, 16, 32], 10, 25


def tanh_mlp(depth, width):
    layers = []
    for _ in range(depth):
        layers += [torch.nn.Linear(width, width), torch.nn.Tanh()]
    return torch.nn.Sequential(*layers)


def batch(rows, width):
    return torch.linspace(-1.0, 1.0, rows * width).reshape(rows, width)


def step_memory(net, x, s, use_reentrant=False):
    """Bytes alive after the forward pass and the peak during backward(), from the allocator's timeline."""
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True, record_shapes=True,
                 with_stack=True) as prof:
        loss = (net(x) if s == 1 else checkpoint_sequential(net, s, x, use_reentrant=use_reentrant,
                                                            preserve_rng_state=False)).sum()
        with torch.profiler.record_function("backward"):
            loss.backward()
    net.zero_grad()
    x.grad = None
    results = prof.profiler.kineto_results                  # events in microseconds from the trace's start
    start_ns = results.trace_start_ns() + next(e for e in prof.events()
                                               if e.name == "backward").time_range.start * 1000
    created, alive, after_forward, peak = {}, 0, None, 0
    for t, action, (key, _), size in MemoryProfile(results).timeline:
        if after_forward is None and t >= start_ns:
            after_forward = peak = alive
        if action == Action.CREATE:
            created[key] = size
            alive += size
        elif action == Action.DESTROY and key in created:
            alive -= created.pop(key)
        if after_forward is not None:
            peak = max(peak, alive)
    return after_forward, peak


def step_memory_retried(net, x, s, use_reentrant=False):
    for attempt in range(5):          # the profiler's event parser now and then fails to decode a name
        try:
            return step_memory(net, x, s, use_reentrant)
        except UnicodeDecodeError:
            if attempt == 4:
                raise


def walks(net, x, use_reentrant):
    measured = {}
    for s in SEGMENTS:
        after_forward, peak = step_memory_retried(net, x, s, use_reentrant)
        measured[str(s)] = {"after_forward_bytes": after_forward, "peak_in_backward_bytes": peak}
    return measured


def cpu_model():
    """The CPU's model name from /proc/cpuinfo (Linux), else platform.processor()."""
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def median_iqr_us(values):
    low, middle, high = statistics.quantiles(values, n=4, method="inclusive")
    return {"median": middle * 1e6, "low": low * 1e6, "high": high * 1e6}


def per_segment_cost():
    spec = importlib.util.spec_from_file_location("timing", ROOT / "minigrad" / "timing.py")
    timing = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(timing)
    cheap = torch.nn.Sequential(*[torch.nn.Tanh() for _ in range(CHEAP_MODULES)])
    x = torch.linspace(-1.0, 1.0, 4).requires_grad_()

    def forward():
        for _ in range(CHEAP_STEPS):
            cheap(x).sum()

    def step(s, preserve=True):
        def run():
            for _ in range(CHEAP_STEPS):
                out = cheap(x) if s == 1 else checkpoint_sequential(
                    cheap, s, x, use_reentrant=False, preserve_rng_state=preserve)
                out.sum().backward()
                x.grad = None
        return run

    variants = {"forward": forward, "s = 1": step(1)}
    for s in CHEAP_SIZES:
        variants[f"s = {s}"] = step(s)
        variants[f"s = {s}, no RNG state"] = step(s, preserve=False)
    t = timing.measure(variants, rounds=CHEAP_ROUNDS, warmup=3, clock=time.process_time)
    per_round = {name: [v / CHEAP_STEPS for v in times] for name, times in t.times.items()}
    result = {"rounds": CHEAP_ROUNDS, "steps_per_call": CHEAP_STEPS, "sizes": CHEAP_SIZES}
    for key, state in [("rng_state_saved", ""), ("rng_state_not_saved", ", no RNG state")]:
        excess = [[t_s - t_1 - (s - 1) / s * f for t_s, t_1, f in
                   zip(per_round[f"s = {s}{state}"], per_round["s = 1"], per_round["forward"])]
                  for s in CHEAP_SIZES]
        fits = [statistics.linear_regression([s - 1 for s in CHEAP_SIZES], list(e)) for e in zip(*excess)]
        result[key] = {"c_us": median_iqr_us([f.slope for f in fits]),
                       "a_us": median_iqr_us([f.intercept for f in fits])}
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, default=OUT)
    args = parser.parse_args()
    torch.set_num_threads(1)
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
        "per_segment_cost": per_segment_cost(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    for name in ["walks", "walks_reentrant", "walks_grad_input"]:
        for s, w in data[name].items():
            print(name, s, {k: v / (ROWS * WIDTH * 4) for k, v in w.items()})
    print(data["per_segment_cost"])


if __name__ == "__main__":
    main()
