"""Speed and memory of minigrad, as ratios to baselines measured in the same run.

Usage: python tests/bench/run.py   (what `make bench` runs)

Timings on a shared machine drift by tens of percent between runs, so every
number is printed next to a baseline measured seconds earlier in the same
process, and the ratio is what to read:

* tiny ops: a chain of scalar multiplies, forward and backward, per op,
  against the same arithmetic written by hand in numpy (the floor: no
  recording at all) and, if PyTorch happens to be importable, against PyTorch
  eager (not a dependency; skipped with a note when absent);
* a small MLP step: forward and backward of two tanh layers, against the
  hand-written numpy forward and backward;
* memory: peak bytes (tracemalloc) of recording a 50-layer tanh chain and of
  its backward, against the bytes of the activations it must save, and after
  backward / after ``del``, what is still held.
"""

import gc
import importlib.util
import statistics
import sys
import time
import tracemalloc

import numpy as np

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
import minigrad


def best_of(fn, repeat=5):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), statistics.median(times)


def tiny_chain_minigrad(n):
    x = minigrad.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(n):
        y = y * 1.0001
    y.backward()


def tiny_chain_numpy(n):
    x = np.float32(1.0)
    ys = []
    y = x
    for _ in range(n):
        ys.append(y)
        y = np.multiply(y, np.float32(1.0001))
    g = np.float32(1.0)
    for _ in reversed(ys):
        g = np.multiply(g, np.float32(1.0001))


def tiny_chain_torch(n):
    import torch

    x = torch.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(n):
        y = y * 1.0001
    y.backward()


def mlp_minigrad(X, W1, W2, T):
    w1 = minigrad.tensor(W1, requires_grad=True)
    w2 = minigrad.tensor(W2, requires_grad=True)
    h = (minigrad.tensor(X) @ w1).tanh()
    out = (h @ w2).tanh()
    loss = ((out - minigrad.tensor(T)) ** 2).mean()
    loss.backward()
    return w1.grad, w2.grad


def mlp_numpy(X, W1, W2, T):
    a1 = X @ W1
    h = np.tanh(a1)
    a2 = h @ W2
    out = np.tanh(a2)
    diff = out - T
    g_out = 2 * diff / diff.size
    g_a2 = g_out * (1 - out * out)
    g_w2 = h.T @ g_a2
    g_h = g_a2 @ W2.T
    g_a1 = g_h * (1 - h * h)
    g_w1 = X.T @ g_a1
    return g_w1, g_w2


def memory():
    """Peak and residual bytes of a 50-layer chain of tanh over a (256, 256) float32 array."""
    n, layers = 256, 50
    act_bytes = n * n * 4
    gc.collect()
    tracemalloc.start()
    x = minigrad.randn(n, n, requires_grad=True)
    base = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    y = x
    for _ in range(layers):
        y = (y * 0.5).tanh()
    loss = y.sum()
    recorded = tracemalloc.get_traced_memory()[0] - base
    loss.backward()
    after_backward = tracemalloc.get_traced_memory()[0] - base
    peak = tracemalloc.get_traced_memory()[1] - base
    del y, loss
    after_del = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    return act_bytes, layers, recorded, after_backward, peak, after_del


def main():
    minigrad.manual_seed(0)
    n = 20000
    print("== tiny ops: a chain of scalar multiplies, forward + backward, per op")
    base, _ = best_of(lambda: tiny_chain_numpy(n))
    mine, _ = best_of(lambda: tiny_chain_minigrad(n))
    print(f"numpy by hand (baseline): {base / n * 1e6:7.2f} us/op")
    print(f"minigrad:                 {mine / n * 1e6:7.2f} us/op   ratio {mine / base:5.1f}x numpy")
    if importlib.util.find_spec("torch") is not None:
        tt, _ = best_of(lambda: tiny_chain_torch(n))
        print(f"PyTorch eager:            {tt / n * 1e6:7.2f} us/op   ratio {tt / base:5.1f}x numpy;"
              f" minigrad/PyTorch = {mine / tt:4.2f}")
    else:
        print("PyTorch eager:            not installed here (optional; minigrad never needs it)")

    print("\n== a small MLP step: (64, 128) @ (128, 256) tanh @ (256, 10) tanh, MSE, backward")
    rng = np.random.default_rng(0)
    X = rng.standard_normal((64, 128)).astype(np.float32)
    W1 = (rng.standard_normal((128, 256)) * 0.1).astype(np.float32)
    W2 = (rng.standard_normal((256, 10)) * 0.1).astype(np.float32)
    T = rng.standard_normal((64, 10)).astype(np.float32)
    g_np = mlp_numpy(X, W1, W2, T)
    g_mg = mlp_minigrad(X, W1, W2, T)
    assert all(np.allclose(a, b.numpy(), rtol=1e-4, atol=1e-6) for a, b in zip(g_np, g_mg))
    reps = 50
    base, _ = best_of(lambda: [mlp_numpy(X, W1, W2, T) for _ in range(reps)])
    mine, _ = best_of(lambda: [mlp_minigrad(X, W1, W2, T) for _ in range(reps)])
    print(f"numpy by hand (baseline): {base / reps * 1e3:7.3f} ms/step")
    print(f"minigrad:                 {mine / reps * 1e3:7.3f} ms/step   ratio {mine / base:5.2f}x")

    print("\n== memory: 50 layers of tanh(0.5 x) on a (256, 256) float32 tensor")
    act, layers, recorded, after_bw, peak, after_del = memory()
    mib = 1 / 2**20
    print(f"one activation:                    {act * mib:7.2f} MiB")
    print(f"held by the recording (forward):   {recorded * mib:7.2f} MiB  = {recorded / act:5.1f} activations"
          f" (ratio to the {layers} saved results: {recorded / (layers * act):4.2f})")
    print(f"held after backward (saved freed): {after_bw * mib:7.2f} MiB  = {after_bw / act:5.1f} activations")
    print(f"peak during forward + backward:    {peak * mib:7.2f} MiB  = {peak / act:5.1f} activations")
    print(f"held after del of the output:      {after_del * mib:7.2f} MiB  = {after_del / act:5.1f} activations")


if __name__ == "__main__":
    main()
    import replay  # compiled replay against eager (tests/bench/replay.py)

    replay.main()
