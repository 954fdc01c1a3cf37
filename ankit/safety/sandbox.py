"""The OS sandbox for commands ankit runs: which one this machine has, the session's mode, how a command is
started inside it, and the policy's sandbox step (which calls run unasked because they run confined).

Linux: Landlock and seccomp, applied by the trampoline ankit/safety/confine.py before it execs the command.
A command tool's command starts without the secret-named environment variables (without_secrets).
macOS: sandbox-exec with a generated profile. Anywhere else, or where those are missing: none, said once at start.
"""

import os
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from ankit.errors import ConfigError
from ankit.safety.scrub import secret_name
from ankit import paths

MODES = ("workspace", "accept-edits", "read-only", "off")
# /mode's names, the setting's and --permission-mode's: Claude Code's permission modes beside ankit's own
ALIASES = {"ask": "off", "plan": "read-only", "readonly": "read-only", "default": "workspace",
           "acceptedits": "accept-edits", "accept_edits": "accept-edits"}
CLAUDE_NAMES = {"workspace": "default", "accept-edits": "acceptEdits", "read-only": "plan", "off": "default"}
CYCLE = ("workspace", "accept-edits", "read-only", "off")  # Shift-Tab, as Claude Code's default, acceptEdits, plan
SHOWN = {"off": "ask (no sandbox: every command asks)", "workspace": "default (workspace sandbox)",
         "read-only": "plan (read-only)", "accept-edits": "acceptEdits (file edits in the folder unasked)"}
LABELS = {"off": "ask", "workspace": "sandbox: workspace", "read-only": "plan (read-only)",
          "accept-edits": "accept edits"}  # the status line
MEANING = {"workspace": "commands run unasked in the workspace sandbox, edits ask",
           "accept-edits": "file edits inside the folder run unasked; commands ask as in default",
           "read-only": "nothing changes: commands run in a read-only sandbox, edit tools are refused",
           "off": "every command and edit asks"}
# the effects a tool may declare for accept-edits to let its call through unasked: reading and changing files;
# write-elsewhere only as far as the call's own paths show (the policy lets it through when all lie in the folder)
ACCEPTED = frozenset({"read", "write", "write-elsewhere"})
# Never writable inside the working folder: what a program finds there and runs later, unasked and unconfined (git's
# hooks and config, ankit's and Claude's settings, direnv, an editor's or dev container's tasks, commit hooks), and
# the instructions and skills the next session reads as the user's. The policy's [a]lways answers never cover
# these either (safety/policy.py: RUNS_LATER).
PROTECTED = (".git", ".ankit", ".claude", ".hg", ".svn", ".envrc", ".direnv", ".vscode", ".idea", ".devcontainer",
             ".pre-commit-config.yaml", ".husky", ".gitattributes", ".gitmodules", "AGENTS.md", "CLAUDE.md", ".agents")
# sockets that reach a process outside the sandbox: the D-Bus session bus (systemd-run), Docker (root), X11 (keys)
SOCKETS = ("/run/docker.sock", "/var/run/docker.sock", "/run/dbus/system_bus_socket", "/tmp/.X11-unix")
CREDENTIALS = (".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".config/gh", ".kube", ".docker", ".netrc",
               ".git-credentials", ".pypirc", ".npmrc")  # in the home folder: hidden from the model's commands
# files in the working folder that hold secrets by their name: read as empty by an unasked command, which could
# only carry their values to the model reversed or encoded past the scrubber (samples and examples stay readable)
SECRET_FILES = re.compile(r"\.env(\..+)?|\.envrc|\.netrc|\.npmrc|\.pypirc|\.git-credentials|id_(rsa|dsa|ecdsa|ed25519)"
                          r"|.+\.(pem|key|p12|pfx|jks|keystore)|credentials(\.json)?|secrets?\.(json|ya?ml|toml|env)", re.I)
SAMPLE_FILES = re.compile(r".*\.(example|sample|template|dist|defaults)$", re.I)
# the look for those files and for protected names in nested folders (a vendored clone's .git/config, whose
# core.fsmonitor the user's shell prompt would run): how deep, how many entries, which folders it leaves out
WALK_DEPTH, WALK_ENTRIES = 4, 5000
WALK_SKIPPED = frozenset({"node_modules", ".venv", "venv", "__pycache__", ".tox", "dist", "build", "target"})
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
SEATBELT = "/usr/bin/sandbox-exec"
NO_LANDLOCK = {38: "the kernel has no Landlock: it needs Linux 5.13+ built with it",
               95: "Landlock is in the kernel but not enabled: add landlock to the lsm= boot parameter",
               1: "Landlock's system calls are refused here, as by a container's seccomp profile"}
# what a command prints when the sandbox refused it something (errno texts of EACCES, EPERM, EROFS, the network)
STOPPED = re.compile(r"permission denied|operation not permitted|read-only file system|network is unreachable|"
                     r"name resolution|could not resolve|resolve host|name or service not known|getaddrinfo|"
                     r"EACCES|EPERM|EROFS|ENETUNREACH|address family not supported|ankit sandbox:", re.I)
PLAN_NOTE = ("Plan mode (read-only): you cannot change files. Commands run in a read-only sandbox without "
             "network, and edit tools are refused. Investigate, then present a plan; the user leaves plan mode "
             "(Shift-Tab or /mode) to carry it out.")
WORKSPACE_NOTE = ("Commands run in a sandbox without a question: they can write only inside {cwd} and the "
                  "temporary folder (not .git, .ankit, .claude, .envrc, .vscode, .husky or other files programs run "
                  "later) and reach no network. When a command needs more (installing packages, git push), call "
                  "run_command with sandbox false and a reason: the user is asked.")


@dataclass(frozen=True)
class Support:
    """The sandbox this machine offers: kind "landlock", "seatbelt" or "" (none), and what it is or why none."""

    kind: str
    detail: str


_support: dict[str, Support] = {}


def support(arch: str = "") -> Support:
    """What this machine offers, found once per process; arch: the architecture the seccomp filter is built for
    (this machine's unless handed in: a kernel with Landlock and no filter for its architecture is one case)."""
    arch = arch or os.uname().machine
    if arch not in _support:
        _support[arch] = _detect(arch)
    return _support[arch]


def _detect(arch: str) -> Support:
    """Look for sandbox-exec (macOS) or Landlock and seccomp (Linux), and say why not when they are missing."""
    if sys.platform == "darwin":
        if os.access(SEATBELT, os.X_OK):
            return Support("seatbelt", "sandbox-exec (Seatbelt)")
        return Support("", f"{SEATBELT} is missing")
    if not sys.platform.startswith("linux"):
        return Support("", f"no sandbox for {sys.platform}")
    from ankit.safety import confine  # loads ctypes: only where a sandbox is asked for
    abi = confine.landlock_abi()
    if abi < 1:
        return Support("", NO_LANDLOCK.get(-abi, f"Landlock answers {os.strerror(-abi)}"))
    if not confine.seccomp_ready(arch):
        return Support("", f"seccomp filters are not available for {arch}")
    return Support("landlock", f"Landlock ABI {abi} and seccomp")


def parse_mode(text: str) -> str | None:
    """A mode from a setting, a flag or /mode: workspace, accept-edits, read-only or off (ask, plan, and Claude
    Code's default and acceptEdits are aliases)."""
    word = str(text).strip().lower()
    word = ALIASES.get(word, word)
    return word if word in MODES else None


@dataclass(frozen=True)
class Verdict:
    """The sandbox's step of the policy: "sandboxed" (runs unasked, confined), "refuse" (reason: one line),
    "ask" (an ordinary approval, showing reason) or "" (the sandbox has no say)."""

    action: str = ""
    reason: str = ""


def decide(tool: str, confines: bool, edits: bool, args: dict, mode: str, accepts: bool = False) -> Verdict:
    """Whether a call runs unasked because it runs in the sandbox. confines: the tool is one of ankit's own
    command tools, which start their command through ToolContext.confine; edits: it changes files and is not
    read-only. mode is the one in force ("off" where there is no sandbox). accepts: accept-edits is on and the
    tool declares it does nothing but read and change files here ("accepted": the policy lets it run when every
    path it changes lies in the folder). Deny rules come first and still apply."""
    if accepts and not confines:
        return Verdict("accepted", "acceptEdits: a file edit inside the working folder")
    if mode == "off":
        return Verdict()
    if confines:
        if args.get("sandbox") is False:
            reason = " ".join(str(args.get("reason") or "").split()) or "(no reason given)"
            return Verdict("ask", f"outside the sandbox, because: {reason}")
        return Verdict("sandboxed")
    if mode == "read-only" and edits:
        return Verdict("refuse", f"{tool} is refused in read-only plan mode: present the plan; the user leaves "
                                 "plan mode (Shift-Tab or /mode) to carry it out")
    return Verdict()


@dataclass
class Sandbox:
    """A session's sandbox: the mode asked for, the one in force, and how commands start inside it."""

    cwd: Path
    asked: str = "workspace"  # the setting, the flag or /mode
    machine: Support = field(default_factory=lambda: Support("", "not checked"))
    temp: Path | None = None  # the temporary folder commands may write (None: the system's)
    arch: str = ""  # the architecture seccomp filters are built for ("": this machine's)
    accept_edits: bool = False  # accept-edits: file edits inside the folder run unasked (commands: as workspace)

    @classmethod
    def for_setting(cls, mode: str, cwd: Path, arch: str = "") -> "Sandbox":
        """The sandbox for a configured mode; the machine is checked only when a sandbox is asked for."""
        machine = support(arch) if mode != "off" else Support("", "off")
        edits = mode == "accept-edits"
        return cls(Path(cwd), "workspace" if edits else mode, machine, arch=arch, accept_edits=edits)

    @property
    def name(self) -> str:
        """The mode as /mode names it: accept-edits, or the sandbox's mode in force."""
        return "accept-edits" if self.accept_edits else self.mode

    @property
    def mode(self) -> str:
        """The mode in force: the asked one where this machine has a sandbox, else off; never workspace in a
        folder holding the home folder."""
        if not self.machine.kind or (self.asked == "workspace" and self.holds_home()):
            return "off"
        return self.asked

    def holds_home(self) -> bool:
        """Whether the working folder is the home folder or holds it (/home, /): writing there unasked would
        reach the shell's startup files, ~/.ssh and ankit's own settings, which run or decide later, outside."""
        home = Path(os.path.realpath(Path.home()))
        return home.is_relative_to(os.path.realpath(self.cwd))

    def unavailable(self) -> str:
        """The one line said at start when a sandbox was asked for and there is none; "" otherwise."""
        if self.asked == "workspace" and self.machine.kind and self.holds_home():
            return (f"no workspace sandbox in {self.cwd}, which holds your home folder (commands could change your "
                    "shell's startup files): commands ask before they run")
        if self.asked == "off" or self.machine.kind:
            return ""
        return f"no sandbox here ({self.machine.detail}): commands ask before they run"

    def switch(self, mode: str) -> str:
        """Use another mode from now on; returns a line saying what is in force."""
        self.accept_edits = mode == "accept-edits"
        mode = "workspace" if self.accept_edits else mode
        if mode != "off" and not self.machine.kind:
            self.machine = support(self.arch)
        self.asked = mode
        if mode != "off" and self.mode == "off" and not self.accept_edits:
            return f"{self.unavailable()}; mode stays ask"
        return f"mode: {SHOWN[self.name]}: {MEANING[self.name]}"

    def label(self) -> str:
        """The mode in force, short, for the status line."""
        return LABELS[self.name]

    def cycled(self) -> str:
        """The mode after this one in the Shift-Tab cycle (default, acceptEdits, plan, ask); the workspace
        sandbox is passed over where it cannot be had (a folder holding the home folder)."""
        after = CYCLE[(CYCLE.index(self.name) + 1) % len(CYCLE)]
        return "accept-edits" if after == "workspace" and self.machine.kind and self.holds_home() else after

    def verdict(self, tool: str, confines: bool, edits: bool, args: dict,
                effects: frozenset[str] | None = None) -> Verdict:
        """The policy's sandbox step for one call under the mode in force (see decide); effects: what the tool
        declares it may do (None: unknown, never accepted)."""
        accepts = self.accept_edits and effects is not None and bool(effects) and effects <= ACCEPTED
        return decide(tool, confines, edits, args, self.mode, accepts)

    def prompt_note(self) -> str:
        """What the system prompt says about the mode in force ("" when off)."""
        if self.mode == "read-only":
            return PLAN_NOTE
        return WORKSPACE_NOTE.format(cwd=self.cwd) if self.mode == "workspace" else ""

    def confine(self, argv: list[str], args: dict) -> list[str]:
        """argv to run a command tool's call inside the sandbox (unchanged when off or for sandbox: false)."""
        if self.mode == "off" or args.get("sandbox") is False:
            return argv
        writes = [] if self.mode == "read-only" else writable_folders(self.cwd, self.temp)
        # the secrets go before the trampoline starts: it shares the command's sandbox, so the command could read
        # them from the trampoline's /proc/PID/environ
        return without_secrets(command(self.machine.kind, argv, writes, protected(self.cwd), network=False,
                                       private=True, hide=secret_files(self.cwd)))

    def protected_now(self) -> set[str]:
        """The protected names that exist in the working folder now, at its top and in the folders below
        (relative paths: `.git`, `vendor/lib/.git`)."""
        root = os.path.realpath(self.cwd)
        return {os.path.relpath(path, root) for path in protected(self.cwd) if os.path.lexists(path)}

    def set_aside(self, before: set[str]) -> str:
        """Move aside a protected name a sandboxed command made (the sandbox keeps existing ones read-only but
        cannot stop a new .git with hooks or a .claude with settings); returns a line saying so, or ""."""
        made = sorted(self.protected_now() - before)
        moved = []
        for name in made:
            aside = self.cwd / f"{name}.from-sandbox-{time.strftime('%Y%m%d-%H%M%S')}"
            try:
                os.rename(self.cwd / name, aside)
                moved.append(f"{name} is now {aside.name}")
            except OSError as exc:
                moved.append(f"{name} could not be moved ({exc.strerror}): the user must check it before using it")
        if not made:
            return ""
        return (f"\n[the command made {', '.join(made)} in the working folder, where sandboxed commands may not; "
                f"ankit set it aside: {'; '.join(moved)}. To make it, run the command with sandbox: false and a "
                "reason (the user is asked)]")

    def stopped_note(self, output: str, tool: str = "run_command") -> str:
        """A line for a sandboxed call whose output looks like the sandbox refused it something; "" otherwise."""
        first = output.split("\n", 1)[0]
        if first.startswith("exit code 0") or not STOPPED.search(output):
            return ""
        where = ("it writes nothing" if self.mode == "read-only"
                 else f"it writes only in {self.cwd} and the temporary folder, not in {', '.join(PROTECTED)}")
        return (f"\n[the sandbox may have stopped this: {where}, and reaches no network. To run it outside, call "
                f"{tool} again with sandbox: false and a reason (the user is asked); never retry it another way]")


def without_secrets(argv: list[str]) -> list[str]:
    """argv started without the environment variables whose names say they hold a secret (OPENAI_API_KEY,
    GH_TOKEN...): a sandboxed command runs unasked and reaches no network, so a secret in its environment has no
    use but to reach the model through its output, reversed or encoded past what the scrubber can recognise."""
    names = sorted(name for name in os.environ if secret_name(name) and ENV_NAME.fullmatch(name))
    return ["env", *[part for name in names for part in ("-u", name)], "--", *argv] if names else argv


def secret_files(cwd: Path) -> list[str]:
    """The files under the working folder whose names say they hold secrets (.env, .env.local, id_rsa, *.pem...)."""
    return sorted(path for path, name, is_dir in _walk(cwd) if not is_dir and SECRET_FILES.fullmatch(name)
                  and not SAMPLE_FILES.match(name))


def _walk(cwd: Path) -> list[tuple[str, str, bool]]:
    """(path, name, is a folder) of the entries under the working folder, a few levels deep and within a bounded
    number of entries, links neither followed nor counted as folders; protected folders are not entered."""
    found, queue = [], [(os.path.realpath(cwd), 0)]
    while queue and len(found) < WALK_ENTRIES:
        folder, depth = queue.pop(0)
        try:
            entries = list(os.scandir(folder))[:WALK_ENTRIES - len(found)]
        except OSError:
            continue
        for entry in entries:
            is_dir = entry.is_dir(follow_symlinks=False)
            found.append((entry.path, entry.name, is_dir))
            if is_dir and depth + 1 < WALK_DEPTH and entry.name not in WALK_SKIPPED and entry.name not in PROTECTED:
                queue.append((entry.path, depth + 1))
    return found


def writable_folders(cwd: Path, temp: Path | None = None) -> list[str]:
    """Where a workspace command may write: the working folder and the temporary folders (the given one, else
    the system's and /dev/shm)."""
    temps = {os.path.realpath(temp or tempfile.gettempdir())}
    temps |= {"/dev/shm"} if temp is None and os.path.isdir("/dev/shm") else set()
    return [os.path.realpath(cwd), *sorted(temps)]


def protected(cwd: Path) -> list[str]:
    """The paths inside the working folder that stay read-only: the protected names at its top, and those found in
    the folders below (a nested repository's .git, a package's .claude)."""
    top = [os.path.join(os.path.realpath(cwd), name) for name in PROTECTED]
    return top + sorted(path for path, name, _ in _walk(cwd)  # a link below: where it leads is guarded, if anywhere
                        if name in PROTECTED and path not in top and not os.path.islink(path))


def hidden(private: bool = False) -> list[str]:
    """The sockets and folders of sockets a command must not reach: the user's runtime folder (the D-Bus session
    bus, the desktop's services), Docker's socket, the system bus, X11's sockets, the SSH agent; with private,
    also ankit's own folders (its sessions, MCP logins, memory) and the usual credential files (see private_files)."""
    runtime = [os.environ.get("XDG_RUNTIME_DIR") or "", f"/run/user/{os.getuid()}"]
    agent = os.environ.get("SSH_AUTH_SOCK") or ""
    found = {os.path.realpath(p) for p in [*runtime, agent, *SOCKETS, *(private_files() if private else [])]
             if p and os.path.exists(p)}
    return sorted(found)


def private_files() -> list[str]:
    """What an unasked command has no use for and could only carry to the model, encoded past the scrubber:
    ankit's own folders and the usual credential files in the home folder."""
    home = Path.home()
    return [str(p) for p in (paths.config_home(), paths.state_home(), paths.data_home(), paths.cache_home())] + \
        [str(home / name) for name in CREDENTIALS]


def command(kind: str, argv: list[str], writes: list[str], protect: list[str], network: bool,
            private: bool = False, hide: list[str] = ()) -> list[str]:
    """argv started inside the sandbox of this kind: the trampoline (Linux) or sandbox-exec (macOS).

    The trampoline runs as a module with -I -S (paths.program, as processes.trampoline): the working folder,
    PYTHONPATH and .pth files cannot put code in front of it (it runs before any restriction), and it starts
    faster than with site-packages."""
    if kind == "seatbelt":
        return [SEATBELT, "-p", seatbelt_profile(writes, protect, network), *argv]
    if kind != "landlock":
        raise ValueError(f"no sandbox of kind {kind!r}")
    options = [part for folder in writes for part in ("--write", folder)]
    options += [part for path in protect for part in ("--protect", path)]
    covered = [p for p in hidden(private) if not any(Path(w).is_relative_to(p) for w in writes)]  # never the folder itself
    covered += list(hide)
    options += [part for path in covered for part in ("--hide", path)]
    options += [] if network else ["--no-network"]
    return [*paths.program("ankit.safety.confine"), *options, "--", *argv]


def seatbelt_profile(writes: list[str], protect: list[str], network: bool) -> str:
    """A Seatbelt profile: everything but writes outside the given folders (and the protected paths) and, without
    network, every socket. Untested here (no macOS on the build machine); kept small on purpose."""
    lines = ["(version 1)", "(allow default)", "(deny file-write*)",
             '(allow file-write* (literal "/dev/null"))']
    lines += [f"(allow file-write* (subpath {_quoted(folder)}))" for folder in writes]
    lines += [f"(deny file-write* (subpath {_quoted(path)}))" for path in protect]
    lines += [] if network else ["(deny network*)"]
    return "\n".join(lines)


def _quoted(path: str) -> str:
    """A path as a Seatbelt string literal."""
    return '"' + os.path.realpath(path).replace("\\", "\\\\").replace('"', '\\"') + '"'


def server_command(argv: list[str], cwd: str, network: bool) -> list[str]:
    """argv of an MCP server (sandbox = true) inside the sandbox: writes in its cwd and the temporary folders,
    network unless network = false; ConfigError where this machine has no sandbox (it never starts unconfined)."""
    machine = support()
    if not machine.kind:
        raise ConfigError(f"no sandbox here ({machine.detail}), so a server with sandbox = true is not started")
    return command(machine.kind, argv, writable_folders(Path(cwd)), protected(Path(cwd)), network)
