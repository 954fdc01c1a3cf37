"""The sandbox trampoline: `python3 -m ankit.safety.confine [--write DIR]... [--protect PATH]... [--hide PATH]...
[--no-network] [--landlock-only] [--contain-only] -- COMMAND...` confines itself (Linux: namespaces where they
work, Landlock, seccomp) and then runs COMMAND so that nothing it starts outlives it.

It runs as a process of its own, never as preexec_fn of ankit's threaded process. What it cannot apply it does
not skip: it exits with code 126 and one line on stderr instead of running COMMAND unconfined. Only the standard
library is imported here, and ankit starts it as a module with `python3 -I -S` (paths.program: the same from a
clone, an install and ankit.pyz; sandbox.py says why -I -S).

- reads: everywhere; writes: inside the --write folders (and /dev/null) only;
- --hide: sockets (a file: /dev/null bound over it) and folders of sockets (an empty tmpfs over it) that would
  reach a process outside the sandbox (the D-Bus session bus runs commands unconfined, docker.sock is root, X11
  takes keystrokes); hidden only where the mount namespace can be made;
- --protect: paths inside a --write folder that stay read-only (.git, .ankit, .claude, .envrc...): bind-mounted read-only
  in a new mount namespace, or, where user namespaces are not allowed, every other entry of the folder is
  granted on its own (new names at the top of that folder cannot then be created);
- --no-network: no socket but AF_UNIX (seccomp), no TCP bind or connect (Landlock ABI 4+), a new network
  namespace where it can be made (no loopback, no abstract unix sockets), and every pathname unix socket bound
  when the command starts (the kernel's /proc/net/unix, wherever it lives: a tmux or screen server, a local
  proxy, a database, an agent in the home folder) covered like --hide: a socket outside is reached through its
  path, which Landlock does not guard. Abstract unix sockets made outside and signals to processes outside are
  refused in every case (Landlock scopes, ABI 6+).
- containment (always, --contain-only alone for a process ankit starts outside the sandbox): COMMAND runs in a new
  PID namespace where the user namespace could be made, under a small init that ends with it, so the kernel ends
  everything left in it (a `setsid cmd &`, a double-forked daemon); elsewhere this process becomes a child
  subreaper: every orphaned descendant, setsid or not, is reparented to it and ended once COMMAND exits. Its
  exit status is COMMAND's; SIGTERM, SIGINT, SIGHUP and SIGQUIT are passed on to COMMAND.
"""

import ctypes
import os
import select
import signal
import stat
import struct
import sys
import time
from collections.abc import Callable

SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446  # the same on every architecture
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH, RULE_NET_PORT = 1, 2
PR_SET_NO_NEW_PRIVS, PR_GET_SECCOMP, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 21, 22, 2
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1, 2, 4, 8
FS_TRUNCATE, FS_IOCTL_DEV = 1 << 14, 1 << 15
NET_BIND_TCP, NET_CONNECT_TCP = 1, 2
SCOPE_ABSTRACT_UNIX, SCOPE_SIGNAL = 1, 2
CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWNET, CLONE_NEWPID = 0x20000, 0x10000000, 0x40000000, 0x20000000
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER = 1, 36
PASSED_ON = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)
SWEEP_GRACE, SWEEP_LIMIT = 0.3, 5.0  # seconds leftovers get after SIGTERM; seconds before giving up
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 8, 32, 4096, 16384, 1 << 18
MS_NOATIME, MS_NODIRATIME, MS_RELATIME, ST_RELATIME = 1024, 2048, 1 << 21, 4096
EXIT_REFUSED = 126
# seccomp: (audit arch, socket, io_uring_setup, x32 bit or 0); io_uring can open sockets past a socket() filter
ARCHES = {"x86_64": (0xC000003E, 41, 425, 0x40000000), "aarch64": (0xC00000B7, 198, 425, 0)}
AF_UNIX, EPERM = 1, 1
RET_ALLOW, RET_ERRNO, RET_KILL_PROCESS = 0x7FFF0000, 0x00050000, 0x80000000

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


class Refused(Exception):
    """A restriction that could not be applied: the command must not run."""


def _fs_rights(abi: int) -> int:
    """Every file-system right this Landlock ABI knows (13 in ABI 1, REFER in 2, TRUNCATE in 3, IOCTL_DEV in 5)."""
    bits = 13 + (abi >= 2) + (abi >= 3)
    return ((1 << bits) - 1) | (FS_IOCTL_DEV if abi >= 5 else 0)


def landlock_abi() -> int:
    """The kernel's Landlock ABI version; minus the errno where there is none (ENOSYS: not in the kernel,
    EOPNOTSUPP: not enabled at boot, EPERM: the call filtered, as by a container's seccomp profile)."""
    try:
        version = _libc.syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION))
    except (AttributeError, OSError):
        return -38  # ENOSYS: no syscall() to ask with
    return int(version) if version >= 0 else -(ctypes.get_errno() or 38)


def seccomp_ready(machine: str = "") -> bool:
    """Whether seccomp filters can be installed here (kernel support and a filter for the architecture)."""
    if (machine or os.uname().machine) not in ARCHES:
        return False
    return _libc.prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0


def _check(result: int, what: str) -> int:
    if result < 0:
        raise Refused(f"{what}: {os.strerror(ctypes.get_errno())}")
    return result


def _write_file(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _mount(source: str | None, target: str, flags: int) -> None:
    enc = lambda s: None if s is None else s.encode()
    _check(_libc.mount(enc(source), enc(target), None, ctypes.c_ulong(flags), None), f"mount {target}")


def enter_namespaces(protect: list[str], hide: list[str], network: bool) -> bool:
    """A new user, mount and PID namespace (and network namespace without network) with the protected paths
    bind-mounted read-only and the hidden ones covered; False where namespaces are not allowed (nothing changed
    then). The PID namespace is the next child's (contained() starts its init there)."""
    uid, gid = os.geteuid(), os.getegid()
    flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | (0 if network else CLONE_NEWNET)
    if _libc.unshare(flags) < 0:
        return False
    try:
        _write_file("/proc/self/setgroups", "deny")
        _write_file("/proc/self/uid_map", f"{uid} {uid} 1")
        _write_file("/proc/self/gid_map", f"{gid} {gid} 1")
        _mount(None, "/", MS_REC | MS_PRIVATE)
        for path in protect:
            _read_only_bind(path)
        for path in hide:
            _cover(path)
    except (OSError, Refused) as exc:  # half a namespace protects nothing: stop here
        raise Refused(f"cannot protect {', '.join(protect + hide)} in a mount namespace ({exc})") from None
    return True


def _cover(path: str) -> None:
    """An empty tmpfs over a folder, /dev/null over a file or socket."""
    if os.path.isdir(path):
        _check(_libc.mount(b"tmpfs", path.encode(), b"tmpfs", ctypes.c_ulong(MS_NOSUID | MS_NODEV), b"size=4k,mode=0700"),
               f"mount tmpfs on {path}")
    else:
        _mount("/dev/null", path, MS_BIND)


def _read_only_bind(path: str) -> None:
    """Bind a path onto itself and make that mount read-only, keeping the flags the kernel locks."""
    _mount(path, path, MS_BIND | MS_REC)
    have = os.statvfs(path).f_flag
    kept = have & (MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME)
    kept |= MS_RELATIME if have & ST_RELATIME else 0
    _mount(None, path, MS_REMOUNT | MS_BIND | MS_RDONLY | kept)


def _add_path(ruleset: int, path: str, rights: int) -> None:
    """Grant rights beneath path (a file gets only the rights a file can have); a missing path is skipped."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not os.path.isdir(path):
            rights &= FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV
        attr = struct.pack("=Qi", rights, fd)  # struct landlock_path_beneath_attr is packed
        _check(_libc.syscall(SYS_ADD_RULE, ruleset, RULE_PATH_BENEATH, attr, 0), f"landlock rule for {path}")
    finally:
        os.close(fd)


def _writable(folder: str, protect: list[str], mounted: bool) -> list[str]:
    """What to grant writes beneath: the folder itself, or, when its protected entries could not be mounted
    read-only, each other entry in it but symbolic links."""
    inside = [p for p in protect if os.path.dirname(p.rstrip("/")) == folder.rstrip("/")]
    if mounted or not inside:
        return [folder]
    skip = {os.path.basename(p.rstrip("/")) for p in inside}
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    paths = [os.path.join(folder, n) for n in names if n not in skip]
    return [p for p in paths if not os.path.islink(p)]  # a link's target may lie anywhere: never granted through it


def landlock(abi: int, writes: list[str], protect: list[str], mounted: bool, network: bool) -> None:
    """Reads and runs everywhere, writes beneath the given folders, TCP refused without network."""
    every = _fs_rights(abi)
    net = (NET_BIND_TCP | NET_CONNECT_TCP) if abi >= 4 and not network else 0
    scoped = (SCOPE_SIGNAL | SCOPE_ABSTRACT_UNIX) if abi >= 6 else 0  # no abstract socket outside, even with network
    attr = struct.pack("=QQQ", every, net, scoped)
    ruleset = _check(_libc.syscall(SYS_CREATE_RULESET, attr, ctypes.c_size_t(len(attr)), 0), "landlock ruleset")
    try:
        _add_path(ruleset, "/", FS_READ_FILE | FS_READ_DIR | FS_EXECUTE)
        _add_path(ruleset, "/dev/null", FS_READ_FILE | FS_WRITE_FILE | (FS_TRUNCATE if abi >= 3 else 0))
        for folder in writes:
            for path in _writable(folder, protect, mounted):
                _add_path(ruleset, path, every & ~FS_IOCTL_DEV)
        _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
        _check(_libc.syscall(SYS_RESTRICT_SELF, ruleset, 0), "landlock_restrict_self")
    finally:
        os.close(ruleset)


def seccomp_program(machine: str) -> bytes:
    """A BPF filter: socket() only for AF_UNIX, no io_uring, nothing from another architecture's calls."""
    arch, socket_nr, uring_nr, x32 = ARCHES[machine]
    ld, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06
    denied = RET_ERRNO | EPERM
    program = [
        (ld, 0, 0, 4), (jeq, 1, 0, arch), (ret, 0, 0, RET_KILL_PROCESS),  # seccomp_data.arch
        (ld, 0, 0, 0),  # seccomp_data.nr
        (jge, 0, 1, x32 or 0xFFFFFFFF), (ret, 0, 0, denied),  # x32 calls (x86_64 only) refused
        (jeq, 0, 1, uring_nr), (ret, 0, 0, denied),
        (jeq, 0, 3, socket_nr), (ld, 0, 0, 16),  # args[0], the family (low word)
        (jeq, 1, 0, AF_UNIX), (ret, 0, 0, denied),
        (ret, 0, 0, RET_ALLOW),
    ]
    return b"".join(struct.pack("=HBBI", *op) for op in program)


def seccomp_no_network() -> None:
    """Install the socket filter (no_new_privs is already set)."""
    code = seccomp_program(os.uname().machine)
    buffer = ctypes.create_string_buffer(code, len(code))
    prog = struct.pack("=HxxxxxxQ", len(code) // 8, ctypes.addressof(buffer))  # struct sock_fprog
    holder = ctypes.create_string_buffer(prog, len(prog))
    _check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, holder, 0, 0), "seccomp filter")


def parse(argv: list[str]) -> tuple[dict[str, list[str]], set[str], list[str]]:
    """(the --write folders, --protect and --hide paths by option, the switches given, the command)."""
    if "--" not in argv:
        raise Refused("usage: python3 -m ankit.safety.confine [--write DIR] [--protect PATH] [--hide PATH] [--no-network] -- CMD")
    cut = argv.index("--")
    options, command = argv[:cut], argv[cut + 1:]
    lists: dict[str, list[str]] = {"--write": [], "--protect": [], "--hide": []}
    switches, index = set(), 0
    while index < len(options):
        flag = options[index]
        if flag in ("--no-network", "--landlock-only", "--contain-only"):
            switches.add(flag)
        elif flag in ("--write", "--protect", "--hide") and index + 1 < len(options):
            index += 1
            lists[flag].append(os.path.realpath(options[index]))
        else:
            raise Refused(f"unknown option {flag!r}")
        index += 1
    if not command:
        raise Refused("no command given after --")
    return lists, switches, command


MAX_SOCKETS = 4096


def bound_sockets(hide: list[str]) -> list[str]:
    """The pathname unix sockets bound in this network namespace now (read before leaving it), but those under a
    hidden folder: each is a process outside the sandbox a command could talk to."""
    try:
        with open("/proc/net/unix", encoding="utf-8", errors="surrogateescape") as table:
            rows = table.read().splitlines()[1:]
    except OSError:
        return []
    named = [fields[6:] for fields in (row.split(None, 7) for row in rows) if len(fields) == 8]
    relative = {inode for inode, name in named if not name.startswith(("/", "@"))}
    folders = _owners_folders(relative) if relative else {}
    found: set[str] = set()
    for inode, name in named:
        if name.startswith("@") or len(found) >= MAX_SOCKETS or not (name.startswith("/") or inode in folders):
            continue
        path = os.path.realpath(os.path.join(folders.get(inode, "/"), name))
        if not any(path == h or path.startswith(h.rstrip("/") + "/") for h in hide) and _is_socket(path):
            found.add(path)
    return sorted(found)


def _owners_folders(inodes: set[str]) -> dict[str, str]:
    """The working folder of a process holding each of these sockets: a socket bound by a relative name
    (`bind("s.sock")`) is listed by that name alone, and lies in the folder its process was in."""
    found: dict[str, str] = {}
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            links = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
            mine = {link[8:-1] for link in links if link.startswith("socket:[")} & (inodes - set(found))
            found |= dict.fromkeys(mine, os.readlink(f"/proc/{pid}/cwd")) if mine else {}
        except OSError:  # gone, or another user's process
            continue
        if len(found) == len(inodes):
            break
    return found


def _is_socket(path: str) -> bool:
    try:
        return stat.S_ISSOCK(os.stat(path).st_mode)
    except OSError:
        return False


def confine(writes: list[str], protect: list[str], hide: list[str], network: bool,
            namespaces: bool = True) -> Callable[[], None] | None:
    """Apply every restriction to this process; where the namespaces were entered, return the Landlock and seccomp
    step instead, for the next child (the new PID namespace's init) to take once it has its own /proc."""
    abi = landlock_abi()
    if abi < 1:
        raise Refused("Landlock is not available in this kernel")
    if not network and not seccomp_ready():
        raise Refused("seccomp is not available here, so the network cannot be shut off")
    existing, covered = [p for p in protect if os.path.lexists(p)], [p for p in hide if os.path.exists(p)]
    covered += [] if network else bound_sockets(covered)
    entered = enter_namespaces(existing, covered, network) if namespaces else False  # PID namespace: always

    def restrict() -> None:
        landlock(abi, writes, existing, entered or not existing, network)
        if not network:
            seccomp_no_network()

    if entered:
        return restrict
    restrict()
    return None


def own_proc() -> None:
    """A /proc of the new PID namespace over the machine's (its init, before Landlock, which forbids mounts): the
    command sees its own processes only, not another's command line (a key passed as an argument). Where the
    kernel refuses it (a container's masked /proc), the machine's stays: the rest of the sandbox still holds."""
    _libc.mount(b"proc", b"/proc", b"proc", ctypes.c_ulong(MS_NOSUID | MS_NODEV | MS_NOEXEC), None)


def contained(command: list[str], pid_namespace: bool, restrict: Callable[[], None] | None = None) -> int:
    """Run command to its end so that nothing it started outlives it (see the module's docstring); its status.
    pid_namespace: this process unshared a PID namespace, which its next child (an init) enters; restrict: the
    restrictions that init applies to itself first (confine's)."""
    if not pid_namespace and _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0:
        raise Refused(f"cannot become a child subreaper: {os.strerror(ctypes.get_errno())}")
    alive, held = os.pipe()  # held open by this process alone: its end closed means this process is gone
    child = os.fork()
    if child == 0:
        os.close(held)
        _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # this process killed: its child goes too
        if select.select([alive], [], [], 0)[0]:  # killed before the line above took (getppid() says nothing
            os._exit(EXIT_REFUSED)  # across a PID namespace): end now rather than run on unwatched
        os.close(alive)
        os._exit(_init(command, restrict) if pid_namespace else _run(command))
    os.close(alive)
    _pass_on(child, escaped=not pid_namespace)
    status = _wait_for(child)
    if not pid_namespace:
        _sweep()
    return _exit_like(status)


def _run(command: list[str]) -> int:
    """Exec command with the signals Python ignores back to their defaults; 127 when it cannot run."""
    for sig in (signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(sig, signal.SIG_DFL)
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        print(f"ankit sandbox: cannot run {command[0]!r}: {exc.strerror or exc}", file=sys.stderr)
    return 127


def _init(command: list[str], restrict: Callable[[], None] | None = None) -> int:
    """PID 1 of the new namespace: its own /proc and the restrictions, then start command, reap every orphan, end
    when command ends (the kernel then kills whatever is left in the namespace); 128 + N for a command ended by
    signal N; 126 with one line when a restriction cannot be applied."""
    if restrict is not None:
        own_proc()
        try:
            restrict()
        except Refused as exc:
            print(f"ankit sandbox: {exc}; the command did not run", file=sys.stderr)
            return EXIT_REFUSED
    child = os.fork()
    if child == 0:
        os._exit(_run(command))
    _pass_on(child)
    status = _wait_for(child, anyone=True)
    return 128 + os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def _pass_on(child: int, escaped: bool = False) -> None:
    """The signals that ask a command to stop reach it (an init ignores what it has no handler for); with
    escaped, every descendant that left this process group is killed then: the group's own signals never reach
    it, and the group's SIGKILL would end this subreaper before it could (orphans would go to init)."""
    def stop(number, frame) -> None:
        _kill(child, number)
        for pid in _descendants() if escaped else []:
            _kill(pid, signal.SIGKILL)

    for sig in PASSED_ON:
        signal.signal(sig, stop)


def _kill(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except OSError:
        pass


def _wait_for(child: int, anyone: bool = False) -> int:
    """The child's wait status; with anyone, every other child ended meanwhile is reaped on the way."""
    while True:
        pid, status = os.waitpid(-1 if anyone else child, 0)
        if pid == child:
            return status


def _sweep() -> None:
    """End every descendant left behind (reparented here, the subreaper): SIGTERM, a short grace, SIGKILL."""
    start = time.monotonic()
    while (left := _children()) and time.monotonic() - start < SWEEP_LIMIT:
        late = time.monotonic() - start > SWEEP_GRACE
        for pid in left:
            _kill(pid, signal.SIGKILL if late else signal.SIGTERM)
        time.sleep(0.02)
        _reap()


def _reap() -> None:
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass


def _children() -> list[int]:
    """This process's live children, from /proc (zombies are reaped, not listed): the kernel's list of them
    where it keeps one (this process has one thread), else every process's parent."""
    _reap()
    try:
        with open(f"/proc/self/task/{os.getpid()}/children", "rb") as handle:
            return [int(pid) for pid in handle.read().split()]
    except OSError:
        return [pid for pid, (parent, _group) in _table().items() if parent == os.getpid()]


def _descendants() -> list[int]:
    """This process's live descendants outside its process group, found by walking /proc's parent links."""
    table, found, todo = _table(), [], [os.getpid()]
    while todo:
        parent = todo.pop()
        kids = [pid for pid, (ppid, _group) in table.items() if ppid == parent]
        todo += kids
        found += [pid for pid in kids if table[pid][1] != os.getpgrp()]
    return found


def _table() -> dict[int, tuple[int, int]]:
    """Every live process's (parent, process group), from /proc."""
    table = {}
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rpartition(b")")[2].split()
        except (OSError, ValueError):
            continue
        if len(fields) > 2 and fields[0] != b"Z" and entry.isdigit():
            table[int(entry)] = (int(fields[1]), int(fields[2]))
    return table


def _exit_like(status: int) -> int:
    """End the way the command ended: by the same signal, or with its exit code."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            signal.signal(sig, signal.SIG_DFL)
            os.kill(os.getpid(), sig)
        except (OSError, ValueError):
            pass
        return 128 + sig
    return os.WEXITSTATUS(status)


def main(argv: list[str]) -> int:
    """Confine (unless --contain-only), then run the command contained; 126 with one line on stderr when
    confinement fails."""
    try:
        lists, switches, command = parse(argv)
        if "--contain-only" in switches:
            return contained(command, False)
        restrict = confine(lists["--write"], lists["--protect"], lists["--hide"], "--no-network" not in switches,
                           "--landlock-only" not in switches)
        return contained(command, restrict is not None, restrict)
    except Refused as exc:
        print(f"ankit sandbox: {exc}; the command did not run", file=sys.stderr)
        return EXIT_REFUSED


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
