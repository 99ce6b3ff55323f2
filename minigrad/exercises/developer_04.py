"""Developer lesson 4, "Try it yourself": the order of the walk, and ``x.grad``.

For ``x = 2``, ``y = 3``, ``s = x + y``, ``d = x - y``, ``z = s * d``, the learner predicts the
order in which ``AddBackward0``, ``SubBackward0`` and ``MulBackward0`` run in ``z.backward()``
and what ``x``'s ``AccumulateGrad`` receives.  The check builds the graph with the library
the lesson imported as ``torch``, puts a pre-hook on every node the lesson's own
``nodes_behind`` finds, runs the real walk and compares; a wrong answer gets the rule it missed.
"""

from .answers import NOT_GIVEN, Unreadable, library_of, name, number, reply

__all__ = ["check"]


def _walk(nodes_behind):
    """The names of the operation nodes in the order they ran, and x.grad."""
    torch = library_of(nodes_behind)
    x = torch.tensor(2.0, requires_grad=True)
    y = torch.tensor(3.0, requires_grad=True)
    s = x + y
    d = x - y
    z = s * d
    ran = []
    for node in nodes_behind(z):
        if type(node).__name__ != "AccumulateGrad":
            node.register_prehook(lambda grad_outputs, kind=type(node).__name__: ran.append(kind))
    z.backward()
    return ran, x.grad.item(), s.item(), d.item()


def _order(my_order):
    """``my_order`` as a list of names as typed, or None if it is not a list of names."""
    if isinstance(my_order, str):
        return None
    try:
        return list(my_order)
    except TypeError:
        return None


@reply
def check(my_order, my_x_grad, nodes_behind):
    """Reply to ``my_order`` (three node names, first to run first) and ``my_x_grad``."""
    guess = number(my_x_grad, example="my_x_grad = 1.5")
    ran, x_grad, s_value, d_value = _walk(nodes_behind)

    if my_order is None or guess is NOT_GIVEN:
        print("No prediction yet: replace both None values above with your answers, run that cell, then this one.")
        print("Hint: section 2's three rules decide the order; for x.grad, follow every path from z back to x.")
        return

    order = _order(my_order)
    typed = None if order is None else [name(n) for n in order]
    if typed is None or sorted(typed) != sorted(name(n) for n in ran):
        print("Order: give each of the three names once, as a list of strings such as 'AddBackward0'.")
    elif typed == [name(n) for n in ran]:
        print("Order: right. The walk starts at z's node, and of two nodes ready at the same moment")
        print("  the one recorded later runs first.")
    elif typed[0] != name(ran[0]):
        print(f"Order: the walk does not start at {order[0]}. It starts where backward() was called:")
        print("  at the node that made z, z.grad_fn.")
    else:
        print("Order: not this one. Once z's node has sent to the other two, both are ready at the same")
        print("  moment; of two ready nodes the engine runs the one recorded later (the higher")
        print("  _sequence_nr()) first. Which of s and d was recorded later?")

    def same(p, q):
        return abs(p - q) < 1e-6

    if same(guess, x_grad):
        print("x.grad: right. Both paths from z back to x deliver a gradient, and the engine adds them")
        print("  before x's AccumulateGrad runs.")
    elif same(guess, s_value) or same(guess, d_value):
        print(f"x.grad: you gave {guess:g}, the gradient along one path only. x is used twice, in s and in d,")
        print("  and its AccumulateGrad receives the sum of what both paths send.")
    elif same(guess, s_value * d_value):
        print(f"x.grad: you gave {guess:g}, the two paths' gradients multiplied. Along one path the chain")
        print("  rule multiplies; gradients arriving by separate paths add.")
    else:
        print(f"x.grad: you gave {guess:g}. Go node by node: what z = s * d sends to s's node and to d's node,")
        print("  what AddBackward0 and SubBackward0 pass on to x, and how the two arrivals at x combine.")
