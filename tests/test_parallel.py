"""``set_num_threads`` / ``get_num_threads``: PyTorch's checks and messages; BLAS limited for real."""

import pytest

import minigrad
from minigrad import parallel


@pytest.fixture
def restore():
    yield
    limiter = parallel._state["limiter"]
    if limiter is not None:
        limiter.restore_original_limits()
    parallel._state.update(threads=None, limiter=None)


@pytest.mark.parametrize("bad, message", [
    (0, "set_num_threads expects a positive integer"),
    (-2, "set_num_threads expects a positive integer"),
    (2.0, "set_num_threads expects an int, but got float"),
    ("2", "set_num_threads expects an int, but got str"),
    (True, "set_num_threads expects an int, but got bool"),
])
def test_bad_arguments_raise_pytorchs_messages(bad, message):
    with pytest.raises(RuntimeError, match="^" + message + "$"):
        minigrad.set_num_threads(bad)


def test_one_thread_limits_blas(restore):
    import threadpoolctl  # in the lessons and test extras

    minigrad.set_num_threads(1)
    assert minigrad.get_num_threads() == 1
    blas = [i for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]
    assert blas and all(i["num_threads"] == 1 for i in blas)
    # and a product still computes
    a = minigrad.ones(64, 64)
    assert (a @ a)[0, 0].item() == 64.0


def test_without_threadpoolctl_the_number_is_kept_and_a_warning_says_so(restore, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_threadpoolctl(name, *args, **kwargs):
        if name == "threadpoolctl":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_threadpoolctl)
    with pytest.warns(UserWarning, match="threadpoolctl is not installed"):
        minigrad.set_num_threads(3)
    assert minigrad.get_num_threads() == 3
