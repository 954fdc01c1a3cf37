"""Decision mode measured: find_tools' words vs the model's choice among their top 20, ranked by the first
token's log-probabilities or by the letters written, on catalogs outside the fleet (tests/bench/unseen: real
servers' tool lists, with the bundled tools beside them as in a session).

usage: python3 tests/bench/bench_decision.py [--recorded FILE] [--fit] [--per N]
       python3 tests/bench/bench_decision.py --questions DIR      # the questions the recording lacks, to answer
       python3 tests/bench/bench_decision.py --answers DIR        # ... and the answers written for them, recorded
       python3 tests/bench/bench_decision.py --decision URL --model NAME [--record FILE]   # a live server

Sets: "fit" is the unseen half A (--per N requests of each server, picked by the id's hash: 5 by default),
where --fit chooses the margin at which a first chunk's answer stands; "test" is half B (N + 1 of each server);
"test, written here" is tests/bench/decision/requests_B2.jsonl, written and labelled for B's servers that had
no requests (by the one who answered the questions: not blind, shown apart). The margin is fitted on "fit"
alone, and the test sets are measured with it.

The recording (tests/bench/decision/answers.jsonl by default) holds one answer per question, keyed by its text:
{"question", "answer": "C 0.80, A 0.15, Z 0.05", "tokens"}: the letters a model would write best first, with the
probability it gives each. Replayed with log-probabilities, the probabilities rank; replayed as written letters,
only the order of those given at least 0.1 counts. --questions writes every question a run could ask that the
recording lacks (asking every chunk, so any margin's questions are there) to DIR/questions.txt, without the
requests' gold tools or the words' ranking, and DIR/pending.jsonl; answer them in DIR/answers.txt, one line
each ("Q12: C 0.80, A 0.15"), then --answers DIR records them; repeat until nothing is pending (final and
groups questions follow from earlier answers). tokens is estimated (characters / 4, plus 8 for the chat template
and 3 written) where no server counted them. Not run in CI.
"""

import hashlib
import json
import math
import re
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from ankit.discovery.catalog import build_catalog  # noqa: E402
from ankit.discovery.decision import MARGIN, SYSTEM, Said, decide  # noqa: E402
from ankit.discovery.evaluation import InputError, read_catalog  # noqa: E402
from ankit.discovery.finder import find, loads  # noqa: E402
from ankit.discovery.index import Index  # noqa: E402
from tests.bench.compare import FLEET, K, share, with_phrases  # noqa: E402

UNSEEN = ROOT / "tests" / "bench" / "unseen"
HERE = ROOT / "tests" / "bench" / "decision"
ANSWERS = HERE / "answers.jsonl"
ALL = {"logprobs": 9.0, "letters": 9.0}  # a margin no answer reaches: every chunk is asked
GRID = [round(0.05 * i, 2) for i in range(21)]
WRITTEN = 0.1  # letters given at least this probability are written, best first


def estimate(question: str) -> int:
    """A question's tokens where no server counted them: characters / 4, the chat template, the letters."""
    return math.ceil((len(SYSTEM) + len(question)) / 4) + 8 + 3


def parse(answer: str) -> list[tuple[str, float]]:
    """ "C 0.80, A 0.15, Z 0.05" as [(letter, probability)], best first."""
    found = [(m.group(1), float(m.group(2) or 1.0)) for m in re.finditer(r"\b([A-Z])(?:\s*[: ]\s*([0-9.]+))?", answer)]
    return sorted(found, key=lambda pair: -pair[1])


class Recorded:
    """A Chooser answering from recorded answers (keyed by the question's text), as log-probabilities or as
    written letters (source); a question it lacks is "not recorded" and kept in missing; ask: a live chooser."""

    def __init__(self, path: Path | None, ask=None, write: bool = False, source: str = "logprobs"):
        self.path, self.ask, self.write, self.source = path, ask, write, source
        self.answers: dict[str, dict] = {}
        if path is not None and path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    answer = json.loads(line)
                    self.answers[answer["question"]] = answer
        self.tokens = 0  # the questions' tokens since the last take_tokens
        self.fallbacks: list[str] = []
        self.missing: dict[str, None] = {}

    def choose(self, system: str, question: str) -> Said | str:
        """The recorded answer to this question (or the live server's, recorded when asked to)."""
        answer = self.answers.get(question)
        if answer is None and self.ask is not None:
            answer = self._asked(system, question)
        if answer is None or "answer" not in answer and not answer.get("letters"):
            self.missing[question] = None
            return self._fell_back("not recorded")
        self.tokens += answer["tokens"]
        if "answer" not in answer:  # an earlier recording: the letters' log-probabilities
            return Said(answer["letters"], "", answer["tokens"])
        said = parse(answer["answer"])
        text = ", ".join(letter for letter, p in said if p >= WRITTEN)
        if self.source == "letters":
            return Said({}, text, answer["tokens"])
        return Said({letter: math.log(max(p, 1e-6)) for letter, p in said}, text, answer["tokens"])

    def _asked(self, system: str, question: str) -> dict | None:
        said = self.ask.choose(system, question)
        if isinstance(said, str):
            return None  # a failure is asked again next time, never recorded
        shares = sorted(((k, math.exp(v)) for k, v in said.logprobs.items() if len(k.strip()) == 1), key=lambda x: -x[1])
        answer = {"question": question, "tokens": said.tokens,
                  "answer": ", ".join(f"{k.strip()} {p:.3f}" for k, p in shares[:5]) or said.text}
        self.answers[question] = answer
        if self.write:
            with self.path.open("a", encoding="utf-8") as out:
                out.write(json.dumps(answer) + "\n")
        return answer

    def _fell_back(self, reason: str) -> str:
        self.fallbacks.append(reason)
        return reason

    def take_tokens(self) -> int:
        tokens, self.tokens = self.tokens, 0
        return tokens


def catalog_index(half: str) -> Index:
    """Half A's or B's servers with their phrases, and the bundled tools (from the fleet's catalog) beside them."""
    fleet, fleet_groups = read_catalog(FLEET / "catalog.jsonl")
    tools, groups = read_catalog(UNSEEN / f"catalog_{half}.jsonl")
    phrases = json.loads((UNSEEN / "phrases.json").read_text(encoding="utf-8"))
    bundled = [t for t in fleet if not t.group.startswith("mcp:")]
    groups = {**{g: m for g, m in fleet_groups.items() if not g.startswith("mcp:")}, **groups}
    tools = with_phrases(bundled + tools, phrases)
    catalog, _ = build_catalog(tools, groups)
    return Index(catalog, tools)


def picked(path: Path, per: int | None) -> list[dict]:
    """A request file, or per requests of each server (the id's last dash-part dropped), chosen by the id's hash."""
    requests = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if per is None:
        return requests
    by_server = defaultdict(list)
    for request in requests:
        by_server[request["id"].rsplit("-", 1)[0]].append(request)
    chosen = [r for server in by_server.values() for r in sorted(
        server, key=lambda r: hashlib.sha256(r["id"].encode()).hexdigest())[:per]]
    return sorted(chosen, key=lambda r: r["id"])


def sets(argv: list[str]) -> dict[str, tuple[Index, list[dict]]]:
    """The fit set (half A), the test set (half B) and the requests written here for B's other servers."""
    per, half_b = int(value(argv, "--per") or 5), catalog_index("B")
    return {"fit": (catalog_index("A"), picked(UNSEEN / "requests_A.jsonl", per)),
            "test": (half_b, picked(UNSEEN / "requests_B.jsonl", per + 1)),
            "test, written here": (half_b, picked(HERE / "requests_B2.jsonl", None))}


@dataclass
class Figures:
    """One ranking's figures over a set: per search means."""

    r1: float = 0.0
    r5: float = 0.0
    mrr: float = 0.0
    loaded: float = 0.0
    tools: float = 0.0
    questions: float = 0.0
    rounds: float = 0.0
    tokens: float = 0.0
    ms: float = 0.0
    fell: int = 0


def measure(index: Index, requests: list[dict], chooser: Recorded | None, margin: dict[str, float]) -> Figures:
    """recall@1, recall@5, MRR, what find_tools loads, and decision mode's cost a search (chooser None: words)."""
    total, n = Figures(), max(len(requests), 1)
    for number, request in enumerate(requests):
        gold, query = set(request["gold"]), request["query"]
        words = [name for name, _ in index.rank_tools(query, 100)]
        started = time.monotonic()
        decision = decide(index, query, chooser, margin=margin, probe=number == 0) if chooser else None
        total.ms += (time.monotonic() - started) * 1000
        outcome = find(index, query, None, (lambda i, q: decision) if decision else None)
        loaded = [name for name in loads(outcome, index.catalog) if not _core(index, name)]
        chosen = [name for name, _ in decision.ranked] if decision and decision.mode == "decision" else []
        if decision and decision.group and not chosen:
            chosen = [name for name in words if index.catalog.group_of(name) == decision.group]
        ranked = list(dict.fromkeys(chosen + words))
        first = next((1.0 / i for i, name in enumerate(ranked, 1) if name in gold), 0.0)
        _add(total, share(gold, ranked[:1]), share(gold, ranked[:K]), first, share(gold, loaded), len(loaded))
        if decision:
            total.questions += decision.questions
            total.rounds += decision.rounds
            total.tokens += chooser.take_tokens()
            total.fell += decision.mode != "decision"
    for name in ("r1", "r5", "mrr", "loaded", "tools", "questions", "rounds", "tokens", "ms"):
        setattr(total, name, getattr(total, name) / n)
    return total


def _core(index: Index, name: str) -> bool:
    group = index.catalog.groups.get(index.catalog.group_of(name) or "")
    return bool(group and group.core)


def _add(total: Figures, r1: float, r5: float, first: float, loaded: float, tools: int) -> None:
    total.r1, total.r5, total.mrr = total.r1 + r1, total.r5 + r5, total.mrr + first
    total.loaded, total.tools = total.loaded + loaded, total.tools + tools


def line(label: str, f: Figures) -> str:
    return (f"  {label:<34} {f.r1:>5.3f} {f.r5:>5.3f} {f.mrr:>5.3f} {f.loaded:>6.3f} {f.tools:>5.1f} | "
            f"{f.questions:>5.2f} {f.rounds:>6.2f} {f.tokens:>7.0f} {f.ms:>6.1f} {f.fell:>4}")


HEADER = (f"  {'ranking':<34} {'r@1':>5} {'r@5':>5} {'MRR':>5} {'loaded':>6} {'tools':>5} | "
          f"{'quest':>5} {'rounds':>6} {'tokens':>7} {'ms':>6} {'fell':>4}")


def report(argv: list[str]) -> None:
    """The figures of both sets: words, decision with log-probabilities and with written letters."""
    path = Path(value(argv, "--recorded") or ANSWERS)
    for name, (index, requests) in sets(argv).items():
        print(f"{name}: {len(requests)} requests, {len(index.names)} tools; per search means (questions, rounds "
              "asked one after another, tokens, ms to decide in this replay, searches that fell back)")
        print(HEADER)
        print(line("words", measure(index, requests, None, MARGIN)))
        for source in ("logprobs", "letters"):
            for label, margin in ((f"margin {MARGIN[source]:.2f}", MARGIN), ("every chunk", ALL)):
                chooser = Recorded(path, source=source)
                print(line(f"decision {source}, {label}", measure(index, requests, chooser, margin)))
                if chooser.missing:
                    print(f"    {len(chooser.missing)} questions not recorded: --questions DIR lists them")


def fit(argv: list[str]) -> None:
    """The smallest margin at which the fit set keeps the recall@1 of asking every chunk, for each source."""
    index, requests = sets(argv)["fit"]
    path = Path(value(argv, "--recorded") or ANSWERS)
    for source in ("logprobs", "letters"):
        best = measure(index, requests, Recorded(path, source=source), ALL)
        print(f"{source}: every chunk asked r@1 {best.r1:.3f}, {best.questions:.2f} questions a search")
        chosen = None
        for margin in GRID:
            got = measure(index, requests, Recorded(path, source=source), {source: margin})
            print(f"  margin {margin:.2f}: r@1 {got.r1:.3f}, {got.questions:.2f} questions, {got.tokens:.0f} tokens")
            chosen = margin if chosen is None and got.r1 >= best.r1 - 1e-9 else chosen
        print(f"{source}: margin {chosen:.2f}, the smallest keeping that r@1 (MARGIN in ankit/discovery/decision.py)")


def questions(argv: list[str], folder: Path) -> None:
    """Every question a run could ask that the recording lacks, to answer blind: no gold, no ranking."""
    path = Path(value(argv, "--recorded") or ANSWERS)
    pending: dict[str, None] = {}
    for index, requests in sets(argv).values():
        for source in ("logprobs", "letters"):
            chooser = Recorded(path, source=source)
            measure(index, requests, chooser, ALL)
            pending.update(chooser.missing)
    folder.mkdir(parents=True, exist_ok=True)
    texts = list(pending)
    (folder / "pending.jsonl").write_text("".join(json.dumps({"id": f"Q{i}", "question": q}) + "\n"
                                                  for i, q in enumerate(texts, 1)), encoding="utf-8")
    (folder / "questions.txt").write_text("".join(f"### Q{i}\n{q}\n\n" for i, q in enumerate(texts, 1)),
                                          encoding="utf-8")
    print(f"{len(texts)} questions pending: {folder / 'questions.txt'}; answer in {folder / 'answers.txt'}")


def record(argv: list[str], folder: Path) -> None:
    """Append the answers written in DIR/answers.txt ("Q12: C 0.80, A 0.15") to the recording."""
    path = Path(value(argv, "--recorded") or ANSWERS)
    pending = {row["id"]: row["question"] for row in map(json.loads, (folder / "pending.jsonl").open())}
    written = {}
    for said in (folder / "answers.txt").read_text(encoding="utf-8").splitlines():
        if ":" in said and said.split(":", 1)[0].strip() in pending:
            key, answer = said.split(":", 1)
            if not parse(answer):
                raise InputError(f"{key}: no letter in {answer.strip()!r}")
            written[pending[key.strip()]] = answer.strip()
    with path.open("a", encoding="utf-8") as out:
        for question, answer in written.items():
            out.write(json.dumps({"question": question, "answer": answer, "tokens": estimate(question)}) + "\n")
    print(f"recorded {len(written)} of {len(pending)} answers in {path}")


def live(argv: list[str]) -> Recorded:
    """A real OpenAI-compatible server's answers, recorded when --record names a file."""
    from ankit.providers import ProviderSettings, make_provider
    from ankit.turn.deciding import ModelChooser
    if value(argv, "--model") is None:
        raise InputError("--decision needs --model NAME")
    settings = ProviderSettings("openai", "openai", value(argv, "--decision"), value(argv, "--model"), native=False)
    provider = make_provider(settings)
    target = value(argv, "--record")
    return Recorded(Path(target) if target else None, ModelChooser(lambda: provider), write=target is not None)


def value(argv: list[str], flag: str) -> str | None:
    return argv[argv.index(flag) + 1] if flag in argv and argv.index(flag) + 1 < len(argv) else None


def main(argv: list[str]) -> int:
    if value(argv, "--questions"):
        questions(argv, Path(value(argv, "--questions")))
    elif value(argv, "--answers"):
        record(argv, Path(value(argv, "--answers")))
    elif "--fit" in argv:
        fit(argv)
    elif value(argv, "--decision"):
        chooser = live(argv)
        for name, (index, requests) in sets(argv).items():
            print(HEADER)
            print(line(f"{name}: decision, live", measure(index, requests, chooser, MARGIN)))
    else:
        report(argv)
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main(sys.argv[1:]))
    except (InputError, json.JSONDecodeError, OSError, ValueError) as exc:
        raise SystemExit(f"bench_decision: {exc}") from None
