"""The lessons' "Try it yourself" checks, kept out of the notebooks.

A lesson's check cell shows only a call, such as ``beginner_01.check(my_guess, walk_in)``;
the code, which knows the right answer, and its hints live here, so that no stored page
(GitHub, nbviewer, JupyterLab before running) gives the answer away.  Every check:

* accepts the same forms of answer as every other (``answers.py``): a number as ``10``,
  ``10.0`` or ``"10"``; a node's name as ``"MulBackward0"`` or ``"mulbackward0"``;
* works the right answer out by running the learner's own code (the real walk back), with
  the library the lesson imported as ``torch``, so it checks on PyTorch too;
* replies to the answer given: "right" with the reason, or a hint that reacts to that
  answer and never contains the right one.

A teaching helper of minigrad's own, like ``viz``, ``widgets`` and ``memory`` (PyTorch has
no such module); ``tests/test_exercises*.py`` try each check on right and wrong answers.
"""

__all__ = []
