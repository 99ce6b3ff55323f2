"""The forms of answer every lesson's check accepts, read the same way everywhere.

``number(answer)`` reads ``10``, ``10.0``, ``"10"`` or ``" 10.0 "`` as 10.0 (and a
one-element tensor as its value); ``name(answer)`` reads a node's name in any case,
with or without ``Backward0`` spelled out as typed.  Each returns ``NOT_GIVEN`` for
``None`` (the answer cell as stored) and raises ``Unreadable`` with a plain message for
anything else, which the check prints instead of a traceback.
"""

__all__ = ["NOT_GIVEN", "Unreadable", "close", "library_of", "name", "number", "reply"]

NOT_GIVEN = object()


class Unreadable(ValueError):
    """An answer of a form no check reads; its message says what to write instead."""


def number(answer, example="7.5", what="a number"):
    """``answer`` as a float, or NOT_GIVEN for None.

    Raises:
        Unreadable: "Write a number, e.g. my_guess = 7.5 (you wrote 'ten')."
    """
    if answer is None:
        return NOT_GIVEN
    if hasattr(answer, "item") and not isinstance(answer, (int, float)):  # a tensor or numpy value
        try:
            answer = answer.item()
        except (ValueError, RuntimeError):
            raise Unreadable(f"Write {what}, e.g. {example} (you wrote a tensor of several values).")
    try:
        value = float(answer.strip() if isinstance(answer, str) else answer)
    except (TypeError, ValueError):
        raise Unreadable(f"Write {what}, e.g. {example} (you wrote {answer!r}).") from None
    if isinstance(answer, bool) or value != value:  # True/False or nan: not an answer
        raise Unreadable(f"Write {what}, e.g. {example} (you wrote {answer!r}).")
    return value


def name(answer, example='"AddBackward0"'):
    """``answer`` as a name, compared without case or spaces; NOT_GIVEN for None.

    Raises:
        Unreadable: for anything but a string.
    """
    if answer is None:
        return NOT_GIVEN
    if not isinstance(answer, str):
        raise Unreadable(f"Write a name in quotes, e.g. {example} (you wrote {answer!r}).")
    return "".join(answer.split()).lower()


def close(a, b, tolerance=0.05):
    """True if two read numbers agree to within ``tolerance`` (a nudge's estimate is near)."""
    return abs(a - b) <= tolerance


def library_of(fn):
    """The tensor library a lesson's function computes with: what its notebook imported as
    ``torch`` (``import minigrad as torch``, or PyTorch itself)."""
    return fn.__globals__["torch"]


def reply(check):
    """Decorate a check: an ``Unreadable`` answer prints its message, not a traceback."""
    def run(*args, **kwargs):
        try:
            check(*args, **kwargs)
        except Unreadable as e:
            print(e)

    run.__name__, run.__doc__, run.__wrapped__ = check.__name__, check.__doc__, check
    return run
