"""A whole recording in one picture: every step, small, side by side, with its sentence.

A slider shows one state at a time, and only where a kernel runs.  A page read
on GitHub or nbviewer, or a notebook not run yet, shows what was stored: so
``strip(recording)`` draws every state of a recorded walk (``record_backward``,
``record_forward``) as a small picture with its caption, in reading order, left
to right and then down, with one legend for all of them.  ``widgets.step_through``
and ``widgets.explore`` store such a strip as the static form of their output.

The PNG is composed with Pillow (a dependency of matplotlib, which the lessons
use anyway); the SVG nests each step's own SVG.  The text form lists every
step's sentence, then the text form of the last picture: what nbval compares.
"""

import base64
import io
import re

from .render import (
    PNG_DPI,
    GraphPicture,
    GraphvizMissingError,
    legend_rows,
    legend_source,
    png_size,
    render,
)

__all__ = ["StripPicture", "strip"]

_CSS_PER_PNG = 96 / PNG_DPI  # CSS pixels per pixel of a picture's PNG
_GAP = 14  # CSS pixels between pictures
_WIDTH = 980  # CSS pixels: about the width of a notebook's output area


class StripPicture:
    """Several pictures in one, with a shared legend; shows itself in Jupyter as one image.

    Attributes:
        pictures (list[GraphPicture]): the pictures, in reading order (no legend each).
        text (str): ``title``, one line per picture (its caption), then ``tail``:
            the deterministic ``text/plain`` nbval compares.
        scale (float): how much smaller each picture is drawn than on its own.
    """

    def __init__(self, pictures, captions, title, tail, legend_source=None, scale=0.8):
        self.pictures = list(pictures)
        self.captions = list(captions)
        self.scale = scale
        self._legend_source = legend_source
        lines = [title] + [f"  {c}" for c in self.captions]
        self.text = "\n".join(lines) + ("\n" + tail if tail else "")
        self._png = self._svg = None
        self._layout = None

    # --- layout: rows of pictures that fit the width

    def _sizes(self):
        sizes = []
        for p in self.pictures:
            w, h = png_size(p.png())
            sizes.append((w * _CSS_PER_PNG * self.scale, h * _CSS_PER_PNG * self.scale))
        return sizes

    def _legend_png(self):
        if self._legend_source is None:
            return None
        return render(self._legend_source.replace("digraph legend {",
                                                  f'digraph legend {{ graph [dpi="{PNG_DPI}"];'),
                      "png")

    def layout(self):
        """``[(x, y, w, h), ...]`` in CSS pixels for each picture, then the legend; total size."""
        if self._layout is None:
            boxes, x, y, row_h, width = [], 0.0, 0.0, 0.0, 0.0
            for w, h in self._sizes():
                if x > 0 and x + w > _WIDTH:
                    x, y = 0.0, y + row_h + _GAP
                    row_h = 0.0
                boxes.append((x, y, w, h))
                x += w + _GAP
                row_h = max(row_h, h)
                width = max(width, x - _GAP)
            height = y + row_h
            legend = self._legend_png()
            if legend is not None:
                lw, lh = png_size(legend)
                k = _CSS_PER_PNG * self.scale  # the legend as small as the pictures
                lw, lh = lw * k, lh * k
                boxes.append((0.0, height + _GAP, lw, lh))
                height += _GAP + lh
                width = max(width, lw)
            self._layout = (boxes, width, height, legend)
        return self._layout

    # --- the picture

    def png(self):
        """The strip as PNG bytes (at the pictures' 144 dpi)."""
        if self._png is None:
            from PIL import Image

            boxes, width, height, legend = self.layout()
            k = 1 / _CSS_PER_PNG  # PNG pixels per CSS pixel
            canvas = Image.new("RGB", (round(width * k), round(height * k)), "white")
            sources = [p.png() for p in self.pictures] + ([legend] if legend else [])
            for (x, y, w, h), data in zip(boxes, sources):
                img = Image.open(io.BytesIO(data)).convert("RGB")
                size = (max(1, round(w * k)), max(1, round(h * k)))
                if size != img.size:
                    img = img.resize(size, Image.LANCZOS)
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
                docs.append(render(self._legend_source, "svg").decode("utf-8"))
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


def strip(recording, *, title=None, tail=True, scale=0.8, **draw_kwargs):
    """Every state of a recorded walk as one picture: a ``StripPicture``.

    Args:
        recording: ``record_backward(...)`` or ``record_forward(...)``.
        title (str | None): the first line of the text form (default: what it shows).
        tail (bool): end the text form with the text form of the last state.
        scale (float): the size of each small picture relative to the full one.
        **draw_kwargs: passed to each state's ``draw`` (``show_values=True``, ...).

    Returns:
        StripPicture: states 0 (before the first step) to ``len(recording)``.
    """
    states = [recording.state(i) for i in range(len(recording) + 1)]
    pictures = [s.draw(caption_width=48, **draw_kwargs) for s in states]
    captions = [f"{i}. {s.caption}" for i, s in enumerate(states)]
    if title is None:
        title = (f"all {len(states)} positions of the slider (0 to {len(recording)}), "
                 "one small picture each:")
    last = states[-1].draw(caption=False, **draw_kwargs).text if tail else ""
    return compose(pictures, captions, title, last, scale)


def compose(pictures, captions, title, tail="", scale=0.8):
    """A ``StripPicture`` of ``pictures`` (drawn with their legends), sharing one legend."""
    kinds, marks, edges = set(), set(), set()
    for p in pictures:
        if p.legend:
            kinds |= p.legend[0]
            marks |= p.legend[1]
            edges |= p.legend[2]
    rows = legend_rows(kinds, marks, edges)
    bare = [GraphPicture(p.text, _without_legend(p.source), _without_legend(p._png_source))
            for p in pictures]
    return StripPicture(bare, captions, title, tail, legend_source(rows) if rows else None, scale)


def _without_legend(source):
    """The same DOT source with the legend (the graph's bottom label) left out."""
    return "\n".join(line for line in source.split("\n")
                     if not (line.startswith("  graph [label=") and 'labelloc="b"' in line))
