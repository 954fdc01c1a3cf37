"""The conversation: the history and its edits (clear, rewind, summaries, dropping the last turn), nothing else."""

from dataclasses import dataclass, field

from ankit.errors import AnkitError
from ankit.records import Image, Message, typed
from ankit.storage.sessions import title_of


@dataclass
class Conversation:
    """The messages of one session and how they are edited; the session's round loop appends to it."""

    messages: list[Message] = field(default_factory=list)
    title: str = ""
    told_overflow: bool = False  # the user heard that the oldest messages no longer fit the window
    context: list[str] = field(default_factory=list)  # ! command output (an /undo) for the next message

    def add_context(self, text: str) -> None:
        """Keep text (a ! command and its output, an /undo) to go after the next message's text."""
        self.context.append(text)

    def add_user(self, text: str, images: list[Image] | None = None, added: list[str] = ()) -> None:
        """The user's message, with the kept context after the typed text (which titles the session), and what
        hooks added after that (sent, but never shown as typed: records.typed)."""
        if self.context:
            text = "\n\n".join([text, *self.context])
            self.context.clear()
        added = list(added)
        self.messages.append(Message("user", "\n\n".join([text, *added]), images=list(images or []), added=added))

    def keep_title(self) -> None:
        """Title the session by its first message, unless it has a title already."""
        self.title = self.title or title_of(self.messages)

    def clear(self) -> None:
        """Empty the history; the activated set stays."""
        self.replace([])

    def replace(self, messages: list[Message]) -> None:
        """Put messages in place of the history (after /clear or /compact); the title stays the first message's."""
        self.keep_title()
        self.messages[:] = messages
        self.told_overflow = False

    def rewind_points(self) -> list[tuple[int, str]]:
        """The user messages /rewind can go back to: (position in the history, text), oldest first."""
        return [(i, typed(m)) for i, m in enumerate(self.messages) if m.role == "user" and not m.summary
                and not (m.added and not typed(m)) and not m.text.startswith("[Stop hook] ")]  # hooks wrote these

    def check(self, at: int) -> None:
        """Raise unless message `at` is a user message of this conversation (one /rewind can go back to)."""
        if not 0 <= at < len(self.messages) or self.messages[at].role != "user":
            raise AnkitError("that is not a message of this conversation; /rewind lists them")

    def cut(self, at: int) -> None:
        """Take the conversation back to just before message `at`."""
        self.check(at)
        self.replace(self.messages[:at])

    def live(self) -> list[Message]:
        """The messages requests carry: from the last /compact summary on (all of them before any)."""
        start = next((i for i in range(len(self.messages) - 1, -1, -1) if self.messages[i].summary), 0)
        return self.messages[start:]

    def append_summary(self, summary: Message, answer: Message) -> None:
        """Start the requests' history at a summary; every earlier message stays (and stays in the file)."""
        self.keep_title()
        self.messages += [summary, answer]
        self.told_overflow = False

    def last_sent(self) -> str | None:
        """The text of the last user message, if any (what /retry sends again)."""
        return next((m.text for m in reversed(self.messages) if m.role == "user"), None)

    def drop_last_turn(self) -> None:
        """Remove the last user message and everything after it."""
        starts = [i for i, m in enumerate(self.messages) if m.role == "user"]
        if starts:
            del self.messages[starts[-1]:]
