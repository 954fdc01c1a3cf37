"""The system prompt: who ankit is and the skills list; nothing in it changes between rounds."""

from pathlib import Path

INTRO = """You are ankit, a coding and terminal assistant working in the folder {cwd}.
Answer concisely. Use tools to look at real files and run real commands rather than guessing.
Only a few tools are offered at first. When a task needs something else (editing files, running
shell commands, git, the web, processes, memory, GitHub, ...), call find_tools with a few plain words
describing the need; the tools it loads can be called from the next step on."""

SKILLS = """
Skills are procedures you can load with the skill tool when a task matches one:
{skills}"""


def system_prompt(cwd: Path, skills_list: str) -> str:
    """Build the system prompt from the working folder and the skills list."""
    text = INTRO.format(cwd=cwd)
    if skills_list.strip():
        text += SKILLS.format(skills=skills_list.rstrip())
    return text
