"""Replay of a compiled graph against eager execution, and what compiling costs.

Usage: python tests/bench/replay.py   (``make bench`` runs it after run.py's benchmarks)

Two workloads, each forward + backward, timed as the best of several rounds
in this process (read the ratios, not the absolute times):

* the 0-d chain: ``y = y * 1.0001`` 200 times on a scalar, then ``backward``:
  all overhead, no arithmetic to speak of;
* the 2-16-16-1 MLP step: ``tanh(x W1 + b1)``, ``tanh(h W2 + b2)``,
  ``h W3 + b3``, mean squared error on a batch of 32, then ``backward``.

For each: eager minigrad (a node per operation, the engine's walk), then
``minigrad.compile(fn, backend="aot_eager")`` replaying its one region (one
``CompiledFunctionBackward`` node, the backward plan made at compile time).
The target is replay <= 0.5 x eager.  The compile cost is the first call of
the compiled function (record, compile, replay) minus a replay, and "pays off
after" is how many calls it takes for the time saved to cover it.  Gradients
are checked equal to eager ones, exactly, before anything is timed.
"""

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import minigrad  # noqa: E402

TARGET = 0.5


def best_pair(fa, fb, repeat=9, number=20):
    """Best time of one call of ``fa`` and of ``fb``, in seconds, rounds interleaved.

    Interleaving the two keeps a burst of load on the shared machine from
    landing on one side only; the best round of each is what is compared.
    """
    ta, tb = [], []
    for _ in range(repeat):
        for fn, times in ((fa, ta), (fb, tb)):
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            times.append((time.perf_counter() - t0) / number)
    return min(ta), min(tb)


def chain(x):
    y = x
    for _ in range(200):
        y = y * 1.0001
    return y


def mlp(x, w1, b1, w2, b2, w3, b3, t):
    h = (x @ w1 + b1).tanh()
    h = (h @ w2 + b2).tanh()
    out = h @ w3 + b3
    return ((out - t) ** 2).mean()


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


def measure(name, fn, args, leaves):
    eager_step = step_fn(fn, args, leaves)
    eager_step()
    eager_grads = [p.grad._data.copy() for p in leaves]

    t0 = time.perf_counter()
    compiled = minigrad.compile(fn, backend="aot_eager")
    first = step_fn(compiled, args, leaves)
    first()
    first_call = time.perf_counter() - t0
    same = all(np.array_equal(g, p.grad._data) for g, p in zip(eager_grads, leaves))
    for _ in range(2):  # the second backward onwards runs the traced backward plan (plan.py)
        first()
        same = same and all(np.array_equal(g, p.grad._data) for g, p in zip(eager_grads, leaves))
    if not same:
        raise SystemExit(f"{name}: compiled gradients differ from eager ones")

    eager, replay = best_pair(eager_step, first)
    ratio = replay / eager
    compile_cost = max(first_call - replay, 0.0)
    saved = eager - replay
    pays_off = compile_cost / saved if saved > 0 else float("inf")
    graphs = len(compiled._minigrad_compiled.graphs)
    print(f"-- {name}: forward + backward, gradients equal to eager: {same}")
    print(f"eager minigrad (baseline):  {eager * 1e6:9.1f} us/step")
    print(f"compiled replay:            {replay * 1e6:9.1f} us/step   ratio {ratio:4.2f}x eager"
          f"   (target <= {TARGET}: {'met' if ratio <= TARGET else 'NOT met'}; {graphs} graph)")
    print(f"compile (first call - replay): {compile_cost * 1e3:7.2f} ms = {compile_cost / eager:6.1f}"
          f" eager steps; pays off after {pays_off:6.1f} calls")
    return ratio


def main():
    """Measure both programs; returns {program: replay / eager} (run.py's summary reads it)."""
    print("\n== define-then-run: minigrad.compile(backend='aot_eager') replay against eager")
    x0 = minigrad.tensor(1.0, requires_grad=True)
    ratios = {"0-d chain of 200 multiplies": measure("0-d chain of 200 multiplies", chain, (x0,), [x0])}
    x, params, t = mlp_inputs()
    ratios["2-16-16-1 MLP step, batch 32"] = measure("2-16-16-1 MLP step, batch 32", mlp,
                                                     (x, *params, t), params)
    return ratios


if __name__ == "__main__":
    main()
