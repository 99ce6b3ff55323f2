"""Interactive pieces for the lessons (ipywidgets): step through a walk, explore a function.

* ``step_through(steps)``: a slider and a play button over the states of a
  recording (``minigrad.viz.record_backward`` or ``record_forward``): each
  position redraws the graph as it was then, with the step's sentence above.
* ``explore(fn, x=(-3., 3., 0.5))``: one slider per input; every change
  re-runs ``fn`` on fresh leaves that require grad, records what it did,
  walks it back, and shows the recording as the walk left it (saved values
  freed, each arrow with its gradient), the tape and the gradients.  A
  function that branches on a value (``x * x if x > 0 else x * 3``) records a
  different graph on each side of the branch point: the graph is dynamic,
  rebuilt by every run.  The leaves are tensors of the library ``fn`` uses
  (``torch`` after ``import torch`` or ``import minigrad as torch``), or of
  ``library=`` if given: never silently minigrad's.

Promises, so that a lesson using them reads everywhere and can be tested:

1. **The stored page tells the whole story.**  Displaying one of these widgets
   (a cell's last value, or ``display(w)``) makes two outputs (``_ipython_display_``):

   * first the *widget view*, whose ``text/plain`` is one deterministic line
     (``slider: positions 0 to 3, at 0 (it moves when the notebook runs; the
     pictures below show every position)``): a reader in JupyterLab meets
     the live slider first, not after scrolling past every picture;
   * then the *strip*: every position of the slider as a small picture with
     its sentence (``viz.strip``; ``explore``: one picture per different
     recording), as ``image/png`` (shown even while a notebook is
     untrusted), ``image/svg+xml`` and a deterministic ``text/plain``
     listing every position.

   Two outputs, not one, because a renderer shows one mimetype per output
   and one that knows the widget mimetype (``jupyter nbconvert --to html``,
   which nbviewer runs) prefers it to the pictures beside it.  Where a
   reader sees what: JupyterLab with a running kernel shows the live widget
   and the strip below it; a trusted notebook reopened shows the widget
   restored from the state stored with it, then the strip; an untrusted
   notebook (a fresh clone) shows the widget's one line and the strip's
   PNG; nbviewer and ``nbconvert`` pages show the strip (and the widget
   above it only where the page can load the ipywidgets script); GitHub,
   which runs no widgets, shows the strip too.  nbval compares the
   ``text/plain`` of both outputs (not the widget view's JSON), so a re-run
   matches without ``nbval-ignore-output``.
2. **Widgets survive a save.**  The widgets' model ids are made from the
   notebook cell's id (JupyterLab and ``make execute`` send it with every
   execution) instead of at random, so a notebook run and saved in JupyterLab
   refers to the same models as the widget state stored with it: reopened in
   a fresh JupyterLab, each widget shows its stored state, never "Error
   displaying widget: model not found".  Re-running a cell closes the widgets
   it made before.
3. **Updates are values, not displays.**  Moving a slider sets the value of an
   ``Image`` and an ``HTML`` widget; nothing is ``display()``-ed, so a re-run
   under nbval produces no extra outputs.
4. **The callbacks are plain functions.**  ``render_step(steps, i)`` and
   ``run_explore(fn, x=2.0)`` return what the widget would show;
   ``widget.show(i)`` and ``widget.update(x=2.0)`` move the widget itself;
   ``widget.display_bundles()`` is what displaying it outputs.  Tests call
   them without a browser.

``import minigrad.widgets`` needs numpy only: ipywidgets is imported when a
widget is made (``StepThrough`` and ``Explorer`` are ``ipywidgets.VBox``
subclasses, created on first use).

Source: ``ipywidgets.interact``'s abbreviations for sliders (``(min, max,
step)`` tuples, single values, widgets: ``interactive.widget_from_abbrev``),
``ipywidgets.Play`` linked to a slider as in the ipywidgets documentation,
``Widget(model_id=...)`` and ``Widget.on_widget_constructed`` for the ids.
"""

import contextlib
import hashlib
import html
import itertools
import sys
import weakref

from . import viz
from .creation import tensor
from .viz import GraphvizMissingError
from .viz.drawing import draw_marked
from .viz.forward_pass import choose_library, run_recorded
from .viz.reading import describe_type
from .viz.recording import Recording, View
from .viz.render import png_size
from .viz.strip import CAPTION_WIDTH, compose, strip
from .viz.values import fmt_value

# (the widget classes StepThrough and Explorer are attributes made on first use, so that
# ``from minigrad.widgets import *`` does not import ipywidgets)
__all__ = ["ExploreResult", "explore", "render_step", "run_explore",
           "step_through"]

_PNG_DPI = 144
_MAX_STATIC_RUNS = 41  # slider positions run for an explorer's static strip


# ------------------------------------------------------------ plain callbacks

def render_step(steps, i, **draw_kwargs):
    """What ``step_through`` shows at position ``i``: ``(picture, caption)``.

    Args:
        steps: a ``BackwardRecording`` or ``ForwardRecording`` (``minigrad.viz``).
        i (int): 0 for the state before the first step, ``i`` after step ``i``.
        **draw_kwargs: passed to the step's ``draw`` (``show_values=True``, ``names=...``).

    Returns:
        tuple: ``(GraphPicture, str)``: the graph at that state, and its one-line caption
        (``backward 2 of 3: MulBackward0 received 1., sent 3. and 3., freed self and other``).
    """
    state = steps.state(i)
    return state.draw(**draw_kwargs), state.caption


class ExploreResult:
    """One run of ``explore``'s function: what the widget shows for one set of slider values.

    Attributes:
        values (dict): the input values used, by name.
        inputs (dict): the fresh leaf tensors made from them, by name.
        library (str): ``"minigrad"`` or ``"torch"``: whose tensors they are.
        forward (ForwardRecording | None): what the function recorded.
        backward (BackwardRecording | None): the walk back (None if nothing to walk).
        output: what the function returned (or None if it raised).
        error (str | None): ``"ValueError: ..."`` if the function raised.
        tape (list[str]): the node names in the order recorded.
        grads (dict): each input's ``.grad`` after the walk (None if it got none), by name.
        text (str): the lines the widget shows: inputs, tape, output, gradients.
        caption (str): one line: the inputs, what was recorded, what backward() gave.
        picture (GraphPicture): the recording as the walk left it (saved values
            freed, every arrow with the gradient it carried, each leaf with its
            ``.grad``), with ``caption`` on top.
    """

    def __init__(self, values, inputs, library, forward, backward, output, error, caption,
                 text):
        self.values = values
        self.inputs = inputs
        self.library = library
        self.forward = forward
        self.backward = backward
        self.output = output
        self.error = error
        self.caption = caption
        self.text = text

    @property
    def tape(self):
        return self.forward.tape if self.forward is not None else []

    @property
    def grads(self):
        return {name: t.grad for name, t in self.inputs.items()}

    def draw(self, caption=True, **draw_kwargs):
        """The picture of this run (``caption=False``: without its sentence on top)."""
        text = self.caption if caption else None
        if self.backward is not None:
            return self.backward.after(caption=text, **draw_kwargs)
        if self.forward is not None:
            return self.forward._data.draw(len(self.forward), caption=text or False,
                                           mark_new=False, **draw_kwargs)
        return _error_picture(self.inputs, text)

    @property
    def picture(self):
        return self.draw()

    def __repr__(self):
        return self.text


def _fmt(v):

    return fmt_value(v)


def _value_text(v):
    """A slider value as a learner reads it: ``2.``, ``0.5000``, like a tensor's print."""
    return _values_text(v)[0]


def _values_text(*vs):
    """Numbers read together, as PyTorch prints them in one tensor: both ends alike.

    ``_values_text(0.5, 3.0)`` is ``["0.5000", "3.0000"]`` (``tensor([0.5, 3.])``
    prints ``[0.5000, 3.0000]``), ``_values_text(-3.0, 0.0)`` is ``["-3.", "0."]``.
    """

    return [part.strip() for part in _fmt(tensor([float(v) for v in vs])).strip("[]").split(",")]


def run_explore(fn, *, library=None, **values):
    """Run ``fn`` once as ``explore`` does, without a widget; returns an ``ExploreResult``.

    Each value becomes a fresh leaf ``tensor(float(value), requires_grad=True)``
    of the library ``fn`` computes with (or ``library``: ``"minigrad"``,
    ``"torch"`` or the module), passed to ``fn`` by keyword; the run is
    recorded (``viz.record_forward``), then walked back
    (``viz.record_backward``; a non-scalar result is seeded with ones) so
    that each input's ``.grad`` is known.

    Example::

        r = run_explore(lambda x: x * x if x > 0 else x * 3, x=2.0)
        r.tape, r.grads["x"]     # (['MulBackward0'], tensor(4.))
    """

    lib = choose_library(fn, [], library, _caller_globals())
    inputs = {name: lib.leaf(v) for name, v in values.items()}
    shown = ", ".join(f"{name} = {_value_text(v)}" for name, v in values.items())
    forward = backward = output = error = None
    try:
        forward = run_recorded(lib, fn, (), dict(inputs), None)
        output = forward.result
    except Exception as err:  # a lesson's function may raise for some inputs: show it
        error = f"{type(err).__name__}: {err}"
    lines = [f"inputs: {shown}" if shown else "inputs: none"]
    if error is not None:
        lines.append(f"the function raised {error}")
        return ExploreResult(values, inputs, lib.name, None, None, None, error,
                             lines[0] + f": the function raised {error}", "\n".join(lines))
    outs = [t for t in forward.outputs if t.requires_grad]
    if outs:
        seeds = [None if t.numel() == 1 else lib.ones_like(t) for t in outs]
        backward = viz.record_backward(outs if len(outs) > 1 else outs[0],
                                       seeds if len(outs) > 1 else seeds[0],
                                       names=forward.names)
    n = len(forward)
    if n:
        lines.append(f"tape ({n} node{'s' if n != 1 else ''}, in the order recorded):")
        lines += [f"  {t}" for t in forward.texts]
    else:
        lines.append("tape: nothing recorded")
    if lib.is_tensor(output):
        lines.append(f"output: {_fmt(output.detach())}")
    else:
        lines.append(f"output: {output!r} (not a tensor)")
    grads = ", ".join(f"{name}.grad = {_fmt(t.grad)}" for name, t in inputs.items())
    if backward is not None:
        lines.append(f"after backward(): {grads}; the saved values are freed")
    else:
        lines.append("no backward(): the output does not depend on any input")
    names = [s.name for s in forward]
    recorded = (", ".join(names) if 0 < len(names) <= 4 else
                f"{len(names)} nodes" if names else "nothing")
    caption = f"{shown}: recorded {recorded}" + (
        f"; after backward(): {grads}, saved values freed" if backward is not None else "")
    return ExploreResult(values, inputs, lib.name, forward, backward, output, None, caption,
                         "\n".join(lines))


def _caller_globals():
    """The namespace of the code that called into this module (a notebook's, usually)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame = frame.f_back
    return frame.f_globals if frame is not None else None


def _error_picture(inputs, caption):

    roots = list(inputs.values())
    if not roots:

        roots = [tensor(0.0)]
    view = View(caption=caption, header="recorded so far")
    return draw_marked(roots, {}, names={t: n for n, t in inputs.items()}, view=view)


def explore_positions(sliders, limit=_MAX_STATIC_RUNS):
    """The slider positions an explorer's static form runs: each slider alone over its range.

    Args:
        sliders (dict): name -> ``(min, max, step, value)``.

    Returns:
        list[dict]: value sets, the initial one first; each other slider at its
        initial value while one moves; at most ``limit`` positions per slider
        (evenly spread, the ends and the initial value kept).
    """
    initial = {name: s[3] for name, s in sliders.items()}
    out, seen = [dict(initial)], {tuple(sorted(initial.items()))}
    for name, (lo, hi, step, _value) in sliders.items():
        n = int(round((hi - lo) / step)) + 1 if step else 1
        values = [lo + k * step for k in range(n)]
        if len(values) > limit:
            idx = {round(k * (len(values) - 1) / (limit - 1)) for k in range(limit)}
            values = [values[i] for i in sorted(idx)]
        for v in values:
            v = round(v, 10)
            pos = dict(initial)
            pos[name] = v
            key = tuple(sorted(pos.items()))
            if key not in seen:
                seen.add(key)
                out.append(pos)
    return out


def explore_static(fn, sliders, library=None, **draw_kwargs):
    """The static form of an explorer: every slider position run, one picture per recording.

    Runs ``fn`` at each position of ``explore_positions``; groups the runs by
    the recording they made (the tape, constants included); draws one picture
    per group (the initial position for its own group, else the middle of the
    positions it covers), in slider order.

    Returns:
        viz.StripPicture: the pictures, a line per position in its text.
    """

    names = list(sliders)
    runs = [(pos, run_explore(fn, library=library, **pos))
            for pos in explore_positions(sliders)]
    initial = runs[0][0]
    groups = {}
    for pos, r in runs:
        key = tuple(r.forward.texts) if r.forward is not None else ("error", r.error)
        groups.setdefault(key, []).append((pos, r))

    def order(pos):
        return tuple(pos[n] for n in names)

    chosen = []
    for members in groups.values():
        members.sort(key=lambda m: order(m[0]))
        if any(m[0] == initial for m in members):
            best = next(m for m in members if m[0] == initial)
        else:  # the middle of the range it covers: clear of the branch point
            best = members[(len(members) - 1) // 2]
        chosen.append((best, members))
    chosen.sort(key=lambda c: order(c[0][0]))
    pictures, captions = [], []
    for (_pos, r), members in chosen:
        where = _range_text(members, names)
        cap = r.caption + (f"  (the same recording for {where})" if where else "")
        pictures.append(_with_caption(r, cap, dict(draw_kwargs, caption_width=CAPTION_WIDTH)))
        captions.append(cap)
    lines = [f"  {_position_text(pos)}: {_short(r)}" for pos, r in
             sorted(runs, key=lambda m: order(m[0]))]
    title = (f"{len(chosen)} different recording{'s' if len(chosen) != 1 else ''} over "
             f"{len(runs)} slider position{'s' if len(runs) != 1 else ''} (one picture each):")
    tail = "every position, run once each:\n" + "\n".join(lines)
    return compose(pictures, captions, title, tail)


def _with_caption(result, caption, kwargs):
    # kwargs: draw's, with the caption_width of a strip's panel (a narrow caption)
    if result.backward is not None:
        return result.backward.after(caption=caption, **kwargs)
    if result.forward is not None:
        return result.forward._data.draw(len(result.forward), caption=caption, mark_new=False,
                                         **kwargs)
    return _error_picture(result.inputs, caption)


def _position_text(pos):
    return ", ".join(f"{n} = {_value_text(v)}" for n, v in pos.items())


def _short(r):
    if r.error is not None:
        return f"raised {r.error}"
    grads = ", ".join(f"{n}.grad = {_fmt(t.grad)}" for n, t in r.inputs.items())
    return f"{', '.join(r.tape) or 'nothing recorded'}; {grads}"


def _range_text(members, names):
    """``x from -3. to 0.`` for the positions a recording covers (one slider moving)."""
    if len(members) < 2:
        return ""
    moving = [n for n in names if len({m[0][n] for m in members}) > 1]
    if len(moving) != 1:
        return f"{len(members)} positions"
    n = moving[0]
    vals = sorted(m[0][n] for m in members)
    low, high = _values_text(vals[0], vals[-1])
    return f"{n} from {low} to {high}"


# ------------------------------------------------------------ stable model ids

_LIVE = weakref.WeakValueDictionary()  # model id -> the widget that has it in this kernel
_ORDINAL = {}  # execute request id -> how many of our widgets it has made


def _execution():
    """``(cell id, request id)`` of the cell being executed, from the kernel; or None.

    JupyterLab sends the cell's id in the execute request's metadata
    (``cellId``); so does ``make execute`` (tests/tools/execute_notebooks.py).
    """
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    ip = get_ipython()
    kernel = getattr(ip, "kernel", None)
    if kernel is None:
        return None
    try:
        parent = kernel.get_parent("shell")
    except TypeError:
        parent = kernel.get_parent()
    if not parent:
        return None
    cell = (parent.get("metadata") or {}).get("cellId")
    if not cell:
        return None
    return cell, parent.get("header", {}).get("msg_id")


@contextlib.contextmanager
def _stable_ids(kind):
    """Give every widget made inside the block an id derived from the cell being run.

    ``minigrad-<hash of cell id, n-th widget of this run, kind, k-th model>``:
    the same in every run of the same cell, so outputs saved by JupyterLab and
    the widget state stored by ``make execute`` name the same models.  An older
    widget with the same id (the cell run again) is closed first.
    """
    from ipywidgets import Widget

    where = _execution()
    if where is None:
        yield
        return
    cell, request = where
    n = _ORDINAL.get(request, 0)
    _ORDINAL.clear()  # only the current request's count matters
    _ORDINAL[request] = n + 1
    counter = itertools.count()
    prev = Widget._widget_construction_callback

    def give_id(widget):
        if getattr(widget, "_model_id", None) is None:
            digest = hashlib.sha256(f"{cell}/{n}/{kind}/{next(counter)}".encode()).hexdigest()
            mid = "minigrad-" + digest[:23]
            old = _LIVE.get(mid)
            if old is not None and old.comm is not None:
                old.close()
            widget._model_id = mid
            _LIVE[mid] = widget
        if callable(prev):
            prev(widget)

    Widget.on_widget_constructed(give_id)
    try:
        yield
    finally:
        Widget.on_widget_constructed(prev)


# ------------------------------------------------------------------- widgets

def _png_width(picture):
    """The CSS width of a picture's PNG: the same size as its SVG would show."""

    w, _h = png_size(picture.png())
    return str(round(w * 96 / _PNG_DPI))


def _set_picture(image, fallback, picture):
    """Show ``picture`` in the Image widget, or its text form if Graphviz is missing."""

    try:
        png = picture.png()
    except GraphvizMissingError as err:
        image.layout.display = "none"
        fallback.layout.display = None
        fallback.value = (f"<pre>{html.escape(picture.text)}\n\n(no picture: "
                          f"{html.escape(str(err))})</pre>")
        return
    image.value = png
    image.width = _png_width(picture)
    image.layout.display = None
    fallback.layout.display = "none"


class _WidgetThenStrip:
    """Displaying ``StepThrough`` or ``Explorer``: the widget, then the strip as an output of its own.

    The widget first, so that a JupyterLab reader meets the live slider at
    once; the strip below it, so that a page read without a kernel still
    shows every position.  Two outputs, so that every renderer shows the
    strip: a renderer picks one mimetype per output, and one that knows the
    widget-view mimetype (``nbconvert --to html``, which nbviewer runs) would
    pick it over the PNG and SVG of a shared output and drop the strip; one
    that cannot run widgets (GitHub, an untrusted notebook) shows the widget
    view's one-line ``text/plain`` and the strip.  Both outputs are
    ``display_data``, made once when the cell runs (moving a slider displays
    nothing), so a re-run under nbval gives the same two outputs; nbval
    compares their ``text/plain``.
    """

    def _view_text(self):  # the widget view's text/plain: one deterministic line
        raise NotImplementedError

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        """The widget view alone: ``{mimetype: data}`` with the one-line ``text/plain``."""
        data = dict(super()._repr_mimebundle_(**kwargs))
        data["text/plain"] = self._view_text()
        if include:
            data = {k: v for k, v in data.items() if k in include}
        if exclude:
            data = {k: v for k, v in data.items() if k not in exclude}
        return data

    def display_bundles(self):
        """What displaying the widget outputs, in order: a list of ``(data, metadata)`` pairs.

        First the widget view (``_repr_mimebundle_``), then the strip
        (``self.static``: ``image/png`` with its display size in the
        metadata, ``image/svg+xml``, and its deterministic ``text/plain``;
        without Graphviz, ``text/plain`` only, with the reason).
        """
        return [(self._repr_mimebundle_(), {}), self.static._repr_mimebundle_()]

    def _ipython_display_(self):
        # IPython calls this instead of _repr_mimebundle_, for a cell's last value and display()
        from IPython.display import display

        for data, metadata in self.display_bundles():
            display(data, metadata=metadata, raw=True)


_CLASSES = {}


def _classes():
    """Make the widget classes on first use (so that ipywidgets is imported only then)."""
    if _CLASSES:
        return _CLASSES
    import ipywidgets as w

    class StepThrough(_WidgetThenStrip, w.VBox):
        """A slider and a play button over the states of a recorded walk (``step_through``).

        Attributes:
            steps: the recording.
            slider (IntSlider), play (Play): position 0 is before the first step.
            caption (HTML): the step's sentence.
            image (Image): the picture (PNG).
            static (viz.StripPicture): every position as a small picture with its
                sentence: displayed as an output of its own below the widget, so that a
                page read without a kernel shows every position.
        """

        def __init__(self, steps, value=0, interval=1500, **draw_kwargs):

            n = len(steps)
            value = max(0, min(int(value), n))
            self.steps = steps
            self._draw_kwargs = draw_kwargs
            self._cache = {}
            self.play = w.Play(value=value, min=0, max=n, step=1, interval=interval,
                               description="play", tooltip="play the pictures in order")
            self.slider = w.IntSlider(value=value, min=0, max=n, step=1, description="picture",
                                      continuous_update=True,
                                      layout=w.Layout(width="min(100%, 420px)"))
            w.jslink((self.play, "value"), (self.slider, "value"))
            self.caption = w.HTML()
            self.image = w.Image(format="png")
            self.fallback = w.HTML(layout=w.Layout(display="none"))
            super().__init__([w.HBox([self.play, self.slider]), self.caption, self.image,
                              self.fallback])
            self.static = strip(steps, **draw_kwargs)
            self.slider.observe(self._on_change, names="value")
            self.show(value)

        def _on_change(self, change):
            self.show(change["new"])

        def render(self, i):
            """``(picture without its caption, caption)`` at position ``i``; no widget change."""
            if i not in self._cache:
                state = self.steps.state(i)
                self._cache[i] = (state.draw(caption=False, **self._draw_kwargs), state.caption)
            return self._cache[i]

        def show(self, i):
            """Move to position ``i`` and redraw; returns ``(picture, caption)``."""
            i = int(i)
            if self.slider.value != i:
                self.slider.value = i  # the observer comes back here
                return self.render(i)
            picture, caption = self.render(i)
            self.caption.value = (f'<div style="font-size: 1.05em; margin: 4px 0">'
                                  f"<b>{html.escape(caption)}</b></div>")
            _set_picture(self.image, self.fallback, picture)
            return picture, caption

        def _view_text(self):
            s = self.slider
            return (f"slider: positions {s.min} to {s.max}, at {s.value} (it moves when the "
                    "notebook runs; the pictures below show every position)")

    class Explorer(_WidgetThenStrip, w.VBox):
        """Sliders that re-run a function and redraw what it recorded (``explore``).

        Attributes:
            fn: the function.
            library (str): whose tensors it runs on: ``"minigrad"`` or ``"torch"``.
            sliders (dict): the slider of each input, by name.
            text (HTML): inputs, tape, output and gradients of the last run.
            image (Image): the picture of the last recording, as the walk left it.
            result (ExploreResult): the last run; ``initial``: the first.
            static (viz.StripPicture): one picture per different recording over
                the sliders' range: displayed as an output of its own below the widget.
        """

        def __init__(self, fn, sliders, library=None, **draw_kwargs):

            self.fn = fn
            self.library = choose_library(fn, [], library, _caller_globals()).name
            self._draw_kwargs = draw_kwargs
            self.sliders = {}
            for name, abbrev in sliders.items():
                slider = _slider(w, abbrev)
                slider.description = name
                slider.continuous_update = True
                self.sliders[name] = slider
            self.text = w.HTML()
            self.image = w.Image(format="png")
            self.fallback = w.HTML(layout=w.Layout(display="none"))
            super().__init__(list(self.sliders.values()) + [self.text, self.image,
                                                            self.fallback])
            self.result = None
            self._refresh()
            self.initial = self.result
            ranges = {name: (s.min, s.max, s.step, s.value) for name, s in self.sliders.items()}
            self.static = explore_static(fn, ranges, self.library, **draw_kwargs)
            for slider in self.sliders.values():
                slider.observe(self._on_change, names="value")

        def values(self):
            """The sliders' current values, by name."""
            return {name: s.value for name, s in self.sliders.items()}

        def render(self, **values):
            """Run the function for these values (the others as the sliders are); no widget change.

            Returns:
                ExploreResult: recording, tape, gradients, picture and text.
            """
            merged = self.values()
            merged.update(values)
            return run_explore(self.fn, library=self.library, **merged)

        def update(self, **values):
            """Set sliders (``update(x=2.0)``) and redraw; returns the new ``ExploreResult``."""
            for name, v in values.items():
                self.sliders[name].value = v
            return self.result

        def _on_change(self, change):
            self._refresh()

        def _refresh(self):
            self.result = r = self.render()
            self.text.value = (f'<pre style="margin: 4px 0; line-height: 1.3">'
                               f"{html.escape(r.text)}</pre>")
            # the text above says what the caption says: the live picture goes without it
            _set_picture(self.image, self.fallback, r.draw(caption=False, **self._draw_kwargs))

        def _view_text(self):
            # one slider's four numbers read alike (one tensor's print), each slider on its own
            ranges = "; ".join(
                "{} from {} to {} every {}, at {}".format(
                    name, *_values_text(s.min, s.max, s.step, s.value))
                for name, s in self.sliders.items())
            one = len(self.sliders) == 1
            return (f"slider{'' if one else 's'}: {ranges} ({'it moves' if one else 'they move'} "
                    "when the notebook runs; the pictures below show every recording over "
                    f"{'its' if one else 'their'} range)")

    _CLASSES["StepThrough"] = StepThrough
    _CLASSES["Explorer"] = Explorer
    return _CLASSES


def _slider(w, abbrev):
    """A slider from ``interact``'s abbreviations, always over floats (inputs are float leaves).

    ``(min, max)``, ``(min, max, step)``, ``(min, max, step, value)``, a
    number (a slider around it, as ``interact`` makes), or a slider widget.
    """
    if isinstance(abbrev, w.ValueWidget):
        return abbrev
    value = None
    if isinstance(abbrev, tuple) and len(abbrev) == 4:
        value = abbrev[3]
        abbrev = abbrev[:3]
    if isinstance(abbrev, tuple):
        abbrev = tuple(float(a) for a in abbrev)
    elif isinstance(abbrev, (int, float)) and not isinstance(abbrev, bool):
        start = float(abbrev)
        slider = w.interactive.widget_from_abbrev(start)
        slider.value = start
        return slider
    slider = w.interactive.widget_from_abbrev(abbrev)
    if slider is None:
        raise TypeError(f"explore() cannot make a slider from {abbrev!r}: give (min, max, step), "
                        "a number, or a slider widget")
    if value is not None:
        slider.value = float(value)
    return slider


def step_through(steps, value=0, interval=1500, **draw_kwargs):
    """A slider and a play button over a recording's states; returns a ``StepThrough`` (a VBox).

    Args:
        steps: ``viz.record_backward(...)`` or ``viz.record_forward(...)``, of
            a minigrad graph or a PyTorch one.
        value (int): the initial position: 0 (default) is before the first step.
        interval (int): milliseconds per step when playing.
        **draw_kwargs: passed to each step's ``draw`` (``show_values=True``, ...).

    Returns:
        StepThrough: an ``ipywidgets.VBox``: play button and slider, the step's
        sentence, the picture.  Displayed in a notebook, it shows below itself,
        as an output of its own, every position as a strip of small pictures
        with their sentences (see the module docstring).  ``widget.show(i)``
        moves it; ``render_step(steps, i)`` is the same picture and sentence
        without a widget.

    Raises:
        TypeError: ``steps`` is not a recording.

    Example::

        steps = viz.record_backward(z, names={"x": x, "z": z})
        step_through(steps)
    """

    if not isinstance(steps, Recording):

        raise TypeError("step_through() expects a recording (viz.record_backward(...) or "
                        f"viz.record_forward(...)), got {describe_type(steps)}")
    with _stable_ids("step_through"):
        return _classes()["StepThrough"](steps, value=value, interval=interval, **draw_kwargs)


def explore(fn, *, library=None, show_values=False, **sliders):
    """Sliders for ``fn``'s inputs; each change re-runs, re-records and redraws it; an ``Explorer``.

    Args:
        fn: a function of tensors taking the sliders' names as keyword arguments.
        library: whose tensors to make: ``"minigrad"``, ``"torch"`` or the
            module; default: the library ``fn``'s code uses (its ``torch``),
            else the caller's ``torch``, else minigrad.
        **sliders: one per input: ``x=(-3.0, 3.0, 0.5)`` (min, max, step; the
            slider starts in the middle), ``x=(-3.0, 3.0, 0.5, 2.0)`` (and the
            initial value), ``x=2.0`` (a slider around 2, as ``interact``
            makes), or an ``ipywidgets.FloatSlider``.
        show_values (bool): draw the values (``tensor(2.)``) in the leaves'
            and the output's boxes (``viz.draw``'s ``show_values``); otherwise
            their shapes.

    Returns:
        Explorer: an ``ipywidgets.VBox``: the sliders, the text (inputs, tape,
        output, gradients) and the picture of the recording as the walk left
        it.  On every change, ``fn`` runs on fresh leaves ``tensor(value,
        requires_grad=True)``, is recorded (``viz.record_forward``) and walked
        back (``viz.record_backward``).  Displayed in a notebook, it shows
        below itself, as an output of its own, one picture per different
        recording over the sliders' range.
        ``widget.update(x=-1.0)`` moves it; ``run_explore(fn, x=-1.0)`` is the
        same run without a widget.

    Example::

        def f(x):
            if x > 0:
                return x * x      # MulBackward0(x, x): saves self and other
            return x * 3          # MulBackward0(x, 3): keeps the 3 as other
        explore(f, x=(-3.0, 3.0, 0.5, 2.0))
    """
    if not sliders:
        raise TypeError("explore() needs at least one slider, e.g. explore(f, x=(-3.0, 3.0, 0.5))")
    with _stable_ids("explore"):
        return _classes()["Explorer"](fn, sliders, library=library, show_values=show_values)


def __getattr__(name):
    if name in ("StepThrough", "Explorer"):
        return _classes()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
