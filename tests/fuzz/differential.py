"""Differential fuzzer: random autograd programs run in minigrad and in PyTorch, step by step.

Each seed gives one program: a few leaf tensors, then a random sequence of
operations (elementwise, reductions, shape and view ops, indexing, products,
in-place writes, no_grad blocks, losses, sorting, ...), then a weighted sum
walked backward (sometimes twice, sometimes a second derivative).  The
program is written as source text with the name ``torch`` and run in two
namespaces, one binding ``torch`` to PyTorch, one to minigrad; after every
step the fuzzer compares what both saw:

* ``value``: dtype, shape and values of each new tensor, and every
  ``.grad`` after backward (gradients are values too), element by element
  (each within float32 rtol 1e-4 / atol 1e-5, float64 rtol 2e-6 / atol 1e-9 of
  itself: ``compare.py``);
* ``internal``: minigrad raised where PyTorch did not (any exception: a
  clean ``RuntimeError`` of minigrad's own is a program a learner runs in
  PyTorch and cannot run in minigrad), or, both having raised, minigrad's
  exception came from inside minigrad or numpy (a traceback a learner should
  never see);
* ``error``: both raised, but a different type or first sentence; or
  PyTorch raised and minigrad did not;
* ``graph``: ``requires_grad``, ``is_leaf``, the ``grad_fn`` name and the
  names along ``next_functions``;
* ``graph2``: for a gradient computed with ``create_graph=True`` (a graph of
  backward formulas: see the README), chains that part at one of the listed
  pairs of node names ``compare.GRAPH2_PAIRS`` (PyTorch's fused formula,
  minigrad's readable one); any other difference there is ``graph``;
* ``version``: the tensor's ``_version`` (in-place writes counted); reported;
* ``saved``: the ``grad_fn``'s ``_saved_*`` attributes (what it saved for
  backward: names, values; or the error reading one raises); reported;
* ``print``: ``repr`` of tensors whose values are identical (its
  ``grad_fn=<...>`` left out: that is ``graph``'s); reported;
* ``drift``: a value difference that disappears when the step is re-run in
  minigrad on PyTorch's exact inputs (a discontinuous op such as ``%`` met
  inputs that differed in their last bits), and the value differences of the
  tensors and gradients computed from such a drifted value (``lineage.py``;
  values not computed from it are compared as usual); reported, never fatal.
* ``layout``: a difference of memory layout, one of the README's differences
  by design (numpy lays out an elementwise result of mixed-order inputs by
  its own rule): ``view()`` refused by one library only ("view size is not
  compatible with input tensor's size and stride"), or ``contiguous()``
  copying (``CloneBackward0``) in one library only; what the step made is
  not compared afterwards.  Reported, never fatal.

After a step where both raised, the program goes on.  After a step only one
library raised (``internal`` or ``error``), the tensors it names or wrote no
longer hold the same values in both: they, and what is computed from them,
are left out of the comparison, and the rest of the program goes on.

The program is generated with PyTorch as the oracle: a step PyTorch rejects
stays in the program as a step that must raise (so error parity is fuzzed
too), and later steps only use the tensors that exist.

Run it with a Python that has PyTorch and numpy (PyTorch is never a
dependency of minigrad or of ``make test``), from the repository root::

    /path/to/venv-with-torch/bin/python tests/fuzz/differential.py --seeds 0:1000
    /path/to/venv-with-torch/bin/python tests/fuzz/differential.py --seed 17 --show

``--seeds A:B`` runs seeds A..B-1 and prints a summary by kind (exit status
1 if any ``value`` or ``internal`` difference was found); ``--show`` prints
one program and the differences, step by step; ``--fatal value,internal,error,graph``
names the kinds that fail the run (CI's ``make test-torch`` runs a fixed range
so; ``make fuzz SEEDS=A:B`` any).  To make such a Python::

    python3 -m venv /path/to/venv-with-torch
    /path/to/venv-with-torch/bin/pip install numpy torch --index-url https://download.pytorch.org/whl/cpu

Source: the idea of differential testing (McKeeman, "Differential Testing for
Software", 1998) applied to an autograd engine and its reference.
"""

import argparse
import re
import sys
import traceback
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.fuzz import programs  # noqa: E402  (after the path is set)
from tests.fuzz.compare import (compare, describe, first_sentence,  # noqa: E402
                                graph_differences, norm)
from tests.fuzz.lineage import Lineage  # noqa: E402

KINDS = ("value", "internal", "error", "graph", "graph2", "version", "saved", "print", "drift",
         "layout")
# steps that look at a gradient computed with create_graph=True (``g``, ``g7``):
# its graph is made of backward formulas (kind "graph2", see the README)
SECOND_ORDER = re.compile(r"g\d*")


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
    lineage = Lineage()  # which names descend from a drifted or set-aside value
    before = prev = None  # PyTorch's inputs of the last exec step (an in-place write), and it
    try:
        for i, (kind, src) in enumerate(program):
            mark = lineage.mark_of(kind, src, ns_t)
            if kind == "exec":
                before, prev = _snapshot(src, ns_t, torch), src
            res_t, err_t = run_step(ns_t, kind, src, torch)
            res_m, err_m = run_step(ns_m, kind, src, minigrad)
            lineage.record(kind, src, ns_t, torch)
            if mark == "apart":
                continue  # it reads what the libraries no longer share: run, not compared
            if err_t is not None or err_m is not None:
                if (err_t is None) != (err_m is None):
                    # one raised: what the step names or wrote is no longer the same in both
                    lineage.mark(kind, src, ns_t, torch, "apart")
                    if mark == "drift":  # its inputs had drifted: so may its branch
                        found.append((i, "drift", _error_text(src, err_t, err_m, False)))
                        continue
                found.extend(_error_difference(i, src, err_t, err_m))
                continue
            second = bool(SECOND_ORDER.fullmatch(src) or _formula_grad(src, res_t))
            gradient = src.endswith(".grad") or _from_autograd_grad(src, program[:i])
            kinds = compare(res_t, res_m, second, gradient)
            if "graph" in kinds and _contiguous_copied_in_one(src, res_t, res_m):
                kinds = (kinds - {"graph"}) | {"layout"}
                lineage.mark(kind, src, ns_t, torch, "apart")  # one graph has a CloneBackward0 more
            if "value" in kinds:
                if mark == "drift" or (kind == "assign" and _anchored_agrees(
                        src, ns_t, ns_m, torch, minigrad, res_t)) or (
                        kind == "eval" and prev is not None
                        and _anchored_write_agrees(prev, before, src, ns_m, minigrad, res_t)):
                    kinds = (kinds - {"value"}) | {"drift"}
                    lineage.mark(kind, src, ns_t, torch, "drift")
            if kind != "exec":
                prev = None
            for k in sorted(kinds):
                found.append((i, k, _explain(src, res_t, res_m, k in ("graph", "graph2"))))
    finally:
        torch.set_grad_enabled(True)
        minigrad.set_grad_enabled(True)
    return found


def _from_autograd_grad(name, steps):
    """Was ``name`` (a step showing one name) assigned what ``torch.autograd.grad`` returned?"""
    pattern = re.compile(rf"\(?{re.escape(name)},?\)? = torch\.autograd\.grad\(")
    return bool(re.fullmatch(r"\w+", name)) and any(pattern.match(src) for _, src in steps)


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


# the first sentence of PyTorch's view() error for a layout it cannot view (by design: README)
LAYOUT_ERROR = "view size is not compatible with input tensor's size and stride"


def _contiguous_copied_in_one(src, e, a):
    """``vN = vM.contiguous()`` whose graphs differ only by a ``CloneBackward0`` on top: one
    library's input was laid out contiguously, the other's not (kind ``layout``)."""
    if not src.endswith(".contiguous()") or not isinstance(e, dict) or not isinstance(a, dict):
        return False
    clone = "CloneBackward0/1"
    return ((e["chain"][:1] == [clone] and e["chain"][1:] == a["chain"][:len(e["chain"]) - 1])
            or (a["chain"][:1] == [clone] and a["chain"][1:] == e["chain"][:len(a["chain"]) - 1]))


def _error_difference(i, src, err_t, err_m):
    """The difference of a step where one library or both raised (none if the same)."""
    if (err_t is None) != (err_m is None) and LAYOUT_ERROR in str(err_t or err_m):
        return [(i, "layout", _error_text(src, err_t, err_m, False))]
    if err_t is None:
        return [(i, "internal", _error_text(src, err_t, err_m, True))]
    if err_m is None:
        return [(i, "error", _error_text(src, err_t, err_m, False))]
    if (type(err_t).__name__ == type(err_m).__name__
            and norm(first_sentence(str(err_t))) == norm(first_sentence(str(err_m)))):
        return []
    kind = "internal" if _is_internal(err_m) else "error"
    return [(i, kind, _error_text(src, err_t, err_m, kind == "internal"))]


def _error_text(src, err_t, err_m, tail):
    def said(err):
        if err is None:
            return "no error"
        return f"{type(err).__name__}: {first_sentence(str(err))}"

    return (f"{src}\n    PyTorch: {said(err_t)}\n    minigrad: {said(err_m)}"
            + (f"\n{_tail(err_m)}" if tail and err_m is not None else ""))


def _tail(err):
    frames = traceback.extract_tb(err.__traceback__)[-3:]
    return "".join(f"      at {Path(f.filename).name}:{f.lineno} {f.line}\n" for f in frames)


def _explain(src, e, a, graph=False):
    def brief(d):
        if d is None or "py" in d:
            return repr(d)
        if "seq" in d:
            return "[" + ", ".join(brief(x) for x in d["seq"]) + "]"
        return (f"{d['dtype']} {d['shape']} rg={d['requires_grad']} leaf={d['is_leaf']} "
                f"{d['grad_fn']} {d['chain']}\n      {d['repr']}")

    text = f"{src}\n    PyTorch:  {brief(e)}\n    minigrad: {brief(a)}"
    if isinstance(e, dict) and isinstance(a, dict) and "version" in e and "version" in a:
        if e["version"] != a["version"]:
            text += f"\n    _version: PyTorch {e['version']}, minigrad {a['version']}"
        for name in sorted(set(e["saved"]) | set(a["saved"])):
            pe, pa = e["saved"].get(name, "(none)"), a["saved"].get(name, "(none)")
            if pe != pa:
                text += f"\n    {name}: PyTorch {str(pe)[:160]}, minigrad {str(pa)[:160]}"
    if graph:
        text += "".join(f"\n    chains part at (PyTorch, minigrad): {p}" for p in graph_differences(e, a))
    return text


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
