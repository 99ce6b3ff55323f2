"""A pytest plugin for nbval: compare pictures through their text form, not their SVG.

Graphviz's SVG changes with the Graphviz version and the installed fonts, so
it cannot be compared across machines; every picture minigrad draws also
carries a deterministic ``text/plain`` form, which nbval does compare.
(PNG is never compared by nbval.)  Object addresses are sanitised by
``tests/nbval_sanitize.cfg``, passed on the command line by ``make test``.
"""


def pytest_collection_modifyitems(items):
    for item in items:
        notebook = getattr(item, "parent", None)
        skip = getattr(notebook, "skip_compare", None)
        if skip is not None and "image/svg+xml" not in skip:
            notebook.skip_compare = tuple(skip) + ("image/svg+xml",)
