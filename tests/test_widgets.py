"""minigrad.widgets: the callbacks behind the sliders, called without a browser.

What a widget shows is asserted through its plain callbacks (``render_step``,
``run_explore``) and through the widget's own ``show`` / ``update``, which set
the values of its Image and HTML children (no ``display()``), as a slider
move in JupyterLab does.
"""

import json
import re
import shutil

import pytest

import minigrad as mg
from minigrad import viz, widgets

pytest.importorskip("ipywidgets")

HAVE_DOT = shutil.which("dot") is not None
try:
    import graphviz  # noqa: F401

    HAVE_GRAPHVIZ = True
except ImportError:  # pragma: no cover
    HAVE_GRAPHVIZ = False
needs_dot = pytest.mark.skipif(not (HAVE_DOT and HAVE_GRAPHVIZ),
                               reason="needs Graphviz's dot and the graphviz package")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def seed_steps():
    x = mg.tensor(3.0, requires_grad=True)
    y = x * x
    z = y + 1.0
    return viz.record_backward(z, names={"x": x, "y": y, "z": z})


def fan_in_steps():
    x = mg.tensor(3.0, requires_grad=True)
    a = x * 2
    b = a * a + a
    return viz.record_backward(b, names={"x": x, "a": a, "b": b})


SEED_CAPTIONS = [
    "before the walk: backward() starts at z with gradient 1.",
    "backward 1 of 3: AddBackward0 received 1., sent 1. and None",
    "backward 2 of 3: MulBackward0 received 1., sent 3. and 3., freed self and other",
    "backward 3 of 3: AccumulateGrad received 3. + 3. = 6., set x.grad to 6.",
]


# ---------------------------------------------------------------- step_through

def test_render_step_seed():
    steps = seed_steps()
    for i, caption in enumerate(SEED_CAPTIONS):
        picture, text = widgets.render_step(steps, i)
        assert text == caption
        assert picture.text.splitlines()[0] == caption
        assert picture.text == steps.draw(i).text
    # the freed values and the marks, at the step that frees them
    picture, _ = widgets.render_step(steps, 2)
    assert ("  #1 MulBackward0(x, x)         received 1., sent 3. and 3.  saved: self (freed just "
            "now), other (freed just now)  -> y  [current]") in picture.text.splitlines()
    with pytest.raises(IndexError, match="out of range"):
        widgets.render_step(steps, 4)


def test_render_step_fan_in():
    steps = fan_in_steps()
    texts = [widgets.render_step(steps, i)[1] for i in range(len(steps) + 1)]
    assert texts == [
        "before the walk: backward() starts at b with gradient 1.",
        "backward 1 of 4: AddBackward0 received 1., sent 1. and 1.",
        "backward 2 of 4: MulBackward0 (#2) received 1., sent 6. and 6., freed self and other",
        "backward 3 of 4: MulBackward0 (#1) received 1. + 6. + 6. = 13., sent 26. and None, "
        "freed other",
        "backward 4 of 4: AccumulateGrad received 26., set x.grad to 26.",
    ]
    # at the last step every node is done and the leaf has its .grad
    last = widgets.render_step(steps, 4)[0].text.splitlines()
    assert last[2] == "  x: leaf, shape (), .grad = 26.  [current]"
    assert all(ln.endswith("[walked]") for ln in last[3:])


def test_render_step_forward_recording():
    def f(x):
        y = x * x
        z = y + 1
        return z

    steps = viz.record_forward(f, 3.0)
    assert [widgets.render_step(steps, k)[1] for k in range(3)] == [
        "before the forward pass: nothing recorded yet; inputs x",
        "forward 1 of 2: #1 MulBackward0(x, x) recorded, saves self and other",
        "forward 2 of 2: #2 AddBackward0(y, 1) recorded, saves nothing",
    ]


def test_step_through_widget_moves_and_redraws():
    import ipywidgets

    steps = seed_steps()
    w = widgets.step_through(steps)
    assert isinstance(w, ipywidgets.VBox)
    assert isinstance(w, widgets.StepThrough)
    assert (w.slider.min, w.slider.max, w.slider.value) == (0, 3, 0)
    assert (w.play.min, w.play.max) == (0, 3)
    assert w.slider.description == "picture" and w.play.tooltip == "play the pictures in order"
    assert SEED_CAPTIONS[0] in w.caption.value
    # moving the slider (what the browser does) redraws through the observer
    w.slider.value = 2
    assert "MulBackward0 received 1., sent 3. and 3., freed self and other" in w.caption.value
    # show() is the same move, and returns what it drew (the picture without its caption:
    # the caption is the HTML line above it)
    picture, caption = w.show(3)
    assert w.slider.value == 3 and caption == SEED_CAPTIONS[3]
    assert picture.text == steps.draw(3, caption=False).text
    assert picture.text.splitlines()[0].startswith("recorded graph of z")
    # render() draws without moving
    assert w.render(1)[1] == SEED_CAPTIONS[1] and w.slider.value == 3


@needs_dot
def test_step_through_image_changes_with_the_slider():
    w = widgets.step_through(seed_steps())
    first = bytes(w.image.value)
    assert first.startswith(PNG_MAGIC) and int(w.image.width) > 100
    w.slider.value = 1
    assert bytes(w.image.value).startswith(PNG_MAGIC) and bytes(w.image.value) != first
    w.slider.value = 0
    assert bytes(w.image.value) == first  # cached and deterministic


@needs_dot
def test_step_through_displays_itself_then_its_strip():
    steps = seed_steps()
    w = widgets.step_through(steps, value=2)
    (view, view_meta), (strip_data, strip_meta) = w.display_bundles()
    # first output: the widget view, with one deterministic line for renderers without widgets
    # (a JupyterLab reader meets the live slider first)
    assert set(view) == {"text/plain", WIDGET_VIEW} and view_meta == {}
    assert view[WIDGET_VIEW]["model_id"] == w.model_id
    assert view["text/plain"] == ("slider: positions 0 to 3, at 2 (it moves when the notebook "
                                  "runs; the pictures below show every position)")
    assert w._repr_mimebundle_() == view
    assert w._repr_mimebundle_(include={"text/plain"}) == {"text/plain": view["text/plain"]}
    # second output: the strip alone, so that a renderer that knows the widget mimetype
    # (nbconvert, nbviewer) cannot pick the widget over it
    assert set(strip_data) == {"text/plain", "image/png", "image/svg+xml"}
    # text/plain: every position's sentence, then the last picture's text form: the whole
    # story, deterministic (nbval compares it)
    lines = strip_data["text/plain"].splitlines()
    assert lines[0] == "all 4 positions of the slider (0 to 3), one small picture each:"
    assert lines[1:5] == [f"  {i}. {c}" for i, c in enumerate(SEED_CAPTIONS)]
    assert "\n".join(lines[5:]) == steps.draw(3, caption=False).text
    assert strip_data["text/plain"] == w.static.text and "0x" not in strip_data["text/plain"]
    assert set(strip_meta) == {"image/png"}
    # the PNG is the strip of all four pictures (two rows of two) and one legend
    import base64

    from minigrad.viz.render import png_size

    assert len(w.static.pictures) == 4
    boxes, width, height, legend = w.static.layout()
    assert len(boxes) == 5 and legend is not None
    assert len({round(y) for _x, y, _w, _h in boxes[:4]}) == 2
    w_px, h_px = png_size(base64.b64decode(strip_data["image/png"]))
    assert (w_px, h_px) == (round(width * 1.5), round(height * 1.5))
    assert strip_meta["image/png"] == {"width": round(w_px / 1.5), "height": round(h_px / 1.5)}
    # the strip does not depend on the slider
    w.slider.value = 3
    assert w.display_bundles()[1] == (strip_data, strip_meta)


@needs_dot
def test_displaying_a_widget_through_ipython_makes_two_outputs(monkeypatch):
    """What IPython does with a cell's last value (and display()): two outputs, widget first."""
    import IPython.display
    from IPython.core.formatters import DisplayFormatter

    shown = []
    monkeypatch.setattr(IPython.display, "display",
                        lambda data, metadata=None, raw=False: shown.append((data, metadata, raw)))
    w = widgets.step_through(seed_steps())
    # IPython's formatter hands the object to _ipython_display_, and formats nothing itself
    # (so the cell has no execute_result besides the two displays)
    assert DisplayFormatter().format(w) == ({}, {})
    assert [(d, m) for d, m, _raw in shown] == w.display_bundles()
    assert all(raw for _d, _m, raw in shown)
    assert WIDGET_VIEW in shown[0][0] and "image/png" in shown[1][0]


def test_step_through_without_graphviz_shows_the_text(monkeypatch, tmp_path):
    pytest.importorskip("graphviz")
    monkeypatch.setenv("PATH", str(tmp_path))  # no dot
    steps = seed_steps()
    w = widgets.step_through(steps)
    assert w.image.layout.display == "none" and w.fallback.layout.display is None
    assert "recorded graph of z" in w.fallback.value and "no picture" in w.fallback.value
    (view, _), (strip_data, _) = w.display_bundles()
    assert set(strip_data) == {"text/plain"} and set(view) == {"text/plain", WIDGET_VIEW}
    assert strip_data["text/plain"].startswith(viz.strip(steps).text + "\n\n(no picture: ")


# ---------------------------------------------------------------------- explore

def branchy(x):
    if x > 0:
        return x * x
    return x * 3


def test_run_explore_follows_the_branch():
    pos = widgets.run_explore(branchy, x=2.0)
    assert pos.tape == ["MulBackward0"]
    assert pos.forward.texts == ["#1 MulBackward0(x, x) recorded, saves self and other"]
    assert pos.grads["x"].item() == 4.0
    assert pos.backward.texts == ["MulBackward0 received 1., sent 2. and 2., freed self and other",
                                  "AccumulateGrad received 2. + 2. = 4., set x.grad to 4."]
    assert pos.text == (
        "inputs: x = 2.\n"
        "tape (1 node, in the order recorded):\n"
        "  #1 MulBackward0(x, x) recorded, saves self and other\n"
        "output: 4.\n"
        "after backward(): x.grad = 4.; the saved values are freed"
    )
    # the picture is the state its caption names: after the walk, saved values freed
    assert pos.picture.text == (
        "x = 2.: recorded MulBackward0; after backward(): x.grad = 4., saved values freed\n"
        "recorded graph of output: 1 node, 1 leaf\n"
        "  x: leaf, shape (), .grad = 4.\n"
        "  #1 MulBackward0(x, x)  received 1., sent 2. and 2.  saved: self (freed), "
        "other (freed)  -> output, shape (), seeded with 1."
    )
    neg = widgets.run_explore(branchy, x=-1.0)
    assert neg.tape == ["MulBackward0"]  # same name, different recording:
    assert neg.forward.texts == ["#1 MulBackward0(x, 3) recorded, saves other"]
    assert neg.grads["x"].item() == 3.0
    assert neg.picture.text.splitlines()[3] == (
        "  #1 MulBackward0(x, 3)  received 1., sent 3. and None  saved: other (freed)  "
        "-> output, shape (), seeded with 1.")
    assert neg.library == "minigrad"


def test_explorer_widget_rerecords_across_the_branch_point():
    import ipywidgets

    w = widgets.explore(branchy, x=(-3.0, 3.0, 0.5, 2.0))
    assert isinstance(w, ipywidgets.VBox) and isinstance(w, widgets.Explorer)
    slider = w.sliders["x"]
    assert isinstance(slider, ipywidgets.FloatSlider)
    assert (slider.min, slider.max, slider.step, slider.value) == (-3.0, 3.0, 0.5, 2.0)
    assert slider.description == "x"
    assert "MulBackward0(x, x) recorded, saves self and other" in w.text.value
    first = w.result
    # the slider crosses 0: a different recording, drawn and listed
    slider.value = -1.0
    assert w.result is not first
    assert "MulBackward0(x, 3) recorded, saves other" in w.text.value
    assert w.result.grads["x"].item() == 3.0
    assert "other (freed)" in w.result.picture.text
    # update() is the same move, from code
    r = w.update(x=0.5)
    assert r is w.result and r.forward.texts[0].startswith("#1 MulBackward0(x, x)")
    assert r.grads["x"].item() == 1.0
    # render() runs without moving the widget
    assert w.render(x=-2.0).grads["x"].item() == 3.0 and slider.value == 0.5
    # each run uses fresh leaves
    assert w.result.inputs["x"] is not first.inputs["x"]
    assert first.grads["x"].item() == 4.0  # the first run's leaf kept its own .grad


@needs_dot
def test_explorer_image_changes_and_static_picture_stays():
    w = widgets.explore(branchy, x=(-3.0, 3.0, 0.5, 2.0))
    before = bytes(w.image.value)
    assert before.startswith(PNG_MAGIC)
    w.update(x=-1.0)
    assert bytes(w.image.value).startswith(PNG_MAGIC) and bytes(w.image.value) != before
    (view, _), (strip_data, _) = w.display_bundles()
    assert set(strip_data) == {"text/plain", "image/png", "image/svg+xml"}
    assert set(view) == {"text/plain", WIDGET_VIEW}
    assert view["text/plain"] == (
        "slider: x from -3.0000 to 3.0000 every 0.5000, at -1.0000 (it moves when the notebook runs; "
        "the pictures below show every recording over its range)")
    text = strip_data["text/plain"]
    assert text.startswith("2 different recordings over 13 slider positions")
    # one picture per recording: the side of 0 and the side above it, each with its range
    assert ("  x = -1.5000: recorded MulBackward0; after backward(): x.grad = 3., saved values freed"
            "  (the same recording for x from -3. to 0.)") in text
    assert ("  x = 2.: recorded MulBackward0; after backward(): x.grad = 4., saved values freed"
            "  (the same recording for x from 0.5000 to 3.0000)") in text
    assert "  x = -3.: MulBackward0; x.grad = 3." in text
    assert "  x = 3.: MulBackward0; x.grad = 6." in text


def test_explore_show_values_draws_the_values():
    w = widgets.explore(branchy, x=(-3.0, 3.0, 0.5, 2.0), show_values=True)
    assert set(w.sliders) == {"x"}  # show_values is not a slider
    lines = w.result.draw(**w._draw_kwargs).text.splitlines()
    assert lines[2] == "  x: leaf tensor(2., requires_grad=True), .grad = 4."
    assert lines[3].endswith("-> output = tensor(4., grad_fn=<MulBackward0>), seeded with 1.")
    # the stored pictures too: one per recording, each with its values
    assert [p.text.splitlines()[2] for p in w.static.pictures] == [
        "  x: leaf tensor(-1.5000, requires_grad=True), .grad = 3.",
        "  x: leaf tensor(2., requires_grad=True), .grad = 4."]
    plain = widgets.explore(branchy, x=(-3.0, 3.0, 0.5, 2.0))
    assert plain.static.pictures[1].text.splitlines()[2] == "  x: leaf, shape (), .grad = 4."


def test_explore_slider_abbreviations():
    import ipywidgets

    w = widgets.explore(lambda a, b: a * b + b, a=1.5, b=(0, 4))
    assert isinstance(w.sliders["a"], ipywidgets.FloatSlider) and w.sliders["a"].value == 1.5
    assert isinstance(w.sliders["b"], ipywidgets.FloatSlider)  # inputs are float leaves
    assert w.result.grads["a"].item() == w.sliders["b"].value
    # the widget view's line names every slider (its range, its value) in order
    assert w._repr_mimebundle_()["text/plain"] == (
        "sliders: a from -1.5000 to 4.5000 every 0.1000, at 1.5000; b from 0.0000 to 4.0000 "
        "every 0.1000, at 2.0000 (they move when the notebook runs; the pictures below show every "
        "recording over their range)")
    given = ipywidgets.FloatSlider(value=1.0, min=0.0, max=2.0, description="t")
    w = widgets.explore(lambda t: t.exp(), t=given)
    assert w.sliders["t"] is given and w.result.tape == ["ExpBackward0"]
    with pytest.raises(TypeError, match="at least one slider"):
        widgets.explore(branchy)


def test_explore_of_functions_that_raise_or_record_nothing():
    def picky(x):
        if x < 0:
            raise ValueError("x must be positive")
        return x.sqrt()

    r = widgets.run_explore(picky, x=-1.0)
    assert r.error == "ValueError: x must be positive"
    assert r.text == "inputs: x = -1.\nthe function raised ValueError: x must be positive"
    assert r.picture.text.splitlines()[0] == (
        "inputs: x = -1.: the function raised ValueError: x must be positive")
    r = widgets.run_explore(lambda x: mg.tensor(2.0), x=1.0)
    assert r.backward is None and r.tape == [] and r.grads["x"] is None
    assert r.text.splitlines()[1:] == [
        "tape: nothing recorded", "output: 2.",
        "no backward(): the output does not depend on any input"]
    r = widgets.run_explore(lambda x: x * mg.tensor([1.0, 2.0]), x=3.0)  # seeded with ones
    assert r.grads["x"].item() == 3.0


def test_import_does_not_import_ipywidgets():
    import subprocess
    import sys

    code = ("import sys, minigrad.widgets\n"
            "r = minigrad.widgets.run_explore(lambda x: x * x, x=2.0)\n"
            "assert r.grads['x'].item() == 4.0 and r.picture.text\n"
            "assert 'ipywidgets' not in sys.modules\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


# ------------------------------------------------------------------ stable model ids

def test_widget_ids_come_from_the_cell_so_a_saved_run_finds_its_models(monkeypatch):
    """Two runs of the same cell (make execute, then JupyterLab) make the same model ids."""
    import ipywidgets

    steps = seed_steps()
    monkeypatch.setattr(widgets, "_execution", lambda: ("cell-a", "request-1"))
    first = widgets.step_through(steps)
    first_ids = (first.model_id, first.slider.model_id)
    assert all(m.startswith("minigrad-") for m in first_ids)
    # every model of the widget (layouts and styles too) has a stable id
    state = ipywidgets.Widget.get_manager_state(drop_defaults=False)["state"]
    refs = re.findall(r"IPY_MODEL_([\w-]+)", json.dumps(state[first.model_id]))
    assert refs and all(r.startswith("minigrad-") for r in refs)
    # the same cell run again (a new request): the same ids, the old widget closed
    monkeypatch.setattr(widgets, "_execution", lambda: ("cell-a", "request-2"))
    again = widgets.step_through(steps)
    assert (again.model_id, again.slider.model_id) == first_ids
    assert first.comm is None and again.comm is not None
    # a second widget in the same run, or another cell: other ids
    other = widgets.step_through(steps)
    monkeypatch.setattr(widgets, "_execution", lambda: ("cell-b", "request-3"))
    elsewhere = widgets.explore(branchy, x=(-3.0, 3.0, 0.5, 2.0))
    assert len({again.model_id, other.model_id, elsewhere.model_id}) == 3
    # outside a kernel (tests, scripts): ipywidgets' own random ids
    monkeypatch.setattr(widgets, "_execution", lambda: None)
    assert not widgets.step_through(steps).model_id.startswith("minigrad-")
    for w in (again, other, elsewhere):
        w.close()


# ------------------------------------------------------------------ in a real kernel

@needs_dot
def test_a_run_stores_the_widget_then_the_strip_and_a_rerun_gives_the_same(tmp_path):
    """Run as ``make execute`` runs (cell ids sent), twice: the outputs nbval would compare."""
    import nbformat

    from tests.tools.execute_notebooks import run

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src, id=f"w-{i}") for i, src in enumerate([
        "import minigrad as torch\nfrom minigrad import viz, widgets\n"
        "x = torch.tensor(3.0, requires_grad=True)\ny = x * x\nz = y + 1.0\n"
        "walk = viz.record_backward(z, names={'x': x, 'y': y, 'z': z})",
        "w = widgets.step_through(walk)\nw.show(3)\nw.slider.value = 1\nw",  # moves display nothing
        "def f(x):\n    return x * x if x > 0 else x * 3\n"
        "widgets.explore(f, x=(-3.0, 3.0, 0.5, 2.0))",
    ])]

    def outputs():
        work = nbformat.reads(nbformat.writes(nb), as_version=4)
        run(work, tmp_path / "x.ipynb", timeout=120)
        return work

    first, second = outputs(), outputs()
    for cell in first.cells[1:]:
        outs = cell.outputs
        # two display_data, no execute_result: the widget view, then the strip
        assert [o.output_type for o in outs] == ["display_data", "display_data"], cell.id
        assert set(outs[0].data) == {"text/plain", WIDGET_VIEW}
        assert "the pictures below show every" in outs[0].data["text/plain"]
        assert outs[0].data[WIDGET_VIEW]["model_id"].startswith("minigrad-")  # from the cell id
        assert set(outs[1].data) == {"text/plain", "image/png", "image/svg+xml"}
        assert set(outs[1].metadata) == {"image/png"}
    assert first.cells[1].outputs[0].data["text/plain"].startswith("slider: positions 0 to 3, at 1")
    assert first.cells[1].outputs[1].data["text/plain"] == viz.strip(seed_steps()).text
    assert first.cells[2].outputs[1].data["text/plain"].startswith("2 different recordings")
    # the re-run: the same outputs, model ids included (the stored widget state names them)
    for a, b in zip(first.cells[1:], second.cells[1:]):
        assert [o.data["text/plain"] for o in a.outputs] == [o.data["text/plain"] for o in b.outputs]
        assert a.outputs[0].data[WIDGET_VIEW] == b.outputs[0].data[WIDGET_VIEW]
    state = first.metadata.widgets["application/vnd.jupyter.widget-state+json"]["state"]
    assert all(c.outputs[0].data[WIDGET_VIEW]["model_id"] in state for c in first.cells[1:])
