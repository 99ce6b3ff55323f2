"""The project's nbval settings, so that a plain ``pytest --nbval notebooks`` passes.

Loaded for every pytest run from the repository (``addopts`` in
pyproject.toml).  With ``--nbval`` it:

* sanitises object addresses (``<MulBackward0 object at 0x…>``: they change
  every run, in PyTorch too) with ``tests/nbval_sanitize.cfg``, unless
  ``--nbval-sanitize-with`` names another file;
* runs the notebooks on a kernel of the Python that runs pytest (the
  project's ``.venv``, which has minigrad), unless ``--nbval-kernel-name``
  names one (nbval's ``--nbval-current-env``);
* compares pictures through their text form, not their SVG: Graphviz's SVG
  changes with the Graphviz version and the installed fonts, so it cannot be
  compared across machines, while every picture minigrad draws also carries a
  deterministic ``text/plain`` form, which nbval does compare.  (PNG is never
  compared by nbval.)
"""

import pathlib

SANITIZE = pathlib.Path(__file__).resolve().parent / "nbval_sanitize.cfg"


def pytest_configure(config):
    option = config.option
    if not getattr(option, "nbval", False) and not getattr(option, "nbval_lax", False):
        return
    if getattr(option, "nbval_sanitize_with", None) is None and not getattr(
            option, "sanitize_with", None):
        option.nbval_sanitize_with = str(SANITIZE)
    if not getattr(option, "nbval_kernel_name", None):
        option.nbval_current_env = True


def pytest_collection_modifyitems(items):
    for item in items:
        notebook = getattr(item, "parent", None)
        skip = getattr(notebook, "skip_compare", None)
        if skip is not None and "image/svg+xml" not in skip:
            notebook.skip_compare = tuple(skip) + ("image/svg+xml",)
