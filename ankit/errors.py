"""The exception tree: every message is one line that says what to do; bug_line for an exception that is not one."""

import traceback
from pathlib import Path


class AnkitError(Exception):
    """Base class: str(error) is the one line the user sees."""


class ConfigError(AnkitError):
    """A setting is missing or malformed."""


class ContextError(AnkitError):
    """A message that cannot fit the model's context window: refused before anything was sent."""


class ProviderError(AnkitError):
    """The provider refused or failed a request."""

    def __init__(self, message: str, status: int | None = None, retryable: bool = False, overflow: bool = False,
                 detail: str = ""):
        super().__init__(message)
        self.status = status
        self.retryable = retryable
        self.overflow = overflow  # the conversation does not fit the model's context: each front end says its remedy
        self.detail = detail  # the server's own words (cleaned), which the line may leave out


class StreamError(ProviderError):
    """A stream broke, stalled or ended without its end marker; partial output may exist."""


class ToolError(AnkitError):
    """What a tool raises on purpose (as ankit.toolkit.ToolError): its message is the error result the model reads."""


class Cancelled(AnkitError):
    """The user cancelled the running turn."""


class BudgetError(AnkitError):
    """The next request would take the session past max_cost."""


class StateFileError(AnkitError, OSError):
    """One of ankit's own files or folders is not safe to use: a symlink, another user's, or writable by others."""


class ToolTimeout(BaseException):
    """Raised inside a tool at its time limit; only the tool runner catches it. Not a KeyboardInterrupt, so no
    Ctrl-C handler mistakes it for the user, and not an Exception, so a tool's `except Exception` cannot swallow it
    (its `finally` blocks and ankit.toolkit.proc's cleanup still run)."""


def bug_line(exc: BaseException) -> str:
    """One line for an exception ankit did not expect (a bug in ankit): what it was and where it was raised."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    return f"a bug in ankit: {type(exc).__name__}: {exc}{where} (please report it)"
