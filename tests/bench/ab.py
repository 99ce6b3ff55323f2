"""Is the work tree slower than BASE?  The bench run alternately on both, in one sitting.

Usage: ``python tests/bench/ab.py BASE [--only WORKLOAD ...] [--rounds N]``
(BASE: any git revision, e.g. ``main``; run it with ``.venv-torch/bin/python``
to compare against PyTorch too, as ``make bench`` does).

A single bench run cannot show a 5% change: on a shared machine the medians
move by about 10% from one run to the next.  So this makes a ``git worktree``
of BASE and runs this work tree's ``tests/bench/run.py`` on BASE's minigrad
and on the work tree's, alternately (BASE, HEAD, HEAD, BASE, ...), ``--rounds``
times each, and compares the *ratios* each run measures in its own process:
minigrad against the bare tape (``bare_tape.py``, the same walk with none of
PyTorch's behaviours: the steadiest yardstick, it shares the process's noise),
against PyTorch (when the Python has it), and against numpy.

The verdict, workload by workload, on the median over the runs:

* the work tree fails if its ratio (to the bare tape where there is one, else
  to PyTorch, else to numpy) is more than 5% above BASE's;
* it fails if it breaks a floor of ``REDESIGN.md`` against PyTorch (chain,
  chain100k and small MLP <= 1.5, 784 MLP <= 1.1), unless BASE breaks it too
  (on a machine whose BLAS is slower than PyTorch's the 784 MLP misses its
  floor before any change: there the rule is "no worse than BASE").

Against itself (``ab.py HEAD`` with a clean tree) it must report about 1.00.
Exit status 1 when the work tree fails.
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parents[2]
RUN = REPO / "tests" / "bench" / "run.py"
WORKLOADS = ("chain", "chain100k", "small", "mnist")
FLOORS = {"chain": 1.5, "chain100k": 1.5, "small": 1.5, "mnist": 1.1}  # minigrad / PyTorch
TOLERANCE = 1.05
AGAINST = ("bare tape", "PyTorch", "numpy")  # the first present is the one judged


def run_bench(root, workloads, out):
    """One quick bench run timing the minigrad of ``root``; {workload: {program: [seconds]}}."""
    cmd = [sys.executable, str(RUN), "--quick", "--json", out]
    for w in workloads:
        cmd += ["--only", w]
    env = dict(os.environ, BENCH_MINIGRAD=str(root))
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode:
        sys.exit(f"the bench failed on {root}:\n{proc.stdout}\n{proc.stderr}")
    timed = next((line.split(" ", 2)[2] for line in proc.stdout.splitlines()
                  if line.startswith("minigrad from ")), None)
    if timed is None or pathlib.Path(timed).resolve() != pathlib.Path(root).resolve():
        sys.exit(f"the bench timed the minigrad in {timed}, not the one in {root}")
    with open(out) as f:
        return json.load(f)


def ratios(times):
    """minigrad's median per-round ratio to each baseline present."""
    mine = times["minigrad"]
    return {name: statistics.median(m / t for m, t in zip(mine, times[name]))
            for name in AGAINST if name in times}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("base", help="the git revision to compare with (e.g. main)")
    parser.add_argument("--only", choices=WORKLOADS, action="append",
                        help="these workloads only (default: all four)")
    parser.add_argument("--rounds", type=int, default=3, help="bench runs on each side (default 3)")
    args = parser.parse_args()
    workloads = args.only or list(WORKLOADS)

    with tempfile.TemporaryDirectory(prefix="minigrad-ab-") as tmp:
        base_tree = pathlib.Path(tmp) / "base"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "--quiet",
                        str(base_tree), args.base], check=True)
        try:
            found = {"BASE": [], "HEAD": []}
            for i in range(args.rounds):
                order = [("BASE", base_tree), ("HEAD", REPO)]
                if i % 2:
                    order.reverse()
                for side, root in order:
                    print(f"round {i + 1}/{args.rounds}: {side} ...", flush=True)
                    found[side].append(run_bench(root, workloads, str(pathlib.Path(tmp) / "out.json")))
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force",
                            str(base_tree)], check=False)

    failed = []
    print(f"\nminigrad's ratios, median of {args.rounds} runs each (BASE = {args.base}, HEAD = the"
          " work tree); HEAD / BASE above 1 is slower")
    for w in workloads:
        base = [ratios(run[w]) for run in found["BASE"]]
        head = [ratios(run[w]) for run in found["HEAD"]]
        print(f"\n== {w}")
        judged = next(name for name in AGAINST if name in base[0])
        for name in base[0]:
            b = statistics.median(r[name] for r in base)
            h = statistics.median(r[name] for r in head)
            verdict = ""
            if name == judged and h > b * TOLERANCE:
                verdict = f"  SLOWER by more than {TOLERANCE - 1:.0%}"
                failed.append(w)
            if name == "PyTorch" and h > FLOORS[w] >= b:
                verdict += f"  BREAKS the floor {FLOORS[w]}"
                failed.append(w)
            spread = ", ".join(f"{r[name]:.3f}" for r in head)
            print(f"  minigrad / {name:<9}  BASE {b:6.3f}  HEAD {h:6.3f}  HEAD/BASE {h / b:5.3f}"
                  f"  (HEAD runs: {spread}){verdict}")
    if failed:
        print(f"\nHEAD is worse than {args.base} on: {', '.join(sorted(set(failed)))}")
        sys.exit(1)
    print(f"\nHEAD is no worse than {args.base}.")


if __name__ == "__main__":
    main()
