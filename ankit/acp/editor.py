"""The editor's own files and terminals (protocols.Editor) through fs/read_text_file, fs/write_text_file and
terminal/create, output, wait_for_exit, kill and release, where the client offers them. The tools reach it as
ctx.editor after the policy, the sandbox and the hooks have decided, exactly as for ankit's own files."""

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ankit.acp.view import AcpView
from ankit.acp.wire import Closed, RpcError
from ankit.records import TerminalRun

OUTPUT_LIMIT = 1024 * 1024  # bytes of a command's output the editor keeps for us (the end of it)
FS_TIMEOUT = 60.0  # seconds a file read or write through the editor may take
KILL_TIMEOUT = 10.0  # seconds for the editor to answer a kill, output or release


@dataclass
class Offers:
    """What the client said it offers in initialize's clientCapabilities."""

    reads: bool = False
    writes: bool = False
    runs: bool = False
    forms: bool = False  # elicitation/create in form mode

    @classmethod
    def of(cls, capabilities: dict) -> "Offers":
        """From clientCapabilities ({"fs": {"readTextFile", "writeTextFile"}, "terminal", "elicitation": {"form"}})."""
        fs = capabilities.get("fs") if isinstance(capabilities.get("fs"), dict) else {}
        asks = capabilities.get("elicitation") if isinstance(capabilities.get("elicitation"), dict) else {}
        return cls(fs.get("readTextFile") is True, fs.get("writeTextFile") is True, capabilities.get("terminal") is True,
                   asks.get("form") is not None)


class AcpEditor:
    """One session's editor: `ask(method, params, timeout)` sends a request and returns its result."""

    def __init__(self, ask: Callable[..., dict], session_id: str, view: AcpView, offers: Offers):
        self.ask, self.session_id, self.view = ask, session_id, view
        self.reads, self.writes, self.runs = offers.reads, offers.writes, offers.runs

    def _call(self, method: str, params: dict, timeout: float | None = FS_TIMEOUT):
        """A request to the editor; its error, a timeout or a closed connection as an OSError saying which."""
        try:
            return self.ask(method, {"sessionId": self.session_id, **params}, timeout)
        except RpcError as exc:
            raise OSError(f"the editor answered {method} with an error: {exc.message}") from None
        except TimeoutError:
            raise OSError(f"the editor did not answer {method} within {timeout:g} s") from None
        except Closed:
            raise OSError("the editor closed the connection") from None

    def read_text(self, path: Path) -> str:
        result = self._call("fs/read_text_file", {"path": str(path)})
        content = result.get("content") if isinstance(result, dict) else None
        if not isinstance(content, str):
            raise OSError("the editor's answer to fs/read_text_file has no content")
        return content

    def write_text(self, path: Path, content: str) -> None:
        self._call("fs/write_text_file", {"path": str(path), "content": content})
        self.view.written[Path(path).resolve()] = content

    def run(self, argv: list[str], cwd: Path, timeout: float) -> TerminalRun:
        started = time.monotonic()
        created = self._call("terminal/create", {"command": argv[0], "args": argv[1:], "cwd": str(cwd),
                                                 "env": [], "outputByteLimit": OUTPUT_LIMIT})
        terminal = created.get("terminalId") if isinstance(created, dict) else None
        if not isinstance(terminal, str):
            raise OSError("the editor's answer to terminal/create has no terminalId")
        self.view.terminal(terminal)
        timed_out = False
        try:
            try:
                self._call("terminal/wait_for_exit", {"terminalId": terminal}, timeout)
            except OSError as exc:
                if "did not answer" not in str(exc):
                    raise
                timed_out = True
                self._call("terminal/kill", {"terminalId": terminal}, KILL_TIMEOUT)
            return self._outcome(terminal, timed_out, time.monotonic() - started)
        except KeyboardInterrupt:  # a cancel: the command stops with the turn
            self._quietly("terminal/kill", terminal)
            raise
        finally:
            self._quietly("terminal/release", terminal)

    def _outcome(self, terminal: str, timed_out: bool, seconds: float) -> TerminalRun:
        """The command's output and how it ended, as terminal/output tells it."""
        result = self._call("terminal/output", {"terminalId": terminal}, KILL_TIMEOUT)
        result = result if isinstance(result, dict) else {}
        status = result.get("exitStatus") if isinstance(result.get("exitStatus"), dict) else {}
        code = status.get("exitCode") if isinstance(status.get("exitCode"), int) else None
        signal = status.get("signal") if isinstance(status.get("signal"), str) else ""
        output = result.get("output") if isinstance(result.get("output"), str) else ""
        return TerminalRun(None if timed_out else code, output, signal or ("killed" if timed_out else ""),
                           timed_out, result.get("truncated") is True, seconds)

    def _quietly(self, method: str, terminal: str) -> None:
        """kill or release on the way out: a failure there changes nothing the user can act on."""
        try:
            self._call(method, {"terminalId": terminal}, KILL_TIMEOUT)
        except (OSError, KeyboardInterrupt):
            pass
