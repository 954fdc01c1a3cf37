"""Who listens on which port: /proc/net on Linux (inodes mapped to pids via /proc/*/fd), lsof elsewhere."""

__all__ = ["Listener", "listeners", "command_of", "user_of"]

import ipaddress
import os
import pwd
import shutil
from dataclasses import dataclass
from pathlib import Path

from ankit.errors import ToolError
from ankit.safety import processes

LISTEN_STATES = {"tcp": "0A", "udp": "07"}


@dataclass
class Listener:
    """One listening socket and, when visible, the process holding it."""

    proto: str
    address: str
    port: int
    pid: int | None = None
    user: str = ""
    command: str = ""

    def line(self) -> str:
        """port/proto on address: pid (command), user."""
        owner = f"pid {self.pid} ({self.command})" if self.pid else "owner not visible (no permission, or another pid namespace)"
        return f"{self.port}/{self.proto} on {self.address}: {owner}{', user ' + self.user if self.user else ''}"


def listeners(port: int | None, protos: tuple[str, ...] = ("tcp",)) -> list[Listener]:
    """Listening sockets (optionally on one port), from /proc when present, else from lsof."""
    if Path("/proc/net/tcp").exists():
        return proc_listeners(port, protos)
    return lsof_listeners(port, protos)


def proc_listeners(port: int | None, protos: tuple[str, ...]) -> list[Listener]:
    """Parse /proc/net/{tcp,tcp6,udp,udp6} and map socket inodes to processes."""
    found: dict[str, Listener] = {}
    for proto in protos:
        for table in (proto, proto + "6"):
            found.update(_parse_table(Path("/proc/net") / table, proto, port))
    owners = _inode_owners(set(found))
    for inode, listener in found.items():
        if inode in owners:
            listener.pid = owners[inode]
            listener.command = command_of(listener.pid)
    return sorted(found.values(), key=lambda item: (item.port, item.proto, item.address))


def _parse_table(path: Path, proto: str, port: int | None) -> dict[str, Listener]:
    try:
        rows = path.read_text().splitlines()[1:]
    except OSError:
        return {}
    found = {}
    for row in rows:
        fields = row.split()
        if len(fields) < 10 or fields[3] != LISTEN_STATES[proto]:
            continue
        hex_ip, hex_port = fields[1].split(":")
        number = int(hex_port, 16)
        if port is not None and number != port:
            continue
        found[fields[9]] = Listener(proto, _address(hex_ip), number, user=_user(int(fields[7])))
    return found


def _address(hex_ip: str) -> str:
    """A /proc/net address: 32-bit words in host (little-endian) order."""
    raw = bytes.fromhex(hex_ip)
    raw = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    address = ipaddress.ip_address(raw)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    return str(address)


def _user(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def _inode_owners(inodes: set[str]) -> dict[str, int]:
    """Map socket inodes to the first pid holding them, reading /proc/<pid>/fd links."""
    owners: dict[str, int] = {}
    wanted = {f"socket:[{inode}]": inode for inode in inodes}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or len(owners) == len(wanted):
            continue
        try:
            for fd in os.scandir(entry / "fd"):
                inode = wanted.get(os.readlink(fd.path))
                if inode and inode not in owners:
                    owners[inode] = int(entry.name)
        except OSError:
            continue
    return owners


def command_of(pid: int) -> str:
    """A process's command line (shortened), from /proc or ps."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
        text = " ".join(part.decode(errors="replace") for part in raw.split(b"\0") if part)
        text = text or Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        text = _ps(pid, "command=")
    return text[:200] + ("..." if len(text) > 200 else "")


def user_of(pid: int) -> str:
    """The user owning a process, or ''."""
    try:
        return _user(os.stat(f"/proc/{pid}").st_uid)
    except OSError:
        return _ps(pid, "user=")


def _ps(pid: int, field: str) -> str:
    if not shutil.which("ps"):
        return ""
    result = processes.run(["ps", "-o", field, "-p", str(pid)], timeout=30)
    return result.stdout.strip()


def lsof_listeners(port: int | None, protos: tuple[str, ...]) -> list[Listener]:
    """Listening sockets as lsof reports them (macOS and other systems without /proc/net)."""
    if not shutil.which("lsof"):
        raise ToolError("neither /proc/net nor lsof is available here; install lsof to see listening ports")
    found = []
    for proto in protos:
        spec = f"-i{proto.upper()}" + (f":{port}" if port is not None else "")
        argv = ["lsof", "-nP", spec, "-F", "pcLn"] + (["-sTCP:LISTEN"] if proto == "tcp" else [])
        result = processes.run(argv, timeout=30)
        found += _parse_lsof(result.stdout, proto)
    return sorted(found, key=lambda item: (item.port, item.proto, item.address))


def _parse_lsof(output: str, proto: str) -> list[Listener]:
    """Parse lsof -F pcLn output: p<pid>, c<command>, L<login>, n<address:port> lines."""
    found, pid, command, user = [], None, "", ""
    for line in output.splitlines():
        tag, value = line[:1], line[1:]
        if tag == "p":
            pid, command, user = int(value), "", ""
        elif tag == "c":
            command = value
        elif tag == "L":
            user = value
        elif tag == "n" and ":" in value and "->" not in value:
            address, _, number = value.rpartition(":")
            if number.isdigit():
                found.append(Listener(proto, address.strip("[]"), int(number), pid, user, command))
    return found
