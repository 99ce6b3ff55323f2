"""Beginner lesson 1, "Try it yourself": ``x.grad`` when ``x`` starts at 5.

The learner guesses ``x.grad`` for ``walk_in`` (``z = x * x + 1``) at ``x = 5``, by nudging
``x`` from 5 to 5.01.  The check runs the real walk back on the learner's ``walk_in``.
"""

from .answers import NOT_GIVEN, close, library_of, number, reply

__all__ = ["check", "watch_notes"]


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


def watch_notes(result):
    """Watch the notes of ``result``'s trail without holding them (lesson 1, section 4).

    Returns a function that lists the names (last written first) of the notes still there.  Only
    notes are watched, not a leaf's collector (``AccumulateGrad``), which is not a note.  A note
    cannot be watched directly (PyTorch's notes refuse ``weakref``), so a tiny tag is hung on each
    one (in ``node.metadata``, which only the note holds) and the tags are watched: a tag goes
    exactly when its note goes.
    """
    import weakref

    class Tag:  # a tiny empty object, hung on a note
        pass

    watches, seen, todo = [], set(), [result.grad_fn]
    node = tag = None
    while todo:
        node = todo.pop(0)
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        todo.extend(next_node for next_node, _ in node.next_functions)
        if type(node).__name__ == "AccumulateGrad":  # a collector, not a note
            continue
        tag = node.metadata["watch_notes"] = Tag()
        watches.append((type(node).__name__, weakref.ref(tag)))
    del node, tag  # hold no note here: only the tags are watched

    def still_there():
        return [name for name, watch in watches if watch() is not None]

    return still_there
