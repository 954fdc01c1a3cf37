"""Loading tool modules by file path: where they are looked for, what a module must export, what is skipped."""

import hashlib
import importlib.util
import re
import sys
from pathlib import Path

from ankit.safety.effects import changes, declared, names_lasting
from ankit.safety.text import outside
from ankit.tooling.limits import import_with_limit
from ankit.tooling.listing import ListingCache, confines, describe, lazy_tool
from ankit.tooling.schema import check_schema
from ankit.tooling.tool import Tool

TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def tool_from_module(module, path: Path, group: str) -> Tool:
    """Build a Tool from a loaded module; raise ValueError saying what is missing."""
    missing = [n for n in ("name", "description", "parameters", "run") if not hasattr(module, n)]
    if missing:
        raise ValueError(f"missing export {', '.join(missing)}")
    if not isinstance(module.name, str) or not module.name:
        raise ValueError("name must be a non-empty string")
    if not TOOL_NAME.fullmatch(module.name):  # providers reject every request that declares such a name
        raise ValueError(f"name {outside(module.name, 64, line=True)!r} must be 1 to 64 letters, digits, '_' or '-'")
    if not callable(module.run):
        raise ValueError("run must be a function run(args, ctx)")
    problem = check_schema(module.parameters)
    if problem:
        raise ValueError(problem)
    return Tool(
        name=module.name,
        description=str(module.description).strip(),
        parameters=module.parameters,
        run=module.run,
        group=str(getattr(module, "group", group) or group),
        read_only=_reads_only(declared(getattr(module, "effects", None))),
        needs_approval=getattr(module, "needs_approval", False),
        lasting=module.lasting if hasattr(module, "lasting") else names_lasting(getattr(module, "effects", None)),
        effects=declared(getattr(module, "effects", None)),
        preview=getattr(module, "preview", None),
        examples=list(getattr(module, "examples", []) or []),
        source=str(path),
        changes=getattr(module, "changes", None) if callable(getattr(module, "changes", None)) else None,
        time_limit=getattr(module, "time_limit", None),
        touches=getattr(module, "touches", None) if callable(getattr(module, "touches", None)) else None,
        confined=getattr(module, "confined", False) is True and confines(path),
        returns=str(getattr(module, "returns", "") or ""),
    )


def _reads_only(effects: frozenset[str]) -> bool:
    """The read-only label, from the effects alone: it reads or fetches and changes nothing (a module's own
    read_only is not read)."""
    return bool(effects) and not changes(effects)


def load_module(path: Path):
    """Import a Python file under a module name unique to its path."""
    digest = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:10]
    mod_name = f"ankit_tool_{path.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(mod_name, path)
    if spec is None or spec.loader is None:
        raise ValueError("not a loadable Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    try:
        import_with_limit(lambda: spec.loader.exec_module(module))
    except BaseException:
        sys.modules.pop(mod_name, None)
        raise
    return module


def module_paths(folder: Path) -> list[tuple[Path, str]]:
    """Tool files in a folder with their default group: top-level files are their own group."""
    found = []
    for path in sorted(folder.glob("*.py")):
        found.append((path, path.stem))
    for path in sorted(folder.glob("*/*.py")):
        found.append((path, path.parent.name))
    return [(p, g) for p, g in found if not p.name.startswith(("_", "test_"))]


def load_tools(folders: list[Path], reserved: tuple[str, ...] = (), cache: Path | None = None,
               cached: list[Path] | None = None) -> tuple[list[Tool], list[str]]:
    """Load every tool module from the folders in order; return the tools and one line per skipped module.

    The first module to take a name keeps it; a later one, or one taking a reserved (built-in) name, is skipped.
    With a cache folder, each folder of `cached` (every folder when None) whose files are unchanged since the last
    run gives its tools from there, each module imported when its tool is first used (ankit/tooling/listing.py).
    """
    tools: dict[str, Tool] = {}
    problems: list[str] = []
    for folder in folders:
        if not folder.is_dir():
            continue
        listing = ListingCache(cache, folder) if cache is not None and (cached is None or folder in cached) else None
        known = listing.load() if listing is not None else {}
        entries = {}
        for path, group in module_paths(folder):
            try:
                tool = _cached(known.get(str(path)), path) or tool_from_module(load_module(path), path, group)
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # SystemExit, a hang abandoned, anything: the module is skipped
                problems.append(f"skipped {path}: {_describe(exc)}")
                continue
            entry = known.get(str(path)) or describe(tool)
            if entry is not None:
                entries[str(path)] = entry
            if tool.name in reserved:
                problems.append(f"skipped {path}: the tool name {tool.name!r} belongs to ankit's built-in tool")
                continue
            if tool.name in tools:
                problems.append(f"skipped {path}: duplicate tool name {tool.name!r} (already from {tools[tool.name].source})")
                continue
            tools[tool.name] = tool
        if listing is not None and entries != known:
            listing.save(entries)
    return list(tools.values()), problems


def _cached(entry: dict | None, path: Path) -> Tool | None:
    """The tool from its cached entry, or None (no entry, or one that does not fit)."""
    try:
        return lazy_tool(entry, path, load_module) if entry is not None else None
    except (KeyError, TypeError):
        return None


def _describe(exc: BaseException) -> str:
    if isinstance(exc, SyntaxError):
        return f"syntax error at line {exc.lineno}: {exc.msg}"
    try:
        text = str(exc).splitlines()[0] if str(exc) else ""
    except Exception:  # an exception whose __str__ fails
        text = ""
    if isinstance(exc, TimeoutError):
        return text
    return f"{type(exc).__name__}: {text}" if not isinstance(exc, ValueError) else text
