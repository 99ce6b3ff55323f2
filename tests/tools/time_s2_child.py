"""One process of researcher lesson 2's s = 2 timing (its section 4), printed as one line of JSON.

Usage (run by ``record_torch_memory.py --only timing_s2_runs``, one fresh process per run):
    PYTHONPATH=. python tests/tools/time_s2_child.py --library torch|minigrad [--heap default|kept] [--rounds 41]

The lesson's five variants on the 16-layer chain of width 512, batch 128, ``use_reentrant=False``,
interleaved by ``minigrad.timing.measure`` (3 warm-up rounds, collector off, this process's CPU
time, three steps per call, one thread): layers 1 to 8's forward pass (the unit), the first
forward pass unchecked and with s = 2, the training step unchecked and with s = 2.  Each call's
minor page faults are counted, as in the lesson.

``--heap kept``: before anything is timed, glibc's ``mallopt`` serves no block by ``mmap`` and never
trims the heap (the lesson's kept-heap condition), so freed memory stays in the process.

``--library torch`` adds the attribution variants of ``PREDICTED_ATTRIBUTION`` (in
``record_torch_memory.py``): the step with s = 2 and ``preserve_rng_state=False``, and the
unchecked step followed by a checkpoint of ``torch.nn.Identity()``, which saves and recomputes
nothing (the fixed cost of one checkpoint).

Imports only the library it times (minigrad's children import no torch).
"""

import argparse
import ctypes
import datetime
import json
import os
import platform
import resource
import statistics
import sys
import time

import numpy as np

from minigrad import timing

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--library", choices=["torch", "minigrad"], required=True)
parser.add_argument("--heap", choices=["default", "kept"], default="default")
parser.add_argument("--rounds", type=int, default=41)
args = parser.parse_args()

if args.library == "torch":
    import torch
    from torch.utils.checkpoint import checkpoint, checkpoint_sequential
else:
    import minigrad as torch
    checkpoint_sequential = torch.utils.checkpoint.checkpoint_sequential

started = time.time()
load_start = list(os.getloadavg())
heap_kept = False
if args.heap == "kept":          # glibc only: M_MMAP_MAX = 0, M_TRIM_THRESHOLD = 1 GiB, as in the lesson
    libc = ctypes.CDLL(None)
    heap_kept = libc.mallopt(-4, 0) == 1 and libc.mallopt(-1, 1 << 30) == 1
    if not heap_kept:
        sys.exit("mallopt failed: no kept-heap condition on this C library")
torch.set_num_threads(1)
torch.manual_seed(0)
repeats = 3


def tanh_mlp(depth, width):
    layers = []
    for _ in range(depth):
        layers += [torch.nn.Linear(width, width), torch.nn.Tanh()]
    return torch.nn.Sequential(*layers)


wide = tanh_mlp(16, 512)
x_wide = torch.linspace(-1.0, 1.0, 128 * 512).reshape(128, 512)
first_half = wide[:16]                                  # layers 1 to 8: what s = 2 recomputes


def layers_1_to_8():
    for _ in range(repeats):
        first_half(x_wide)


def forward(s):
    def run():
        for _ in range(repeats):
            wide(x_wide) if s == 1 else checkpoint_sequential(wide, s, x_wide, use_reentrant=False)
    return run


def training_step(s, **options):
    def run():
        for _ in range(repeats):
            out = wide(x_wide) if s == 1 else checkpoint_sequential(wide, s, x_wide, use_reentrant=False, **options)
            out.sum().backward()
            wide.zero_grad()
    return run


def empty_checkpoint_step():
    identity = torch.nn.Identity()

    def run():
        for _ in range(repeats):
            out = checkpoint(identity, wide(x_wide), use_reentrant=False)
            out.sum().backward()
            wide.zero_grad()
    return run


def with_faults(variants, faults):
    def counted(name, run):
        def call():
            before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            run()
            faults.setdefault(name, []).append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
        return call
    return {name: counted(name, run) for name, run in variants.items()}


variants = {"layers 1-8": layers_1_to_8, "forward, s = 1": forward(1), "forward, s = 2": forward(2),
            "s = 1": training_step(1), "s = 2": training_step(2)}
if args.library == "torch":
    variants["s = 2, rng not preserved"] = training_step(2, preserve_rng_state=False)
    variants["s = 1, empty checkpoint"] = empty_checkpoint_step()
faults = {}
T = timing.measure(with_faults(variants, faults), rounds=args.rounds, warmup=3, clock=time.process_time).times
unit = T["layers 1-8"]


def per_unit(a, b):
    return [(y - x) / u for x, y, u in zip(T[a], T[b], unit)]


added, first_pass = per_unit("s = 1", "s = 2"), per_unit("forward, s = 1", "forward, s = 2")
ratios = {"added": added, "first_pass": first_pass, "walk": [a - f for a, f in zip(added, first_pass)]}
if args.library == "torch":
    ratios["rng_state"] = per_unit("s = 2, rng not preserved", "s = 2")     # what preserving the generator adds
    ratios["empty_checkpoint"] = per_unit("s = 1", "s = 1, empty checkpoint")
print(json.dumps({
    "library": args.library, "version": torch.__version__, "heap": args.heap, "heap_kept": heap_kept,
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
    "python": platform.python_version(), "numpy": np.__version__, "machine": platform.machine(),
    "rounds": args.rounds, "warmup": 3, "steps_per_call": repeats, "clock": "time.process_time",
    "load_average_at_start": load_start, "load_average_at_end": list(os.getloadavg()),
    "seconds": round(time.time() - started, 1),
    "faults_per_call_median": {name: statistics.median(f[3:]) for name, f in faults.items()},
    "times_s": T, "ratios": ratios}))
