"""Benchmark: what reading a Claude Code setup costs at start. Prints a table.

Each row is the median of 5 runs, in milliseconds, on copies of the real artefacts in tests/fixtures/claude_code
(or, with --collection PATH, a real checkout's plugins/ folder such as wshobson/agents'):
- instructions: the CLAUDE.md family of a repository 6 folders deep, each folder's CLAUDE.md importing two
  files, plus a subfolder's files found when the model reads there;
- agents: every agent file of the collection copied into ~/.claude/agents/ (subfolders kept);
- commands: every command file of the collection, namespaced by plugin;
- plugins: `plugins.added` for every plugin of the collection (manifest, MCP servers, hooks, the digest of
  every file): what each start pays to know they are as they were when added.

Run: python3 tests/bench/bench_claude_setup.py [--collection PATH]
"""

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from ankit.agents.definitions import load_agents  # noqa: E402
from ankit.context.instructions import load_instructions, nested_instructions  # noqa: E402
from ankit.claude import plugins  # noqa: E402
from ankit.terminal.custom import load_commands  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "claude_code"


def timed(run, times: int = 5) -> float:
    samples = []
    for _ in range(times):
        started = time.perf_counter()
        run()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def repository(top: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(top)], check=True)
    folder = top
    for depth in range(6):
        (folder / "docs").mkdir(parents=True, exist_ok=True)
        (folder / "CLAUDE.md").write_text(f"level {depth}\n@docs/a.md @docs/b.md\n" + "rule line\n" * 40)
        for name in ("a.md", "b.md"):
            (folder / "docs" / name).write_text(f"{name} at {depth}\n" + "detail\n" * 40)
        folder = folder / f"pkg{depth}"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def plugin_collection(given: Path | None, work: Path) -> list[Path]:
    if given is not None:
        return sorted(p.parent.parent for p in given.glob("*/.claude-plugin/plugin.json"))
    roots = []
    for n in range(20):
        roots.append(work / "plugins" / f"p{n}")
        shutil.copytree(FIXTURES / "wshobson" / "plugins" / "accessibility-compliance", roots[-1])
        manifest = roots[-1] / ".claude-plugin" / "plugin.json"
        manifest.write_text(manifest.read_text().replace('"accessibility-compliance"', f'"p{n}"'))
    return roots


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--collection", type=Path, help="a plugins/ folder (e.g. a clone of wshobson/agents)")
    given = parser.parse_args().collection
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        deep = repository(work / "repo")
        home, config = work / "home", work / "config"
        (config).mkdir()
        roots = plugin_collection(given, work)
        agents = home / ".claude" / "agents"
        for root in roots:
            if (root / "agents").is_dir():
                shutil.copytree(root / "agents", agents / root.name)
        for plugin in roots:
            plugins.add(config, plugin)
        n_agents = len(list(agents.rglob("*.md")))
        folders = {r / "commands": r.name for r in roots if (r / "commands").is_dir()}
        rows = [
            ("instructions, 6 levels, 18 files", timed(lambda: load_instructions(deep, config, home=home))),
            ("a subfolder's files on a read", timed(lambda: nested_instructions(deep, work / "repo", set(), home))),
            (f"agents, {n_agents} files", timed(lambda: load_agents([(agents, False)], True))),
            (f"commands, {len(folders)} plugins", timed(lambda: load_commands(list(folders), set(), None, folders))),
            (f"plugins.added, {len(roots)} plugins", timed(lambda: plugins.added(config))),
        ]
    width = max(len(name) for name, _ in rows)
    print(f"{'what':<{width}}  median ms (5 runs)")
    for name, ms in rows:
        print(f"{name:<{width}}  {ms:8.1f}")


if __name__ == "__main__":
    main()
