"""port_status: which process listens on a port, or every listening port."""

from ankit.toolkit import ToolError, ports

name = "port_status"
description = (
    "Show which process (pid, command line, user) is listening on a network port, or list every listening "
    "port when no port is given. TCP by default; protocol udp or both for UDP sockets."
)
parameters = {
    "type": "object",
    "properties": {
        "port": {"type": "integer", "description": "Port number, 1 to 65535 (default: all listening ports)"},
        "protocol": {"type": "string", "enum": ["tcp", "udp", "both"], "description": "Default tcp"},
    },
    "additionalProperties": False,
}
effects = ["read"]
needs_approval = False
examples = [
    "what is running on port 8000",
    "is anything listening on port 5432",
    "which ports are open on this machine",
    "find the process using port 3000",
]


def run(args: dict, ctx) -> str:
    """One line per listening socket."""
    port = args.get("port")
    if port is not None and not 1 <= int(port) <= 65535:
        raise ToolError(f"port {port} is out of range; give a number from 1 to 65535")
    protocol = args.get("protocol") or "tcp"
    protos = ("tcp", "udp") if protocol == "both" else (protocol,)
    found = ports.listeners(port, protos)
    if not found:
        where = f"port {port}" if port is not None else "any port"
        return f"nothing is listening on {where} ({'/'.join(protos)})"
    lines = [item.line() for item in found]
    if len(lines) > 300:
        lines = lines[:300] + [f"[{len(found) - 300} more; ask about one port]"]
    return "\n".join(lines)
