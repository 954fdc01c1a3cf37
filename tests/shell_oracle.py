"""A real shell as the oracle of ankit's shell scanner (ankit/safety/shellwords.py).

`generate` makes command lines from a small grammar with obfuscations (quoting, escapes, expansions, wrappers,
separators, groups, heredocs, Unicode, stray characters); `disagreements` runs each under the real bash and dash,
in a temporary folder, inside the OS sandbox where there is one, with PATH holding stub programs that only log
their argv (and the real env, nice, timeout, xargs, find, sh and bash, so what those start is logged too). Every
program a shell started must be one the scanner reported, for each line it called sure.

Run as a script (`python3 tests/shell_oracle.py DRIVE JOBS OUT`) it is the driver started inside the sandbox.
"""

import ctypes
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

STUBS = ("rm", "ls", "cat", "git", "touch", "curl", "grep", "mv", "chmod", "wc", "id", "echo", "printf", "python3",
         "sudo", "ssh", "perl", "awk", "sed", "setsid", "tee", "head")
REAL = ("env", "nice", "timeout", "xargs", "find", "sh", "bash", "nohup", "flock", "script", "stdbuf", "ionice",
        "setpriv", "unshare", "chroot", "ssh-agent", "su", "runuser", "taskset", "systemd-run", "parallel")
SHELLS = ("bash", "dash")
STUB = '#!/bin/sh\nprintf \'%s\\0\' "$#" "${0##*/}" "$@" >> {log}\n'
WORDS = ("x", "-rf", "-la", "push", "status", "a b", "--", "-c", "f.txt", "*.txt", "$HOME", "~", "-n", "1", ";",
         "&&", "q'q", 'q"q', "é", "{}", "-exec", "log", "--oneline", "a=b", "BASH_ENV=f", "$[x]", "$((x))", "${x:0:1}")
WRAPPERS = ("env", "env A=1", "env LANG=C", "env -i", "env --", "nice", "nice -n 5", "timeout 5", "xargs",
            "xargs -n1", "sudo", "sudo -u root", "nohup", "command", "exec", "builtin", "time", "time -p",
            "env -S", "xargs -I{}", "find . -maxdepth 0 -exec", "setsid")
ASSIGNMENTS = ("A=1 ", "LANG=C ", "BASH_ENV=f ", "PATH=bin:$PATH ", "x=rm; ", "IFS=/ ", "a[$(rm y)]=1 ",
               "x='a[$(rm y)]'; ")
SEPARATORS = (";", " ; ", "&&", "||", "|", "&", "\n", "|&", ";;", " & ", "\n\n")
JUNK = "'\"\\$`(){}[];&|#\n *?~=<>!,.\u00a0\u200b\uff52"
UNICODE = ("\uff52\uff4d", "r\u200bm", "r\u00a0m", "rm\u0301")


def _word(rng: random.Random, word: str) -> tuple[str, str]:
    """A word spelled one of many ways: (what must run first, the spelling)."""
    head, tail = word[:1], word[1:]
    forms = [word, f"'{word}'", f'"{word}"', f"{head}'{tail}'", f'{head}""{tail}', f"\\{word}", f"{head}\\{tail}",
             f"$'{word}'", f"$'\\x{ord(head):02x}{tail}'" if head else "''", f'$"{word}"', f"$(printf {word})",
             f"`printf {word}`", f'"$(printf %s {word})"', f"{head}*", f"[{head}]{tail}", f"{{{word},}}",
             f"{head}?{tail[1:]}", f"./bin/{word}", f"bin/{word}", f"~/{word}", f"{head}\\\n{tail}",
             f"{word}$'\\''", f"$'\\''{word}", f"{head}${{x}}{tail}"]
    if rng.random() < 0.15:
        return f"w={word}; ", rng.choice(["$w", "${w}", '"$w"', "${w:-x}", "${!w}"])
    if rng.random() < 0.05:
        return "", rng.choice(UNICODE)
    return "", rng.choice(forms) if rng.random() < 0.3 else word


def _command(rng: random.Random, depth: int) -> str:
    """One simple command, perhaps with assignments, wrappers, a spelled program and redirections."""
    before, program = _word(rng, rng.choice(STUBS[:14]))
    args = []
    for _ in range(rng.randint(0, 3)):
        first, spelled = _word(rng, rng.choice(WORDS))
        before += first
        args.append(spelled)
    line = " ".join([program, *args])
    if rng.random() < 0.3:
        line = f"{rng.choice(WRAPPERS)} {line}" + (" \\;" if "exec" in line.split()[0:6] else "")
    if rng.random() < 0.1 and depth < 2:
        inner = _line(rng, depth + 1).replace("'", "'\\''")
        line = f"{rng.choice(['sh', 'bash'])} -c '{inner}'"
    if rng.random() < 0.15:
        line = rng.choice(ASSIGNMENTS) + line
    if rng.random() < 0.2:
        line += rng.choice([" >f", " 2>&1", " >/dev/null", " <f", " &>f", " >|f", " 2>e", " <<<x", " >&2"])
    return before + line


def _line(rng: random.Random, depth: int = 0) -> str:
    """Commands joined by separators, some in groups, substitutions, loops or heredocs."""
    parts = [_command(rng, depth) for _ in range(rng.randint(1, 3))]
    line = parts[0]
    for part in parts[1:]:
        line += rng.choice(SEPARATORS) + part
    roll = rng.random()
    if roll < 0.25 and depth < 2:
        inner = _line(rng, depth + 1)
        line = rng.choice([f"( {inner} )", f"{{ {inner}; }}", f"echo $( {inner} )", f"echo \"$({inner})\"",
                           f"if true; then {inner}; fi", f"! {inner}", f"for i in a b; do {inner}; done",
                           f"while false; do {inner}; done", f"case x in x) {inner};; esac", f"f() {{ {inner}; }}; f",
                           f"alias ls=rm; {inner}", f"eval '{inner}'", f"cat <<E\n{inner}\nE", f"sh <<E\n{inner}\nE",
                           f"cat <(rm y); {inner}", f"trap 'rm y' EXIT; {inner}", f"cat <<'E'\n$(rm y)\nE\n{inner}",
                           f"{line} # {inner}", f"echo $'';{inner};echo \\'", f"echo $'\\'';{inner};echo \\'"])
    if rng.random() < 0.2:
        at = rng.randint(0, len(line))
        line = line[:at] + "".join(rng.choice(JUNK) for _ in range(rng.randint(1, 2))) + line[at:]
    return line


SOUP = ("rm", "ls", "cat", "git", "'a b'", '"c;d"', "x\\ y", ";", "&&", "||", "|", "&", "\n", "(", ")", "{", "}", "if",
        "then", "fi", "do", "done", "while", "for", "in", ">f", "2>&1", "<f", "#", "$(", "`", "!", "time", "env", "nice",
        "xargs", "timeout 1", "sh -c", "'", '"', "=", "x=1", "LANG=C", "-rf", "--", "{}", ",", "*", "~", "\\", "$x",
        "<<E\nrm\nE\n", "<<'E'\n$(rm)\nE\n", "else", "until", "true", ":", "echo", "\t", "rm'", '"r"m', ">", "2>",
        "&>", "-exec", "find .", "\\;", "command", "exec", "env -i", "a=b", "export LANG=C", "set -e", "read -r x", "[")


def _soup(rng: random.Random) -> str:
    """Tokens strung together at random: what the grammar does not think of (time a=b ls, xargs <<E)."""
    return "".join(rng.choice(SOUP) + rng.choice(("", " ", " ", "\t")) for _ in range(rng.randint(1, 10)))


# Wrappers that run a command or a command string ({cmd}: a command's words, {line}: a quoted line), each in the
# spellings people use; what the scanner cannot read through must be unsure, never sure and wrong.
WRAPPER_FORMS = (
    "flock lk {cmd}", "flock -n lk {cmd}", "flock -w 1 lk {cmd}", "flock lk -c {line}", "flock -s lk --command {line}",
    "flock -x -w 1 lk -c {line}", "flock -c {line} lk", "script -qc {line} /dev/null", "script -q -c {line} /dev/null",
    "script -qec {line} out.log", "script --command {line} -q /dev/null", "script -q out.log", "timeout 5 {cmd}",
    "timeout -s KILL 5 {cmd}", "timeout --foreground -k 1 5 {cmd}", "timeout --preserve-status 5 {cmd}", "nice {cmd}",
    "nice -n 5 {cmd}", "nice -5 {cmd}", "nice --adjustment=3 {cmd}", "ionice -c 3 {cmd}", "ionice -c2 -n7 {cmd}",
    "ionice -t -c 3 {cmd}", "stdbuf -oL {cmd}", "stdbuf -o L -e 0 {cmd}", "stdbuf --output=L {cmd}",
    "setpriv --reuid=0 {cmd}", "setpriv --nnp {cmd}", "setpriv --inh-caps -all {cmd}", "unshare -r {cmd}",
    "unshare --user --map-root-user {cmd}", "unshare -U {cmd}", "chroot / {cmd}", "chroot --skip-chdir / {cmd}",
    "chroot --userspec=0:0 / {cmd}", "ssh-agent {cmd}", "ssh-agent -s {cmd}", "ssh-agent sh -c {line}",
    "ssh-agent -t 5 {cmd}", "su -c {line}", "su root -c {line}", "su -c {line} root", "su - root -c {line}",
    "su root {cmd}", "su -s /bin/sh root -c {line}", "runuser -u root {cmd}", "runuser -u root -- {cmd}",
    "runuser -c {line} root", "runuser root -c {line}", "taskset 1 {cmd}", "taskset -c 0 {cmd}", "xargs -r {cmd}",
    "xargs -0 -r {cmd}", "env -i {cmd}", "env -u X {cmd}", "setsid -f {cmd}", "parallel {cmd} ::: a b",
    "systemd-run --user {cmd}", "timeout 5 flock lk -c {line}", "nice flock lk {cmd}", "flock lk timeout 5 {cmd}",
    "ionice -c 3 nice -n 2 stdbuf -oL {cmd}", "flock lk ssh-agent {cmd}", "script -qc {line}",
    "flock -o lk -c {line}", "flock --verbose lk {cmd}", "nice -n 1 -- {cmd}", "timeout -v 5 {cmd}",
)


def wrapper_lines(count: int, seed: int) -> list[str]:
    """Lines that run a generated command or line through one of WRAPPER_FORMS (the wrapper corpus)."""
    rng = random.Random(seed)
    lines = []
    for _ in range(count):
        inner = _line(rng, 1).replace("'", "'\\''")
        lines.append(rng.choice(WRAPPER_FORMS).format(cmd=_command(rng, 1), line=f"'{inner}'"))
    return lines


def generate(count: int, seed: int) -> list[str]:
    """Command lines from the grammar (two in three) and token soup, the same ones for the same seed."""
    rng = random.Random(seed)
    return [_soup(rng) if rng.random() < 1 / 3 else _line(rng) for _ in range(count)]


def reported(argv: list[str], found) -> bool:
    """Whether the scanner named this started program: the same program and, for a command whose words the shell
    passes as written, the same arguments."""
    for words in found.commands:
        if words and words[0].rsplit("/", 1)[-1] == argv[0]:
            if words in found.loose or words[1:] == argv[1:]:
                return True
    return False


def disagreements(lines: list[str], shells: tuple[str, ...] = SHELLS) -> tuple[list[tuple], int]:
    """(shell, line, argv) for each program a shell started that the scanner did not report for a line it
    called sure; and how many lines were sure."""
    from ankit.safety.shellwords import scan
    found = [scan(line) for line in lines]
    sure = [i for i, f in enumerate(found) if f.sure]
    shells = tuple(s for s in shells if shutil.which(s))
    jobs = [(shell, lines[i], i) for i in sure for shell in shells]
    bad = []
    for shell, index, argv in run(jobs):
        if not reported(argv, found[index]):
            bad.append((shell, lines[index], argv))
    return bad, len(sure)


def run(jobs: list[tuple[str, str, int]]) -> list[tuple[str, int, list[str]]]:
    """Run each (shell, line, index) in a folder of its own; (shell, index, argv) of every stub started."""
    from ankit.safety import sandbox
    with tempfile.TemporaryDirectory(prefix="ankit-oracle-") as temp:
        root = Path(temp)
        _stubs(root)
        (root / "jobs.json").write_text(json.dumps(jobs))
        argv = [sys.executable, "-I", "-S", str(Path(__file__).resolve()), str(root), "jobs.json", "out.json"]
        kind = sandbox.support().kind
        if kind:
            argv = sandbox.command(kind, argv, [str(root)], [], network=False)
        subprocess.run(argv, check=True, stdin=subprocess.DEVNULL, timeout=600)
        return [(s, i, a) for s, i, a in json.loads((root / "out.json").read_text())]


def _stubs(root: Path) -> None:
    """The stub programs (logging their argv to root/log) and links to the real wrappers, in root/bin."""
    folder = root / "bin"
    folder.mkdir()
    for name in STUBS:
        (folder / name).write_text(STUB.replace("{log}", str(root / "log")))
        (folder / name).chmod(0o755)
    for name in REAL:
        where = shutil.which(name)
        if where and not (folder / name).exists():
            (folder / name).symlink_to(where)
    dash = shutil.which("dash")
    if dash:
        (folder / "dash").symlink_to(dash)


def _drive(root: Path, jobs_name: str, out_name: str) -> None:
    """Inside the sandbox: run every job, reap what it left behind, read the log."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: a line's orphans come back to be reaped
    env = {"PATH": str(root / "bin"), "HOME": str(root / "home"), "LANG": "C.UTF-8"}
    log, out = root / "log", []
    for number, (shell, line, index) in enumerate(json.loads((root / jobs_name).read_text())):
        work = root / "w" / str(number)
        work.mkdir(parents=True)
        (work / "bin").symlink_to(root / "bin")
        started = subprocess.Popen([str(root / "bin" / shell), "-c", line], cwd=work, env=env, start_new_session=True,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _settle(started)
        out += [(shell, index, argv) for argv in _records(log)]
        log.unlink(missing_ok=True)
    (root / out_name).write_text(json.dumps(out))


def _settle(started: subprocess.Popen) -> None:
    """Wait for the shell and everything it started (3 s at most, then the group is killed)."""
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.002)
    try:
        os.killpg(started.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def _records(log: Path) -> list[list[str]]:
    """The argv records of the log: a count, the program's name, then its arguments, each ending in NUL."""
    try:
        fields = log.read_bytes().decode("utf-8", "surrogateescape").split("\0")
    except FileNotFoundError:
        return []
    records, at = [], 0
    while at + 1 < len(fields) and fields[at].isdigit():
        count = int(fields[at])
        records.append(fields[at + 1:at + 2 + count])
        at += 2 + count
    return records


if __name__ == "__main__":
    _drive(Path(sys.argv[1]), sys.argv[2], sys.argv[3])
