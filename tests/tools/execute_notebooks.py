"""Re-run lesson notebooks top to bottom in a fresh kernel and store their outputs.

Usage: python tests/tools/execute_notebooks.py [--timeout SECONDS] NOTEBOOK...

What `make execute` runs.  For each notebook:

* a fresh kernel runs every cell in order (nbclient, with a per-cell timeout,
  since `jupyter nbconvert --execute` was seen to stall on widget notebooks);
* a cell tagged ``raises-exception`` may raise; any other error aborts that
  notebook, which is then left untouched on disk;
* the stored file is made reproducible: execution timestamps are dropped,
  widget model ids are renumbered in order of appearance, the kernel spec is
  fixed, and consecutive pieces of one stream (the kernel splits printed text
  at random) are merged;
* object addresses (``<MulBackward0 object at 0x...>``) differ every run, as
  in PyTorch: when the new outputs equal the stored ones once addresses are
  sanitised (the rules nbval uses, tests/nbval_sanitize.cfg), the file is left
  as it is.  So a second run changes nothing.

Exit status 1 if any notebook failed.
"""

import argparse
import copy
import pathlib
import re
import sys

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError

KERNEL = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
_MODEL_ID = re.compile(r"\b[0-9a-f]{32}\b")


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


def _normalise(nb):
    """Drop what changes between runs without changing what a reader sees."""
    nb.metadata["kernelspec"] = dict(KERNEL)
    lang = nb.metadata.get("language_info", {})
    nb.metadata["language_info"] = {"name": "python", "pygments_lexer": "ipython3",
                                    "file_extension": ".py", "mimetype": "text/x-python",
                                    "nbconvert_exporter": "python",
                                    "codemirror_mode": lang.get("codemirror_mode",
                                                                {"name": "ipython", "version": 3})}
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            _merge_streams(cell)
    # Widget model ids are random per run: renumber them in order of appearance.
    text = nbformat.writes(nb)
    ids = {}

    def renumber(m):
        key = m.group(0)
        if key not in ids:
            ids[key] = f"{len(ids) + 1:032x}"
        return ids[key]

    widgets = nb.metadata.get("widgets")
    if widgets:
        text = _MODEL_ID.sub(renumber, text)
    return nbformat.reads(text, as_version=4)


def execute(path, timeout):
    """Run one notebook; write it back only if every cell behaved. Returns True on success."""
    path = pathlib.Path(path)
    original = path.read_text(encoding="utf-8")
    nb = nbformat.reads(original, as_version=4)
    work = copy.deepcopy(nb)
    client = NotebookClient(
        work,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        allow_errors=False,
        record_timing=False,
    )
    try:
        client.execute()
    except (CellExecutionError, CellTimeoutError) as err:
        print(f"FAILED {path}: left untouched\n{err}", file=sys.stderr)
        return False
    work = _normalise(work)
    text = nbformat.writes(work)
    if not text.endswith("\n"):
        text += "\n"
    rules = _sanitize_rules()
    if _sanitized(text, rules) == _sanitized(original, rules):
        print(f"unchanged {path} (outputs equal once addresses are sanitised)")
    else:
        path.write_text(text, encoding="utf-8")
        print(f"stored {path}")
    return True


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    parser.add_argument("notebooks", nargs="+")
    args = parser.parse_args(argv)
    ok = True
    for p in args.notebooks:
        ok = execute(p, args.timeout) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
