"""The system prompt: who ankit is, project instructions, -s text and the skills list; fixed between rounds."""

from dataclasses import dataclass, field
from pathlib import Path

from ankit.skills.library import Skill, skills_prompt
from ankit.turn.window import context_window, skills_budget

INTRO = """You are ankit, a coding and terminal assistant working in the folder {cwd}.
Answer concisely. Use tools to look at real files and run real commands rather than guessing."""
FINDING = """Only a few tools are offered at first. When a task needs something else (editing files, running
shell commands, git, the web, processes, memory, GitHub, ...), call find_tools with a few plain words
describing the need; the tools it loads can be called from the next step on."""


def system_prompt(cwd: Path, skills_list: str, instructions: str = "", extra: str = "", mode: str = "",
                  finder: bool = True, code: str = "") -> str:
    """Build the system prompt: the working folder, how tools are found (unless every tool is offered), the
    sandbox mode, code mode's tools, project instructions, --system text, the skills list."""
    intro = INTRO.format(cwd=cwd) + ("\n" + FINDING if finder else "")
    parts = [intro, mode.strip(), code.strip(), instructions.strip(), extra.strip(), skills_list.strip()]
    return "\n\n".join(part for part in parts if part)


@dataclass
class Prompt:
    """The system prompt and context window for any model, from the folder, the skills and the config."""

    cwd: Path
    skills: list[Skill] = field(default_factory=list)
    configured_window: int = 0  # the config's context_window; 0 means "known for the model, or the default"
    instructions: str = ""  # AGENTS.md / CLAUDE.md text (ankit.context.instructions)
    extra: str = ""  # -s/--system text for this run
    mode: str = ""  # what the sandbox mode in force means for the model (plan mode says so)
    finder: bool = True  # False when every tool is offered from the start: no find_tools to tell of
    code: str = ""  # code mode: how run_code works and the tools it can call (codemode.stubs.code_prompt)

    def window(self, model: str, server: int = 0) -> int:
        """The model's context window in tokens: the config's, else what the server said, else a guess."""
        return context_window(model, self.configured_window or server)

    def system(self, model: str) -> str:
        """The system prompt for a model (the skills list gets about 1% of its window)."""
        skills = skills_prompt(self.skills, skills_budget(self.window(model)))
        return system_prompt(self.cwd, skills, self.instructions, self.extra, self.mode, self.finder, self.code)
