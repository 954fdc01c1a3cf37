"""Running the git program for the git tools, with one-line errors outside a repository or without git.

A repository's own .git/config can name programs that git runs by itself; a cloned or downloaded repository is
data, so every call neutralises them (git's -c settings reach the git processes it starts for submodules too):
- core.fsmonitor=false: the fsmonitor hook is a program run by status, diff and add;
- core.hooksPath=/dev/null (all but commit, whose hooks the user approved with the commit): hook programs;
- filter.<driver>.clean/smudge/process emptied for each configured driver (and required=false): run on every
  file with that filter attribute by status and diff;
- diff.<driver>.textconv/command emptied, and --no-ext-diff --no-textconv on diff, log and show: external diff
  programs (diff.external, GIT_EXTERNAL_DIFF) and text converters;
- log.showSignature=false: verifying signatures runs gpg.program;
- every signing setting naming a program or a command (gpg.program, gpg.<format>.program,
  gpg.ssh.defaultKeyCommand) and core.sshCommand set by the repository itself (not by the user's own ~/.gitconfig)
  are put back to the user's value or git's default (none for a command): a signed git_commit would run them;
- core.worktree set by the repository to a folder the working folder is not in is refused: status, add and
  commit would read and commit files from there (a home folder's keys);
- --no-pager, core.pager=cat and GIT_PAGER/PAGER=cat: the pager is a program too;
- GIT_EDITOR=true, GIT_TERMINAL_PROMPT=0 and stdin closed: nothing waits for input or opens an editor;
- submodules are not entered: --ignore-submodules=dirty on status and diff, diff.submodule=short,
  submodule.recurse=false and status.submoduleSummary=false, so no git runs inside a submodule under its own
  .git/modules/NAME/config; the filter and diff drivers that config names are emptied as well, in case;
- protocol.allow=never and GIT_NO_LAZY_FETCH=1: a partial clone's read never fetches (a remote helper, ext::
  or core.sshCommand is a program); gc.auto=0 and maintenance.auto=false: no background maintenance.
"""

__all__ = ["git", "run", "require_repo", "revision", "explain", "cap", "files", "leaving_out"]

import os
import re
import subprocess
from pathlib import Path

from ankit.errors import ToolError
from ankit.safety import processes

OUTPUT_CAP = 40_000


def git(ctx, *args: str, timeout: float = 60, check: bool = True) -> str:
    """Run git with args in ctx.cwd and return its stdout; raise ToolError with a clear line on failure."""
    result = run(ctx, *args, timeout=timeout)
    if check and result.returncode != 0:
        raise ToolError(explain(result.stderr or result.stdout, ctx, args))
    return result.stdout


SAFE = ["--no-pager", "-c", "color.ui=never", "-c", "core.quotepath=off", "-c", "core.fsmonitor=false",
        "-c", "core.pager=cat", "-c", "log.showSignature=false", "-c", "diff.submodule=short",
        "-c", "submodule.recurse=false", "-c", "status.submoduleSummary=false", "-c", "protocol.allow=never",
        "-c", "gc.auto=0", "-c", "maintenance.auto=false"]
NO_HOOKS = ["-c", "core.hooksPath=/dev/null"]
DIFFING = ("diff", "log", "show")
PROGRAM_KEYS = re.compile(r"^(filter\.(.+)\.(clean|smudge|process)|diff\.(.+)\.(textconv|command))$")
OWN_PROGRAMS = {"gpg.program": "gpg", "gpg.openpgp.program": "gpg", "gpg.x509.program": "gpgsm",
                "gpg.ssh.program": "ssh-keygen", "core.sshcommand": "ssh"}  # git's defaults ("" for any other)
# every signing setting that names a program or a command line (gpg.ssh.defaultKeyCommand runs to find the key)
SIGNING_PROGRAMS = re.compile(r"^(gpg\.(.+\.)?[a-z]*(program|command)|core\.sshcommand)$")
REPOSITORY_SCOPES = ("local", "worktree")  # .git/config and config.worktree: written by whoever made the repository


def run(ctx, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run git with the repository's program-running settings neutralised; return the completed process."""
    if args and args[0] in DIFFING:
        args = (args[0], "--no-ext-diff", "--no-textconv", *args[1:])
    if args and args[0] in ("status", "diff"):
        args = (args[0], "--ignore-submodules=dirty", *args[1:])
    hooks = [] if args and args[0] == "commit" else NO_HOOKS
    argv = ["git", *SAFE, *hooks, *_drivers(ctx), *args]
    return _run(ctx, argv, timeout, args)


def _drivers(ctx) -> list[str]:
    """-c settings that empty every filter and diff driver program the configuration names, and put back the
    signing and ssh programs the repository's own config names; ToolError for a core.worktree leading away."""
    query = ["git", *SAFE, *NO_HOOKS, "config", "--show-scope", "--get-regexp", r"^(filter|diff|gpg|core)\."]
    try:
        found = _run(ctx, query, 10, ("config",))
        if found.returncode == 129:  # a git older than 2.26 has no --show-scope: every scope counts as the repository's
            found = _run(ctx, [*query[:-3], *query[-2:]], 10, ("config",))
            found.stdout = "".join(f"local\t{line}\n" for line in found.stdout.splitlines())
    except ToolError:
        return []
    entries = [(scope, *rest.partition(" ")[::2]) for scope, _, rest in
               (line.partition("\t") for line in found.stdout.splitlines())]
    users = {key: value for scope, key, value in entries
             if SIGNING_PROGRAMS.match(key) and scope not in REPOSITORY_SCOPES}
    entries += [("submodule", key, "") for key in _submodule_drivers(ctx)]
    out = []
    for scope, key, value in entries:
        if PROGRAM_KEYS.match(key):
            out += ["-c", f"{key}="]
            if key.startswith("filter."):
                out += ["-c", key.rsplit(".", 1)[0] + ".required=false"]
        elif scope in REPOSITORY_SCOPES and SIGNING_PROGRAMS.match(key):
            out += ["-c", f"{key}={users.get(key, OWN_PROGRAMS.get(key, ''))}"]
        elif scope in REPOSITORY_SCOPES and key == "core.worktree":
            _check_worktree(ctx, value)
    return out


SECTION = re.compile(r'^\s*\[\s*(filter|diff)\s*(?:"((?:[^"\\]|\\.)*)"|\.([^\]\s]+))\s*\]', re.I | re.M)
MAX_SUBMODULES = 200


def _submodule_drivers(ctx) -> list[str]:
    """The filter and diff program keys named in the submodules' own configs (.git/modules/**/config)."""
    git_dir = _git_dir(Path(ctx.cwd))
    keys = []
    if git_dir is None:
        return keys
    for index, config in enumerate((git_dir / "modules").glob("**/config")):
        if index >= MAX_SUBMODULES:
            break
        try:
            text = config.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for section, quoted, dotted in SECTION.findall(text):
            name = quoted.replace('\\"', '"').replace("\\\\", "\\") if quoted else dotted
            section = section.lower()
            keys += [f"{section}.{name}.{k}" for k in
                     (("clean", "smudge", "process") if section == "filter" else ("textconv", "command"))]
    return keys


def _git_dir(cwd: Path) -> Path | None:
    """The repository's .git folder (following a gitfile's 'gitdir:' line), or None outside one."""
    for folder in (cwd, *cwd.parents):
        dot = folder / ".git"
        if dot.is_dir():
            return dot
        if dot.is_file():
            try:
                line = dot.read_text(encoding="utf-8", errors="replace").strip()
            except OSError:
                return None
            return (folder / line.removeprefix("gitdir:").strip()).resolve() if line.startswith("gitdir:") else None
    return None


def _check_worktree(ctx, value: str) -> None:
    """Refuse a core.worktree the working folder does not lie in (relative values start at the .git folder)."""
    cwd = Path(ctx.cwd).resolve()
    git_dir = next((p / ".git" for p in (cwd, *cwd.parents) if (p / ".git").exists()), cwd)
    target = (git_dir / os.path.expanduser(value)).resolve()
    if not cwd.is_relative_to(target):
        raise ToolError(f"this repository's own .git/config sets core.worktree to {value}, a folder outside "
                        f"{cwd}; the git tools do not run there (remove it with: git config --unset core.worktree)")


def _run(ctx, argv: list[str], timeout: float, args: tuple) -> subprocess.CompletedProcess:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_EDITOR": "true", "GIT_PAGER": "cat",
           "PAGER": "cat", "GIT_NO_LAZY_FETCH": "1"}
    env.pop("GIT_EXTERNAL_DIFF", None)
    try:  # spawn: its own process group, tracked: a hook or helper git starts never outlives the call or ankit
        return processes.run(argv, ctx.cwd, env, timeout)
    except FileNotFoundError:
        raise ToolError("git is not installed (or not on PATH); install git to use the git tools") from None
    except NotADirectoryError:
        raise ToolError(f"the working folder {ctx.cwd} does not exist") from None
    except subprocess.TimeoutExpired:
        raise ToolError(f"git {args[0]} did not finish within {timeout:.0f} s") from None


def require_repo(ctx) -> None:
    """Raise the not-a-repository ToolError unless ctx.cwd is inside a work tree (git diff would not say)."""
    git(ctx, "rev-parse", "--is-inside-work-tree")


def revision(value: str, what: str = "ref") -> str:
    """A commit, branch or range as given; one starting with '-' would be read as an option (--output=...), so refuse it."""
    value = value.strip()
    if value.startswith("-"):
        raise ToolError(f"{what} {value!r} starts with '-' and would be read as a git option; give a commit, branch or range")
    return value


def explain(stderr: str, ctx, args: tuple) -> str:
    """Turn git's error output into one line that says what to do."""
    text = stderr.strip()
    lowered = text.lower()
    if "not a git repository" in lowered:
        return f"{ctx.cwd} is not inside a git repository; run 'git init' there or work in a repository folder"
    if "please tell me who you are" in lowered or "auto-detection is disabled" in lowered or "empty ident" in lowered:
        return ("git does not know who you are; set it with: git config user.name 'Your Name' and "
                "git config user.email you@example.com")
    if "does not have any commits yet" in lowered or "bad default revision 'head'" in lowered:
        return "the repository has no commits yet"
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("hint:")]
    detail = "; ".join(line.removeprefix("fatal: ").removeprefix("error: ") for line in lines[:3])
    return f"git {args[0]} failed: {detail or 'no message'}"


def cap(text: str, limit: int = OUTPUT_CAP) -> str:
    """Cut long git output, saying how to see less."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {len(text) - limit} characters cut; narrow it with path, or use stat]"


def files(ctx, *args: str) -> list[Path]:
    """The files a diff or show would print (`git ARGS --name-only`, ARGS ending with `--` and any pathspec), as
    absolute paths: what a git tool's touches() declares it reads."""
    top = Path(git(ctx, "rev-parse", "--show-toplevel").strip())
    end = args.index("--") if "--" in args else len(args)
    names = git(ctx, *args[:end], "--name-only", *args[end:])
    return [top / line for line in names.splitlines() if line.strip()]


def leaving_out(ctx) -> list[str]:
    """Pathspecs leaving out of a diff the files the settings' rules deny reading (ctx.withheld), each named from
    the repository's top: `:(top,exclude,literal)secrets/key.txt`."""
    withheld = getattr(ctx, "withheld", None)
    if not withheld:
        return []
    top = Path(git(ctx, "rev-parse", "--show-toplevel").strip())
    return [f":(top,exclude,literal){Path(p).relative_to(top).as_posix()}" for p in sorted(withheld)
            if Path(p).is_relative_to(top) and Path(p) != top]
