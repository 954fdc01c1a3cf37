"""tests/bench/compare.py through bench_discovery.py: a dataset's and a --set folder's tables, every ranking beside,
run as a user runs it."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOLS = [("forecast", "Get the weather forecast for a city."), ("rain_radar", "Show the rain radar map."),
         ("git_log", "Show the commit history.")]


def bench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "tests/bench/bench_discovery.py", *args, "--no-speed"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def set_folder(folder: Path, suffix: str = "_A", requests: str = "requests") -> Path:
    folder.mkdir()
    rows = [{"name": name, "description": text, "parameters": {}, "group": "weather"} for name, text in TOOLS]
    (folder / f"catalog{suffix}.jsonl").write_text("\n".join(map(json.dumps, rows)) + "\n")
    asked = [{"id": "a1", "query": "do I need an umbrella", "gold": ["rain_radar"]},
             {"id": "a2", "query": "show the commit history", "gold": ["git_log"]}]
    (folder / f"{requests}{suffix}.jsonl").write_text("\n".join(map(json.dumps, asked)) + "\n")
    (folder / "phrases.json").write_text(json.dumps({"rain_radar": ["do I need an umbrella tomorrow"]}))
    return folder


def test_a_set_folder_gets_one_table_with_every_ranking_and_unrecorded_questions_counted(tmp_path):
    folder, dataset = set_folder(tmp_path / "unseen"), set_folder(tmp_path / "dataset", "", "queries")
    (tmp_path / "empty.jsonl").write_text("")
    done = bench(str(dataset), "--set", str(folder), "--old", str(ROOT), "--recorded", str(tmp_path / "empty.jsonl"))
    assert done.returncode == 0, done.stderr
    table = done.stdout.split("unseen/requests_A.jsonl (2 requests) on catalog_A.jsonl (3 tools), k = 5\n")[1]
    table = table.split("\n\n")[0]
    lines = {line[:42].strip(): line[42:].split() for line in table.splitlines()[1:]}
    assert list(lines) == ["ankit +phrases", "ankit no phrases", "BM25 +phrases", "BM25 no phrases",
                           "earlier +phrases", "earlier no phrases", "decision +phrases", "decision no phrases"]
    assert lines["ankit +phrases"][:2] == ["1.000", "1.000"] and lines["ankit no phrases"][0] == "0.500"
    assert lines["earlier +phrases"][:2] == lines["ankit +phrases"][:2]  # this tree ranked as an earlier one
    assert " ".join(lines["decision +phrases"][4:]).startswith("2 of 2 fell back (2 not recorded)")
    assert "dataset/queries.jsonl (2 requests) on catalog.jsonl (3 tools)" in done.stdout


def test_a_folder_without_request_sets_is_one_line_saying_what_it_needs(tmp_path):
    dataset = set_folder(tmp_path / "dataset", "", "queries")
    done = bench(str(dataset), "--set", str(tmp_path / "dataset" / ".."), "--no-decision")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip() == (f"bench_discovery: {tmp_path / 'dataset' / '..'}: no requests*.jsonl (or queries.jsonl) there; a set "
                                   "folder holds catalog*.jsonl and requests*.jsonl in the eval-discovery format")
