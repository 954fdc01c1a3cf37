"""Finding and reading SKILL.md files, and listing them: one line each in the system prompt and in `ankit skills`."""

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ankit.names import ambiguous, qualified, resolve
from ankit.skills.frontmatter import read_frontmatter

NAME_PATTERN = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_FILE_BYTES = 4 * 1024 * 1024
FIELDS = {"name", "description", "license", "compatibility", "metadata", "allowed-tools", "suggested-tools"}
# Fields other assistants define for their skills; ankit ignores them without a warning.
FOREIGN_FIELDS = {"argument-hint", "disable-model-invocation", "user-invocable", "model", "context", "agent",
                  "hooks", "version", "when_to_use"}
PROMPT_HEAD = "Skills (procedures; when a task matches one, load it with the skill tool first):"
SHORTENINGS = (MAX_DESCRIPTION, 400, 200, 120, 80, 50)


@dataclass
class Skill:
    """One skill found on disk; path is its SKILL.md file."""

    name: str
    description: str
    path: Path
    license: str = ""
    compatibility: str = ""
    metadata: dict[str, str] = field(default_factory=dict)
    allowed_tools: list[str] = field(default_factory=list)
    suggested_tools: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    listed: bool = True  # False for `disable-model-invocation: true`: loadable by name, not in the prompt list


def skill_dirs(cwd: Path, extra: Path | None, home: Path, config_home: Path, bundled: Path) -> list[Path]:
    """The skill folders in search order (first wins on a name clash), each listed once; config_home is ankit's own."""
    candidates = [extra, cwd / ".ankit" / "skills", config_home / "skills", bundled,
                  cwd / ".claude" / "skills", home / ".claude" / "skills", cwd / ".agents" / "skills",
                  home / ".agents" / "skills"]
    dirs, seen = [], set()
    for folder in candidates:
        if folder is None:
            continue
        key = os.path.realpath(folder)
        if key not in seen:
            seen.add(key)
            dirs.append(Path(folder))
    return dirs


def find_skills(dirs: list[Path], plugins: dict[Path, str] | None = None) -> tuple[list[Skill], list[str]]:
    """Read every <dir>/<name>/SKILL.md; return the skills and one line per skipped skill, clash or warning. A
    plugin's folder (plugins: folder -> plugin name) gives its skills as `plugin:name`."""
    skills: dict[str, Skill] = {}
    problems: list[str] = []
    for folder in dirs:
        plugin = (plugins or {}).get(folder, "")
        try:
            entries = sorted(folder.iterdir()) if folder.is_dir() else []
        except OSError as exc:
            problems.append(f"skipped folder {folder}: {exc.strerror or exc}")
            continue
        for entry in entries:
            path = entry / "SKILL.md"
            if entry.name.startswith(".") or not path.is_file():
                continue
            try:
                skill = read_skill(path)
                skill.name = qualified(plugin.lower(), skill.name)
            except OSError as exc:
                problems.append(f"skipped {path}: cannot read it ({exc.strerror or exc})")
                continue
            except ValueError as exc:
                problems.append(f"skipped {path}: {exc}")
                continue
            if skill.name in skills:
                problems.append(f"skipped {path}: the name {skill.name!r} is already taken by {skills[skill.name].path}")
                continue
            skills[skill.name] = skill
            problems += [f"warning: {path}: {warning}" for warning in skill.warnings]
    return list(skills.values()), problems


def read_skill(path: Path) -> Skill:
    """Read one SKILL.md into a Skill; raise ValueError saying why it cannot be used."""
    fields, _ = read_skill_file(path)
    warnings: list[str] = []
    name = _skill_name(fields.get("name"), path.parent.name, warnings)
    description = fields.get("description")
    if not isinstance(description, str) or not description.strip():
        raise ValueError("no description: add 'description:' saying what the skill does and when to use it")
    description = " ".join(description.split())
    if len(description) > MAX_DESCRIPTION:
        warnings.append(f"the description has {len(description):,} characters (more than 1,024); the list shows less")
    unknown = sorted(key for key in fields if key not in FIELDS | FOREIGN_FIELDS)
    if unknown:
        warnings.append(f"unknown field{'s' if len(unknown) > 1 else ''} ignored: {', '.join(unknown)}")
    metadata = fields.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        warnings.append("'metadata' is not a map; ignored")
    return Skill(name, description, path, _text(fields.get("license")), _text(fields.get("compatibility")),
                 {str(k): _text(v) for k, v in metadata.items()} if isinstance(metadata, dict) else {},
                 _tool_names(fields.get("allowed-tools")), _tool_names(fields.get("suggested-tools")), warnings,
                 listed=str(fields.get("disable-model-invocation", "")).lower() != "true")


def _skill_name(name, folder: str, warnings: list[str]) -> str:
    """The checked name: valid and equal to the folder's (the folder's own when the field is missing)."""
    if name is None:
        name = folder
        warnings.append("no 'name' field; using the folder name")
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name.strip()) or len(name.strip()) > MAX_NAME:
        raise ValueError(f"the name {name!r} is not valid: use 1 to 64 lowercase letters, digits and single hyphens")
    if name.strip() != folder:
        raise ValueError(f"the name {name.strip()!r} differs from its folder {folder!r}: make them the same")
    return name.strip()


def read_skill_file(path: Path) -> tuple[dict, str]:
    """Read a SKILL.md that stays inside its folder and is text; return its fields and body."""
    if not inside(path, path.parent):
        raise ValueError("SKILL.md is a link to a file outside its folder")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise ValueError(f"the file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB")
    data = path.read_bytes()
    utf16 = data[:2] in (b"\xff\xfe", b"\xfe\xff")
    if not utf16 and b"\0" in data[:8192]:
        raise ValueError("binary content (NUL bytes); a SKILL.md must be text")
    try:
        text = data.decode("utf-16" if utf16 else "utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text (undecodable byte at offset {exc.start}); save it as UTF-8") from None
    return read_frontmatter(text)


def inside(path: Path, folder: Path) -> bool:
    return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(folder))


def _text(value) -> str:
    """A frontmatter value as one line of text."""
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(_text(item) for item in value)
    if isinstance(value, dict):
        return ", ".join(f"{key}: {_text(item)}" for key, item in value.items())
    return " ".join(str(value).split())


def _tool_names(value) -> list[str]:
    """Tool names from a list or a string separated by spaces or commas ("Bash(git add:*)" stays whole)."""
    if isinstance(value, list):
        return [name for name in (_text(item) for item in value) if name]
    names, current, depth = [], "", 0
    for char in _text(value):
        depth = depth + (char in "([") - (char in ")]" and depth > 0)
        if depth == 0 and (char == "," or char.isspace()):
            names, current = names + [current] if current else names, ""
        else:
            current += char
    return names + [current] if current else names


def shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut[limit // 2:] else cut).rstrip(" ,;:.") + "…"


def skills_prompt(skills: list[Skill], budget_chars: int) -> str:
    """The system-prompt list, one `name: description` per line in the given order, within budget_chars.

    The caller passes about 1% of the context window in characters (about 4 characters a token).
    Past the budget the descriptions are shortened, then the last skills are left out with a line saying so.
    Skills marked `disable-model-invocation: true` are not listed (the user can still ask for them by name).
    """
    skills = [skill for skill in skills if skill.listed]
    if not skills:
        return ""
    for limit in SHORTENINGS:
        lines = [f"- {skill.name}: {shorten(skill.description, limit)}" for skill in skills]
        text = "\n".join([PROMPT_HEAD, *lines])
        if len(text) <= budget_chars:
            return text
    kept, used = 0, len(PROMPT_HEAD) + len(_left_out(len(skills))) + 2
    while kept < len(lines) and used + len(lines[kept]) + 1 <= budget_chars:
        used += len(lines[kept]) + 1
        kept += 1
    return "\n".join([PROMPT_HEAD, *lines[:kept], _left_out(len(skills) - kept)])


def _left_out(count: int) -> str:
    return f"({count} more skill{'s' if count != 1 else ''} not listed; call skill with an empty name to list all.)"


def skills_listing(skills: list[Skill], problems: list[str], width: int = 100) -> str:
    """The `ankit skills` and `/skills` text: skills grouped by folder, then the problems found."""
    if not skills:
        lines = ["No skills found. A skill is a folder with a SKILL.md in ./.ankit/skills, "
                 "~/.config/ankit/skills, ./.claude/skills, ~/.claude/skills or ./.agents/skills."]
    else:
        lines = [f"{len(skills)} skill{'s' if len(skills) != 1 else ''} (ankit skills show NAME prints one)"]
    column = min(max((len(s.name) for s in skills), default=0), 28) + 2
    source = None
    for skill in skills:
        if skill.path.parent.parent != source:
            source = skill.path.parent.parent
            lines += ["", f"{source}:"]
        note = "" if skill.listed else " (only on request)"
        lines.append(f"  {skill.name.ljust(column)}{shorten(skill.description, max(40, width - column - 2 - len(note)))}{note}")
    if problems:
        lines += ["", f"Problems ({len(problems)}):", *(f"  {line}" for line in problems)]
    return "\n".join(lines)


def skill_named(skills: list[Skill], name: str) -> tuple[Skill | None, str]:
    """The skill a name answers to (a plugin's by `plugin:name`, or by its plain name when unique), or None and
    the line saying why."""
    wanted = name.strip().lower()
    found, candidates = resolve([s.name for s in skills], wanted)
    if found:
        return next(s for s in skills if s.name == found), ""
    return None, ambiguous("the skill", wanted, candidates) if candidates else ""
