"""The hooks a session runs around its turns (SessionStart, UserPromptSubmit, Stop, PreCompact, SessionEnd), behind
the one seam the turn calls (protocols.TurnHooks); the tool events are the runner's."""

from dataclasses import dataclass, field

from ankit.errors import Cancelled
from ankit.protocols import View
from ankit.hooks.events import Hooks

STOP_LIMIT = 3  # times a turn Stop hooks may send the model back to work


@dataclass
class SessionHooks:
    """The configured hooks of one session, their notes told on its view."""

    hooks: Hooks
    view: View
    _started: bool = field(default=False, init=False)  # SessionStart has run
    _stop_tries: int = field(default=0, init=False)  # Stop hooks that sent the model back this turn
    _stop_answers: list[str] = field(default_factory=list, init=False)  # the replies they sent back

    def prompt(self, session_id: str, text: str, resumed: bool) -> list[str]:
        """SessionStart (once) and UserPromptSubmit: the context they add (kept apart from what the user typed);
        a block stops the message."""
        self.hooks.bind(session_id)
        self._stop_tries, self._stop_answers = 0, []
        added = []
        if not self._started:
            self._started = True
            source = "resume" if resumed else "startup"
            added += self._hook("SessionStart", {"source": source}, source).context
        outcome = self._hook("UserPromptSubmit", {"prompt": text})
        if outcome.blocked or outcome.stop:
            raise Cancelled(f"the UserPromptSubmit hook blocked this message: {outcome.reason or outcome.stop}")
        return added + outcome.context

    def stop(self, session_id: str, answer: str) -> str | None:
        """A Stop hook that blocks is shown as hook feedback and gives the model its reason to go on: at most
        STOP_LIMIT times a turn, and not again once the model answers as it did before."""
        if not self.hooks.active("Stop"):
            return None
        if answer in self._stop_answers or self._stop_tries >= STOP_LIMIT:
            why = "the reply did not change" if answer in self._stop_answers else f"{STOP_LIMIT} times this turn"
            self.view.notice(f"the Stop hook sent the model back {self._stop_tries} times; not again ({why})")
            return None
        outcome = self._hook("Stop", {"stop_hook_active": self._stop_tries > 0})
        if not outcome.blocked:
            return None
        self._stop_tries += 1
        self._stop_answers.append(answer)
        self.view.notice(f"Stop hook feedback: {outcome.reason}")
        return f"[Stop hook] {outcome.reason}"

    def compact(self, session_id: str, trigger: str) -> None:
        """PreCompact hooks run before a summary is asked for ("manual": /compact)."""
        if self.hooks.active("PreCompact"):
            self.hooks.bind(session_id)
            self._hook("PreCompact", {"trigger": trigger, "custom_instructions": ""}, trigger)

    def end(self, session_id: str, reason: str = "other") -> None:
        """The session is over (ankit exits): SessionEnd hooks run."""
        if self.hooks.active("SessionEnd"):
            self.hooks.bind(session_id)
            self._hook("SessionEnd", {"reason": reason}, reason)

    def _hook(self, event: str, fields: dict, subject: str = ""):
        """Run one event's hooks (those whose matcher takes `subject`: a source, a trigger); their notes are told."""
        outcome = self.hooks.run(event, fields, subject)
        for note in outcome.notes:
            self.view.notice(note)
        return outcome
