"""Differential fuzzer: random autograd programs run in minigrad and in PyTorch, step by step.

Each seed gives one program: a few leaf tensors, then a random sequence of
operations (elementwise, reductions, shape and view ops, indexing, products,
in-place writes, no_grad blocks, losses, sorting, ...), then a weighted sum
walked backward (sometimes twice, sometimes a second derivative).  The
program is written as source text with the name ``torch`` and run in two
namespaces, one binding ``torch`` to PyTorch, one to minigrad; after every
step the fuzzer compares what both saw:

* ``value``: dtype, shape and values (float32 rtol 1e-4, float64 rtol 2e-6)
  of each new tensor, and every ``.grad`` after backward;
* ``internal``: minigrad raised where PyTorch did not, or raised a different
  exception from inside minigrad or numpy (a traceback a learner should
  never see);
* ``error``: both raised, but a different type or first sentence;
* ``graph``: ``requires_grad``, ``is_leaf``, the ``grad_fn`` name and the
  names along ``next_functions``; ``graph2`` the same for a gradient
  computed with ``create_graph=True`` (a graph of backward formulas, whose
  node names differ by design: see the README);
* ``print``: ``repr`` of tensors whose values are identical (reported);
* ``drift``: a value difference that disappears when the step is re-run in
  minigrad on PyTorch's exact inputs (a discontinuous op such as ``%`` met
  inputs that differed in their last bits), and every later value difference
  of such a program (reported, never fatal).

The program is generated with PyTorch as the oracle: a step PyTorch rejects
stays in the program as a step that must raise (so error parity is fuzzed
too), and later steps only use the tensors that exist.

Run it with a Python that has PyTorch and numpy (PyTorch is never a
dependency of minigrad or of ``make test``), from the repository root::

    /path/to/venv-with-torch/bin/python tests/fuzz/differential.py --seeds 0:1000
    /path/to/venv-with-torch/bin/python tests/fuzz/differential.py --seed 17 --show

``--seeds A:B`` runs seeds A..B-1 and prints a summary by kind (exit status
1 if any ``value`` or ``internal`` difference was found); ``--show`` prints
one program and the differences, step by step; ``--fatal graph`` also fails
on graph differences.  To make such a Python::

    python3 -m venv /path/to/venv-with-torch
    /path/to/venv-with-torch/bin/pip install numpy torch --index-url https://download.pytorch.org/whl/cpu

Source: the idea of differential testing (McKeeman, "Differential Testing for
Software", 1998) applied to an autograd engine and its reference.
"""

import argparse
import math
import re
import sys
import traceback
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.fuzz import programs  # noqa: E402  (after the path is set)

KINDS = ("value", "internal", "error", "graph", "graph2", "print", "drift")
# steps that look at a gradient computed with create_graph=True (``g``, ``g7``):
# its graph is made of backward formulas (kind "graph2", see the README)
SECOND_ORDER = re.compile(r"g\d*")
# float64 values may have come from float32 ones (x.double()): not much tighter
TOLERANCE = {"float32": (1e-4, 1e-5), "float64": (2e-6, 1e-9)}
_ADDR = re.compile(r"0x[0-9a-fA-F]+")


# ------------------------------------------------------------- observing

def first_sentence(message):
    """The message up to its first newline or ``". "``, as the parity fixtures compare it."""
    line = message.split("\n", 1)[0]
    i = line.find(". ")
    return line if i < 0 else line[: i + 1]


def _norm(text):
    text = _ADDR.sub("0x", text)
    return re.sub(r"\bminigrad\.", "torch.", text)


def describe(obj, lib):
    """What one step's result looks like, as plain data both libraries can be compared by."""
    if isinstance(obj, lib.Tensor):
        return _describe_tensor(obj, lib)
    if isinstance(obj, (tuple, list)) and obj and all(isinstance(o, lib.Tensor) for o in obj):
        return {"seq": [_describe_tensor(o, lib) for o in obj]}
    if isinstance(obj, bool) or obj is None:
        return {"py": obj}
    if isinstance(obj, (int, float)):
        return {"py": obj}
    return None


def _describe_tensor(t, lib):
    d = t.detach()
    if getattr(d, "_is_zerotensor", None) is not None and d._is_zerotensor():
        d = lib.zeros_like(d)  # PyTorch's "efficient zero" tensors have no storage to list
    node = t.grad_fn
    return {
        "dtype": _norm(str(t.dtype)),
        "shape": list(t.shape),
        "values": d.tolist(),
        "requires_grad": t.requires_grad,
        "is_leaf": t.is_leaf,
        "grad_fn": None if node is None else node.name(),
        "chain": _chain(node),
        "repr": _norm(repr(t)),
    }


def _chain(node, limit=12):
    """Names along the first ``next_functions`` edge of each node, then each node's edge count."""
    out = []
    while node is not None and len(out) < limit:
        edges = node.next_functions
        out.append(f"{node.name()}/{len(edges)}")
        nxt = [fn for fn, _ in edges if fn is not None]
        node = nxt[0] if nxt else None
    return out


# Besides elementwise closeness, a difference this small against the largest
# value of the tensor is rounding (a gradient that is a difference of large
# terms carries float32's error of those terms); a wrong formula is off by
# the order of the values themselves.
SCALE_TOLERANCE = {"float32": 1e-3, "float64": 1e-7}


def _scale(v):
    if isinstance(v, list):
        return max((_scale(x) for x in v), default=0.0)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        return 0.0
    return abs(v)


def _close(a, b, dtype, scale=None):
    if scale is None and dtype in SCALE_TOLERANCE:
        scale = _scale(a) * SCALE_TOLERANCE[dtype]
    if isinstance(a, list) or isinstance(b, list):
        return (isinstance(a, list) and isinstance(b, list) and len(a) == len(b)
                and all(_close(x, y, dtype, scale) for x, y in zip(a, b)))
    if isinstance(a, bool) or isinstance(b, bool) or dtype not in TOLERANCE:
        return a == b
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return False
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    rtol, atol = TOLERANCE[dtype]
    return abs(a - b) <= max(atol + rtol * max(abs(a), abs(b)), scale or 0.0)


_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _float32_exact(v):
    """True if every value is a float32 number: a float64 tensor whose values all are was
    computed in float32 and cast up (PyTorch casts a gradient to its input's dtype), so
    it carries float32's rounding, such as a sum's order of additions, not float64's."""
    if isinstance(v, list):
        return all(_float32_exact(x) for x in v)
    if not isinstance(v, float) or not math.isfinite(v):
        return True
    if v == 0.0 or v == int(v) and abs(v) < 2 ** 24:
        return True
    return abs(v) <= _FLOAT32_MAX and float(np.float32(v)) == v


def compare(expected, actual):
    """The kinds of difference between two ``describe`` results (empty: they agree)."""
    if expected is None or actual is None:
        return set() if (expected is None) == (actual is None) else {"value"}
    if "py" in expected or "py" in actual:
        e, a = expected.get("py", "?"), actual.get("py", "?")
        if isinstance(e, float) and isinstance(a, float):
            return set() if _close(e, a, "float64") else {"value"}
        return set() if e == a else {"value"}
    if "seq" in expected or "seq" in actual:
        es, as_ = expected.get("seq"), actual.get("seq")
        if es is None or as_ is None or len(es) != len(as_):
            return {"value"}
        kinds = set()
        for e, a in zip(es, as_):
            kinds |= compare(e, a)
        return kinds
    kinds = set()
    dtype = expected["dtype"][6:]
    if dtype == "float64" and _float32_exact(expected["values"]) and _float32_exact(actual["values"]):
        dtype = "float32"  # computed in float32 in both (a float64 leaf's gradient through a float32 op)
    if (expected["dtype"] != actual["dtype"] or expected["shape"] != actual["shape"]
            or not _close(expected["values"], actual["values"], dtype)):
        kinds.add("value")
    for key in ("requires_grad", "is_leaf", "grad_fn", "chain"):
        if expected[key] != actual[key]:
            kinds.add("graph")
    if expected["repr"] != actual["repr"] and expected["values"] == actual["values"]:
        kinds.add("print")  # the same values printed otherwise (rounding noise is not this)
    return kinds


def _is_internal(err):
    """An exception minigrad did not mean to raise: from numpy, or a Python slip inside minigrad."""
    if isinstance(err, (AttributeError, KeyError, NameError, UnboundLocalError, AssertionError,
                        ZeroDivisionError, RecursionError)):
        return True
    frames = traceback.extract_tb(err.__traceback__)
    return bool(frames) and "numpy" in frames[-1].filename


# --------------------------------------------------------------- running

def run_step(ns, kind, src, lib):
    """Run one step; return ``(result, error)``: what it produced, or the exception it raised."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if kind == "eval":
                return describe(eval(src, ns), lib), None  # noqa: S307 - the program is ours
            exec(src, ns)  # noqa: S102
            name = src.split("=", 1)[0].strip() if kind == "assign" else None
            return (describe(ns[name], lib) if name else None), None
        except Exception as err:  # noqa: BLE001 - comparing what was raised is the point
            return None, err


def differences(program, torch, minigrad):
    """Run ``program`` in both libraries; a list of ``(step, kind, text)`` differences."""
    ns_t = {"torch": torch, "F": torch.nn.functional, "__name__": "__fuzz__"}
    ns_m = {"torch": minigrad, "F": minigrad.nn.functional, "__name__": "__fuzz__"}
    found = []
    drifted = False  # a step's inputs already differed by rounding (see _anchored_agrees)
    before = prev = None  # PyTorch's inputs of the last exec step (an in-place write), and it
    try:
        for i, (kind, src) in enumerate(program):
            if kind == "exec":
                before, prev = _snapshot(src, ns_t, torch), src
            res_t, err_t = run_step(ns_t, kind, src, torch)
            res_m, err_m = run_step(ns_m, kind, src, minigrad)
            if err_t is not None or err_m is not None:
                found.extend(_error_difference(i, src, err_t, err_m))
                if err_m is not None and err_t is None:
                    break  # minigrad cannot go on where PyTorch did
                continue
            kinds = compare(res_t, res_m)
            if "value" in kinds:
                if drifted or (kind == "assign" and _anchored_agrees(src, ns_t, ns_m, torch,
                                                                    minigrad, res_t)) or (
                        kind == "eval" and prev is not None
                        and _anchored_write_agrees(prev, before, src, ns_m, minigrad, res_t)):
                    kinds = (kinds - {"value"}) | {"drift"}
                    drifted = True
            if kind != "exec":
                prev = None
            for k in sorted(kinds):
                if k == "graph" and (SECOND_ORDER.fullmatch(src) or _formula_grad(src, res_t)):
                    k = "graph2"
                found.append((i, k, _explain(src, res_t, res_m)))
    finally:
        torch.set_grad_enabled(True)
        minigrad.set_grad_enabled(True)
    return found


def _formula_grad(src, described):
    """A ``.grad`` with a grad_fn: kept by retain_grad under ``create_graph=True``, so a
    graph of backward formulas (kind ``graph2``, as the gradients named ``g``)."""
    return (src.endswith(".grad") and isinstance(described, dict)
            and described.get("grad_fn") not in (None, "None"))


def _anchored_agrees(src, ns_t, ns_m, torch, minigrad, expected):
    """Does minigrad's step agree once it is given PyTorch's exact input values?

    A discontinuous operation (``%``, ``//``, a comparison, ``sort``'s order)
    can turn a last-bit difference in its inputs, which are themselves within
    tolerance, into a large one.  Re-running the step on PyTorch's values
    separates that rounding drift from a real difference of the operation.
    """
    import numpy as np

    name, expr = src.split("=", 1)
    ns = dict(ns_m)
    for var in set(re.findall(r"\bv\d+\b", expr)):
        t = ns_t.get(var)
        if isinstance(t, torch.Tensor) and var in ns_m:
            data = np.array(t.detach().tolist(), dtype=str(t.dtype).replace("torch.", ""))
            ns[var] = minigrad.tensor(data, requires_grad=t.requires_grad and t.is_leaf
                                      and t.dtype.is_floating_point)
    res, err = run_step(ns, "eval", expr.strip(), minigrad)
    return err is None and "value" not in compare(expected, res)


def _snapshot(src, ns_t, torch):
    """PyTorch's values of the tensors a step names, before it runs: ``{name: (array, dtype)}``."""
    import numpy as np

    out = {}
    for var in set(re.findall(r"\bv\d+\b", src)):
        t = ns_t.get(var)
        if isinstance(t, torch.Tensor):
            dt = str(t.dtype).replace("torch.", "")
            out[var] = np.array(t.detach().tolist(), dtype=dt)
    return out


def _anchored_write_agrees(step, before, name, ns_m, minigrad, expected):
    """Does an in-place write (``v4.frac_()``) agree once given PyTorch's exact inputs?

    The same rounding drift as ``_anchored_agrees``, for a tensor written in
    place and then shown (``name``): the write is re-run in minigrad, without
    recording, on copies of PyTorch's values from before it ran.
    """
    if not re.fullmatch(r"v\d+", name):
        return False
    ns = dict(ns_m)
    for var, data in before.items():
        if var in ns_m:
            ns[var] = minigrad.tensor(data)
    with minigrad.no_grad():
        _, err = run_step(ns, "exec", step, minigrad)
    if err is not None or name not in ns:
        return False
    res, err = run_step(ns, "eval", name, minigrad)
    return err is None and "value" not in compare(expected, res)


def _error_difference(i, src, err_t, err_m):
    if err_t is None:
        kind = "internal" if _is_internal(err_m) else "error"
        return [(i, kind, f"{src}\n    PyTorch: no error\n    minigrad: "
                          f"{type(err_m).__name__}: {err_m}\n{_tail(err_m)}")]
    if err_m is None:
        return [(i, "error", f"{src}\n    PyTorch: {type(err_t).__name__}: "
                             f"{first_sentence(str(err_t))}\n    minigrad: no error")]
    same = (type(err_t).__name__ == type(err_m).__name__
            and _norm(first_sentence(str(err_t))) == _norm(first_sentence(str(err_m))))
    if same:
        return []
    kind = "internal" if _is_internal(err_m) else "error"
    return [(i, kind, f"{src}\n    PyTorch: {type(err_t).__name__}: {first_sentence(str(err_t))}"
                      f"\n    minigrad: {type(err_m).__name__}: {first_sentence(str(err_m))}"
                      + (f"\n{_tail(err_m)}" if kind == "internal" else ""))]


def _tail(err):
    frames = traceback.extract_tb(err.__traceback__)[-3:]
    return "".join(f"      at {Path(f.filename).name}:{f.lineno} {f.line}\n" for f in frames)


def _explain(src, e, a):
    def brief(d):
        if d is None or "py" in d:
            return repr(d)
        if "seq" in d:
            return "[" + ", ".join(brief(x) for x in d["seq"]) + "]"
        return (f"{d['dtype']} {d['shape']} rg={d['requires_grad']} leaf={d['is_leaf']} "
                f"{d['grad_fn']} {d['chain']}\n      {d['repr']}")

    return f"{src}\n    PyTorch:  {brief(e)}\n    minigrad: {brief(a)}"


# ------------------------------------------------------------------ main

def _seeds(text):
    if ":" in text:
        a, b = text.split(":")
        return range(int(a), int(b))
    return [int(s) for s in text.split(",")]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="0:200", help="A:B (half-open) or a,b,c")
    parser.add_argument("--seed", type=int, help="one seed (with --show: print it)")
    parser.add_argument("--show", action="store_true", help="print the program and differences")
    parser.add_argument("--fatal", default="value,internal",
                        help="kinds that make the exit status 1 (default value,internal)")
    parser.add_argument("--examples", type=int, default=3, help="examples printed per kind")
    parser.add_argument("--trace", action="store_true",
                        help="print each seed to stderr before running it (to find a crash)")
    args = parser.parse_args(argv)

    import torch

    import minigrad

    seeds = [args.seed] if args.seed is not None else _seeds(args.seeds)
    counts = {k: 0 for k in KINDS}
    examples = {k: [] for k in KINDS}
    generated = 0
    for seed in seeds:
        if args.trace:
            print(f"seed {seed}", file=sys.stderr, flush=True)
        program = programs.generate(seed, torch)
        generated += 1
        found = differences(program, torch, minigrad)
        if args.show:
            print(f"# seed {seed}")
            for i, (_kind, src) in enumerate(program):
                print(f"[{i}] {src}")
            for i, kind, text in found:
                print(f"--- step {i} [{kind}] {text}")
        for kind in {k for _, k, _ in found}:
            counts[kind] += 1
            if len(examples[kind]) < args.examples:
                first = next(t for _, k, t in found if k == kind)
                examples[kind].append((seed, first))
    fatal = [k for k in args.fatal.split(",") if k]
    print(f"{generated} programs (seeds {seeds[0]}..{seeds[-1]}): " +
          ", ".join(f"{k} differences in {counts[k]}" for k in KINDS))
    for kind in KINDS:
        for seed, text in examples[kind]:
            print(f"\n[{kind}] seed {seed}: {text}")
    return 1 if any(counts[k] for k in fatal) else 0


if __name__ == "__main__":
    sys.exit(main())
