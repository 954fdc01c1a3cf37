"""Logging in without a browser on this machine: the device authorization grant (RFC 8628).

`ankit mcp login NAME --device` asks the authorization server for a user code, shows it with the address where
to enter it (https only, printed whole on a line of its own), and polls the token endpoint at the interval the
server sets (slowing down when told) until the user has approved it on any other device, refused it, or the code
expired. The client is the one registered once per authorization server (oauth.register), and the tokens are kept
as a browser login's are.
"""

import socket
import time
from collections.abc import Callable

from ankit.mcp.jsonrpc import McpError
from ankit.mcp.oauth import DEVICE_GRANT, credentials, discover, keep, register, stamped
from ankit.mcp.oauthweb import SAID, exchange, secure, shown
from ankit.safety.text import outside
from ankit.mcp.tokens import TokenStore

LONGEST = 1800.0  # seconds a device login waits at most, whatever expires_in says
CODE_LENGTH = 64  # characters of a user code shown


def device_login(name: str, url: str, store: TokenStore, say: Callable[[str], None], client_id: str = "",
                 scope: str = "", sleep: Callable[[float], None] = time.sleep) -> str:
    """The whole device login for one server; returns a line saying it worked (McpError in one line otherwise)."""
    resource, meta = discover(url)
    endpoint = meta.get("device_authorization_endpoint")
    if not endpoint:
        raise McpError(f"the authorization server at {shown(meta['issuer'])} offers no device login (RFC 8628): run "
                       f"ankit mcp login {name} and paste the address the browser ends on")
    client = credentials(register(meta, _redirect(), store, client_id))
    form = {**client, "resource": resource["resource"]}
    scope = scope or " ".join(str(s) for s in resource.get("scopes_supported") or [])
    if scope:
        form["scope"] = scope
    status, grant = exchange(endpoint, form=form, what="device authorization endpoint")
    if status != 200 or not all(isinstance(grant.get(k), str) and grant[k] for k in
                                ("device_code", "user_code", "verification_uri")):
        said = grant.get("error_description") or grant.get("error") or f"HTTP {status}"
        raise McpError(f"the authorization server refused a device login for {name!r}: "
                       f"{outside(said, SAID, line=True)}")
    _show(name, grant, say)
    tokens = _poll(meta, client, grant, resource["resource"], name, sleep)
    return keep(store, name, url, meta, client, tokens)


def _redirect() -> str:
    """A loopback redirect for the registration (a later browser login listens there when it can)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}/callback"


def _show(name: str, grant: dict, say: Callable[[str], None]) -> None:
    """Where to go and the code to enter, each address whole on a line of its own."""
    code = outside(grant["user_code"], CODE_LENGTH, line=True)
    say(f"to log in to MCP server {name!r}, open this address on any device with a browser:")
    say(secure(grant["verification_uri"], "verification address"))
    say(f"and enter the code {code}")
    if isinstance(grant.get("verification_uri_complete"), str):
        say("or open this address, which carries the code:")
        say(secure(grant["verification_uri_complete"], "verification address"))
    say("waiting for the login to be approved (Ctrl-C stops)")


def _poll(meta: dict, client: dict, grant: dict, resource: str, name: str, sleep) -> dict:
    """Ask for the tokens at the server's interval until the user approved, refused, or the code expired."""
    interval = _number(grant.get("interval"), 5.0)
    deadline = time.monotonic() + min(_number(grant.get("expires_in"), 600.0), LONGEST)
    form = {"grant_type": DEVICE_GRANT, "device_code": grant["device_code"], "resource": resource}
    while time.monotonic() + interval < deadline:
        sleep(interval)
        status, tokens = exchange(meta["token_endpoint"], form={**form, **client}, what="token endpoint")
        if status == 200 and isinstance(tokens.get("access_token"), str) and tokens["access_token"]:
            return stamped(tokens)
        error = tokens.get("error")
        if error == "authorization_pending":
            continue
        if error == "slow_down":
            interval += 5  # RFC 8628 §3.5
            continue
        if error == "access_denied":
            raise McpError(f"the login for {name!r} was refused on the other device; nothing was stored")
        if error == "expired_token":
            break
        raise McpError(f"the authorization server refused the token for {name!r}: "
                       f"{outside(tokens.get('error_description') or error or f'HTTP {status}', SAID, line=True)}")
    raise McpError(f"the code for {name!r} expired before the login was approved; run ankit mcp login {name} "
                   "--device again")


def _number(value, default: float) -> float:
    """A positive number the server sent (1 at least), or the default (RFC 8628: 5 s when none is given)."""
    good = isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0
    return max(float(value), 1.0) if good else default  # never more than once a second
