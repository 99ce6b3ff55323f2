"""Developer lesson 3, "Try it yourself": ``x.grad`` after each of three snippets.

The learner predicts ``x.grad`` for ``snippet_a`` (three walks of ``(x * x) / 3``, no reset),
``snippet_b`` (three walks of ``x * x``) and ``snippet_c`` (one walk of ``y + y``,
``y = x * x``), all at ``x = 3``.  The check runs the lesson's own snippets, each with the
library it was written with, and names the usual cause of each wrong answer.
"""

from .answers import NOT_GIVEN, Unreadable, number, reply

__all__ = ["check"]

NAMES = ("a", "b", "c")
ONE_WALK = 2 * 3.0  # d(x * x)/dx at x = 3: the wrong answers below are counted from it
CAUSES = {
    "a": {ONE_WALK / 3: "that is one walk's gradient: the three backward() calls add into x.grad.",
          3 * ONE_WALK: "each loss is divided by 3, so each walk sends a third of d(x * x)/dx."},
    "b": {ONE_WALK: "that is one walk's gradient: without a reset the three walks add up.",
          ONE_WALK / 3: "there is no / 3 in this one, and the three walks add up."},
    "c": {ONE_WALK: "y is used twice in y + y: each use sends its gradient back to y, and the "
                    "two add before reaching x.",
          4 * ONE_WALK: "the two uses of y add (2 * dy), they do not multiply."},
}
OTHERWISE = "count the backward() calls (each adds) and the uses of each tensor (each adds)."


@reply
def check(my_predictions, snippet_a, snippet_b, snippet_c):
    """Reply to ``my_predictions``, ``dict(a=..., b=..., c=...)``: ``x.grad`` per snippet."""
    if not isinstance(my_predictions, dict):
        raise Unreadable("Write my_predictions as dict(a=1.5, b=..., c=...) "
                         f"(you wrote {my_predictions!r}).")
    given = [my_predictions.get(name) for name in NAMES]
    try:
        predictions = {name: number(answer) for name, answer in zip(NAMES, given)}
    except Unreadable:
        a, b, c = given
        raise Unreadable(f"Write numbers, e.g. a=1.5 (you wrote {a!r} and {b!r} and {c!r}).") from None
    if all(p is NOT_GIVEN for p in predictions.values()):
        print("No predictions yet: write a number for each snippet in my_predictions above, run that cell, then this one.")
        print("Hint: one walk through x * x sends back d(x * x)/dx = 2x. Then count how many times")
        print("such a gradient is added into x.grad, and by what it is scaled.")
        return
    snippets = dict(zip(NAMES, (snippet_a, snippet_b, snippet_c)))
    right = 0
    for name in NAMES:
        guess = predictions[name]
        if guess is NOT_GIVEN:
            print(f"{name}: no prediction yet.")
            continue
        x_grad = snippets[name]()
        if abs(guess - x_grad) < 1e-4:
            right += 1
            print(f"{name}: right, x.grad = {x_grad:g}.")
        else:
            causes = CAUSES[name].items()
            cause = next((text for value, text in causes if abs(guess - value) < 1e-4), OTHERWISE)
            print(f"{name}: not {guess:g}: {cause}")
    print(f"{right} of 3 right.")
