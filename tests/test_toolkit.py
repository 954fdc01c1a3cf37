"""ankit.toolkit: each bundled tool module loads and works copied alone into an empty tools folder, and uses nothing
of ankit but the toolkit's stable names."""

import ast
import functools
import importlib
import inspect
import json
import shutil
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import ankit.toolkit
from ankit.errors import ToolError
from ankit.records import ToolCall, ToolResult
from ankit.tooling.loader import load_tools, module_paths
from ankit.tooling.toolbox import Tool, ToolContext, run_call
from tests.conftest import FIXTURES
from tests.helpers import ROOT, TOOLS_DIR, Approver, bundled

BUNDLED = [path for path, _ in module_paths(TOOLS_DIR)]


def alone(source: Path, folder: Path) -> Tool:
    """The tool of a bundled module copied by itself into an empty tools folder, through the real loader."""
    folder.mkdir(parents=True, exist_ok=True)
    assert not any(folder.iterdir())
    shutil.copy(source, folder / source.name)
    tools, problems = load_tools([folder])
    assert problems == [] and len(tools) == 1, problems
    return tools[0]


def copied(tmp_path: Path, group: str, module: str) -> Tool:
    return alone(TOOLS_DIR / group / f"{module}.py", tmp_path / "user-tools" / module)


def run(tool: Tool, args: dict, cwd: Path, **context) -> ToolResult:
    return run_call(ToolCall("c1", tool.name, json.dumps(args)), tool, ToolContext(cwd=cwd, **context), Approver())


def works(tool: Tool, args: dict, cwd: Path, **context) -> str:
    result = run(tool, args, cwd, **context)
    assert not result.is_error, result.content
    return result.content


# --- every module, alone ----------------------------------------------------------------------------------------

def test_the_bundled_tools_are_all_here():
    assert len(BUNDLED) >= 42 and not (TOOLS_DIR / "_common").exists()


@pytest.mark.parametrize("source", BUNDLED, ids=[p.stem for p in BUNDLED])
def test_each_bundled_tool_module_loads_copied_alone_into_an_empty_tools_folder(source, tmp_path):
    tool = alone(source, tmp_path / "tools")
    original = next(t for t in bundled()[0].values() if Path(t.source) == source)
    assert (tool.name, tool.parameters, tool.read_only) == (original.name, original.parameters, original.read_only)


# --- a few of them, run for real from their copies --------------------------------------------------------------

def test_copied_file_tools_write_read_edit_patch_and_search(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    works(copied(tmp_path, "edit", "write_file"), {"path": "notes/a.txt", "content": "alpha\nbeta\n"}, work)
    assert "1\talpha" in works(copied(tmp_path, "core", "read_file"), {"path": "notes/a.txt"}, work)
    works(copied(tmp_path, "edit", "edit_file"), {"path": "notes/a.txt", "old_string": "beta", "new_string": "gamma"}, work)
    patch = "--- a/notes/a.txt\n+++ b/notes/a.txt\n@@ -1,2 +1,2 @@\n-alpha\n+delta\n gamma\n"
    works(copied(tmp_path, "edit", "apply_patch"), {"patch": patch}, work)
    assert (work / "notes" / "a.txt").read_text() == "delta\ngamma\n"
    search = copied(tmp_path, "core", "search_text")
    assert works(search, {"pattern": r"^g\w+a$"}, work) == "notes/a.txt:2: gamma"  # in its forked deadline child
    refused = run(search, {"pattern": "("}, work)
    assert refused.is_error and refused.content.startswith("Error: invalid regular expression")  # a ToolError


def test_a_copied_run_command_runs_a_command(tmp_path):
    assert "hello from a copy" in works(copied(tmp_path, "shell", "run_command"), {"command": "echo hello from a copy"},
                                        tmp_path)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_copied_git_tools_read_a_real_repository(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    for argv in (["init", "-q"], ["config", "user.email", "t@example.com"], ["config", "user.name", "T"]):
        subprocess.run(["git", *argv], cwd=repo, check=True)
    (repo / "a.txt").write_text("one\n")
    works(copied(tmp_path, "git", "git_commit"), {"message": "first commit", "paths": ["a.txt"]}, repo)
    assert "first commit" in works(copied(tmp_path, "git", "git_log"), {}, repo)
    outside = run(copied(tmp_path, "git", "git_status"), {}, tmp_path / "user-tools")
    assert outside.is_error and "not inside a git repository" in outside.content


def test_copied_memory_tools_keep_and_find_a_fact(tmp_path):
    data = tmp_path / "data"
    works(copied(tmp_path, "memory", "remember"), {"fact": "The staging database is on port 5433"}, tmp_path,
          data_dir=data)
    assert "port 5433" in works(copied(tmp_path, "memory", "recall"), {"query": "staging"}, tmp_path, data_dir=data)


def test_a_copied_web_fetch_reads_a_local_page(tmp_path):
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("<html><title>Local</title><h1>Hello</h1><p>from a page</p></html>")

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=tmp_path / "site"))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
        page = works(copied(tmp_path, "web", "web_fetch"), {"url": url}, tmp_path)
    finally:
        server.shutdown()
        server.server_close()
    assert "Title: Local" in page and "# Hello" in page and "from a page" in page


def test_a_module_asking_the_toolkit_for_a_name_it_lacks_is_reported_and_skipped(tmp_path):
    folder = tmp_path / "tools"
    folder.mkdir()
    (folder / "wants.py").write_text("from ankit.toolkit import telepathy\nname = 'wants'\n")
    shutil.copy(TOOLS_DIR / "core" / "get_time.py", folder / "get_time.py")
    tools, problems = load_tools([folder])
    assert [t.name for t in tools] == ["get_time"]
    assert len(problems) == 1 and "wants.py" in problems[0] and "telepathy" in problems[0]


def test_the_guide_s_ten_line_tool_loads_and_runs(tmp_path):
    readme = (ROOT / "ankit" / "docs" / "tools.md").read_text()
    section = readme[readme.index("## Writing a tool\n"):]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert len(code.splitlines()) == 10
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "count_lines.py").write_text(code)
    tools, problems = load_tools([tmp_path / "tools"])
    assert problems == [] and [t.name for t in tools] == ["count_lines"]
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\n")
    assert works(tools[0], {"path": "a.txt"}, tmp_path) == "a.txt: 3 lines"
    missing = run(tools[0], {"path": "b.txt"}, tmp_path)
    assert missing.is_error and missing.content.startswith("Error: no such file: b.txt (did you mean a.txt?)")


def test_the_write_ankit_tool_skill_s_example_loads_and_runs(tmp_path):
    skill = (ROOT / "skills" / "write-ankit-tool" / "SKILL.md").read_text()
    code = skill.split("```python\n", 1)[1].split("```", 1)[0]
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "count_lines.py").write_text(code)
    tools, problems = load_tools([tmp_path / "tools"])
    assert problems == [] and [t.name for t in tools] == ["count_lines"]
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n")
    assert works(tools[0], {"pattern": "*.py"}, tmp_path).startswith("2 lines in 1 files")
    assert run(tools[0], {"pattern": "*.rs"}, tmp_path).content.startswith("Error: no file matches '*.rs'")


# --- the stable surface -----------------------------------------------------------------------------------------

def toolkit_modules() -> dict[str, object]:
    return {name: importlib.import_module(f"ankit.toolkit.{name}") for name in ankit.toolkit.__all__ if name not in ("ToolError", "ToolOutput")}


def test_every_stable_name_exists_and_the_one_error_is_ankits():
    assert ankit.toolkit.ToolError is ToolError and ankit.toolkit.ToolOutput("t", 1).value == 1
    for name, module in toolkit_modules().items():
        assert module.__all__ and [n for n in module.__all__ if not hasattr(module, n)] == [], name
        assert module.__doc__, name


def test_tool_modules_use_the_standard_library_and_the_toolkit_s_stable_names_only():
    stable = {name: set(module.__all__) for name, module in toolkit_modules().items()}
    wrong = []
    for path in BUNDLED:
        tree = ast.parse(path.read_text())
        aliases = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                wrong += [f"{path.name}: import {a.name}" for a in node.names if a.name.split(".")[0] not in sys.stdlib_module_names]
            elif isinstance(node, ast.ImportFrom) and node.module == "ankit.toolkit":
                wrong += [f"{path.name}: {a.name}" for a in node.names if a.name not in ankit.toolkit.__all__]
                aliases |= {a.asname or a.name: a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and (node.level or node.module.split(".")[0] not in sys.stdlib_module_names):
                wrong.append(f"{path.name}: from {node.module} import ...")
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
                module = aliases[node.value.id]
                if module in stable and node.attr not in stable[module]:
                    wrong.append(f"{path.name}: {module}.{node.attr}")
    assert wrong == []


def parameters(obj) -> list[str] | None:
    """A function's or class's parameters as ['ctx', 'raw', 'limit=', '*args', '*,timeout='], None for a value."""
    if not callable(obj):
        return None
    marks = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**",
             inspect.Parameter.KEYWORD_ONLY: "*,"}
    found = inspect.signature(obj).parameters.values()
    return [marks.get(p.kind, "") + p.name + ("=" if p.default is not p.empty else "") for p in found if p.name != "self"]


def surface() -> dict[str, list[str] | None]:
    """Every stable name with its parameters, and the public methods of its classes."""
    found = {}
    for module_name, module in toolkit_modules().items():
        for name in module.__all__:
            obj = getattr(module, name)
            found[f"{module_name}.{name}"] = parameters(obj)
            if inspect.isclass(obj):
                found |= {f"{module_name}.{name}.{attr}": parameters(getattr(obj, attr)) for attr in vars(obj)
                          if not attr.startswith("_") and (callable(vars(obj)[attr]) or isinstance(vars(obj)[attr], property))}
    return found


def test_the_stable_surface_only_grows():
    # tests/fixtures/toolkit_api.json records the surface as released; a name may be added to it, a keyword argument
    # with a default may be added to a function, nothing recorded may go or change
    recorded, now = json.loads((FIXTURES / "toolkit_api.json").read_text()), surface()
    broken = []
    for name, params in recorded.items():
        if name not in now:
            broken.append(f"{name} is gone")
        elif params is not None and (now[name] is None or now[name][:len(params)] != params
                                     or any(not p.endswith("=") and not p.startswith("*") for p in now[name][len(params):])):
            broken.append(f"{name}({', '.join(params)}) is now ({', '.join(now[name] or [])})")
    assert broken == []


def ankit_imports(path: Path) -> list[str]:
    """The ankit modules a file imports, at the top or inside a function."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            found.append(node.module or "")
    return [name for name in found if name == "ankit" or name.startswith("ankit.")]


def test_the_toolkit_is_a_leaf_over_ankit_s_lowest_layers():
    allowed = ("ankit.errors", "ankit.records", "ankit.toolkit", "ankit.safety", "ankit.settings")
    below = [f"{path.name}: {name}" for path in sorted((ROOT / "ankit" / "toolkit").glob("*.py"))
             for name in ankit_imports(path) if not name.startswith(allowed)]
    users = [f"{path.relative_to(ROOT)}: {name}" for path in sorted((ROOT / "ankit").rglob("*.py"))
             if "toolkit" not in path.parts for name in ankit_imports(path) if name.startswith("ankit.toolkit")]
    assert below == [] and users == []
