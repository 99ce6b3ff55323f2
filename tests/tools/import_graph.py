"""minigrad's own imports, read from the source with ``ast`` (nothing is imported).

Used by ``tests/test_import_layers.py``; also a command for contributors:

    python tests/tools/import_graph.py [--all]

prints the module-level import circles (``--all``: imports inside functions
and imports of package faces counted too), their sizes, and the number of
import statements inside functions.

An import *inside a function* runs when the function is called; one at module
level (including inside a module-level ``if`` / ``try``, or a class body) runs
when the module is imported.  Circles are found with Tarjan's algorithm.
"""

import ast
import pathlib
import sys
from dataclasses import dataclass

PACKAGE = "minigrad"
ROOT = pathlib.Path(__file__).resolve().parents[2] / PACKAGE


@dataclass(frozen=True)
class Import:
    """One imported name: ``source`` imports ``target`` (a module of the package) at ``line``."""

    source: str
    target: str
    line: int
    in_function: bool


def modules(root=ROOT):
    """{dotted module name: path} for every ``.py`` file under ``root`` (a package's face is its own name)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _base(module, is_package, level, name):
    """The module a ``from`` import names (``from ..ops import x`` in minigrad.autograd.graph -> minigrad.ops)."""
    if not level:
        return name or ""
    parts = module.split(".") if is_package else module.split(".")[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    return ".".join(parts + ([name] if name else []))


def _owner(name, mods):
    """The nearest module of the package that ``name`` lies in (``minigrad.ops.mul`` -> minigrad.ops)."""
    while name not in mods and "." in name:
        name = name.rsplit(".", 1)[0]
    return name if name in mods else None


class _Visitor(ast.NodeVisitor):
    def __init__(self, module, is_package, mods):
        self.module, self.is_package, self.mods = module, is_package, mods
        self.depth = 0  # how many function bodies enclose the current node
        self.found = []
        self.statements_in_functions = 0

    def _function(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def _add(self, node, names):
        targets = [_owner(n, self.mods) for n in names
                   if n == PACKAGE or n.startswith(PACKAGE + ".")]
        targets = [t for t in targets if t is not None and t != self.module]
        if targets and self.depth:
            self.statements_in_functions += 1
        for t in targets:
            self.found.append(Import(self.module, t, node.lineno, bool(self.depth)))

    def visit_Import(self, node):
        self._add(node, [alias.name for alias in node.names])

    def visit_ImportFrom(self, node):
        base = _base(self.module, self.is_package, node.level, node.module)
        # ``from pkg import sub`` imports the submodule ``pkg.sub`` when there is one
        self._add(node, [f"{base}.{a.name}" if f"{base}.{a.name}" in self.mods else base
                         for a in node.names])


def scan(root=ROOT):
    """Every intra-package import: (list of ``Import``, number of import statements inside functions)."""
    mods = modules(root)
    imports, in_functions = [], 0
    for name, path in mods.items():
        visitor = _Visitor(name, path.name == "__init__.py", mods)
        visitor.visit(ast.parse(path.read_text(encoding="utf-8")))
        imports += visitor.found
        in_functions += visitor.statements_in_functions
    return imports, in_functions


def circles(imports, all_imports=False):
    """The import circles (strongly connected components of two or more modules), each sorted.

    By default only module-level imports count, and not those of a package's
    face (``from .. import ops`` runs ``ops/__init__`` but a face re-exports,
    it is not where the circle lies); ``all_imports=True`` counts every import.
    """
    mods = modules()
    faces = {m for m, p in mods.items() if p.name == "__init__.py"}
    graph = {m: set() for m in mods}
    for imp in imports:
        if all_imports or (not imp.in_function and imp.target not in faces):
            graph[imp.source].add(imp.target)

    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def strongconnect(v):  # Tarjan's algorithm, iteratively (no recursion limit)
        work = [(v, iter(sorted(graph[v])))]
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        while work:
            node, edges = work[-1]
            for w in edges:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            strongconnect(v)
    return sorted(found, key=lambda c: (-len(c), c))


if __name__ == "__main__":
    everything = "--all" in sys.argv[1:]
    imports, in_functions = scan()
    found = circles(imports, all_imports=everything)
    print(f"{len(modules())} modules; {in_functions} import statements inside functions")
    print("circles (" + ("all imports" if everything else "module level") + "):",
          [len(c) for c in found])
    for c in found:
        print("  ", ", ".join(c))
