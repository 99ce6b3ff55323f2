"""Developer lesson 1, "Try it yourself": ``x.grad`` and ``y.grad`` for ``z = (x * y) + (x * 2)``.

The learner predicts both gradients at ``x = 3``, ``y = 4`` from the recording.  The check
walks back from the lesson's own ``z`` with ``autograd.grad`` of the library that made it
(``retain_graph=True``: ``x.grad`` stays unset and the recording stays whole for the picture
drawn after the exercise), and names the usual cause of each wrong answer.
"""

import sys

from .answers import NOT_GIVEN, Unreadable, number, reply

__all__ = ["check"]


def _leaves(z):
    """The leaves behind ``z``, in the order the recording first meets them (x, then y)."""
    found, todo, seen = [], [z.grad_fn], set()
    while todo:
        node = todo.pop(0)
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if type(node).__name__ == "AccumulateGrad":
            found.append(node.variable)
        todo.extend(next_node for next_node, _ in node.next_functions)
    return found


def _gradients(z):
    """The leaves of ``z`` and their gradients, from the real walk back (``.grad`` untouched)."""
    library = sys.modules[type(z).__module__.partition(".")[0]]  # minigrad or torch
    x, y = _leaves(z)
    grads = library.autograd.grad(z, [x, y], retain_graph=True)
    return x.item(), y.item(), grads[0].item(), grads[1].item()


@reply
def check(my_x_grad, my_y_grad, z):
    """Reply to predictions of ``x.grad`` and ``y.grad`` for the lesson's ``z``."""
    try:
        guess_x = number(my_x_grad)
        guess_y = number(my_y_grad)
    except Unreadable:
        raise Unreadable(f"Write numbers, e.g. my_x_grad = 1.5 "
                         f"(you wrote {my_x_grad!r} and {my_y_grad!r}).") from None
    try:
        x_value, y_value, true_x, true_y = _gradients(z)
    except (RuntimeError, ValueError, AttributeError):
        print("z is not the z of this exercise any more (or its graph was walked): run the cell that")
        print("  builds it again, then this one.")
        return

    if guess_x is NOT_GIVEN and guess_y is NOT_GIVEN:
        print("No prediction yet: replace None above with your numbers, run that cell, then this one.")
        print("Hint: in z = (x * y) + (x * 2), find each place x is used: each use sends x a gradient of")
        print("  its own, and x.grad is their sum. Then the same for y.")
        return
    if _same(guess_x, true_y) and _same(guess_y, true_x) and not _same(guess_x, true_x):
        print("Swapped: your x.grad looks like y's gradient, and your y.grad like x's. x.grad is how fast")
        print("  z changes when x changes, y held still; y.grad, when y changes, x held still.")
        return

    _reply_to("x", guess_x, true_x, "Each use of x sends back its own gradient, and they add.", [
        (y_value, ", the gradient through x * y alone. But x is used twice,\n"
                  "  in x * y and in x * 2, and the gradients from both uses add: "
                  "add what x * 2 sends back."),
        (2.0, ", the gradient through x * 2 alone. But x is used twice,\n"
              "  in x * y and in x * 2, and the gradients from both uses add: "
              "add what x * y sends back."),
        (x_value, ", the value of x itself. A gradient is not a value: it says\n"
                  "  how much z moves per unit that x moves. Work it out one use of x at a time."),
        (2.0 * y_value, ", the two uses' gradients multiplied. The chain rule multiplies\n"
                        "  along one path; gradients arriving by separate paths add."),
    ], ". Work it out one use at a time: d(x * y)/dx, then d(x * 2)/dx,\n"
       "  each at this x and y; then combine the two as gradients arriving by separate paths do.")
    _reply_to("y", guess_y, true_y, "y is used once, multiplied by x.", [
        (y_value, ", the value of y itself. A gradient is not a value: it says\n"
                  "  how much z moves per unit that y moves. (The x * 2 term does not involve y.)"),
        (1.0, ". y is not added to z, it is multiplied by x: what does a\n"
              "  product send back to one of its factors?"),
    ], ". y appears only in x * y (the x * 2 term adds nothing):\n"
       "  what is d(x * y)/dy, at this x?")


def _reply_to(leaf, guess, truth, why, causes, otherwise):
    """One line (or two) on one prediction: right, the cause of a wrong answer named in
    ``causes`` (``(value, text)`` pairs, the first that matches), or ``otherwise``."""
    if guess is NOT_GIVEN:
        print(f"{leaf}.grad: no prediction yet (None).")
    elif _same(guess, truth):
        print(f"{leaf}.grad: right, {truth:g}. {why}")
    else:
        cause = next((text for value, text in causes if _same(guess, value)), otherwise)
        print(f"{leaf}.grad: you gave {guess:g}{cause}")


def _same(a, b):
    return a is not NOT_GIVEN and abs(a - b) < 1e-6
