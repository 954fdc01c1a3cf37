"""Where ankit keeps things (paths.py): the folders a test sees are its own, and ankit's modules run as programs."""

import os
import pwd
import subprocess
from pathlib import Path

from ankit import paths


def test_every_test_has_a_home_of_its_own(own_home):
    real = Path(pwd.getpwuid(os.getuid()).pw_dir)
    assert Path.home() == own_home != real
    assert paths.claude_home() == own_home / ".claude"
    for folder in (paths.config_home(), paths.state_home(), paths.data_home(), paths.cache_home()):
        assert folder.is_relative_to(own_home.parent) and not folder.is_relative_to(real)


def test_a_module_runs_as_a_program_whatever_the_working_folder_holds(tmp_path):
    """-I -S: neither the working folder nor PYTHONPATH can stand in for ankit or the standard library."""
    for rogue in (tmp_path / "ankit" / "safety", tmp_path / "lib"):
        rogue.mkdir(parents=True)
    (tmp_path / "ankit" / "__init__.py").write_text("raise SystemExit('rogue ankit')\n")
    (tmp_path / "lib" / "ctypes.py").write_text("raise SystemExit('rogue ctypes')\n")
    done = subprocess.run([*paths.program("ankit.safety.confine"), "--contain-only", "--", "echo", "ran"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=30,
                          env={**os.environ, "PYTHONPATH": str(tmp_path / "lib")})
    assert (done.returncode, done.stdout, done.stderr) == (0, "ran\n", "")
