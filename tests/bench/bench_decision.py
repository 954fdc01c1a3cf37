"""Decision mode measured: find_tools' words vs the model's choice among their top 20 vs BM25, on the fleet's
held-out request sets (user_requests_heldout, _blind, _blind2: never looked at while tuning).

usage: python3 tests/bench/bench_decision.py --decision URL --model NAME [--record FILE] [--limit N] [--no-phrases]
                                            [--sets heldout,blind,blind2]
       python3 tests/bench/bench_decision.py --recorded FILE [--limit N] [--no-phrases] [--sets ...]
--sets names other fleet request sets (dev2 for user_requests_dev2.jsonl, bundled_guard, queries).
--decision asks a real OpenAI-compatible server (llama.cpp's, vLLM) each choice question through ankit's own
provider and ModelChooser; --record writes every answer (the letters' log-probabilities and the question's
tokens) as JSON lines keyed by the question's text, appending to what the file already holds and asking only
what it lacks. --recorded replays such a file without a server: a question it lacks counts as a fallback
("not recorded"). Prints recall@1 / recall@5 per set (decision mode's ranking, the words' after it for r@5), how
often decision mode fell back to the words' ranking, and the extra tokens per search. The catalog is the fleet's
cached one with the servers' phrases and the bundled tools' own (tests/bench/compare.py). Not run in CI; the
three comparing benches (bench_fleet.py, bench_discovery.py, bench_model_calls.py) replay the same recording
with this file's Recorded chooser, beside the other rankings.
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from ankit.discovery.decision import decide  # noqa: E402
from ankit.discovery.evaluation import InputError  # noqa: E402
from tests.bench.compare import FLEET, K, fleet_index, share  # noqa: E402

SETS = ("heldout", "blind", "blind2")


class Recorded:
    """A Chooser answering from recorded answers (keyed by the question's text); asks `ask` for the rest."""

    def __init__(self, path: Path | None, ask=None, write: bool = False):
        self.path, self.ask, self.write = path, ask, write
        self.answers: dict[str, dict] = {}
        if path is not None and path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    answer = json.loads(line)
                    self.answers[answer["question"]] = answer
        self.tokens = 0  # the questions' tokens (prompt and answer) since the last take_tokens
        self.fallbacks: list[str] = []
        self.firsts: dict[str, int] = {}  # the option letter the model liked best, over every question answered

    def choose(self, system: str, question: str) -> dict[str, float] | str:
        """The recorded letters for this question, or the server's answer (recorded when asked to)."""
        answer = self.answers.get(question)
        if answer is None and self.ask is not None:
            answer = self._asked(system, question)
        if answer is None:
            return self._fell_back("not recorded")
        self.tokens += answer["tokens"]
        self._tally(question, answer["letters"])
        return answer["letters"] if answer["letters"] else self._fell_back(answer["reason"])

    def _asked(self, system: str, question: str) -> dict:
        before = len(self.ask.rounds)
        found = self.ask.choose(system, question)
        usage = self.ask.rounds[before].usage if len(self.ask.rounds) > before else None
        tokens = usage.input_tokens + usage.output_tokens if usage is not None else 0
        answer = {"question": question, "letters": found if isinstance(found, dict) else {},
                  "reason": found if isinstance(found, str) else "", "tokens": tokens}
        if answer["reason"].startswith("the question failed"):
            return answer  # a timeout or an error is asked again next time, never recorded
        self.answers[question] = answer
        if self.write:
            with self.path.open("a", encoding="utf-8") as out:
                out.write(json.dumps(answer) + "\n")
        return answer

    def _tally(self, question: str, letters: dict[str, float]) -> None:
        offered = [letter for letter in letters if f"\n{letter}. " in question]
        if offered:
            best = max(offered, key=letters.get)
            self.firsts[best] = self.firsts.get(best, 0) + 1

    def _fell_back(self, reason: str) -> str:
        self.fallbacks.append(reason)
        return reason

    def take_tokens(self) -> int:
        tokens, self.tokens = self.tokens, 0
        return tokens


def requests_of(name: str, limit: int | None) -> list[dict]:
    path = FLEET / f"user_requests_{name}.jsonl"
    path = path if path.is_file() else FLEET / f"{name}.jsonl"  # bundled_guard, queries
    if not path.is_file():
        raise InputError(f"no request set {path.name} (nor user_requests_{name}.jsonl) in {FLEET}")
    requests = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return requests[:limit] if limit else requests


def measure(name: str, chooser: Recorded, phrases: bool, limit: int | None) -> str:
    """One set's line: words, decision and BM25 recall, the fallbacks and the extra tokens per search."""
    _, index, bm25 = fleet_index(phrases)
    rows, fell, tokens = [], 0, 0
    for request in requests_of(name, limit):
        gold, query = set(request["gold"]), request["query"]
        words = [n for n, _ in index.rank_tools(query, K)]
        before = len(chooser.fallbacks)
        decision = decide(index, query, chooser)
        fell += len(chooser.fallbacks) > before or decision.mode != "decision"
        tokens += chooser.take_tokens()
        chosen = [n for n, _ in decision.ranked] if decision.mode == "decision" else []
        ranked = (chosen + [n for n in words if n not in chosen])[:K]
        other = bm25.rank(query)
        rows.append([share(gold, words[:1]), share(gold, words), share(gold, ranked[:1]), share(gold, ranked),
                     share(gold, other[:1]), share(gold, other[:K])])
        print(f"  {name}:{request['id']} decision={chosen[:3]} gold={sorted(gold)}", file=sys.stderr, flush=True)
    mean = [sum(row[i] for row in rows) / len(rows) for i in range(6)]
    return (f"{name:<8} {len(rows):>4} | {mean[0]:.3f} {mean[1]:.3f} | {mean[2]:.3f} {mean[3]:.3f} | "
            f"{mean[4]:.3f} {mean[5]:.3f} | {fell:>5} {tokens / max(len(rows), 1):>8.0f}")


def value(argv: list[str], flag: str) -> str | None:
    return argv[argv.index(flag) + 1] if flag in argv and argv.index(flag) + 1 < len(argv) else None


def chooser_of(argv: list[str]) -> Recorded:
    """The recorded answers, backed by a real server with --decision."""
    if value(argv, "--decision") is None:
        if value(argv, "--recorded") is None:
            raise InputError(__doc__.splitlines()[2])
        return Recorded(Path(value(argv, "--recorded")))
    from ankit.providers import ProviderSettings, make_provider
    from ankit.turn.deciding import ModelChooser
    if value(argv, "--model") is None:
        raise InputError("--decision needs --model NAME")
    settings = ProviderSettings("openai", "openai", value(argv, "--decision"), value(argv, "--model"), native=False)
    provider = make_provider(settings)
    record = value(argv, "--record")
    return Recorded(Path(record) if record else None, ModelChooser(lambda: provider), write=record is not None)


def main(argv: list[str]) -> int:
    """Print the figures of every held-out set."""
    chooser = chooser_of(argv)
    limit = int(value(argv, "--limit")) if value(argv, "--limit") else None
    phrases = "--no-phrases" not in argv
    print(f"phrases: {'with' if phrases else 'without'}; recall@1 recall@5; decision r@5 fills with the words' ranking")
    print(f"{'set':<8} {'reqs':>4} | words r@1 r@5 | decision    | BM25        | falls tokens/search")
    for name in (value(argv, "--sets") or ",".join(SETS)).split(","):
        print(measure(name, chooser, phrases, limit), flush=True)
    reasons = sorted(set(chooser.fallbacks))
    print(f"fallback reasons: {reasons if reasons else 'none'}")
    firsts = ", ".join(f"{letter} {count}" for letter, count in sorted(chooser.firsts.items()))
    print(f"the model's likeliest letter per question (A is the words' first tool, Z none fits): {firsts}")
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main(sys.argv[1:]))
    except (InputError, json.JSONDecodeError, OSError, ValueError) as exc:
        raise SystemExit(f"bench_decision: {exc}") from None
