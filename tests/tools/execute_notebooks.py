"""Re-run lesson notebooks top to bottom in a fresh kernel and store their outputs.

Usage: python tests/tools/execute_notebooks.py [--timeout SECONDS] NOTEBOOK...

What `make execute` runs.  For each notebook:

* a fresh kernel runs every cell in order (nbclient, with a per-cell timeout,
  since `jupyter nbconvert --execute` was seen to stall on widget notebooks);
* a cell tagged ``raises-exception`` may raise; any other error aborts that
  notebook, which is then left untouched on disk;
* the stored file is made reproducible: execution timestamps are dropped,
  widget model ids are renumbered in order of appearance, the kernel spec is
  fixed, so two runs on one machine give identical files.

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
        if "id" in cell:
            pass  # nbformat 4.5 ids are stable: they live in the source file
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
    text = nbformat.writes(work) + "\n" if not nbformat.writes(work).endswith("\n") else nbformat.writes(work)
    if text != original:
        path.write_text(text, encoding="utf-8")
        print(f"stored {path}")
    else:
        print(f"unchanged {path}")
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
