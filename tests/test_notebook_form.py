"""The stored lessons are in the form JupyterLab writes, their widgets can be restored, and
a page made of them without a kernel (nbconvert, as nbviewer makes it) shows every picture.

What ``make execute`` promises (tests/tools/execute_notebooks.py), checked on the files
without a browser; ``make lab-check`` checks the same for real in JupyterLab.
"""

import base64
import importlib.util
import json
import re
import pathlib
from html.parser import HTMLParser

import nbformat
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _execute_tool():
    """tests/tools/execute_notebooks.py, the tool behind ``make execute``."""
    spec = importlib.util.spec_from_file_location(
        "execute_notebooks", ROOT / "tests" / "tools" / "execute_notebooks.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool
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


def test_every_widget_output_has_its_stored_state_and_its_strip_below_it(lesson):
    nb = nbformat.read(lesson, as_version=4)
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    for cell in nb.cells:
        outs = cell.get("outputs", [])
        for k, out in enumerate(outs):
            data = out.get("data", {})
            if WIDGET_VIEW not in data:
                continue
            model = data[WIDGET_VIEW]["model_id"]
            # a stable id, made from the cell's id: a run in JupyterLab names the same model
            assert model.startswith("minigrad-") and model in state, cell.id
            # the widget view is an output of its own (a renderer that knows its mimetype would
            # choose it over any picture beside it), with one line of text where it cannot run
            assert set(data) == {WIDGET_VIEW, "text/plain"}, cell.id
            assert "the pictures below show every" in data["text/plain"], cell.id
            # the output just below it is the strip: the stored page tells the whole story
            assert k + 1 < len(outs) and outs[k + 1].output_type == "display_data", cell.id
            strip = outs[k + 1].get("data", {})
            assert set(strip) == {"image/png", "image/svg+xml", "text/plain"}, cell.id
            assert "0x" not in strip["text/plain"]


class _Pictures(HTMLParser):
    """The ``<img src>`` of each cell of a page nbconvert wrote (cells: ``id="cell-id=..."``)."""

    def __init__(self):
        super().__init__()
        self.cell = None
        self.images = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if (attrs.get("id") or "").startswith("cell-id="):
            self.cell = attrs["id"][len("cell-id="):]
        elif tag == "img" and self.cell is not None:
            self.images.setdefault(self.cell, []).append(attrs.get("src", ""))


def _picture_of(src):
    """``(mimetype, content)`` of a data: URI, the content as stored in a notebook."""
    head, _, payload = src.partition(",")
    mimetype = head[len("data:"):].split(";")[0]
    raw = base64.b64decode(payload)
    return mimetype, raw.decode("utf-8") if mimetype == "image/svg+xml" else raw


@pytest.mark.parametrize("template", ["lab", "classic"])
def test_the_page_nbconvert_makes_shows_every_stored_picture(lesson, template):
    """What nbviewer shows: ``jupyter nbconvert --to html`` of the stored lesson, no kernel.

    Every stored picture appears in its cell's HTML, in order: in particular every widget's
    strip (nbconvert shows one mimetype per output, and a widget view beside it would win).
    """
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name=template)
    nb = nbformat.read(lesson, as_version=4)
    page, _ = exporter.from_notebook_node(nb)
    found = _Pictures()
    found.feed(page)
    for cell in nb.cells:
        stored = [out["data"] for out in cell.get("outputs", [])
                  if {"image/png", "image/svg+xml"} & set(out.get("data", {}))]
        shown = [_picture_of(src) for src in found.images.get(cell.id, [])
                 if src.startswith("data:image/")]
        assert len(shown) == len(stored), f"{cell.id}: {len(stored)} stored, {len(shown)} shown"
        for data, (mimetype, content) in zip(stored, shown):
            expected = (base64.b64decode(data[mimetype]) if mimetype == "image/png"
                        else data.get(mimetype))
            assert content == expected, f"{cell.id}: a different picture ({mimetype})"


def test_beginner_and_developer_prose_has_no_tex(lesson):
    """A page rendered offline (no MathJax) shows ``$x^2$`` as it is typed: the beginner and
    developer tiers write their few formulas as plain text, Unicode or code; only the researcher
    tier writes LaTeX."""
    tier = lesson.relative_to(ROOT / "notebooks").parts[0]
    if tier not in ("beginner", "developer"):
        pytest.skip("the researcher tier writes its mathematics in LaTeX")
    nb = nbformat.read(lesson, as_version=4)
    tex = [(cell.id, line) for cell in nb.cells if cell.cell_type == "markdown"
           for line in cell.source.splitlines() if "$" in line]
    assert tex == []


def test_stored_outputs_come_from_the_stored_code(lesson):
    """``make execute`` stamps the code its outputs came from: a cell edited after the run (its
    outputs, timings included, would be another code's) shows as a mismatch here."""
    tool = _execute_tool()
    nb = nbformat.reads(lesson.read_text(encoding="utf-8"), as_version=4)
    assert tool.stamped_fingerprint(nb) == tool.sources_fingerprint(nb), (
        f"{lesson.name}: its code changed since make execute stored its outputs: run make execute")


def test_an_error_shows_its_message_not_the_librarys_frames(lesson):
    """An error a lesson raises on purpose shows one line, as ``%xmode Minimal`` prints it: a full
    traceback would show minigrad's own files (and the path of the machine that ran it), which on
    PyTorch are other files, and bury the message a reader is there to see."""
    nb = nbformat.read(lesson, as_version=4)
    long = [(cell.id, len(out.traceback)) for cell in nb.cells if cell.cell_type == "code"
            for out in cell.outputs if out.output_type == "error" and len(out.traceback) > 1]
    assert long == [], f"{lesson.name}: errors with a full traceback (put %xmode Minimal first)"


_LIST_ITEM = re.compile(r"^\s{0,3}(\d+[.)]|[-*+])\s")
_NUMBERED_LINE = re.compile(r"^\s{0,3}\d+[.)](\s|$)")


def test_no_wrapped_line_begins_like_a_numbered_list(lesson):
    """A prose line wrapped so that it begins ``1)`` or ``1.`` starts a list on the rendered page and
    breaks its sentence (a reader met "(near or made two walks more" in researcher 01): wrap it
    elsewhere.  Lines inside a list, or after a blank line, are list items on purpose."""
    nb = nbformat.reads(lesson.read_text(encoding="utf-8"), as_version=4)
    found = []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        in_list, after_blank, in_fence = False, True, False
        for line in cell.source.split("\n"):
            if line.strip().startswith("```"):
                in_fence = not in_fence
            if in_fence:
                continue
            if not line.strip():
                in_list, after_blank = False, True
                continue
            if _NUMBERED_LINE.match(line) and not after_blank and not in_list:
                found.append(f"{cell.get('id')}: {line[:50]!r}")
            if _LIST_ITEM.match(line) and (after_blank or in_list):
                in_list = True
            after_blank = False
    assert not found, f"{lesson.name}: lines that would render as a list: {found}"


# A number in the researcher tier's prose that looks measured (a decimal, or thousands grouped by
# commas) must be one the lesson's code or stored outputs show, so that a new run cannot leave a
# sentence behind.  Numbers derived by hand are listed here with their derivation.
_PROSE_NUMBER = re.compile(r"(?<![\w.,/#^_-])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+)(?![\w.]*\d)")
_DERIVED_IN_PROSE = {
    "researcher/01_reverse_mode_as_vjps.ipynb": {
        "66,048": "N = 4 w^2 + 4 w at width 128",
        "1,050,624": "N at width 512", "0.71": "sqrt(2) / 2",
        "0.58": "1 + log2(0.75), the exponent at the band's lower end", "1.32": "1 + log2(1.25), at its upper end",
        "6.5": "softmax's numerator: 2.5 (subtraction amplified by exp) + 4 (exp)",
        "10.5": "softmax's denominator: 6.5 + 4 (a sum of five)", "4.5": "e^1.5 = 4.48",
        "1.07": "(B n) n^2 = 16,384 x 65,536 = 1.07e9", "2.2": "a section number (Higham §2.2)",
        "3.1": "a section number (Higham §3.1)",
        "3.3": "a lemma number (Higham's Lemma 3.3)", "3.2": "a section number (Baydin et al. §3.2)",
        "4.6": "a section number (Griewank & Walther §4.6)"},
}


def _shown_by_the_lesson(nb):
    """The code and the text of the stored outputs (stream, text/*, SVG) in one string."""
    parts = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        parts.append(cell.source)
        for out in cell.get("outputs", []):
            parts.append(out.get("text", ""))
            parts += [v for k, v in out.get("data", {}).items()
                      if isinstance(v, str) and (k.startswith("text/") or k == "image/svg+xml")]
    shown = "\n".join(parts)
    return shown + "\n" + shown.replace(",", "")


@pytest.mark.parametrize("lesson", [p for p in LESSONS if "researcher" in p.parts],
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_researcher_prose_numbers_are_shown_by_a_cell(lesson):
    """Researcher referees found numbers typed into the prose from one stored run.  Each decimal
    or comma-grouped number in the markdown appears in the lesson's code or stored outputs, or is
    in ``_DERIVED_IN_PROSE`` with how it is derived: a re-run that changes a printed number then
    fails here until the sentence is changed too.  (A number that a cell prints and the prose
    repeats passes; the prose should say "the cell prints" rather than repeat it.)"""
    rel = lesson.relative_to(ROOT / "notebooks").as_posix()
    nb = nbformat.read(lesson, as_version=4)
    shown, derived = _shown_by_the_lesson(nb), _DERIVED_IN_PROSE.get(rel, {})
    missing = []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        prose = re.sub(r"\]\([^)]*\)|https?://\S+|arXiv[: ]*\d+\.\d+", "", cell.source, flags=re.I)
        for match in _PROSE_NUMBER.finditer(prose):
            number = match.group(1)
            plain = number.replace(",", "")
            if number in derived or number in shown or plain in shown:
                continue
            missing.append(f"{cell.id}: {number}")
    assert not missing, f"{lesson.name}: numbers in the prose that no cell shows: {missing}"


_LIST_MARKER = re.compile(r"^\s{0,3}([-+*]|\d+[.)])(\s|$)")


def test_no_line_inside_a_formula_begins_like_a_list_item(lesson):
    """A formula wrapped so that a line inside ``$...$`` begins with ``+``, ``-``, ``*`` or ``1.``
    starts a list on the rendered page: the formula is cut in two and MathJax shows raw LaTeX for
    the rest of the paragraph (a referee met it in researcher 01, section 7).  Wrap elsewhere."""
    nb = nbformat.reads(lesson.read_text(encoding="utf-8"), as_version=4)
    found = []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        dollars = 0
        for line in cell.source.split("\n"):
            if dollars % 2 and _LIST_MARKER.match(line):
                found.append(f"{cell.get('id')}: {line[:50]!r}")
            dollars += line.replace("\\$", "").count("$")
    assert not found, f"{lesson.name}: lines inside a formula that would start a list: {found}"
