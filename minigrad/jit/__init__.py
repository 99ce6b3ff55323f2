"""Define-then-run: ``jit.trace`` and ``compile`` turn a function into a static graph.

Eager minigrad (like PyTorch) is *define-by-run*: the graph is recorded anew
each time the code runs, so an ``if`` on a tensor's value simply records the
branch it took.  Here the same code is turned into a static graph once and
replayed:

* ``jit.trace(fn, example_inputs)`` (``trace.py``): records one run and
  replays it; branches are baked in (``TracerWarning``), a silent wrong
  answer on inputs that would branch the other way;
* ``minigrad.compile(fn, backend="aot_eager")`` (``compile.py``): records,
  *guards* what it assumed (``guards.py``), breaks the graph where a tensor's
  value decides the control flow (a *graph break*, ``breaks.py``) and compiles
  each region into straight-line code with a backward plan made once
  (``replay.py``, ``plan.py``): one ``CompiledFunctionBackward`` node per region;
  ``backend="numpy"`` writes each region as numpy source instead, one line per
  operation (``codegen_numpy.py``; ``list_backends()``);
* ``jit.explain(fn, *args)`` (``explain.py``): a teaching report of what
  compiling did: graphs, graph breaks and why, guards, recompiles;
* the static graph itself (``graph.py``, ``aten.py``) prints as TorchScript
  IR, as code (``codegen.py``), and draws with ``viz.draw`` (``draw.py``);
  PyTorch's own traces and compile reports are read by the same helpers
  (``from_torch.py``), so a lesson prints alike on both.

How the recording is made: ``recording.py``.
"""

from .compile import InvalidBackend, Unsupported, compile, config, list_backends, reset
from .explain import ExplainOutput, explain
from .recording import TracerWarning
from .replay import CompiledFunctionBackward
from .trace import ScriptFunction, trace

__all__ = ["CompiledFunctionBackward", "ExplainOutput", "InvalidBackend", "ScriptFunction",
           "TracerWarning", "Unsupported", "compile", "config", "explain", "list_backends", "reset",
           "trace"]
