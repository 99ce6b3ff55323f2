"""The developer and researcher lessons show what `make test-torch` compared, and the record is theirs.

Every output on a lesson's page is minigrad's; that they are PyTorch's too rests on
``make test-torch`` (tests/tools/test_torch.py), which writes what it compared to
notebooks/torch_check.json.  Each developer and researcher lesson prints its entry
(``minigrad.on_pytorch``).  These tests fail when the entry was made from
other code than the lesson's (run ``make test-torch``), or when the stored page shows
another entry than the file holds (then re-execute the lesson: ``make execute``).
"""

import json
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "tools"))
from execute_notebooks import IGNORE_TAG, sources_fingerprint  # noqa: E402

RECORD = ROOT / "notebooks" / "torch_check.json"
LESSONS = sorted(p for tier in ("developer", "researcher")
                 for p in (ROOT / "notebooks" / tier).glob("[0-9][0-9]_*.ipynb"))


def _entry(notebook):
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    lesson = notebook.relative_to(ROOT / "notebooks").as_posix()
    assert lesson in record, f"no entry for {lesson} in {RECORD.name}: run `make test-torch`"
    return lesson, record[lesson]


@pytest.mark.parametrize("notebook", LESSONS, ids=lambda p: p.stem)
def test_the_record_was_made_from_the_lessons_code(notebook):
    lesson, entry = _entry(notebook)
    nb = nbformat.read(notebook, as_version=4)
    assert entry["sources"] == sources_fingerprint(nb), (
        f"{lesson}: its code changed since `make test-torch` last passed it; run it again")
    assert entry["torch"].startswith("2.13"), entry["torch"]
    code = [c for c in nb.cells if c.cell_type == "code"]
    skipped = sum(bool({"torch-output-differs", IGNORE_TAG} & set(c.metadata.get("tags", [])))
                  for c in code)
    assert (entry["code_cells"], entry["compared"], entry["not_compared"]) == (
        len(code), len(code) - skipped, skipped)


@pytest.mark.parametrize("notebook", LESSONS, ids=lambda p: p.stem)
def test_the_page_shows_the_record(notebook):
    lesson, entry = _entry(notebook)
    nb = nbformat.read(notebook, as_version=4)
    calls = [c for c in nb.cells if c.cell_type == "code" and f'on_pytorch("{lesson}")' in c.source]
    assert len(calls) == 1, f"{lesson}: one cell should call on_pytorch({lesson!r})"
    shown = "".join(o.get("text", "") for o in calls[0].outputs)
    assert f"on PyTorch {entry['torch']} ({entry['date']})" in shown, (
        f"{lesson}: the page shows {shown!r}; re-execute it after `make test-torch`")
    assert f"{entry['compared']} of its {entry['code_cells']} code cells" in shown, shown
