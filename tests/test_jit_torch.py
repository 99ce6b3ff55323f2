"""minigrad.jit against PyTorch: every case of tests/fixtures/jit_cases.py, run with minigrad.

What PyTorch 2.13 did for each case was recorded into
``tests/fixtures/jit_torch.json`` by ``tests/fixtures/record_jit.py``
(PyTorch is not needed here).  Compared, key by key: the traced graph's text
(operation names, order, value names and numbers, constants, types; file
paths reduced to the file's name), the warnings (category, message, line),
results on both sides of a branch (values with a float32 tolerance, reprs
exactly), the number of graphs compiled after each call of a sequence, the
recompile reasons, ``CompiledFunctionBackward`` names and ``next_functions``,
gradients equal to eager ones exactly, and the errors' type and first sentence.
"""

import importlib.util
import json
import math
import warnings
from pathlib import Path

import pytest

import minigrad

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _load_cases():
    spec = importlib.util.spec_from_file_location("jit_cases", FIXTURES / "jit_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


cases = _load_cases()
RECORDED = json.loads((FIXTURES / "jit_torch.json").read_text(encoding="utf-8"))["cases"]


class MinigradObserver:
    """The ``R`` of jit_cases.py, for minigrad: the same keys as record_jit.TorchObserver."""

    def __init__(self):
        self.out = {}

    def _n(self, s):
        return cases.normalize(s, "minigrad")

    def explain(self, key, fn, *args):
        import minigrad.jit

        self.out[key] = {"text": self._n(str(minigrad.jit.explain(fn, *args)))}

    def draw(self, key, obj):
        import minigrad.viz

        self.out[key] = {"text": self._n(minigrad.viz.draw(obj).text)}

    def text(self, key, s):
        self.out[key] = {"text": cases.normalize(s, "minigrad")}

    def value(self, key, t):
        t = t.detach()
        self.out[key] = {"value": t.tolist(), "dtype": str(t.dtype).replace("minigrad", "torch"),
                         "shape": list(t.shape)}

    def same(self, key, a, b):
        self.out[key] = {"same": bool(minigrad.equal(a, b))}

    def warnings(self, key, fn):
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            result = fn()
        self.out[key] = {"warnings": [_warning(w) for w in ws]}
        return result

    def error(self, key, fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - the error is what is compared
            self.out[key] = {"error": [type(e).__name__, cases.first_sentence(e)]}
        else:
            self.out[key] = {"error": None}

    def graphs(self, key, compiled):
        self.out[key] = {"graphs": len(compiled._minigrad_compiled.graphs)}

    def guard_failures(self, key, fn):
        state = _last_compiled[0]
        before = len(state.recompiles)
        result = fn()
        failures = [f.strip() for r in state.recompiles[before:] for f in r["failures"]]
        self.out[key] = {"guard_failures": failures}
        return result


_last_compiled = [None]


def _warning(w):
    fname = str(w.filename)
    where = "<library>"
    if fname.startswith(str(FIXTURES)):
        where = f"{Path(fname).name}:{w.lineno}"
    return [w.category.__name__, str(w.message), where]


def _close(e, a):
    if isinstance(e, list):
        return isinstance(a, list) and len(e) == len(a) and all(_close(x, y) for x, y in zip(e, a))
    return math.isclose(e, a, rel_tol=1e-5, abs_tol=1e-6)


@pytest.mark.parametrize("name", cases.CASES)
def test_case_matches_pytorch(name, monkeypatch):
    expected = RECORDED[name]
    obs = MinigradObserver()
    minigrad.jit.reset()
    minigrad.manual_seed(0)
    real_compile = minigrad.compile

    def tracking_compile(*args, **kwargs):
        cf = real_compile(*args, **kwargs)
        if hasattr(cf, "_minigrad_compiled"):
            _last_compiled[0] = cf._minigrad_compiled
        return cf

    monkeypatch.setattr(minigrad, "compile", tracking_compile)
    getattr(cases, name)(minigrad, obs)
    assert sorted(obs.out) == sorted(expected)
    diffs = []
    for key, exp in expected.items():
        got = obs.out[key]
        if "value" in exp:
            ok = (got["dtype"] == exp["dtype"] and got["shape"] == exp["shape"]
                  and _close(exp["value"], got["value"]))
        else:
            ok = got == exp
        if not ok:
            diffs.append(f"{key}:\n  PyTorch:  {exp}\n  minigrad: {got}")
    assert not diffs, "\n".join(diffs)
