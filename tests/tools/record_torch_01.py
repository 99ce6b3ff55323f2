"""Record PyTorch's side of researcher lesson 1 into notebooks/researcher/data/torch_01.json.

Run with the Python of .venv-torch (PyTorch 2.13 CPU), from the repository root:

    PYTHONPATH=. .venv-torch/bin/python tests/tools/record_torch_01.py

The lesson runs on PyTorch in ``make test-torch``, but there its timing outputs are
not compared and nobody reads them; what the lesson says about PyTorch it prints from
this file.  Two things, made as the lesson makes them (same functions, sizes,
repetitions, rounds and order; the lesson's cells are the reference):

* section 2: the nodes the walk over the recorded tangent runs (``transpose_walk_nodes``);
* section 7: H u by forward over reverse over a gradient, at n = 16 to 65,536, and, at the
  two largest sizes, the gradient's growth and the ratio's growth, each taken round by round;
  in the same rounds (the lesson's sweep has no such variant), H u by ``torch.func.jvp`` over
  ``torch.func.grad`` (PyTorch's own forward over reverse, which minigrad does not have) over the
  gradient (``func_H_u_over_gradient``), checked equal to the lesson's H u; and each variant's
  median time per call (``median_per_call_s``) and, round by round, the lesson's bounds on the fixed
  costs (``fixed_shift``); every per-round summary with its median's 95% bootstrap interval (``ci95``);
* section 7: the matrix products PyTorch's kernels run with A, at n = 16, for f, the gradient and
  H u by forward over reverse (``products_with_A``), counted as the lesson counts minigrad's;
* section 7: every matrix product of the same three, by operand (``products_by_operand``): with A,
  with another operand of A's shape or its transpose's (a tangent of A materialised), or other, counted
  at n = 16; and at n = 65,536 the CPU time each kind's kernels take in one call (median of 5 calls),
  under the same ``mallopt`` settings as the sweep;
* section 7, two suspects for PyTorch's ratio, each timed as the sweep is: H u by forward over reverse
  without ``create_graph=True`` over the gradient, in the sweep's rounds (``no_create_graph_H_u_over_gradient``),
  checked equal to the lesson's H u; and one ``mv`` on the zero 64 x n operand (strides (0, 0)), and on its
  transpose, over the same ``mv`` with A at n = 65,536 (``mv_zero_operand``);
* section 7: whether, without ``create_graph=True``, the gradient still carries a tangent, and if so
  whether it equals H u (``tangent_without_create_graph``), on the lesson's ``f_curved``, x0 and u;
* section 7: where those other operands come from: in dispatch order, at n = 16, every op of H u by
  forward over reverse that makes a zero tensor, and every matrix product with its matrix operand
  (``zeros_tangent_trace``).
* section 7: the rest of PyTorch's ratio, op by op: ``torch.profiler``'s self CPU time of each aten op in
  one call of the gradient and of H u by forward over reverse at n = 65,536, and its calls per call,
  round by round (one call of each per round, in alternating order, after warm-up), medians over the
  rounds (``op_profile``), under the same ``mallopt`` settings as the sweep.

Stored with the machine, the versions and the date.  ``--only FIELD`` records that one field
again into the stored file, leaving the others (and their date) as they are, and notes the field's
date under ``recorded.re_recorded``.
"""

import argparse
import datetime
import json
import ctypes
import os
import pathlib
import platform
import statistics
import time

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from minigrad import timing
from minigrad.exercises.researcher_01 import products_by_operand, products_with

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "notebooks" / "researcher" / "data" / "torch_01.json"
SIZES = [16, 1024, 16384, 65536]
REPS = {16: 32, 1024: 24, 16384: 8, 65536: 2}
PAIR = (16384, 65536)   # the two sizes the constancy check compares
f64 = torch.float64
fwAD = torch.autograd.forward_ad


def f_scalar(x, A):
    return torch.tanh(A @ x).sum()


def inputs(m, n):
    A = torch.sin(torch.arange(1.0, m * n + 1.0, dtype=f64)).reshape(m, n) / n ** 0.5
    return torch.cos(torch.arange(n, dtype=f64)), A


def gradient(f, x):
    x = x.detach().requires_grad_()
    return torch.autograd.grad(f(x), x)[0]


def hvp_forward_over_reverse(f, x, u):
    with fwAD.dual_level():
        x = fwAD.make_dual(x.detach().requires_grad_(), u)
        (g,) = torch.autograd.grad(f(x), x, create_graph=True)
        return fwAD.unpack_dual(g).tangent.detach()


def hvp_no_create_graph(f, x, u):
    # the same walk not recorded: PyTorch's forward mode carries the tangent through it anyway
    with fwAD.dual_level():
        x = fwAD.make_dual(x.detach().requires_grad_(), u)
        (g,) = torch.autograd.grad(f(x), x)
        return fwAD.unpack_dual(g).tangent.detach()


def hvp_func(f, x, u):
    # torch.func's forward over reverse: the JVP, along u, of the function x -> grad f(x)
    return torch.func.jvp(torch.func.grad(f), (x,), (u,))[1]


def summary(values):
    # the median of per-round values, their interquartile range, and the median's 95% bootstrap
    # interval (the rounds resampled 2,000 times), which the lesson's checks test
    q, ci = statistics.quantiles(values, n=4, method="inclusive"), timing.median_ratio_ci(values, [1.0])
    return {"median": statistics.median(values), "iqr": [q[0], q[2]], "ci95": [ci.low, ci.high]}


def transpose_walk_nodes():
    # section 2's cells: the tangent of tanh(A x) along u, recorded, walked back with respect to u
    x0 = torch.linspace(-1.0, 1.5, 5, dtype=f64)
    A = torch.sin(torch.arange(1.0, 16.0, dtype=f64)).reshape(3, 5)
    u = torch.zeros(5, dtype=f64, requires_grad=True)
    with fwAD.dual_level():
        Ju = fwAD.unpack_dual(torch.tanh(A @ fwAD.make_dual(x0, u))).tangent
    todo, seen = [Ju.grad_fn], []
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.append(node)
            todo += [nxt for nxt, _ in node.next_functions]
    ran = []
    for node in seen:
        node.register_prehook(lambda grads, node=node: ran.append(node.name()))
    torch.autograd.grad(Ju, u, torch.cos(torch.arange(3, dtype=f64)))
    return ran


def hvp_sweep():
    jobs = {}
    for n in SIZES:
        x, A = inputs(64, n)
        u = torch.sin(torch.arange(n, dtype=f64))
        f = lambda x, A=A: f_scalar(x, A)
        jobs[f"gradient, n = {n}"] = (lambda f=f, x=x: gradient(f, x), REPS[n])
        jobs[f"H u, n = {n}"] = (lambda f=f, x=x, u=u: hvp_forward_over_reverse(f, x, u), REPS[n])
        jobs[f"H u by torch.func, n = {n}"] = (lambda f=f, x=x, u=u: hvp_func(f, x, u), REPS[n])
        jobs[f"H u without create_graph, n = {n}"] = (lambda f=f, x=x, u=u: hvp_no_create_graph(f, x, u), REPS[n])

    def repeat(fn, k):
        def run():
            for _ in range(k):
                fn()
        return run

    t = timing.measure({name: repeat(fn, k) for name, (fn, k) in jobs.items()},
                       rounds=21, warmup=5, clock=time.process_time, order="shuffle")
    per_round = {n: [a / b for a, b in zip(t.times[f"H u, n = {n}"], t.times[f"gradient, n = {n}"])] for n in SIZES}
    ratio = {str(n): summary(per_round[n]) for n in SIZES}
    func_ratio = {str(n): summary([a / b for a, b in zip(t.times[f"H u by torch.func, n = {n}"],
                                                          t.times[f"gradient, n = {n}"])]) for n in SIZES}
    no_graph = {str(n): summary([a / b for a, b in zip(t.times[f"H u without create_graph, n = {n}"],
                                                        t.times[f"gradient, n = {n}"])]) for n in SIZES}
    x, A = inputs(64, 64)
    u = torch.sin(torch.arange(64, dtype=f64))
    f = lambda x: f_scalar(x, A)
    same = torch.allclose(hvp_func(f, x, u), hvp_forward_over_reverse(f, x, u), rtol=1e-12, atol=1e-14)
    same_no_graph = torch.allclose(hvp_no_create_graph(f, x, u), hvp_forward_over_reverse(f, x, u),
                                   rtol=1e-12, atol=1e-14)
    return {"sizes": SIZES, "reps": {str(n): k for n, k in REPS.items()}, "rounds": 21,
            "H_u_over_gradient": ratio,
            "func_H_u_over_gradient": func_ratio,
            "func_equals_forward_over_reverse": same,
            # suspect (a): create_graph=True, which PyTorch's forward mode does not need
            "no_create_graph_H_u_over_gradient": no_graph,
            "no_create_graph_equals_forward_over_reverse": same_no_graph,
            "median_per_call_s": {name: statistics.median(t.times[name]) / jobs[name][1] for name in jobs},
            "pair": list(PAIR),
            "gradient_growth_pair": summary([(a / REPS[PAIR[1]]) / (b / REPS[PAIR[0]]) for a, b in zip(
                t.times[f"gradient, n = {PAIR[1]}"], t.times[f"gradient, n = {PAIR[0]}"])]),   # per call
            "ratio_growth_pair": summary([a / b for a, b in zip(per_round[PAIR[1]], per_round[PAIR[0]])]),
            # the lesson's bounds on the fixed parts' shift of the ratio at n = 65,536, round by round
            "fixed_shift": {"low": summary([-2 * (a / REPS[16]) / (b / REPS[PAIR[1]]) for a, b in zip(
                                t.times["gradient, n = 16"], t.times[f"gradient, n = {PAIR[1]}"])]),
                            "high": summary([(a / REPS[16]) / (b / REPS[PAIR[1]]) for a, b in zip(
                                t.times["H u, n = 16"], t.times[f"gradient, n = {PAIR[1]}"])])}}


def mv_zero_operand():
    # suspect (b): one mv on the zero tangent H u's walk makes (a 64 x n zero expanded, strides (0, 0)),
    # and on its transpose, against the same mv with A, at n = 65,536, interleaved, round by round
    n = PAIR[1]
    x, A = inputs(64, n)
    Z = torch.zeros((), dtype=f64).expand(64, n)
    y = torch.cos(torch.arange(64, dtype=f64))
    jobs = {"mv(A, x)": lambda: torch.mv(A, x), "mv(zero, x)": lambda: torch.mv(Z, x),
            "mv(A^T, y)": lambda: torch.mv(A.t(), y), "mv(zero^T, y)": lambda: torch.mv(Z.t(), y)}
    k = 8
    t = timing.measure({name: (lambda fn=fn: [fn() for _ in range(k)]) for name, fn in jobs.items()},
                       rounds=21, warmup=5, clock=time.process_time, order="shuffle")
    ratio = lambda a, b: summary([p / q for p, q in zip(t.times[a], t.times[b])])
    return {"n": n, "zero_strides": list(Z.stride()), "reps": k,
            "median_per_call_s": {name: statistics.median(t.times[name]) / k for name in jobs},
            "zero_over_A": ratio("mv(zero, x)", "mv(A, x)"),
            "zero_T_over_A_T": ratio("mv(zero^T, y)", "mv(A^T, y)")}


def products_with_A():
    # section 7's count of sweeps over A, on PyTorch's product kernels (the lesson's cell, on PyTorch)
    x, A = inputs(64, 16)
    u = torch.sin(torch.arange(16, dtype=f64))
    f = lambda x: f_scalar(x, A)
    return {"f": products_with(A, lambda: f(x)), "gradient": products_with(A, lambda: gradient(f, x)),
            "H_u_forward_over_reverse": products_with(A, lambda: hvp_forward_over_reverse(f, x, u))}


def by_operand():
    # section 7's hypothesis for PyTorch's ratio: products with a 64 x n operand that is not A
    def three(n):
        x, A = inputs(64, n)
        u = torch.sin(torch.arange(n, dtype=f64))
        f = lambda x: f_scalar(x, A)
        return A, {"f": lambda: f(x), "gradient": lambda: gradient(f, x),
                   "H_u_forward_over_reverse": lambda: hvp_forward_over_reverse(f, x, u)}

    A, jobs = three(16)
    counts = {name: products_by_operand(A, fn) for name, fn in jobs.items()}
    A, jobs = three(PAIR[1])
    seconds = {}
    for name in ("gradient", "H_u_forward_over_reverse"):
        calls = [products_by_operand(A, jobs[name], clock=time.process_time)["seconds"] for _ in range(6)][1:]
        seconds[name] = {kind: statistics.median(c[kind] for c in calls) for kind in calls[0]}
    return {"n_counted": 16, "counts": counts, "n_timed": PAIR[1], "seconds_per_call": seconds}


def tangent_without_create_graph():
    # section 7's cell on PyTorch: the gradient of f_curved at x0, walked without create_graph=True
    # with x dual along u; is its tangent there, and is it H u?
    x0 = torch.linspace(-1.0, 1.5, 5, dtype=f64)
    A = torch.sin(torch.arange(1.0, 16.0, dtype=f64)).reshape(3, 5)
    u = torch.sin(1.3 * torch.arange(1.0, 6.0, dtype=f64))
    f_curved = lambda x: (torch.tanh(A @ x) ** 2).sum() + (x ** 4).sum() / 4
    Hu = hvp_forward_over_reverse(f_curved, x0, u)
    with fwAD.dual_level():
        x_d = fwAD.make_dual(x0.detach().requires_grad_(), u)
        tangent = fwAD.unpack_dual(torch.autograd.grad(f_curved(x_d), x_d)[0]).tangent
    return {"carried": tangent is not None,
            "equal_to_H_u": None if tangent is None else torch.allclose(tangent, Hu, rtol=1e-12, atol=0)}


def zeros_tangent_trace():
    # section 7: where H u by forward over reverse gets its products on another 64 x n operand, at
    # n = 16: in dispatch order, every op that makes a zero tensor and every matrix product, with
    # the product's matrix operand (A or a view of it; or another, with its shape and strides)
    x, A = inputs(64, 16)
    u = torch.sin(torch.arange(16, dtype=f64))
    aten, storage, trace = torch.ops.aten, A.untyped_storage().data_ptr(), []
    makers = {aten._efficientzerotensor.default, aten.zeros.default, aten.zeros_like.default}
    products = {aten.mv.default, aten.mm.default, aten.addmv.default, aten.addmm.default}
    shape = lambda t: " x ".join(map(str, t.shape))

    class Trace(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            name = func.overloadpacket.__name__
            if func in makers:
                trace.append(f"{name}({shape(out)})")
            elif func in products:
                m = next(a for a in args if isinstance(a, torch.Tensor) and a.dim() == 2)
                trace.append(f"{name}(A)" if m.untyped_storage().data_ptr() == storage
                             else f"{name}(other {shape(m)}, strides {m.stride()})")
            return out

    with Trace():
        hvp_forward_over_reverse(lambda x: f_scalar(x, A), x, u)
    return trace


def op_profile(rounds=9, warmup=2):
    # section 7: where H u's time goes, op by op, at n = 65,536, against the gradient's: each round profiles
    # one call of each (the order alternating), and each op's self CPU time and calls are kept per round
    n = PAIR[1]
    x, A = inputs(64, n)
    u = torch.sin(torch.arange(n, dtype=f64))
    f = lambda x: f_scalar(x, A)
    jobs = {"gradient": lambda: gradient(f, x), "H_u_forward_over_reverse": lambda: hvp_forward_over_reverse(f, x, u)}
    kept = {name: [] for name in jobs}
    activities = [torch.profiler.ProfilerActivity.CPU]
    for r in range(warmup + rounds):
        for name in (list(jobs) if r % 2 else list(jobs)[::-1]):
            with torch.profiler.profile(activities=activities) as prof:
                jobs[name]()
            if r >= warmup:
                kept[name].append({e.key: (e.self_cpu_time_total, e.count) for e in prof.key_averages()})
    out = {"n": n, "rounds": rounds, "unit": "microseconds of self CPU time per call"}
    for name, per_round in kept.items():
        ops = sorted({op for rec in per_round for op in rec})
        out[name] = {op: {"self_cpu_us": statistics.median(rec.get(op, (0.0, 0))[0] for rec in per_round),
                          "calls": statistics.median(rec.get(op, (0.0, 0))[1] for rec in per_round)} for op in ops}
        out[name + "_total_us"] = statistics.median(sum(t for t, _ in rec.values()) for rec in per_round)
    return out


ONLY = {"tangent_without_create_graph": tangent_without_create_graph,
        "op_profile": op_profile}   # fields --only can re-record


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=sorted(ONLY), help="re-record this field alone into the stored file")
    args = parser.parse_args()
    torch.set_num_threads(1)
    out = pathlib.Path(os.environ.get("RECORD_TORCH_01_OUT", OUT))   # a temporary copy, for a test run
    # As the lesson's section 5 does (glibc only): no block is served by mmap (M_MMAP_MAX = 0) and the
    # heap is not trimmed (M_TRIM_THRESHOLD), so freed memory stays in the process.  Raising the mmap
    # threshold instead cannot work: glibc maps every request at or above it, refuses thresholds above
    # 32 MB on 64-bit, and section 7's A is exactly 32 MB at n = 65,536.
    try:
        libc = ctypes.CDLL(None)
        heap_only = libc.mallopt(-4, 0) == 1 and libc.mallopt(-1, 1 << 30) == 1
    except (OSError, AttributeError):
        heap_only = False
    if not heap_only:
        print("warning: glibc's mallopt refused or is absent; large blocks may be mmapped")
    if args.only:
        data = json.loads(out.read_text(encoding="utf-8"))
        data[args.only] = ONLY[args.only]()
        data["recorded"].setdefault("re_recorded", {})[args.only] = {
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "torch": torch.__version__}
        out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(args.only, json.dumps(data[args.only]))
        return
    data = {"recorded": {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                         "by": "tests/tools/record_torch_01.py",
                         "machine": {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
                                     "system": platform.platform(), "load_average_at_start": list(os.getloadavg())},
                         "freed_memory_kept_by_mallopt": heap_only,
                         "versions": {"python": platform.python_version(), "torch": torch.__version__}},
            "transpose_walk_nodes": transpose_walk_nodes(),
            "products_with_A": products_with_A(),
            "products_by_operand": by_operand(),
            "zeros_tangent_trace": zeros_tangent_trace(),
            "tangent_without_create_graph": tangent_without_create_graph(),
            "mv_zero_operand": mv_zero_operand(),
            "hvp_sweep": hvp_sweep(),
            "op_profile": op_profile()}
    out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print("load average at start:", data["recorded"]["machine"]["load_average_at_start"])
    print(json.dumps(data["hvp_sweep"], indent=1), data["transpose_walk_nodes"], data["products_by_operand"])
    print(json.dumps(data["mv_zero_operand"], indent=1))


if __name__ == "__main__":
    main()
