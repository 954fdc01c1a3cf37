"""bench_decision.py's blind answering: the questions it prints carry no gold tool, and the answers written for
them are recorded and replayed."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "tests" / "bench" / "bench_decision.py"


def bench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(BENCH), *args], capture_output=True, text=True, timeout=120)


def test_the_questions_to_answer_name_no_gold_tool_and_the_answers_written_are_recorded(tmp_path):
    recording, folder = tmp_path / "answers.jsonl", tmp_path / "round"
    done = bench("--questions", str(folder), "--recorded", str(recording), "--per", "1")
    assert done.returncode == 0, done.stderr
    pending = [json.loads(line) for line in (folder / "pending.jsonl").read_text().splitlines()]
    shown = (folder / "questions.txt").read_text()
    assert pending and shown == "".join(f"### {row['id']}\n{row['question']}\n\n" for row in pending)  # nothing else
    assert all(row["question"].startswith("A user asked an assistant: ") for row in pending)
    (folder / "answers.txt").write_text("".join(f"{row['id']}: Z 0.90, A 0.05\n" for row in pending))
    done = bench("--answers", str(folder), "--recorded", str(recording))
    assert done.stdout.strip() == f"recorded {len(pending)} of {len(pending)} answers in {recording}"
    first = json.loads(recording.read_text().splitlines()[0])
    assert first["answer"] == "Z 0.90, A 0.05" and first["tokens"] > 100
    again = bench("--questions", str(tmp_path / "next"), "--recorded", str(recording), "--per", "1")
    assert again.returncode == 0 and "questions pending" in again.stdout  # the second chunks, now asked
