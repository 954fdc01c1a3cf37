"""`ankit bundle` writes one ankit.pyz that runs from an empty folder with a clean environment (real subprocesses)."""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ankit.safety.sandbox import support
from tests.test_oneshot import env_for

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def pyz(tmp_path_factory) -> Path:
    """The archive, built once from this checkout."""
    folder = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "ankit", "bundle", "--output", str(folder / "ankit.pyz")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, env=env_for(folder))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"wrote {folder / 'ankit.pyz'} (")
    return folder / "ankit.pyz"


def clean_env(tmp_path: Path) -> dict[str, str]:
    """HOME and every XDG folder in tmp_path, no PYTHONPATH (the checkout is out of reach), no provider keys."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path / "home"), "LANG": "C.UTF-8",
            "NO_COLOR": "1", **{f"XDG_{n.upper()}_HOME": str(tmp_path / n) for n in ("config", "state", "data", "cache")}}


def run(pyz: Path, tmp_path: Path, *args: str, stdin: str = "", **env: str) -> subprocess.CompletedProcess:
    """python3 ankit.pyz ARGS from the empty folder tmp_path/empty."""
    empty = tmp_path / "empty"
    empty.mkdir(exist_ok=True)
    return subprocess.run([sys.executable, str(pyz), *args], cwd=empty, input=stdin, capture_output=True, text=True,
                          timeout=60, env={**clean_env(tmp_path), **env})


def test_the_archive_runs_version_tools_skills_and_a_one_shot_from_an_empty_folder(pyz, tmp_path, provider_server):
    version = run(pyz, tmp_path, "--version")
    assert version.returncode == 0 and version.stdout.startswith("ankit ")
    tools = run(pyz, tmp_path, "tools")
    assert tools.returncode == 0, tools.stderr
    assert "read_file" in tools.stdout and "git_log" in tools.stdout and "skipped" not in tools.stdout
    skills = run(pyz, tmp_path, "skills")
    assert "review-commit" in skills.stdout and "write-ankit-tool" in skills.stdout
    [unpacked] = (tmp_path / "cache" / "ankit").iterdir()  # the tools ran from the cache, not from the checkout
    assert unpacked.name.startswith("bundle-") and (unpacked / "ankit" / "bundled_tools" / "core" / "read_file.py").is_file()
    (tmp_path / "empty" / "notes.txt").write_text("the archive's tools work\n")
    provider_server.push_openai(tool_calls=[("c1", "read_file", '{"path": "notes.txt"}')])
    provider_server.push_openai(text="Read it.")
    done = run(pyz, tmp_path, "--base-url", provider_server.url + "/v1", "-p", "read my notes")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Read it."
    assert "the archive's tools work" in provider_server.requests[1].json["messages"][-1]["content"]


def test_the_repl_runs_from_the_archive(pyz, tmp_path):
    done = run(pyz, tmp_path, stdin="/skills\n/exit\n")
    assert done.returncode == 0, done.stderr
    assert "review-commit" in done.stdout


def test_two_first_starts_at_once_share_one_complete_unpacked_copy(pyz, tmp_path):
    (tmp_path / "empty").mkdir()
    started = [subprocess.Popen([sys.executable, str(pyz), "tools"], cwd=tmp_path / "empty", env=clean_env(tmp_path),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outputs = [process.communicate(timeout=60) for process in started]
    assert [process.returncode for process in started] == [0, 0, 0], outputs
    assert len({out for out, _ in outputs}) == 1 and "git_log" in outputs[0][0]
    assert [p.name[:7] for p in (tmp_path / "cache" / "ankit").iterdir()] == ["bundle-"]  # no staging folder left


def test_an_unwritable_cache_is_one_line_that_says_what_to_do(pyz, tmp_path):
    (tmp_path / "cache").write_text("a file, not a folder")
    done = run(pyz, tmp_path, "tools")
    assert done.returncode == 1
    [line] = done.stderr.splitlines()
    assert line.startswith("ankit: cannot unpack the bundled tools and skills") and "set XDG_CACHE_HOME" in line


def test_the_archive_bundles_itself_and_bad_arguments_get_one_line(pyz, tmp_path):
    assert run(pyz, tmp_path, "bundle", "--output", str(tmp_path / "copy.pyz")).returncode == 0
    assert (tmp_path / "copy.pyz").read_bytes() == pyz.read_bytes()
    for args, code, start in ((["--output", str(tmp_path / "missing" / "a.pyz")], 1, "ankit: no folder "),
                              (["-o", str(tmp_path)], 1, f"ankit: {tmp_path} is a folder: name the archive file"),
                              (["--zip"], 2, "ankit bundle: unrecognized arguments: --zip (see ankit bundle --help)")):
        done = run(pyz, tmp_path, "bundle", *args)
        assert done.returncode == code and done.stderr.startswith(start) and done.stderr.count("\n") == 1, done.stderr
    assert not (tmp_path / "missing").exists()


def older_python() -> str | None:
    """A Python older than 3.11 on this machine (PATH or pyenv), if there is one."""
    home = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    for minor in (10, 9, 8):
        for found in (shutil.which(f"python3.{minor}"), *sorted(home.glob(f"versions/3.{minor}.*/bin/python3"))):
            if found and subprocess.run([str(found), "-c", "pass"], capture_output=True).returncode == 0:
                return str(found)
    return None


def test_an_older_python_is_told_in_one_line(pyz, tmp_path):
    python = older_python()
    if python is None:
        pytest.skip("no Python older than 3.11 on this machine")
    done = subprocess.run([python, str(pyz), "--version"], capture_output=True, text=True, timeout=60,
                          env=clean_env(tmp_path))
    assert done.returncode == 1
    assert done.stderr.startswith("ankit: needs Python 3.11 or newer, and this is 3.") and done.stderr.count("\n") == 1


def test_unpacking_a_new_archive_removes_copies_unused_for_thirty_days(pyz, tmp_path):
    cache = tmp_path / "cache" / "ankit"
    for name, days in (("bundle-old", 40), ("bundle-recent", 2)):
        (cache / name / "ankit").mkdir(parents=True)
        then = time.time() - days * 86400
        os.utime(cache / name, (then, then))
    done = run(pyz, tmp_path, "tools")
    assert done.returncode == 0, done.stderr
    names = sorted(p.name for p in cache.iterdir())
    assert "bundle-old" not in names and "bundle-recent" in names and len(names) == 2
    [current] = [cache / n for n in names if n != "bundle-recent"]
    assert time.time() - current.stat().st_mtime < 3600  # marked as used now


@pytest.mark.parametrize("plant", ["changed", "added", "bytecode", "symlink", "group-writable"])
def test_a_bundle_folder_planted_before_the_first_start_is_never_run(pyz, tmp_path, plant):
    """Someone who can write the cache folder lays out bundle-HASH beforehand: a tool module with other bytes
    (the same size too), an extra module, or cached bytecode beside the real source; ankit.pyz runs none of it."""
    import hashlib
    import zipfile
    marker = tmp_path / "PWNED"
    folder = tmp_path / "cache" / "ankit" / f"bundle-{hashlib.sha256(pyz.read_bytes()).hexdigest()[:20]}"
    with zipfile.ZipFile(pyz) as bundle:
        bundle.extractall(folder, [n for n in bundle.namelist() if n.startswith("ankit/bundled_")])
    source = folder / "ankit" / "bundled_tools" / "core" / "get_time.py"
    evil = f"import pathlib; pathlib.Path({str(marker)!r}).write_text('ran')\n"
    if plant == "changed":
        original, body = source.read_bytes(), evil.encode()
        source.write_bytes(body + b"#" + original[len(body) + 1:])  # same size, other bytes (the module's start)
    elif plant == "added":
        (source.parent / "zz_extra.py").write_text(evil + "name = 'zz_extra'\ndescription = 'x'\n"
                                                   "parameters = {'type': 'object'}\ndef run(args, ctx):\n    return 'x'\n")
    elif plant == "symlink":  # the folder itself a link to one laid out elsewhere, same bytes but one module
        elsewhere = tmp_path / "elsewhere"
        folder.rename(elsewhere)
        folder.symlink_to(elsewhere)
        target = elsewhere / "ankit" / "bundled_tools" / "core" / "get_time.py"
        original = target.read_bytes()
        target.write_bytes(evil.encode() + b"#" + original[len(evil) + 1:])
    elif plant == "group-writable":  # exact bytes, but a folder others may write into before the next start
        os.chmod(source.parent, 0o777)
        (source.parent / "later.py").write_text(evil)  # what another user would add
        os.chmod(source.parent / "later.py", 0o666)
    else:
        import importlib.util
        import py_compile
        fake = source.with_name("fake.py")
        fake.write_text(evil + source.read_text())
        stat = source.stat()
        os.utime(fake, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        cached = Path(importlib.util.cache_from_source(str(source)))
        py_compile.compile(str(fake), cfile=str(cached), dfile=str(source))
        fake.unlink()
        data = bytearray(cached.read_bytes())
        data[8:16] = int(stat.st_mtime).to_bytes(4, "little") + (stat.st_size).to_bytes(4, "little")
        cached.write_bytes(bytes(data))  # bytecode that claims to match the real source
    os.utime(folder)
    tools = run(pyz, tmp_path, "tools")
    assert tools.returncode == 0, tools.stderr
    assert not marker.exists(), tools.stdout
    assert "zz_extra" not in tools.stdout


def test_the_search_reads_its_vectors_from_inside_the_archive(pyz, tmp_path):
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import ankit.discovery.vectors as v; "
            "print(v.__file__.startswith(sys.argv[1]), v.shipped().dims)")
    done = subprocess.run([sys.executable, "-c", code, str(pyz)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60, env=clean_env(tmp_path))
    assert done.stdout.split() == ["True", "64"], done.stderr


def test_the_archive_carries_the_licence_and_the_notices_of_the_data_it_ships(pyz, tmp_path):
    import zipfile
    with zipfile.ZipFile(pyz) as bundle:
        assert bundle.read("LICENSE") == (ROOT / "LICENSE").read_bytes()
        assert bundle.read("NOTICE") == (ROOT / "NOTICE").read_bytes()
    copy = tmp_path / "copy.pyz"  # the archive bundles itself: the copy carries them too
    assert run(pyz, tmp_path, "bundle", "--output", str(copy)).returncode == 0
    with zipfile.ZipFile(copy) as bundle:
        assert {"LICENSE", "NOTICE"} <= set(bundle.namelist())


def test_the_notice_names_every_data_file_shipped_and_quotes_the_licences_that_ask_for_it():
    notice = (ROOT / "NOTICE").read_text()
    shipped = [p for p in (ROOT / "ankit").rglob("*") if p.is_file() and p.suffix in (".txt", ".bin", ".json")]
    assert shipped and [p.name for p in shipped if p.name not in notice] == []
    assert "WordNet 3.0 Copyright 2006 by Princeton University.  All rights reserved." in notice  # on ALL copies
    assert "Copyright (c) 2024 Lee Miller" in notice and "creativecommons.org/licenses/by/4.0" in notice
    assert "Llama 2" in notice  # which licence covers the tokenizer vocabulary in vectors.bin


@pytest.mark.parametrize("mode", ["off", "workspace"])
def test_the_archive_runs_a_command_and_a_run_code_program_sandbox_on_and_off(pyz, tmp_path, provider_server, mode):
    """The trampoline and code mode's child start as modules, which a file inside a zip cannot be started as."""
    if mode == "workspace" and support().kind != "landlock":
        pytest.skip(f"no Linux sandbox here: {support().detail}")
    (tmp_path / "config" / "ankit").mkdir(parents=True)
    (tmp_path / "config" / "ankit" / "config.toml").write_text('code_mode = "on"\n')
    provider_server.push_openai(tool_calls=[("c1", "run_command", '{"command": "echo command-$((6 * 7))"}')])
    provider_server.push_openai(tool_calls=[("c2", "run_code", '{"code": "print(\'program-\' + str(6 * 7))"}')])
    provider_server.push_openai(text="Both ran.")
    done = run(pyz, tmp_path, "--base-url", provider_server.url + "/v1", "--sandbox", mode, "--yes", "-p", "run both")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Both ran." and "__main__" not in done.stderr
    assert "command-42" in provider_server.requests[1].json["messages"][-1]["content"]
    assert "program-42" in provider_server.requests[2].json["messages"][-1]["content"]

