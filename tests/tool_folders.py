"""Helpers for the discovery tests: write real tool modules and group.toml files into a temp folder."""

import json
from pathlib import Path

from ankit.tooling.loader import load_tools
from ankit.tooling.toolbox import Tool


def write_tool(root: Path, group: str, name: str, description: str, params: dict | None = None,
               examples: list[str] | None = None, group_export: str | None = None) -> Path:
    """Write tools/<group>/<name>.py, a real module following the tool contract."""
    folder = root / group if group else root
    folder.mkdir(parents=True, exist_ok=True)
    properties = {key: {"type": "string", "description": text} for key, text in (params or {}).items()}
    schema = {"type": "object", "properties": properties, "additionalProperties": False}
    lines = [
        f"name = {name!r}",
        f"description = {description!r}",
        f"parameters = {json.dumps(schema)!r}",
        "import json as _json",
        "parameters = _json.loads(parameters)",
        f"examples = {examples or []!r}",
        "def run(args, ctx):",
        f"    return {name!r} + ' ran'",
    ]
    if group_export:
        lines.append(f"group = {group_export!r}")
    path = folder / f"{name}.py"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_toml(root: Path, group: str, text: str) -> Path:
    """Write tools/<group>/group.toml."""
    path = root / group / "group.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def load(root: Path) -> list[Tool]:
    """Load the folder with ankit's real loader; fail loudly if a module was skipped."""
    tools, problems = load_tools([root])
    assert problems == [], problems
    return tools


def small_catalog(root: Path) -> list[Tool]:
    """A catalog shaped like ankit's bundled one: files, git, web, process, github, apps."""
    write_tool(root, "files", "read_file", "Read a text file and return its lines.", {"path": "File to read"})
    write_tool(root, "files", "list_directory", "List the files in a folder.", {"path": "Folder to list"})
    write_tool(root, "git", "git_log", "Show the commit history of the repository.", {"count": "How many commits"})
    write_tool(root, "git", "git_diff", "Show changes between commits or the working tree.", {"path": "Limit to a path"})
    write_tool(root, "web", "web_search", "Search the internet and return result titles and links.", {"query": "Words to search"})
    write_tool(root, "web", "web_fetch", "Fetch a URL and return the page as readable text.", {"url": "http or https address"})
    write_tool(root, "process", "port_status", "Tell which process listens on a TCP port.", {"port": "Port number"})
    write_tool(root, "process", "kill_process", "Stop a process by its pid.", {"pid": "Process id"})
    write_tool(root, "github", "github_notifications", "List unread notifications from the GitHub inbox.", {})
    write_tool(root, "apps", "app_notifications", "List notifications from connected apps such as chat and calendar.", {})
    write_tool(root, "transport", "bus_times", "Show the departure times of buses and trains at a stop.", {"stop": "Stop name"})
    write_toml(root, "git", 'summary = "Git version control: history and diffs"\n'
                            '[phrases]\ngit_log = ["version control history"]\n')
    write_toml(root, "files", 'summary = "Read and list files"\ncore = true\n')
    write_toml(root, "github", (
        'summary = "GitHub inbox"\n'
        '[[rules]]\nwhen = ["github", "notifications"]\nprefer = "github"\nover = ["apps"]\n'
        'reason = "GitHub notifications come from GitHub, not from connected apps"\n'
    ))
    return load(root)
