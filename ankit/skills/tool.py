"""The skill tool and showing one skill: its header, capped body and files (the tool, /skills NAME, ankit skills)."""

import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from ankit.skills.library import Skill, inside, skill_named, read_skill_file, shorten, skills_listing
from ankit.tooling.tool import Tool
from ankit.wording import count

BODY_CAP = 8000
GROUP_ABOVE = 20  # past this many files, folders are listed as one line each
FEW = 5  # a folder with this many files or fewer is listed file by file even then
KINDS = 4  # file kinds named per folder


def load_skill(skills: list[Skill], name: str) -> str:
    """A skill's text for the model: header, suggested tools, capped body, files; or the list of known skills."""
    skill, why = skill_named(skills, name)
    if skill is None:
        return why or _unknown(name, skills)
    try:
        _, body = read_skill_file(skill.path)
    except (OSError, ValueError) as exc:
        return f"Error: the skill {skill.name!r} can no longer be read ({skill.path}: {exc})"
    parts = [f"# Skill: {skill.name}", f"Folder: {skill.path.parent.absolute()} (paths in this skill are relative to it)"]
    if skill.suggested_tools:
        parts.append("Suggested tools: " + ", ".join(skill.suggested_tools))
    parts += ["", cap_body(body.strip(), skill.path)]
    files = skill_files(skill.path.parent)
    if files:
        parts += ["", "## Files in this skill, relative to its folder (read them with the file tools when the steps "
                  "need them)", *files]
    return "\n".join(parts)


def _unknown(name: str, skills: list[Skill]) -> str:
    if not skills:
        return "No skills are installed."
    known = "\n".join(f"- {s.name}: {shorten(s.description, 120)}" for s in skills)
    opening = f"There is no skill named {name.strip()!r}. " if name.strip() else ""
    return f"{opening}Known skills (call skill with one of these names):\n{known}"


def cap_body(body: str, path: Path, cap: int = BODY_CAP) -> str:
    """Keep a body up to cap characters whole; past it keep the head and tail with a marker saying what was cut."""
    if len(body) <= cap:
        return body
    half = cap // 2
    cut = len(body) - 2 * half
    marker = f"[... {cut:,} character{'s' if cut != 1 else ''} cut here; read {path} for the full text ...]"
    return f"{body[:half]}\n\n{marker}\n\n{body[-half:]}"


def skill_files(folder: Path) -> list[str]:
    """The files beside SKILL.md relative to its folder (past GROUP_ABOVE, grouped by folder with counts and
    kinds), never following links that lead outside the folder."""
    root = folder.absolute()
    found, links, outside = _walk(root)
    if len(found) <= GROUP_ABOVE:
        lines = [f"{rel} ({_size(root / rel)})" for rel in found]
    else:
        lines = _grouped(root, found)
    lines += [f"{rel}/" for rel in links]
    if outside:
        lines.append(f"({outside} link{'s' if outside > 1 else ''} leading outside the skill folder not listed)")
    return lines


def _walk(root: Path) -> tuple[list[str], list[str], int]:
    """Relative file paths, folder links kept as they are, and how many links lead outside."""
    found, links, outside = [], [], 0
    for current, dirnames, filenames in os.walk(root):
        here = Path(current)
        dirnames.sort()
        for name in list(dirnames):
            hidden = name.startswith(".") or name == "__pycache__"
            escapes = not hidden and not inside(here / name, root)
            outside += escapes
            if hidden or escapes or (here / name).is_symlink():
                dirnames.remove(name)  # os.walk would not descend into a link anyway; list it as a folder
                if not hidden and not escapes:
                    links.append(str((here / name).relative_to(root)))
        for name in sorted(filenames):
            path = here / name
            if name.startswith(".") or (here == root and name == "SKILL.md"):
                continue
            if not inside(path, root):
                outside += 1
                continue
            found.append(str(path.relative_to(root)))
    return found, links, outside


def _grouped(root: Path, files: list[str]) -> list[str]:
    """Top-level files one by one; each folder in one line with its file count, kinds and size."""
    folders: dict[str, list[str]] = {}
    lines = []
    for rel in files:
        top, _, rest = rel.partition("/")
        if rest:
            folders.setdefault(top, []).append(rel)
        else:
            lines.append(f"{rel} ({_size(root / rel)})")
    for top, inner in folders.items():
        if len(inner) <= FEW:
            lines += [f"{rel} ({_size(root / rel)})" for rel in inner]
            continue
        kinds = Counter(Path(rel).suffix.lower() or "no extension" for rel in inner)
        shown = ", ".join(f"{n} {kind}" for kind, n in kinds.most_common(KINDS))
        others = len(kinds) - KINDS
        shown += f", {others} other kind{'s' if others > 1 else ''}" if others > 0 else ""
        total = sum(_bytes(root / rel) for rel in inner)
        lines.append(f"{top}/ ({count(len(inner), 'file')}: {shown}; {_human(total)} in all)")
    return lines


def _bytes(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _size(path: Path) -> str:
    try:
        return _human(path.stat().st_size)
    except OSError:
        return "unreadable"


def _human(size: int) -> str:
    if size < 1024:
        return f"{size} bytes"
    return f"{size / 1024:.1f} KB" if size < 1024 * 1024 else f"{size / 1048576:.1f} MB"


def make_skill_tool(get_skills: Callable[[], list[Skill]]) -> Tool:
    """The core `skill` tool: loads one skill by name from the skills get_skills returns."""

    def run(args: dict, ctx) -> str:
        name = str(args.get("name", ""))
        text = load_skill(get_skills(), name)
        skill, _ = skill_named(get_skills(), name)
        if hasattr(ctx, "summarize") and skill is not None:
            ctx.summarize(f"loaded skill {skill.name}")
        return text

    return Tool(
        name="skill",
        description=("Load a skill by name: the step-by-step procedure for a task listed under Skills in the "
                     "system prompt, plus the paths of its files. Load the matching skill before starting such a task."),
        parameters={"type": "object", "properties": {"name": {"type": "string", "description": "the skill name, e.g. review-commit"}},
                    "required": ["name"]},
        run=run,
        group="core",
        read_only=True,
        effects=frozenset({"read"}),
        examples=["use a skill", "load the review-commit skill", "follow the procedure for this task"],
        source=__file__,
    )


def skills_command(argv: list[str], skills: list[Skill], problems: list[str]) -> tuple[str, int]:
    """Run `ankit skills [list]` or `ankit skills show NAME`; return the text and the exit status."""
    usage = "usage: ankit skills [list] | ankit skills show NAME"
    if not argv or argv == ["list"]:
        return skills_listing(skills, problems), 0
    if argv[0] in ("-h", "--help", "help"):
        return usage, 0
    if argv[0] == "show" and len(argv) == 2:
        known = skill_named(skills, argv[1])[0] is not None
        return load_skill(skills, argv[1]), 0 if known else 1
    return usage, 2
