"""The picture language's Graphviz vocabulary, and Graphviz itself.

What every picture and its legend are drawn with: the Okabe-Ito colours, the
Graphviz attributes of each kind of box (``KINDS``), of the marks a box gets
during a walk (``MARKS``) and of each kind of arrow (``EDGES``), the graph's
own attributes, how DOT strings are quoted, and running Graphviz's ``dot``
(``render``; ``_plain`` for a layout), with ``GraphvizMissingError`` when it
is not installed.

Separate from ``render.py`` (a graph's boxes, arrows and layout, and
``GraphPicture``) and ``legend.py`` (the legend under a picture), which both
draw with it: a box in the legend has the same attributes as in the picture
because both read them here.
"""

import html
import shutil
import subprocess


# --------------------------------------------------------------------- errors

_INSTALL = (
    "Install Graphviz, then restart the kernel:\n"
    "  conda:          conda install -c conda-forge graphviz python-graphviz\n"
    "  Debian/Ubuntu:  sudo apt-get install graphviz   (and: pip install graphviz)\n"
    "  macOS:          brew install graphviz           (and: pip install graphviz)\n"
    "  Windows:        winget install graphviz         (and: pip install graphviz;"
    " open a new terminal so dot is on PATH)\n"
    "The text form of the graph (picture.text) works without Graphviz."
)
_NO_DOT = "Graphviz's `dot` program was not found on PATH: minigrad.viz needs it to draw graphs.\n"
_NO_PACKAGE = (
    "The `graphviz` Python package is not installed: minigrad.viz needs it (and Graphviz's "
    "`dot` program) to draw graphs.\n"
)


class GraphvizMissingError(RuntimeError):
    """Raised when a picture is requested but Graphviz is not available.

    Either the ``graphviz`` Python package cannot be imported, or Graphviz's
    ``dot`` program is not on ``PATH``.  The message says which, and how to
    install it (``conda install -c conda-forge graphviz``, ``apt-get install
    graphviz``, ``brew install graphviz``, ``winget install graphviz``).

    A subclass of ``RuntimeError``.
    """


# ---------------------------------------------------------------------- style

# Okabe & Ito (2008), "Color Universal Design": hues distinguishable with every
# common colour-vision deficiency.  Fills are light tints so black text stays readable.
OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
}
_FILL = {
    "leaf": "#CCE8F8",  # sky blue tint
    "output": "#B3E2D4",  # bluish green tint
    "saved": "#F7D999",  # orange tint
    "modified": "#F2BF99",  # vermillion tint
    "function": "#E6E6E6",
    "white": "#FFFFFF",
}
FONT = "Helvetica"  # fontconfig maps it to a metric-compatible font (Liberation Sans here)
SMALL = 9  # point size of the secondary lines of a label
MUTED = "#555555"
RECORDING = "#8C8C8C"  # the recording's edges: thin and grey
GRADIENT = OKABE_ITO["vermillion"]

# Graphviz attributes of each kind of box; the marks of a box (``MARKS``) go on top.
KINDS = {
    "function": {"shape": "box", "style": "rounded,filled", "fillcolor": _FILL["function"],
                 "color": "#666666"},
    "leaf": {"shape": "box", "style": "filled", "fillcolor": _FILL["leaf"],
             "color": OKABE_ITO["blue"]},
    "output": {"shape": "box", "style": "filled", "fillcolor": _FILL["output"],
               "color": "#006B4F", "peripheries": "2"},
    "tensor": {"shape": "box", "style": "filled", "fillcolor": _FILL["white"], "color": "#666666"},
    "named": {"shape": "box", "style": "rounded,dashed", "color": RECORDING, "fontsize": "10",
              "margin": "0.06,0.02", "height": "0.2"},
    "saved": {"shape": "note", "style": "filled", "fillcolor": _FILL["saved"], "color": "#9A6A00",
              "fontsize": "10"},
    "saved_freed": {"shape": "note", "style": "dashed", "color": "#888888",
                    "fontcolor": "#333333", "fontsize": "10"},
    "saved_modified": {"shape": "note", "style": "filled,bold", "fillcolor": _FILL["modified"],
                       "color": OKABE_ITO["vermillion"], "fontsize": "10"},
    "saved_packed": {"shape": "note", "style": "filled,dashed", "fillcolor": _FILL["saved"],
                     "color": "#9A6A00", "fontsize": "10"},
    # freed by the step of a backward walk being shown: the freed page, vermillion and thick
    "saved_just_freed": {"shape": "note", "style": "dashed,bold", "color": OKABE_ITO["vermillion"],
                         "fontcolor": "#333333", "fontsize": "10", "penwidth": "2"},
    "constant": {"shape": "ellipse", "style": "dotted", "color": "#777777",
                 "fontcolor": "#444444", "fontsize": "10", "margin": "0.04,0.02",
                 "height": "0.3", "penwidth": "1.5"},
    # a constant the step kept for its backward, still alive: the saved value's orange
    "constant_saved": {"shape": "ellipse", "style": "dotted,filled", "fillcolor": _FILL["saved"],
                       "color": "#9A6A00", "fontsize": "10", "margin": "0.04,0.02",
                       "height": "0.3", "penwidth": "1.5"},
    # a constant the step kept, freed since: dashed (as a freed page), "kept as" struck out
    "constant_freed": {"shape": "ellipse", "style": "dashed", "color": "#888888",
                       "fontcolor": "#333333", "fontsize": "10", "margin": "0.04,0.02",
                       "height": "0.3", "penwidth": "1.5"},
    "constant_just_freed": {"shape": "ellipse", "style": "dashed,bold",
                            "color": OKABE_ITO["vermillion"], "fontcolor": "#333333",
                            "fontsize": "10", "margin": "0.04,0.02", "height": "0.3",
                            "penwidth": "2"},
    "more": {"shape": "box", "style": "filled,dashed", "fillcolor": "#FBF8D5",  # yellow tint
             "color": "#666666", "fontcolor": "#333333"},
}
MARKS = {
    "highlight": {"penwidth": "3", "color": OKABE_ITO["black"]},
    # the node a step of a backward walk runs (or a forward step records): yellow, thick black
    "current": {"penwidth": "3", "color": OKABE_ITO["black"], "fillcolor": OKABE_ITO["yellow"]},
    "new": {"penwidth": "3", "color": OKABE_ITO["black"], "fillcolor": OKABE_ITO["yellow"]},
    # nodes the walk has already run: the thick black border stays, the yellow goes, and a
    # "done" row (not blue: a leaf's own border is blue)
    "walked": {"penwidth": "3", "color": OKABE_ITO["black"]},
}
EDGES = {  # heavier data edges keep the chain of operations straight
    "data": {"weight": "4", "color": RECORDING, "penwidth": "1"},
    "saved": {"style": "dashed", "dir": "none", "color": "#9A6A00"},
    "saved_freed": {"style": "dashed", "dir": "none", "color": "#AAAAAA"},
    "constant": {"style": "dotted", "color": RECORDING, "penwidth": "1.2"},
    # a constant right of its step, on its row: written from the step, its arrowhead at the
    # tail, so that it still points into the step (a flat edge runs from left to right)
    "constant_back": {"style": "dotted", "color": RECORDING, "penwidth": "1.2", "dir": "back"},
    "output": {"color": RECORDING, "weight": "4"},
    "more": {"style": "dashed", "weight": "4", "color": RECORDING},
    # a gradient the backward walk sent: from the step back to its input (the arrowhead at
    # the input: dir=back keeps the layout of the recording edge it replaces)
    "grad": {"color": GRADIENT, "penwidth": "2.5", "weight": "4", "dir": "back",
             "arrowsize": "0.9"},
}
GRAPH_ATTRS = {
    "rankdir": "TB",
    "bgcolor": "white",  # readable on JupyterLab's dark theme too
    "pad": "0.15",
    "nodesep": "0.25",
    "ranksep": "0.35",
    "fontname": FONT,
    "fontsize": "10",
    # at most 10.4 inches (1,000 CSS pixels) wide: a wider picture is scaled down to fit a
    # notebook's page (nbconvert's and nbviewer's pages cut a wider one off)
    "size": "10.4,100",
}
_NODE_DEFAULTS = {"fontname": FONT, "fontsize": "11", "height": "0.3",
                  "margin": "0.1,0.04", "penwidth": "1"}
_EDGE_DEFAULTS = {"fontname": FONT, "fontsize": "9", "arrowsize": "0.7", "color": "#444444"}
PNG_DPI = 144  # twice Graphviz's 72 points per inch: crisp on high-density screens


# ------------------------------------------------------------------------ DOT

def _q(s):
    """A DOT double-quoted string."""
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _attr_list(d):
    return ", ".join(f"{k}={_q(v)}" if not str(v).startswith("<") else f"{k}={v}"
                     for k, v in d.items())


def _esc(text):
    return html.escape(text, quote=False)


# ---------------------------------------------------------------- running dot

def _plain(source):
    """``dot -Tplain`` of ``source`` (the layout: positions of boxes and arrows), run directly.

    Not through the graphviz package, so that reading a picture's DOT source imports nothing.

    Raises:
        GraphvizMissingError: no ``dot`` on PATH, or it failed.
    """
    dot = shutil.which("dot")
    if dot is None:
        raise GraphvizMissingError(_NO_DOT + _INSTALL)
    done = subprocess.run([dot, "-Tplain"], input=source.encode("utf-8"), capture_output=True,
                          timeout=60, check=False)
    if done.returncode != 0:
        raise GraphvizMissingError(f"dot failed: {done.stderr.decode('utf-8', 'replace')}")
    return done.stdout.decode("utf-8")


def render(source, fmt):
    """Run ``dot -T<fmt>`` on ``source`` through the graphviz package; bytes.

    Raises:
        GraphvizMissingError: no ``graphviz`` package, or no ``dot`` on PATH.
    """
    try:
        import graphviz
    except ImportError:
        raise GraphvizMissingError(_NO_PACKAGE + _INSTALL) from None
    try:
        return graphviz.Source(source).pipe(format=fmt)
    except graphviz.ExecutableNotFound:
        raise GraphvizMissingError(_NO_DOT + _INSTALL) from None
