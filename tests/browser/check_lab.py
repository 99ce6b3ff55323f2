"""Run every lesson in JupyterLab in a real (headless) Chromium and check what a student sees.

Usage: python tests/browser/check_lab.py [--chromium PATH] [--screenshots DIR] [NOTEBOOK ...]

What `make lab-check` runs, with the project's own Python (the one that has
JupyterLab and playwright).  It

* copies the lessons (notebooks/) into a throw-away directory and starts
  `jupyter lab` on a free 127.0.0.1 port with a random token, serving that
  copy as the repository root is served by `make lab`, with throw-away
  settings, workspace, runtime and notebook-signature directories, and
  autosave every 2 seconds (the check never writes the repository's files);
* opens each notebook (or the ones named) at /lab/tree/notebooks/...,
  untrusted, as a fresh clone is, and checks that every stored picture
  already shows as a picture (a PNG beside the SVG is what makes that work),
  a widget's strip included, and that every widget view has its strip as an
  output of its own right below it (never sharing the widget's output, which
  nbconvert and nbviewer would show instead of the picture);
* lets autosave run, then saves the notebook (File > Save) before running
  anything, and checks that the file is byte for byte what `make execute`
  stored: opening a lesson must leave `git status` clean;
* deletes stale sessions, waits for the kernel, runs all cells through the
  Run menu, waits until nothing is queued and the kernel is idle, and checks
  that every code cell ran, that no cell shows an error except cells tagged
  `raises-exception` (tags read from the .ipynb file, matched by cell order),
  and that every picture is an <img> that loaded (non-zero naturalWidth);
* checks that every widget with a strip shows a live picture of its own (an
  image inside the widget), and that on the page each such widget's output is
  right above its strip's (the reader meets the live slider first);
* for every ipywidgets slider: finds the picture that belongs to it (in its
  own output, i.e. its widget; else in its cell's output; else any widget
  picture in the notebook), presses ArrowRight on the focused slider handle
  (ArrowLeft when at the maximum), and checks that the slider's value and
  the picture both changed (the images, where there are any: a changed
  caption alone does not count);
* saves the notebook after the run (as autosave does), stops JupyterLab,
  starts a fresh one (same signature database: the saved notebook is trusted,
  as it is for a student), reopens every notebook and checks that no widget
  shows "Error displaying widget", and that every widget cell shows the
  widget's own picture (restored from the widget state stored with it) with
  its strip right below it;
* saves a screenshot per notebook (and one per slider moved, and one after
  the reopening), printing paths;
* stops JupyterLab and its kernels at the end, also on failure or Ctrl-C.

Before JupyterLab starts, in the same Chromium, it checks each lesson's static page
(``check_static.py``: nbconvert's HTML, no kernel, as nbviewer shows it; every stored
picture shown, no exercise's answer, strips' labels readable; screenshots in
build/lab-check/static/); ``--no-static`` leaves that out.

Everything has a timeout; the run as a whole is bounded by --total-timeout.
Exit status 0 when every check passed, 1 when a check failed, 2 when the check
itself could not run (no Chromium, JupyterLab did not start, ...).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
# JupyterLab user settings for the check only (a throw-away settings directory).
AUTOSAVE_SECONDS = 2
LAB_SETTINGS = {
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {
        "autosave": True, "autosaveInterval": AUTOSAVE_SECONDS},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
SLIDER_HANDLE = ".widget-slider .noUi-handle[role='slider']"  # ipywidgets 8 (noUiSlider)


class CheckFailed(Exception):
    """A check failed: the lesson is not what a student should see."""


class CannotRun(Exception):
    """The check itself could not run (environment, server, browser)."""


def log(message):
    try:
        print(message, flush=True)
    except OSError:  # stdout gone (`| head`): keep going, so that the cleanup still runs
        pass


# --------------------------------------------------------------------------- the server


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def descendants(pid):
    """Process ids below `pid` (read from /proc; empty where there is no /proc)."""
    children = {}
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


class Lab:
    """A JupyterLab server of our own: started, queried through its REST API, stopped."""

    def __init__(self, notebook_dir, workdir, python=sys.executable, start_timeout=90):
        self.notebook_dir = notebook_dir  # the served root (a copy of the repository's lessons)
        self.workdir = workdir
        self.python = python
        self.start_timeout = start_timeout
        self.port = free_port()
        self.token = secrets.token_hex(24)
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc = None
        self.log_path = workdir / f"jupyterlab-{self.port}.log"
        self._kernel_pids = set()

    def start(self):
        settings = self.workdir / "lab-settings"
        for name, values in LAB_SETTINGS.items():
            path = settings / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(values))
        env = dict(os.environ)
        env.update(
            JUPYTERLAB_SETTINGS_DIR=str(settings),
            JUPYTERLAB_WORKSPACES_DIR=str(self.workdir / "lab-workspaces"),
            JUPYTER_RUNTIME_DIR=str(self.workdir / "runtime"),
            JUPYTER_CONFIG_DIR=str(self.workdir / "config"),  # ignore ~/.jupyter (passwords, ...)
            JUPYTER_DATA_DIR=str(self.workdir / "data"),  # and leave ~/.local/share/jupyter alone
            PYTHONUNBUFFERED="1",
        )
        cmd = [
            self.python, "-m", "jupyterlab",
            "--no-browser",
            "--ip=127.0.0.1",
            f"--port={self.port}",
            "--port-retries=0",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.notebook_dir}",
            # signatures of trusted notebooks: a new database (every lesson opens untrusted, as
            # from a fresh clone), kept for the restarted server (a saved run stays trusted)
            f"--NotebookNotary.db_file={self.workdir / 'nbsignatures.db'}",
            # JupyterLab makes a checkpoint of every notebook it opens: not in the repository
            f"--FileCheckpoints.checkpoint_dir={self.workdir / 'checkpoints'}",
            "--expose-app-in-browser",  # window.jupyterapp: read cell outputs from the model
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.append("--allow-root")
        log(f"starting JupyterLab on {self.base} (log: {self.log_path})")
        self.logfile = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            cmd, cwd=self.notebook_dir, env=env, stdout=self.logfile, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise CannotRun(f"JupyterLab exited with status {self.proc.returncode}:\n"
                                + self.log_tail())
            try:
                status = self.api("GET", "/api/status", timeout=2)
                log(f"JupyterLab is up (started {status.get('started', '?')})")
                return
            except (OSError, urllib.error.URLError, json.JSONDecodeError):
                time.sleep(0.3)
        raise CannotRun(f"JupyterLab did not answer within {self.start_timeout} s:\n"
                        + self.log_tail())

    def log_tail(self, lines=30):
        try:
            text = self.log_path.read_text(errors="replace").splitlines()
        except OSError:
            return "(no log)"
        return "\n".join("    " + line for line in text[-lines:])

    def api(self, method, path, timeout=10):
        request = urllib.request.Request(
            self.base + path, method=method, headers={"Authorization": f"token {self.token}"},
            data=b"" if method == "POST" else None,
        )
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read()
        return json.loads(body) if body else None

    def sessions(self):
        return self.api("GET", "/api/sessions")

    def delete_sessions(self):
        """Shut down every kernel session (kernels outlive the page that started them)."""
        deleted = 0
        for session in self.sessions():
            self._remember_kernel_pids()
            try:
                self.api("DELETE", f"/api/sessions/{session['id']}", timeout=20)
                deleted += 1
            except urllib.error.HTTPError as error:
                if error.code != 404:
                    raise
        return deleted

    def _remember_kernel_pids(self):
        if self.proc is not None:
            self._kernel_pids.update(descendants(self.proc.pid))

    def stop(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                n = self.delete_sessions()
                if n:
                    log(f"deleted {n} kernel session(s)")
            except Exception as error:  # the server may be wedged: fall through to signals
                log(f"could not delete the sessions through the API: {error}")
            self._remember_kernel_pids()
            try:
                self.api("POST", "/api/shutdown", timeout=5)
            except Exception:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGTERM)
                try:
                    self.proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                    self.proc.wait(timeout=5)
        # Kernels run in sessions of their own: make sure none outlives the server.
        for pid in self._kernel_pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        self.logfile.close()
        log("JupyterLab stopped")
        self.proc = None


# --------------------------------------------------------------------------- in the page

# JavaScript run in the page.  `window.jupyterapp` is there because of
# --expose-app-in-browser; the notebook is the current main-area widget.
JS_STATE = """() => {
  const app = window.jupyterapp;
  const panel = app && app.shell.currentWidget;
  if (!panel || !panel.content || !panel.content.model) return null;
  const ctx = panel.sessionContext;
  const kernel = ctx && ctx.session && ctx.session.kernel;
  const cells = panel.content.widgets.map((cell, i) => {
    const model = cell.model;
    const out = {index: i, type: model.type, prompt: null, count: null, running: false, errors: []};
    if (model.type === 'code') {
      const p = cell.node.querySelector('.jp-InputArea-prompt');
      out.prompt = p ? p.textContent.trim() : null;
      out.count = model.executionCount;
      out.running = model.executionState === 'running' || out.prompt === '[*]:';
      for (let j = 0; j < model.outputs.length; j++) {
        const o = model.outputs.get(j).toJSON();
        if (o.output_type === 'error') out.errors.push(o.ename + ': ' + o.evalue);
      }
    }
    return out;
  });
  return {
    path: ctx ? ctx.path : null,
    ready: !!(ctx && ctx.isReady),
    kernel: kernel ? kernel.status : null,
    busy: cells.some(c => c.running),
    cells,
  };
}"""

# Every picture in the notebook: stored/displayed outputs and widget images.
JS_PICTURES = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const out = [];
  panel.content.widgets.forEach((cell, i) => {
    cell.node.querySelectorAll('.jp-RenderedSVG img, .jp-RenderedImage img, .widget-image').forEach(img => {
      const inWidget = !!img.closest('.jupyter-widgets, .widget-output');
      out.push({cell: i, widget: inWidget, kind: img.closest('.jp-RenderedSVG') ? 'svg' : 'img',
                complete: img.complete, width: img.naturalWidth, height: img.naturalHeight});
    });
  });
  return out;
}"""

JS_SCROLL_TO_PICTURE = """(k) => {
  const imgs = document.querySelectorAll(
    '.jp-Notebook .jp-RenderedSVG img, .jp-Notebook .jp-RenderedImage img, .jp-Notebook .widget-image');
  if (imgs[k]) imgs[k].scrollIntoView({block: 'center'});
  return imgs.length;
}"""

# The picture a slider drives, as a string that changes when the picture does:
# the pictures in the slider's own output (its widget; not the strip, an output of
# its own below it that never changes), else in its cell output (outside the
# slider), else every picture inside a widget anywhere in the notebook.
JS_SLIDER = """(k) => {
  const handles = document.querySelectorAll(__HANDLE__);
  const handle = handles[k];
  if (!handle) return null;
  const slider = handle.closest('.widget-slider');
  const cell = handle.closest('.jp-Cell');
  const pick = (root, onlyWidgets) => Array.from(root.querySelectorAll(
      'img, svg, canvas, .widget-html-content, .widget-htmlmath-content'))
    .filter(el => !slider.contains(el) && !el.closest('.jp-icon, .jp-Toolbar, .jp-InputArea')
                  && !(el.tagName === 'svg' && el.closest('img, .jp-RenderedSVG') === null
                       && el.closest('.jp-OutputArea-output') === null)
                  && (!onlyWidgets || el.closest('.jupyter-widgets, .widget-output')));
  const own = handle.closest('.jp-OutputArea-output');
  let where = 'its own output';
  let els = own ? pick(own, false) : [];
  if (!els.length) {
    where = 'its cell';
    els = cell ? pick(cell.querySelector('.jp-Cell-outputArea') || cell, false) : [];
  }
  if (!els.length) {
    where = 'widgets elsewhere in the notebook';
    els = pick(document.querySelector('.jp-Notebook'), true);
  }
  const describe = el => {
    if (el.tagName === 'IMG') return 'img:' + el.src;
    if (el.tagName === 'CANVAS') { try { return 'canvas:' + el.toDataURL(); } catch (e) { return 'canvas'; } }
    if (el.tagName.toLowerCase() === 'svg') return 'svg:' + el.outerHTML;
    return 'html:' + el.innerHTML;
  };
  const sign = parts => {
    const text = parts.map(describe).join('\\n');
    let hash = 0;
    for (let i = 0; i < text.length; i++) hash = (hash * 31 + text.charCodeAt(i)) | 0;
    return parts.length + ':' + text.length + ':' + hash;
  };
  // where there are images, the images themselves must change (a caption alone is not enough)
  const images = els.filter(el => ['img', 'canvas', 'svg'].includes(el.tagName.toLowerCase()));
  const broken = els.filter(el => el.tagName === 'IMG' && el.complete && el.naturalWidth === 0).length;
  const readout = slider.querySelector('.widget-readout');
  const label = slider.querySelector('.widget-label');
  return {
    value: handle.getAttribute('aria-valuenow'),
    min: handle.getAttribute('aria-valuemin'),
    max: handle.getAttribute('aria-valuemax'),
    readout: readout ? readout.textContent : null,
    label: label ? label.textContent : '',
    cellIndex: cell ? Array.from(document.querySelectorAll('.jp-Notebook .jp-Cell')).indexOf(cell) : -1,
    where, pictures: els.length, images: images.length, broken,
    signature: sign(images.length ? images : els),
  };
}""".replace("__HANDLE__", json.dumps(SLIDER_HANDLE))


def page_state(page):
    """JS_STATE, or None while the page is still loading."""
    try:
        return page.evaluate(JS_STATE)
    except Exception as error:  # "Execution context was destroyed" during navigation
        if "context" in str(error) or "navigat" in str(error):
            return None
        raise


def wait_until(predicate, timeout, what, interval=0.25):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise CheckFailed(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)


def dismiss_prompts(page):
    """Close the news toast and answer any dialog (e.g. kernel choice) with its default."""
    dismissed = []
    for toast_button in page.query_selector_all(".jp-toast-button"):
        text = (toast_button.text_content() or "").strip()
        if text.lower() in ("no", "dismiss", "close"):
            toast_button.click()
            dismissed.append(f"toast [{text}]")
    for dialog in page.query_selector_all(".jp-Dialog"):
        body = (dialog.text_content() or "").strip().replace("\n", " ")[:120]
        accept = dialog.query_selector(".jp-Dialog-button.jp-mod-accept")
        if accept:
            accept.click()
            dismissed.append(f"dialog '{body}'")
    for item in dismissed:
        log(f"  dismissed {item}")
    return dismissed


def file_cells(path):
    """What the file stores, cell by cell: pictures, widget views, and widgets' strips.

    ``pictures``: outputs with an image (a widget's strip is one: an output of its own);
    ``widgets``: widget views; ``strips``: widget views right before a picture in the same
    cell (what ``minigrad.widgets`` stores: the widget, which has an Image of its own, then
    the strip); ``mixed``: widget views that share an output with a picture (a renderer
    that knows the widget mimetype would drop the picture: nbconvert, nbviewer).
    """
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = []
    for cell in nb["cells"]:
        pictures = widgets = strips = mixed = 0
        kinds = [_output_kind(output.get("data", {})) for output in cell.get("outputs", [])]
        for k, kind in enumerate(kinds):
            if kind in ("widget", "mixed"):
                widgets += 1
                strips += kinds[k + 1:k + 2] == ["picture"]
                mixed += kind == "mixed"
            elif kind == "picture":
                pictures += 1
        cells.append({
            "type": cell["cell_type"],
            "tags": set(cell.get("metadata", {}).get("tags", [])),
            "pictures": pictures,
            "widgets": widgets,
            "strips": strips,
            "mixed": mixed,
            "first_line": "".join(cell.get("source", "")).strip().splitlines()[:1],
        })
    return cells


def _output_kind(data):
    """``widget``, ``picture``, ``mixed`` (a widget view and a picture in one output) or ``other``."""
    picture = bool({"image/png", "image/svg+xml", "image/jpeg"} & set(data))
    if WIDGET_VIEW in data:
        return "mixed" if picture else "widget"
    return "picture" if picture else "other"


def widgets_above_strips(order):
    """How many live widgets in a cell's outputs (as shown) are right above a picture output."""
    return sum(a == "widget" and b == "picture" for a, b in zip(order, order[1:]))


def describe(cells, i):
    first = cells[i]["first_line"]
    return f"cell {i + 1}" + (f" ({first[0][:60]!r})" if first else "")


# (page.evaluate has no timeout of its own: a save that never settles once stalled a whole
# run until the watchdog; bounded here, it fails that notebook, with a screenshot)
JS_SAVE = """async (ms) => {
  const app = window.jupyterapp;
  const late = new Promise(resolve => setTimeout(() => resolve('timeout'), ms));
  if (await Promise.race([app.commands.execute('docmanager:save'), late]) === 'timeout')
    return 'timeout';
  const panel = app.shell.currentWidget;
  return panel && panel.context ? panel.context.model.dirty : null;
}"""


def save(page, timeout=30):
    """File > Save in the page; waits for the server to have written the file.

    With autosave every few seconds (``AUTOSAVE_SECONDS``, so that the check
    sees autosave run) JupyterLab's own autosave can race this save: it then
    believes the file changed on disk and asks "File Changed ... Overwrite?".
    Nothing but this JupyterLab writes the served copy, so that dialog is
    answered with Overwrite (and said in the log); any other hang fails.
    """
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left > 0 and page.evaluate(JS_SAVE, min(left, 5.0) * 1000) != "timeout":
            break
        overwrite = page.query_selector(".jp-Dialog .jp-Dialog-button:has-text('Overwrite')")
        if overwrite is not None:
            overwrite.click()
            log("  JupyterLab's autosave raced File > Save ('File Changed' dialog; no other "
                "process writes the served copy): answered Overwrite")
            continue
        if left <= 0:
            raise CheckFailed(f"  - File > Save did not finish within {timeout} s")
    time.sleep(0.5)


def first_difference(before, after, lines=12):
    """The first lines of a unified diff between two versions of a file."""
    import difflib

    diff = list(difflib.unified_diff(before.decode("utf-8", "replace").splitlines(),
                                     after.decode("utf-8", "replace").splitlines(),
                                     "stored", "saved by JupyterLab", lineterm="", n=1))
    shown = [d[:160] for d in diff[:lines]]
    more = f"\n      ... ({len(diff) - lines} more diff lines)" if len(diff) > lines else ""
    return "\n      " + "\n      ".join(shown) + more


def only_python_version_differs(before, after):
    """Whether two notebook files differ in ``metadata.language_info.version`` alone."""
    try:
        a, b = json.loads(before), json.loads(after)
    except ValueError:
        return False
    va = a.get("metadata", {}).get("language_info", {}).pop("version", None)
    vb = b.get("metadata", {}).get("language_info", {}).pop("version", None)
    return va != vb and a == b and after.decode().replace(f'"{vb}"', f'"{va}"', 1) == before.decode()


def open_notebook(page, lab, rel, expected):
    """Open ``rel`` in the page and wait for its kernel (in the page and in /api/sessions)."""
    deleted = lab.delete_sessions()
    if deleted:
        log(f"  deleted {deleted} stale session(s)")
    url = f"{lab.base}/lab/tree/{urllib.parse.quote(rel)}?reset&token={lab.token}"
    page.goto(url, wait_until="domcontentloaded", timeout=60_000)

    def opened():
        dismiss_prompts(page)
        s = page_state(page)
        return s is not None and len(s["cells"]) == len(expected)

    def kernel_idle():
        dismiss_prompts(page)
        s = page_state(page)
        return s is not None and s["ready"] and s["kernel"] == "idle"

    wait_until(opened, 60, "the notebook to open")
    wait_until(kernel_idle, 60, "the kernel to start")
    wait_until(lambda: any(s["path"] == rel and s["kernel"]["execution_state"] == "idle"
                           for s in lab.sessions()), 30, "the kernel session in /api/sessions")


# What each cell shows: widget errors, pictures, and its outputs in page order, each
# 'widget' (a live widget), 'picture' (a loaded picture outside widgets) or 'other'.
JS_WIDGET_CELLS = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const loaded = root => Array.from(root.querySelectorAll('img'))
    .filter(im => im.complete && im.naturalWidth > 0);
  return panel.content.widgets.map((cell, i) => {
    const out = cell.node.querySelector('.jp-Cell-outputArea');
    const text = out ? out.textContent : '';
    const imgs = out ? loaded(out) : [];
    // the cell's own outputs, not those of an Output widget inside one of them
    const outputs = out ? Array.from(out.querySelectorAll('.jp-OutputArea-output'))
      .filter(o => !o.parentElement.closest('.jp-OutputArea-output')) : [];
    const order = outputs.map(o => o.querySelector('.jupyter-widgets') ? 'widget'
      : loaded(o).length ? 'picture' : 'other');
    return {cell: i, error: text.includes('Error displaying widget'),
            loading: text.includes('Loading widget'), order,
            pictures: imgs.filter(im => !im.closest('.jupyter-widgets')).length,
            widgetPictures: imgs.filter(im => im.closest('.jupyter-widgets')).length};
  });
}"""


def check_reopened(page, lab, rel, path, shots):
    """In a fresh JupyterLab: the notebook saved after a run shows no widget error."""
    t0 = time.monotonic()
    expected = file_cells(path)
    problems = []
    open_notebook(page, lab, rel, expected)
    widget_cells = [i for i, c in enumerate(expected) if c["widgets"]]
    state = []

    def settled():
        nonlocal state
        state = page.evaluate(JS_WIDGET_CELLS)
        return all(not state[i]["loading"] and state[i]["pictures"] >= expected[i]["pictures"]
                   and state[i]["widgetPictures"] >= expected[i]["strips"]
                   and widgets_above_strips(state[i]["order"]) >= expected[i]["strips"]
                   for i in widget_cells)

    try:
        wait_until(settled, 20, "every widget cell to show a picture")
    except CheckFailed:
        pass
    for i in widget_cells:
        cell = state[i] if i < len(state) else {"error": False, "pictures": 0, "order": [],
                                                "widgetPictures": 0, "loading": True}
        still = " (still 'Loading widget...')" if cell["loading"] else ""
        if cell["error"]:
            problems.append(f"{describe(expected, i)} shows 'Error displaying widget' after the "
                            "notebook was saved and reopened in a fresh JupyterLab")
        elif cell["pictures"] < expected[i]["pictures"]:
            problems.append(f"{describe(expected, i)} shows {cell['pictures']} of its "
                            f"{expected[i]['pictures']} stored picture(s) (the strip) after the "
                            "notebook was saved and reopened" + still)
        elif cell["widgetPictures"] < expected[i]["strips"]:
            problems.append(f"{describe(expected, i)}: the widget shows no picture of its own "
                            "after the notebook was saved and reopened (its stored state did not "
                            "restore)" + still)
        elif widgets_above_strips(cell["order"]) < expected[i]["strips"]:
            problems.append(f"{describe(expected, i)}: after the notebook was saved and reopened, "
                            f"its outputs show as {cell['order']}: not each widget right above "
                            "its strip" + still)
    shot = shots / (rel.replace("/", "__").removesuffix(".ipynb") + "-reopened.png")
    if widget_cells:
        page.evaluate(JS_SCROLL_TO_WIDGET, widget_cells[0])
        time.sleep(0.3)
    page.screenshot(path=str(shot))
    log(f"  reopened: {len(widget_cells)} widget cell(s) checked ({time.monotonic() - t0:.1f} s)"
        f"; screenshot: {shot}")
    if problems:
        raise CheckFailed("\n".join(f"  - {p}" for p in problems))


JS_SCROLL_TO_WIDGET = """(i) => {
  const panel = window.jupyterapp.shell.currentWidget;
  const cell = panel.content.widgets[i];
  if (cell) cell.node.scrollIntoView({block: 'start'});
}"""


def check_notebook(page, lab, rel, path, shots, timeout, original):
    """All checks for one notebook; raises CheckFailed with every problem found.

    ``path`` is the served copy (JupyterLab may write it), ``original`` the
    bytes of the repository's file.
    """
    t0 = time.monotonic()
    expected = file_cells(path)
    problems = []
    open_notebook(page, lab, rel, expected)
    log(f"  opened, kernel idle ({time.monotonic() - t0:.1f} s)")

    # Untrusted, as after a git clone: every stored picture must already show as one
    # (a widget's strip too: the widget itself cannot show before the kernel runs).
    stored = sum(c["pictures"] for c in expected)
    strips = sum(c["strips"] for c in expected)
    for i, c in enumerate(expected):
        if c["mixed"]:
            problems.append(f"{describe(expected, i)}: a widget view shares its output with a "
                            "picture (nbconvert and nbviewer show the widget and drop the picture): "
                            "display the picture as an output of its own, below the widget")
        if c["widgets"] > c["strips"]:
            problems.append(f"{describe(expected, i)}: {c['widgets'] - c['strips']} widget(s) "
                            "without a stored picture right below them (a page read without a "
                            "kernel shows nothing of them)")
    shown = [p for p in wait_pictures(page, stored, 15) if not p["widget"]]
    if len(shown) < stored:
        problems.append(f"before running: {stored} stored picture(s) ({strips} of them widgets' "
                        f"strips) but {len(shown)} shown as pictures (an SVG-only output shows as "
                        "text in an untrusted notebook: also store a PNG)")
    else:
        log(f"  untrusted: all {stored} stored picture(s) shown, {strips} of them widgets' strips")

    # what a student sees before running anything: the stored pictures (a screenshot per widget)
    stem = rel.replace("/", "__").removesuffix(".ipynb")
    for n, i in enumerate(i for i, c in enumerate(expected) if c["widgets"]):
        page.evaluate(JS_SCROLL_TO_WIDGET, i)
        time.sleep(0.3)
        page.screenshot(path=str(shots / f"{stem}-untrusted-widget{n + 1}.png"))

    # Opening changes nothing: let autosave run, then save by hand as well; the file must be
    # byte for byte what make execute stored (or git status would be dirty after a visit).
    time.sleep(2 * AUTOSAVE_SECONDS + 1)
    save(page)
    saved = path.read_bytes()
    if saved == original:
        log("  opened, autosaved and saved: the file is unchanged")
    elif only_python_version_differs(original, saved):
        # JupyterLab writes the kernel's Python version: a machine with another Python than the
        # one `make execute` ran on rewrites it, whatever the project does
        log("  warning: opened and saved, JupyterLab changed only language_info.version (this "
            "machine's Python differs from the one the lesson was stored with)")
    else:
        problems.append("opened and saved without running anything, JupyterLab wrote a different "
                        "file (store it with `make execute`):" + first_difference(original, saved))

    # Run all through the menu, as a student does.
    page.click(".lm-MenuBar-item:has-text('Run')", timeout=10_000)
    page.click("li.lm-Menu-item[data-command='runmenu:run-all']", timeout=10_000)
    ncode = sum(c["type"] == "code" for c in expected)
    if ncode:
        try:  # every code cell is marked as queued at once; `finished` below is the real test
            wait_until(lambda: (s := page_state(page))["busy"] or s["kernel"] != "idle",
                       10, "the run to start", interval=0.05)
        except CheckFailed:
            log("  (the run was not seen starting; waiting for it to finish anyway)")
    stable = [0]

    def finished():
        # JupyterLab runs the cells one after the other, and the kernel is idle for a moment
        # between two of them (longer after a `raises-exception` cell): done means every code
        # cell has its new execution count, or the run stopped at an error, and nothing is
        # queued, for a full second.
        dismiss_prompts(page)
        s = page_state(page)
        code = [c for c in s["cells"] if c["type"] == "code"]
        stopped = any(c["errors"] and c["index"] < len(expected)
                      and "raises-exception" not in expected[c["index"]]["tags"] for c in code)
        done = (not s["busy"] and s["kernel"] == "idle"
                and (stopped or all(c["count"] is not None for c in code)))
        stable[0] = stable[0] + 1 if done else 0
        return s if stable[0] >= 4 else None

    state = wait_until(finished, timeout, "all cells to finish running")
    log(f"  ran all cells ({time.monotonic() - t0:.1f} s)")

    if len(state["cells"]) != len(expected):
        problems.append(f"JupyterLab shows {len(state['cells'])} cells, the file has {len(expected)}")
    counts = []
    for cell in state["cells"]:
        i = cell["index"]
        if cell["type"] != "code" or i >= len(expected):
            continue
        allowed = "raises-exception" in expected[i]["tags"]
        for error in cell["errors"]:
            if not allowed:
                problems.append(f"{describe(expected, i)} shows an error: {error[:300]}")
        if cell["count"] is None:
            problems.append(f"{describe(expected, i)} did not run (prompt {cell['prompt']})")
        else:
            counts.append(cell["count"])
        if allowed and not cell["errors"]:
            problems.append(f"{describe(expected, i)} is tagged raises-exception but raised nothing")
    if counts != sorted(counts) or len(set(counts)) != len(counts):
        problems.append(f"cells ran out of order: execution counts {counts}")

    pictures = wait_pictures(page, stored, 20)
    static = [p for p in pictures if not p["widget"]]
    if stored and not pictures:
        problems.append("no picture rendered after running")
    if len(static) != stored:
        problems.append(f"after running: {len(static)} picture(s) shown outside widgets, "
                        f"{stored} stored in the file")
    if len(pictures) - len(static) < strips:
        problems.append(f"after running: {len(pictures) - len(static)} picture(s) in widgets, but "
                        f"{strips} widget(s) with a strip (each shows a live picture of its own)")
    shown_cells = page.evaluate(JS_WIDGET_CELLS)
    for i, c in enumerate(expected):
        order = shown_cells[i]["order"] if i < len(shown_cells) else []
        if c["strips"] and widgets_above_strips(order) < c["strips"]:
            problems.append(f"after running: {describe(expected, i)} shows its outputs as {order}: "
                            f"not each of its {c['strips']} widget(s) right above its strip")
    for p in pictures:
        if not p["width"]:
            problems.append(f"a picture in {describe(expected, p['cell'])} did not load (naturalWidth 0)")
    log(f"  {len(pictures)} picture(s) rendered"
        + (f", {len(pictures) - len(static)} of them in widgets" if len(pictures) != len(static) else ""))

    # Screenshot: at the first picture, after running.
    page.evaluate(JS_SCROLL_TO_PICTURE, 0)
    time.sleep(0.3)
    shot = shots / (rel.replace("/", "__").removesuffix(".ipynb") + ".png")
    page.screenshot(path=str(shot))
    log(f"  screenshot: {shot}")

    problems += check_sliders(page, expected, shot)
    save(page)  # what autosave does after a run: the reopening below starts from this file
    if problems:
        raise CheckFailed("\n".join(f"  - {p}" for p in problems))
    log(f"  OK ({time.monotonic() - t0:.1f} s)")


def wait_pictures(page, want, timeout):
    """The pictures, once `want` of them are outside widgets and every <img> has finished
    loading (outputs render a little after the cells appear), or after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        pictures = page.evaluate(JS_PICTURES)
        static = sum(not p["widget"] for p in pictures)
        if (static >= want and all(p["complete"] for p in pictures)) or time.monotonic() > deadline:
            return pictures
        time.sleep(0.2)


def check_sliders(page, expected, shot, timeout=30, settle=3):
    problems = []
    n = page.locator(SLIDER_HANDLE).count()
    log(f"  {n} slider handle(s)")
    for k in range(n):
        before = page.evaluate(JS_SLIDER, k)
        name = f"slider {k + 1} {before['label'].strip()!r}".replace(" ''", "")
        where = (describe(expected, before["cellIndex"]) if 0 <= before["cellIndex"] < len(expected)
                 else "?")
        name += f" in {where}"
        if not before["pictures"]:
            problems.append(f"{name}: no picture near it (its cell output has no image or HTML, "
                            "nor does any widget in the notebook)")
            continue
        handle = page.locator(SLIDER_HANDLE).nth(k)
        if not handle.is_visible():
            log(f"  {name}: hidden, not moved")
            continue
        handle.scroll_into_view_if_needed(timeout=5_000)
        handle.focus(timeout=5_000)
        key = "ArrowLeft" if before["value"] is not None and before["value"] == before["max"] else "ArrowRight"
        handle.press(key, timeout=5_000)
        # Wait for the new picture; give up `settle` seconds after the kernel went idle
        # again with the picture unchanged, or after `timeout` seconds in any case.
        t0 = time.monotonic()
        idle_since = None
        while True:
            after = page.evaluate(JS_SLIDER, k)
            idle = page_state(page)["kernel"] == "idle"
            now = time.monotonic()
            if after["signature"] != before["signature"] and idle and not after["broken"]:
                break
            idle_since = (idle_since or now) if idle else None
            if now - t0 > timeout or (idle_since and now - idle_since > settle and now - t0 > settle):
                break
            time.sleep(0.1)
        elapsed = time.monotonic() - t0
        moved = f"{before['readout'] or before['value']} -> {after['readout'] or after['value']}"
        if after["value"] == before["value"] and after["readout"] == before["readout"]:
            problems.append(f"{name}: {key} on the focused handle did not move it ({moved})")
        elif after["signature"] == before["signature"]:
            problems.append(f"{name}: moved {moved}, but the picture in {before['where']} "
                            f"did not change ({elapsed:.0f} s)")
        elif after["broken"]:
            problems.append(f"{name}: moved {moved}, the new picture did not load")
        else:
            log(f"  {name}: {key} moved it {moved}; the picture in {before['where']} changed "
                f"after {elapsed:.1f} s")
        path = shot.with_name(f"{shot.stem}-slider{k + 1}.png")
        page.screenshot(path=str(path))
        log(f"  screenshot: {path}")
    return problems


# --------------------------------------------------------------------------- main


def find_chromium(given):
    candidates = [given] if given else [os.environ.get("CHROMIUM"), "/usr/bin/chromium",
                                        shutil.which("chromium"), shutil.which("chromium-browser"),
                                        shutil.which("google-chrome")]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise CannotRun("no Chromium found (looked for /usr/bin/chromium, chromium, chromium-browser, "
                    "google-chrome; or pass --chromium PATH / set CHROMIUM). On Debian or Ubuntu: "
                    "apt-get install chromium; `make lab-check` does that for you as root.")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=pathlib.Path,
                        help="notebooks to check (default: every .ipynb under notebooks/)")
    parser.add_argument("--root", type=pathlib.Path, default=ROOT,
                        help="the repository (default: the one this script is in)")
    parser.add_argument("--chromium", help="the browser (default: /usr/bin/chromium or on PATH)")
    parser.add_argument("--screenshots", type=pathlib.Path,
                        help="where to save screenshots (default: build/lab-check, emptied first)")
    parser.add_argument("--notebook-timeout", type=float, default=420,
                        help="seconds for one notebook's run-all (default 420)")
    parser.add_argument("--total-timeout", type=float, default=1800,
                        help="seconds for the whole check, after which everything is stopped "
                        "(default 1800)")
    parser.add_argument("--headed", action="store_true", help="show the browser window")
    parser.add_argument("--no-static", action="store_true",
                        help="leave out the static pages (check_static.py: nbconvert's HTML)")
    args = parser.parse_args(argv)

    root = args.root.resolve()
    notebook_dir = root / "notebooks"
    if args.notebooks:
        paths = [p.resolve() for p in args.notebooks]
    else:
        paths = sorted(p for p in notebook_dir.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
    for p in paths:
        if not p.is_file() or notebook_dir not in p.parents:
            log(f"lab-check: {p} is not a notebook under {notebook_dir}")
            return 2
    if not paths:
        log(f"lab-check: no notebooks under {notebook_dir}")
        return 2

    try:
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright
    except ImportError:
        log(f"lab-check: playwright is missing from {sys.executable}; install the extra: "
            f"{sys.executable} -m pip install -e '.[browser]' (or run `make lab-check`)")
        return 2

    # JupyterLab's files live in a temporary folder, removed at the end; the screenshots stay,
    # in build/lab-check (this run's only) unless --screenshots names another folder
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="lab-check-"))
    shots = args.screenshots or root / "build" / "lab-check"
    if not args.screenshots:
        shutil.rmtree(shots, ignore_errors=True)
    shots.mkdir(parents=True, exist_ok=True)
    # The served root: a copy of the lessons, laid out as in the repository (make lab serves
    # the repository root), so that JupyterLab's saves never touch the repository.
    serve = workdir / "root"
    shutil.copytree(notebook_dir, serve / "notebooks",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    before = {p: p.read_bytes() for p in paths}
    copies = {p: serve / p.relative_to(root) for p in paths}
    labs = []

    # Last resort against a hang anywhere (the browser, the server): stop everything.
    def watchdog():
        log(f"lab-check: FAILED: the whole check took longer than {args.total_timeout:.0f} s; "
            "stopping JupyterLab")
        try:
            for lab in labs:
                lab.stop()
        finally:
            os._exit(1)

    timer = threading.Timer(args.total_timeout, watchdog)
    timer.daemon = True
    timer.start()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    failed, started = [], time.monotonic()
    completed = False  # (JupyterLab's files are kept, for their logs, unless all went well)

    def each_notebook(context, lab, check, label):
        for path in paths:
            rel = path.relative_to(root).as_posix()
            log(f"{rel}{label}:")
            page = context.new_page()
            console_errors = []
            page.on("pageerror", lambda e, errs=console_errors: errs.append(str(e)))
            try:
                check(page, lab, rel, path)
            except (CheckFailed, PlaywrightError) as error:
                if rel not in failed:
                    failed.append(rel)
                log(f"  FAILED:\n{error}")
                try:
                    shot = shots / (rel.replace("/", "__").removesuffix(".ipynb")
                                    + f"{label.strip(' ()').replace(' ', '-')}-failed.png")
                    page.screenshot(path=str(shot), timeout=10_000)
                    log(f"  screenshot: {shot}")
                except PlaywrightError:
                    pass
            for e in console_errors:
                log(f"  (page error: {e[:200]})")
            page.close()
            lab.delete_sessions()

    try:
        chromium = find_chromium(args.chromium)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, headless=not args.headed,
                                         args=CHROMIUM_ARGS, timeout=60_000)
            try:
                if not args.no_static:  # the stored pages first: no server, about 20 s
                    import check_static

                    try:
                        failed += [f"{rel} (static page)" for rel in
                                   check_static.run(browser, paths, shots / "static", root)]
                    except check_static.CannotRun as error:  # (its import of this file's class)
                        raise CannotRun(str(error)) from None
                context = browser.new_context(viewport={"width": 1400, "height": 1000})
                context.set_default_timeout(30_000)
                first = Lab(serve, workdir)
                labs.append(first)
                first.start()
                each_notebook(context, first, lambda page, lab, rel, path: check_notebook(
                    page, lab, rel, copies[path], shots, args.notebook_timeout, before[path]), "")
                first.stop()
                # A fresh JupyterLab, as after closing the laptop: the saved runs must reopen
                # without "Error displaying widget: model not found".
                second = Lab(serve, workdir)
                labs.append(second)
                second.start()
                each_notebook(context, second, lambda page, lab, rel, path: check_reopened(
                    page, lab, rel, copies[path], shots), " (saved, reopened in a fresh JupyterLab)")
                second.stop()
                completed = True
            finally:
                browser.close()
    except CannotRun as error:
        log(f"lab-check: could not run: {error}")
        return 2
    except KeyboardInterrupt:
        log("lab-check: interrupted")
        return 130
    finally:
        timer.cancel()
        for lab in labs:
            lab.stop()
        if completed and not failed:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            shutil.rmtree(workdir / "checkpoints", ignore_errors=True)
            log(f"lab-check: JupyterLab's files (its logs among them) kept in {workdir}")
        for p, data in before.items():
            if p.exists() and p.read_bytes() != data:
                log(f"lab-check: warning: {p.relative_to(root)} changed on disk during the check "
                    "(the check never writes it; was it edited meanwhile?)")

    log(f"screenshots in {shots}")
    took = time.monotonic() - started
    if failed:
        log(f"lab-check: FAILED in {took:.0f} s: {', '.join(failed)}")
        return 1
    log(f"lab-check: {len(paths)} notebook(s) OK in {took:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
