"""The tool listing cache: each tool folder's tools as plain data on disk, keyed by its files' sizes and times, so
a run lists and sends tools without importing their modules; a module is imported when its tool is first used.

Kept through ankit's state-file layer (safety/statefiles.py). A cache never decides a permission: whether a
cached tool may run unasked is asked of its module (imported then) when a call wants to run, never read from
the file."""

import hashlib
import json
import os
import sys
import threading
from pathlib import Path

from ankit import __version__
from ankit.safety import statefiles
from ankit.safety.effects import declared, names_lasting
from ankit.tooling.tool import Tool, call_flexibly

FORMAT = 3  # bump when what is stored changes
HOOKS = ("needs_approval", "preview", "changes", "time_limit", "touches")  # a module's functions, called through the module
_DEPTH = 3  # folder/*.py, folder/GROUP/*.py and helpers one level further down


def fingerprint(folder: Path) -> str:
    """A key that changes whenever a Python file in the folder (or a subfolder) is added, removed or edited, or
    ankit or Python changes: each file's relative path, size and modification time."""
    seen: list = []

    def walk(where: Path, depth: int) -> None:
        try:
            entries = sorted(os.scandir(where), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            if entry.is_dir() and entry.name != "__pycache__" and depth < _DEPTH:
                walk(Path(entry.path), depth + 1)
            elif entry.name.endswith(".py") and entry.is_file():
                info = entry.stat()
                seen.append([os.path.relpath(entry.path, folder), info.st_size, info.st_mtime_ns])

    walk(folder, 1)
    data = json.dumps([FORMAT, __version__, sys.version, str(folder.resolve()), seen])
    return hashlib.sha256(data.encode()).hexdigest()


def describe(tool: Tool) -> dict | None:
    """The tool as plain data, or None when part of it is not plain data (that module is imported every run)."""
    hooks = [h for h in HOOKS if callable(getattr(tool, h))]
    if tool.preview is not None and "preview" not in hooks or tool.changes is not None and "changes" not in hooks:
        return None
    entry = {"name": tool.name, "description": tool.description, "parameters": tool.parameters, "group": tool.group,
             "read_only": tool.read_only, "effects": sorted(tool.declared_effects()), "examples": tool.examples, "hooks": hooks,
             "needs_approval": None if "needs_approval" in hooks else tool.needs_approval,
             "time_limit": None if "time_limit" in hooks else tool.time_limit, "returns": tool.returns,
             "confined": tool.confined}
    try:
        return entry if json.loads(json.dumps(entry)) == entry else None  # a tuple or an object would not come back
    except (TypeError, ValueError):
        return None


def confines(path: Path) -> bool:
    """Whether a module saying `confined = True` is believed: only ankit's own modules start their commands
    through the sandbox (a module of the same name elsewhere confines nothing)."""
    try:
        return Path(path).resolve().is_relative_to(statefiles.bundled("tools").resolve())
    except (OSError, ValueError):
        return False


class _Module:
    """A tool module imported on first use (once, whichever thread asks first)."""

    def __init__(self, path: Path, load):
        self.path, self._load, self._lock, self._module = path, load, threading.Lock(), None

    def get(self):
        with self._lock:
            if self._module is None:
                self._module = self._load(self.path)
            return self._module


class _Hook:
    """One of a tool module's functions (run, preview, ...), reached by importing the module when first called."""

    def __init__(self, module: _Module, attr: str):
        self.module, self.attr = module, attr

    def __call__(self, args, ctx=None):
        return call_flexibly(getattr(self.module.get(), self.attr), args, ctx)


class _Asks:
    """needs_approval of a cached tool: what the module says now (imported for it), never what the file says."""

    def __init__(self, module: _Module, listed):
        self.module = module
        self.listed = listed  # what the listing said (callable: a function of the call), for labels only

    def __call__(self, args, ctx=None):
        module = self.module.get()
        asks = getattr(module, "needs_approval", False)
        if callable(asks):
            return bool(call_flexibly(asks, args, ctx))
        return not getattr(module, "read_only", False) and bool(asks)


def lazy_tool(entry: dict, path: Path, load) -> Tool:
    """A Tool from its cached entry whose functions import the module (with load(path)) when first called;
    whether a call asks first is the module's answer (_Asks), the entry's read_only only labels listings."""
    module = _Module(path, load)
    hook = {h: _Hook(module, h) for h in entry["hooks"]}
    return Tool(name=entry["name"], description=entry["description"], parameters=entry["parameters"],
                run=_Hook(module, "run"), group=entry["group"], read_only=entry["read_only"] is True,
                needs_approval=_Asks(module, hook.get("needs_approval", entry["needs_approval"])),
                preview=hook.get("preview"),
                examples=entry["examples"], source=str(path), changes=hook.get("changes"),
                time_limit=hook.get("time_limit", entry["time_limit"]), lasting=_Lasting(module),
                effects=_Effects(module), returns=str(entry.get("returns") or ""), touches=hook.get("touches"),
                confined=entry.get("confined") is True and confines(path))


class _Lasting:
    """lasting of a cached tool (its effect outlives the session): what the module says now, like _Asks."""

    def __init__(self, module: _Module):
        self.module = module

    def __call__(self, args, ctx=None):
        module = self.module.get()
        if not hasattr(module, "lasting"):
            return names_lasting(getattr(module, "effects", None))
        lasting = module.lasting
        return bool(call_flexibly(lasting, args, ctx)) if callable(lasting) else bool(lasting)


class _Effects:
    """effects of a cached tool: what the module declares now (imported for it), never what the file says."""

    def __init__(self, module: _Module):
        self.module = module

    def __call__(self) -> frozenset[str]:
        return declared(getattr(self.module.get(), "effects", None))


class ListingCache:
    """One JSON file per tool folder under a folder only the user can read; a stale or broken file is no entry."""

    def __init__(self, root: Path, folder: Path):
        self.file = Path(root) / f"{hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:24]}.json"
        self.key = fingerprint(folder)

    def load(self) -> dict[str, dict]:
        """Each module path's entry as last listed, when no file of the folder changed since; else {}."""
        try:
            data = json.loads(statefiles.read_cache(self.file) or "null")
        except (ValueError, RecursionError):
            return {}
        if not isinstance(data, dict) or data.get("key") != self.key or not isinstance(data.get("tools"), dict):
            return {}
        return {k: v for k, v in data["tools"].items() if isinstance(v, dict) and isinstance(v.get("hooks"), list)}

    def save(self, entries: dict[str, dict]) -> None:
        """Store the folder's entries atomically; a failure only costs speed."""
        try:
            statefiles.write(self.file, json.dumps({"key": self.key, "tools": entries}, ensure_ascii=False))
        except (OSError, TypeError, ValueError):
            pass
