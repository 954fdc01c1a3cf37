"""Prints how many schema bytes (and roughly tokens) a request carries: everything vs ankit's core + find_tools.

Usage: python3 tests/bench/bench_schema.py [--tools-dir DIR ...]
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from ankit.settings.config import Config  # noqa: E402
from ankit.tooling.activation import canonical  # noqa: E402
from ankit.turn.app import App  # noqa: E402
from ankit.turn.window import BYTES_PER_TOKEN  # noqa: E402


def main(argv: list[str]) -> int:
    """Print the figures."""
    extra = [Path(a) for a in argv[1::2]] if argv[:1] == ["--tools-dir"] else []
    app = App(Config(tools_dirs=extra), Path.cwd()).load()
    everything = canonical([t.spec() for t in app.tools.values()])
    core = canonical([s for g in app.activation.core for s in app.activation.frozen(g).specs])
    print(f"{'what is sent':<34}{'bytes':>9}{'~tokens':>9}")
    print(f"{f'every tool ({len(app.tools)})':<34}{len(everything):>9,}{len(everything) // BYTES_PER_TOKEN:>9,}")
    print(f"{'core + skill + find_tools':<34}{len(core):>9,}{len(core) // BYTES_PER_TOKEN:>9,}")
    for group in app.catalog.groups.values():
        if not group.core:
            size = app.activation.frozen(group.id).size
            print(f"{'  + ' + group.id:<34}{size:>9,}{size // BYTES_PER_TOKEN:>9,}")
    print(f"saved per request before any find_tools call: {1 - len(core) / len(everything):.0%}")
    app.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
