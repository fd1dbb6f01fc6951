"""How the modules inside ``variants/`` import each other (read with ``ast``, nothing run).

- Move generation takes its target mask as an argument (``to_mask``): no variant module
  reaches for a private name of another module (as the thread-local ``_SCOPE`` and the
  counter ``_ACTIVE`` of ``base`` once were).
- Words read the rules one way: a rules module (``variants/<key>.py``) imports its words
  module (``variants/words/<key>.py``) at the top; a words module imports no rules module
  at all, and no import between the two sits inside a function.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import variants

PACKAGE = Path(variants.__file__).resolve().parent

# Helpers of the machinery under the variants that its own modules share (the dice
# stand-in for looking ahead, the table of plain moves). No rules or words module may
# import them.
SHARED_PRIVATE = {
    ("variants.notation", "_no_roll"),
    ("variants.base", "_no_roll"),
    ("variants.tables", "_ROWS"),
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def rules_modules() -> set[str]:
    """The rules module of every registered variant."""
    return {f"variants.{key}" for key in variants.names()}


def words_modules() -> set[str]:
    return {name for name in modules() if name.startswith("variants.words.")}


class Import:
    """One import: the importing module, what it names, and where it stands."""

    def __init__(self, importer: str, target: str, names: tuple[str, ...], local: bool) -> None:
        self.importer = importer
        self.target = target  # the module imported from
        self.names = names
        self.local = local  # inside a function or a class, not at the top of the module

    def reaches(self) -> set[str]:
        """The modules this import loads: the target, and any name that is a submodule."""
        return {self.target} | {f"{self.target}.{n}" for n in self.names}

    def __repr__(self) -> str:
        where = "inside a function" if self.local else "at the top"
        return f"{self.importer}: from {self.target} import {', '.join(self.names)} ({where})"


def resolve(importer: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = importer.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(name: str, path: Path) -> Iterator[Import]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_package = path.name == "__init__.py"

    def walk(node: ast.AST, local: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            inner = local or isinstance(
                child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda
            )
            if isinstance(child, ast.ImportFrom):
                names = tuple(a.name for a in child.names)
                yield Import(name, resolve(name, is_package, child), names, local)
            elif isinstance(child, ast.Import):
                for a in child.names:
                    yield Import(name, a.name, (), local)
            else:
                yield from walk(child, inner)

    yield from walk(tree, False)


def all_imports() -> list[Import]:
    return [i for name, path in modules().items() for i in imports_of(name, path)]


def test_the_checks_see_the_modules() -> None:
    # The checks below read real files: the rules and words modules are found, and the
    # parser sees the imports a rules module is known to make.
    assert rules_modules() <= set(modules())
    assert words_modules()
    found = {(i.importer, i.target) for i in all_imports()}
    assert ("variants.chess", "variants.base") in found
    assert ("variants.piece_words", "variants.base") in found  # the one inside a function
    assert any(i.local for i in all_imports() if i.importer == "variants.piece_words")


def test_no_variant_module_imports_a_private_name_of_another() -> None:
    paired = rules_modules() | words_modules()
    bad = []
    for i in all_imports():
        if not i.target.startswith("variants"):
            continue
        for n in i.names:
            if not n.startswith("_"):
                continue
            if (i.target, n) in SHARED_PRIVATE and i.importer not in paired:
                continue
            bad.append(i)
    assert not bad, bad


def test_no_module_keeps_a_hidden_move_generation_scope() -> None:
    # The target mask is an argument: nothing in the package keeps one per thread.
    for name, path in modules().items():
        text = path.read_text(encoding="utf-8")
        assert "threading.local" not in text, name
        assert "_SCOPE" not in text and "_ACTIVE" not in text, name


def test_words_modules_import_no_rules_module() -> None:
    rules = rules_modules()
    bad = [i for i in all_imports() if i.importer in words_modules() and i.reaches() & rules]
    assert not bad, bad


def test_rules_import_their_words_at_the_top_only() -> None:
    words = words_modules()
    imports = all_imports()
    local = [i for i in imports if i.local and i.reaches() & words]
    assert not local, local
    for w in words:
        key = w.rsplit(".", 1)[1]
        rules = f"variants.{key}"
        if rules not in rules_modules():
            continue
        top = [i for i in imports if i.importer == rules and w in i.reaches() and not i.local]
        assert top, f"{rules} does not import {w} at the top"
