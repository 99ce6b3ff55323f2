"""Every stored lesson as a static viewer shows it: nbconvert's HTML, no kernel, in headless Chromium.

Usage: python tests/browser/check_static.py [--chromium PATH] [--screenshots DIR] [NOTEBOOK ...]

What nbviewer (and a reader of an exported page) gets is the stored notebook turned into
HTML with no kernel.  `make lab-check` runs this check first (check_lab.py calls it in the
same Chromium, before JupyterLab starts); it also runs on its own.  It

* exports each lesson with ``jupyter nbconvert --to html`` (no execution; the lab
  template, as nbviewer uses; a throw-away Jupyter config directory, so nothing in
  ~/.jupyter changes the page) into a temporary folder;
* opens each page from ``file://`` in headless Chromium at 1400 x 1000 CSS pixels (the
  JupyterLab check's window), every request other than ``file:`` and ``data:`` refused:
  what a reader offline sees, and the same on every run (the page's CDN scripts,
  require.js, MathJax, the ipywidgets embedder, never load);
* **pictures**: checks that each cell shows as many pictures as the file stores (an
  output with ``image/png`` or ``image/svg+xml``, a widget's strip among them), each one
  loaded (``naturalWidth`` > 0) and with a non-zero size on the page, and that no other
  image on the page (in Markdown, say) failed to load;
* **no answer**: checks that the page's text (``innerText``: what a reader sees, code
  and outputs included) holds no exercise's answer.  See ``answer_patterns``: a page must
  not show the source of a check (``def check(``), nor any of the replies a check in
  ``minigrad/exercises/`` prints for a *right* answer (each such ``print`` is read from
  the module's source, its formatted values matching any short text);
* **strips readable**: measures, for each widget's strip (the picture a ``step_through``
  or ``explore`` cell stores right below its widget), the size its panels' labels render
  at on the page, and how many panels share a row, and compares the labels with those of
  the lesson's own static pictures (see ``measure_strips``).  Below ``MIN_LABEL_RATIO``
  fails in any lesson; short of the issue's goal (labels ``TARGET_LABEL_RATIO`` of a static
  picture's, at most ``MAX_PANELS_A_ROW`` panels a row) fails unless the lesson is in
  ``KNOWN_SMALL_STRIPS``, and a listed lesson that reaches the goal fails too ("remove it");
* saves a screenshot per lesson (``<tier>__<lesson>.png``, at its first strip, else at
  its first picture) and one per strip (``<tier>__<lesson>-stripN.png``: the strip's output as
  shown) into build/lab-check/static/ (or ``--screenshots``);
* removes its temporary folder (the HTML pages) unless a check failed (then it names it).

Exit status 0 when every check passed, 1 when a check failed, 2 when the check itself
could not run (no Chromium, no playwright, nbconvert failed).  About 15 s for nine lessons.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from check_lab import (  # noqa: E402  (the JupyterLab check's helpers: one way to find and drive Chromium)
    CHROMIUM_ARGS,
    ROOT,
    WIDGET_VIEW,
    CannotRun,
    find_chromium,
    log,
)

VIEWPORT = {"width": 1400, "height": 1000}

# Strips: the size a panel's labels render at, as a fraction of the labels of the lesson's own
# static pictures (both measured on the page), and how many panels share a row.
#
# MIN_LABEL_RATIO, a floor with no exception: `viz.strip` draws each panel at 0.8 of a lone
# picture (its `scale`), so today's strips, shown at their natural size (nbconvert's page never
# scales a picture down: a wide one overflows), measure 0.80.  0.75 leaves room for rounding
# and fails a strip drawn or shown any smaller (a smaller `scale`, a page that shrinks a wide
# strip to fit): its smallest labels ("shape ()", "#1"), 12 px in a lone picture and
# 9.6 px in today's strips, would fall below 9 px, where a panel's small print stops being
# readable on a laptop screen.
MIN_LABEL_RATIO = 0.75
# The goal (issue 25, "step-through strips readable at display size"): at most 3
# panels a row, each panel's labels at least the size of a static picture's.  A strip short of
# it fails unless its lesson is in KNOWN_SMALL_STRIPS.
TARGET_LABEL_RATIO = 1.0
MAX_PANELS_A_ROW = 3

# Lessons whose strips fall short of the goal, each with what was measured (at 1400 px,
# `make lab-check`'s window).  Empty since `viz.strip` draws each panel at full size (1.01 of a
# lone picture) in rows of at most 2 or 3 (issue 25): every strip measures 1.0x (12.0 px against
# the static pictures' 12.0 px).  The check fails for a lesson listed here whose strips all reach
# the goal ("remove it"), and tests/test_static_page_check.py asserts every entry still falls short.
KNOWN_SMALL_STRIPS = {}

PICTURE_TYPES = ("image/png", "image/svg+xml", "image/jpeg", "image/gif")


# --------------------------------------------------------------------------- answers


# The source of a check pasted back into a lesson (its code knows the answer).
CHECK_SOURCE = re.compile(r"\bdef check\(")


def answer_patterns(exercises=ROOT / "minigrad" / "exercises"):
    """``{module: [(description, regex), ...]}``: the replies of each check to a right answer.

    "Answer text", what ``answers_shown`` looks for, is defined from the checks themselves,
    not from a hand-kept list, so it follows them as they change:

    * the source of a check, ``def check(`` (``CHECK_SOURCE``: a checker pasted back into a
      lesson);
    * each reply a check prints for a *right* answer: every ``print`` in the module whose
      literal text (formatted values as ``{}``) reads "right" as a verdict, ``Right:`` /
      ``: right,`` / ``, right.`` (not "3 of 5 right." nor "not right yet"), turned into a
      regex in which each formatted value matches up to 80 characters and each space any
      whitespace.  A right reply stored as a cell's output ("Right: x.grad is 10.0. ...")
      matches, and so does the ``print(f"Right: x.grad is {blame}. ...")`` of a pasted
      checker.

    Why not the answers' values: a right answer is a number such as 10 or 3, which a page
    shows in many innocent places; the replies are whole sentences no lesson's prose says.
    Hints (the replies to wrong answers, and the stored "no prediction yet") never contain
    the answer, by the exercises' own rule, and may show.  A module from which no right
    reply can be read (say, one that prints a variable) yields none:
    tests/test_static_page_check.py asserts every module yields at least one.
    """
    found = {}
    for path in sorted(exercises.glob("*.py")):
        if path.stem in ("__init__", "answers"):
            continue
        patterns = []
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "print" and node.args):
                continue
            parts = _literal_parts(node.args[0])
            if parts is None:
                continue
            shape = "".join("{}" if p is None else p for p in parts)
            if _RIGHT.search(shape):
                patterns.append((f"the reply to a right answer: {shape.strip()[:70]!r}",
                                 _regex(parts)))
        found[path.stem] = patterns
    return found


_RIGHT = re.compile(r"(?:^|[:;,.]\s*)[Rr]ight[:,.]")


def _literal_parts(node):
    """A string expression as a list of literal texts and None (a formatted value), or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                parts.append(value.value)
            else:
                parts.append(None)
        return parts
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal_parts(node.left), _literal_parts(node.right)
        if left is not None and right is not None:
            return left + right
        return None
    return None


def _regex(parts):
    while parts and parts[0] is None:
        parts = parts[1:]
    while parts and parts[-1] is None:
        parts = parts[:-1]
    out = []
    for p in parts:
        if p is None:
            out.append(r".{1,80}?")
        else:
            out.append(r"\s+".join(re.escape(w) for w in p.split(" ")).replace(r"\s+\s+", r"\s+"))
    return re.compile("".join(out))


def answers_shown(text, patterns):
    """The answer texts found in ``text``: ``[(module, description, excerpt), ...]``."""
    found = [("a check", "the source of a check (def check)", m.group(0))
             for m in list(CHECK_SOURCE.finditer(text))[:3]]
    for module, entries in patterns.items():
        for description, regex in entries:
            for m in list(regex.finditer(text))[:3]:  # (each place, up to three)
                found.append((module, description, m.group(0)[:120]))
    return found


# --------------------------------------------------------------------------- the file


def stored_pictures(path):
    """``{cell id: [kind, ...]}``, one entry per stored picture output, in order.

    ``kind``: ``"strip"`` (a picture right after a widget view: what ``step_through`` and
    ``explore`` store), ``"graph"`` (a Graphviz SVG: a static picture of ``viz``), or
    ``"other"`` (a plot, ...).
    """
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = {}
    for cell in nb["cells"]:
        kinds = []
        outputs = cell.get("outputs", [])
        for k, out in enumerate(outputs):
            data = out.get("data", {})
            if not set(PICTURE_TYPES) & set(data):
                continue
            before = outputs[k - 1].get("data", {}) if k else {}
            svg = data.get("image/svg+xml", "")
            svg = "".join(svg) if isinstance(svg, list) else svg
            if WIDGET_VIEW in before and WIDGET_VIEW not in data:
                kinds.append("strip")
            elif "Generated by graphviz" in svg:
                kinds.append("graph")
            else:
                kinds.append("other")
        cells[cell.get("id")] = kinds
    return cells


def export(paths, outdir, timeout=180):
    """``jupyter nbconvert --to html`` of each lesson (no execution): ``{path: page}``."""
    env = dict(os.environ)
    config = outdir / "jupyter-config"
    config.mkdir(parents=True, exist_ok=True)
    env.update(JUPYTER_CONFIG_DIR=str(config), JUPYTER_DATA_DIR=str(outdir / "jupyter-data"))
    pages = {}
    groups = []  # one nbconvert call per group (its start-up is most of the time); a group
    for p in paths:  # never holds two lessons of one name (two tiers' 01_intro.ipynb)
        group = next((g for g in groups if all(q.stem != p.stem for q in g)), None)
        if group is None:
            groups.append(group := [])
        group.append(p)
    for k, group in enumerate(groups):
        target = outdir / f"pages-{k}"
        target.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, "-m", "jupyter", "nbconvert", "--to", "html",
               "--output-dir", str(target), *map(str, group)]
        try:
            done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout,
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise CannotRun(f"nbconvert did not finish within {timeout} s") from None
        if done.returncode:
            raise CannotRun(f"nbconvert failed ({done.returncode}):\n{done.stderr[-2000:]}")
        for p in group:
            page = target / (p.stem + ".html")
            if not page.is_file():
                raise CannotRun(f"nbconvert wrote no {page}")
            pages[p] = page
    return pages


# --------------------------------------------------------------------------- in the page

# Every picture in a cell's outputs, marked with data-static-check = its number on the page,
# and every image anywhere that did not load.
JS_PICTURES = """() => {
  let n = 0;
  const cells = Array.from(document.querySelectorAll('[id^="cell-id="]')).map(cell => {
    const pics = Array.from(cell.querySelectorAll('.jp-OutputArea-output img, .jp-OutputArea-output svg'))
      .filter(el => !(el.tagName.toLowerCase() === 'svg' && el.parentElement.closest('svg, img')))
      .map(el => {
        el.dataset.staticCheck = String(n);
        const r = el.getBoundingClientRect();
        const img = el.tagName === 'IMG';
        return {n: n++, tag: el.tagName.toLowerCase(),
                type: img ? (el.src.match(/^data:([^;,]+)/) || [null, el.src.slice(0, 40)])[1] : 'inline svg',
                complete: img ? el.complete : true,
                naturalWidth: img ? el.naturalWidth : r.width,
                naturalHeight: img ? el.naturalHeight : r.height,
                width: r.width, height: r.height};
      });
    return {id: cell.id.slice('cell-id='.length), pictures: pics};
  });
  const broken = Array.from(document.querySelectorAll('img'))
    .filter(im => !im.dataset.staticCheck && (!im.complete || im.naturalWidth === 0))
    .map(im => (im.closest('[id^="cell-id="]') || {id: '?'}).id + ': ' + im.src.slice(0, 60));
  return {cells, broken, text: document.body.innerText};
}"""

# The labels of one SVG picture at the size it is shown: the SVG is parsed from the <img>'s
# data: URI, laid out off-screen at the <img>'s rendered size (same viewBox, so the same
# scaling as the <img>), and each label's font size is multiplied by its screen transform's
# scale (nested <svg>s and Graphviz's transforms included).  Labels: the text of Graphviz's
# boxes and arrows (g.node, g.edge), not the captions or the legend.  For a strip, each
# panel (a nested <svg> of the outer one; the one titled `legend` is the legend) separately.
JS_LABELS = """(n) => {
  const el = document.querySelector('[data-static-check="' + n + '"]');
  if (!el) return {error: 'no such picture'};
  const r = el.getBoundingClientRect();
  let svg;
  if (el.tagName === 'IMG') {
    const src = el.src;
    if (!src.startsWith('data:image/svg+xml')) return {error: 'not an SVG (' + src.slice(0, 30) + ')'};
    const comma = src.indexOf(',');
    const head = src.slice(0, comma), payload = src.slice(comma + 1);
    let text;
    if (head.endsWith(';base64')) {
      const bytes = Uint8Array.from(atob(payload), c => c.charCodeAt(0));
      text = new TextDecoder('utf-8').decode(bytes);
    } else {
      text = decodeURIComponent(payload);
    }
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    if (doc.querySelector('parsererror')) return {error: 'the SVG does not parse'};
    svg = document.importNode(doc.documentElement, true);
    if (!svg.getAttribute('viewBox'))
      svg.setAttribute('viewBox', '0 0 ' + el.naturalWidth + ' ' + el.naturalHeight);
  } else {
    svg = el.cloneNode(true);
  }
  svg.setAttribute('width', r.width);
  svg.setAttribute('height', r.height);
  const box = document.createElement('div');
  box.style.cssText = 'position:absolute; left:-30000px; top:0; width:' + (r.width + 10) + 'px;';
  box.appendChild(svg);
  document.body.appendChild(box);
  const sizes = root => Array.from(root.querySelectorAll('g.node text, g.edge text')).map(t => {
    const m = t.getScreenCTM();
    const k = m ? Math.sqrt(Math.abs(m.a * m.d - m.b * m.c)) : 0;
    return parseFloat(getComputedStyle(t).fontSize) * k;
  });
  const panels = Array.from(svg.children).filter(c => c.tagName.toLowerCase() === 'svg').map(c => {
    const title = c.querySelector('g > title');
    const b = c.getBoundingClientRect();
    return {legend: !!title && title.textContent.trim() === 'legend',
            x: Math.round(b.left), y: Math.round(b.top), width: b.width, height: b.height,
            labels: sizes(c)};
  });
  const result = {width: r.width, height: r.height,
                  naturalWidth: el.naturalWidth || r.width, naturalHeight: el.naturalHeight || r.height,
                  labels: sizes(svg), panels};
  box.remove();
  return result;
}"""

JS_SCROLL_TO = """(n) => {
  const el = document.querySelector('[data-static-check="' + n + '"]');
  if (el) el.scrollIntoView({block: 'start'}); else window.scrollTo(0, 0);
}"""


def label_size(sizes):
    """One number for a picture's labels: the median rendered font size, CSS pixels."""
    sizes = [s for s in sizes if s > 0]
    return statistics.median(sizes) if sizes else None


def measure_strips(page, cells, stored):
    """The label sizes of a page's pictures: ``(static, strips)``.

    ``static``: the label size (``label_size``) of each static Graphviz picture of the lesson
    (``viz.draw`` and the like, not a strip); ``strips``: for each strip, a dict with its cell,
    rendered and natural size, panels, rows, most panels in a row, and label size (the median
    over all its panels' labels; the legend left out).
    """
    static, strips = [], []
    for cell in cells:
        kinds = stored.get(cell["id"], [])
        for kind, pic in zip(kinds, cell["pictures"]):
            if kind not in ("graph", "strip"):
                continue
            m = page.evaluate(JS_LABELS, pic["n"])
            if kind == "graph":  # (a picture with its legend under it: the legend left out)
                own = [s for p in m.get("panels", []) if not p["legend"] for s in p["labels"]]
                if "error" not in m and label_size(own or m["labels"]):
                    static.append(label_size(own or m["labels"]))
                continue
            entry = {"cell": cell["id"], "n": pic["n"], "error": m.get("error")}
            if "error" not in m:
                panels = [p for p in m["panels"] if not p["legend"]]
                rows = {}
                for p in panels:
                    rows.setdefault(round(p["y"] / 4), []).append(p)
                labels = [s for p in panels for s in p["labels"]] or m["labels"]
                entry.update(
                    width=m["width"], height=m["height"],
                    natural=(m["naturalWidth"], m["naturalHeight"]),
                    panels=len(panels), rows=len(rows),
                    per_row=max((len(r) for r in rows.values()), default=0),
                    label=label_size(labels),
                    smallest_panel=min((label_size(p["labels"]) for p in panels
                                        if label_size(p["labels"])), default=None),
                )
            strips.append(entry)
    return static, strips


# --------------------------------------------------------------------------- one lesson


def check_page(page, path, html, shots, patterns, stem):
    """The checks on one exported lesson that need no other lesson: pictures and answers.

    Returns ``(problems, pictures, static, strips)``: the problems found, the number of
    stored pictures, and ``measure_strips``'s label sizes (judged by ``judge_strips``, once
    every lesson is measured).  Saves the lesson's screenshots.
    """
    problems = []
    page.goto(html.as_uri(), wait_until="load", timeout=60_000)
    stored = stored_pictures(path)
    # pictures are data: URIs, loaded by the time of the load event; a moment for a late one
    deadline = time.monotonic() + 2
    while True:
        state = page.evaluate(JS_PICTURES)
        loaded = all(p["complete"] and p["naturalWidth"] for c in state["cells"] for p in c["pictures"])
        if (loaded and not state["broken"]) or time.monotonic() > deadline:
            break
        time.sleep(0.2)

    # Pictures: as many per cell as stored, each loaded and of non-zero size on the page.
    shown = {c["id"]: c for c in state["cells"]}
    total = 0
    for cell_id, kinds in stored.items():
        total += len(kinds)
        if cell_id not in shown:
            if kinds:
                problems.append(f"cell {cell_id}: not on the page ({len(kinds)} stored picture(s))")
            continue
        pics = shown[cell_id]["pictures"]
        if len(pics) != len(kinds):
            problems.append(f"cell {cell_id}: {len(kinds)} stored picture(s) "
                            f"({', '.join(kinds) or 'none'}), {len(pics)} shown")
        for kind, pic in zip(kinds, pics):
            if not pic["complete"] or not pic["naturalWidth"]:
                problems.append(f"cell {cell_id}: a picture ({kind}, {pic['type']}) did not load")
            elif pic["width"] < 1 or pic["height"] < 1:
                problems.append(f"cell {cell_id}: a picture ({kind}, {pic['type']}) shows at "
                                f"{pic['width']:.0f} x {pic['height']:.0f} px")
    for b in state["broken"]:  # (outside the outputs: in Markdown, say)
        problems.append(f"an image did not load: {b}")

    # Answers: none of the checks' right replies, nor a check's source.
    for module, description, excerpt in answers_shown(state["text"], patterns):
        where = module if module == "a check" else f"minigrad/exercises/{module}.py"
        problems.append(f"the page shows an answer ({where}): {description}, as {excerpt!r}")

    static, strips = measure_strips(page, state["cells"], stored)

    # Screenshots: the lesson at its first strip (else its first picture, else its top), and
    # each strip as shown.
    pictures = [p["n"] for c in state["cells"] for p in c["pictures"]]
    page.evaluate(JS_SCROLL_TO, strips[0]["n"] if strips else pictures[0] if pictures else -1)
    time.sleep(0.1)
    page.screenshot(path=str(shots / f"{stem}.png"))
    for k, s in enumerate(strips, 1):
        page.locator(f'[data-static-check="{s["n"]}"]').screenshot(
            path=str(shots / f"{stem}-strip{k}.png"), timeout=20_000)
    return problems, total, static, strips


def judge_strips(rel, static, strips, reference):
    """``(problems, report lines, short)`` for one lesson's strips.

    Each strip's label size (that of its smallest panel: every panel must be readable) is
    compared with ``reference``: the median label size of the lesson's own static pictures,
    else (a lesson with none) of every lesson's.  Below ``MIN_LABEL_RATIO`` is a problem in
    any lesson.  ``short`` lists the strips short of the goal (``TARGET_LABEL_RATIO``, at most
    ``MAX_PANELS_A_ROW`` panels a row): problems unless ``rel`` is in ``KNOWN_SMALL_STRIPS``;
    a listed lesson with none short is a problem too (the list must shrink as strips improve).
    """
    ref = statistics.median(static) if static else reference
    ref_from = (f"{ref:.1f} px in its {len(static)} static picture(s)" if static
                else f"{ref:.1f} px, the lessons' static pictures (none in this one)"
                if ref else "no static picture to compare with")
    problems, report, short = [], [], []
    for k, s in enumerate(strips, 1):
        name = f"strip {k} (cell {s['cell']})"
        if s["error"]:
            problems.append(f"{name}: its labels cannot be measured: {s['error']}")
            continue
        size = s["smallest_panel"] or s["label"]
        ratio = size / ref if (ref and size) else None
        shrink = s["width"] / s["natural"][0] if s["natural"][0] else 0
        report.append(
            f"{name}: {s['panels']} panel(s) in {s['rows']} row(s), at most {s['per_row']} a row; "
            f"shown {s['width']:.0f} x {s['height']:.0f} px ({shrink:.2f} of its "
            f"{s['natural'][0]:.0f} x {s['natural'][1]:.0f}); labels "
            + (f"{size:.1f} px" if size else "none found")
            + (f" vs {ref_from}: {ratio:.2f}x" if ratio else ""))
        if size is None:
            problems.append(f"{name}: no labels found in its panels")
            continue
        if ratio is not None and ratio < MIN_LABEL_RATIO:
            problems.append(f"{name}: labels {size:.1f} px, {ratio:.2f}x the static pictures' "
                            f"{ref:.1f} px: too small to read (below {MIN_LABEL_RATIO}x)")
        why = []
        if ratio is not None and ratio < TARGET_LABEL_RATIO:
            why.append(f"labels {ratio:.2f}x the static pictures' (goal {TARGET_LABEL_RATIO}x)")
        if s["per_row"] > MAX_PANELS_A_ROW:
            why.append(f"{s['per_row']} panels a row (goal at most {MAX_PANELS_A_ROW})")
        if why:
            short.append(f"{name}: {', '.join(why)}")
    if short and rel not in KNOWN_SMALL_STRIPS:
        problems += [f"{s}: short of the goal for strips (issue 25)" for s in short]
    elif rel in KNOWN_SMALL_STRIPS and not short:
        problems.append("every strip now reaches the goal: remove this lesson from "
                        f"KNOWN_SMALL_STRIPS in {pathlib.Path(__file__).name}")
    return problems, report, short


def measure(browser, paths, shots, root=ROOT):
    """Export and open each lesson: ``({rel: (problems, pictures, static, strips)}, reference,
    workdir)``; ``reference`` is the median label size of every lesson's static pictures."""
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="lab-check-static-"))
    t0 = time.monotonic()
    pages = export(paths, workdir)
    log(f"static pages: {len(pages)} lesson(s) exported with nbconvert ({time.monotonic() - t0:.1f} s)")
    patterns = answer_patterns(root / "minigrad" / "exercises")
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1)
    context.set_default_timeout(30_000)
    # offline and deterministic: only the page itself and its data: pictures
    context.route("**/*", lambda route: route.continue_()
                  if route.request.url.startswith(("file:", "data:")) else route.abort())
    try:
        page = context.new_page()
        results = {}
        for path in paths:
            rel = path.relative_to(root).as_posix()
            stem = rel.removeprefix("notebooks/").replace("/", "__").removesuffix(".ipynb")
            results[rel] = check_page(page, path, pages[path], shots, patterns, stem)
    finally:
        context.close()
    every_static = [s for r in results.values() for s in r[2]]
    return results, (statistics.median(every_static) if every_static else None), workdir


def run(browser, paths, shots, root=ROOT):
    """The static check of ``paths`` in an open playwright ``browser``; returns the failed
    lessons (their relative paths).  ``shots`` is emptied first."""
    t0 = time.monotonic()
    shutil.rmtree(shots, ignore_errors=True)
    shots.mkdir(parents=True, exist_ok=True)
    failed, workdir = [], None
    try:
        results, reference, workdir = measure(browser, paths, shots, root)
        for rel, (problems, total, static, strips) in results.items():
            more, report, short = judge_strips(rel, static, strips, reference)
            problems = problems + more
            log(f"{rel} (static page):")
            log(f"  {total} stored picture(s), {len(strips)} of them strips, "
                f"{len(static)} static Graphviz picture(s)")
            for line in report:
                log(f"  {line}")
            if short and rel in KNOWN_SMALL_STRIPS:
                log(f"  known exception (KNOWN_SMALL_STRIPS: {KNOWN_SMALL_STRIPS[rel]}): "
                    f"{len(short)} strip(s) short of the goal, not failed")
            if problems:
                failed.append(rel)
                log("  FAILED:\n" + "\n".join(f"  - {p}" for p in problems))
            else:
                log("  OK: every picture shown, no answer text, strips readable")
    except BaseException:
        failed.append("(the check stopped)")
        raise
    finally:
        if workdir is not None:
            if failed:
                log(f"static pages: the exported HTML kept in {workdir}")
            else:
                shutil.rmtree(workdir, ignore_errors=True)
    log(f"static pages: screenshots in {shots}")
    took = time.monotonic() - t0
    if failed:
        log(f"static pages: FAILED in {took:.0f} s: {', '.join(failed)}")
    else:
        log(f"static pages: {len(paths)} lesson(s) OK in {took:.0f} s")
    return failed


def lesson_paths(root, given):
    notebook_dir = root / "notebooks"
    if given:
        paths = [p.resolve() for p in given]
    else:
        paths = sorted(p for p in notebook_dir.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
    for p in paths:
        if not p.is_file() or notebook_dir not in p.parents:
            raise CannotRun(f"{p} is not a notebook under {notebook_dir}")
    if not paths:
        raise CannotRun(f"no notebooks under {notebook_dir}")
    return paths


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=pathlib.Path,
                        help="notebooks to check (default: every .ipynb under notebooks/)")
    parser.add_argument("--chromium", help="the browser (default: /usr/bin/chromium or on PATH)")
    parser.add_argument("--screenshots", type=pathlib.Path,
                        help="where to save screenshots (default: build/lab-check/static, "
                        "emptied first)")
    args = parser.parse_args(argv)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        log(f"static pages: playwright is missing from {sys.executable}; install the extra: "
            f"{sys.executable} -m pip install -e '.[browser]' (or run `make lab-check`)")
        return 2
    try:
        paths = lesson_paths(ROOT, args.notebooks)
        chromium = find_chromium(args.chromium)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, headless=True,
                                         args=CHROMIUM_ARGS, timeout=60_000)
            try:
                failed = run(browser, paths, args.screenshots or ROOT / "build" / "lab-check" / "static")
            finally:
                browser.close()
    except CannotRun as error:
        log(f"static pages: could not run: {error}")
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
