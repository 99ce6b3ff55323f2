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

Exit status: 0 when every test passes and every lesson matches.
"""

import json
import pathlib
import re
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "test-torch"
SANITIZE = ROOT / "tests" / "nbval_sanitize.cfg"
TAG = "torch-output-differs"
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
    cmd = [sys.executable, "-m", "pytest", "-q", "--nbval", "--nbval-current-env",
           f"--nbval-sanitize-with={rules}", *[str(c) for c in copies]]
    return subprocess.call(cmd, cwd=ROOT) or status


if __name__ == "__main__":
    sys.exit(main())
