"""Running the git program for the git tools, with one-line errors outside a repository or without git."""

import os
import subprocess

OUTPUT_CAP = 40_000


class GitError(Exception):
    """A git failure said in one line, with what to do."""


def git(ctx, *args: str, timeout: float = 60, check: bool = True) -> str:
    """Run git with args in ctx.cwd and return its stdout; raise GitError with a clear line on failure."""
    result = run(ctx, *args, timeout=timeout)
    if check and result.returncode != 0:
        raise GitError(explain(result.stderr or result.stdout, ctx, args))
    return result.stdout


def run(ctx, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run git and return the completed process (stdout and stderr as text)."""
    argv = ["git", "--no-pager", "-c", "color.ui=never", "-c", "core.quotepath=off", *args]
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_EDITOR": "true"}
    try:
        return subprocess.run(
            argv, cwd=ctx.cwd, capture_output=True, stdin=subprocess.DEVNULL, env=env, timeout=timeout,
            encoding="utf-8", errors="replace",
        )
    except FileNotFoundError:
        raise GitError("git is not installed (or not on PATH); install git to use the git tools") from None
    except NotADirectoryError:
        raise GitError(f"the working folder {ctx.cwd} does not exist") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} did not finish within {timeout:.0f} s") from None


def require_repo(ctx) -> None:
    """Raise the not-a-repository GitError unless ctx.cwd is inside a work tree (git diff would not say)."""
    git(ctx, "rev-parse", "--is-inside-work-tree")


def revision(value: str, what: str = "ref") -> str:
    """A commit, branch or range as given; one starting with '-' would be read as an option (--output=...), so refuse it."""
    value = value.strip()
    if value.startswith("-"):
        raise GitError(f"{what} {value!r} starts with '-' and would be read as a git option; give a commit, branch or range")
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
