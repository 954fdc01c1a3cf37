"""`pip install .` into a fresh venv gives a working `ankit` that finds the bundled tools and skills."""

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_installed_command_works_from_another_folder(provider_server, tmp_path):
    venv.create(tmp_path / "venv", with_pip=False)  # the running pip installs into it (--python, pip 22.3+):
    bin_dir = tmp_path / "venv" / ("Scripts" if os.name == "nt" else "bin")  # no copy of pip to set up first
    # a copy of the tree, so the build never writes into the checkout
    shutil.copytree(ROOT, tmp_path / "src", ignore=shutil.ignore_patterns(".git", "__pycache__", "*.egg-info", "build"))
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(bin_dir / "python"), "install", "-q",
                              str(tmp_path / "src")], capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stderr[-2000:]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "notes.txt").write_text("bundled tools work\n")
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "HOME": str(tmp_path / "home"),
           "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_CONFIG_HOME": str(tmp_path / "config"), "NO_COLOR": "1"}

    def run(*args):
        return subprocess.run([str(bin_dir / "ankit"), *args], cwd=elsewhere, env=env, capture_output=True,
                              text=True, timeout=60)

    assert run("--version").stdout.startswith("ankit ")
    listing = run("tools").stdout
    assert "read_file" in listing and "git_log" in listing and "skipped" not in listing
    assert "review-commit" in run("skills").stdout
    related = subprocess.run([str(bin_dir / "python"), "-c", "from ankit.discovery.synonyms import relatives, is_verb;"
                              "print(relatives('wipe')[0], is_verb('delet'))"],
                             cwd=elsewhere, env=env, capture_output=True, text=True, timeout=60)
    assert related.stdout.split() == ["('delet',", "'slang')", "True"], related.stderr  # data installed
    provider_server.push_openai(tool_calls=[("c1", "read_file", '{"path": "notes.txt"}')])
    provider_server.push_openai(text="ok")
    done = run("--base-url", provider_server.url + "/v1", "-p", "read my notes")
    assert done.returncode == 0, done.stderr
    assert "bundled tools work" in provider_server.requests[1].json["messages"][-1]["content"]
    hello = '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}\n'
    acp = subprocess.run([str(bin_dir / "ankit"), "acp"], cwd=elsewhere, env=env, input=hello, capture_output=True,
                         text=True, timeout=60)  # every subpackage installed: ankit.acp was once left out
    assert '"protocolVersion": 1' in acp.stdout, acp.stderr


def test_pip_install_ships_every_package_of_ankit():
    """pyproject.toml names each package for `pip install .`; one left out is missing from the installed ankit."""
    import tomllib
    setup = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    named = {setup["package-dir"].get(name, name.replace(".", "/")): name for name in setup["packages"]}
    on_disk = {str(p.parent.relative_to(ROOT)) for p in (ROOT / "ankit").rglob("__init__.py")}
    assert sorted(on_disk - set(named)) == []
    assert sorted(n for folder, n in named.items() if not (ROOT / folder).is_dir()) == []
