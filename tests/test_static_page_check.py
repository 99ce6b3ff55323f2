"""The static-page check (tests/browser/check_static.py, part of ``make lab-check``) itself.

Without a browser: what it counts as an exercise's answer is read from every check in
``minigrad/exercises/``, catches a right reply or a pasted checker, lets hints through, and
no stored lesson holds one.  With Chromium and playwright (else skipped): every lesson in
``KNOWN_SMALL_STRIPS`` still falls short of the strips' goal, and a page with an answer, a
broken or missing picture, or a strip shrunk to fit fails.
"""

import contextlib
import io
import json
import pathlib
import re
import shutil
import sys

import nbformat
import pytest

import minigrad as torch  # noqa: F401  (what a lesson imports as torch: the checks compute with it)

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))
import check_static  # noqa: E402

LESSONS = sorted(p for p in (ROOT / "notebooks").rglob("*.ipynb")
                 if ".ipynb_checkpoints" not in p.parts)
PATTERNS = check_static.answer_patterns()


def walk_in(x):  # beginner lesson 1's function
    return x * x + 1


def printed(fn, *args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        fn(*args)
    return out.getvalue()


# --------------------------------------------------------------------------- answers


def test_every_exercise_has_its_right_replies_read():
    modules = sorted(p.stem for p in (ROOT / "minigrad" / "exercises").glob("*.py")
                     if p.stem not in ("__init__", "answers"))
    assert sorted(PATTERNS) == modules
    for module, patterns in PATTERNS.items():
        assert patterns, f"{module}: no reply to a right answer read from its prints"


@pytest.mark.parametrize("module", sorted(PATTERNS))
def test_a_pasted_check_is_caught(module):
    source = (ROOT / "minigrad" / "exercises" / f"{module}.py").read_text(encoding="utf-8")
    found = check_static.answers_shown(source, {module: PATTERNS[module]})
    assert ("a check", "the source of a check (def check)", "def check(") in found
    assert any(m == module for m, _, _ in found)


def test_a_stored_right_reply_is_caught_and_hints_are_not():
    from minigrad.exercises import beginner_01

    right = printed(beginner_01.check, 10.0, walk_in)
    assert right.startswith("Right:")
    assert [m for m, _, _ in check_static.answers_shown(right, PATTERNS)] == ["beginner_01"]
    for answer in (None, 6, 26, 3, "ten"):  # not given, the blame at 3, z itself, wrong, unreadable
        hint = printed(beginner_01.check, answer, walk_in)
        assert check_static.answers_shown(hint, PATTERNS) == [], hint
    for text in ("2 of 5 right.", "Not right yet.", "the right answer is below", "all right, then"):
        assert check_static.answers_shown(text, PATTERNS) == [], text


def test_a_right_reply_with_other_values_and_line_breaks_is_caught():
    reply = "x.grad: right, 3.\nEach use of x sends back its own gradient, and they add."
    assert [m for m, _, _ in check_static.answers_shown(reply, PATTERNS)] == ["developer_01"]
    reply = "Order: right.   The walk starts at z's node, and of two nodes ready at the same moment"
    assert [m for m, _, _ in check_static.answers_shown(reply, PATTERNS)] == ["developer_04"]


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_stored_lesson_shows_an_answer(lesson):
    """The browser check reads the page's text; this reads the file's, without a browser."""
    nb = nbformat.read(lesson, as_version=4)
    texts = []
    for cell in nb.cells:
        texts.append(cell.source)
        for out in cell.get("outputs", []):
            texts.append(out.get("text", ""))
            texts.append(out.get("data", {}).get("text/plain", ""))
            texts.append(out.get("evalue", ""))
    assert check_static.answers_shown("\n".join(texts), PATTERNS) == []


def test_known_small_strips_name_lessons():
    rels = {p.relative_to(ROOT).as_posix() for p in LESSONS}
    assert set(check_static.KNOWN_SMALL_STRIPS) <= rels


# --------------------------------------------------------------------------- in Chromium


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    try:
        chromium = check_static.find_chromium(None)
    except check_static.CannotRun as error:
        pytest.skip(str(error))
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium, headless=True,
                               args=check_static.CHROMIUM_ARGS, timeout=60_000)
        try:
            yield b
        finally:
            b.close()


def test_known_small_strips_still_fall_short(browser, tmp_path):
    """The exception list only holds lessons whose strips still fall short of the goal."""
    results, reference, workdir = check_static.measure(browser, LESSONS, tmp_path)
    shutil.rmtree(workdir, ignore_errors=True)
    for rel in check_static.KNOWN_SMALL_STRIPS:
        _, _, static, strips = results[rel]
        _, report, short = check_static.judge_strips(rel, static, strips, reference)
        assert short, f"{rel} reaches the goal now: remove it from KNOWN_SMALL_STRIPS ({report})"
    for rel, result in results.items():
        assert result[0] == [], rel  # every picture shown, no answer


def _regressed_lesson(root):
    """Beginner lesson 1 with one of each regression, under ``root``/notebooks/."""
    nb = nbformat.read(ROOT / "notebooks" / "beginner" / "01_the_ribbon_trail.ipynb", as_version=4)
    cells = {c.id: c for c in nb.cells}
    # a checker pasted back into the page, and a right reply stored as an output
    source = (ROOT / "minigrad" / "exercises" / "beginner_01.py").read_text(encoding="utf-8")
    nb.cells.append(nbformat.v4.new_code_cell(source, id="pasted"))
    nb.cells.append(nbformat.v4.new_code_cell("beginner_01.check(my_guess, walk_in)", id="stored", outputs=[
        nbformat.v4.new_output("stream", name="stdout",
                               text="Right: x.grad is 10.0. Near 5, a nudge to x moves z about 10 times as much.\n")]))
    # a picture that does not load (an SVG that does not parse), in a cell of its own
    graph = next(o for o in cells["b1-23"].outputs if "image/svg+xml" in o.get("data", {}))
    broken = nbformat.from_dict(json.loads(json.dumps(graph)))
    broken["data"]["image/svg+xml"] = "<svg this is not"
    nb.cells.append(nbformat.v4.new_code_cell("viz.draw(z)", id="broken", outputs=[broken]))
    # the first strip drawn at 0.6 of its size (as a smaller `scale` would)
    strip = cells["b1-11"].outputs[1]["data"]
    svg = strip["image/svg+xml"]
    head = svg[:svg.index(">")]
    w, h = (float(head.split(f'{a}="', 1)[1].split("px", 1)[0]) for a in ("width", "height"))
    strip["image/svg+xml"] = svg.replace(f'width="{w:.0f}px" height="{h:.0f}px"',
                                         f'width="{0.6 * w:.0f}px" height="{0.6 * h:.0f}px"', 1)
    assert strip["image/svg+xml"] != svg
    # the second strip's picture in the widget's own output: nbconvert shows the widget instead
    outs = cells["b1-15"].outputs
    outs[0]["data"].update(outs[1]["data"])
    del outs[1]
    path = root / "notebooks" / "t" / "lesson.ipynb"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    (root / "minigrad").symlink_to(ROOT / "minigrad")
    return path


def test_a_regressed_page_fails(browser, tmp_path, capsys):
    path = _regressed_lesson(tmp_path)
    failed = check_static.run(browser, [path], tmp_path / "shots", root=tmp_path)
    out = capsys.readouterr().out
    assert failed == ["notebooks/t/lesson.ipynb"], out
    assert "the page shows an answer (a check): the source of a check (def check)" in out
    assert ("the page shows an answer (minigrad/exercises/beginner_01.py): the reply to a "
            "right answer: 'Right: x.grad is {}") in out
    assert "as 'Right: x.grad is {blame}. Near 5" in out  # the pasted checker's print
    assert "as 'Right: x.grad is 10.0. Near 5" in out  # the stored output
    assert "cell broken: a picture (other, image/svg+xml) did not load" in out
    assert "cell b1-15: 1 stored picture(s) (other), 0 shown" in out
    assert "strip 1 (cell b1-11): labels 7.3 px, 0.61x" in out and "(below 0.75x)" in out
    assert "short of the goal for strips" in out  # a lesson not in KNOWN_SMALL_STRIPS
    kept = re.search(r"the exported HTML kept in (\S+)", out)
    assert kept, out
    shutil.rmtree(kept.group(1))
    assert (tmp_path / "shots" / "t__lesson.png").is_file()
