"""`ankit bundle`: ankit, its bundled tools and its bundled skills as one zipapp that `python3 ankit.pyz` runs."""

import importlib.metadata
import os
import py_compile
import shutil
import tempfile
import zipapp
from pathlib import Path

from ankit.errors import AnkitError
from ankit import paths
from ankit.safety import statefiles

MAIN = """import sys

if sys.version_info < (3, 11):
    sys.exit("ankit: needs Python 3.11 or newer, and this is " + sys.version.split()[0] + ": run it with python3.11 or later")

from ankit.cli import main

raise SystemExit(main())
"""
LEAVE_OUT = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".*")
LEGAL = ("LICENSE", "NOTICE")  # ankit's licence and the notices of the data it ships: every copy carries them


def build(output: Path) -> int:
    """Write the zipapp to output (replacing it whole, never half-written); return its size in bytes."""
    if output.is_dir():
        raise AnkitError(f"{output} is a folder: name the archive file, e.g. --output {output / 'ankit.pyz'}")
    if not output.parent.is_dir():
        raise AnkitError(f"no folder {output.parent} to write {output.name} into: create it first")
    part = output.with_name(output.name + ".part")
    running = paths.archive()
    try:
        if running is not None:  # ankit runs from an archive: that archive is the bundle
            shutil.copyfile(running, part)
        else:
            with tempfile.TemporaryDirectory() as tmp:
                zipapp.create_archive(_stage(Path(tmp)), part, interpreter="/usr/bin/env python3", compressed=True)
        os.chmod(part, 0o755)
        os.replace(part, output)
    except OSError as exc:
        part.unlink(missing_ok=True)
        raise AnkitError(f"cannot write {output}: {exc.strerror or exc}") from None
    return output.stat().st_size


def _stage(stage: Path) -> Path:
    """A folder laid out as the archive: __main__.py, LICENSE and NOTICE, the package, its bundled tools and skills
    beside the code."""
    package = stage / "ankit"
    shutil.copytree(Path(__file__).resolve().parent.parent, package,
                    ignore=lambda folder, names: [*LEAVE_OUT(folder, names), *(n for n in names if n.startswith("bundled_"))])
    for name in ("tools", "skills"):
        shutil.copytree(statefiles.bundled(name), package / f"bundled_{name}", ignore=LEAVE_OUT)
    (stage / "__main__.py").write_text(MAIN, encoding="utf-8")
    for path in _legal_files():
        shutil.copyfile(path, stage / path.name)
    _compile(package)
    return stage


def _legal_files() -> list[Path]:
    """LICENSE and NOTICE: from the checkout the package sits in, else from the installed package's metadata."""
    root = Path(__file__).resolve().parents[2]
    if all((root / name).is_file() for name in LEGAL):
        return [root / name for name in LEGAL]
    try:
        files = importlib.metadata.distribution("ankit").files or []
    except importlib.metadata.PackageNotFoundError:
        files = []
    found = {f.name: Path(str(f.locate())) for f in files if f.name in LEGAL}
    if set(found) != set(LEGAL):
        raise AnkitError("cannot find ankit's LICENSE and NOTICE to put in the archive: build it from a checkout")
    return [found[name] for name in LEGAL]


def _compile(package: Path) -> None:
    """Byte-compile the package beside its sources, which zipimport reads instead of compiling every start.

    They are for the Python that builds the archive; another version finds their magic number wrong and
    compiles the source, as it would without them. The bundled tools are left out: they run from the
    unpacked copy, which caches its own.
    """
    for source in package.rglob("*.py"):
        if not source.relative_to(package).parts[0].startswith("bundled_"):
            py_compile.compile(str(source), cfile=str(source.with_suffix(".pyc")), doraise=True,
                               invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
