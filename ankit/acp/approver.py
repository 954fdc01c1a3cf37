"""The questions ankit puts to the user, through the editor. Approvals as session/request_permission: the same
question the REPL asks (the preview, what an always answer covers), its four answers mapped onto ankit's: allow
once (yes), allow always (the policy remembers it as narrowly as the REPL's [a]lways), reject once (no), reject
always (no, and no more questions for what an always would have covered, this session); the policy, the sandbox
and the hooks have decided before. An MCP server's question (elicitation) as elicitation/create's form, where the
client offers forms."""

import json
import re
from collections.abc import Callable

from ankit.acp.view import AcpView, kind_of, title_of
from ankit.acp.wire import Closed, RpcError
from ankit.errors import Cancelled
from ankit.protocols import Tool
from ankit.safety.policy import Policy
from ankit.safety.text import outside

PREVIEW_CAP = 20_000  # characters of a preview sent (a diff is never cut in the REPL; the editor scrolls)
OPTIONS = [("allow_once", "Allow once"), ("allow_always", "Allow always"), ("reject_once", "Reject"),
           ("reject_always", "Reject always")]
REFUSED_ALWAYS = "the user refused calls like this for the rest of the session; do not retry, ask what to do instead"


class AcpApprover:
    """Asks the client; `ask(method, params)` sends a request and returns its result (wire.Connection.request)."""

    def __init__(self, ask: Callable[[str, dict], dict], session_id: str, view: AcpView, policy: Policy,
                 yes: bool = False):
        self.ask, self.session_id, self.view, self.policy, self.yes = ask, session_id, view, policy, yes
        self.refused: list = []  # policy grants the user answered reject always to

    def __call__(self, tool: Tool, args: dict, preview: str) -> bool | str:
        """True runs the call, a reason declines it; Cancelled when the turn was cancelled meanwhile."""
        if self.yes:
            return True
        lasting = tool.outlives(args, None)
        grant = self.policy.grant(tool.name, args, lasting)
        if grant in self.refused:
            return REFUSED_ALWAYS
        answer = self._question(tool, args, preview, self.policy.coverage(tool.name, args, lasting))
        if answer == "allow_always":
            self.policy.remember(tool.name, args, lasting)
        elif answer == "reject_always":
            self.refused.append(grant)
            return REFUSED_ALWAYS
        if answer in ("allow_once", "allow_always"):
            self.view.running_now()
            return True
        return False

    def _question(self, tool: Tool, args: dict, preview: str, covers: str) -> str:
        """The option the user picked (its kind); raises Cancelled when the client says the turn was cancelled."""
        running = self.view.running
        call_id = running.call.id if running is not None else f"ask-{tool.name}"
        text = outside(preview.rstrip("\n") or json.dumps(args, indent=2, ensure_ascii=False), PREVIEW_CAP)
        # a fence longer than any run of backticks in the text: a command holding ``` cannot close it and write
        # its own Markdown (a fake "Allow always covers: nothing") under the editor's question
        ticks = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", text)), default=0))
        fence = ticks + ("diff" if "\n@@" in "\n" + text or text.startswith("---") else "")
        body = f"{fence}\n{text}\n{ticks}\n\nAllow always covers: {outside(covers, 500, line=True)}"
        params = {"sessionId": self.session_id,
                  "toolCall": {"toolCallId": call_id, "title": title_of(running.call, args) if running else tool.name,
                               "kind": kind_of(tool), "status": "pending",
                               "content": [{"type": "content", "content": {"type": "text", "text": body}}]},
                  "options": [{"optionId": kind, "name": name, "kind": kind} for kind, name in OPTIONS]}
        try:
            result = self.ask("session/request_permission", params)
        except Closed:
            raise Cancelled("the editor closed the connection") from None
        except RpcError as exc:
            self.view.notice(f"the editor could not ask about {tool.name} ({exc.message}); declined")
            return "reject_once"
        outcome = result.get("outcome") if isinstance(result, dict) else None
        outcome = outcome if isinstance(outcome, dict) else {}
        if outcome.get("outcome") == "cancelled":
            raise Cancelled("cancelled at the approval prompt")
        picked = outcome.get("optionId")
        return picked if picked in dict(OPTIONS) else "reject_once"


class AcpElicitor:
    """An MCP server's question as the editor's form (protocols.Elicitor); declined with a line where the client
    offers no forms. Called from an MCP server's thread; `view` and `session_id` are set once the session is."""

    def __init__(self, ask: Callable[[str, dict], dict], forms: bool):
        self.ask, self.forms = ask, forms
        self.view: AcpView | None = None
        self.session_id = ""

    def __call__(self, server: str, message: str, schema: dict) -> dict:
        shown = outside(message, 200, line=True)
        if not self.forms or not self.session_id:
            self._tell(f"MCP server {server!r} asked \"{shown}\"; declined (this editor takes no forms)")
            return {"action": "decline"}
        params = {"sessionId": self.session_id, "mode": "form", "requestedSchema": schema,
                  "message": f"MCP server {outside(server, 40, line=True)} asks: {outside(message, 2000)}"}
        try:
            result = self.ask("elicitation/create", params)
        except (RpcError, Closed) as exc:
            self._tell(f"MCP server {server!r} asked \"{shown}\"; declined (the editor could not ask: {exc})")
            return {"action": "decline"}
        result = result if isinstance(result, dict) else {}
        action = result.get("action") if result.get("action") in ("accept", "decline", "cancel") else "decline"
        content = result.get("content") if isinstance(result.get("content"), dict) else {}
        return {"action": action, **({"content": content} if action == "accept" else {})}

    def _tell(self, line: str) -> None:
        if self.view is not None:
            self.view.notice(line)
