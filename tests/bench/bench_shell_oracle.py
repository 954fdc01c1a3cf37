"""The shell scanner against a real shell: generated command lines (tests/shell_oracle.py) run under bash and dash
with stub programs; prints lines tried, how many the scanner was sure of, and disagreements (target 0): programs a
shell started that the scanner did not report for a line it called sure.

    python3 tests/bench/bench_shell_oracle.py [--lines 5000] [--wrappers 2000] [--seed 1]

--wrappers: lines of the wrapper corpus (flock -c, script -c, su -c, runuser, ssh-agent, timeout, nice, ionice,
stdbuf, chroot, unshare, setpriv, systemd-run, xargs, parallel, ...), counted on their own line.
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from ankit.safety import sandbox  # noqa: E402
from tests.shell_oracle import SHELLS, disagreements, generate, wrapper_lines  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--wrappers", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    where = sandbox.support()
    print(f"shells: {', '.join(SHELLS)}; sandbox: {where.kind or 'none'} ({where.detail})")
    for label, lines in (("lines", generate(options.lines, options.seed)),
                         ("wrapper lines", wrapper_lines(options.wrappers, options.seed))):
        started = time.monotonic()
        bad, sure = disagreements(lines)
        took = time.monotonic() - started
        print(f"{label} tried: {len(lines)}  sure: {sure}  unsure: {len(lines) - sure}  disagreements: {len(bad)}  "
              f"({took:.1f} s)")
        for shell, line, argv in bad[:20]:
            print(f"  {shell}: {line!r} started {argv!r}")


if __name__ == "__main__":
    main()
