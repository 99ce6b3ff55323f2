"""A whole recording in one picture: every step at full size, in reading order, with its sentence.

A slider shows one state at a time, and only where a kernel runs.  A page read
on GitHub or nbviewer, or a notebook not run yet, shows what was stored: so
``strip(recording)`` draws every state of a recorded walk (``record_backward``,
``record_forward``) as a picture with its caption, as large as on its own, in
reading order, at most three a row (two, or one, when they are wide), with one
legend for all of them.  ``widgets.step_through`` and ``widgets.explore`` store
such a strip as the static form of their output.

The PNG is composed with Pillow (a dependency of matplotlib, which the lessons
use anyway); the SVG nests each step's own SVG.  The text form lists every
step's sentence, then the text form of the last picture: what nbval compares.
"""

import base64
import io
import math
import re

from .legend import legend_source
from .render import (
    PNG_DPI,
    GraphvizMissingError,
    png_size,
    register_stacked,
    render,
)

__all__ = ["StripPicture", "strip"]

_CSS_PER_PNG = 96 / PNG_DPI  # CSS pixels per pixel of a picture's PNG
_CSS_PER_PT = 96 / 72  # CSS pixels per point of a picture's SVG (Graphviz writes points)
_GAP = 14  # CSS pixels between pictures
# The widest a strip is laid out, CSS pixels: what a notebook shows without horizontal scrolling
# (nbconvert's and nbviewer's pages never shrink a wide picture, JupyterLab and GitHub shrink it
# to fit, and its labels with it).  Measured output areas (JupyterLab 4.6, nbconvert 7, lab
# template): a 1280 px wide window gives 1100 in JupyterLab with the file browser closed (848
# with it open) and 1170 in nbconvert's page; 1400 px gives 1220 (968) and 1290.  So two
# full-size panels of a small graph (about 460 to 570 each) share a row; a wide one (a graph
# with two leaves, a constant and two saved values: about 930) has a row of its own.
_WIDTH = 1100
MAX_PER_ROW = 3  # panels a row, at most
CAPTION_WIDTH = 40  # characters a line in a panel's caption (a narrow panel, two to a row)
# A panel's size against the same picture on its own at 4/3 CSS pixels a point (Graphviz's
# size): 1% larger, so that its labels are never smaller than a lone picture's.  Graphviz
# rounds a lone picture's width and height to whole points, which shows it up to 0.5 pt in
# its size larger (0.4% for a picture 120 pt wide); a panel is drawn from its exact size.
PANEL_SCALE = 1.01


@register_stacked  # a lone picture with its legend under it is a strip of one picture
class StripPicture:
    """Several pictures in one, with a shared legend; shows itself in Jupyter as one image.

    Each picture (a *panel*) is drawn at ``scale`` of its size on its own (``PANEL_SCALE``:
    its labels at least as large as a lone picture's) and keeps its caption.  The panels are
    laid out in a grid, in reading order (left to right, then down): as many columns as fit
    ``_WIDTH``, at most ``MAX_PER_ROW``, each column as wide as its widest panel.  One legend
    below all of them, at the same scale.

    Attributes:
        pictures (list[GraphPicture]): the pictures, in reading order (no legend each).
        text (str): ``title``, one line per picture (its caption), then ``tail``:
            the deterministic ``text/plain`` nbval compares.
        scale (float): each picture's size relative to the same picture on its own.
    """

    def __init__(self, pictures, captions, title, tail, legend=None, scale=PANEL_SCALE):
        self.pictures = list(pictures)
        self.captions = list(captions)
        self.scale = scale
        self._legend_keys = legend  # (kinds, marks, edge kinds) its legend explains, or None
        lines = [title] + [f"  {c}" for c in self.captions]
        self.text = "\n".join(lines) + ("\n" + tail if tail else "")
        self._png = self._svg = None
        self._layout = None
        self._legend = None

    # --- layout: a grid of pictures that fits the width

    def _sizes(self):
        """Each picture's size in CSS pixels: its SVG's own (as a lone picture shows), scaled."""
        return [_svg_size(p.svg(), self.scale) for p in self.pictures]

    def _legend_pictures(self):
        """The legend as ``(png, svg)``, or None."""
        if self._legend is None:
            source = legend_source(*self._legend_keys) if self._legend_keys else None
            if source is None:
                self._legend = False
            else:
                png_source = source.replace(
                    "digraph legend {", f'digraph legend {{ graph [dpi="{_dpi(self.scale)}"];')
                self._legend = (render(png_source, "png"), render(source, "svg").decode("utf-8"))
        return self._legend or None

    def columns(self):
        """How many panels share a row: the most, up to ``MAX_PER_ROW``, whose grid fits."""
        sizes = self._sizes()
        for n in range(min(MAX_PER_ROW, len(sizes)), 1, -1):
            if _grid_width(sizes, n) <= _WIDTH:
                return n
        return 1

    def layout(self):
        """``[(x, y, w, h), ...]`` in CSS pixels for each picture, then the legend; total size.

        The total size is rounded up to whole CSS pixels, so that the strip's SVG, shown at
        its ``width`` and ``height``, draws each panel exactly at ``scale``.
        """
        if self._layout is None:
            sizes = self._sizes()
            n = self.columns()
            widths = _column_widths(sizes, n)
            boxes, y, width = [], 0.0, 0.0
            for start in range(0, len(sizes), n):
                row = sizes[start:start + n]
                x = 0.0
                for j, (w, h) in enumerate(row):
                    boxes.append((x, y, w, h))
                    width = max(width, x + w)
                    x += widths[j] + _GAP
                y += max(h for _w, h in row) + _GAP
            height = y - _GAP if sizes else 0.0
            legend = self._legend_pictures()
            if legend is not None:
                lw, lh = _svg_size(legend[1], self.scale)  # the legend as large as the pictures
                boxes.append((0.0, height + _GAP, lw, lh))
                height += _GAP + lh
                width = max(width, lw)
            self._layout = (boxes, math.ceil(width - 1e-6), math.ceil(height - 1e-6),
                            legend[0] if legend else None)
        return self._layout

    # --- the picture

    def _panel_png(self, picture):
        """A picture's PNG drawn at ``scale`` (Graphviz at a higher dpi: as sharp as a lone one)."""
        if self.scale == 1:
            return picture.png()
        dpi = f'dpi="{PNG_DPI}"'
        if dpi not in picture._png_source:
            return picture.png()  # (resized below)
        return render(picture._png_source.replace(dpi, f'dpi="{_dpi(self.scale)}"', 1), "png")

    def png(self):
        """The strip as PNG bytes (144 pixels an inch, as a lone picture's PNG)."""
        if self._png is None:
            from PIL import Image

            boxes, width, height, legend = self.layout()
            k = 1 / _CSS_PER_PNG  # PNG pixels per CSS pixel
            canvas = Image.new("RGB", (round(width * k), round(height * k)), "white")
            sources = [self._panel_png(p) for p in self.pictures] + ([legend] if legend else [])
            for (x, y, w, h), data in zip(boxes, sources):
                img = Image.open(io.BytesIO(data)).convert("RGB")
                size = (max(1, round(w * k)), max(1, round(h * k)))
                if abs(size[0] - img.width) > 1 or abs(size[1] - img.height) > 1:
                    img = img.resize(size, Image.LANCZOS)  # (within a pixel: pasted as drawn)
                canvas.paste(img, (round(x * k), round(y * k)))
            out = io.BytesIO()
            canvas.save(out, format="PNG", optimize=True)
            self._png = out.getvalue()
        return self._png

    def svg(self):
        """The strip as one SVG document: each picture's SVG nested in place."""
        if self._svg is None:
            boxes, width, height, legend = self.layout()
            parts = [f'<svg xmlns="http://www.w3.org/2000/svg" '
                     f'xmlns:xlink="http://www.w3.org/1999/xlink" width="{width:.0f}px" '
                     f'height="{height:.0f}px" viewBox="0 0 {width:.2f} {height:.2f}">',
                     f'<rect width="{width:.2f}" height="{height:.2f}" fill="white"/>']
            docs = [p.svg() for p in self.pictures]
            if legend is not None:
                docs.append(self._legend_pictures()[1])
            for (x, y, w, h), doc in zip(boxes, docs):
                parts.append(_nested(doc, x, y, w, h))
            parts.append("</svg>")
            self._svg = "\n".join(parts) + "\n"
        return self._svg

    def _repr_mimebundle_(self, include=None, exclude=None):
        data, metadata = bundle(self, include, exclude)
        return data, metadata

    def __repr__(self):
        return self.text


def _dpi(scale):
    return f"{PNG_DPI * scale:.6g}"


def _svg_size(doc, scale=1.0):
    """``(width, height)`` in CSS pixels of a Graphviz SVG document drawn at ``scale``.

    From its ``viewBox`` (points, not rounded), else its ``width`` and ``height``.
    """
    head = doc[doc.index("<svg"):]
    head = head[:head.index(">")]
    view = re.search(r'viewBox="\s*[-\d.]+[\s,]+[-\d.]+[\s,]+([\d.]+)[\s,]+([\d.]+)\s*"', head)
    if view:
        return tuple(float(v) * _CSS_PER_PT * scale for v in view.groups())
    size = []
    for attr in ("width", "height"):
        m = re.search(attr + r'="([\d.]+)(pt|px)?"', head)
        if m is None:
            raise ValueError(f"an SVG without a {attr}")
        size.append(float(m.group(1)) * (_CSS_PER_PT if m.group(2) in ("pt", None) else 1) * scale)
    return tuple(size)


def _column_widths(sizes, n):
    """The width of each of ``n`` columns: its widest panel."""
    return [max(w for w, _h in sizes[j::n]) for j in range(n) if sizes[j::n]]


def _grid_width(sizes, n):
    return sum(_column_widths(sizes, n)) + _GAP * (min(n, len(sizes)) - 1)


def _nested(doc, x, y, w, h):
    """One Graphviz SVG document as an ``<svg>`` element placed at (x, y), w by h."""
    start = doc.index("<svg")
    body = doc[start:]
    head_end = body.index(">")
    head = body[:head_end]
    view = re.search(r'viewBox="([^"]+)"', head)
    view = f' viewBox="{view.group(1)}"' if view else ""
    return (f'<svg x="{x:.2f}" y="{y:.2f}" width="{w:.2f}" height="{h:.2f}"{view} '
            f'preserveAspectRatio="xMinYMin meet">' + body[head_end + 1:])


def bundle(picture, include=None, exclude=None):
    """``(data, metadata)`` of a strip (or a lone picture) for Jupyter, with a PNG fallback."""
    data = {"text/plain": picture.text}
    metadata = {}
    try:
        png = picture.png()
        svg = picture.svg()
    except GraphvizMissingError as err:
        data["text/plain"] = f"{picture.text}\n\n(no picture: {err})"
    except ImportError as err:  # no Pillow: the last picture alone
        last = picture.pictures[-1]
        data["text/plain"] = f"{picture.text}\n\n(only the last picture: {err})"
        png, svg = last.png(), last.svg()
        data["image/svg+xml"] = svg
        data["image/png"] = base64.b64encode(png).decode("ascii")
    else:
        data["image/svg+xml"] = svg
        data["image/png"] = base64.b64encode(png).decode("ascii")
        w, h = png_size(png)
        metadata["image/png"] = {"width": round(w * _CSS_PER_PNG),
                                 "height": round(h * _CSS_PER_PNG)}
    if include:
        data = {k: v for k, v in data.items() if k in include}
    if exclude:
        data = {k: v for k, v in data.items() if k not in exclude}
    metadata = {k: v for k, v in metadata.items() if k in data}
    return data, metadata


def strip(recording, *, title=None, tail=True, scale=PANEL_SCALE, **draw_kwargs):
    """Every state of a recorded walk as one picture: a ``StripPicture``.

    Args:
        recording: ``record_backward(...)`` or ``record_forward(...)``.
        title (str | None): the first line of the text form (default: what it shows).
        tail (bool): end the text form with the text form of the last state.
        scale (float): the size of each picture relative to the same picture on its own
            (``PANEL_SCALE``: labels at least as large as a lone picture's).
        **draw_kwargs: passed to each state's ``draw`` (``show_values=True``, ...).

    Returns:
        StripPicture: states 0 (before the first step) to ``len(recording)``.
    """
    states = [recording.state(i) for i in range(len(recording) + 1)]
    pictures = [s.draw(caption_width=CAPTION_WIDTH, **draw_kwargs) for s in states]
    captions = [f"{i}. {s.caption}" for i, s in enumerate(states)]
    if title is None:
        title = (f"all {len(states)} positions of the slider (0 to {len(recording)}), "
                 "one small picture each:")
    last = states[-1].draw(caption=False, **draw_kwargs).text if tail else ""
    return compose(pictures, captions, title, last, scale)


def compose(pictures, captions, title, tail="", scale=PANEL_SCALE):
    """A ``StripPicture`` of ``pictures`` (drawn with their legends), sharing one legend."""
    kinds, marks, edges = set(), set(), set()
    for p in pictures:
        if p.legend:
            kinds |= p.legend[0]
            marks |= p.legend[1]
            edges |= p.legend[2]
    bare = [p.bare() for p in pictures]
    return StripPicture(bare, captions, title, tail, (kinds, marks, edges), scale)
