"""Run every lesson on real PyTorch and compare each output with the one stored from minigrad.

Usage: python tests/tools/test_torch.py [NOTEBOOK ...]   (what `make test-torch` runs,
with the Python of .venv-torch: PyTorch 2.13 CPU, the test extra, minigrad itself)

For each lesson, a copy is made under build/test-torch/ (the same layout as
notebooks/) in which each code cell's ``import minigrad as torch`` reads
``import torch``; nothing else changes, ``from minigrad import viz, widgets,
memory`` included: minigrad's teaching tools draw, walk and measure PyTorch's
graphs.  Then nbval runs the copies, on a kernel of this Python, and
compares every output with the stored one, as ``make test`` does for
minigrad: addresses sanitised, pictures through their text form (SVG is not
compared).  One more sanitising rule: minigrad's own module name, where its
printout names it by design (``minigrad.float64``, ``minigrad.Size``), reads
as ``torch.``.

A cell whose output legitimately differs between the two libraries is tagged
``torch-output-differs`` (its lesson says why): it runs, and its output is
not compared (the copy tags it ``nbval-ignore-output``).  Such cells are few.

Before the lessons, the library tests that need PyTorch run (tests/on_torch/:
minigrad's pictures, walks and memory figures of PyTorch graphs equal those
of the same programs on minigrad).

Each lesson runs on its own; when it matches, its entry in
``notebooks/torch_check.json`` is written (PyTorch's version, the date, the
fingerprint of the lesson's code, how many outputs were compared); a lesson that
fails loses its entry.  The developer and researcher lessons print their entry
(``minigrad.on_pytorch``), and tests/test_torch_record.py checks that
the entry belongs to the lesson's code and that the page shows it.

Exit status: 0 when every test passes and every lesson matches.
"""

import datetime
import json
import pathlib
import re
import shutil
import subprocess
import sys

import nbformat

from execute_notebooks import IGNORE_TAG, sources_fingerprint

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "test-torch"
SANITIZE = ROOT / "tests" / "nbval_sanitize.cfg"
TAG = "torch-output-differs"
RECORD = ROOT / "notebooks" / "torch_check.json"
IMPORT = re.compile(r"^(\s*)import minigrad as torch\b", re.M)
TORCH_RULES = """
[minigrad's module name, where its printout names it by design, reads as PyTorch's]
regex: \\bminigrad\\.(?=[A-Za-z_])
replace: torch.
"""


def on_torch(nb):
    """The notebook with its code cells importing PyTorch; the number of imports replaced."""
    replaced = 0
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        new, n = IMPORT.subn(r"\1import torch", source)
        replaced += n
        cell["source"] = new
        tags = cell.setdefault("metadata", {}).setdefault("tags", [])
        if TAG in tags and "nbval-ignore-output" not in tags:
            tags.append("nbval-ignore-output")
    return nb, replaced


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        import torch
    except ImportError:
        print("test-torch: PyTorch is not installed in this Python "
              f"({sys.executable}); run `make test-torch`, which makes .venv-torch",
              file=sys.stderr)
        return 2
    paths = [pathlib.Path(p).resolve() for p in argv] or sorted(
        p for p in (ROOT / "notebooks").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
    if BUILD.exists():
        shutil.rmtree(BUILD)
    copies = []
    for path in paths:
        nb = json.loads(path.read_text(encoding="utf-8"))
        nb, replaced = on_torch(nb)
        if not replaced:
            print(f"test-torch: {path.relative_to(ROOT)} has no `import minigrad as torch` line: "
                  "every lesson imports minigrad under PyTorch's name", file=sys.stderr)
            return 1
        copy = BUILD / path.relative_to(ROOT)
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        copies.append(copy)
    rules = BUILD / "nbval_sanitize_torch.cfg"
    rules.write_text(SANITIZE.read_text(encoding="utf-8") + TORCH_RULES, encoding="utf-8")
    print(f"test-torch: {len(copies)} lesson(s) on torch {torch.__version__}, "
          f"copies in {BUILD.relative_to(ROOT)}", flush=True)
    # the library tests that need PyTorch (tests/on_torch), then every lesson
    cmd = [sys.executable, "-m", "pytest", "-q", "tests/on_torch"]
    status = subprocess.call(cmd, cwd=ROOT)
    record = json.loads(RECORD.read_text(encoding="utf-8")) if RECORD.exists() else {}
    if RECORD.exists():  # the lessons that print their record read this copy
        shutil.copy(RECORD, BUILD / RECORD.relative_to(ROOT))
    failed = 0
    for path, copy in zip(paths, copies):
        cmd = [sys.executable, "-m", "pytest", "-q", "--nbval", "--nbval-current-env",
               f"--nbval-sanitize-with={rules}", str(copy)]
        lesson = path.relative_to(ROOT / "notebooks").as_posix()
        if subprocess.call(cmd, cwd=ROOT):
            failed += 1
            record.pop(lesson, None)
        else:
            record[lesson] = compared(path, torch.__version__)
    RECORD.write_text(json.dumps(dict(sorted(record.items())), indent=1) + "\n", encoding="utf-8")
    return 1 if failed else status


def compared(path, version):
    """The record of one lesson that matched: what was run, and what was compared."""
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    skipped = sum(bool({TAG, IGNORE_TAG} & set(c.metadata.get("tags", []))) for c in code)
    return {"torch": version, "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
            "sources": sources_fingerprint(nb), "code_cells": len(code),
            "compared": len(code) - skipped, "not_compared": skipped}


if __name__ == "__main__":
    sys.exit(main())
