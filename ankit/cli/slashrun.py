"""`ankit -p "/name args"`: a custom command or a skill run as the REPL runs it (its allowed-tools, its model, its
!`command` lines through the tool runner, which asks nobody here: --yes or the command's allowed-tools let them
run); any other /word is one line, never sent as text."""

import re
import sys
from dataclasses import dataclass, field

from ankit.context.mentions import expand
from ankit.errors import AnkitError
from ankit.protocols import View
from ankit.safety.visible import visible
from ankit.terminal.command_run import run_named
from ankit.terminal.slash import ALIASES, COMMANDS, app_commands, is_command, unknown

SLASH = re.compile(r"\s*/(\S+)\s*(.*)", re.DOTALL)


@dataclass
class OneShot:
    """What a custom command runs on in -p: the app, the session, the view, and send (one turn, its answer kept)."""

    app: object
    session: object
    view: View
    custom: dict = field(default_factory=dict)
    answer: str = ""

    def send(self, text: str, mentions: bool = True, typed: bool = True) -> None:
        """One turn with this text, @mentions attached (only inside the folder when the user did not type it)."""
        images = []
        if mentions:
            expanded = expand(text, self.app.cwd, self.session.provider.accepts_images, self.app.scrubber(), not typed)
            for notice in expanded.notices:
                print(f"ankit: {visible(notice)}", file=sys.stderr)
            text, images = expanded.text, expanded.images
        self.answer = self.session.turn(text, images)


def names_command(text: str) -> bool:
    """Whether a -p prompt is a /name line (a path such as /etc/hosts is not)."""
    return is_command(text.strip().split("\n", 1)[0])


def run_slash(text: str, app, session, view: View) -> str:
    """Run the /name line's command or skill and return the answer; AnkitError with one line when it names
    neither, or names a command of the REPL only."""
    match = SLASH.fullmatch(text)
    name, arguments = match[1], match[2].strip()
    run = OneShot(app, session, view)
    run.custom, problems = app_commands(app)
    for problem in problems:
        print(f"ankit: {visible(problem)}", file=sys.stderr)
    if run_named(run, name, arguments):
        return run.answer
    if ALIASES.get(name, name) in COMMANDS:
        raise AnkitError(f"/{name} is a command of the REPL, not run by -p: run ankit and type it there")
    raise AnkitError(unknown("/" + name, run.custom) + " (-p runs custom commands and skills)")
