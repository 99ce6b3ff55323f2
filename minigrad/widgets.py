"""Interactive pieces for the lessons (ipywidgets): step through a walk, explore a function.

* ``step_through(steps)``: a slider and a play button over the states of a
  recording (``minigrad.viz.record_backward`` or ``record_forward``): each
  position redraws the graph as it was then, with the step's sentence above.
* ``explore(fn, x=(-3., 3., 0.5))``: one slider per input; every change
  re-runs ``fn`` on fresh leaves that require grad, records what it did,
  walks it back, and shows the recording, the tape and the gradients.  A
  function that branches on a value (``x * x if x > 0 else x * 3``) records a
  different graph on each side of the branch point: the graph is dynamic,
  rebuilt by every run.

Three promises, so that a lesson using them reads everywhere and can be tested:

1. **A static picture in the stored notebook.**  Displaying one of these
   widgets gives the widget *and* a picture of its initial state in one
   output: ``image/png`` and ``image/svg+xml`` next to the widget view, with a
   deterministic ``text/plain`` (the picture's text form).  JupyterLab with a
   running kernel shows the live widget; GitHub, nbviewer and an untrusted
   JupyterLab show the picture; nbval compares the ``text/plain`` (the widget
   view's JSON is not compared), so the cell needs no ``nbval-ignore-output``.
2. **Updates are values, not displays.**  Moving a slider sets the value of an
   ``Image`` and an ``HTML`` widget; nothing is ``display()``-ed, so a re-run
   under nbval produces no extra outputs.
3. **The callbacks are plain functions.**  ``render_step(steps, i)`` and
   ``run_explore(fn, x=2.0)`` return what the widget would show (the picture
   and the text); ``widget.show(i)`` and ``widget.update(x=2.0)`` move the
   widget itself.  Tests call them without a browser.

``import minigrad.widgets`` needs numpy only: ipywidgets is imported when a
widget is made (``StepThrough`` and ``Explorer`` are ``ipywidgets.VBox``
subclasses, created on first use).

Source: ``ipywidgets.interact``'s abbreviations for sliders (``(min, max,
step)`` tuples, single values, widgets: ``interactive.widget_from_abbrev``),
``ipywidgets.Play`` linked to a slider as in the ipywidgets documentation.
"""

import html

# (the widget classes StepThrough and Explorer are attributes made on first use, so that
# ``from minigrad.widgets import *`` does not import ipywidgets)
__all__ = ["ExploreResult", "explore", "render_step", "run_explore", "step_through"]

_PNG_DPI = 144


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
        forward (ForwardRecording | None): what the function recorded.
        backward (BackwardRecording | None): the walk back (None if nothing to walk).
        output: what the function returned (or None if it raised).
        error (str | None): ``"ValueError: ..."`` if the function raised.
        tape (list[str]): the node names in the order recorded.
        grads (dict): each input's ``.grad`` after the walk (None if it got none), by name.
        text (str): the lines the widget shows: inputs, tape, output, gradients.
        picture (GraphPicture): the recorded graph (saved values as recorded,
            each leaf with its ``.grad``), its caption the first line of ``text``.
    """

    def __init__(self, values, inputs, forward, backward, output, error, picture, text):
        self.values = values
        self.inputs = inputs
        self.forward = forward
        self.backward = backward
        self.output = output
        self.error = error
        self.picture = picture
        self.text = text
        self._leaf_grads = {}

    @property
    def tape(self):
        return self.forward.tape if self.forward is not None else []

    @property
    def grads(self):
        return {name: t.grad for name, t in self.inputs.items()}

    def __repr__(self):
        return self.text


def _fmt(v):
    from .viz import _fmt_value

    return _fmt_value(v)


def _value_text(v):
    """A slider value as a learner reads it: ``2.``, ``0.5000``, like a tensor's print."""
    from .tensor import tensor

    return _fmt(tensor(float(v)))


def run_explore(fn, **values):
    """Run ``fn`` once as ``explore`` does, without a widget; returns an ``ExploreResult``.

    Each value becomes a fresh leaf ``minigrad.tensor(float(value),
    requires_grad=True)``, passed to ``fn`` by keyword; the run is recorded
    (``viz.record_forward``), then walked back (``viz.record_backward``; a
    non-scalar result is seeded with ones) so that each input's ``.grad`` is
    known.

    Example::

        r = run_explore(lambda x: x * x if x > 0 else x * 3, x=2.0)
        r.tape, r.grads["x"]     # (['MulBackward0'], tensor(4.))
    """
    from . import viz
    from .tensor import Tensor, ones_like, tensor

    inputs = {name: tensor(float(v), requires_grad=True) for name, v in values.items()}
    shown = ", ".join(f"{name} = {_value_text(v)}" for name, v in values.items())
    forward = backward = output = error = None
    try:
        forward = viz._record_forward(fn, (), dict(inputs), None)
        output = forward.result
    except Exception as err:  # a lesson's function may raise for some inputs: show it
        error = f"{type(err).__name__}: {err}"
    lines = [f"inputs: {shown}" if shown else "inputs: none"]
    if error is not None:
        lines.append(f"the function raised {error}")
        picture = _error_picture(inputs, lines[0] + f": the function raised {error}")
        return ExploreResult(values, inputs, None, None, None, error, picture, "\n".join(lines))
    outs = [t for t in forward.outputs if t.requires_grad]
    if outs:
        seeds = [None if t.numel() == 1 else ones_like(t.detach()) for t in outs]
        backward = viz.record_backward(outs if len(outs) > 1 else outs[0],
                                       seeds if len(outs) > 1 else seeds[0],
                                       names=forward.names)
    n = len(forward)
    if n:
        lines.append(f"tape ({n} step{'s' if n != 1 else ''}, in the order recorded):")
        lines += [f"  {t}" for t in forward.texts]
    else:
        lines.append("tape: nothing recorded")
    if isinstance(output, Tensor):
        lines.append(f"output: {_fmt(output.detach())}")
    else:
        lines.append(f"output: {output!r} (not a tensor)")
    grads = ", ".join(f"{name}.grad = {_fmt(t.grad)}" for name, t in inputs.items())
    if backward is not None:
        lines.append(f"after backward(): {grads}")
    else:
        lines.append("no backward(): the output does not depend on any input")
    names = [s.name for s in forward]
    recorded = (", ".join(names) if 0 < len(names) <= 4 else
                f"{len(names)} steps" if names else "nothing")
    caption = f"{shown}: recorded {recorded}" + (
        f"; backward() gave {grads}" if backward is not None else "")
    leaf_grads = {id(t): _fmt(t.grad) for t in inputs.values()}
    picture = forward._data.draw(len(forward), caption=caption, mark_new=False,
                                 leaf_grads=leaf_grads)
    result = ExploreResult(values, inputs, forward, backward, output, None, picture,
                           "\n".join(lines))
    result._leaf_grads = leaf_grads
    return result


def _error_picture(inputs, caption):
    from . import viz

    roots = list(inputs.values())
    if not roots:
        from .tensor import tensor

        roots = [tensor(0.0)]
    view = viz._View(caption=caption, header="recorded so far")
    return viz._draw_marked(roots, {}, names={t: n for n, t in inputs.items()}, view=view)


# ------------------------------------------------------------------- widgets

def _png_width(picture):
    """The CSS width of a picture's PNG: the same size as its SVG would show."""
    from .viz import _png_size

    w, _h = _png_size(picture.png())
    return str(round(w * 96 / _PNG_DPI))


def _set_picture(image, fallback, picture):
    """Show ``picture`` in the Image widget, or its text form if Graphviz is missing."""
    from .viz import GraphvizMissingError

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


def _static_bundle(widget_bundle, picture, text=None, include=None, exclude=None):
    """The widget's own bundle plus the static picture: (data, metadata) for Jupyter.

    ``text/plain`` is the picture's text form (deterministic: nbval compares
    it), preceded by ``text`` if given; the picture's ``image/png`` and
    ``image/svg+xml`` let a notebook show the initial state where the widget
    cannot run (GitHub, nbviewer, an untrusted notebook).
    """
    data, metadata = picture._repr_mimebundle_()
    data = dict(data)
    if text:
        data["text/plain"] = text + "\n\n" + data["text/plain"]
    for key, value in widget_bundle.items():
        if key != "text/plain":
            data[key] = value
    if include:
        data = {k: v for k, v in data.items() if k in include}
    if exclude:
        data = {k: v for k, v in data.items() if k not in exclude}
    metadata = {k: v for k, v in metadata.items() if k in data}
    return data, metadata


_CLASSES = {}


def _classes():
    """Make the widget classes on first use (so that ipywidgets is imported only then)."""
    if _CLASSES:
        return _CLASSES
    import ipywidgets as w

    class StepThrough(w.VBox):
        """A slider and a play button over the states of a recorded walk (``step_through``).

        Attributes:
            steps: the recording.
            slider (IntSlider), play (Play): position 0 is before the first step.
            caption (HTML): the step's sentence.
            image (Image): the picture (PNG).
            static: the picture at the initial position, with its caption (what a
                notebook stores and shows where widgets do not run).
        """

        def __init__(self, steps, value=0, interval=1500, **draw_kwargs):
            n = len(steps)
            value = max(0, min(int(value), n))
            self.steps = steps
            self._draw_kwargs = draw_kwargs
            self._cache = {}
            self.play = w.Play(value=value, min=0, max=n, step=1, interval=interval,
                               description="play", tooltip="play the walk step by step")
            self.slider = w.IntSlider(value=value, min=0, max=n, step=1, description="step",
                                      continuous_update=True,
                                      layout=w.Layout(width="min(100%, 420px)"))
            w.jslink((self.play, "value"), (self.slider, "value"))
            self.caption = w.HTML()
            self.image = w.Image(format="png")
            self.fallback = w.HTML(layout=w.Layout(display="none"))
            super().__init__([w.HBox([self.play, self.slider]), self.caption, self.image,
                              self.fallback])
            self.static = steps.state(value).draw(**draw_kwargs)
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

        def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
            return _static_bundle(super()._repr_mimebundle_(**kwargs), self.static,
                                  include=include, exclude=exclude)

    class Explorer(w.VBox):
        """Sliders that re-run a function and redraw what it recorded (``explore``).

        Attributes:
            fn: the function.
            sliders (dict): the slider of each input, by name.
            text (HTML): inputs, tape, output and gradients of the last run.
            image (Image): the picture of the last recording.
            result (ExploreResult): the last run.
            static: the picture of the first run (what a notebook stores).
        """

        def __init__(self, fn, sliders, **draw_kwargs):
            self.fn = fn
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
            self.static = self.result.picture
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
            return run_explore(self.fn, **merged)

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
            if r.forward is not None:
                picture = r.forward._data.draw(len(r.forward), caption=False, mark_new=False,
                                               leaf_grads=r._leaf_grads, **self._draw_kwargs)
            else:
                picture = r.picture
            _set_picture(self.image, self.fallback, picture)

        def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
            return _static_bundle(super()._repr_mimebundle_(**kwargs), self.static,
                                  text=self.initial.text, include=include, exclude=exclude)

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
        steps: ``viz.record_backward(...)`` or ``viz.record_forward(...)``.
        value (int): the initial position: 0 (default) is before the first step.
        interval (int): milliseconds per step when playing.
        **draw_kwargs: passed to each step's ``draw`` (``show_values=True``, ...).

    Returns:
        StepThrough: an ``ipywidgets.VBox``: play button and slider, the step's
        sentence, the picture.  Displayed in a notebook it also leaves the
        picture of its initial position as a static output (see the module
        docstring).  ``widget.show(i)`` moves it; ``render_step(steps, i)``
        is the same picture and sentence without a widget.

    Example::

        steps = viz.record_backward(z, names={"x": x, "z": z})
        step_through(steps)
    """
    return _classes()["StepThrough"](steps, value=value, interval=interval, **draw_kwargs)


def explore(fn, **sliders):
    """Sliders for ``fn``'s inputs; each change re-runs, re-records and redraws it; an ``Explorer``.

    Args:
        fn: a function of tensors taking the sliders' names as keyword arguments.
        **sliders: one per input: ``x=(-3.0, 3.0, 0.5)`` (min, max, step; the
            slider starts in the middle), ``x=(-3.0, 3.0, 0.5, 2.0)`` (and the
            initial value), ``x=2.0`` (a slider around 2, as ``interact``
            makes), or an ``ipywidgets.FloatSlider``.

    Returns:
        Explorer: an ``ipywidgets.VBox``: the sliders, the text (inputs, tape,
        output, gradients) and the picture of the recording.  On every change,
        ``fn`` runs on fresh ``minigrad.tensor(value, requires_grad=True)``
        leaves, is recorded (``viz.record_forward``) and walked back
        (``viz.record_backward``).  Displayed in a notebook it also leaves the
        picture of its first run as a static output.  ``widget.update(x=-1.0)``
        moves it; ``run_explore(fn, x=-1.0)`` is the same run without a widget.

    Example::

        def f(x):
            if x > 0:
                return x * x      # MulBackward0(x, x): saves self and other
            return x * 3          # MulBackward0(x, constant): saves other
        explore(f, x=(-3.0, 3.0, 0.5, 2.0))
    """
    if not sliders:
        raise TypeError("explore() needs at least one slider, e.g. explore(f, x=(-3.0, 3.0, 0.5))")
    return _classes()["Explorer"](fn, sliders)


def __getattr__(name):
    if name in ("StepThrough", "Explorer"):
        return _classes()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
