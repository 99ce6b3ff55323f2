"""The one switch between the core's general paths and their fast twins.

The core's files hold the idea: the general path of each step.  Five steps have a
fast twin in a file of its own, which gives the same results for the usual cases,
faster (``tests/test_fast_paths.py`` checks each pair).  The core calls those steps
by the names below, which are the fast twins unless the environment variable
``MINIGRAD_GENERAL_PATHS=1`` was set before minigrad was imported:

==========================  ==================================  ===================================
name (who calls it)         general path (what the tour names)  fast twin (the default)
==========================  ==================================  ===================================
``collect_next_edges``      ``edges.collect_next_edges``        ``edges_fast.collect_next_edges_fast``
(``Function.apply``)
``pack`` (``_record``)      ``saved.pack``                      ``saved_fast.pack_fast``
``unpack_arrays``           ``saved.unpack``, as arrays         ``saved_fast.unpack_arrays``
(``ops/formulas.py``)
``free`` (``run_node``)     ``saved.free``                      ``saved_fast.free_fast``
``FAST_ROUTE`` (the walk)   ``engine.route_gradients``          ``engine_fast.route_gradients_fast``
==========================  ==================================  ===================================

With the switch on, a debugger stops in exactly the functions the tour
(``minigrad/autograd/README.md``) names, and every operation costs a little more::

    MINIGRAD_GENERAL_PATHS=1 jupyter lab        # or, in a notebook, before importing minigrad:
    %env MINIGRAD_GENERAL_PATHS=1
"""

import os

from . import edges, edges_fast, saved, saved_fast

__all__ = ["FAST_ROUTE", "GENERAL", "collect_next_edges", "free", "pack", "unpack_arrays"]

GENERAL = os.environ.get("MINIGRAD_GENERAL_PATHS", "") not in ("", "0")


def _unpack_arrays_general(node, dtype=None):
    """``saved.unpack(node, formula=True)`` as ``saved_fast.unpack_arrays`` returns it:
    ``(values, same)``, the values as arrays (0-d as numpy scalars, numbers as numbers),
    ``same`` True if every array has ``dtype``."""
    values, same = [], True
    for t in saved.unpack(node, formula=True):
        if t is not None and t._wrapped:
            t = t._data.item()  # a Python number stays one
        elif t is not None:
            t = t._data
            same = same and t.dtype is dtype
            t = t if t.ndim else t[()]
        values.append(t)
    return values, same


if GENERAL:
    collect_next_edges, pack, free = edges.collect_next_edges, saved.pack, saved.free
    unpack_arrays = _unpack_arrays_general
else:
    collect_next_edges, pack, free = (edges_fast.collect_next_edges_fast, saved_fast.pack_fast,
                                      saved_fast.free_fast)
    unpack_arrays = saved_fast.unpack_arrays
FAST_ROUTE = not GENERAL  # engine.py reads it (its two routes are both in engine files)
