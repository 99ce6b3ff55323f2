"""``Module``: an object that owns parameters and sub-modules and computes ``forward``.

Assigning an attribute does the bookkeeping, as in PyTorch: a ``Parameter``
goes into ``self._parameters``, a ``Module`` into ``self._modules``, a tensor
given to ``register_buffer`` into ``self._buffers``; everything else is an
ordinary attribute.  From those three dicts come

* ``parameters()`` / ``named_parameters()``: this module's parameters first,
  then each child's, depth first, in the order they were assigned
  (``"body.0.weight"``), each parameter once;
* ``children()``, ``modules()`` and their ``named_`` forms;
* ``state_dict()``: an OrderedDict of the same names mapped to *detached*
  tensors sharing memory with the parameters; ``load_state_dict`` copies
  values back, checking names and shapes with PyTorch's messages;
* ``train()`` / ``eval()``: set ``training`` on the whole tree;
* ``zero_grad()``: set every parameter's ``.grad`` to None;
* ``repr``: PyTorch's indented tree, ``Sequential(\\n  (0): Linear(...)``.

Calling the module (``model(x)``) runs the forward pre-hooks, ``forward``,
then the forward hooks.

Source: ``torch.nn.Module`` (torch/nn/modules/module.py).
"""

from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ..._dtype import SCALAR_TYPE_NAMES
from ...autograd.grad_mode import no_grad
from ...autograd.removable_handle import _add_hook
from ...tensor import Tensor
from ..parameter import Parameter

__all__ = ["Module"]


def _typename(obj):
    """``torch.typename``: "torch.FloatTensor" for tensors, the qualified class name otherwise."""
    if isinstance(obj, Tensor):
        return f"torch.{SCALAR_TYPE_NAMES[obj.dtype.name]}Tensor"
    cls = type(obj)
    module = cls.__module__
    if module in ("builtins", "__builtin__", None):
        return cls.__qualname__
    return f"{module}.{cls.__qualname__}"


def _size(shape):
    return "torch.Size([" + ", ".join(str(s) for s in shape) + "])"


def _addindent(s_, num_spaces):
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    s = [(num_spaces * " ") + line if line.strip() else "" for line in s]
    return first + "\n" + "\n".join(s)


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the missing and unexpected keys.

    Prints ``<All keys matched successfully>`` when both lists are empty.
    """

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _forward_unimplemented(self, *input):
    """The computation a subclass defines; called by ``module(x)`` (``Module.forward``).

    Raises:
        NotImplementedError: PyTorch's message when a subclass did not define it.
    """
    raise NotImplementedError(
        f'Module [{type(self).__name__}] is missing the required "forward" function'
    )


class Module:
    """Base class of every layer and model (``torch.nn.Module``).

    Subclass it, call ``super().__init__()`` first in ``__init__``, assign
    parameters and sub-modules as attributes, and define ``forward``::

        class MLP(nn.Module):
            def __init__(self):
                super().__init__()
                self.hidden = nn.Linear(4, 8)
                self.out = nn.Linear(8, 3)

            def forward(self, x):
                return self.out(self.hidden(x).tanh())

    Attributes:
        training (bool): True after ``train()`` (the default), False after ``eval()``.

    Raises:
        AttributeError: "cannot assign parameters before Module.__init__()
            call" (and "... module ...") if ``super().__init__()`` was forgotten.
        TypeError: "cannot assign 'torch.FloatTensor' as parameter 'weight'
            (torch.nn.Parameter or None expected)" when a plain tensor is
            assigned over a parameter.
    """

    training = True
    forward = _forward_unimplemented

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got unexpected arguments; "
                "Module.__init__ takes none"
            )
        # object.__setattr__: our own __setattr__ needs these dicts to exist.
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "_forward_pre_hooks", OrderedDict())
        object.__setattr__(self, "_forward_hooks", OrderedDict())

    # ----------------------------------------------------------- registration

    def register_parameter(self, name, param):
        """Register ``param`` (a Parameter, or None) under ``name``.

        Raises:
            AttributeError: before ``Module.__init__()``.
            KeyError: for a name with a dot, an empty name, or one that is
                already another attribute.
            TypeError: if ``param`` is not a Parameter or None.
            ValueError: for a non-leaf tensor.
        """
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                f"created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method."
            )
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Register a tensor that is state but not a parameter (``Module.register_buffer``).

        Buffers appear in ``state_dict()`` (unless ``persistent=False``) but
        not in ``parameters()``.

        Raises:
            AttributeError: before ``Module.__init__()``.
            KeyError: for a bad or already used name.
            TypeError: if ``tensor`` is not a Tensor or None.
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        """Register a child module (or None) under ``name`` (``Module.add_module``).

        Raises:
            TypeError: if ``module`` is not a Module or None.
            KeyError: for a bad or already used name.
        """
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name, value):
        def remove_from(*dicts_or_sets):
            for d in dicts_or_sets:
                if name in d:
                    if isinstance(d, dict):
                        del d[name]
                    else:
                        d.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules,
                        self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
            return
        modules = self.__dict__.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(self.__dict__, self._parameters, self._buffers,
                        self._non_persistent_buffers_set)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as child module '{name}' "
                    "(torch.nn.Module or None expected)"
                )
            modules[name] = value
            return
        buffers = self.__dict__.get("_buffers")
        if buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as buffer '{name}' "
                    "(torch.nn.Buffer, torch.Tensor or None expected)"
                )
            buffers[name] = value
            return
        object.__setattr__(self, name, value)

    def __getattr__(self, name):
        # Called only when normal lookup fails: parameters, buffers and
        # modules live in their dicts, not in the instance __dict__.
        d = self.__dict__
        if "_parameters" in d and name in d["_parameters"]:
            return d["_parameters"][name]
        if "_buffers" in d and name in d["_buffers"]:
            return d["_buffers"][name]
        if "_modules" in d and name in d["_modules"]:
            return d["_modules"][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for key in ("_parameters", "_buffers", "_modules"):
            d = self.__dict__.get(key)
            if d is not None and name in d:
                del d[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        attrs = set(dir(type(self))) | set(self.__dict__)
        attrs |= set(self._parameters) | set(self._modules) | set(self._buffers)
        return sorted(a for a in attrs if not a[:1].isdigit())

    # ----------------------------------------------------------- calling

    def __call__(self, *args, **kwargs):
        for hook in tuple(self._forward_pre_hooks.values()):
            result = hook(self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
        result = self.forward(*args, **kwargs)
        for hook in tuple(self._forward_hooks.values()):
            new = hook(self, args, result)
            if new is not None:
                result = new
        return result

    def register_forward_pre_hook(self, hook):
        """Call ``hook(module, args)`` before ``forward``; it may return replacement args.

        Returns:
            a handle whose ``remove()`` unregisters the hook.
        """
        return _add_hook(self._forward_pre_hooks, hook)

    def register_forward_hook(self, hook):
        """Call ``hook(module, args, output)`` after ``forward``; it may return a replacement output.

        A lesson uses this to look at (or count the bytes of) each layer's activations.

        Returns:
            a handle whose ``remove()`` unregisters the hook.
        """
        return _add_hook(self._forward_hooks, hook)

    # ----------------------------------------------------------- traversal

    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or (remove_duplicate and id(v) in memo):
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield module_prefix + ("." if module_prefix else "") + k, v

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """(name, Parameter) pairs: this module's own first, then each child's, depth first.

        A parameter shared by two modules is yielded once (the first name).
        """
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse,
                                   remove_duplicate)

    def parameters(self, recurse=True):
        """The parameters, in ``named_parameters`` order (a generator, as in PyTorch)."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """(name, tensor) pairs of the registered buffers, in ``named_parameters`` order."""
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                   remove_duplicate)

    def buffers(self, recurse=True):
        """The buffers (a generator)."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_children(self):
        """(name, module) pairs of the direct children, each module once."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def children(self):
        """The direct children (a generator)."""
        for _, module in self.named_children():
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """(name, module) pairs of the whole tree, this module first with name ``""``."""
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def modules(self):
        """Every module of the tree, this one first (a generator)."""
        for _, module in self.named_modules():
            yield module

    def apply(self, fn):
        """Call ``fn`` on every child (recursively) and then on this module; returns self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ----------------------------------------------------------- modes

    def train(self, mode=True):
        """Set ``training`` on this module and all below it; returns self.

        Raises:
            ValueError: "training mode is expected to be boolean".
        """
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        """``train(False)``: evaluation mode (for dropout and batch norm; recording is NOT switched off)."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Set ``requires_grad`` of every parameter; returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all parameters: to None (default), or to zeros in place.

        Source: ``torch.nn.Module.zero_grad``.
        """
        for p in self.parameters():
            if p._grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g = p._grad
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                # In place on the array (PyTorch: p.grad.zero_()).
                g._data[...] = 0
                g._shared_vc()[0] += 1

    def _apply_dtype(self, dtype):
        from ..._dtype import as_dtype

        npd = as_dtype(dtype).np
        for module in self.modules():
            for tensors in (module._parameters, module._buffers):
                for t in tensors.values():
                    if t is not None and t._data.dtype.kind == "f" and t._data.dtype != npd:
                        # PyTorch's ``param.data = param.data.to(dtype)``: the
                        # Parameter object stays, its values are replaced.
                        t._data = t._data.astype(npd)
                        if t._grad is not None:
                            t._grad = Tensor._make(t._grad._data.astype(npd))
        return self

    def double(self):
        """Convert floating parameters and buffers to float64 in place; returns self."""
        return self._apply_dtype("double")

    def float(self):
        """Convert floating parameters and buffers to float32 in place; returns self."""
        return self._apply_dtype("float")

    def to(self, *args, **kwargs):
        """Move and/or convert parameters and buffers in place; returns self (``Module.to``).

        ``to(device)``, ``to(dtype)``, ``to(device, dtype)``, ``to(tensor)``
        and the keywords ``device=``, ``dtype=``: a dtype converts the
        floating parameters and buffers; the device must be the CPU.

        Raises:
            AssertionError: "Torch not compiled with CUDA enabled" for CUDA.
            TypeError: "nn.Module.to only accepts floating point or complex dtypes, but got
                desired dtype=torch.int64" for a non-floating dtype.
        """
        from ..._device import check
        from ..._dtype import as_dtype, dtype
        from ...tensor import Tensor

        dev, dt = kwargs.get("device"), kwargs.get("dtype")
        for a in args:
            if isinstance(a, Tensor):
                dt = a.dtype
            elif isinstance(a, dtype):
                dt = a
            elif not isinstance(a, bool):
                dev = a
        if dev is not None:
            check(dev)
        if dt is None:
            return self
        dt = as_dtype(dt)
        if not dt.is_floating_point:
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got "
                            f"desired dtype={dt!r}")
        return self._apply_dtype(dt)

    def cpu(self):
        """Returns self: parameters already live on the CPU (``Module.cpu``)."""
        return self

    def cuda(self, device=None):
        """Fails as a CPU-only PyTorch build fails (``Module.cuda``).

        Raises:
            AssertionError: "Torch not compiled with CUDA enabled".
        """
        raise AssertionError("Torch not compiled with CUDA enabled")

    # ----------------------------------------------------------- state

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()

    def state_dict(self, destination=None, prefix="", keep_vars=False):
        """Every parameter and persistent buffer by its dotted name (``Module.state_dict``).

        Returns:
            OrderedDict of name -> tensor.  The tensors are ``detach()``-ed:
            they share memory with the parameters, so a later optimizer step
            changes them too (copy them to keep a snapshot), as in PyTorch.
        """
        if destination is None:
            destination = OrderedDict()
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        return destination

    def _load_from_state_dict(self, state_dict, prefix, missing_keys, unexpected_keys,
                              error_msgs):
        persistent = {k: v for k, v in self._buffers.items()
                      if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in {**self._parameters, **persistent}.items()
                       if v is not None}
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(value)}"
                )
                continue
            if value.shape != param.shape:
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {_size(value.shape)} "
                    f"from checkpoint, the shape in current model is {_size(param.shape)}."
                )
                continue
            with no_grad():
                # PyTorch: param.copy_(value) under no_grad.  Written into the
                # parameter's own array so the Parameter object (held by
                # optimizers) keeps its identity; the write is counted.
                param._data[...] = value._data
                param._shared_vc()[0] += 1
        for key in state_dict:
            if key.startswith(prefix):
                parts = key[len(prefix):].split(".", 1)
                if len(parts) > 1:
                    if parts[0] not in self._modules:
                        unexpected_keys.append(key)
                elif parts[0] not in local_state:
                    unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True):
        """Copy values from ``state_dict`` into the parameters and buffers, by name.

        Args:
            state_dict (Mapping): as made by ``state_dict()``.
            strict (bool): raise if a key is missing or unexpected (default).

        Returns:
            ``_IncompatibleKeys(missing_keys=[...], unexpected_keys=[...])``,
            printing ``<All keys matched successfully>`` when both are empty.

        Raises:
            RuntimeError: PyTorch's "Error(s) in loading state_dict for
                Linear:\\n\\tMissing key(s) in state_dict: "bias". ..." listing
                missing keys, unexpected keys and shape mismatches (the
                matching entries are still copied, as in PyTorch).
            TypeError: "Expected state_dict to be dict-like, got <class ...>.".
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        state_dict = OrderedDict(state_dict)

        def load(module, local_state_dict, prefix=""):
            module._load_from_state_dict(local_state_dict, prefix, missing_keys,
                                         unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state = {k: v for k, v in local_state_dict.items()
                                   if k.startswith(child_prefix)}
                    load(child, child_state, child_prefix)

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ----------------------------------------------------------- printing

    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """The text inside the parentheses of ``repr`` (e.g. ``in_features=2, ...``); "" by default."""
        return ""

    def __repr__(self):
        extra_lines = []
        extra = self.extra_repr()
        if extra:
            extra_lines = extra.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            child_lines.append("(" + key + "): " + _addindent(repr(module), 2))
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"
