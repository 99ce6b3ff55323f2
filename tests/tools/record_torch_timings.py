"""Record PyTorch's side of researcher lesson 3 into notebooks/researcher/data/torch_timings_03.json.

Usage: make record-torch-timings
   or: .venv-torch/bin/python tests/tools/record_torch_timings.py [--out FILE] [--quick]

The lesson (notebooks/researcher/03_define_by_run_vs_define_then_run.ipynb)
runs its own measurements live on the library it imports; what only real
PyTorch can show (Inductor's fused kernels, its first call of seconds to a
minute while it compiles C++, Dynamo's full guard tree, ``torch.cond``,
``torch.export``) is measured here,
once, and stored with the machine, the versions and the date.  The lesson
reads the file and says how to re-record it.  Nothing is typed by hand.

What is recorded (every timing with ``minigrad.timing.measure`` on the CPU
clock, ``time.process_time``, as the lesson's live cells time: variants
interleaved round by round in a rotating order, a warm-up dropped, the
collector off; medians with interquartile ranges, ratios round by round with 95% bootstrap intervals of their
medians; as
in the lesson, each timed call lasts about half a millisecond; 81 rounds
up to 10,000 elements and 30 above by default (``--rounds``), more than the
lesson's live cells take, since the recorded medians are tested as they stand;
PyTorch on one thread):

* ``mlp_step``: the lesson's small MLP training step (forward and backward),
  eager against ``torch.compile`` with ``aot_eager`` and with ``inductor``;
* ``recording_sweep``: a 20-step chain ``y = tanh(0.9 y + 0.1)`` (60
  elementwise operations), forward recorded against under ``no_grad``, over
  tensor sizes from 10 to 1,000,000 elements, with the ``no_grad`` time per pass of every
  kept round (``no_grad_per_pass_rounds_ms``: the lesson's interval of a ratio of two sizes' times);
* ``compile_sweep``: the same chain's training step (forward, ``sum``,
  ``backward``), eager against ``aot_eager`` and ``inductor``, over the sizes; and Inductor's step
  against ``aot_eager_decomp_partition``'s (the same decomposed graphs and saved tensors, no fusion:
  ``step_ratio_inductor_to_decomp_partition``); at ``SAVE_ALL_SIZES`` also ``aot_eager_decomp_partition``
  against eager, and Inductor with AOTAutograd's ``default_partition`` (it saves every value the
  backward needs and recomputes none: ``inductor saving all``, with its saved-tensor count), against
  eager and against Inductor (``step_ratio_inductor_to_inductor_saving_all``): does the backward's
  recomputation of the twenty ``tanh`` make Inductor's step slower there?
* ``first_call``: the first call of a fresh ``torch.compile`` of that step at
  1,000 elements, each sample in a fresh process with an empty Inductor cache
  (a cold start, as a user meets it), compiling in that process
  (``TORCHINDUCTOR_COMPILE_THREADS=1``, no pool of compile workers): 5 samples per
  backend (``--first-calls``), each on the wall clock and in CPU seconds (the
  process's own and those of the compiler processes it waited for), with the
  machine's load average when the samples started and ended; then, in the same process, the
  first call of a second fresh function (the process's one-off start-up already paid);
* ``inductor_code``: for that step, the kernels Inductor generated (counted
  in its output code) against the operations of the eager tape;
* ``saved_tensors``: what the chain's step at 1,000 elements saves for the
  backward, eager against ``aot_eager``, counted two ways that do not share
  code: the tensors the saved-tensor hooks see packed
  (``torch.autograd.graph.saved_tensors_hooks``: count, bytes, distinct
  storages), and for ``aot_eager`` the inputs of the backward graph its
  partitioner made (``aot_eager`` itself, handed spying forward and backward
  compilers that record the graphs and then do what its own do), by name, with
  their bytes from the graph's shapes, and the operations that graph runs;
* ``forward_split``: at 100,000 and 1,000,000 elements, where ``aot_eager``'s
  step came out at or below eager's, the forward alone beside the step, in the
  same interleaved rounds: eager's recording forward, its forward under
  ``no_grad``, ``aot_eager``'s forward (on an input that needs a gradient, its
  output dropped unused), and both steps; ratios to eager's recording forward
  and step;
* ``page_faults``: at the same two sizes, the minor page faults (``ru_minflt`` deltas of this
  process) of one eager step and one ``aot_eager`` step, interleaved over 15 rounds (the order alternating): how many fresh
  pages the kernel hands the process per step, against the pages one array of the chain fills;
* ``per_op``: ``aot_eager``'s extra time over eager on chains of 5, 10, 20 and 40
  elementwise operations at 10 elements and on the MLP step (all interleaved in the same
  rounds), the chains' fitted as a fixed cost plus a cost per aten call of its graphs, with
  95% bootstrap intervals (the rounds resampled), and the Python code its forward graph runs;
* ``branches``: the lesson's ``g`` (an ``if`` on a tensor's value): the graphs
  made after each call, Dynamo's guard tree, ``fullgraph=True``, ``torch.export``
  (strict and not), ``torch.cond`` capturing both branches, Dynamo's own ``explain`` of ``g``
  and the guard failure it reports when a float read from outside the call changes
  (``--only scale_guard`` re-records that list alone, with the next); and the guard Dynamo puts on
  an element of a global list read inside the call (``dynamo_list_guard``: the lesson's example of
  what minigrad's identity guard misses);
* ``repeat``: a second recording of ``mlp_step``, ``recording_sweep`` and ``compile_sweep``,
  made after the first (``--only repeat`` re-records it alone): the lesson claims a recorded
  effect only where both recordings' 95% intervals show it;
* ``branches.dynamo_scale_versions``: the versions Dynamo keeps for the lesson's ``scaled``
  with ``automatic_dynamic_shapes`` on and off: graphs made after each call, and each version's
  guard lines on ``L['scale']`` as Dynamo prints them; ``branches.print_runs_per_call``: how
  often a ``print`` between two tensor operations runs on each of three compiled calls, and
  ``branches.noisy_ops_per_graph`` the graphs Dynamo makes of that function;
* ``saved_tensors.at_1000000_elements``: the same counts at a million elements;
* ``controls``: the lesson's constant-c test and keeping control: the chain's forward recording, under
  ``no_grad``, and under ``no_grad`` keeping each ``tanh`` result, at 10 and at 1,000 elements, all six
  in the same interleaved rounds, every round's time per pass kept; and Inductor's kernels at 10 elements;
* ``replicate``: the replication the lesson's timing claims rest on (``--only replicate`` records it alone):
  ``mlp_step``, both sweeps and ``controls``, each run in a separate process (``--runs``, default 10),
  one after another, with the load average at each run's start and end; in the same processes the
  keeping control at 100,000 and 1,000,000 elements (``controls_large``), Inductor's output and gradient
  against eager's at every size (``inductor_against_eager``), a compiled call's fixed cost on a step of
  ``x * 1.0`` (``empty_compiled_call``) and the page faults of eager's and three compiled steps at a
  million elements; a run takes about a minute on an idle machine at 81 rounds: record it under the
  exclusive CPU lock;
* ``mlp_direct`` (``--only mlp_direct``, after the replication): the MLP step eager, through
  ``torch.compile`` with Inductor, and the same compiled graph called directly (no frame hook, no
  guards), and the same three on a step of ``x * 1.0``, all in the same rounds, each run a separate
  process (``--runs``; seconds each);
* ``sweep_faults`` (``--only sweep_faults``, after the replication): the recording sweep at 100,000 and
  1,000,000 elements, with the keeping control in the same rounds, and each timed call's minor page faults, and the cost of entering and leaving
  ``torch.no_grad()`` alone, each run a separate process (``--runs``; seconds each);
* ``recompiles``: ``dynamic=False`` against automatic dynamic shapes,
  Dynamo's ``recompile_limit`` and its warning, and the recompile a
  ``torch.set_num_threads`` change causes (the global-state guard).

Runs for a few minutes (``--quick``: fewer rounds and sizes, for a trial into
another file with ``--out``; ``--only first_call`` (or ``saved_tensors``, ``forward_split``, ``per_op``, ``scale_guard``, ``page_faults``, ``repeat``, ``controls``,
``replicate``, ``mlp_direct``, ``sweep_faults``):
re-record that part alone into the existing file, the first calls stamped with
their own date, leaving the rest as recorded;
``--keep-first-call``: re-record everything else, keeping the file's first calls).
"""

import argparse
import ast
import collections
import datetime
import json
import logging
import os
import pathlib
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))              # this checkout's minigrad.timing

OUT = ROOT / "notebooks" / "researcher" / "data" / "torch_timings_03.json"
SIZES = [10, 100, 1_000, 10_000, 100_000, 1_000_000]
STEPS = 20                                  # steps of the chain; 3 operations each
# the clock of every timing but the first calls (which record both): this process's CPU time, the
# lesson's clock, so that its live ratios and these stand on the same clock
CLOCK = time.process_time


def dumps(data, level=0):
    """``json.dumps(data, indent=1, ensure_ascii=False)``, but each list of numbers on one line (the rounds'
    times: a line per variant, not a line per number)."""
    pad, end = " " * (level + 1), " " * level
    if isinstance(data, dict) and data:
        return "{\n" + ",\n".join(f"{pad}{json.dumps(k, ensure_ascii=False)}: {dumps(v, level + 1)}"
                                   for k, v in data.items()) + "\n" + end + "}"
    if isinstance(data, list) and data and not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in data):
        return "[\n" + ",\n".join(pad + dumps(v, level + 1) for v in data) + "\n" + end + "]"
    return json.dumps(data, ensure_ascii=False)


def op_chain_source():
    """``op_chain``'s definition, as written in this file (``ast.get_source_segment``: from ``def`` to its
    last line, no trailing newline)."""
    text = pathlib.Path(__file__).read_text(encoding="utf-8")
    return next(ast.get_source_segment(text, node) for node in ast.walk(ast.parse(text))
                if isinstance(node, ast.FunctionDef) and node.name == "op_chain")


def chain(x):
    y = x
    for _ in range(STEPS):
        y = (y * 0.9 + 0.1).tanh()
    return y


def operations_recorded(out):
    """The operations behind ``out`` (its nodes, not the leaves' AccumulateGrad), counted."""
    todo, seen = [out.grad_fn], set()
    while todo:
        node = todo.pop()
        if node is not None and node not in seen and not hasattr(node, "variable"):
            seen.add(node)
            todo += [nxt for nxt, _ in node.next_functions]
    return len(seen)


# the sizes at which Inductor's step was slower than eager's in earlier recordings: there the step is also
# timed with Inductor's partitioner replaced by one that recomputes nothing
SAVE_ALL_SIZES = (10_000, 100_000)

# The lesson's claims on the replication's runs, written before recording and stored with them
# (``replicate.claims``), so that no side is chosen after seeing the data: each claim's name as the
# lesson prints it, the null its statistic (a run's median) is tested against by the sign test across
# the runs, and the predicted side, "above" or "below" it.  ``exploratory``: read off earlier data.
TORCH_CLAIMS = {
    "recording / no_grad falls from 10 to 10,000 elements (at 10 over at 10,000)": (1, "above"),
    "the extra per operation more than tenfold from 10 to 100,000 elements (the factor)": (10, "above"),
    "no_grad's time the larger part of a recording pass at 10 elements (recording / no_grad)": (2, "below"),
    "the extra per operation grows from 10 to 1,000 elements (paired rounds: the ratio of the median extras,"
    " against the band's top)":
        (1.2, "above"),
    "keeping the 20 results falls short of that growth at 1,000 elements (keeping / no_grad over what it needs)":
        (1, "below"),
    **{f"keeping moves the time at least half as far as recording at {n:,} elements (keeping's extra over"
       " recording's)": (0.5, "above") for n in (100_000, 1_000_000)},
    **{f"{b} slower than eager on the MLP step": (1, "above") for b in ("aot_eager", "inductor")},
    "a compiled call's fixed cost above Inductor's whole extra on the MLP step (the extra on x * 1.0 over the MLP's)":
        (1, "above"),
    **{f"Inductor's step faster than eager's at {n:,} elements": (1, "below") for n in SIZES},
    "Inductor's forward alone faster than eager's at every size (the largest ratio of the six)": (1, "below"),
    **{f"recomputing slower than saving at {n:,} elements (Inductor / Inductor saving all)": (1, "above")
       for n in SAVE_ALL_SIZES},
    "Inductor's step below the same graphs unfused at a million elements (Inductor / aot_eager_decomp_partition)":
        (1, "below"),
}
TORCH_EXPLORATORY = {
    "aot_eager's step slower than eager's at 10 elements (read off the MLP step first)": (1, "above"),
    "aot_eager's step faster than eager's at a million elements (read off the picture first)": (1, "below"),
}


def chain_saving_all(x):
    # the chain under its own code object, so that Dynamo keeps its compiled version apart from chain's
    return chain(x)


def saving_all_partitioner():
    """An Inductor partitioner (``torch._inductor.config.custom_partitioner_fn``) that recomputes nothing:
    AOTAutograd's ``default_partition`` saves every forward value the backward needs."""
    from functorch.compile import default_partition
    from torch._inductor.custom_graph_pass import CustomPartitionerFn, get_hash_for_files

    class SaveAll(CustomPartitionerFn):
        def __call__(self, gm, joint_inputs, **kwargs):
            kwargs.pop("compiler", None)
            kwargs.pop("static_lifetime_input_indices", None)
            return default_partition(gm, joint_inputs, **kwargs)

        def uuid(self):
            return get_hash_for_files((__file__,))

    SaveAll.__qualname__ = "SaveAll"      # found by name at module level, so Inductor's cache key can pickle it
    globals()["SaveAll"] = SaveAll
    return SaveAll()


def saved_by_hooks(torch, fn, x):
    """How many tensors the saved-tensor hooks see packed in one step of fn on x."""
    packed = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(1) or t, lambda t: t):
        out = fn(x).sum()
    out.backward()
    x.grad = None
    return len(packed)


def chain_step(fn, x):
    def run():
        fn(x).sum().backward()
        x.grad = None
    return run


def first_call_child(backend):
    """In a fresh process: the time of the first call of a fresh compile of the chain's step."""
    import torch

    torch.set_num_threads(1)
    x = torch.linspace(-1.0, 1.0, 1_000).requires_grad_()
    compiled = torch.compile(chain, backend=backend, dynamic=False)

    def cpu():
        # this process's CPU time and that of the child processes it waited for (the C++ compiler)
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        return time.process_time() + children.ru_utime + children.ru_stime

    c0, t0 = cpu(), time.perf_counter()
    chain_step(compiled, x)()
    first, first_cpu = time.perf_counter() - t0, cpu() - c0
    # then a second function, new to Dynamo and to the caches, compiled in the same process: its
    # first call pays the compile of a function without the process's one-off start-up (imports,
    # Dynamo's and Inductor's initialisation, the first compiler run's setup)
    # (other constants: a graph of its own, so that no cache the first compile filled serves it)
    def other(x):
        y = x
        for _ in range(STEPS):
            y = (y * 0.8 + 0.2).tanh()
        return y

    compiled_again = torch.compile(other, backend=backend, dynamic=False)
    c0, t0 = cpu(), time.perf_counter()
    chain_step(compiled_again, x)()
    second, second_cpu = time.perf_counter() - t0, cpu() - c0
    print(json.dumps({"seconds": first, "cpu_seconds": first_cpu,
                      "second_function_seconds": second, "second_function_cpu_seconds": second_cpu}))


def summary(t, name):
    low, high = t.spread(name)
    return {"median_ms": t.median(name) * 1e3, "iqr_ms": [low * 1e3, high * 1e3]}


def ratio(t, a, b):
    r, ci = t.ratio(a, b), t.ratio_ci(a, b)
    return {"median": r.median, "iqr": [r.low, r.high], "ci95": [ci.low, ci.high]}


def repeats_for(fn, target=0.0005):
    """How many calls make one timed call last about ``target`` seconds.

    Half a millisecond: short enough that on a shared machine most timed calls run
    without the scheduler switching to another process (as the lesson times)."""
    fn()
    t0 = time.perf_counter()
    fn()
    once = time.perf_counter() - t0
    return max(1, round(target / max(once, 1e-7)))


def rounds_for(n, rounds):
    """More rounds where they are cheap (up to 10,000 elements), as the lesson does."""
    return rounds if n <= 10_000 else max(5, rounds * 3 // 8)


def repeated(fn, n):
    def run():
        for _ in range(n):
            fn()
    return run


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        gcc = subprocess.run(["g++", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        gcc = None
    return {"cpu": cpu, "cores": os.cpu_count(), "system": platform.platform(), "compiler": gcc,
            "load_average_at_start": list(os.getloadavg())}


def record_first_calls(samples):
    """The first call of a fresh compile of the chain's step, each sample in a fresh process."""
    first = {"what": "the first call (forward and backward) of a fresh torch.compile of the chain's step "
                     "at 1,000 elements, in a fresh process with an empty Inductor cache, compiling in that "
                     "process (TORCHINDUCTOR_COMPILE_THREADS=1); seconds on the wall clock, and CPU "
                     "seconds of that process and of the compiler processes it waited for",
             "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
             "load_average_at_start": list(os.getloadavg())}
    for backend in ["aot_eager", "inductor"]:
        wall, cpu, wall2, cpu2 = [], [], [], []
        for _ in range(samples):
            with tempfile.TemporaryDirectory() as cache:
                # compiling in the process itself (no pool of compile workers), so that the CPU
                # time it waits for includes every compiler run
                env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache, PYTHONPATH=str(ROOT),
                           TORCHINDUCTOR_COMPILE_THREADS="1")
                res = subprocess.run([sys.executable, __file__, "--first-call-child", backend],
                                     capture_output=True, text=True, env=env, check=True)
                got = json.loads(res.stdout.strip().splitlines()[-1])
            wall.append(got["seconds"])
            cpu.append(got["cpu_seconds"])
            wall2.append(got["second_function_seconds"])
            cpu2.append(got["second_function_cpu_seconds"])
            print(f"  {backend}: {wall[-1]:.2f} s, {cpu[-1]:.2f} s of CPU; a second function in that"
                  f" process {wall2[-1]:.2f} s, {cpu2[-1]:.2f} s of CPU", flush=True)
        first[backend] = {"samples_s": wall, "median_s": sorted(wall)[len(wall) // 2],
                          "cpu_samples_s": cpu, "cpu_median_s": sorted(cpu)[len(cpu) // 2],
                          "second_function_samples_s": wall2,
                          "second_function_median_s": sorted(wall2)[len(wall2) // 2],
                          "second_function_cpu_samples_s": cpu2,
                          "second_function_cpu_median_s": sorted(cpu2)[len(cpu2) // 2]}
    first["load_average_at_end"] = list(os.getloadavg())
    return first


def mlp_problem(torch):
    """The lesson's MLP loss and its arguments (batch 8, widths 2-16-16-1)."""
    def param(shape, offset):
        count = 1
        for s in shape:
            count *= s
        values = torch.sin(torch.arange(count, dtype=torch.float32) + offset) * 0.5
        return values.reshape(shape).requires_grad_()

    shapes = [(2, 16), (16,), (16, 16), (16,), (16, 1), (1,)]
    params = [param(s, i) for i, s in enumerate(shapes)]
    x_batch = torch.cos(torch.arange(16, dtype=torch.float32)).reshape(8, 2)
    target = torch.sin(torch.arange(8, dtype=torch.float32)).reshape(8, 1)

    def mlp_loss(x, w1, b1, w2, b2, w3, b3, t):
        h = (x @ w1 + b1).tanh()
        h = (h @ w2 + b2).tanh()
        out = h @ w3 + b3
        return ((out - t) * (out - t)).mean()

    return mlp_loss, x_batch, *params, target


def mlp_train_steps(torch):
    """The lesson's MLP problem as training steps, for either library: ``(mlp_loss, train_step)``.

    ``train_step(loss_fn)`` returns a callable that runs one step of ``loss_fn`` (``mlp_loss`` or a
    compiled copy of it) on the problem's batch and parameters: the loss, ``backward()``, the gradients
    cleared.  Both recorders' MLP timings use it (``torch``: the library passed in, minigrad or PyTorch;
    nothing is imported here)."""
    mlp_loss, x_batch, *params, target = mlp_problem(torch)

    def train_step(loss_fn):
        def run():
            loss_fn(x_batch, *params, target).backward()
            for p in params:
                p.grad = None
        return run

    return mlp_loss, train_step


def record_mlp(torch, measure, rounds):
    mlp_loss, train_step = mlp_train_steps(torch)
    variants = {"eager": train_step(mlp_loss)}
    first = {}
    for backend in ["aot_eager", "inductor"]:
        compiled = torch.compile(mlp_loss, backend=backend)
        t0 = time.perf_counter()
        variants[backend] = train_step(compiled)
        variants[backend]()
        first[backend] = time.perf_counter() - t0
    n = repeats_for(variants["eager"])
    t = measure({k: repeated(v, n) for k, v in variants.items()}, rounds=2 * rounds + 1, warmup=3,
                clock=CLOCK)
    return {
        "what": "the lesson's MLP training step (batch 8, widths 2-16-16-1, forward and backward)",
        "steps_per_timed_call": n,
        "rounds": 2 * rounds + 1,
        "per_step": {k: {"median_ms": v["median_ms"] / n, "iqr_ms": [q / n for q in v["iqr_ms"]]}
                     for k, v in ((k, summary(t, k)) for k in variants)},
        "ratio_to_eager": {b: ratio(t, b, "eager") for b in ["aot_eager", "inductor"]},
        "first_call_s_in_this_process": first,
    }


def record_mlp_direct(torch, measure, rounds):
    """The MLP step three ways in the same rounds: eager; Inductor behind ``torch.compile`` (Dynamo's frame
    hook, guards and wrapper on every call); and the same compiled graph called directly, as Inductor's
    ``compile_fx`` returned it to Dynamo (no frame hook, no guards).  Guarded minus direct is the cost per
    call of what surrounds the compiled code on this very step; direct minus eager, what the compiled code
    itself adds or saves.  In the same rounds, the same three ways on a step of ``x * 1.0`` at 10 elements
    (``one eager``, ``one guarded``, ``one direct``): the cost around a compiled call on a step with almost
    nothing in it.  Each round's step times, in µs, and the MLP's two ratios to eager."""
    from torch._inductor.compile_fx import compile_fx

    mlp_loss, train_step = mlp_train_steps(torch)
    kept = []

    def inductor_kept(gm, example_inputs):      # the inductor backend, keeping what it returns
        kept.append(([n.name for n in gm.graph.nodes if n.op == "placeholder"], compile_fx(gm, example_inputs)))
        return kept[-1][1]

    torch._dynamo.reset()
    guarded = torch.compile(mlp_loss, backend=inductor_kept)
    variants = {"eager": train_step(mlp_loss), "guarded": train_step(guarded)}
    variants["guarded"]()                        # the first call: captures and compiles
    (names, graph), = kept                       # one graph, whose inputs are the step's eight arguments in order
    assert names == ["l_x_", "l_w1_", "l_b1_", "l_w2_", "l_b2_", "l_w3_", "l_b3_", "l_t_"], names
    call = lambda *args: graph(*args)[0]        # noqa: E731
    variants["direct"] = train_step(call)
    mlp_inputs = mlp_problem(torch)[1:]
    same = [torch.equal(fn(*mlp_inputs), guarded(*mlp_inputs)) for fn in (call,)]

    def one(x):
        return x * 1.0

    x = torch.linspace(-1.0, 1.0, 10).requires_grad_()
    one_guarded = torch.compile(one, backend=inductor_kept, dynamic=False)
    variants["one eager"], variants["one guarded"] = chain_step(one, x), chain_step(one_guarded, x)
    variants["one guarded"]()                   # its first call: captures and compiles
    (one_names, one_graph) = kept[1]
    assert one_names == ["l_x_"], one_names
    one_call = lambda x: one_graph(x)[0]        # noqa: E731
    variants["one direct"] = chain_step(one_call, x)
    same.append(torch.equal(one_call(x), one_guarded(x)))
    n = repeats_for(variants["eager"])
    t = measure({k: repeated(v, n) for k, v in variants.items()}, rounds=2 * rounds + 1, warmup=3, clock=CLOCK)
    torch._dynamo.reset()
    return {"what": "the lesson's MLP step, and a step of x * 1.0 at 10 elements (one ...), in the same rounds: eager,"
                    " Inductor through torch.compile, the same compiled graph called directly",
            "steps_per_timed_call": n, "rounds": 2 * rounds + 1, "direct_equals_guarded": all(same),
            "per_step_us_rounds": {k: [v / n * 1e6 for v in t.times[k]] for k in variants},
            "ratio_to_eager": {k: ratio(t, k, "eager") for k in ["guarded", "direct"]}}


def part_child(record, rounds):
    """In a fresh process: one run of ``record(torch, measure, rounds)``, printed as one line of JSON
    with the load average at its start and end."""
    import torch

    from minigrad.timing import measure

    torch.set_num_threads(1)
    load, t0 = list(os.getloadavg()), time.perf_counter()
    part = record(torch, measure, rounds)
    print(json.dumps({"load_average_at_start": load, "load_average_at_end": list(os.getloadavg()),
                      "seconds": round(time.perf_counter() - t0, 1), **part}))


def counting_faults(variants, faults):
    """``variants`` (name: callable), each wrapped to append its call's minor page faults (the difference of
    ``ru_minflt``, this process's) to ``faults[name]``: one count per timed call, warm-up rounds included
    (record_minigrad_timings.py uses this one too)."""
    def counted(name, fn):
        def run():
            before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            fn()
            faults[name].append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
        return run
    for name in variants:
        faults[name] = []
    return {name: counted(name, fn) for name, fn in variants.items()}


def record_sweep_faults(torch, measure, rounds, sizes=(100_000, 1_000_000), warmup=3, contexts=1_000):
    """The recording sweep at ``sizes`` (recording against ``no_grad``, one size at a time, as ``record_sweeps``;
    beside them ``no_grad keeping``, the keeping control of ``controls_large``), with each timed call's minor page faults (``minor_faults_per_timed_call``, warm-up rounds dropped), so that a
    run's ratio and its faults come from the same calls; and what entering and leaving ``torch.no_grad()`` costs
    alone (``no_grad_context_us``: ``contexts`` empty ``with torch.no_grad(): pass`` per timed call, per
    entry), the part of the ``no_grad`` variant's time that is not the pass."""
    rows = []
    for n in sizes:
        x_req = torch.linspace(-1.0, 1.0, n).requires_grad_()

        def forward():
            chain(x_req)

        def forward_no_grad():
            with torch.no_grad():
                chain(x_req)

        def keeping():
            with torch.no_grad():
                chain_keeping(x_req)

        reps = repeats_for(forward)
        faults = {}
        variants = counting_faults({"recording": repeated(forward, reps), "no_grad": repeated(forward_no_grad, reps),
                                    "no_grad keeping": repeated(keeping, reps)}, faults)
        t = measure(variants, rounds=rounds_for(n, rounds), warmup=warmup, clock=CLOCK)
        rows.append({"elements": n, "calls_per_timed_call": reps, "ratio": ratio(t, "recording", "no_grad"),
                     "ratio_keeping": ratio(t, "no_grad keeping", "no_grad"),
                     **{k: summary(t, k) for k in variants},
                     "minor_faults_per_timed_call": {k: v[warmup:] for k, v in faults.items()}})

    def contexts_only():
        for _ in range(contexts):
            with torch.no_grad():
                pass

    t = measure({"no_grad context": contexts_only}, rounds=rounds, warmup=warmup, clock=CLOCK)
    return {"rows": rows, "no_grad_context_us": t.median("no_grad context") / contexts * 1e6}


def record_sweeps(torch, measure, rounds, sizes):
    from torch._inductor.utils import run_and_get_code

    recording, compiled_sweep, code = [], [], None
    operations = operations_recorded(chain(torch.ones(3, requires_grad=True)))
    for n in sizes:
        x = torch.linspace(-1.0, 1.0, n)

        def forward():
            chain(x_req)

        def forward_no_grad():
            with torch.no_grad():
                chain(x_req)

        x_req = x.clone().requires_grad_()
        reps = repeats_for(forward)
        t = measure({"recording": repeated(forward, reps), "no_grad": repeated(forward_no_grad, reps)},
                    rounds=rounds_for(n, rounds), warmup=3, clock=CLOCK)
        per_op = (t.median("recording") - t.median("no_grad")) / reps / operations
        recording.append({"elements": n, "calls_per_timed_call": reps, "operations": operations,
                          "recording": summary(t, "recording"), "no_grad": summary(t, "no_grad"),
                          "ratio": ratio(t, "recording", "no_grad"),
                          "extra_per_operation_us": per_op * 1e6,
                          # round by round, for the lesson's interval of t_10 / t_1000 (timing.median_ratio_ci)
                          "no_grad_per_pass_rounds_ms": [v / reps * 1e3 for v in t.times["no_grad"]]})
        print(f"  recording sweep n = {n:>9,}: recording / no_grad {t.ratio('recording', 'no_grad').median:.3f}",
              flush=True)

        torch._dynamo.reset()
        variants = {"eager": chain_step(chain, x_req)}
        compile_s, compiled_fns = {}, {}
        for backend in ["aot_eager", "inductor"]:
            compiled = torch.compile(chain, backend=backend, dynamic=False)
            t0 = time.perf_counter()
            if backend == "inductor" and n == 1_000:
                _, sources = run_and_get_code(chain_step(compiled, x_req))
                code = inductor_code(sources)
            else:
                chain_step(compiled, x_req)()
            compile_s[backend] = time.perf_counter() - t0
            variants[backend] = chain_step(compiled, x_req)
            compiled_fns[backend] = compiled
        # Inductor's decompositions and partitioner without its code generation: the same saved tensors,
        # one aten kernel per operation; against Inductor's step, what fusion itself changes
        unfused = torch.compile(chain, backend="aot_eager_decomp_partition", dynamic=False)
        chain_step(unfused, x_req)()
        variants["aot_eager_decomp_partition"] = chain_step(unfused, x_req)
        saving_all_saved = None
        if n in SAVE_ALL_SIZES:      # Inductor without recomputation: the backward reads the saved tanh results
            with torch._inductor.config.patch(custom_partitioner_fn=saving_all_partitioner()):
                saving_all = torch.compile(chain_saving_all, backend="inductor", dynamic=False)
                chain_step(saving_all, x_req)()
            saving_all_saved = saved_by_hooks(torch, saving_all, x_req)
            variants["inductor saving all"] = chain_step(saving_all, x_req)
        # the forward pass alone, on an input that needs no gradient: fusion without the backward
        fused_forward = torch.compile(chain, backend="inductor", dynamic=False)
        fused_forward(x)
        variants["eager forward"] = lambda: chain(x)
        variants["inductor forward"] = lambda: fused_forward(x)
        reps = repeats_for(variants["eager"])
        t = measure({k: repeated(v, reps) for k, v in variants.items()}, rounds=rounds_for(n, rounds), warmup=3,
                    clock=CLOCK)
        compiled_sweep.append({"elements": n, "calls_per_timed_call": reps,
                               **{k: summary(t, k) for k in variants},
                               "ratio_to_eager": {b: ratio(t, b, "eager") for b in ["aot_eager", "inductor"]},
                               "forward_ratio_inductor_to_eager": ratio(t, "inductor forward", "eager forward"),
                               "step_ratio_inductor_to_decomp_partition": ratio(t, "inductor", "aot_eager_decomp_partition"),
                               "first_call_s_in_this_process": compile_s})
        if saving_all_saved is not None:
            compiled_sweep[-1].update({
                "step_ratio_to_eager": {k: ratio(t, k, "eager")
                                        for k in ["aot_eager_decomp_partition", "inductor saving all"]},
                "step_ratio_inductor_to_inductor_saving_all": ratio(t, "inductor", "inductor saving all"),
                "inductor_saving_all_saved_tensors": saving_all_saved,
                "inductor_saved_tensors": saved_by_hooks(torch, compiled_fns["inductor"], x_req)})
        print(f"  compile sweep n = {n:>9,}: aot_eager / eager {t.ratio('aot_eager', 'eager').median:.3f},"
              f" inductor / eager {t.ratio('inductor', 'eager').median:.3f}", flush=True)
    return recording, compiled_sweep, code


def record_repeat(torch, measure, rounds, sizes):
    """A second recording of the MLP step and of both sweeps, made after the first in the same run:
    the lesson claims a recorded effect only where both recordings' 95% intervals show it."""
    started = list(os.getloadavg())
    mlp = record_mlp(torch, measure, rounds)
    recording, compiled_sweep, _ = record_sweeps(torch, measure, rounds, sizes)
    return {"mlp_step": mlp, "recording_sweep": recording, "compile_sweep": compiled_sweep,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "load_average_at_start": started}


def replicate_child(rounds):
    """In a fresh process: one run of the lesson's claimed timings (the MLP step, both sweeps, the
    paired controls), printed as one line of JSON, with the load average at its start and end."""
    import torch

    from minigrad.timing import measure

    torch.set_num_threads(1)
    load = list(os.getloadavg())
    t0 = time.perf_counter()
    mlp = record_mlp(torch, measure, rounds)
    recording, compiled_sweep, _ = record_sweeps(torch, measure, rounds, SIZES)
    controls = record_controls(torch, measure, rounds)
    # the keeping control at the large sizes, in the same rounds as each other (as few as the sweeps take there)
    controls_large = record_controls(torch, measure, rounds_for(10**6, rounds), sizes=(100_000, 1_000_000))
    agreement = record_agreement(torch, SIZES)
    kernels = record_kernel_tanh(torch)
    empty = record_empty_call(torch, measure, rounds)
    faults = record_page_faults(torch, sizes=(1_000_000,),
                                backends=("aot_eager", "inductor", "aot_eager_decomp_partition"))
    print(json.dumps({"load_average_at_start": load, "load_average_at_end": list(os.getloadavg()),
                      "seconds": round(time.perf_counter() - t0, 1), "mlp_step": mlp,
                      "recording_sweep": recording, "compile_sweep": compiled_sweep, "controls": controls,
                      "controls_large": controls_large, "inductor_against_eager": agreement,
                      "empty_compiled_call": empty, "page_faults": faults, "inductor_kernels": kernels}))


def record_agreement(torch, sizes):
    """Inductor's output and gradient against eager's, for the chain's step at each of ``sizes``: the largest
    absolute differences (float32; the chain's values lie in (-1, 1)); and each float32 result's error against
    eager in float64 on the same inputs, element by element in units of that element's own float32 spacing
    (the largest, for eager and for Inductor)."""
    rows = []
    for n in sizes:
        torch._dynamo.reset()
        compiled = torch.compile(chain, backend="inductor", dynamic=False)
        got = {}
        for name, fn, dtype in [("eager", chain, torch.float32), ("inductor", compiled, torch.float32),
                                ("float64", chain, torch.float64)]:
            x = torch.linspace(-1.0, 1.0, n).to(dtype).requires_grad_()
            out = fn(x)
            out.sum().backward()
            got[name] = (out.detach(), x.grad)
        row = {"elements": n,
               "max_abs_difference_output": (got["inductor"][0] - got["eager"][0]).abs().max().item(),
               "max_abs_difference_gradient": (got["inductor"][1] - got["eager"][1]).abs().max().item()}
        for i, part in enumerate(["output", "gradient"]):
            exact = got["float64"][i]
            near = exact.float().abs()
            spacing = (torch.nextafter(near, torch.full_like(near, float("inf"))) - near).double()
            for name in ["eager", "inductor"]:
                row[f"max_spacings_from_float64_{part}_{name}"] = (
                    (got[name][i].double() - exact).abs() / spacing).max().item()
        rows.append(row)
    torch._dynamo.reset()
    return rows


def record_kernel_tanh(torch, n=1_000):
    """The chain's step compiled by Inductor at ``n`` elements: the ``tanh`` calls counted in the source of its
    forward and of its backward kernel (each loop of a kernel, vector and scalar, counted), and both sources."""
    from torch._inductor.utils import run_and_get_code

    torch._dynamo.reset()
    x = torch.linspace(-1.0, 1.0, n).requires_grad_()
    _, sources = run_and_get_code(chain_step(torch.compile(chain, backend="inductor", dynamic=False), x))
    torch._dynamo.reset()
    out = {"elements": n}
    for part, src in zip(["forward", "backward"], sources):
        m = re.search(r"extern \"C\"[^{]*\{.*?\n\}\n", src, re.S)
        kernel = m.group(0) if m else ""
        out[f"{part}_kernel_tanh_calls"] = len(re.findall(r"\btanh\(", kernel))
        out[f"{part}_kernel_loops"] = len(re.findall(r"^\s*for\s*\(", kernel, re.M))
        out[f"{part}_kernel_source"] = kernel
    return out


def record_empty_call(torch, measure, rounds, n=10):
    """The fixed cost of a compiled call: a step (forward, ``sum``, backward) of ``x * 1.0`` at ``n``
    elements, eager against ``aot_eager`` and Inductor, in the same interleaved rounds, per step; with the
    lesson's MLP step beside them, so that its compiled extra can be set against the one-operation one."""
    def one(x):
        return x * 1.0

    x = torch.linspace(-1.0, 1.0, n).requires_grad_()
    torch._dynamo.reset()
    variants = {"eager": chain_step(one, x)}
    for backend in ["aot_eager", "inductor"]:
        variants[backend] = chain_step(torch.compile(one, backend=backend, dynamic=False), x)
        variants[backend]()
    reps = repeats_for(variants["eager"])
    t = measure({k: repeated(v, reps) for k, v in variants.items()}, rounds=rounds, warmup=3, clock=CLOCK)
    torch._dynamo.reset()
    return {"what": f"a step of x * 1.0 at {n} elements", "steps_per_timed_call": reps, "rounds": rounds,
            "per_step_us_rounds": {k: [v / reps * 1e6 for v in t.times[k]] for k in variants},
            "ratio_to_eager": {b: ratio(t, b, "eager") for b in ["aot_eager", "inductor"]}}


def child_runs(flag, runs, rounds):
    """``runs`` separate processes of this script with ``flag`` (a child part), one after another: each
    child's last printed line, a JSON record, in order."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    records = []
    for i in range(runs):
        res = subprocess.run([sys.executable, __file__, flag, "--rounds", str(rounds)],
                             capture_output=True, text=True, env=env, check=True)
        records.append(json.loads(res.stdout.strip().splitlines()[-1]))
        print(f"  run {i + 1} of {runs}: {records[-1]['seconds']} s", flush=True)
    return records


def store_child_runs(out, key, flag, runs, rounds, stored_rounds):
    """Record one part as ``runs`` separate processes, one after another (``child_runs``), and store it in the
    data file ``out`` under ``key`` as {date, rounds, runs}; ``stored_rounds`` is the rounds each child kept."""
    data = json.loads(out.read_text(encoding="utf-8"))
    data[key] = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                 "rounds": stored_rounds, "runs": child_runs(flag, runs, rounds)}
    out.write_text(dumps(data) + "\n", encoding="utf-8")
    print(f"wrote {key} into {out}")


def record_replicate(runs, rounds):
    """The replication: ``runs`` separate processes, one after another, each a ``replicate_child``."""
    out = {"what": "the MLP step, the recording and compile sweeps and the paired controls, each run in a "
                   "separate process, one after another",
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "rounds": rounds, "rounds_above_10000_elements": rounds_for(10**6, rounds),
           "claims": {name: {"null": null, "direction": side} for name, (null, side) in TORCH_CLAIMS.items()},
           "exploratory": {name: {"null": null, "direction": side} for name, (null, side) in TORCH_EXPLORATORY.items()},
           "runs": []}
    for i in range(runs):
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        res = subprocess.run([sys.executable, __file__, "--replicate-child", "--rounds", str(rounds)],
                             capture_output=True, text=True, env=env, check=True)
        run = json.loads(res.stdout.strip().splitlines()[-1])
        if out["runs"]:      # the kernels' sources once, from the first run; their counts in every run
            for part in ["forward", "backward"]:
                run["inductor_kernels"].pop(f"{part}_kernel_source")
        out["runs"].append(run)
        print(f"  run {i + 1} of {runs}: {run['seconds']} s, load average at start "
              + ", ".join(f"{v:.2f}" for v in run["load_average_at_start"]), flush=True)
    return out


def inductor_code(sources):
    """What Inductor generated for the chain's step: kernels and buffers, forward and backward."""
    parts = []
    for src in sources:
        kernels = re.findall(r"^(cpp_fused_\w+) = async_compile\.cpp", src, re.M)
        if not kernels:
            kernels = re.findall(r"^(cpp_fused_\w+) = ", src, re.M)
        buffers = len(re.findall(r"\bempty_strided_cpu\(", src))
        call = src[src.find("def call("):] if "def call(" in src else ""
        call = call[:call.find("\n\n\n")] if "\n\n\n" in call else call
        m = re.search(r"^\s*(.*?)\s*=\s*args\s*$", call, re.M)
        inputs = [a.strip() for a in m.group(1).split(",") if a.strip()] if m else []
        parts.append({"kernels": kernels, "buffers_allocated": buffers, "inputs": inputs,
                      "wrapper_call": call})
    first_kernel = ""
    if sources:
        m = re.search(r"extern \"C\"[^{]*\{.*?\n\}\n", sources[0], re.S)
        first_kernel = m.group(0) if m else ""
    lines = first_kernel.splitlines()
    return {"graphs": parts, "forward_kernel_lines": len(lines),
            "forward_kernel_head": "\n".join(lines[:24])}


def min_cut_nop(torch, decompositions, patch):
    """A backend as ``aot_eager_decomp_partition`` builds it (PyTorch 2.13, ``torch/_dynamo/backends/debugging.py``):
    AOTAutograd, no-op compilers, the min-cut partitioner for Inductor; with Inductor's decompositions
    (``select_decomp_table``) or not, inside its configuration patch (``unlift_effect_tokens``) or not."""
    import functools

    from functorch.compile import min_cut_rematerialization_partition
    from torch._dynamo.backends.common import aot_autograd
    from torch._dynamo.backends.debugging import get_nop_func
    from torch._functorch import config as functorch_config
    from torch._inductor.compile_fx import select_decomp_table

    def backend(gm, fake_inputs):
        with functorch_config.patch({"unlift_effect_tokens": True} if patch else {}):
            return aot_autograd(fw_compiler=get_nop_func(), bw_compiler=get_nop_func(),
                                decompositions=select_decomp_table() if decompositions else {},
                                partition_fn=functools.partial(min_cut_rematerialization_partition, compiler="inductor"),
                                )(gm, fake_inputs)
    return backend


def record_saved(torch, n=1_000):
    """What the chain's step saves for the backward: eager against aot_eager, counted two ways."""
    x = torch.linspace(-1.0, 1.0, n).requires_grad_()

    def hooked(fn):
        # every tensor autograd packs for the backward during one step, as the hooks see it
        packed = []

        def pack(t):
            packed.append((t.numel() * t.element_size(), t.untyped_storage().data_ptr()))
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            chain_step(fn, x)()
        return {"count": len(packed), "bytes": sum(b for b, _ in packed),
                "storages": len({p for _, p in packed})}

    # aot_eager itself, handed spying forward and backward compilers (spied_aot_eager)
    _, graphs = spied_aot_eager(torch, chain, x)
    x.grad = None
    inputs = [node for node in graphs["backward"].graph.nodes if node.op == "placeholder"]
    saved = [node for node in inputs if not node.name.startswith("tangents")]   # the rest: gradients in
    torch._dynamo.reset()
    return {
        "elements": n,
        "eager_hooks": hooked(chain),
        "aot_eager_hooks": hooked(torch.compile(chain, backend="aot_eager", dynamic=False)),
        # Inductor's decompositions and partitioner settings with aot_eager's nop compilers: which of
        # the two makes Inductor's plan differ from aot_eager's
        "aot_eager_decomp_partition_hooks": hooked(torch.compile(chain, backend="aot_eager_decomp_partition",
                                                                 dynamic=False)),
        "inductor_hooks": hooked(torch.compile(chain, backend="inductor", dynamic=False)),
        # the two differences between aot_eager_decomp_partition and aot_eager's min-cut plan, one at a time:
        # Inductor's decompositions without the configuration patch, and the patch without them
        "decompositions_no_patch_hooks": hooked(torch.compile(chain, backend=min_cut_nop(torch, True, False), dynamic=False)),
        "patch_no_decompositions_hooks": hooked(torch.compile(chain, backend=min_cut_nop(torch, False, True), dynamic=False)),
        "aot_eager_backward_inputs": {
            "saved": [node.name for node in saved],
            "bytes": sum(node.meta["val"].numel() * node.meta["val"].element_size() for node in saved),
            "gradients_in": [node.name for node in inputs if node.name.startswith("tangents")],
            # the kernels its backward graph runs, counted by name (eager's backward: its nodes)
            "operations": dict(sorted(collections.Counter(
                str(node.target).split(".")[1] for node in graphs["backward"].graph.nodes
                if node.op == "call_function").items())),
        },
    }


def op_chain(k):
    """``k`` elementwise operations in a row, cycling through the chain's three (mul, add, tanh)."""
    def fn(x):
        y = x
        for i in range(k):
            y = y * 0.9 if i % 3 == 0 else (y + 0.1 if i % 3 == 1 else y.tanh())
        return y
    return fn


def aten_calls(gm):
    """The operations a graph module's generated Python code calls, one line each."""
    return sum(1 for node in gm.graph.nodes if node.op == "call_function")


def spied_aot_eager(torch, fn, *args):
    """Compile ``fn`` with aot_eager, keeping its forward and backward graph modules; run one step."""
    from torch._dynamo.backends.debugging import aot_eager, boxed_nop

    graphs = {}

    def spy(kind):
        def compiler(gm, example_inputs):
            graphs[kind] = gm
            return boxed_nop(gm, example_inputs)
        return compiler

    def spying(gm, example_inputs):
        return aot_eager(gm, example_inputs, fw_compiler=spy("forward"), bw_compiler=spy("backward"))

    torch._dynamo.reset()
    compiled = torch.compile(fn, backend=spying, dynamic=False)
    compiled(*args).sum().backward()
    return compiled, graphs


def bootstrap_fit(xs, diffs, resamples=2000, seed=0):
    """Least-squares ``extra = fixed + per_call * x`` on the medians of round-by-round differences,
    with 95% intervals from resampling the rounds (the same rounds for every chain: they were paired)."""
    import numpy

    diffs = numpy.asarray(diffs)                        # chains x rounds
    design = numpy.column_stack([numpy.ones(len(xs)), xs])

    def fit(d):
        return numpy.linalg.lstsq(design, numpy.median(d, axis=1), rcond=None)[0]

    rng = numpy.random.default_rng(seed)
    rounds = diffs.shape[1]
    boot = numpy.array([fit(diffs[:, rng.integers(0, rounds, rounds)]) for _ in range(resamples)])
    low, high = numpy.percentile(boot, [2.5, 97.5], axis=0)
    best = fit(diffs)
    return {"fixed_us": best[0] * 1e6, "per_call_us": best[1] * 1e6,
            "fixed_us_ci95": [low[0] * 1e6, high[0] * 1e6], "per_call_us_ci95": [low[1] * 1e6, high[1] * 1e6],
            "resamples": resamples}


def record_per_op(torch, measure, rounds, lengths=(5, 10, 20, 40), n=10):
    """aot_eager's extra time over eager against the aten calls its graphs make: fixed + per-call cost.

    The chains of ``lengths`` operations and the lesson's MLP step, all in the same interleaved rounds."""
    x = torch.linspace(-1.0, 1.0, n).requires_grad_()
    variants, calls, code = {}, {}, None
    for k in lengths:
        fn = op_chain(k)
        compiled, graphs = spied_aot_eager(torch, fn, x)
        x.grad = None
        calls[k] = {kind: aten_calls(gm) for kind, gm in graphs.items()}
        if code is None:
            code = {kind: gm.code.strip() for kind, gm in graphs.items()}
        variants[f"eager {k}"] = chain_step(fn, x)
        variants[f"aot_eager {k}"] = chain_step(compiled, x)
    mlp_loss, *args = mlp_problem(torch)
    mlp_compiled, mlp_graphs = spied_aot_eager(torch, mlp_loss, *args)

    def mlp_step(fn):
        def run():
            fn(*args).backward()
            for a in args:
                a.grad = None
        return run

    variants["eager mlp"], variants["aot_eager mlp"] = mlp_step(mlp_loss), mlp_step(mlp_compiled)
    # the same number of steps per timed call for every variant: the longest eager chain's half millisecond
    reps = repeats_for(variants[f"eager {lengths[-1]}"])
    t = measure({name: repeated(v, reps) for name, v in variants.items()}, rounds=rounds, warmup=3,
                clock=CLOCK)

    def extra(label):
        return [(a - e) / reps for a, e in zip(t.times[f"aot_eager {label}"], t.times[f"eager {label}"])]

    diffs = [extra(k) for k in lengths]
    xs = [calls[k]["forward"] + calls[k]["backward"] for k in lengths]
    rows = [{"operations": k, "aten_calls_forward_graph": calls[k]["forward"],
             "aten_calls_backward_graph": calls[k]["backward"],
             "eager_step_us": t.median(f"eager {k}") / reps * 1e6,
             "aot_eager_step_us": t.median(f"aot_eager {k}") / reps * 1e6,
             "extra_us": statistics.median(d) * 1e6} for k, d in zip(lengths, diffs)]
    torch._dynamo.reset()
    return {
        "what": "chains of k elementwise operations (mul 0.9, add 0.1, tanh in turn) at "
                f"{n} elements, the step (forward, sum, backward) eager against aot_eager, and the lesson's "
                "MLP step likewise, all interleaved in the same rounds; extra = aot_eager minus eager, round "
                "by round, its median; fitted against the aten calls of aot_eager's two graphs",
        "steps_per_timed_call": reps, "rounds": rounds, "rows": rows,
        "fit_extra_against_aten_calls": bootstrap_fit(xs, diffs),
        "generated_code_5_operations": code,
        # the loop the generated code unrolls, so that the lesson shows both without reading this script
        "op_chain_source": op_chain_source(),
        "mlp": {"aten_calls_forward_graph": aten_calls(mlp_graphs["forward"]),
                "aten_calls_backward_graph": aten_calls(mlp_graphs["backward"]),
                "eager_step_us": t.median("eager mlp") / reps * 1e6,
                "aot_eager_step_us": t.median("aot_eager mlp") / reps * 1e6,
                "extra_us": statistics.median(extra("mlp")) * 1e6},
    }


def chain_keeping(x):
    # the chain, holding each tanh result in a list as the tape holds it (the lesson's control)
    y, kept = x, []
    for _ in range(STEPS):
        y = (y * 0.9 + 0.1).tanh()
        kept.append(y)
    return y, kept


def timed_controls(torch, measure, rounds, sizes):
    """Recording, ``no_grad`` and ``no_grad`` keeping each ``tanh`` result (the twenty arrays the tape holds,
    with no tape) at each of ``sizes``, all in the same interleaved rounds, one timed call each per round,
    so that the sizes share every slow spell of the machine.  Library-agnostic (``torch`` is PyTorch or
    minigrad; minigrad's recorder uses it too).  Returns the ``Timings`` and the record: sizes, rounds,
    calls per timed call and each variant's time per pass, round by round (``per_pass_rounds_ms``)."""
    variants, reps = {}, {}
    for n in sizes:
        x = torch.linspace(-1.0, 1.0, n).requires_grad_()

        def recording(x=x):
            chain(x)

        def no_grad(x=x):
            with torch.no_grad():
                chain(x)

        def keeping(x=x):
            with torch.no_grad():
                chain_keeping(x)

        reps[n] = repeats_for(recording)
        for name, fn in [("recording", recording), ("no_grad", no_grad), ("no_grad keeping", keeping)]:
            variants[f"{name} {n}"] = repeated(fn, reps[n])
    t = measure(variants, rounds=rounds, warmup=3, clock=CLOCK)
    return t, {"sizes": list(sizes), "rounds": rounds, "calls_per_timed_call": {str(n): reps[n] for n in sizes},
               "per_pass_rounds_ms": {name: [v / reps[int(name.rsplit(" ", 1)[1])] * 1e3 for v in t.times[name]]
                                      for name in variants}}


def record_controls(torch, measure, rounds, sizes=(10, 1_000)):
    """The constant-c test and the keeping control in the same interleaved rounds (``timed_controls``), for
    the lesson's paired intervals; and the kernels Inductor generates for the chain's step at 10 elements
    (the lesson's "small tensors")."""
    from torch._inductor.utils import run_and_get_code

    operations = operations_recorded(chain(torch.ones(3, requires_grad=True)))
    t, timed = timed_controls(torch, measure, rounds, sizes)
    for n in sizes:
        print(f"  controls n = {n:>6,}: recording / no_grad {t.ratio(f'recording {n}', f'no_grad {n}').median:.3f},"
              f" keeping / no_grad {t.ratio(f'no_grad keeping {n}', f'no_grad {n}').median:.3f}", flush=True)
    torch._dynamo.reset()
    x10 = torch.linspace(-1.0, 1.0, 10).requires_grad_()
    _, sources = run_and_get_code(chain_step(torch.compile(chain, backend="inductor", dynamic=False), x10))
    kernels = [part["kernels"] for part in inductor_code(sources)["graphs"]]
    torch._dynamo.reset()
    return {"sizes": timed["sizes"], "operations": operations, "rounds": rounds,
            "calls_per_timed_call": timed["calls_per_timed_call"],
            "per_pass_rounds_ms": timed["per_pass_rounds_ms"],
            "inductor_kernels_at_10_elements": {"forward": kernels[0], "backward": kernels[1]}}


def record_forward_split(torch, measure, rounds, sizes=(100_000, 1_000_000)):
    """Where aot_eager's step differs from eager's at large sizes: the forward alone, beside the step."""
    rows = []
    for n in sizes:
        x = torch.linspace(-1.0, 1.0, n).requires_grad_()
        torch._dynamo.reset()
        compiled = torch.compile(chain, backend="aot_eager", dynamic=False)
        chain_step(compiled, x)()                       # the first call: captures and compiles

        def no_grad_forward():
            with torch.no_grad():
                chain(x)

        variants = {"eager step": chain_step(chain, x), "aot_eager step": chain_step(compiled, x),
                    "recording forward": lambda: chain(x), "no_grad forward": no_grad_forward,
                    "aot_eager forward": lambda: compiled(x)}
        t = measure(variants, rounds=rounds_for(n, rounds), warmup=3, clock=CLOCK)
        rows.append({"elements": n, **{k: summary(t, k) for k in variants},
                     "ratio": {"aot_eager step / eager step": ratio(t, "aot_eager step", "eager step"),
                               "aot_eager forward / recording forward": ratio(t, "aot_eager forward",
                                                                              "recording forward"),
                               "no_grad forward / recording forward": ratio(t, "no_grad forward",
                                                                            "recording forward"),
                               "aot_eager forward / no_grad forward": ratio(t, "aot_eager forward",
                                                                            "no_grad forward")}})
        print(f"  forward split n = {n:>9,}: " + ", ".join(f"{k} {v['median']:.3f}" for k, v in rows[-1]["ratio"].items()),
              flush=True)
    torch._dynamo.reset()
    return rows


def record_page_faults(torch, sizes=(100_000, 1_000_000), rounds=15, backends=("aot_eager",)):
    """Minor page faults per training step (``ru_minflt`` deltas of this process), eager against
    each of ``backends`` (``aot_eager``), at the large sizes: a fault is the kernel handing the process a fresh page, so a step whose
    allocator returns its arrays to the system and maps them anew faults about once per 4 KB it writes.
    Rounds interleaved, the order rotating, the first call and one warm-up step of each before them;
    per variant the median over the rounds, and the range."""
    page = resource.getpagesize()
    rows = []
    for n in sizes:
        x = torch.linspace(-1.0, 1.0, n).requires_grad_()
        torch._dynamo.reset()
        variants = {"eager step": chain_step(chain, x)}
        for backend in backends:
            variants[f"{backend} step"] = chain_step(torch.compile(chain, backend=backend, dynamic=False), x)
        for step in variants.values():
            step()                                      # the first call (aot_eager: captures and compiles)
            step()                                      # a warm-up step
        faults = {name: [] for name in variants}
        names = list(variants)
        for i in range(rounds):
            for name in names[i % len(names):] + names[:i % len(names)]:    # the order rotates round by round
                step = variants[name]
                before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
                step()
                faults[name].append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
        rows.append({"elements": n, "pages_per_array": n * 4 / page,
                     **{name: {"median": statistics.median(f), "range": [min(f), max(f)]}
                        for name, f in faults.items()}})
        print(f"  page faults per step n = {n:>9,}: " + ", ".join(
            f"{name} {rows[-1][name]['median']:.0f}" for name in variants), flush=True)
    torch._dynamo.reset()
    return {"rows": rows, "rounds": rounds, "page_bytes": page}


def guard_that_fails(compiled, *args):
    """The guard that fails before ``compiled(*args)`` (None if every guard holds), read from the
    RecompileError Dynamo raises instead of recompiling: the guard's own text, without the
    source-location comment and the user stack. Nothing is compiled."""
    import torch._dynamo as dynamo

    dynamo.config.error_on_recompile = True
    try:
        compiled(*args)
        return None
    except dynamo.exc.RecompileError as error:
        return re.search(r"- \d+/\d+: (.*?)\s+#", str(error)).group(1)
    finally:
        dynamo.config.error_on_recompile = False


def make_scaled(scale):
    """The lesson's `scaled`, reading a closed-over float, and a setter for that float."""
    def scaled(x, w):
        return (x * w).sum() * scale

    def set_scale(value):
        nonlocal scale
        scale = value
    return scaled, set_scale


def record_scale_guard(torch, x_big, w):
    """The guard that failed before each call of the lesson's `scaled` (None: every guard held), for
    scale = 2.0, 0.5, 0.5, 2.0, 3.0, in the words of Dynamo's RecompileError, cut only at the guard's
    source-location comment. The fifth call tells whether the second version is float-generic."""
    import torch._dynamo as dynamo

    scaled, set_scale = make_scaled(2.0)
    dynamo.reset()
    compiled = torch.compile(scaled, backend="aot_eager")
    failed = []
    for value in [2.0, 0.5, 0.5, 2.0, 3.0]:
        set_scale(value)
        reason = guard_that_fails(compiled, x_big, w)
        compiled(x_big, w)
        failed.append({"scale": value, "failed_guard": reason})
    dynamo.reset()
    return failed


def record_scale_versions(torch, x_big, w):
    """The versions Dynamo keeps for the lesson's `scaled` after the calls with scale = 2.0, 0.5, 0.5,
    2.0, 3.0, with ``torch._dynamo.config.automatic_dynamic_shapes`` on (the default) and off: the
    graphs made after each call, and for each version kept (in the cache's order, most recently
    used first) the lines of its guard tree that
    read ``L['scale']``, as Dynamo prints them (the source-location comments dropped). Tests the
    lesson's attribution of the fifth call's missing recompile to automatic dynamic."""
    import torch._dynamo as dynamo
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    out = {}
    default = dynamo.config.automatic_dynamic_shapes
    for automatic in [True, False]:
        dynamo.reset()
        dynamo.utils.counters.clear()
        dynamo.config.automatic_dynamic_shapes = automatic
        try:
            scaled, set_scale = make_scaled(2.0)
            compiled = torch.compile(scaled, backend="aot_eager")
            made = []
            for value in [2.0, 0.5, 0.5, 2.0, 3.0]:
                set_scale(value)
                compiled(x_big, w)
                made.append(dynamo.utils.counters["stats"]["unique_graphs"])
            versions = []
            for entry in _debug_get_cache_entry_list(scaled.__code__):   # the cache's order: most recently used first
                lines = [re.sub(r"\s+#\s.*$", "", line).strip() for line in str(entry.guard_manager).splitlines()]
                versions.append([line for line in lines if "L['scale']" in line and "GuardManager:" not in line])
        finally:
            dynamo.config.automatic_dynamic_shapes = default
        out[f"automatic_dynamic_shapes={automatic}"] = {"graphs_after_each_call": made,
                                                        "scale_guards_per_version": versions}
    dynamo.reset()
    return out


def record_print_runs(torch, x_big, w):
    """How many times a ``print`` between two tensor operations runs on each of three calls of the
    compiled function (the lesson's ``noisy``): Dynamo breaks the graph there and CPython runs it; and the
    graphs Dynamo makes of ``noisy`` on its first call, each as the list of its operations."""
    import contextlib
    import io

    import torch._dynamo as dynamo

    def noisy(x, w):
        z = (x * w).sum()
        print("print ran")
        return z * 2

    dynamo.reset()
    compiled = torch.compile(noisy, backend="aot_eager")
    ran = []
    for _ in range(3):
        with contextlib.redirect_stdout(io.StringIO()) as out:
            compiled(x_big, w)
        ran.append(out.getvalue().count("print ran"))
    dynamo.reset()
    graphs = []

    def counting(gm, example_inputs):        # the graphs Dynamo makes of noisy, each as its operations
        graphs.append([str(getattr(n.target, "__name__", n.target)) for n in gm.graph.nodes
                       if n.op in ("call_function", "call_method")])
        return gm.forward

    with contextlib.redirect_stdout(io.StringIO()):
        torch.compile(noisy, backend=counting)(x_big, w)
    dynamo.reset()
    return ran, graphs


# the lesson's global list read inside a compiled function (record_list_guard): its element changes
# between two calls while the list stays the same object
factors = [2.0]


def listed(x, w):
    return (x * w).sum() * factors[0]


def record_list_guard(torch, x_big, w):
    """The lesson's under-guarding case on Dynamo: ``listed`` reads ``factors[0]`` from a global list;
    compiled, called with 2.0, then with the element set to 3.0: the compiled and eager values of the
    second call, and the guard that failed before it, in the words of Dynamo's RecompileError."""
    import torch._dynamo as dynamo

    factors[0] = 2.0
    dynamo.reset()
    compiled = torch.compile(listed, backend="aot_eager")
    compiled(x_big, w)
    factors[0] = 3.0
    reason = guard_that_fails(compiled, x_big, w)
    out = {"element": factors[0], "compiled": compiled(x_big, w).item(), "eager": listed(x_big, w).item(),
           "failed_guard": reason}
    factors[0] = 2.0
    dynamo.reset()
    return out


def record_branches(torch):
    import torch._dynamo as dynamo

    def g(x, w):
        z = (x * w).sum()
        if z > 5:
            return z * z
        return z + 1

    x_big = torch.tensor([1.0, 2.0, 3.0])
    x_small = torch.tensor([0.1, 0.1, 0.1])
    w = torch.tensor([1.0, 1.0, 1.0], requires_grad=True)
    out = {}

    dynamo.reset()
    graphs = []

    def counting(gm, example_inputs):
        graphs.append([str(getattr(n.target, "__name__", n.target)) for n in gm.graph.nodes
                       if n.op in ("call_function", "call_method")])
        return gm.forward

    cg = torch.compile(g, backend=counting)
    after = []
    for label, xs in [("z = 6", x_big), ("z = 0.3", x_small), ("z = 6 again", x_big)]:
        value = cg(xs, w)
        after.append({"call": label, "graphs_so_far": len(graphs), "value": float(value)})
    out["graphs_after_each_call"] = after
    out["ops_per_graph"] = [list(ops) for ops in graphs]

    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    entries = _debug_get_cache_entry_list(g.__code__)
    tree = str(entries[0].guard_manager) if entries else ""
    # drop the source-location comments (they name this script's file and line numbers)
    tree = "\n".join(re.sub(r"\s+#\s.*$", "", line) for line in tree.splitlines() if line.strip())
    out["guard_tree_of_g"] = tree

    def first_line(e):
        return str(e).strip().splitlines()[0]

    try:
        torch.compile(g, backend="aot_eager", fullgraph=True)(x_big, w)
        out["fullgraph"] = {"raised": None}
    except Exception as e:  # noqa: BLE001 (recorded, whatever it is)
        out["fullgraph"] = {"raised": type(e).__name__, "first_line": first_line(e)}

    class G(torch.nn.Module):
        def forward(self, x, w):
            return g(x, w)

    for strict in [True, False]:
        try:
            torch.export.export(G(), (x_big, w), strict=strict)
            out[f"export_strict_{strict}"] = {"raised": None}
        except Exception as e:  # noqa: BLE001
            out[f"export_strict_{strict}"] = {"raised": type(e).__name__, "first_line": first_line(e)}

    def g_cond(x, w):
        z = (x * w).sum()
        return torch.cond(z > 5, lambda z: z * z, lambda z: z + 1, (z,))

    class GCond(torch.nn.Module):
        def forward(self, x, w):
            return g_cond(x, w)

    ep = torch.export.export(GCond(), (x_big, w))
    gm = ep.graph_module

    def tidy(code):
        return "\n".join(line.rstrip() for line in code.strip().splitlines() if line.strip())

    cond = {"exported_graph": tidy(gm.code),
            "branches": {name: tidy(sub.code) for name, sub in gm.named_children()}}
    dynamo.reset()
    graphs.clear()
    cc = torch.compile(g_cond, backend=counting, fullgraph=True)
    checks = []
    for label, xs in [("z = 6", x_big), ("z = 0.3", x_small)]:
        got = cc(xs, w)
        (grad_c,) = torch.autograd.grad(got, w)
        want = g(xs, w)
        (grad_e,) = torch.autograd.grad(want, w)
        checks.append({"call": label, "value": float(got), "eager_value": float(want),
                       "grad": grad_c.tolist(), "eager_grad": grad_e.tolist(),
                       "graphs_so_far": len(graphs)})
    cond["compiled_fullgraph_calls"] = checks
    cond["exported_module_on_z_0.3"] = float(ep.module()(x_small, w))
    out["cond"] = cond

    # Dynamo's own words: its explain of g (one call, z = 6), and the guard that failed when a Python
    # float read from the enclosing function changed (the lesson's `scaled`), as error_on_recompile
    # reports it instead of recompiling
    dynamo.reset()
    ex = dynamo.explain(g)(x_big, w)
    out["dynamo_explain_g"] = {"graph_count": ex.graph_count, "graph_break_count": ex.graph_break_count,
                               "op_count": ex.op_count,
                               "break_reasons": [br.reason for br in ex.break_reasons]}

    out["dynamo_scale_guard"] = record_scale_guard(torch, x_big, w)
    out["dynamo_list_guard"] = record_list_guard(torch, x_big, w)
    out["dynamo_scale_versions"] = record_scale_versions(torch, x_big, w)
    out["print_runs_per_call"], out["noisy_ops_per_graph"] = record_print_runs(torch, x_big, w)
    dynamo.reset()
    return out


def record_recompiles(torch):
    import torch._dynamo as dynamo
    from torch._dynamo.utils import counters

    def h(x):
        return (x * x).sum()

    out = {"recompile_limit": dynamo.config.recompile_limit}
    messages = []

    class Catch(logging.Handler):
        def emit(self, record):
            messages.append(record.getMessage())

    handler = Catch()
    logging.getLogger("torch._dynamo").addHandler(handler)
    try:
        for dynamic in [False, None]:
            dynamo.reset()
            counters.clear()
            compiled = torch.compile(h, backend="aot_eager", dynamic=dynamic)
            seq = []
            for n in range(2, 14):
                compiled(torch.ones(n))
                seq.append(counters["stats"]["unique_graphs"])
            out[f"graphs_after_sizes_2_to_13_dynamic_{dynamic}"] = seq
    finally:
        logging.getLogger("torch._dynamo").removeHandler(handler)
    limit = [m for m in messages if "recompile_limit" in m]
    out["limit_message_first_line"] = limit[0].splitlines()[0] if limit else None
    reasons = [line.strip() for line in (limit[0].splitlines() if limit else []) if "last reason" in line]
    out["limit_message_last_reason"] = reasons[0] if reasons else None
    # the global-state guard: the number of threads is part of it
    dynamo.reset()
    counters.clear()
    compiled = torch.compile(h, backend="aot_eager")
    threads = torch.get_num_threads()
    compiled(torch.ones(3))
    before = counters["stats"]["unique_graphs"]
    torch.set_num_threads(threads + 1)
    compiled(torch.ones(3))
    torch.set_num_threads(threads)
    out["graphs_before_and_after_set_num_threads"] = [before, counters["stats"]["unique_graphs"]]
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--quick", action="store_true", help="fewer rounds and sizes (a trial run)")
    ap.add_argument("--rounds", type=int, default=81,
                    help="rounds per timing up to 10,000 elements (3/8 of them above; default 81: "
                         "the machine is shared, and more rounds steady the medians)")
    ap.add_argument("--first-calls", type=int, default=5,
                    help="samples of each backend's first call, each in a fresh process (default 5)")
    ap.add_argument("--only", choices=["first_call", "saved_tensors", "forward_split", "per_op", "scale_guard", "page_faults", "repeat",
                                       "controls", "replicate", "mlp_direct", "sweep_faults"],
                    help="re-record this part alone into the existing --out file, leaving the rest")
    ap.add_argument("--keep-first-call", action="store_true",
                    help="re-record everything but the first calls, keeping those of the existing --out file")
    ap.add_argument("--runs", type=int, default=10,
                    help="separate processes of the replication (--only replicate; default 10)")
    ap.add_argument("--first-call-child", help=argparse.SUPPRESS)
    ap.add_argument("--replicate-child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--mlp-direct-child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--sweep-faults-child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.sweep_faults_child:
        part_child(record_sweep_faults, args.rounds)
        return 0
    if args.mlp_direct_child:
        part_child(record_mlp_direct, args.rounds)
        return 0
    if args.first_call_child:
        first_call_child(args.first_call_child)
        return 0
    if args.replicate_child:
        replicate_child(args.rounds)
        return 0
    out = pathlib.Path(args.out)
    if args.only == "first_call":
        data = json.loads(out.read_text(encoding="utf-8"))
        print("first calls, each in a fresh process with an empty Inductor cache ...", flush=True)
        data["first_call"] = record_first_calls(args.first_calls)
        out.write_text(dumps(data) + "\n", encoding="utf-8")
        print(f"wrote first_call into {out}")
        return 0
    if args.only == "scale_guard":
        import torch

        data = json.loads(out.read_text(encoding="utf-8"))
        x_big, w = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 1.0, 1.0], requires_grad=True)  # as record_branches
        data["branches"]["dynamo_scale_guard"] = record_scale_guard(torch, x_big, w)
        data["branches"]["dynamo_list_guard"] = record_list_guard(torch, x_big, w)
        data["branches"]["dynamo_scale_versions"] = record_scale_versions(torch, x_big, w)
        data["branches"]["print_runs_per_call"], data["branches"]["noisy_ops_per_graph"] = record_print_runs(
            torch, x_big, w)
        out.write_text(dumps(data) + "\n", encoding="utf-8")
        print(f"wrote branches.dynamo_scale_guard, dynamo_list_guard, dynamo_scale_versions, print_runs_per_call and noisy_ops_per_graph into {out}")
        return 0
    if args.only == "sweep_faults":
        store_child_runs(out, "sweep_faults", "--sweep-faults-child", args.runs, args.rounds,
                         stored_rounds=rounds_for(10**6, args.rounds))
        return 0
    if args.only == "mlp_direct":
        store_child_runs(out, "mlp_direct", "--mlp-direct-child", args.runs, args.rounds,
                         stored_rounds=2 * args.rounds + 1)
        return 0
    if args.only == "replicate":
        data = json.loads(out.read_text(encoding="utf-8"))
        data["replicate"] = record_replicate(args.runs, args.rounds)
        out.write_text(dumps(data) + "\n", encoding="utf-8")
        print(f"wrote replicate into {out}")
        return 0
    if args.only == "repeat":
        import torch

        from minigrad.timing import measure

        torch.set_num_threads(1)
        data = json.loads(out.read_text(encoding="utf-8"))
        data["repeat"] = record_repeat(torch, measure, args.rounds, SIZES)
        out.write_text(dumps(data) + "\n", encoding="utf-8")
        print(f"wrote repeat into {out}")
        return 0
    if args.only in ("saved_tensors", "forward_split", "per_op", "page_faults", "controls"):
        import torch

        from minigrad.timing import measure

        torch.set_num_threads(1)
        data = json.loads(out.read_text(encoding="utf-8"))
        load = list(os.getloadavg())
        part = ({**record_saved(torch), "at_1000000_elements": record_saved(torch, n=1_000_000)}
                if args.only == "saved_tensors"
                else record_per_op(torch, measure, args.rounds) if args.only == "per_op"
                else record_page_faults(torch) if args.only == "page_faults"
                else record_controls(torch, measure, args.rounds) if args.only == "controls"
                else {"rows": record_forward_split(torch, measure, args.rounds)})
        data[args.only] = {**part, "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                           "torch": torch.__version__, "load_average_at_start": load}
        out.write_text(dumps(data) + "\n", encoding="utf-8")
        print(f"wrote {args.only} into {out}")
        return 0

    import numpy
    import torch

    from minigrad.timing import measure

    torch.set_num_threads(1)               # as the lesson: the timings measure work, not the scheduler
    rounds = 5 if args.quick else args.rounds
    sizes = [10, 1_000, 10_000, 100_000] if args.quick else SIZES
    started = datetime.datetime.now(datetime.timezone.utc)
    data = {
        "recorded": {
            "date": started.strftime("%Y-%m-%d %H:%M UTC"),
            "by": "tests/tools/record_torch_timings.py (make record-torch-timings)",
            "machine": machine(),
            "versions": {"python": platform.python_version(), "torch": torch.__version__,
                         "numpy": numpy.__version__},
            "threads": torch.get_num_threads(),
            "rounds": rounds,
            "rounds_above_10000_elements": rounds_for(10**6, rounds),
            "clock": "time.process_time (the recording process's CPU time; first calls: both clocks)",
            "method": "minigrad.timing.measure: variants interleaved round by round in a rotating "
                      "order, 3 warm-up rounds dropped, the collector off; medians with "
                      "interquartile ranges, ratios round by round",
        },
        "chain": f"{STEPS} steps of y = tanh(0.9 y + 0.1)",
    }
    print("branches, guards, cond, export ...", flush=True)
    data["branches"] = record_branches(torch)
    print("recompiles ...", flush=True)
    data["recompiles"] = record_recompiles(torch)
    if args.keep_first_call:
        data["first_call"] = json.loads(out.read_text(encoding="utf-8"))["first_call"]
    else:
        print("first calls, each in a fresh process with an empty Inductor cache ...", flush=True)
        data["first_call"] = record_first_calls(3 if args.quick else args.first_calls)
    print("saved tensors ...", flush=True)
    data["saved_tensors"] = record_saved(torch)
    data["saved_tensors"]["at_1000000_elements"] = record_saved(torch, n=1_000_000)
    print("forward split ...", flush=True)
    data["forward_split"] = {"rows": record_forward_split(torch, measure, rounds),
                             "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                             "load_average_at_start": list(os.getloadavg())}
    print("page faults per step ...", flush=True)
    data["page_faults"] = {**record_page_faults(torch),
                           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}
    print("the constant-c test and the keeping control, 10 and 1,000 elements in the same rounds ...", flush=True)
    data["controls"] = {**record_controls(torch, measure, rounds),
                        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                        "load_average_at_start": list(os.getloadavg())}
    print("aot_eager's extra time against the number of operations ...", flush=True)
    data["per_op"] = record_per_op(torch, measure, rounds)
    print("MLP step ...", flush=True)
    data["mlp_step"] = record_mlp(torch, measure, rounds)
    print("size sweeps ...", flush=True)
    data["recording_sweep"], data["compile_sweep"], data["inductor_code"] = record_sweeps(
        torch, measure, rounds, sizes)
    print("the second recording of the MLP step and the sweeps ...", flush=True)
    data["repeat"] = record_repeat(torch, measure, rounds, sizes)
    data["recorded"]["seconds_taken"] = round((datetime.datetime.now(datetime.timezone.utc)
                                               - started).total_seconds())
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(dumps(data) + "\n", encoding="utf-8")
    print(f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
