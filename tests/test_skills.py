"""Skills: discovery over real folders, lenient reading, skipped files, the prompt list, loading and its limits."""

import os
from pathlib import Path

import pytest

from ankit.records import ToolCall
from ankit import paths
from ankit.skills.library import Skill, find_skills, skill_dirs, skills_prompt
from ankit.skills.tool import BODY_CAP, load_skill, make_skill_tool, skills_command
from ankit.tooling.toolbox import ToolContext, run_call

BUNDLED = Path(__file__).resolve().parents[1] / "skills"

PDF_FORMS = """---
name: pdf-forms
description: >
  Fill, inspect and flatten PDF forms. Use this skill when the user says "fill in the form",
  "what fields does this PDF have", or "flatten this PDF"; also when a task mentions AcroForm
  fields, checkboxes or signatures: anything where a PDF's fields need values.
license: Proprietary. LICENSE.txt has complete terms
allowed-tools: Bash(python3:*) Bash(git add:*) Read Write
metadata:
  author: example-org
  version: "2.1"
  tags: [pdf, forms]
---

# PDF forms

1. Run `scripts/inspect.py FILE` to list the fields.
2. Read `references/field-types.md` before writing values.
"""

API_REVIEW = """---
name: api-review
description: Review an HTTP API design for naming, versioning and error shapes. Use when a user shares an OpenAPI file.
compatibility: Needs network access for remote specs
allowed-tools:
  - Read
  - Grep
  - WebFetch
suggested-tools:
  - read_file
  - search_text
---
# API review

Check the paths first.
"""

OLD_STYLE = """---
name: fix-issue
description: "Fix a GitHub issue end to end: read it, reproduce, patch, test."
argument-hint: [issue-number] [priority]
allowed-tools: Read, Grep, Glob, Bash(gh issue view:*)
disable-model-invocation: false
version: 1.2.0
---
Steps.
"""


def write(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8", newline="")
    return path


def simple(name: str, description: str = "Does a thing. Use when asked.", body: str = "Body.") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}\n"


@pytest.fixture
def wild(tmp_path: Path) -> Path:
    """A folder of skills shaped like the ones people keep in ~/.claude/skills."""
    root = tmp_path / "skills"
    write(root, "pdf-forms", PDF_FORMS)
    (root / "pdf-forms" / "references").mkdir()
    (root / "pdf-forms" / "references" / "field-types.md").write_text("# Field types\n")
    (root / "pdf-forms" / "scripts").mkdir()
    (root / "pdf-forms" / "scripts" / "inspect.py").write_text("print('fields')\n")
    (root / "pdf-forms" / "assets").mkdir()
    (root / "pdf-forms" / "assets" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(3000))
    (root / "pdf-forms" / ".DS_Store").write_bytes(b"junk")
    write(root, "api-review", b"\xef\xbb\xbf" + API_REVIEW.replace("\n", "\r\n").encode())
    write(root, "fix-issue", OLD_STYLE)
    write(root, "notes-only", "---\nname: notes-only\ndescription: |\n  Keep meeting notes.\n  Use for minutes.\n---\n")
    (root / "not-a-skill").mkdir()
    (root / "not-a-skill" / "README.md").write_text("no SKILL.md here")
    (root / "loose-file.md").write_text("ignored")
    return root


def test_real_world_shapes_load_without_edits(wild: Path):
    skills, problems = find_skills([wild])
    assert problems == []
    by_name = {s.name: s for s in skills}
    assert sorted(by_name) == ["api-review", "fix-issue", "notes-only", "pdf-forms"]
    pdf = by_name["pdf-forms"]
    assert pdf.description.startswith("Fill, inspect and flatten PDF forms. Use this skill when the user says \"fill in the form\", ")
    assert "\n" not in pdf.description and pdf.description.endswith("need values.")
    assert pdf.license == "Proprietary. LICENSE.txt has complete terms"
    assert pdf.metadata == {"author": "example-org", "version": "2.1", "tags": "pdf, forms"}
    assert pdf.allowed_tools == ["Bash(python3:*)", "Bash(git add:*)", "Read", "Write"]
    assert pdf.path == wild / "pdf-forms" / "SKILL.md"
    api = by_name["api-review"]  # BOM and CRLF
    assert api.allowed_tools == ["Read", "Grep", "WebFetch"] and api.suggested_tools == ["read_file", "search_text"]
    assert api.compatibility == "Needs network access for remote specs"
    old = by_name["fix-issue"]
    assert old.allowed_tools == ["Read", "Grep", "Glob", "Bash(gh issue view:*)"] and old.warnings == []
    assert by_name["notes-only"].description == "Keep meeting notes. Use for minutes."


def test_lenient_fixes_load_and_warn_once(tmp_path: Path):
    long_description = "Summarise long documents. " * 60
    write(tmp_path, "long-one", f"---\nname: long-one\ndescription: >-\n  {long_description}\n---\nBody\n")
    write(tmp_path, "extra-fields", "---\nname: extra-fields\ndescription: d\nauthor: me\ncolor: blue\n---\n")
    write(tmp_path, "no-name", "---\ndescription: Folder gives the name.\n---\n")
    write(tmp_path, "utf16", ("\ufeff" + simple("utf16")).encode("utf-16-le"))
    skills, problems = find_skills([tmp_path])
    assert sorted(s.name for s in skills) == ["extra-fields", "long-one", "no-name", "utf16"]
    assert len(problems) == 3 and all(line.startswith("warning: ") for line in problems)
    text = "\n".join(problems)
    assert "long-one/SKILL.md: the description has 1,559 characters" in text
    assert "extra-fields/SKILL.md: unknown fields ignored: author, color" in text
    assert "no-name/SKILL.md: no 'name' field; using the folder name" in text
    listed = skills_prompt(skills, 100_000)
    line = next(l for l in listed.splitlines() if l.startswith("- long-one:"))
    assert len(line) < len("- long-one: ") + 1025 and line.endswith("…")


BROKEN = {
    "no-frontmatter": ("# Just a heading\n\nText.\n", "no frontmatter"),
    "unclosed": ("---\nname: unclosed\ndescription: never closed\n\n# Body\n", "not closed"),
    "other-folder": (simple("a-different-name"), "differs from its folder"),
    "Capitals": (simple("Capitals"), "not valid"),
    "no-description": ("---\nname: no-description\nlicense: MIT\n---\nBody\n", "no description"),
    "binary-junk": (b"\x7fELF\x02\x01\x01\x00\x00\x00\xff\xfe\x00\x01" * 40, "binary content"),
    "latin-1": ("---\nname: latin-1\ndescription: caf\xe9\n---\n".encode("latin-1"), "not UTF-8"),
    "bad-yaml": ("---\nname: bad-yaml\ndescription: [unclosed\n---\n", "line 3"),
    "double--hyphen": (simple("double--hyphen"), "not valid"),
    "n" * 65: (simple("n" * 65), "not valid"),
    "-leading": (simple("-leading"), "not valid"),
}


def test_broken_skills_are_skipped_one_line_each(wild: Path):
    for folder, (text, _) in BROKEN.items():
        write(wild, folder, text)
    skills, problems = find_skills([wild])
    assert sorted(s.name for s in skills) == ["api-review", "fix-issue", "notes-only", "pdf-forms"]
    assert len(problems) == len(BROKEN)
    for folder, (_, reason) in BROKEN.items():
        [line] = [p for p in problems if f"{os.sep}{folder}{os.sep}SKILL.md:" in p]
        assert line.startswith(f"skipped {wild / folder / 'SKILL.md'}: ") and reason in line


def test_first_folder_wins_a_name_clash(tmp_path: Path):
    first, second = tmp_path / "project", tmp_path / "home"
    write(first, "deploy", simple("deploy", "Project deploy steps."))
    write(second, "deploy", simple("deploy", "Home deploy steps."))
    write(second, "other", simple("other"))
    skills, problems = find_skills([first, tmp_path / "missing", second])
    assert [(s.name, s.description) for s in skills] == [("deploy", "Project deploy steps."), ("other", "Does a thing. Use when asked.")]
    assert problems == [f"skipped {second / 'deploy' / 'SKILL.md'}: the name 'deploy' is already taken by {first / 'deploy' / 'SKILL.md'}"]


def test_skill_dirs_order_and_duplicates(tmp_path: Path):
    cwd, home, config, bundled = tmp_path / "proj", tmp_path / "home", tmp_path / "cfg/ankit", tmp_path / "bundled"
    assert skill_dirs(cwd, tmp_path / "extra", home, config, bundled) == [
        tmp_path / "extra", cwd / ".ankit/skills", config / "skills", bundled, cwd / ".claude/skills",
        home / ".claude/skills", cwd / ".agents/skills", home / ".agents/skills"]
    same = skill_dirs(home, None, home, config, bundled)  # working in the home folder: each folder once
    assert same == [home / ".ankit/skills", config / "skills", bundled, home / ".claude/skills", home / ".agents/skills"]


def test_user_skills_live_in_the_xdg_config_folder(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    write(tmp_path / "xdg" / "ankit" / "skills", "mine", simple("mine"))
    dirs = skill_dirs(tmp_path / "proj", None, tmp_path / "home", paths.config_home(), tmp_path / "bundled")
    assert tmp_path / "xdg" / "ankit" / "skills" in dirs
    assert [s.name for s in find_skills(dirs)[0]] == ["mine"]


def body_skill(tmp_path: Path, size: int) -> tuple[list[Skill], str]:
    body = "H" + "".join(chr(97 + i % 26) for i in range(size - 2)) + "T"
    write(tmp_path, "big", simple("big", body=body))
    skills, problems = find_skills([tmp_path])
    assert problems == []
    return skills, body


def test_body_of_exactly_the_cap_is_whole(tmp_path: Path):
    skills, body = body_skill(tmp_path, BODY_CAP)
    text = load_skill(skills, "big")
    assert text.endswith("\n" + body) and "cut here" not in text


def test_body_one_over_the_cap_keeps_head_and_tail(tmp_path: Path):
    skills, body = body_skill(tmp_path, BODY_CAP + 1)
    text = load_skill(skills, "big")
    assert "[... 1 character cut here; read " in text
    assert body[:4000] in text and text.endswith(body[-4000:]) and body not in text


def test_body_of_200_kb_is_capped(tmp_path: Path):
    skills, body = body_skill(tmp_path, 200 * 1024)
    text = load_skill(skills, "big")
    assert f"[... {200 * 1024 - BODY_CAP:,} characters cut here; read {tmp_path / 'big' / 'SKILL.md'}" in text
    assert len(text) < BODY_CAP + 500 and text.endswith(body[-4000:])


def test_load_shows_header_tools_body_and_files(wild: Path):
    skills, _ = find_skills([wild])
    text = load_skill(skills, "PDF-Forms")
    lines = text.splitlines()
    assert lines[0] == "# Skill: pdf-forms"
    assert lines[1] == f"Folder: {wild / 'pdf-forms'} (paths in this skill are relative to it)"
    assert "# PDF forms\n\n1. Run `scripts/inspect.py FILE`" in text
    assert "references/field-types.md (14 bytes)" in lines  # relative to the folder named on line 2
    assert "scripts/inspect.py (16 bytes)" in lines
    assert "assets/logo.png (2.9 KB)" in lines
    assert str(wild) not in "\n".join(lines[2:])
    assert ".DS_Store" not in text and "SKILL.md (" not in text
    assert "Suggested tools" not in text
    assert load_skill(skills, "api-review").splitlines()[2] == "Suggested tools: read_file, search_text"


def test_unknown_names_list_the_known_skills(wild: Path):
    skills, _ = find_skills([wild])
    text = load_skill(skills, "nope")
    assert text.startswith("There is no skill named 'nope'. Known skills")
    assert "- pdf-forms: Fill, inspect" in text and "- api-review: Review an HTTP API" in text
    assert load_skill([], "nope") == "No skills are installed."


def test_names_never_reach_outside_the_skill_folders(tmp_path: Path):
    root = tmp_path / "skills"
    write(root, "inner", simple("inner"))
    secret = tmp_path / "secret"
    write(secret, "private", simple("private", body="TOP SECRET"))
    (tmp_path / "passwords.txt").write_text("hunter2")
    skills, _ = find_skills([root])
    for name in ("../secret/private", "/etc/passwd", str(secret / "private"), "inner/../../secret/private",
                 "private", "..", "inner/SKILL.md", "inner/"):
        text = load_skill(skills, name)
        assert text.startswith("There is no skill named") and "TOP SECRET" not in text


def test_links_that_escape_are_not_followed(tmp_path: Path):
    root = tmp_path / "skills"
    write(root, "linked", simple("linked"))
    outside = tmp_path / "outside"
    (outside / "private").mkdir(parents=True)
    (outside / "private" / "id_rsa").write_text("KEY")
    (outside / "notes.txt").write_text("notes")
    (root / "linked" / "references").mkdir()
    (root / "linked" / "references" / "ok.md").write_text("fine")
    (root / "linked" / "references" / "escape.txt").symlink_to(outside / "notes.txt")
    (root / "linked" / "keys").symlink_to(outside / "private", target_is_directory=True)
    (root / "linked" / "same").symlink_to(root / "linked" / "references", target_is_directory=True)
    write(outside, "stolen", simple("stolen", body="STOLEN BODY"))
    (root / "stolen").mkdir()
    (root / "stolen" / "SKILL.md").symlink_to(outside / "stolen" / "SKILL.md")
    skills, problems = find_skills([root])
    assert [s.name for s in skills] == ["linked"]
    assert problems == [f"skipped {root / 'stolen' / 'SKILL.md'}: SKILL.md is a link to a file outside its folder"]
    text = load_skill(skills, "linked")
    assert "references/ok.md (4 bytes)" in text.splitlines()
    assert "same/" in text.splitlines()
    assert "escape.txt" not in text and "keys" not in text and "id_rsa" not in text
    assert "(2 links leading outside the skill folder not listed)" in text


def test_a_linked_skill_folder_loads_from_its_target(tmp_path: Path):
    # people link a skill folder from a checkout into ~/.claude/skills: that is their choice, so it loads
    checkout = tmp_path / "checkout"
    write(checkout, "shared", simple("shared", body="Shared steps."))
    (checkout / "shared" / "notes.md").write_text("n")
    root = tmp_path / "skills"
    root.mkdir()
    (root / "shared").symlink_to(checkout / "shared", target_is_directory=True)
    skills, problems = find_skills([root])
    assert problems == [] and [s.name for s in skills] == ["shared"]
    text = load_skill(skills, "shared")
    assert "Shared steps." in text and "notes.md (1 bytes)" in text.splitlines()


def test_past_twenty_files_folders_are_one_line_each_with_counts_and_kinds(tmp_path: Path):
    root = tmp_path / "skills"
    write(root, "canvas", simple("canvas"))
    folder = root / "canvas"
    (folder / "fonts").mkdir()
    for i in range(60):
        (folder / "fonts" / f"Font{i:02d}-Regular.ttf").write_bytes(b"x" * 1024)
    for i in range(21):
        (folder / "fonts" / f"Font{i:02d}-Italic.otf").write_bytes(b"x" * 1024)
    (folder / "fonts" / "OFL.txt").write_text("license")
    (folder / "scripts").mkdir()
    (folder / "scripts" / "render.py").write_text("print(1)\n")
    (folder / "LICENSE.txt").write_text("MIT")
    skills, _ = find_skills([root])
    text = load_skill(skills, "canvas")
    files = text.split("## Files in this skill", 1)[1].splitlines()[1:]
    assert files == ["LICENSE.txt (3 bytes)", "fonts/ (82 files: 60 .ttf, 21 .otf, 1 .txt; 81.0 KB in all)",
                     "scripts/render.py (9 bytes)"]


def many(count: int) -> list[Skill]:
    return [Skill(f"skill-{i:03d}", f"Procedure number {i} " + "with details " * 20, Path(f"/s/skill-{i:03d}/SKILL.md"))
            for i in range(count)]


def test_prompt_lists_every_skill_within_budget():
    skills = many(5)
    text = skills_prompt(skills, 10_000)
    lines = text.splitlines()
    assert lines[0].startswith("Skills (") and len(lines) == 6
    assert lines[1] == f"- skill-000: {skills[0].description}"
    assert [line.split(":")[0] for line in lines[1:]] == [f"- skill-{i:03d}" for i in range(5)]
    assert skills_prompt([], 10_000) == ""


def test_prompt_shortens_descriptions_past_the_budget():
    skills = many(20)
    full = skills_prompt(skills, 1_000_000)
    text = skills_prompt(skills, len(full) // 2)
    assert len(text) <= len(full) // 2
    assert [l.split(":")[0] for l in text.splitlines()[1:]] == [f"- skill-{i:03d}" for i in range(20)]
    assert all(l.endswith("…") for l in text.splitlines()[1:])
    assert skills_prompt(skills, len(full) // 2) == text  # stable, so the prompt prefix stays cacheable


def test_prompt_leaves_skills_out_and_says_how_many():
    skills = many(200)
    text = skills_prompt(skills, 2_000)
    lines = text.splitlines()
    assert len(text) <= 2_000
    shown = len(lines) - 2
    assert 0 < shown < 200 and lines[-1] == f"({200 - shown} more skills not listed; call skill with an empty name to list all.)"
    assert lines[1].startswith("- skill-000: ") and lines[shown].startswith(f"- skill-{shown - 1:03d}: ")


def test_skill_tool_runs_through_the_toolbox(wild: Path):
    tool = make_skill_tool(lambda: find_skills([wild])[0])
    assert (tool.name, tool.group, tool.read_only) == ("skill", "core", True)
    assert tool.spec().parameters["required"] == ["name"]
    ctx = ToolContext(cwd=wild)
    result = run_call(ToolCall("c1", "skill", '{"name": "pdf-forms"}'), tool, ctx, lambda *a: False)
    assert not result.is_error and result.content.startswith("# Skill: pdf-forms\n")
    listing = run_call(ToolCall("c2", "skill", '{"name": ""}'), tool, ctx, lambda *a: False)
    assert listing.content.startswith("Known skills") and "- notes-only: Keep meeting notes." in listing.content
    missing = run_call(ToolCall("c3", "skill", "{}"), tool, ctx, lambda *a: False)
    assert missing.is_error and "name is required" in missing.content


def test_skills_command_lists_and_shows(wild: Path):
    write(wild, "broken", "no frontmatter at all\n")
    skills, problems = find_skills([wild])
    text, status = skills_command([], skills, problems)
    assert status == 0 and text.startswith("4 skills (ankit skills show NAME prints one)")
    assert f"\n{wild}:\n" in text and "\n  api-review  Review an HTTP API design" in text
    assert f"Problems (1):\n  skipped {wild / 'broken' / 'SKILL.md'}: no frontmatter" in text
    assert skills_command(["list"], skills, problems) == (text, 0)
    shown, status = skills_command(["show", "fix-issue"], skills, problems)
    assert status == 0 and shown == load_skill(skills, "fix-issue")
    missing, status = skills_command(["show", "nope"], skills, problems)
    assert status == 1 and "Known skills" in missing
    assert skills_command(["frobnicate"], skills, problems)[1] == 2
    assert skills_command(["show"], skills, problems)[1] == 2
    empty, status = skills_command([], [], [])
    assert status == 0 and empty.startswith("No skills found.")


def test_bundled_skills_load_cleanly_and_fit_the_cap():
    skills, problems = find_skills([BUNDLED])
    assert problems == []
    names = {s.name for s in skills}
    assert {"review-commit", "write-ankit-tool"} <= names
    for skill in skills:
        text = load_skill(skills, skill.name)
        assert "cut here" not in text and "## Example" in text, skill.name
        assert skill.suggested_tools and len(skill.description) <= 1024


def test_user_only_skills_stay_out_of_the_prompt_but_load_by_name(tmp_path: Path):
    write(tmp_path, "repair", "---\nname: repair\ndescription: Rewrite a broken state file. Use when status says corrupt.\n"
                              "argument-hint: [--slug task-slug]\ndisable-model-invocation: true\n---\nBack it up first.\n")
    write(tmp_path, "status", simple("status"))
    skills, problems = find_skills([tmp_path])
    assert problems == [] and [s.listed for s in skills] == [False, True]
    prompt = skills_prompt(skills, 10_000)
    assert "- status:" in prompt and "repair" not in prompt
    assert "Back it up first." in load_skill(skills, "repair")
    assert "  repair  Rewrite a broken state file. Use when status says corrupt. (only on request)" in skills_command([], skills, [])[0]
