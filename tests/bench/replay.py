"""Compiled regions against eager execution, and what compiling costs.

Usage: python tests/bench/replay.py [--quick]   (``make bench`` runs it after run.py's benchmarks;
run it with a Python that has torch for the PyTorch columns)

Three workloads, each forward + backward:

* the 0-d chain: ``y = y * 1.0001`` 200 times on a scalar, then ``backward``:
  all overhead, no arithmetic to speak of;
* the 2-16-16-1 MLP step: ``tanh(x W1 + b1)``, ``tanh(h W2 + b2)``,
  ``h W3 + b3``, mean squared error on a batch of 32, then ``backward``;
* a wide elementwise chain: ``y = tanh(0.9 y + 0.1)`` 20 times on 256 x 256.

Variants, timed in the same run with ``minigrad.timing.measure`` (interleaved
rounds, rotating order, collector off; medians of per-round ratios): eager
minigrad; ``minigrad.compile`` with ``backend="aot_eager"`` (each step still
calls its primitive) and ``backend="numpy"`` (each region written out as numpy
source, ``minigrad/jit/codegen_numpy.py``); numpy by hand (the forward and the
gradient written directly, no recording at all); and, when torch imports,
PyTorch eager, ``torch.compile(backend="aot_eager")`` and, where a C++ compiler
is on PATH (the one inductor's CPU backend uses: ``$CXX``, else ``g++``),
``torch.compile(backend="inductor")`` on the same values.  Inductor fuses each
graph's operations into generated C++ loops and plans its buffers; it is
skipped, saying why, without a compiler, and a program it fails on prints the
error's first line and goes on without it.  For information, compiled minigrad
(numpy, aot_eager) over inductor, round by round.

The first call of a compiled function (record, compile, run) is reported, and
"pays off after" is how many calls it takes for the time saved against eager
(minigrad's for minigrad, PyTorch's for torch.compile) to cover it.  Each
torch.compile first call is cold: Dynamo reset (``torch._dynamo.reset()``),
inductor's in-memory caches cleared, ``TORCHINDUCTOR_CACHE_DIR`` a fresh empty
directory (removed at the end); torch.compile's one-time start in the process
(imports; inductor's compile workers and CPU check) is timed apart, on a
one-line function, before the first program.  Gradients are checked equal to
eager ones, exactly, for both minigrad backends, before anything is timed;
inductor's are compared with PyTorch eager's (within 1e-4, printed: its fused
loops round differently).
"""

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import minigrad  # noqa: E402
from minigrad import timing  # noqa: E402

# Issue 28's targets: compiled numpy / a baseline, at most (run.py's summary table lists them,
# reading main()'s ratios; this file prints them too when run alone).
TARGETS = {
    "0-d chain of 200 multiplies": (("eager minigrad", 0.25), ("PyTorch eager", 0.2),
                                    ("numpy by hand", 3.0)),
    "2-16-16-1 MLP step, batch 32": (("eager minigrad", 0.25), ("PyTorch eager", 0.5)),
}

try:
    import torch
except ImportError:  # (the PyTorch columns are left out)
    torch = None
else:
    torch.set_num_threads(1)  # as run.py: one thread, as minigrad and numpy here

INDUCTOR_DOES = ("inductor fuses each graph's operations into generated C++ loops (no"
                 " intermediate arrays, buffers reused by a memory plan); minigrad's numpy backend"
                 " calls one numpy kernel per operation, each allocating its result")


def inductor_compiler():
    """``(compiler path, None)`` for inductor's C++ compiler, or ``(None, why not)``.

    The compilers inductor's CPU backend searches (``torch._inductor.config.cpp.cxx``:
    ``$CXX``, else ``g++``), as ``shutil.which`` finds them.
    """
    if torch is None:
        return None, "torch is not importable here"
    from torch._inductor import config
    names = config.cpp.cxx if isinstance(config.cpp.cxx, (list, tuple)) else (config.cpp.cxx,)
    names = [n for n in names if n]
    for n in names:
        found = shutil.which(n)
        if found:
            return found, None
    return None, f"no C++ compiler on PATH (inductor looks for {', '.join(names) or 'CXX'})"


class _ColdInductor:
    """Each torch.compile first call cold: Dynamo reset, inductor's in-memory caches cleared,
    and ``TORCHINDUCTOR_CACHE_DIR`` a fresh, empty directory (removed by ``close``)."""

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="minigrad-bench-inductor-")
        self.before = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
        self.n = 0

    def reset(self):
        import torch._dynamo
        torch._dynamo.reset()
        from torch._inductor import utils
        utils.clear_inductor_caches()
        self.n += 1
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(self.root, str(self.n))

    def close(self):
        if self.before is None:
            os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)
        else:
            os.environ["TORCHINDUCTOR_CACHE_DIR"] = self.before
        shutil.rmtree(self.root, ignore_errors=True)


def chain(x):
    y = x
    for _ in range(200):
        y = y * 1.0001
    return y


def chain_by_hand(x):
    ys = [x]
    c = np.float32(1.0001)
    for _ in range(200):
        ys.append(ys[-1] * c)
    g = np.float32(1.0)
    for _ in range(200):
        g = g * c
    return g


def mlp(x, w1, b1, w2, b2, w3, b3, t):
    h = (x @ w1 + b1).tanh()
    h = (h @ w2 + b2).tanh()
    out = h @ w3 + b3
    return ((out - t) ** 2).mean()


def mlp_by_hand(x, w1, b1, w2, b2, w3, b3, t):
    h1 = np.tanh(x @ w1 + b1)
    h2 = np.tanh(h1 @ w2 + b2)
    d = h2 @ w3 + b3 - t
    gd = 2 * d / d.size
    gh2 = (gd @ w3.T) * (1 - h2 * h2)
    gh1 = (gh2 @ w2.T) * (1 - h1 * h1)
    return (x.T @ gh1, gh1.sum(0), h1.T @ gh2, gh2.sum(0), h2.T @ gd, gd.sum(0))


def wide(x):
    y = x
    for _ in range(20):
        y = (y * 0.9 + 0.1).tanh()
    return y.sum()


def wide_by_hand(x):
    ys = [x]
    for _ in range(20):
        ys.append(np.tanh(ys[-1] * np.float32(0.9) + np.float32(0.1)))
    g = np.ones_like(x)
    for y in reversed(ys[1:]):
        g = g * (1 - y * y) * np.float32(0.9)
    return g


def mlp_inputs():
    rng = np.random.default_rng(0)
    shapes = [(2, 16), (16,), (16, 16), (16,), (16, 1), (1,)]
    params = [minigrad.tensor((rng.standard_normal(s) * 0.5).astype(np.float32), requires_grad=True)
              for s in shapes]
    x = minigrad.tensor(rng.standard_normal((32, 2)).astype(np.float32))
    t = minigrad.tensor(rng.standard_normal((32, 1)).astype(np.float32))
    return x, params, t


def step_fn(fn, args, leaves):
    def step():
        for p in leaves:
            p.grad = None
        fn(*args).backward()
    return step


def _torch_twin(args):
    """The same values as PyTorch tensors (leaves where minigrad's require grad)."""
    return [torch.tensor(a._data.copy(), requires_grad=a.requires_grad) for a in args]


def _first_call(make_compiled, args, leaves):
    t0 = time.perf_counter()
    compiled = make_compiled()
    step = step_fn(compiled, args, leaves)
    step()
    return compiled, step, time.perf_counter() - t0


def _first_line(e):
    lines = str(e).strip().splitlines()
    return f"{type(e).__name__}: {lines[0] if lines else ''}"


def startup(cold, inductor):
    """Time torch.compile's one-time start in this process (imports; for inductor also its
    compile workers and CPU check) on a one-line function, so that no program's first call
    carries it.  Returns ``{backend: seconds}``; prints them."""
    x = torch.ones(4, requires_grad=True)
    took = {}
    for backend in ("aot_eager",) + (("inductor",) if inductor else ()):
        cold.reset()
        t0 = time.perf_counter()
        try:
            torch.compile(lambda t: (t * 2).sum(), backend=backend)(x).backward()
        except Exception as e:  # (reported; measure() tries again, program by program)
            print(f"  torch.compile {backend} start-up failed: {_first_line(e)}")
            continue
        took[backend] = time.perf_counter() - t0
    print("  torch.compile's one-time start in this process, on a one-line function (not in the"
          " first calls below): "
          + (", ".join(f"{b} {s:.2f} s" for b, s in took.items()) or "none ran"))
    return took


def measure(name, fn, args, leaves, by_hand, number, rounds, cold=None, inductor=False):
    eager_step = step_fn(fn, args, leaves)
    eager_step()
    eager_grads = [p.grad._data.copy() for p in leaves]
    variants = {"eager minigrad": eager_step}
    first = {}
    regions = {}
    notes = []
    for backend in ("aot_eager", "numpy"):
        compiled, step, first[backend] = _first_call(
            lambda: minigrad.compile(fn, backend=backend), args, leaves)
        for _ in range(3):  # the first calls compile (and, for aot_eager, trace the backward)
            if not all(np.array_equal(g, p.grad._data) for g, p in zip(eager_grads, leaves)):
                raise SystemExit(f"{name}: {backend} gradients differ from eager ones")
            step()
        variants[f"compiled {backend}"] = step
        regions[backend] = compiled._minigrad_compiled.graphs
    hand_args = [a._data for a in args]
    variants["numpy by hand"] = lambda: by_hand(*hand_args)
    if torch is not None:
        targs = _torch_twin(args)
        tleaves = [a for a in targs if a.requires_grad]
        variants["PyTorch eager"] = step_fn(fn, targs, tleaves)
        variants["PyTorch eager"]()
        torch_grads = [p.grad.clone() for p in tleaves]
        cold.reset()
        _, tstep, first["torch.compile aot_eager"] = _first_call(
            lambda: torch.compile(fn, backend="aot_eager"), targs, tleaves)
        variants["torch.compile aot_eager"] = tstep
        if inductor:
            cold.reset()  # (aot_eager's Dynamo entry goes too: it compiles again just below)
            try:
                _, istep, cost = _first_call(
                    lambda: torch.compile(fn, backend="inductor"), targs, tleaves)
                close = all(torch.allclose(g, p.grad, rtol=1e-4, atol=1e-6)
                            for g, p in zip(torch_grads, tleaves))
                for _ in range(2):
                    istep()
            except Exception as e:  # (never crash the bench: say why and go on)
                notes.append(f"torch.compile inductor failed: {_first_line(e)}")
            else:
                first["torch.compile inductor"] = cost
                variants["torch.compile inductor"] = istep
                notes.append(f"inductor's gradients within 1e-4 of PyTorch eager's: {close}")
        for _ in range(2):  # (aot_eager again, after the reset: untimed)
            tstep()

    def repeat(f):
        def run():
            for _ in range(number):
                f()
        return run

    t = timing.measure({k: repeat(f) for k, f in variants.items()}, rounds=rounds)
    eager = t.median("eager minigrad") / number
    gen = [g for g in regions["numpy"] if g._np is None]
    print(f"\n-- {name}: forward + backward; gradients of both backends equal to eager: True; "
          f"numpy regions {len(regions['numpy']) - len(gen)}/{len(regions['numpy'])}"
          + (f" (fallback: {gen[0].codegen_fallback})" if gen else ""))
    print(f"  {'variant':<26} {'per step':>12}   {'/ eager':>18}   {'/ numpy by hand':>18}"
          + (f"   {'/ PyTorch eager':>18}" if torch is not None else ""))
    ratios = {}  # variant -> {baseline: median of the per-round ratios}
    for k in variants:
        cols = []
        ratios[k] = {}
        for base in ("eager minigrad", "numpy by hand") + (("PyTorch eager",) if torch else ()):
            r = t.ratio(k, base)
            ratios[k][base] = r.median
            cols.append(f"{r.median:6.2f} ({r.low:5.2f}-{r.high:5.2f})")
        print(f"  {k:<26} {t.median(k) / number * 1e6:9.1f} us   " + "   ".join(cols))
    if "torch.compile inductor" in variants:
        for k in ("compiled numpy", "compiled aot_eager"):
            r = t.ratio(k, "torch.compile inductor")
            ratios[k]["torch.compile inductor"] = r.median
            print(f"  (information) {k} / torch.compile inductor: {r.median:6.2f}"
                  f" ({r.low:5.2f}-{r.high:5.2f})")
    for note in notes:
        print("  " + note)
    for k, cost in first.items():
        step = t.median(k if k in variants else f"compiled {k}") / number
        saved = (t.median("PyTorch eager") if k.startswith("torch") else t.median("eager minigrad")) \
            / number - step
        extra = max(cost - step, 0.0)
        pays = f"{extra / saved:8.1f} calls" if saved > 0 else "   never"
        print(f"  first call, {k:<24} {cost * 1e3:9.2f} ms; pays off against its eager after {pays}")
    for base, limit in TARGETS.get(name, ()):
        r = ratios["compiled numpy"].get(base)
        verdict = ("not measured (no torch)" if r is None
                   else f"{'met' if r <= limit else 'NOT met'} ({r:.2f})")
        print(f"  target: compiled numpy <= {limit:g} x {base}: {verdict}")
    return ratios


def main(quick=False):
    """Measure the three programs; returns ``{program: {baseline: compiled numpy / baseline}}``.

    Baselines ``"eager"`` (minigrad), ``"PyTorch"`` (eager; absent without torch),
    ``"numpy"`` (by hand) and ``"inductor"`` (torch.compile; absent if it did not run);
    a program ending ``(aot_eager)``: that backend's ratios.
    run.py's summary reads them.
    """
    print("\n== define-then-run: minigrad.compile against eager (backends aot_eager and numpy)")
    rounds = 7 if quick else 15
    compiler, why_not = inductor_compiler()
    cold = _ColdInductor() if torch is not None else None
    if torch is not None:
        print("  and PyTorch: eager, torch.compile aot_eager"
              + (f", torch.compile inductor (CPU, C++ by {compiler})" if compiler else
                 f"; torch.compile inductor skipped: {why_not}"))
        if compiler:
            print(f"  {INDUCTOR_DOES}")
        print("  each torch.compile first call is cold: Dynamo reset, inductor's caches cleared"
              " and an empty TORCHINDUCTOR_CACHE_DIR")
        startup(cold, compiler is not None)
    try:
        return _programs(rounds, cold, compiler is not None)
    finally:
        if cold is not None:
            cold.close()


def _programs(rounds, cold, inductor):
    x0 = minigrad.tensor(np.float32(1.0), requires_grad=True)
    out = {}
    short = {"eager minigrad": "eager", "PyTorch eager": "PyTorch", "numpy by hand": "numpy",
             "torch.compile inductor": "inductor"}

    def keep(program, r):
        for backend, suffix in (("numpy", ""), ("aot_eager", " (aot_eager)")):
            out[program + suffix] = {short[b]: v for b, v in r[f"compiled {backend}"].items()
                                     if b in short}

    keep("0-d chain of 200 multiplies",
         measure("0-d chain of 200 multiplies", chain, (x0,), [x0], chain_by_hand, 10, rounds,
                 cold, inductor))
    x, params, t = mlp_inputs()
    keep("2-16-16-1 MLP step, batch 32",
         measure("2-16-16-1 MLP step, batch 32", mlp, (x, *params, t), params, mlp_by_hand, 50,
                 rounds, cold, inductor))
    xw = minigrad.tensor(np.random.default_rng(1).standard_normal((256, 256)).astype(np.float32),
                         requires_grad=True)
    keep("wide elementwise chain",
         measure("wide elementwise chain, 20 x tanh(0.9 y + 0.1) on 256 x 256", wide, (xw,), [xw],
                 wide_by_hand, 3, rounds, cold, inductor))
    return out


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
