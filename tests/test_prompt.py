"""The system prompt, exactly: without project instructions it is as before; with AGENTS.md they follow the intro."""

from pathlib import Path

from ankit.context.instructions import load_instructions
from ankit.turn.prompt import Prompt

INTRO_TEXT = """You are ankit, a coding and terminal assistant working in the folder /work/app.
Answer concisely. Use tools to look at real files and run real commands rather than guessing.
Only a few tools are offered at first. When a task needs something else (editing files, running
shell commands, git, the web, processes, memory, GitHub, ...), call find_tools with a few plain words
describing the need; the tools it loads can be called from the next step on."""


def test_a_folder_without_agents_md_gets_the_prompt_unchanged():
    assert Prompt(Path("/work/app")).system("gpt-4o") == INTRO_TEXT


def test_with_every_tool_offered_the_prompt_does_not_speak_of_find_tools():
    assert Prompt(Path("/work/app"), finder=False).system("gpt-4o") == INTRO_TEXT.split("\nOnly a few")[0]


def test_agents_md_and_the_system_flag_follow_the_intro_exactly(tmp_path):
    work = tmp_path / "app"
    (work / ".git").mkdir(parents=True)
    (work / "AGENTS.md").write_text("# Conventions\nRun `make test` before committing.\n")
    found = load_instructions(work, tmp_path / "no-config")
    prompt = Prompt(Path("/work/app"), instructions=found.text, extra="Answer in French.")
    assert prompt.system("gpt-4o") == INTRO_TEXT + (
        "\n\nProject instructions from AGENTS.md files (outermost first; a later, more specific file wins where "
        "they disagree):\n\n## AGENTS.md\n# Conventions\nRun `make test` before committing."
        "\n\nAnswer in French.")
