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
of the two fields then gets, in ``when_recorded`` (when each field was recorded), the second its measurement started
(``measured_from``), so the file shows the order.

``timing_s2_runs`` (``--only timing_s2_runs``, ``--runs N``, default 6): the lesson's s = 2 timing
check (its section 4), replicated; its verdicts rest on these runs.  Each run is a fresh process of
``tests/tools/time_s2_child.py``: the chain of 16 layers of width 512 on a batch of 128,
``use_reentrant=False``, five variants interleaved by ``minigrad.timing.measure`` (41 rounds after 3
warm-up, collector off, the process's CPU time, three steps per call, one thread): layers 1 to 8's
forward pass (the unit), the first forward pass unchecked and with s = 2, and the training step
unchecked and with s = 2.  Stored per run: every round's times, and per round the time s = 2 adds to a
step, and its parts in the first forward pass and in the walk, each over the unit.  The criterion,
fixed before the first recording: the check holds when the order-statistic interval
(``timing.median_ci``, covering at least 95%) of the added time lies inside 3/4 to 5/4; the lesson takes it across the runs'
medians.  The runs: ``N`` fresh PyTorch processes (the five variants, plus the two of
``PREDICTED_ATTRIBUTION``), and ``MINIGRAD_RUNS`` fresh minigrad processes in each heap condition (glibc's default, and freed memory kept in the process), all one after
another in an order shuffled by ``random.Random(seed)`` (the seed, this second, is stored with the
order); each run with its machine, versions, date and load average.  ``PREDICTED_ATTRIBUTION``
goes into the field, with the second it was written, before the first run starts.  minigrad's
runs use ``--minigrad-python`` (default: the main venv's, which has no torch).

``walks_any_s`` and ``walks_shrinking``: the allocator's side of the lesson's non-divisor and shrinking
schedules, on the same timeline (``use_reentrant=False``, width 32, batch 1,024): the chain of one
module per layer (k = 16) at every s from 1 to 16, and the shrinking segments of ``family_bound(k)``
at every k from 2 to 48 with more than one segment.  Exploratory (``ALLOCATOR_NOTE``): the walks'
peaks were seen in a trial before any band was fixed.  The shrinking walks' peaks are then predicted
(``PREDICTED_SHRINKING``, from a first recording whose variable held the output): the prediction goes
into the file as ``predicted_shrinking``, with its second, before ``walks_shrinking`` is measured.

``walks_new_chain`` (``--only walks_new_chain``): section 5's walk-peak rule (``walk_peak_rule``) tested on a
chain other than the lesson's (``NEW_CHAIN``: k = 20 layers of one module each, width 48, batch 640) at
divisors and non-divisors of k.  The rule's peaks, and the count's bytes after the forward pass, are
computed here from ``NEW_CHAIN`` alone and go into the file as ``predicted_new_chain``, with the second
they were written, before those walks are measured.

``walks_equal_best`` (``--only walks_equal_best``): at every k of ``walks_shrinking``, the chain of one module
per layer (width 32, batch 1,024) split into equal segments at each divisor s of k whose count
(s - 1) + k/s is least, non-reentrant: the bytes the lesson compares with the shrinking schedule's.

``--only FIELD`` (repeatable) re-records those fields alone into the stored file, with their date.

"""

import argparse
import datetime
import json
import os
import pathlib
import platform
import random
import subprocess
import sys
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
MINIGRAD_PYTHON = ROOT / ".venv" / "bin" / "python"        # the main venv (no torch), for minigrad's runs
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
PREDICTED_SHRINKING = {                                    # stored, with its time, before walks_shrinking runs
    "rule": "with no variable holding the output, each shrinking schedule's walk peaks while its first segment "
            "(m layers) is recomputed: its m recomputed activations, the product the last tanh is applied to and "
            "the gradient arriving at the segment (m + 2 activations), the weight and bias gradients of the k - m "
            "layers after it, and 8 bytes (the loss and the gradient sum() starts from); derived from the "
            "recording of 2026-12-07 10:32 UTC, whose variable held the output (one activation more at every k)",
    "formula": "(m + 2) * activation_bytes + (k - m) * (width * width + width) * 4 + 8",
}
NEW_CHAIN = {"depth": 20, "width": 48, "rows": 640, "segments": [1, 2, 3, 4, 5, 6, 7, 10, 20]}   # not the lesson's chain (k, width, batch)
ARGS = None                                                # the parsed command line (main)
MINIGRAD_RUNS = 4                                          # per heap condition, in timing_s2_runs
PREDICTED_ATTRIBUTION = {                                  # stored, with its time, before timing_s2_runs runs
    "question": "the walk's recomputation of layers 1 to 8 takes about 10% more than the unit: "
                "which of three candidate causes",
    "rule": "in every PyTorch run, the median cost of preserving the generator's state "
            "(s = 2 less s = 2 with preserve_rng_state=False) and of one checkpoint that saves and "
            "recomputes nothing (the unchecked step plus checkpoint(Identity) less the unchecked step) "
            "are each below 0.03 of the unit, while the walk's median exceeds 1 by more than 0.05: "
            "the excess is then in the recomputed layers' own time during the walk",
    "band_units": 0.03, "walk_excess_above_units": 0.05,
}


def tanh_mlp(depth, width):
    layers = []
    for _ in range(depth):
        layers += [torch.nn.Linear(width, width), torch.nn.Tanh()]
    return torch.nn.Sequential(*layers)


def batch(rows, width):
    return torch.linspace(-1.0, 1.0, rows * width).reshape(rows, width)


def step_memory(net, x, s, use_reentrant=False, forward=None):
    """Bytes alive after the forward pass, the peak during backward() and where it falls, from the timeline.
    ``forward``: a callable giving the output in place of ``checkpoint_sequential`` with ``s`` segments."""
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True, record_shapes=True,
                 with_stack=True) as prof:
        loss = (forward() if forward is not None else net(x) if s == 1 else checkpoint_sequential(
            net, s, x, use_reentrant=use_reentrant, preserve_rng_state=False)).sum()   # no variable holds the output
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


def step_memory_retried(net, x, s, use_reentrant=False, forward=None):
    for attempt in range(5):          # the profiler's event parser now and then fails to decode a name
        try:
            return step_memory(net, x, s, use_reentrant, forward)
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


def layered(depth, width):
    """The lesson's chain of one module per layer, so that checkpoint_sequential never cuts a layer."""
    return torch.nn.Sequential(*[torch.nn.Sequential(torch.nn.Linear(width, width), torch.nn.Tanh())
                                 for _ in range(depth)])


def family_bound(k):
    """The least M with k <= M(M + 1)/2 (the lesson's bound for its family of schedules)."""
    return next(m for m in range(1, k + 1) if m * (m + 1) // 2 >= k)


def shrinking(k, m):
    """Segments of m, m - 1, ... layers, the last taking what is left (the lesson's ``shrinking``)."""
    sizes = []
    while sum(sizes) < k:
        sizes.append(min(m - len(sizes), k - sum(sizes)))
    return sizes


def run_schedule(net, x, sizes):
    """The layers of ``tanh_mlp`` in segments of ``sizes``, all but the last checkpointed, non-reentrant."""
    h, start = x, 0
    for j, size in enumerate(sizes):
        part = net[2 * start: 2 * (start + size)]
        h = part(h) if j == len(sizes) - 1 else torch.utils.checkpoint.checkpoint(
            part, h, use_reentrant=False, preserve_rng_state=False)
        start += size
    return h


def measured_walks(record):
    """``record()``'s walks, with ``ALLOCATOR_NOTE`` and the second they started."""
    return {"note": ALLOCATOR_NOTE, "measured_from": now("%Y-%m-%d %H:%M:%S UTC"), "walks": record()}


def walks_any_s():
    """The k = 16 chain of one module per layer at every s from 1 to 16, non-reentrant (the lesson's
    non-divisor sweep), on the profiler's timeline."""
    torch.manual_seed(0)
    net, x = layered(DEPTH, WIDTH), batch(ROWS, WIDTH)
    step_memory_retried(net, x, 4)                          # a first run fills one-time caches
    return walks(net, x, use_reentrant=False, segments=range(1, DEPTH + 1))


def shrinking_ks():
    """The k from 2 to 48 whose shrinking schedule has more than one segment, with the schedule."""
    schedules = {k: shrinking(k, family_bound(k)) for k in range(2, 49)}
    return {k: sizes for k, sizes in schedules.items() if len(sizes) > 1}


def segments_of(k, s):
    """checkpoint_sequential's segments of a chain of k modules: s - 1 of floor(k/s), the last the rest."""
    return [k] if s == 1 else [k // s] * (s - 1) + [k - (s - 1) * (k // s)]


def walk_peak_rule(sizes, activation_bytes, layer_gradient_bytes):
    """The lesson's rule for the walk's peak, in bytes: the largest, over the segments, of what is alive
    while each is recomputed (inputs of segments 2..j, its activations, the tanh's input, the arriving
    gradient, the later layers' gradients, 8 bytes); the last segment is walked, its gradient a view."""
    k, alive, done = sum(sizes), [], 0
    for j, size in enumerate(sizes, 1):
        done += size
        if j < len(sizes):
            alive.append((j - 1 + size + 2) * activation_bytes + (k - done) * layer_gradient_bytes + 8)
        else:
            alive.append((j - 1 + size + 1) * activation_bytes + layer_gradient_bytes + 8)
    return max(alive)


def predicted_new_chain():
    """``walk_peak_rule`` and the count after the forward pass on ``NEW_CHAIN``, per s, in bytes."""
    k, width, rows = NEW_CHAIN["depth"], NEW_CHAIN["width"], NEW_CHAIN["rows"]
    one, grads = rows * width * 4, (width * width + width) * 4
    return {"chain": NEW_CHAIN,
            "after_forward_bytes": {str(s): (len(segments_of(k, s)) - 1 + segments_of(k, s)[-1]) * one + 4
                                    for s in NEW_CHAIN["segments"]},
            "peak_in_backward_bytes": {str(s): walk_peak_rule(segments_of(k, s), one, grads)
                                       for s in NEW_CHAIN["segments"]}}


def best_equal_splits(k):
    """The divisors s of k whose count of activations after the forward pass, (s - 1) + k/s, is least."""
    laws = {s: (s - 1) + k // s if s > 1 else k for s in range(1, k + 1) if k % s == 0}
    return [s for s, law in laws.items() if law == min(laws.values())]


def walks_equal_best():
    """At every k of ``walks_shrinking``: the equal splits of ``best_equal_splits(k)``, non-reentrant."""
    measured, started = {}, now("%Y-%m-%d %H:%M:%S UTC")
    for k in shrinking_ks():
        torch.manual_seed(0)
        net, x = layered(k, WIDTH), batch(ROWS, WIDTH)
        measured[str(k)] = {str(s): step_memory_retried(net, x, s) for s in best_equal_splits(k)}
    return {"measured_from": started, "walks": measured}


def walks_new_chain():
    """``NEW_CHAIN`` (one module per layer) at its segments, non-reentrant, on the profiler's timeline."""
    torch.manual_seed(0)
    net, x = layered(NEW_CHAIN["depth"], NEW_CHAIN["width"]), batch(NEW_CHAIN["rows"], NEW_CHAIN["width"])
    step_memory_retried(net, x, 4)                          # a first run fills one-time caches
    return {"chain": NEW_CHAIN, "walks": walks(net, x, use_reentrant=False, segments=NEW_CHAIN["segments"])}


def predicted_shrinking_peaks():
    """``PREDICTED_SHRINKING``'s formula at every k of ``walks_shrinking``: the predicted peak, in bytes."""
    return {str(k): (sizes[0] + 2) * ROWS * WIDTH * 4 + (k - sizes[0]) * ONE_LAYER_GRADIENTS + 8
            for k, sizes in shrinking_ks().items()}


def walks_shrinking():
    """The shrinking schedule at every k from 2 to 48 with more than one segment, non-reentrant."""
    measured = {}
    for k, sizes in shrinking_ks().items():
        torch.manual_seed(0)
        net, x = tanh_mlp(k, WIDTH), batch(ROWS, WIDTH)
        measured[str(k)] = {"sizes": sizes, **step_memory_retried(
            net, x, None, forward=lambda: run_schedule(net, x, sizes))}
    return measured


ALLOCATOR_NOTE = ("exploratory: no band was fixed before a trial of these walks (k = 16 at s = 1, 5, 16; "
                  "shrinking at k = 5 and 16); the count after the forward pass is tested, and the shrinking "
                  "walks' peaks against predicted_shrinking")


def timing_s2_runs(runs, minigrad_python):
    """The replication (module docstring): the runs, each a fresh process, in a recorded random order."""
    seed = int(time.time())
    order = [("torch", "default")] * runs + [("minigrad", "default"), ("minigrad", "kept")] * MINIGRAD_RUNS
    random.Random(seed).shuffle(order)
    out = {"what": "the s = 2 timing, each run a fresh process, one after another, in a shuffled order",
           "predicted_attribution": {"written": now("%Y-%m-%d %H:%M:%S UTC"), **PREDICTED_ATTRIBUTION},
           "seed": seed, "order": [f"{library} {heap}" for library, heap in order],
           "cpu": cpu_model(), "runs": []}
    time.sleep(1)                                          # the first run's second then follows it
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for i, (library, heap) in enumerate(order):
        python = sys.executable if library == "torch" else minigrad_python
        res = subprocess.run([python, str(ROOT / "tests" / "tools" / "time_s2_child.py"), "--library", library,
                              "--heap", heap], capture_output=True, text=True, env=env, check=True)
        run = json.loads(res.stdout.strip().splitlines()[-1])
        out["runs"].append(run)
        print(f"  run {i + 1} of {len(order)}: {library} {heap}, {run['seconds']} s, load average at start "
              + ", ".join(f"{v:.2f}" for v in run["load_average_at_start"]), flush=True)
    return out


ONLY = {"walks_k24_reentrant": lambda: walks_k24(True), "walks_k24_grad_input": lambda: walks_k24(False),
        "timing_s2_runs": lambda: timing_s2_runs(ARGS.runs, ARGS.minigrad_python),
        "walks_any_s": lambda: measured_walks(walks_any_s),
        "walks_shrinking": lambda: measured_walks(walks_shrinking), "walks_new_chain": walks_new_chain,
        "walks_equal_best": walks_equal_best}                            # the fields --only can re-record


def now(form):
    return datetime.datetime.now(datetime.timezone.utc).strftime(form)


def store_prediction(data, out, field="predicted_k24"):
    """Put ``PREDICTED_K24`` (or ``PREDICTED_SHRINKING``, field ``predicted_shrinking``, with its peaks; or
    ``predicted_new_chain()``) into ``data`` with the second it is written, and write the file, before
    those walks are measured."""
    prediction = PREDICTED_K24 if field == "predicted_k24" else predicted_new_chain() \
        if field == "predicted_new_chain" else {**PREDICTED_SHRINKING, "peak_in_backward_bytes": predicted_shrinking_peaks()}
    data[field] = {"written": now("%Y-%m-%d %H:%M:%S UTC"), **prediction}
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
    parser.add_argument("--runs", type=int, default=6, help="PyTorch processes of timing_s2_runs (default 6)")
    parser.add_argument("--minigrad-python", default=str(MINIGRAD_PYTHON if MINIGRAD_PYTHON.exists() else sys.executable),
                        help="the interpreter of timing_s2_runs' minigrad processes")
    args = parser.parse_args()
    global ARGS
    ARGS = args
    torch.set_num_threads(1)
    if args.only:
        data = json.loads(args.out.read_text(encoding="utf-8"))
        if any(field.startswith("walks_k24") for field in args.only):
            store_prediction(data, args.out)
        if "walks_shrinking" in args.only:
            store_prediction(data, args.out, "predicted_shrinking")
        if "walks_new_chain" in args.only:
            store_prediction(data, args.out, "predicted_new_chain")
        for field in args.only:
            started = now("%Y-%m-%d %H:%M:%S UTC")
            data[field] = ONLY[field]()
            data.setdefault("when_recorded", {})[field] = {"date": now("%Y-%m-%d %H:%M UTC"),
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
    store_prediction(data, args.out, "predicted_shrinking")
    store_prediction(data, args.out, "predicted_new_chain")
    for field, record in ONLY.items():
        started = now("%Y-%m-%d %H:%M:%S UTC")
        data[field] = record()
        data.setdefault("when_recorded", {})[field] = {"date": now("%Y-%m-%d %H:%M UTC"), "torch": torch.__version__,
                                                     "measured_from": started}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    report(data)


def report(data):
    for name in ["walks", "walks_reentrant", "walks_grad_input", "walks_k24_reentrant", "walks_k24_grad_input"]:
        for s, w in data.get(name, {}).items():
            print(name, s, {k: w[k] / (ROWS * WIDTH * 4) for k in ["after_forward_bytes", "peak_in_backward_bytes"]},
                  "peak at", w["peak_at"])
    for run in data.get("timing_s2_runs", {}).get("runs", []):
        print("timing_s2_runs", run["library"], run["heap"], {name: round(timing.median_ci(r).median, 3)
                                                              for name, r in run["ratios"].items()})


if __name__ == "__main__":
    main()
