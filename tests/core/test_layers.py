"""The package's layers: each folder one floor (FLOORS, bottom to top: the core, measure/,
teach/, publish/), imports pointing down only, no circle. Every import counts, at module level
and inside functions alike: a deferred import is still a dependency."""

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "kernels"
FLOORS = ("", "measure", "teach", "publish")   # bottom to top
MODULES = {".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__"):
           p for p in sorted(PACKAGE.rglob("*.py"))}


def imports(name: str) -> set[str]:
    """The kernels modules that module ``name`` imports."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "kernels"}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            base = base[:len(base) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            if not target.startswith("kernels"):
                continue
            for alias in node.names:   # `from . import bench` names a module
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in MODULES else target)
    return {m for m in found if m in MODULES and m != name}


def floor(name: str) -> int:
    parts = name.split(".")
    return FLOORS.index(parts[1]) if len(parts) > 1 and parts[1] in FLOORS else 0


GRAPH = {name: imports(name) for name in MODULES}


def test_every_module_sits_on_a_floor():
    for name in MODULES:
        parts = name.split(".")
        assert len(parts) < 3 or parts[1] in FLOORS, name   # a floor may hold a folder


def test_the_readme_names_every_module_on_its_floor():
    """The README's table of floors names each module in its floor's row (a folder of its own,
    like teach/check/, by the folder)."""
    readme = (PACKAGE.parent / "README.md").read_text()
    rows = {row.split("|")[2].strip(" `"): row for row in readme.splitlines()
            if row.startswith("| ") and "`kernels/" in row.split("|")[2]}
    for name in MODULES:
        parts = name.split(".")[1:]
        if not parts or parts[-1] in FLOORS or parts[0] == "teach" and len(parts) > 2:
            continue
        folder = f"kernels/{parts[0]}/" if len(parts) > 1 else "kernels/"
        stem = parts[-1] if len(parts) > 1 else f"{parts[-1]}.py"
        assert f"`{stem}" in rows[folder], f"README's {folder} row does not name {name}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_point_down(name):
    up = sorted(m for m in GRAPH[name] if floor(m) > floor(name))
    assert not up, f"{name} (floor {FLOORS[floor(name)] or 'core'}) imports from above: {up}"


def test_no_circle():
    """No cycle among all modules (the package's __init__ files excepted: they gather the
    public names of the floor below them)."""
    graph = {n: {m for m in deps if not MODULES[m].name == "__init__.py"}
             for n, deps in GRAPH.items() if MODULES[n].name != "__init__.py"}
    try:
        tuple(TopologicalSorter(graph).static_order())
    except CycleError as e:
        pytest.fail("import circle: " + " -> ".join(reversed(e.args[1])))   # each imports the next
