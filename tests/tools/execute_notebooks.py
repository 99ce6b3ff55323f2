"""Re-run lesson notebooks top to bottom in a fresh kernel and store their outputs.

Usage: python tests/tools/execute_notebooks.py [--timeout SECONDS] [--store-timings] NOTEBOOK...

What `make execute` runs.  For each notebook:

* a fresh kernel runs every cell in order (nbclient, with a per-cell timeout,
  since `jupyter nbconvert --execute` was seen to stall on widget notebooks);
* a cell tagged ``raises-exception`` may raise; any other error aborts that
  notebook, which is then left untouched on disk;
* each execute request carries the cell's id (``cellId`` in its metadata, as
  JupyterLab sends it), so ``minigrad.widgets`` gives its widgets the same
  model ids as a run in JupyterLab does;
* the stored file is made reproducible and is in exactly the form JupyterLab
  writes (so that opening a lesson and letting autosave run changes nothing):
  execution timestamps are dropped, widget model ids that are random are
  renumbered in order of appearance (``minigrad-...`` ids are stable already),
  the kernel spec is the one JupyterLab writes, ``language_info`` is what the
  kernel reports (with the Python version, as JupyterLab stores it), numbers
  that are whole are written as JavaScript writes them (``3``, not ``3.0``),
  and consecutive pieces of one stream (the kernel splits printed text at
  random) are merged;
* object addresses (``<MulBackward0 object at 0x...>``) differ every run, as
  in PyTorch, and so do timings (cells tagged ``nbval-ignore-output``): when
  the new outputs equal the stored ones once addresses are sanitised (the
  rules nbval uses, tests/nbval_sanitize.cfg), and the outputs of the cells
  tagged ``nbval-ignore-output`` differ at most in their contents (the same
  number and kinds of outputs), the file is left as it is, with the outputs
  of the earlier real run.  So a second run changes nothing;
* but only if those outputs came from the same code: each run stamps the
  notebook's metadata with a fingerprint of its code cells' sources
  (``autograd_in_depth.executed_sources``), and a file whose stamp does not
  match its code is always written, so a changed timing cell never keeps the
  outputs of the code it replaced.
* ``--store-timings`` writes the new run's outputs even when they differ from
  the stored ones only in timings and addresses: for a lesson's final run on an
  idle machine, whose printed timings are the ones to keep.

Exit status 1 if any notebook failed.
"""

import argparse
import copy
import hashlib
import json
import pathlib
import re
import sys

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError

KERNEL = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


SANITIZE = pathlib.Path(__file__).resolve().parents[1] / "nbval_sanitize.cfg"


def _sanitize_rules():
    """The regex/replace pairs of tests/nbval_sanitize.cfg (the nbval file format)."""
    rules, regex = [], None
    for line in SANITIZE.read_text(encoding="utf-8").splitlines():
        if line.startswith("regex:"):
            regex = line[len("regex:"):].strip()
        elif line.startswith("replace:") and regex is not None:
            rules.append((re.compile(regex), line[len("replace:"):].strip()))
            regex = None
    return rules


def _sanitized(text, rules):
    for pattern, repl in rules:
        text = pattern.sub(repl, text)
    return text


IGNORE_TAG = "nbval-ignore-output"
STAMP = "autograd_in_depth"  # notebook metadata: {"executed_sources": fingerprint}


def sources_fingerprint(nb):
    """A short sha256 of ``nb``'s code cells' sources, in order: which code outputs came from."""
    digest = hashlib.sha256()
    for cell in nb.cells:
        if cell.cell_type == "code":
            digest.update(cell.source.encode("utf-8") + b"\0")
    return digest.hexdigest()[:16]


def stamped_fingerprint(nb):
    """The fingerprint the stored outputs were made with, or None for an unstamped file."""
    return nb.metadata.get(STAMP, {}).get("executed_sources")


def _comparable(text, rules):
    """``text`` sanitised, with each ``nbval-ignore-output`` cell's outputs reduced to their kinds.

    Two runs whose comparable forms are equal differ only in what nbval does
    not compare: addresses and the contents of cells whose output cannot be
    stable (timings), which still hold the same number and kinds of outputs.
    """
    nb = json.loads(_sanitized(text, rules))
    for cell in nb.get("cells", []):
        if IGNORE_TAG in cell.get("metadata", {}).get("tags", []):
            cell["outputs"] = [[o.get("output_type"), o.get("name"), sorted(o.get("data", {}))]
                               for o in cell.get("outputs", [])]
    return json.dumps(nb, sort_keys=True)


def _merge_streams(cell):
    merged = []
    for out in cell.get("outputs", []):
        if (out.get("output_type") == "stream" and merged
                and merged[-1].get("output_type") == "stream"
                and merged[-1].get("name") == out.get("name")):
            merged[-1]["text"] = merged[-1]["text"] + out["text"]
        else:
            merged.append(out)
    cell["outputs"] = merged


def _js_numbers(obj):
    """Whole floats as ints, everywhere: JupyterLab's JSON.stringify writes ``3.0`` as ``3``."""
    if isinstance(obj, float) and obj.is_integer() and abs(obj) < 2**53:
        return int(obj)
    if isinstance(obj, dict):
        return {k: _js_numbers(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_js_numbers(v) for v in obj]
    return obj


def _normalise(nb, language_info):
    """Drop what changes between runs, and write what JupyterLab would write."""
    nb.metadata["kernelspec"] = dict(KERNEL)
    if language_info:
        nb.metadata["language_info"] = dict(language_info)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            _merge_streams(cell)
    nb = nbformat.from_dict(_js_numbers(json.loads(nbformat.writes(nb))))
    # Widget model ids are random per run: renumber them in a canonical order.
    return _renumber_widgets(nb)


_WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
_WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
_REF = re.compile(r"IPY_MODEL_([0-9a-f]{32})")
STABLE = "minigrad-"  # model ids minigrad.widgets makes from the cell id: the same every run


def _renumber_widgets(nb):
    """Replace the random widget model ids by 1, 2, 3, ... in an order that does not depend on them.

    Order: the models displayed by the cells (in cell order), each followed by the models it
    refers to (depth first, in the order they appear in its sorted-key JSON); then the models
    nothing displayed refers to (links, ...), sorted by their content with known ids renumbered.
    Ids appear bare (state keys, ``model_id``) and as ``IPY_MODEL_<id>`` references; both are
    replaced (a ``\\b`` regex misses the second form: ``_`` and a hex digit are both word characters).
    """
    state = nb.metadata.get("widgets", {}).get(_WIDGET_STATE, {}).get("state")
    if not state:
        return nbformat.reads(nbformat.writes(nb), as_version=4)
    order, seen = [], set()
    stack = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            view = out.get("data", {}).get(_WIDGET_VIEW)
            if view and view.get("model_id") in state:
                stack.append(view["model_id"])
            while stack:
                mid = stack.pop()
                if mid in seen or mid not in state:
                    continue
                seen.add(mid)
                order.append(mid)
                refs = _REF.findall(json.dumps(state[mid], sort_keys=True))
                stack.extend(reversed(refs))
    order = [m for m in order if not m.startswith(STABLE)]
    mapping = {old: f"{i:032x}" for i, old in enumerate(order, 1)}
    rest = [m for m in state if m not in seen and not m.startswith(STABLE)]
    while rest:
        def key(m):
            text = json.dumps(state[m], sort_keys=True)
            return _REF.sub(lambda r: "IPY_MODEL_" + mapping.get(r.group(1), "?"), text)
        rest.sort(key=key)
        mapping[rest.pop(0)] = f"{len(mapping) + 1:032x}"
    text = nbformat.writes(nb)
    text = re.sub(r"(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])",
                  lambda m: mapping.get(m.group(0), m.group(0)), text)
    return nbformat.reads(text, as_version=4)


class CellIdClient(NotebookClient):
    """``NotebookClient`` whose execute requests carry the cell's id, as JupyterLab's do."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._cell_id = None
        self.on_cell_execute = self._remember_cell

    def _remember_cell(self, cell, cell_index):
        self._cell_id = cell.get("id")

    async def async_start_new_kernel_client(self):
        kc = await super().async_start_new_kernel_client()
        client = self

        def execute(code, silent=False, store_history=True, user_expressions=None,
                    allow_stdin=None, stop_on_error=True):
            content = {"code": code, "silent": silent, "store_history": store_history,
                       "user_expressions": user_expressions or {},
                       "allow_stdin": False if allow_stdin is None else allow_stdin,
                       "stop_on_error": stop_on_error}
            metadata = {"cellId": client._cell_id} if client._cell_id else {}
            msg = kc.session.msg("execute_request", content, metadata=metadata)
            kc.shell_channel.send(msg)
            return msg["header"]["msg_id"]

        kc.execute = execute
        return kc


def run(nb, path, timeout):
    """Execute ``nb`` (a notebook node) as ``make execute`` does; returns the client."""
    client = CellIdClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        allow_errors=False,
        record_timing=False,
    )
    client.execute()
    return client


def execute(path, timeout, store_timings=False):
    """Run one notebook; write it back only if every cell behaved. Returns True on success.

    With ``store_timings`` the run's outputs are written even when they equal the
    stored ones once sanitised (timings and addresses are then this run's)."""
    path = pathlib.Path(path)
    original = path.read_text(encoding="utf-8")
    nb = nbformat.reads(original, as_version=4)
    work = copy.deepcopy(nb)
    try:
        run(work, path, timeout)
    except (CellExecutionError, CellTimeoutError) as err:
        print(f"FAILED {path}: left untouched\n{err}", file=sys.stderr)
        return False
    work = _normalise(work, work.metadata.get("language_info"))
    work.metadata[STAMP] = {"executed_sources": sources_fingerprint(work)}
    text = nbformat.writes(work)
    if not text.endswith("\n"):
        text += "\n"
    rules = _sanitize_rules()
    same_code = stamped_fingerprint(nb) == sources_fingerprint(nb)
    if (not store_timings and same_code
            and _comparable(text, rules) == _comparable(original, rules)):
        print(f"unchanged {path} (outputs equal once addresses are sanitised; "
              "timings as stored)")
    else:
        path.write_text(text, encoding="utf-8")
        print(f"stored {path}")
    return True


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    parser.add_argument("--store-timings", action="store_true",
                        help="write this run's outputs even if only timings and addresses changed")
    parser.add_argument("notebooks", nargs="+")
    args = parser.parse_args(argv)
    ok = True
    for p in args.notebooks:
        ok = execute(p, args.timeout, args.store_timings) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
