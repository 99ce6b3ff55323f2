"""``Optimizer``: parameter groups, per-parameter state, ``zero_grad`` and ``step``.

An optimizer holds references to the parameters (the same Parameter objects
the model holds) in ``param_groups``: a list of dicts, each with its
``"params"`` and its own copy of every hyperparameter (``lr``, ...), so
different groups can learn at different rates.  ``state`` maps a parameter to
what the method remembers between steps (a momentum buffer, Adam's moment
estimates).  ``step()`` reads each parameter's ``.grad`` (skipping those that
are None) and updates the parameter's values in place, with recording off;
``zero_grad()`` sets every ``.grad`` back to None so that the next backward
starts from nothing instead of accumulating.

Updates write into each parameter's own numpy array (``p._data``), with
recording off: the Parameter objects stay the ones the model and the graph
know, and ``state_dict()`` tensors (which share the arrays) see the new
values, as in PyTorch.  Each write bumps the parameter's version counter, as
PyTorch's in-place ``add_`` does, so backward through a graph recorded
before ``step()`` fails with PyTorch's "modified by an inplace operation".

Source: ``torch.optim.Optimizer`` (torch/optim/optimizer.py).
"""

import warnings
from collections import defaultdict

from .._dtype import SCALAR_TYPE_NAMES
from ..autograd.grad_mode import enable_grad, no_grad
from ..tensor import Tensor

__all__ = ["Optimizer", "lerp_", "required"]


class _RequiredParameter:
    """Marks a hyperparameter that every parameter group must give."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj):
    if isinstance(obj, Tensor):
        return f"torch.{SCALAR_TYPE_NAMES[obj.dtype.name]}Tensor"
    cls = type(obj)
    if cls.__module__ in ("builtins", None):
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"


class Optimizer:
    """Base class of the optimizers (``torch.optim.Optimizer``).

    Args:
        params: an iterable of tensors (``model.parameters()``), or of dicts
            ``{"params": [...], "lr": ...}`` defining parameter groups.
        defaults (dict): the hyperparameters a group gets when it does not set them.

    Attributes:
        param_groups (list[dict]): the groups, each with ``"params"`` and every hyperparameter.
        state (defaultdict[Tensor, dict]): per-parameter memory between steps.
        defaults (dict): as given.

    Raises:
        TypeError: "params argument given to the optimizer should be an
            iterable of Tensors or dicts, but got torch.FloatTensor" for a
            single tensor; "optimizer can only optimize Tensors, but one of
            the params is ..." for anything else.
        ValueError: "optimizer got an empty parameter list"; "can't optimize
            a non-leaf Tensor"; "some parameters appear in more than one
            parameter group".
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                "dicts, but got " + _typename(params)
            )
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        """Add a group of parameters with its own hyperparameters (``Optimizer.add_param_group``).

        Missing hyperparameters are filled from ``defaults``.

        Raises:
            TypeError / ValueError: as for the constructor.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + _typename(param)
                )
            if not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    "parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
            param_group.setdefault(name, default)
        ids = [id(p) for p in param_group["params"]]
        if len(ids) != len(set(ids)):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, "
                "this will cause an error; see github.com/pytorch/pytorch/issues/40967 for "
                "more information",
                stacklevel=3,
            )
        seen = {id(p) for group in self.param_groups for p in group["params"]}
        if not seen.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of every optimized tensor: to None (default) or to zeros.

        With ``set_to_none=True`` a parameter that gets no gradient in the
        next backward keeps ``.grad`` None, and ``step()`` skips it.

        Source: ``torch.optim.Optimizer.zero_grad``.
        """
        for group in self.param_groups:
            for p in group["params"]:
                g = p._grad
                if g is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if g.grad_fn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    g._data[...] = 0  # PyTorch: p.grad.zero_()
                    _bump_version(g)

    def _run_closure(self, closure):
        if closure is None:
            return None
        with enable_grad():
            return closure()

    def step(self, closure=None):
        """Update every parameter that has a gradient; returns the closure's loss, if given.

        The update runs with recording off, one parameter group at a time
        (``_update_group``, which each optimizer defines: its update rule).

        Args:
            closure (callable | None): re-evaluates the model and returns the
                loss (run with recording on).
        """
        loss = self._run_closure(closure)
        with no_grad():
            for group in self.param_groups:
                self._update_group(group)
        return loss

    def _update_group(self, group):
        raise NotImplementedError

    def state_dict(self):
        """The optimizer's state as PyTorch lays it out (``Optimizer.state_dict``).

        Returns:
            dict: ``{"state": {index: {name: value}}, "param_groups": [{hyperparameters...,
            "params": [index, ...]}]}``; parameters are numbered 0, 1, ... across the
            groups in order, so the dict does not refer to the Parameter objects.
        """
        index, groups, start = {}, [], 0
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            ids = list(range(start, start + len(group["params"])))
            index.update({id(p): i for i, p in zip(ids, group["params"])})
            packed["params"] = ids
            start += len(ids)
            groups.append(packed)
        state = {index[id(p)]: dict(s) for p, s in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Restore what ``state_dict()`` returned, onto this optimizer's parameters.

        Raises:
            ValueError: PyTorch's messages when the groups do not match in number or size.
        """
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for saved, mine in zip(groups, self.param_groups):
            if len(saved["params"]) != len(mine["params"]):
                raise ValueError(
                    "loaded state dict contains a parameter group that doesn't match the size "
                    "of optimizer's group"
                )
        by_index = {}
        for saved, mine in zip(groups, self.param_groups):
            by_index.update(zip(saved["params"], mine["params"]))
        self.state = defaultdict(dict)
        for i, s in state_dict["state"].items():
            self.state[by_index[i]] = {
                k: (Tensor._make(v._data.copy()) if isinstance(v, Tensor) else v)
                for k, v in s.items()
            }
        for saved, mine in zip(groups, self.param_groups):
            for k, v in saved.items():
                if k != "params":
                    mine[k] = v

    def __repr__(self):
        s = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += "\n"
            s += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    s += f"    {key}: {group[key]}\n"
        return s + ")"


def _bump_version(t):
    """Count an in-place write into ``t``'s array, as PyTorch's in-place ops do."""
    t._shared_vc()[0] += 1


def lerp_(a, end, w):
    """``a.lerp_(end, w)`` on arrays in place, in ATen's arithmetic (two formulas, by ``|w|``).

    ``w`` is a scalar of ``a``'s dtype; small weights step from ``a``, large
    ones from ``end``, as ATen's ``lerp`` kernel does for accuracy.
    """
    if abs(w) < 0.5:
        a += w * (end - a)
    else:
        a[...] = end - (end - a) * (a.dtype.type(1) - w)


def _check_plain(differentiable):
    if differentiable:
        raise NotImplementedError(
            "minigrad: differentiable=True (recording the optimizer step) is not supported"
        )

