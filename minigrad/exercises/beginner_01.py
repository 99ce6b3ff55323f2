"""Beginner lesson 1, "Try it yourself": ``x.grad`` when ``x`` starts at 5.

The learner guesses ``x.grad`` for ``walk_in`` (``z = x * x + 1``) at ``x = 5``, by nudging
``x`` from 5 to 5.01.  The check runs the real walk back on the learner's ``walk_in``.
"""

from .answers import NOT_GIVEN, close, library_of, number, reply

__all__ = ["check"]


@reply
def check(my_guess, walk_in):
    """Reply to ``my_guess``, a guess of ``x.grad`` at ``x = 5``."""
    guess = number(my_guess, example="my_guess = 7.5")
    x = library_of(walk_in).tensor(5.0, requires_grad=True)
    walk_in(x).backward()  # the real walk back
    blame = x.grad.item()
    if guess is NOT_GIVEN:
        print("Write your guess in place of None above, run that cell, then run this one again.")
    elif close(guess, blame):
        print(f"Right: x.grad is {blame}. Near 5, a nudge to x moves z about {blame:g} times as much.")
    elif guess == 6:
        print("6 was x's blame at 3. Nudge from 5 to 5.01 and see how far z moves this time.")
    elif close(guess, walk_in(library_of(walk_in).tensor(5.0)).item()):
        print(f"{guess:g} is z itself, not its blame. How far does z move for a nudge?")
    else:
        print("Not yet. Divide how far z moves (from x = 5 to x = 5.01) by the nudge, 0.01.")
