"""Every refusal an engine can send reaches a phone in its language (issue [10] #8).

The codes are found statically in engine/ with ``ast``: each GameError subclass's ``code`` (or its code template,
like the Crown's ``f"crown.error.{reason}"``), and at every ``raise`` of one of them, or call of a function that
raises one with a forwarded argument (the Crown's ``check``), the code it sends; an argument built in an f-string
from a parameter (``f"already_{kind}"``) is followed to every call that passes that parameter. ``TR.errorText``
(host/static/common.js) looks up a dotted code as it is (``crown.error.pact``) and any other as ``error.<code>``."""

from __future__ import annotations

import ast
from pathlib import Path

from host.i18n import catalog

ROOT = Path(__file__).resolve().parent.parent
BASE = "GameError"


def modules() -> dict[Path, ast.Module]:
    return {path: ast.parse(path.read_text(), str(path)) for path in sorted((ROOT / "engine").rglob("*.py"))}


def error_classes(trees: dict[Path, ast.Module]) -> dict[str, tuple[str, int | None]]:
    """Class name -> (code, None) for a fixed code, or (template with one "{}", index of the __init__ parameter,
    self excluded, that fills it)."""
    found: dict[str, tuple[str, int | None]] = {}
    parents: dict[str, str] = {}
    nodes: dict[str, ast.ClassDef] = {}
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.bases and isinstance(node.bases[0], ast.Name):
                parents[node.name] = node.bases[0].id
                nodes[node.name] = node
    if BASE in nodes:
        parents[BASE] = ""

    def is_error(name: str) -> bool:
        while name:
            if name == BASE:
                return True
            name = parents.get(name, "")
        return False

    def own_code(node: ast.ClassDef) -> tuple[str, int | None] | None:
        for item in node.body:
            if isinstance(item, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "code" for t in item.targets):
                assert isinstance(item.value, ast.Constant), ast.unparse(item)
                return item.value.value, None
            if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                params = [a.arg for a in item.args.args[1:]]
                for sub in ast.walk(item):
                    if isinstance(sub, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr == "code"
                                                           for t in sub.targets):
                        value = sub.value
                        assert isinstance(value, ast.JoinedStr), ast.unparse(sub)
                        holes = [v for v in value.values if isinstance(v, ast.FormattedValue)]
                        assert len(holes) == 1 and isinstance(holes[0].value, ast.Name), ast.unparse(sub)
                        template = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in value.values)
                        return template, params.index(holes[0].value.id)
        return None

    for name in nodes:
        if not is_error(name):
            continue
        current = name
        while current and own_code(nodes[current]) is None:
            current = parents.get(current, "")
        assert current, f"{name}: no code"
        found[name] = own_code(nodes[current])  # type: ignore[assignment]
    return found


def call_name(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def engine_codes() -> dict[str, set[str]]:
    """Every code an engine can send -> where it is raised."""
    trees = modules()
    classes = error_classes(trees)
    codes: dict[str, set[str]] = {}
    # function name -> (template, index of its parameter that fills it), for functions that forward a parameter
    forwarders: dict[tuple[Path, str], tuple[str, int]] = {}
    functions: dict[tuple[Path, str], ast.FunctionDef] = {}
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                functions.setdefault((path, node.name), node)

    def calls_of(path: Path, name: str) -> list[ast.Call]:
        """The calls of a function in its own module (engines do not share these helpers)."""
        return [n for n in ast.walk(trees[path]) if isinstance(n, ast.Call) and call_name(n) == name]

    def argument(call: ast.Call, function: ast.FunctionDef, index: int) -> ast.expr | None:
        params = [a.arg for a in function.args.args]
        method = bool(params) and params[0] == "self"
        position = index - (1 if method else 0)
        if position < len(call.args):
            return call.args[position]
        keyword = next((k.value for k in call.keywords if k.arg == params[index]), None)
        return keyword

    def values(expr: ast.expr | None, within: ast.FunctionDef | None, path: Path, depth: int = 0) -> list[str]:
        """The strings an argument can be; fails the test on anything it cannot follow."""
        assert expr is not None and depth < 5, "an error code built from something the test cannot follow"
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            return [expr.value]
        if isinstance(expr, ast.JoinedStr):
            results = [""]
            for part in expr.values:
                if isinstance(part, ast.Constant):
                    results = [r + part.value for r in results]
                else:
                    assert isinstance(part, ast.FormattedValue)
                    results = [r + v for r in results for v in values(part.value, within, path, depth + 1)]
            return results
        if isinstance(expr, ast.Name) and within is not None:
            params = [a.arg for a in within.args.args]
            assert expr.id in params, f"{ast.unparse(expr)} in {within.name} is not a parameter"
            index = params.index(expr.id)
            result = []
            for call in calls_of(path, within.name):
                result += values(argument(call, within, index), enclosing(call), path, depth + 1)
            assert result, f"{within.name} is never called"
            return result
        raise AssertionError(f"an error code built from {ast.unparse(expr)}")

    parent_of: dict[int, ast.FunctionDef] = {}  # node -> its innermost function (ast.walk reaches outer ones first)
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                for sub in ast.walk(node):
                    if sub is not node:
                        parent_of[id(sub)] = node

    def enclosing(node: ast.AST) -> ast.FunctionDef | None:
        return parent_of.get(id(node))

    def note(code: str, path: Path, node: ast.AST) -> None:
        codes.setdefault(code, set()).add(f"{path.relative_to(ROOT)}:{node.lineno}")

    for path, tree in trees.items():
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
                continue
            name = call_name(node.exc)
            if name not in classes:
                continue
            template, index = classes[name]
            if index is None:
                note(template, path, node)
                continue
            within = enclosing(node)
            params = [a.arg for a in within.args.args] if within else []
            arg = node.exc.args[index] if index < len(node.exc.args) else None
            if isinstance(arg, ast.Name) and within is not None and arg.id in params:
                forwarders[(path, within.name)] = (template, params.index(arg.id))  # like the Crown's check()
                continue
            for value in values(arg, within, path):
                note(template.format(value), path, node)
    for (path, name), (template, index) in forwarders.items():
        function = functions[(path, name)]
        for call in calls_of(path, name):
            for value in values(argument(call, function, index), enclosing(call), path):
                note(template.format(value), path, call)
    return codes


def message_key(code: str) -> str:
    """The catalog key TR.errorText looks up for a code."""
    return code if "." in code else f"error.{code}"


def test_the_static_search_finds_the_codes_it_must():
    codes = engine_codes()
    assert {"invalid_action", "illegal_action", "too_late", "invalid_settings"} <= set(codes)
    assert {"crown.error.pact", "crown.error.already_spy", "crown.error.already_hush"} <= set(codes)
    assert len([c for c in codes if c.startswith("crown.error.")]) >= 30


def test_every_engine_refusal_has_a_message_in_every_language():
    codes = engine_codes()
    english = catalog("en")
    for language in ("en", "fa", "ro"):
        messages = catalog(language)
        missing = {code: min(where) for code, where in codes.items() if message_key(code) not in messages}
        assert not missing, (language, missing)
        if language != "en":  # translated, not the English copied
            same = [code for code in codes if messages[message_key(code)] == english[message_key(code)]]
            assert not same, (language, same)
