"""Prints how long skill discovery, the prompt list and loading take over many skills (not collected by pytest)."""

import sys
import tempfile
import time
from pathlib import Path

from ankit.skills.library import find_skills, skills_prompt
from ankit.skills.tool import load_skill

FRONT = """---
name: {name}
description: >-
  Procedure {i}: review, draft and check documents of kind {i}. Use when the user asks
  for "kind {i}" work, mentions its template, or wants it checked against the house rules.
license: MIT
allowed-tools: Bash(git add:*) Read Write
metadata:
  author: bench
  version: "1.{i}"
---
"""


def make(root: Path, count: int, body_chars: int) -> None:
    """count skills, each with a body of body_chars characters and two reference files."""
    for i in range(count):
        folder = root / f"skill-{i:04d}"
        (folder / "references").mkdir(parents=True)
        body = ("Step: do the thing carefully and check it twice.\n" * (body_chars // 49 + 1))[:body_chars]
        (folder / "SKILL.md").write_text(FRONT.format(name=folder.name, i=i) + body)
        (folder / "references" / "a.md").write_text("a")
        (folder / "references" / "b.md").write_text("b")


def best(action, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    for count, body in ((50, 4_000), (500, 4_000), (200, 200 * 1024)):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            make(root, count, body)
            found = find_skills([root])[0]
            assert len(found) == count
            discover = best(lambda: find_skills([root]))
            prompt = best(lambda: skills_prompt(found, 8_000))
            load = best(lambda: load_skill(found, f"skill-{count // 2:04d}"))
            print(f"{count:4d} skills, {body // 1024:3d} KB bodies: find_skills {discover * 1000:7.1f} ms, "
                  f"skills_prompt(8,000 chars) {prompt * 1000:5.2f} ms, load_skill {load * 1000:5.2f} ms")


if __name__ == "__main__":
    sys.exit(main())
