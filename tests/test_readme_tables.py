"""The README tables of lessons agree with the lessons they list.

Both README.md and notebooks/README.md give each lesson's reading time in a
table; the lesson's own first cell says "About N minutes".  A lesson that
grows or is cut changes its first cell, and a stale table then misleads a
reader choosing a path: these tests make that a failure.
"""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LESSONS = sorted((ROOT / "notebooks").glob("*/[0-9][0-9]_*.ipynb"))
TABLES = [ROOT / "README.md", ROOT / "notebooks" / "README.md"]


def _header_minutes(notebook):
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    first = "".join(cells[0]["source"])
    found = re.findall(r"About (\d+) minutes", first)
    assert len(found) == 1, f"{notebook.name}: the first cell should say 'About N minutes' once"
    return int(found[0])


def _table_minutes(readme, notebook):
    """The time of the table row naming `notebook` (tier/file without .ipynb)."""
    name = f"{notebook.parent.name}/{notebook.stem}"
    rows = [line for line in readme.read_text(encoding="utf-8").splitlines()
            if line.startswith("|") and name in line]
    assert len(rows) == 1, f"{readme.relative_to(ROOT)}: expected one table row for {name}, found {len(rows)}"
    found = re.findall(r"\|\s*(\d+) min\s*\|\s*$", rows[0])
    assert found, f"{readme.relative_to(ROOT)}: the row for {name} ends without '| N min |'"
    return int(found[0])


def test_every_lesson_is_found():
    assert len(LESSONS) == 9, [p.name for p in LESSONS]


@pytest.mark.parametrize("readme", TABLES, ids=lambda p: str(p.relative_to(ROOT)))
@pytest.mark.parametrize("notebook", LESSONS, ids=lambda p: p.stem)
def test_each_table_gives_the_time_the_lesson_gives(readme, notebook):
    assert _table_minutes(readme, notebook) == _header_minutes(notebook)
