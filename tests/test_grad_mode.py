"""The recording switch: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``is_grad_enabled``.

Every behaviour here was run side by side with PyTorch 2.13 (``torch.no_grad``
and friends), including the immediate effect of ``set_grad_enabled(False)``
called as a plain function and the bare ``@no_grad`` decorator.
"""

import pytest

import minigrad
from minigrad import enable_grad, is_grad_enabled, no_grad, set_grad_enabled

F64 = minigrad.float64


def t64(data, requires_grad=True):
    return minigrad.tensor(data, dtype=F64, requires_grad=requires_grad)


def test_grad_is_enabled_by_default():
    assert is_grad_enabled() is True


def test_no_grad_context_records_nothing():
    x = t64([1.0, 2.0])
    with no_grad():
        assert is_grad_enabled() is False
        y = x * 2
        z = (x.exp() + 1).sum()
    assert is_grad_enabled() is True
    for t in (y, z):
        assert t.requires_grad is False and t.grad_fn is None and t.is_leaf
    assert x.requires_grad is True  # leaves keep their flag
    w = x * 2
    assert w.grad_fn.name() == "MulBackward0"


def test_leaves_created_under_no_grad_keep_their_flag():
    with no_grad():
        w = t64([1.0])
        assert w.requires_grad and w.is_leaf
        w.requires_grad_(False)
        assert not w.requires_grad
        w.requires_grad_(True)
        assert w.requires_grad
    y = w * 3
    y.backward(t64([1.0], requires_grad=False))
    assert w.grad.tolist() == [3.0]


def test_result_of_no_grad_is_a_constant_afterwards():
    x = t64([1.0, 2.0])
    with no_grad():
        a = x + 1
    b = a * x
    assert b.grad_fn.name() == "MulBackward0"
    assert b.grad_fn.next_functions[0] == (None, 0)  # a is a constant
    b.sum().backward()
    assert x.grad.tolist() == [2.0, 3.0]  # d(a x)/dx with a treated as constant


def test_enable_grad_inside_no_grad():
    x = t64([1.0, 2.0])
    with no_grad():
        with enable_grad():
            assert is_grad_enabled()
            z = x * 2
        assert not is_grad_enabled()
        y = x * 2
    assert z.grad_fn.name() == "MulBackward0" and z.requires_grad
    assert y.grad_fn is None
    assert is_grad_enabled()


def test_nesting_restores_each_level():
    states = []
    with no_grad():
        states.append(is_grad_enabled())
        with no_grad():
            states.append(is_grad_enabled())
            with enable_grad():
                states.append(is_grad_enabled())
                with set_grad_enabled(False):
                    states.append(is_grad_enabled())
                states.append(is_grad_enabled())
            states.append(is_grad_enabled())
        states.append(is_grad_enabled())
    states.append(is_grad_enabled())
    assert states == [False, False, True, False, True, False, False, True]


def test_exception_inside_restores_the_mode():
    with pytest.raises(KeyError):
        with no_grad():
            raise KeyError("boom")
    assert is_grad_enabled()


def test_no_grad_as_decorator():
    x = t64([1.0, 2.0])

    @no_grad()
    def f(t):
        return t * 2, is_grad_enabled()

    y, inside = f(x)
    assert inside is False and y.grad_fn is None and not y.requires_grad
    assert is_grad_enabled()
    assert f.__name__ == "f"  # functools.wraps, as in PyTorch


def test_enable_grad_as_decorator_inside_no_grad():
    x = t64([1.0, 2.0])

    @enable_grad()
    def g(t):
        return t * 2, is_grad_enabled()

    with no_grad():
        y, inside = g(x)
        assert not is_grad_enabled()
    assert inside is True and y.grad_fn.name() == "MulBackward0"


def test_decorated_function_restores_mode_after_exception():
    @no_grad()
    def bad():
        raise ValueError

    with pytest.raises(ValueError):
        bad()
    assert is_grad_enabled()


def test_bare_decorator_without_parentheses():
    """PyTorch accepts ``@torch.no_grad`` and ``@torch.enable_grad`` without parentheses.

    (Was a bug:) ``no_grad()`` takes no arguments, so ``@minigrad.no_grad`` raises
    "TypeError: no_grad() takes no arguments" at decoration time.
    """

    @no_grad
    def f():
        return is_grad_enabled()

    @enable_grad
    def g():
        return is_grad_enabled()

    assert f() is False
    with no_grad():
        assert g() is True


def test_no_grad_decorating_a_generator_function():
    """PyTorch runs every step of a decorated generator under the mode.

    (Was a bug:) minigrad's wrapper only switches the mode while the generator object
    is being created; the body then runs with recording on, so it records.
    """

    @no_grad()
    def gen(x):
        for _ in range(2):
            yield x * 2, is_grad_enabled()

    x = t64([1.0])
    results = list(gen(x))
    assert [mode for _, mode in results] == [False, False]
    assert all(y.grad_fn is None for y, _ in results)
    assert is_grad_enabled()


def test_set_grad_enabled_as_context_manager():
    x = t64([1.0])
    with set_grad_enabled(False):
        assert not is_grad_enabled()
        assert (x * 2).grad_fn is None
    assert is_grad_enabled()
    with no_grad():
        with set_grad_enabled(True):
            assert is_grad_enabled()
            assert (x * 2).grad_fn is not None
        assert not is_grad_enabled()
    assert is_grad_enabled()


def test_set_grad_enabled_as_function_switches_immediately():
    x = t64([1.0])
    try:
        set_grad_enabled(False)  # no `with`: takes effect at once, as in PyTorch
        assert not is_grad_enabled()
        assert (x * 2).grad_fn is None
        set_grad_enabled(True)
        assert is_grad_enabled()
        assert (x * 2).grad_fn is not None
    finally:
        set_grad_enabled(True)


def test_set_grad_enabled_as_decorator():
    @set_grad_enabled(False)
    def h():
        return is_grad_enabled()

    assert is_grad_enabled()  # decorating does not switch the mode
    assert h() is False
    assert is_grad_enabled()


def test_set_grad_enabled_with_a_variable_mode():
    x = t64([1.0])
    for mode in (True, False):
        with set_grad_enabled(mode):
            assert is_grad_enabled() is mode
            assert ((x * 2).grad_fn is not None) is mode
    assert is_grad_enabled()


def test_set_grad_enabled_rejects_a_non_bool():
    """(Was a bug:) PyTorch's message is "set_grad_enabled(): argument 'enabled' (position 1) must be
    bool, not int"; minigrad names the argument 'mode' and omits the position."""
    with pytest.raises(TypeError) as info:
        set_grad_enabled(1)
    assert is_grad_enabled()  # nothing switched
    assert str(info.value) == (
        "set_grad_enabled(): argument 'enabled' (position 1) must be bool, not int"
    )


def test_backward_of_a_graph_recorded_before_no_grad_still_works():
    """The mode decides what is recorded, not whether an existing graph can be walked."""
    x = t64([1.0, 2.0])
    y = (x * x).sum()
    with no_grad():
        y.backward()
    assert x.grad.tolist() == [2.0, 4.0]


def test_backward_itself_does_not_record():
    x = t64([1.0, 2.0])
    seen = []
    y = x.exp()
    y.grad_fn.register_prehook(lambda grads: seen.append(is_grad_enabled()))
    y.sum().backward()
    assert seen == [False]
    assert x.grad.grad_fn is None and not x.grad.requires_grad
