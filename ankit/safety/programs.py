"""What programs do with their words, as the policy needs to know it.

- which run other commands (wrappers, shells' -c, string runners, find -exec) and which run code that is not a
  command's words (builtins changing the shell, interpreters' inline code): safety/shellwords.py reads a line with
  these;
- global options (`git -C x push` is `git push` to a deny rule) and options that run code (`git -c`, `--exec`);
- what an [a]lways answer covers (`command_key`): the program, or program and subcommand, only for the table of
  programs whose arguments can neither run code nor write (INERT, INERT_SUBCOMMANDS); every other command is
  remembered as that exact line.
"""

import re

from ankit.safety.envnames import inert  # the one list of environment names known inert

NAME = re.compile(r"[A-Za-z_]\w*")

# Builtins that run a string, change what later commands run (aliases, functions, traps, the command hash, shell
# options, loadable builtins) or evaluate arithmetic (a variable's text can run a command there).
CHANGES_SHELL = {"eval", "source", ".", "exec", "alias", "unalias", "trap", "enable", "hash", "shopt", "declare",
                 "typeset", "local", "readonly", "let", "mapfile", "readarray", "getopts", "compgen", "complete",
                 "compopt", "bind", "fc", "history", "unset", "caller"}
POSIX_SHELLS = {"sh", "bash", "dash", "ash", "ksh", "mksh", "rbash", "yash"}
SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "busybox", "rbash", "yash", "tcsh", "csh"}
INTERPRETERS = {"python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "deno", "bun", "ruby", "perl",
                "php", "lua", "luajit", "Rscript", "R", "pwsh", "powershell", "julia", "tclsh", "wish", "expect",
                "osascript", "guile", "racket", "irb", "jshell", "gdb", "awk", "gawk", "mawk", "nawk"}
PYTHON_FLAGS = {"-u", "-B", "-O", "-OO", "-E", "-s", "-S", "-I", "-b", "-bb", "-q", "-v", "-d", "-P"}
# Wrappers: program -> options that take a value (the command follows the options).
WRAPPERS = {
    "env": {"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}, "sudo": {"-u", "-g", "-C", "-h", "-p", "-r",
    "-t", "-U", "-D", "-R", "-T", "--user", "--group", "--close-from", "--host", "--prompt", "--role", "--type",
    "--other-user", "--chdir", "--chroot", "--command-timeout"}, "doas": {"-u", "-C"}, "xargs": {"-n", "-d", "-L",
    "-l", "-P", "-s", "-E", "-e", "-a", "--max-args", "--delimiter", "--arg-file", "--max-procs", "--max-lines",
    "--max-chars", "--eof"}, "nohup": set(), "time": {"-f", "-o", "--format", "--output"}, "exec": {"-a"},
    "command": set(), "builtin": set(), "setsid": set(), "stdbuf": {"-i", "-o", "-e"}, "nice": {"-n",
    "--adjustment"}, "ionice": {"-c", "-n", "-p"}, "timeout": {"-s", "--signal", "-k", "--kill-after"},
    "unbuffer": set(), "chrt": set(), "taskset": set(), "flock": {"-w", "-E", "--timeout"}, "strace": {"-o", "-e",
    "-p", "-s", "-u"}, "ltrace": {"-o", "-e"}, "chroot": set(), "caffeinate": set(), "torsocks": set(),
    "proxychains": set(), "proxychains4": set(), "firejail": set(), "systemd-run": set(), "runuser": {"-u", "-g"},
    "catchsegv": set(), "valgrind": set(), "script": set(), "watch": {"-n", "--interval", "-q", "--equexit"},
    "fakeroot": set(), "unshare": set(), "nsenter": set(), "prlimit": set(), "setpriv": set(), "numactl": set(),
    "faketime": set(), "chronic": set(), "pkexec": {"--user"}, "sg": set(), "xvfb-run": set(),
    "dbus-run-session": set(), "su": set(), "ssh-agent": set(), "parallel": set(), "sem": set(),
}  # how each is read, and which options ankit knows: safety/wrappers.py
TAKES_FIRST = {"timeout": 1, "chroot": 1, "flock": 1, "taskset": 1, "chrt": 1, "faketime": 1, "sg": 1}
STRING_RUNNERS = {"eval", "watch", "ssh"}  # their words are joined and run as a shell line
WRAPPER_SHELLS = {"sudo": {"-s", "-i", "--shell", "--login", "-e", "--edit"}, "xargs": {"-I", "-i", "--replace"},
                  "env": {"-S", "--split-string"}}  # options after which what runs is no longer a command's words
FIND_EXEC = {"-exec", "-execdir", "-ok", "-okdir"}


def settable(name: str) -> bool:
    """Whether the shell may set this variable without exporting anything that runs code: a lower-case name
    (no shell reads one) other than the proxy settings, or an inert one."""
    return (bool(re.fullmatch(r"[a-z_][a-z0-9_]*", name)) and "proxy" not in name) or inert(name)


def unmodeled(program: str, args: list[str]) -> str:
    """Why a program's words are not a command line ankit models ("" when they are)."""
    if program in CHANGES_SHELL:
        return f"{program}, which runs a string or changes what later commands run"
    if program == "export" and not all(NAME.fullmatch(a.split("=", 1)[0]) and inert(a.split("=", 1)[0])
                                       for a in args if a != "-p"):
        return "export of a variable not known to be inert"
    if (program in ("test", "[") and {"-v", "-R"} & set(args)) or (program == "printf" and args
                                                                  and args[0].startswith("-v")):
        return f"{program} setting or reading a variable by a name with a subscript"
    if program == "read" and not all(a == "-r" or NAME.fullmatch(a) and settable(a) for a in args):
        return "read into a variable ankit does not know to be inert"
    if program == "set" and not all(re.fullmatch(r"[-+][A-Za-z]+|[a-z]+|--?", a) for a in args[:_dashes(args)]):
        return "set with arguments ankit does not model"
    if program in INTERPRETERS or re.fullmatch(r"(python|pypy|ruby|perl|php|lua|node)[\d.]+", program):
        return _inline(program, args)
    return ""


def _dashes(args: list[str]) -> int:
    return args.index("--") if "--" in args else len(args)


def _inline(program: str, args: list[str]) -> str:
    """Why an interpreter's run is not on the line: inline code, code read from its input, or options ankit does
    not know (a script file it runs is the program's business)."""
    if program in ("awk", "gawk", "mawk", "nawk"):
        return f"{program}, whose program is inline code"
    python = program.startswith(("python", "pypy"))
    index = 0
    if args and args[0] in ("--version", "-V", "--help", "-h"):
        return ""
    while index < len(args) and args[index].startswith("-") and args[index] != "-":
        if python and args[index] in ("-W", "-X"):
            index += 2
            continue
        if not (python and (args[index] in PYTHON_FLAGS or args[index] == "-m")):
            return f"{program} with the option {args[index]!r} (inline code, or one ankit does not know)"
        if args[index] == "-m":
            return ""
        index += 1
    if index >= len(args) or args[index] == "-":
        return f"{program} reading its code from its input"
    if program in ("deno", "bun") and args[index] in ("eval", "repl", "x"):
        return f"{program} {args[index]}, which runs code given on the line"
    return ""


def has_option(words: list[str], options: set[str]) -> bool:
    """Whether option words hold one of these options, alone, with a value or among short options (-si)."""
    for word in words:
        if word.startswith("--") and word.split("=", 1)[0] in options:
            return True
        if word.startswith("-") and not word.startswith("--") and any("-" + c in options for c in word[1:]):
            return True
    return False


def options_end(rest: list[str], valued: set[str]) -> int:
    """The index of the first word after a wrapper's own options (and their values)."""
    index = 0
    while index < len(rest) and rest[index].startswith("-") and rest[index] != "-":
        word = rest[index]
        index += 1
        if word == "--":
            break
        if word in valued or _takes_next(word, valued):
            index += 1
    return index


def _takes_next(word: str, valued: set[str]) -> bool:
    """Whether grouped short options (`-iu NAME`) end with one that takes the next word as its value, read
    as getopt does: the first option taking a value takes the rest of the word, or the next word."""
    if word.startswith("--") or len(word) < 3:
        return False
    for index, char in enumerate(word[1:], 1):
        if "-" + char in valued:
            return index == len(word) - 1
    return False


def shell_code(rest: list[str]) -> int | None:
    """The index of the code a shell runs with -c (or bash -lc, sh -ec ...); None without one."""
    for index, word in enumerate(rest):
        if re.fullmatch(r"-[a-zA-Z]*c[a-zA-Z]*", word) and index + 1 < len(rest):
            return index + 1
        if not word.startswith(("-", "+")):
            return None
    return None


# Programs whose arguments can neither run code nor write anything (they read and print): an [a]lways answer for
# one covers the program with any arguments (still none naming a path outside the working folder or a file that
# runs later, no expansion, no option that runs code). Left out on purpose, each for an argument that runs code or
# writes: find (-exec, -delete, -fprint), sed (e, w, -i), awk (system()), sort (--compress-program, -o), uniq (its
# output file), tee, xxd (-r OUTFILE), file (-C), tree (-o), less, more, man (they run commands), jq and printenv
# (they print the environment's secrets), date (-s), tar, zip, unzip (archives run programs and write), curl, wget,
# ssh, rsync, scp, editors, pagers, interpreters and shells, and anything that runs a project's code: make, npm,
# pytest, cargo, go, pip.
INERT = {
    "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "stat", "du", "df", "pwd", "echo", "printf", "true",
    "false", "whoami", "id", "uname", "which", "realpath", "readlink", "dirname", "basename", "cut", "tr", "nl",
    "diff", "cmp", "comm", "tac", "rev", "od", "strings", "column", "fold", "paste", "join", "seq", "md5sum",
    "sha1sum", "sha256sum", "sha512sum", "cksum", "b2sum", "base64", "sleep", "nproc", "test", "[",
}
# Subcommands that only read the repository (git's pager, aliases, -c, --output and external diff tools are
# options ankit refuses to widen over: see CODE_OPTIONS). Not git branch, tag, remote, config, stash, reflog (they
# write), grep (-O runs a program), difftool, submodule, or anything else.
INERT_SUBCOMMANDS = {
    "git": {"status", "diff", "log", "show", "blame", "rev-parse", "ls-files", "ls-tree", "describe", "shortlog"},
}


# Options known not to change what a program of INERT reads beyond the paths on its line, for the programs that
# can walk a tree: `grep -R`, `ls -L`, `du -L` and `diff -r` follow links (out of the folder) and are left out.
# Any option of an INERT program not listed here is inert (it reads only the files named).
INERT_OPTIONS = {
    "grep": {"-E", "-F", "-G", "-P", "-e", "-f", "-i", "-y", "-v", "-w", "-x", "-c", "-L", "-l", "-m", "-o", "-q",
             "-s", "-b", "-H", "-h", "-n", "-T", "-Z", "-z", "-A", "-B", "-C", "-a", "-I", "-U", "-r", "-D",
             "--extended-regexp", "--fixed-strings", "--basic-regexp", "--perl-regexp", "--regexp", "--file",
             "--ignore-case", "--no-ignore-case", "--invert-match", "--word-regexp", "--line-regexp", "--count",
             "--color", "--colour", "--files-without-match", "--files-with-matches", "--max-count", "--only-matching",
             "--quiet", "--silent", "--no-messages", "--byte-offset", "--with-filename", "--no-filename", "--label",
             "--line-number", "--initial-tab", "--null", "--null-data", "--after-context", "--before-context",
             "--context", "--text", "--binary-files", "--binary", "--line-buffered", "--recursive", "--include",
             "--exclude", "--exclude-from", "--exclude-dir", "--devices", "--no-ignore-case"},
    "ls": {"-a", "-A", "-l", "-h", "-t", "-r", "-S", "-1", "-d", "-F", "-p", "-i", "-s", "-n", "-g", "-o", "-G",
           "-c", "-u", "-U", "-X", "-v", "-x", "-m", "-C", "-R", "-B", "-k", "-w", "-T", "-I", "-Q", "-N", "-b",
           "-q", "-H", "--all", "--almost-all", "--human-readable", "--color", "--classify", "--reverse", "--sort",
           "--time", "--time-style", "--group-directories-first", "--full-time", "--recursive", "--directory",
           "--inode", "--size", "--numeric-uid-gid", "--indicator-style", "--format", "--width", "--tabsize",
           "--ignore", "--hide", "--quoting-style", "--literal", "--escape", "--hide-control-chars",
           "--show-control-chars", "--si", "--block-size", "--ignore-backups", "--no-group", "--author"},
    "du": {"-s", "-h", "-a", "-c", "-d", "-k", "-m", "-b", "-x", "-P", "-H", "-0", "-B", "--summarize",
           "--human-readable", "--all", "--total", "--max-depth", "--apparent-size", "--exclude", "--si",
           "--block-size", "--bytes", "--one-file-system", "--no-dereference", "--null", "--time", "--inodes"},
    "diff": {"-u", "-U", "-c", "-C", "-q", "-s", "-y", "-w", "-b", "-B", "-i", "-a", "-p", "-t", "-W", "-d", "-e",
             "-n", "-E", "-Z", "--brief", "--unified", "--context", "--side-by-side", "--ignore-all-space",
             "--ignore-space-change", "--ignore-blank-lines", "--ignore-case", "--text", "--color", "--label",
             "--show-c-function", "--expand-tabs", "--strip-trailing-cr", "--width", "--minimal", "--normal",
             "--report-identical-files", "--speed-large-files", "--suppress-common-lines", "--ignore-tab-expansion",
             "--ignore-trailing-space"},
}
INERT_OPTIONS["egrep"] = INERT_OPTIONS["fgrep"] = INERT_OPTIONS["grep"]


def inert_options(words: list[str]) -> bool:
    """Whether every option of a command is known not to widen what it reads (INERT_OPTIONS; a program without
    a table there: any). Short options may be grouped (`-rn`) or carry a number (`-3`, `-A2`); a value given as
    the next word (`-e -R`, `--exclude -R`) is a value, not an option."""
    known = INERT_OPTIONS.get(words[0] if words else "")
    if known is None:
        return True
    valued, index = VALUED_SHORT.get(words[0], set()) | VALUED_LONG.get(words[0], set()), 1
    while index < len(words) and words[index] != "--":
        word, index = words[index], index + 1
        if word.startswith("--"):
            if word.split("=", 1)[0] not in known:
                return False
            index += word in valued
        elif word.startswith("-") and len(word) > 1 and not word[1:].isdigit():
            for place, char in enumerate(word[1:], 1):
                if char.isdigit():
                    continue
                if "-" + char not in known:
                    return False
                if "-" + char in valued:
                    index += place == len(word) - 1  # the value is the next word, or the rest of this one
                    break
    return True


VALUED_SHORT = {"grep": {"-e", "-f", "-m", "-A", "-B", "-C", "-D", "-d"}, "ls": {"-I", "-T", "-w"},
                "du": {"-d", "-B"}, "diff": {"-U", "-C", "-W"}}  # short options taking a value (the word's rest)
VALUED_LONG = {"grep": {"--regexp", "--file", "--max-count", "--label", "--after-context", "--before-context",
                         "--context", "--include", "--exclude", "--exclude-from", "--exclude-dir", "--binary-files",
                         "--devices"},
               "ls": {"--ignore", "--hide", "--sort", "--time", "--time-style", "--format", "--width", "--tabsize",
                      "--quoting-style", "--indicator-style", "--block-size"},
               "du": {"--max-depth", "--exclude", "--block-size", "--time"}, "diff": {"--label", "--width"}}
VALUED_SHORT["egrep"] = VALUED_SHORT["fgrep"] = VALUED_SHORT["grep"]
VALUED_LONG["egrep"] = VALUED_LONG["fgrep"] = VALUED_LONG["grep"]


def command_key(words: list[str]) -> str | None:
    """What an [a]lways for this simple command covers: "ls", "git log" (a program of the inert table, or an inert
    subcommand after the program's global options); None for every other command (remembered exactly)."""
    if not words or "/" in words[0]:
        return None
    program = words[0]
    if program in INERT:
        return program
    rest = _after_global_options(program, words[1:]) if program in INERT_SUBCOMMANDS else None
    if rest and rest[0] in INERT_SUBCOMMANDS[program]:
        return f"{program} {rest[0]}"
    return None


GLOBAL_VALUED = {
    "git": {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env", "--exec-path",
            "--attr-source", "--list-cmds"},
    "kubectl": {"-n", "--namespace", "--context", "--cluster", "--user", "-s", "--server", "--kubeconfig", "--token",
                "--as", "--as-group", "--as-uid", "--cache-dir", "--certificate-authority", "--client-certificate",
                "--client-key", "--request-timeout", "--tls-server-name", "-v", "--v", "--log-file", "--profile",
                "--password", "--username"},
    "helm": {"-n", "--namespace", "--kube-context", "--kubeconfig", "--registry-config", "--repository-config",
             "--repository-cache", "--burst-limit"},
    "docker": {"-H", "--host", "--context", "-c", "--config", "-l", "--log-level", "--tlscacert", "--tlscert",
               "--tlskey"},
    "podman": {"--url", "-c", "--connection", "--root", "--runroot", "--log-level", "--storage-driver", "--identity"},
    "npm": {"--prefix", "-w", "--workspace", "--registry", "--userconfig", "--globalconfig", "--cache", "--loglevel",
            "--otp", "-C"},
    "pnpm": {"-C", "--dir", "-F", "--filter", "--loglevel", "--reporter"},
    "yarn": {"--cwd", "--cache-folder", "--modules-folder", "--mutex", "--network-timeout", "--registry"},
    "make": {"-C", "-f", "--file", "--makefile", "-I", "--include-dir", "-o", "--old-file", "-W", "--what-if",
             "--assume-new", "--assume-old", "--directory", "-l", "--load-average", "-O", "--output-sync", "--eval",
             "-j", "--jobs"},
    "cargo": {"--config", "-Z", "--color", "-C", "--manifest-path", "--target-dir"},
    "go": {"-C"},
    "gh": {"-R", "--repo"},
    "aws": {"--profile", "--region", "--output", "--endpoint-url", "--query", "--ca-bundle"},
    "gcloud": {"--project", "--account", "--configuration", "--format", "--verbosity"},
    "systemctl": {"-H", "--host", "-M", "--machine", "-t", "--type", "-p", "--property"},
    "pip": {"--python", "--cache-dir", "--log", "--proxy", "--retries", "--timeout", "--cert", "--client-cert",
            "--exists-action", "--trusted-host", "--root-user-action"},
    "uv": {"--directory", "--project", "--cache-dir", "--color", "--config-file"},
    "poetry": {"-C", "--directory", "-P", "--project"},
    "just": {"-f", "--justfile", "-d", "--working-directory", "--set", "--shell", "--shell-arg"},
    "terraform": set(), "dotnet": set(), "mvn": {"-f", "--file", "-s", "--settings", "-P", "-pl"},
    "gradle": {"-p", "--project-dir", "-b", "--build-file", "-I", "--init-script"},
}
GLOBAL_VALUED["pip3"] = GLOBAL_VALUED["pip"]
# Options that run a program or code of the caller's choosing, or point a program at settings that do (another
# repository's config, a kubeconfig with an exec plugin, an npmrc with a script shell): never covered by an
# [a]lways answer or an allow rule.
CODE_OPTIONS = {
    "*": {"--exec", "-exec", "-execdir", "-ok", "-okdir", "--upload-pack", "--receive-pack", "--rsh", "--rsync-path",
          "--to-command", "--use-compress-program", "--checkpoint-action", "--info-script", "--new-volume-script",
          "--sequence-editor", "--editor", "--pager", "--tool", "--extcmd", "--ext-diff", "--textconv", "--eval",
          "--interpreter", "--init-command", "--rcfile", "--init-file", "--template", "--config", "--config-env",
          "--exec-path", "--kubeconfig", "--userconfig", "--globalconfig", "--script-shell", "--shell", "--ssh",
          "--git-dir", "--work-tree", "--manifest-path", "--init-script", "--settings", "--file", "--makefile",
          "--directory", "--justfile", "--build-file", "--project-dir", "--prefix", "--cwd", "--dir",
          "--output", "--output-file", "--output-directory", "--log-file"},  # these write files of their choosing
    "git": {"-c", "-C", "-u", "-x", "--paginate", "--show-signature"}, "ssh": {"-o", "-F"},
    "kubectl": {"-s", "--server"}, "helm": {"--kube-apiserver"},  # these send the user's token to another server
    "scp": {"-o", "-F", "-S"}, "sftp": {"-o", "-F", "-S"},
    "rsync": {"-e"}, "tar": {"-I", "-F"}, "make": {"-C", "-f", "-I"}, "docker": {"-c"}, "npm": {"-C"},
    "pnpm": {"-C"}, "cargo": {"-C", "-Z"}, "go": {"-C"}, "poetry": {"-C", "-P"}, "just": {"-f", "-d"},
    "mvn": {"-f", "-s"}, "gradle": {"-p", "-b", "-I"}, "sed": {"-e", "-f", "--expression"},
}
CODE_WORDS = re.compile(r"exec|command|cmd|editor|pager|program|hook|proxy|shell|-pack|filter", re.IGNORECASE)
def normalized(words: list[str]) -> list[str] | None:
    """A command with its program's global options taken out (`git -C x push` is `git push`), so a deny rule
    naming a subcommand still matches; None for a program whose global options ankit does not know."""
    program = words[0].rsplit("/", 1)[-1] if words else ""
    if program not in GLOBAL_VALUED:
        return None
    rest = _after_global_options(program, words[1:])
    return [program, *rest] if rest is not None else None


def runs_code(words: list[str]) -> bool:
    """Whether a simple command carries an option that runs code of the caller's choosing (see CODE_OPTIONS)."""
    program = words[0].rsplit("/", 1)[-1] if words else ""
    own = CODE_OPTIONS.get(program, set())
    for word in words[1:]:
        name = word.split("=", 1)[0]
        if name in CODE_OPTIONS["*"] or (name in own) or any(word.startswith(o) and len(o) == 2 for o in own):
            return True
        if name.startswith("-") and not name.startswith("--no-") and CODE_WORDS.search(name):
            return True
        if re.search(r"proxycommand|localcommand|permitlocalcommand|\balias\.", word, re.IGNORECASE):
            return True
        if program == "git" and word.startswith("!"):
            return True
        if program in ("make", "gmake", "just", "rake") and re.match(r"[A-Za-z_]\w*=", word):
            return True  # a variable given on the line (SHELL=..., CC=...) changes what the recipes run
    return program == "git" and "-p" in _global_part(words)  # -p before the subcommand: the repository's pager


def _global_part(words: list[str]) -> list[str]:
    """The options between a program and its subcommand."""
    rest = _after_global_options(words[0].rsplit("/", 1)[-1], words[1:]) or []
    return words[1:len(words) - len(rest)]


def _after_global_options(program: str, rest: list[str]) -> list[str] | None:
    """The words after a program's global options; None when an option comes first and the program's global
    options are not known (the option could take the next word as its value)."""
    valued = GLOBAL_VALUED.get(program)
    if program.startswith("+"):
        return None
    if valued is None:
        return rest if not rest or not rest[0].startswith("-") else ([] if all(w.startswith("-") for w in rest) else None)
    index = 0
    while index < len(rest) and (rest[index].startswith("-") or (program == "cargo" and rest[index].startswith("+"))):
        word = rest[index]
        index += 1
        if word == "--":
            break
        if word in valued and (word not in ("-j", "--jobs") or index < len(rest) and rest[index].isdigit()):
            index += 1
    return rest[index:]
