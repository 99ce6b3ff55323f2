"""Beginner lesson 2, "Try it yourself": the note ``detour`` writes first, and ``x.grad``.

``detour`` multiplies by three above 1 and squares otherwise, then adds 1.  The learner
predicts, for one run from ``x = 2.0``, the name of the note written first (what the
code did first: the first name of ``.tape``, not the first one the walk back reads) and
``x``'s blame after the walk back.  The check runs the learner's ``detour`` for real and
walks it back.
"""

from .. import viz
from .answers import NOT_GIVEN, close, library_of, name, number, reply

__all__ = ["check"]

SQUARING, ADDING = "PowBackward0", "AddBackward0"


@reply
def check(my_first_note, my_blame, detour):
    """Reply to ``my_first_note`` (a note's name) and ``my_blame`` (``x.grad``) at ``x = 2``."""
    first = name(my_first_note, example='my_first_note = "AddBackward0"')
    blame = number(my_blame, example="my_blame = 2.5")
    trail = viz.record_forward(detour, 2.0)  # the real run, as the lesson's section 2 does it
    trail.result.backward()                  # walked back
    note, grad = trail.tape[0], trail.inputs[0].grad.item()
    if first is NOT_GIVEN and blame is NOT_GIVEN:
        print("Write your two answers in place of the Nones above, run that cell, then this one.")
        return
    if first is NOT_GIVEN:
        print("The first answer is still None: which road does x = 2.0 take, squaring or times three?")
    elif first == name(note):
        print(f"First note: right, {note}. 2.0 is above 1, so the multiplying line runs.")
    elif first == name(SQUARING):
        print("First note: not squaring. Is 2.0 above 1? Then which line of detour runs?")
    elif first == name(ADDING):
        print("First note: AddBackward0 is the last note (the + 1). Which note comes before it?")
    elif not first.endswith("backward0"):
        print(f"First note: write the whole name, as the notes print it; {my_first_note!r} does not"
              " end in Backward0.")
    else:
        print(f"First note: {my_first_note!r} is not a note this run writes. Which line of detour"
              " runs first when x is 2.0? Section 1 says which name each road writes.")
    if blame is NOT_GIVEN:
        print("The blame is still None: which road does x = 2.0 take, and how much bigger does that"
              " road make a nudge to x?")
    elif close(blame, grad):
        print(f"Blame: right, {grad}: on the multiplying road it is 3 wherever x is.")
    elif close(blame, 4):
        print("Blame: 4 is the squaring road's blame at 2. Which road does x = 2.0 take here?")
    elif close(blame, detour(library_of(detour).tensor(2.0)).item()):
        print(f"Blame: {blame:g} is z itself (what detour gives back for 2.0), not its blame.")
    else:
        print(f"Blame: {blame:g} is not it yet. Find which road x = 2.0 takes, then look at section 2:"
              " the blame on that road.")
