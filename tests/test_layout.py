"""The package's shape: no import cycles (lazy imports count), and nothing imports a layer above its own."""

import ast
import re
from pathlib import Path

import pytest

ANKIT = Path(__file__).resolve().parent.parent / "ankit"

# Layers, lowest first: a module may import its own layer's modules and anything lower, never higher.
# A package is named with a trailing slash and covers every module in it. A new module goes in the lowest
# layer that holds everything it imports.
LAYERS = [
    ["ankit", "records", "errors", "protocols", "paths", "wording", "names", "docs/"],  # docs: the guide's files
    ["safety/"],
    ["claude/"],  # Claude Code's file formats, read into the records settings merges as layers
    ["settings/"],  # settings writes its files (trust, the TOML editor) through safety's state files
    ["hooks/"],  # the tool runner and the turn run hooks; hooks read their settings and Claude Code's names
    ["tooling/", "usage/", "context/", "toolkit/"],  # tooling's Tool record is what discovery, skills and mcp build on;
    # toolkit is the stable API tool modules import (nothing in ankit imports it)
    ["discovery/", "skills/", "agents/", "mcp/", "storage/", "providers/", "routines/", "codemode/"],
    ["turn/"],
    ["terminal/", "acp/"],  # acp: the Agent Client Protocol, another face of the same session
    ["cli/", "__main__"],  # -p and the subcommands show tool lines and listings as the REPL does (terminal)
]


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name."""
    found = {}
    for path in ANKIT.rglob("*.py"):
        parts = path.relative_to(ANKIT.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules that a module imports, at the top or inside a function, and their packages."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            targets |= {f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names}
    found = set()
    for target in targets & set(known):
        found.add(target)
        parent = target.rpartition(".")[0]
        while parent and parent != "ankit" and not name.startswith(parent + "."):
            found.add(parent)  # importing ankit.x.y runs ankit/x/__init__.py first
            parent = parent.rpartition(".")[0]
    return found - {name}


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on.add(node)
        for other in edges[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while not component or component[-1] != node:
                component.append(stack.pop())
                on.discard(component[-1])
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def layer(name: str) -> int:
    """The layer a module belongs to."""
    parts = name.split(".")
    unit = "ankit" if len(parts) == 1 else parts[1] + "/" if (ANKIT / parts[1]).is_dir() else parts[1]
    for number, units in enumerate(LAYERS):
        if unit in units:
            return number
    raise AssertionError(f"{name} is in no layer: add {unit!r} to LAYERS in tests/test_layout.py")


def test_no_import_cycles_lazy_imports_included():
    assert cycles(graph()) == []


def test_the_cycle_finder_finds_one():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_nothing_imports_a_higher_layer():
    upward = [f"{name} -> {other}" for name, others in sorted(graph().items()) for other in sorted(others)
              if layer(other) > layer(name)]
    assert upward == []


def test_every_subpackage_says_what_lives_there_and_what_it_may_import():
    for init in sorted(ANKIT.glob("*/__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        assert doc and ("May import" in doc or "may import" in doc), init


def test_every_module_has_a_docstring():
    missing = [str(p.relative_to(ANKIT.parent)) for p in sorted(ANKIT.rglob("*.py"))
               if p.name != "__init__.py" and not ast.get_docstring(ast.parse(p.read_text()))]
    assert missing == []


def test_every_dataclass_has_a_docstring():
    """One without gets one made from inspect.signature as its module is imported: start-up time for nothing."""
    missing = [f"{p.relative_to(ANKIT.parent)}:{node.name}" for p in sorted(ANKIT.rglob("*.py"))
               for node in ast.walk(ast.parse(p.read_text())) if isinstance(node, ast.ClassDef)
               and any("dataclass" in ast.unparse(d) for d in node.decorator_list) and not ast.get_docstring(node)]
    assert missing == []


def unit(name: str) -> str:
    """The package a module belongs to ("ankit.turn" for ankit.turn.session), or the module itself at the top."""
    parts = name.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 and (ANKIT / parts[1]).is_dir() else name


def test_no_two_packages_import_each_other():
    edges = {(unit(name), unit(other)) for name, others in graph().items() for other in others
             if unit(name) != unit(other)}
    assert sorted(f"{a} <-> {b}" for a, b in edges if (b, a) in edges and a < b) == []


def test_no_module_is_over_500_lines():
    long = [f"{p.relative_to(ANKIT.parent)}: {n}" for p in sorted(ANKIT.rglob("*.py"))
            if (n := len(p.read_text().splitlines())) > 500]
    assert long == [], "split it by role"


LAZY_IMPORTS = 40  # imports inside functions: only those that keep --version and the listings starting fast


def lazy_imports() -> list[str]:
    """Every import statement inside a function, as path:line."""
    found = []
    for path in sorted(ANKIT.rglob("*.py")):
        for function in ast.walk(ast.parse(path.read_text())):
            if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found += [f"{path.relative_to(ANKIT.parent)}:{node.lineno}" for node in ast.walk(function)
                          if isinstance(node, (ast.Import, ast.ImportFrom))]
    return sorted(set(found))


def test_imports_go_at_the_top_unless_start_up_needs_them_late():
    found = lazy_imports()
    assert len(found) <= LAZY_IMPORTS, f"{len(found)} imports inside functions: move those start-up does not need " \
                                       "to the top (measure with tests/bench/bench_startup.py)"


def methods(path: Path, name: str) -> list[str]:
    """The functions a class defines in its body (properties and dunder methods count)."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return [f.name for f in node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
    raise AssertionError(f"no class {name} in {path}")


@pytest.mark.parametrize("path, name", [("turn/session.py", "Session"), ("mcp/servers.py", "McpManager")])
def test_the_round_loop_keeps_to_its_role(path, name):
    assert len(methods(ANKIT / path, name)) <= 20, "split it by role: the conversation, the hooks, ..."


def test_the_tool_record_imports_only_the_bottom_vocabulary():
    assert graph()["ankit.tooling.tool"] <= {"ankit.records", "ankit.errors"}


def test_discovery_and_mcp_name_the_tool_without_the_runner():
    runner = [name for name, others in sorted(graph().items())
              if name.startswith(("ankit.discovery", "ankit.mcp")) and "ankit.tooling.toolbox" in others]
    assert runner == []


def string_constants(path: Path) -> set[str]:
    return {node.value for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)}


def test_one_module_names_claude_codes_tools():
    claude = {"Bash", "BashOutput", "KillShell", "Read", "Write", "Edit", "MultiEdit", "Glob", "Grep", "LS",
              "WebFetch", "WebSearch", "TodoWrite", "Task", "NotebookEdit"}
    naming = [str(p.relative_to(ANKIT)) for p in sorted(ANKIT.rglob("*.py")) if string_constants(p) & claude]
    assert naming == ["claude/toolnames.py"], "read Claude Code's tool names from the one table"


def written(pattern: str) -> dict[str, int]:
    """The package's modules whose text matches pattern, with how many times."""
    found = {str(p.relative_to(ANKIT)): len(re.findall(pattern, p.read_text())) for p in sorted(ANKIT.rglob("*.py"))}
    return {name: count for name, count in found.items() if count}


def test_one_module_starts_processes():
    """spawn() (safety/processes.py): contained, its own session, tracked, ended with ankit."""
    starts = written(r"subprocess\.(?:run|call|check_call|check_output|getoutput)\(|\bPopen\(|os\.(?:system|popen|spawn\w*)\(")
    assert set(starts) == {"safety/processes.py"}, starts


def test_one_module_builds_http_openers():
    """web.send (safety/web.py): no credentials across redirects, the loopback rule, timeouts and proxies."""
    openers = written(r"build_opener\(|urlopen\(|HTTPS?Connection\(|\.Request\(")
    assert set(openers) == {"safety/web.py"}, openers


def _walks_and_hashes(function: ast.AST) -> bool:
    """Whether a function both walks a folder (rglob, os.walk) and hashes (hashlib) in its own body."""
    names = {node.attr for node in ast.walk(function) if isinstance(node, ast.Attribute)}
    hashes = "hashlib" in {node.id for node in ast.walk(function) if isinstance(node, ast.Name)}
    return hashes and bool(names & {"rglob", "walk"})


def test_one_module_computes_folder_digests():
    """safety/digests.py: every file of a folder or plugin that trust covers, none left out by a cap."""
    digesting = sorted({str(p.relative_to(ANKIT)) for p in ANKIT.rglob("*.py")
                        for f in ast.walk(ast.parse(p.read_text()))
                        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and _walks_and_hashes(f)})
    assert digesting == ["safety/digests.py"]


def test_one_function_sends_requests_to_the_model():
    """Meter.stream (usage/meter.py): max_cost checked before every request, its cost recorded after."""
    assert set(written(r"\.stream\((?:request|self\.request|req)\b")) == {"usage/meter.py"}


def test_only_the_boundary_makes_foreign_text_fit_to_show():
    """Below the screens (terminal/, cli/, acp/, which fit text to a width), what another program wrote reaches
    the screen or the model through outside() (safety/text.py) alone: no variant of it anywhere else."""
    found = written(r"\bvisible(?:_line)?\(|\.scrub\.text\(visible")
    assert sorted(n for n in found if not n.startswith(("safety/", "terminal/", "cli/", "acp/"))) == []
