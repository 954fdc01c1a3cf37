"""The one API a tool module may use besides the standard library; ankit keeps it stable from version to version.

A tool module imports what it needs by name (`from ankit.toolkit import ToolError, paths, proc`), so a module
copied alone into ~/.config/ankit/tools/ works as it did among the bundled tools:

- `ToolError`: the one exception a tool raises on purpose; its message is the error result the model reads.
- `ToolOutput(text, value)`: what run() returns when a program should get data: the model reads `text` on a
  direct call, a run_code program's call returns `value` (JSON data). A plain str is both; a dict or list is
  shown to the model as JSON.
- `paths`: paths inside the working folder: resolve an argument, show it, note one that leads outside.
- `text`: output caps, binary sniffing, decoding file bytes, line splitting, file hashes.
- `ignore`: walking a folder by its .gitignore rules; gitignore-style globs.
- `proc`: a command run with a time limit and bounded output, in its own process group, stopped whole.
- `jobs`: the session's background jobs (the shell tools).
- `http`: HTTP(S) requests with size, time and redirect caps; approvals per origin.
- `git`: git with the repository's own programs (hooks, filters, pagers, external diffs) neutralised.
- `edits`: a text file read exactly, written back in its encoding, diffed for a preview.
- `memory`, `notes`: remembered facts (global and per project) and a project's notes.
- `ports`: who listens on a port.

The promise: each name in a module's `__all__` (and `ToolError`, `ToolOutput` here) keeps its name, its arguments and their
meaning in later versions; names and keyword arguments with defaults may be added. A name is removed only after
a version that warns when it is used. Everything else (names starting with `_`, names not listed) is private.
Functions that take `ctx` use only `ctx.cwd`, `ctx.state`, `ctx.config`, `ctx.data_dir`, `ctx.confine`
(`proc.shell_line`: the command inside the session's sandbox) and `ctx.editor` (`edits.load`, `edits.save`,
`proc.run`: the user's editor's files and terminals under `ankit acp`, where it offers them).

Helpers that one tool alone needs stay in that tool (apply_patch's diff parser, web_fetch's HTML reader).

May import: the standard library, its own modules, ankit.errors and ankit.records, and safety and settings
where a helper must follow ankit's own rules; never the layers above. Nothing in ankit imports it; tools do.
"""

from ankit.errors import ToolError
from ankit.records import ToolOutput

__all__ = ["ToolError", "ToolOutput", "edits", "git", "http", "ignore", "jobs", "memory", "notes", "paths", "ports", "proc", "text"]
