"""Developer lesson 2, "Try it yourself": ``y.requires_grad`` after each of five snippets.

The learner predicts True or False for ``snippet_a`` to ``snippet_e`` (``no_grad()``,
a product made after leaving an ``enable_grad()`` nested in it, ``inference_mode()`` inside
``enable_grad()``, ``detach()`` of
one factor, a constant made under ``no_grad()`` used outside it).  The check runs the
lesson's own snippets, each with the library it was written with, and compares; each
wrong prediction gets the rule it missed.
"""

from .answers import NOT_GIVEN, Unreadable, reply

__all__ = ["check", "truth"]

NAMES = ("a", "b", "c", "d", "e")

HINTS = {
    "a": "inside no_grad() nothing is recorded, whatever the inputs require.",
    "b": "enable_grad() switches recording back on only inside its own block; y = h * 3 is "
         "computed after it, back under no_grad().",
    "c": "the innermost switch decides: inference_mode() inside enable_grad() switches recording "
         "off, as no_grad() would.",
    "d": "detach() cuts off one factor only; the other factor is w itself, which requires grad, "
         "so the product is recorded.",
    "e": "h was made under no_grad() and is a constant, but y = h * w is computed outside the "
         "block, with w, which requires grad.",
}


def truth(answer):
    """``answer`` as True or False (also ``"true"``, ``"False"`` typed in quotes, any case);
    NOT_GIVEN for None.

    Raises:
        Unreadable: for anything else.
    """
    if answer is None:
        return NOT_GIVEN
    if isinstance(answer, str):
        word = answer.strip().lower()
        if word in ("true", "false"):
            return word == "true"
    else:
        try:
            if answer in (True, False):  # also 1 and 0, as before
                return bool(answer)
        except (TypeError, ValueError, RuntimeError):  # a tensor of several values
            pass
    raise Unreadable(f"predict True or False (you gave {answer!r}).")


@reply
def check(my_predictions, snippet_a, snippet_b, snippet_c, snippet_d, snippet_e):
    """Reply to ``my_predictions``, ``dict(a=..., ..., e=...)``: ``y.requires_grad`` per snippet."""
    if not isinstance(my_predictions, dict):
        raise Unreadable("Write my_predictions as dict(a=True, b=False, ...), True or False "
                         f"for each snippet (you wrote {my_predictions!r}).")
    snippets = dict(zip(NAMES, (snippet_a, snippet_b, snippet_c, snippet_d, snippet_e)))
    predictions = {name: my_predictions.get(name) for name in NAMES}
    if all(p is None for p in predictions.values()):
        print("No predictions yet: write True or False for each snippet in my_predictions above, run that cell, then this one.")
        print("Hint: for each one, find the last operation, and ask whether recording was on when it ran")
        print("and whether one of its inputs required grad.")
        return
    right = 0
    for name, snippet in snippets.items():
        try:
            guess = truth(predictions[name])
        except Unreadable as e:
            print(f"{name}: {e}")
            continue
        if guess is NOT_GIVEN:
            print(f"{name}: no prediction yet.")
            continue
        requires_grad = snippet().requires_grad
        if guess == requires_grad:
            right += 1
            print(f"{name}: right, y.requires_grad is {requires_grad}.")
        else:
            print(f"{name}: not {guess}. Hint: {HINTS[name]}")
    print(f"{right} of 5 right.")
