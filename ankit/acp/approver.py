"""Approvals as session/request_permission: the same question the REPL asks (the preview, what an always answer
covers), its four answers mapped onto ankit's: allow once (yes), allow always (the policy remembers it as
narrowly as the REPL's [a]lways), reject once (no), reject always (no, and no more questions for what an
always would have covered, this session). The policy, the sandbox and the hooks have decided before."""

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
        text = outside(preview.rstrip("\n"), PREVIEW_CAP) or outside(str(args), PREVIEW_CAP)
        fence = "```diff" if "\n@@" in "\n" + text or text.startswith("---") else "```"
        body = f"{fence}\n{text}\n```\n\nAllow always covers: {outside(covers, 500, line=True)}"
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
