"""The hooks a session runs around its turns (SessionStart, UserPromptSubmit, Stop, PreCompact, SessionEnd), behind
the one seam the turn calls (protocols.TurnHooks); the tool events are the runner's."""

from dataclasses import dataclass, field

from ankit.errors import Cancelled
from ankit.protocols import View
from ankit.tooling.hooks import Hooks

STOP_LIMIT = 3  # times a turn Stop hooks may send the model back to work


@dataclass
class SessionHooks:
    """The configured hooks of one session, their notes told on its view."""

    hooks: Hooks
    view: View
    _started: bool = field(default=False, init=False)  # SessionStart has run
    _stop_tries: int = field(default=0, init=False)  # Stop hooks that sent the model back this turn

    def prompt(self, session_id: str, text: str, resumed: bool) -> str:
        """SessionStart (once) and UserPromptSubmit: context they add goes with the message; a block stops it."""
        self.hooks.bind(session_id)
        added = []
        if not self._started:
            self._started = True
            added += self._hook("SessionStart", {"source": "resume" if resumed else "startup"}).context
        outcome = self._hook("UserPromptSubmit", {"prompt": text})
        if outcome.blocked or outcome.stop:
            raise Cancelled(f"the UserPromptSubmit hook blocked this message: {outcome.reason or outcome.stop}")
        return "\n\n".join([text, *added, *outcome.context])

    def stop(self, session_id: str) -> str | None:
        """A Stop hook that blocks gives the model its reason to go on (at most STOP_LIMIT times a turn)."""
        if not self.hooks.active("Stop") or self._stop_tries >= STOP_LIMIT:
            self._stop_tries = 0
            return None
        outcome = self._hook("Stop", {"stop_hook_active": self._stop_tries > 0})
        self._stop_tries = self._stop_tries + 1 if outcome.blocked else 0
        return f"[Stop hook] {outcome.reason}" if outcome.blocked else None

    def compact(self, session_id: str, trigger: str) -> None:
        """PreCompact hooks run before a summary is asked for ("manual": /compact)."""
        if self.hooks.active("PreCompact"):
            self.hooks.bind(session_id)
            self._hook("PreCompact", {"trigger": trigger, "custom_instructions": ""})

    def end(self, session_id: str, reason: str = "other") -> None:
        """The session is over (ankit exits): SessionEnd hooks run."""
        if self.hooks.active("SessionEnd"):
            self.hooks.bind(session_id)
            self._hook("SessionEnd", {"reason": reason})

    def _hook(self, event: str, fields: dict):
        """Run one event's hooks; their notes are told."""
        outcome = self.hooks.run(event, fields)
        for note in outcome.notes:
            self.view.notice(note)
        return outcome
