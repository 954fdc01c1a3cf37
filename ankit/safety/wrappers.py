"""Wrappers read through or unsure: where a wrapper's command starts, which of its words it runs as a shell line
(`flock f -c LINE`, `su -c LINE`, `script -c LINE`), and when ankit cannot tell (known-safe: an option that is
neither a known flag nor a known valued option of that wrapper, `parallel`, `su USER ARGS` handing words to a
shell, a wrapper whose options ankit does not know at all). safety/shellwords.py reads the command it finds."""

from dataclasses import dataclass

from ankit.safety.programs import TAKES_FIRST, WRAPPERS, options_end

# Options known to take no value, per wrapper (WRAPPERS has those that take one). A wrapper missing here has
# options ankit does not know: any option makes the line unsure.
FLAGS = {
    "env": {"-i", "--ignore-environment", "-0", "--null", "-v", "--debug", "-", "--"},
    "sudo": {"-A", "-b", "-E", "-H", "-K", "-k", "-n", "-P", "-S", "-B", "-N", "--askpass", "--background", "--bell",
             "--preserve-env", "--set-home", "--non-interactive", "--preserve-groups", "--stdin", "--reset-timestamp",
             "--remove-timestamp", "--"} | {"-s", "-i", "--shell", "--login", "-e", "--edit"},
    "doas": {"-n", "-s", "--"},
    "xargs": {"-0", "-r", "-t", "-p", "-x", "-o", "--null", "--no-run-if-empty", "--verbose", "--interactive",
              "--exit", "--open-tty", "-I", "-i", "--replace", "--"},
    "nohup": {"--"}, "time": {"-p", "-v", "-a", "-q", "--portability", "--verbose", "--append", "--quiet", "--"},
    "exec": {"-c", "-l"}, "command": {"-p", "-v", "-V"}, "builtin": set(),
    "setsid": {"-c", "-f", "-w", "--ctty", "--fork", "--wait", "--"},
    "stdbuf": {"--"}, "nice": {"--"}, "ionice": {"-t", "--ignore", "--"},
    "timeout": {"--preserve-status", "--foreground", "-v", "--verbose", "--"},
    "flock": {"-s", "-x", "-e", "-u", "-n", "-o", "-F", "--shared", "--exclusive", "--unlock", "--nonblock", "--nb",
              "--close", "--no-fork", "--verbose", "--"},
    "ssh-agent": {"-c", "-s", "-D", "-d", "--"},
    "chroot": {"--skip-chdir", "--"},
    "runuser": {"-l", "--login", "-m", "-p", "--preserve-environment", "-P", "--pty", "-"},
    "su": {"-l", "--login", "-m", "-p", "--preserve-environment", "-P", "--pty", "-"},
    "script": {"-a", "-e", "-f", "-q", "--append", "--return", "--flush", "--force", "--quiet"},
    "setpriv": {"-d", "--dump", "--nnp", "--no-new-privs", "--keep-groups", "--clear-groups", "--init-groups",
                "--reset-env", "--"},
    "unshare": {"-m", "-u", "-i", "-n", "-p", "-U", "-C", "-T", "-f", "-r", "-c", "--fork", "--mount", "--uts",
                "--ipc", "--net", "--pid", "--user", "--cgroup", "--time", "--map-root-user", "--map-current-user",
                "--mount-proc", "--kill-child", "--keep-caps", "--"},
    "systemd-run": {"--user", "--system", "--scope", "-t", "--pty", "-P", "--pipe", "-q", "--quiet", "--wait", "-G",
                    "--collect", "--same-dir", "--no-block", "--no-ask-password", "-r", "--remain-after-exit", "--"},
    "watch": {"-b", "-e", "-g", "-t", "-p", "-c", "-x", "-w", "--beep", "--errexit", "--chgexit", "--no-title",
              "--precise", "--color", "--exec", "--no-wrap", "-d", "--differences", "--"},
    "strace": {"-f", "-ff", "-c", "-C", "-q", "-qq", "-t", "-tt", "-T", "-v", "-y", "-yy", "-k", "--"},
}
VALUED = {  # valued options of wrappers besides what programs.WRAPPERS lists
    "ssh-agent": {"-a", "-E", "-O", "-P", "-t"}, "script": {"-E", "--echo", "-I", "--log-in", "-O", "--log-out",
    "-B", "--log-io", "-T", "--log-timing", "-m", "--logging-format", "-o", "--output-limit"},
    "su": {"-g", "--group", "-G", "--supp-group", "-w", "--whitelist-environment"},
    "runuser": {"-g", "--group", "-G", "--supp-group", "-w", "--whitelist-environment", "-u", "--user"},
    "setpriv": {"--reuid", "--regid", "--ruid", "--rgid", "--euid", "--egid", "--groups", "--inh-caps",
                "--ambient-caps", "--bounding-set", "--securebits", "--pdeathsig", "--selinux-label",
                "--apparmor-profile", "--landlock-access", "--landlock-rule"},
    "unshare": {"-S", "--setuid", "-G", "--setgid", "-R", "--root", "-w", "--wd", "--propagation", "--setgroups",
                "--map-user", "--map-group", "--map-users", "--map-groups", "--monotonic", "--boottime"},
    "systemd-run": {"-u", "--unit", "-p", "--property", "--description", "--slice", "-E", "--setenv", "--uid",
                    "--gid", "--nice", "--working-directory", "-M", "--machine", "-H", "--host", "--service-type"},
    "chroot": {"--userspec", "--groups"}, "stdbuf": {"--input", "--output", "--error"},
}
COMMAND_STRINGS = {"flock": {"-c", "--command"}, "script": {"-c", "--command"}, "su": {"-c", "--command",
                   "--session-command"}, "runuser": {"-c", "--command", "--session-command"}}
LINE_RUNNERS = {"parallel", "sem", "parallel-moreutils"}  # their arguments become command lines, with replacements
SHELL_STARTERS = {"su": {"-s", "--shell"}, "runuser": {"-s", "--shell"}, "systemd-run": {"-S", "--shell"}}


@dataclass
class Plan:
    """How a wrapper's words are read: start (where its command starts, or len(words): none), code (the index of
    a word it runs as a shell line) and doubt (why the line is unsure; "" when it is not)."""

    start: int
    code: int | None = None
    doubt: str = ""


def plan(program: str, words: list[str]) -> Plan:
    """Where this wrapper's command starts in its words (after its options and first operand), or the shell line
    it runs, or why ankit cannot tell."""
    if program in ("su", "runuser"):
        return _permuted(program, words)
    valued = WRAPPERS.get(program, set()) | VALUED.get(program, set())
    start = options_end(words, valued)
    strings = COMMAND_STRINGS.get(program, set()) if program != "flock" else set()  # flock's -c: after its file
    doubt = unknown_option(program, words[:start], valued | strings)
    string = _string(program, words[:start]) if program != "flock" else None
    if program == "flock" and start + 2 < len(words) and words[start + 1] in COMMAND_STRINGS["flock"]:
        string = start + 2  # `flock FILE -c LINE`: the option right after the file
    if string is not None:
        return Plan(len(words), string, doubt)
    if any(w.split("=", 1)[0] in SHELL_STARTERS.get(program, ()) for w in words[:start]):
        return Plan(len(words), None, doubt or f"{program} starting a shell ankit does not read")
    if program == "script":
        return Plan(len(words), None, doubt)  # without -c it runs an interactive shell, writing its file
    if program in LINE_RUNNERS:
        return Plan(start, None, f"{program}, which runs its arguments as command lines with replacements")
    return Plan(start + TAKES_FIRST.get(program, 0), None, doubt)


def _string(program: str, options: list[str]) -> int | None:
    """The index of the word a command-string option (`-c`, `-qc`, `--command`) takes as its value."""
    strings = COMMAND_STRINGS.get(program, set())
    for index, word in enumerate(options):
        grouped = word[:1] == "-" and word[1:2] != "-" and "-" + word[-1:] in strings
        if (word in strings or grouped) and index + 1 < len(options) + 1:
            return index + 1
    return None


def _permuted(program: str, words: list[str]) -> Plan:
    """su and runuser, whose options may come anywhere before `--` (`su root -c LINE`): the line of -c, the
    command after `runuser -u USER`, or unsure when words would go to the user's shell."""
    valued = VALUED[program] | COMMAND_STRINGS[program]
    end = words.index("--") if "--" in words else len(words)
    options, positional, index = [], [], 0
    while index < end:
        word, index = words[index], index + 1
        if word.startswith("-") and word != "-":
            options.append(word)
            if word in valued or _takes_rest(word, valued):
                options.append(words[index] if index < end else "")
                index += 1
        else:
            positional.append(index - 1)
    doubt = unknown_option(program, options, valued)
    string = next((words.index(o) for i, o in enumerate(options[:-1]) if o in COMMAND_STRINGS[program]
                   or _takes_rest(o, COMMAND_STRINGS[program])), None)
    if string is not None:
        return Plan(len(words), string + 1, doubt)
    if any(o.split("=", 1)[0] in SHELL_STARTERS[program] for o in options):
        return Plan(len(words), None, doubt or f"{program} starting a shell ankit does not read")
    if program == "runuser" and any(o in ("-u", "--user") or o.startswith("--user=") for o in options):
        if end < len(words):
            return Plan(end + 1, None, doubt or ("" if not positional else f"runuser with words before --"))
        contiguous = positional == list(range(positional[0], end)) if positional else True
        return Plan(positional[0] if positional else len(words), None,
                    doubt or ("" if contiguous else "runuser with options among its command's words"))
    extra = positional[1:] + list(range(end + 1, len(words)))
    return Plan(len(words), None, doubt or (f"{program} handing {words[extra[0]]!r} to the user's shell" if extra else ""))


def _takes_rest(word: str, valued: set[str]) -> bool:
    """Grouped short options ending with one that takes the next word (`-lc LINE`)."""
    return word[:1] == "-" and word[1:2] != "-" and len(word) > 2 and "-" + word[-1] in valued


def unknown_option(program: str, options: list[str], valued: set[str]) -> str:
    """Why a wrapper's options are not all known ("" when they are): a value taken by an option ankit does not
    know would move where the command starts."""
    known, index = FLAGS.get(program), 0
    while index < len(options):
        word, index = options[index], index + 1
        name = word.split("=", 1)[0]
        if word in valued:
            index += 1  # its value
            continue
        if word == "--" or name in valued or (known is not None and name in known):
            continue
        if program == "nice" and word[1:].isdigit():
            continue  # nice -5: the old spelling of -n 5
        if known is not None and not word.startswith("--") and len(word) > 2 and _grouped(word, known, valued):
            continue
        return f"{program} with the option {word!r}, which ankit does not know"
    return ""


def _grouped(word: str, known: set[str], valued: set[str]) -> bool:
    """Grouped short options (`-iu`, `-oL`): each known, a valued one taking the rest of the word."""
    for index, char in enumerate(word[1:], 1):
        if "-" + char in valued:
            return True
        if "-" + char not in known:
            return False
    return True
