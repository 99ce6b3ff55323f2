"""minigrad against PyTorch: every case of tests/fixtures/cases.py, run with minigrad.

The expected results were recorded from a real PyTorch run into
``tests/fixtures/torch_cases.json`` by ``tests/fixtures/record_torch.py``;
PyTorch is not needed here.  Each case runs its program with ``torch`` bound to
``minigrad`` and compares step by step:

* reprs (tensors, ``grad_fn`` nodes, ``next_functions``, saved values) exactly,
  after normalising hex addresses and dtype names;
* values (``value`` and ``grad`` steps) with a tolerance: rtol 1e-5 / atol 1e-6
  for float32, rtol 1e-10 / atol 1e-12 for float64, exactly for integers;
  dtype and shape exactly;
* graphs (``chain`` steps): node names and edge structure exactly;
* errors: the exception's type and the first sentence of its message.

A failure lists every step that differs, PyTorch's result beside minigrad's.
"""

import difflib
import importlib.util
import json
import math
from pathlib import Path

import pytest

import minigrad

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _load_cases_module():
    spec = importlib.util.spec_from_file_location("parity_cases", FIXTURES / "cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


cases = _load_cases_module()
RECORDING = json.loads((FIXTURES / "torch_cases.json").read_text(encoding="utf-8"))
RECORDED = RECORDING["cases"]
IDS = sorted(RECORDED, key=lambda cid: RECORDED[cid]["index"])

TOLERANCE = {"torch.float32": (1e-5, 1e-6), "torch.float64": (1e-10, 1e-12)}


# ------------------------------------------------------------------ compare

def _as_float(v):
    return float(v) if isinstance(v, str) else v  # 'nan', 'inf' were stored as strings


def _values_close(expected, actual, dtype):
    if isinstance(expected, list) or isinstance(actual, list):
        return (isinstance(expected, list) and isinstance(actual, list)
                and len(expected) == len(actual)
                and all(_values_close(e, a, dtype) for e, a in zip(expected, actual)))
    if dtype not in TOLERANCE:
        return expected == actual and type(expected) is type(actual)
    e, a = _as_float(expected), _as_float(actual)
    if not isinstance(a, (int, float)) or isinstance(a, bool):
        return False
    if math.isnan(e) or math.isnan(a):
        return math.isnan(e) and math.isnan(a)
    if math.isinf(e) or math.isinf(a):
        return e == a
    rtol, atol = TOLERANCE[dtype]
    return abs(e - a) <= atol + rtol * abs(e)


def _step_matches(kind, expected, actual):
    """True if minigrad's result of one step agrees with PyTorch's."""
    if "unexpected" in actual or "unexpected" in expected:
        return False
    if kind == "error":
        e, a = expected["raised"], actual["raised"]
        if e is None or a is None:
            return e is None and a is None
        return e["type"] == a["type"] and e["first_sentence"] == a["first_sentence"]
    if kind in ("value", "grad"):
        if set(expected) != set(actual):
            return False
        for key, ev in expected.items():
            if key == "values":
                if not _values_close(ev, actual["values"], expected["dtype"]):
                    return False
            elif ev != actual[key]:
                return False
        return True
    return expected == actual


def _pretty(result):
    """A result as readable text: reprs and messages as they print, the rest as JSON."""
    if set(result) == {"repr"}:
        return result["repr"]
    if "raised" in result and result["raised"] is not None:
        r = result["raised"]
        return f"{r['type']}: {r['message']}"
    if "unexpected" in result:
        r = result["unexpected"]
        return f"(unexpected exception) {r['type']}: {r['message']}"
    if "nodes" in result and result["nodes"] is not None:
        lines = []
        for i, n in enumerate(result["nodes"]):
            edges = ", ".join(f"({'None' if k is None else '#' + str(k)}, {nr})"
                              for k, nr in n["next"])
            var = f"  variable={n['variable']}" if "variable" in n else ""
            lines.append(f"#{i} {n['name']} -> ({edges}){var}")
        return "\n".join(lines)
    text = json.dumps(result, sort_keys=True, ensure_ascii=False)
    if "repr" in result:
        text += "\nrepr:\n" + result["repr"]
    return text


def _indent(text, prefix="      "):
    return "\n".join(prefix + line for line in text.splitlines() or [""])


def _report(case_id, steps, expected, actual):
    out = []
    for n, ((kind, src), e, a) in enumerate(zip(steps, expected, actual), 1):
        if _step_matches(kind, e, a):
            continue
        pe, pa = _pretty(e), _pretty(a)
        block = [f"step {n} [{kind}] {src}",
                 "    PyTorch:", _indent(pe), "    minigrad:", _indent(pa)]
        if "\n" in pe or "\n" in pa:
            diff = difflib.unified_diff(pe.splitlines(), pa.splitlines(), "PyTorch", "minigrad",
                                        lineterm="", n=1)
            block += ["    diff:", _indent("\n".join(diff))]
        out.append("\n".join(block))
    if not out:
        return None
    head = f"minigrad differs from PyTorch {RECORDING['torch_version']} in case {case_id!r} " \
           f"({len(out)} of {len(steps)} steps):"
    return head + "\n\n" + "\n\n".join(out)


# -------------------------------------------------------------------- tests

@pytest.mark.parametrize("case_id", IDS)
def test_matches_pytorch(case_id):
    rec = RECORDED[case_id]
    actual = cases.run_case(minigrad, {"id": case_id, "steps": rec["steps"]})
    report = _report(case_id, rec["steps"], rec["results"], actual)
    if report:
        pytest.fail(report, pytrace=False)


def test_recording_is_current():
    """torch_cases.json holds exactly the cases of cases.py (else re-run record_torch.py)."""
    table = {c["id"]: c for c in cases.CASES}
    problems = []
    for cid in sorted(set(table) - set(RECORDED)):
        problems.append(f"not recorded: {cid}")
    for cid in sorted(set(RECORDED) - set(table)):
        problems.append(f"recorded but no longer in cases.py: {cid}")
    for cid in sorted(set(table) & set(RECORDED)):
        if table[cid]["steps"] != RECORDED[cid]["steps"]:
            problems.append(f"steps changed since recording: {cid}")
    assert not problems, (
        "tests/fixtures/torch_cases.json is out of date; re-run "
        "tests/fixtures/record_torch.py with a Python that has PyTorch:\n  " + "\n  ".join(problems)
    )


def test_normalisation():
    """The string normalisation the comparison relies on."""
    assert cases.normalise("<MulBackward0 object at 0x7f3a2b>") == "<MulBackward0 object at 0xADDR>"
    assert cases.normalise("dtype=minigrad.float64)", "minigrad") == "dtype=torch.float64)"
    assert cases.normalise("minigrad.tensor(1.)", "minigrad") == "minigrad.tensor(1.)"
    assert cases.first_sentence("First one. Second.") == "First one."
    assert cases.first_sentence("line one\nline. two") == "line one"
    assert cases.first_sentence("no full stop") == "no full stop"


def test_comparison_reports_differences():
    """A differing repr, value or error message fails with both sides shown."""
    steps = [["show", "x"], ["value", "y"], ["error", "z"]]
    expected = [{"repr": "tensor(6.)"},
                {"dtype": "torch.float32", "shape": [], "values": 1.0},
                {"raised": {"type": "RuntimeError", "first_sentence": "A.", "message": "A. B"}}]
    same = [{"repr": "tensor(6.)"},
            {"dtype": "torch.float32", "shape": [], "values": 1.0 + 1e-7},
            {"raised": {"type": "RuntimeError", "first_sentence": "A.", "message": "A. C"}}]
    assert _report("demo", steps, expected, same) is None
    differ = [{"repr": "tensor(6.0)"},
              {"dtype": "torch.float32", "shape": [], "values": 1.1},
              {"raised": None}]
    report = _report("demo", steps, expected, differ)
    assert "step 1 [show] x" in report and "tensor(6.0)" in report
    assert "step 2 [value] y" in report and "step 3 [error] z" in report
