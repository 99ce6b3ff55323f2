"""The stored lessons are in the form JupyterLab writes, and their widgets can be restored.

What ``make execute`` promises (tests/tools/execute_notebooks.py), checked on the files
without a browser; ``make lab-check`` checks the same for real in JupyterLab.
"""

import json
import pathlib

import nbformat
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
LESSONS = sorted(p for p in (ROOT / "notebooks").rglob("*.ipynb")
                 if ".ipynb_checkpoints" not in p.parts)
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


@pytest.fixture(params=LESSONS, ids=lambda p: p.relative_to(ROOT).as_posix())
def lesson(request):
    return request.param


def test_written_as_jupyterlab_writes_it(lesson):
    text = lesson.read_text(encoding="utf-8")
    nb = nbformat.reads(text, as_version=4)
    # the server writes nbformat's form: sorted keys, one-space indent, a final newline
    assert nbformat.writes(nb) + "\n" == text
    # JavaScript writes a whole number as 3, never 3.0
    whole = []
    json.loads(text, parse_float=lambda s: whole.append(s) if float(s).is_integer() else float(s))
    assert whole == []
    # JupyterLab stores the kernel's language_info, Python version included
    info = nb.metadata["language_info"]
    assert info["name"] == "python" and info["version"].count(".") == 2
    assert nb.metadata["kernelspec"] == {"display_name": "Python 3 (ipykernel)",
                                         "language": "python", "name": "python3"}
    assert all("execution" not in c.metadata for c in nb.cells)


def test_cells_have_their_own_ids(lesson):
    nb = nbformat.read(lesson, as_version=4)
    ids = [c.get("id") for c in nb.cells]
    assert all(ids) and len(set(ids)) == len(ids)  # widgets take their model ids from them


def test_every_widget_output_has_its_stored_state_and_a_static_picture(lesson):
    nb = nbformat.read(lesson, as_version=4)
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if WIDGET_VIEW not in data:
                continue
            model = data[WIDGET_VIEW]["model_id"]
            # a stable id, made from the cell's id: a run in JupyterLab names the same model
            assert model.startswith("minigrad-") and model in state
            # the stored page tells the whole story without a kernel
            assert {"image/png", "image/svg+xml", "text/plain"} <= set(data)
            assert "0x" not in "".join(data["text/plain"])
