"""A subfolder's instructions, as Claude Code loads them: when the model reads, lists or edits a path below the
working folder, the AGENTS.md / CLAUDE.md files of the folders down to it (not read before) are added to that
call's result, once each per session; the system prompt stays as it was (the cache holds)."""

import json
from collections.abc import Callable
from pathlib import Path

from ankit.context.imports import key
from ankit.context.instructions import Instructions, nested_instructions
from ankit.protocols import ToolRunner
from ankit.records import ToolCall, ToolResult

READERS = frozenset({"read_file", "list_directory", "edit_file", "write_file"})  # tools whose path is "path"
HEAD = "[ankit: the folder of this path has instructions of its own, which apply to work there:]"


class NestedInstructions(ToolRunner):
    """A tool runner that adds a subfolder's instruction files to the result of a call reaching into it."""

    def __init__(self, runner: ToolRunner, cwd: Path, loaded: Instructions, scrub: Callable[[str], str] = str,
                 home: Path | None = None):
        self.runner, self.cwd, self.loaded, self.scrub, self.home = runner, Path(cwd), loaded, scrub, home
        self.seen = {key(p) for p in loaded.files}

    def lookup(self, name: str):
        return self.runner.lookup(name)

    def start(self, calls: list[ToolCall], output: Callable[[str], None] | None = None) -> None:
        self.runner.start(calls, output)

    def run(self, call: ToolCall, output: Callable[[str], None] | None = None) -> ToolResult:
        """The call's result, with the instructions of the folders it reached into when they are new."""
        result = self.runner.run(call, output)
        if call.name not in READERS or result.is_error:
            return result
        try:
            path = json.loads(call.arguments or "{}").get("path")
        except (ValueError, AttributeError):
            return result
        if not isinstance(path, str) or not path.strip():
            return result
        found = nested_instructions(Path(path), self.cwd, self.seen, self.home)
        if found.text:
            self.loaded.files += found.files  # /context lists them
            result.content = f"{result.content}\n\n{HEAD}\n{self.scrub(found.text)}"  # as tool output is
        return result
