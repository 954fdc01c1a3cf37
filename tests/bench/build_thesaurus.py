"""Build ankit/discovery/thesaurus.txt, the general-English related words of the tool search, from Open English WordNet.

usage: python3 tests/bench/build_thesaurus.py OEWN_YAML_DIR [--output PATH]
OEWN_YAML_DIR is the src/yaml folder of Open English WordNet (github.com/globalwordnet/english-wordnet, CC BY 4.0;
the file was built from commit d94538ad0df3d7a4c77837bde6af69d7a6592c32). A development-time script: ankit
never runs it, and it reads only the data files (entries-*.yaml, noun.*.yaml, verb.*.yaml).

For each one-word lemma, the words that share a synset with one of its most common senses (senses are listed
most frequent first): the first three verb senses, the first two noun senses. Adjectives and adverbs are left
out (a request's adjectives rarely name what a tool does). Words are stemmed with ankit's own stemmer, stop
words and words of one or two letters dropped; a head keeps at most eight related stems, its commonest senses'
first. The output is sorted, so the same input gives the same bytes. It also writes verbs.txt beside it: the
stems of the one-word lemmas that have a verb sense (the search reads a request's first verb as what it asks
to do) whose verb senses are at least as many as their noun senses ("delete", "make", "file"; not "pod" or
"branch").
"""

import re
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from ankit.discovery.terms import STOP_WORDS, stem  # noqa: E402

SENSES = {"v": 3, "n": 2}
MAX_RELATED = 8
OUTPUT = Path(__file__).resolve().parents[2] / "ankit" / "discovery" / "thesaurus.txt"
COMMIT = "d94538ad0df3d7a4c77837bde6af69d7a6592c32"
_PLAIN = re.compile(r"^[a-z]{3,}$")
HEADER = f"""\
# Related words for ankit's tool search: a stemmed word, then the stems of words that share one of its most
# common senses (first three verb senses, first two noun senses), commonest first.
# Derived from Open English WordNet (https://github.com/globalwordnet/english-wordnet, commit {COMMIT[:12]}),
# (c) the Open English WordNet team, licensed CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/);
# Open English WordNet is derived from Princeton WordNet 3.0, (c) 2006 Princeton University, under the
# WordNet License. Changes: only one-word lemmas, regrouped by word, stemmed, capped at {MAX_RELATED} per word.
# Rebuild: python3 tests/bench/build_thesaurus.py PATH/TO/english-wordnet/src/yaml
"""


def _unquote(text: str) -> str:
    text = text.strip()
    return text[1:-1].replace("''", "'") if len(text) > 1 and text[0] == text[-1] == "'" else text


def read_entries(folder: Path) -> dict[str, dict[str, list[str]]]:
    """lemma -> part of speech -> its synset ids, in the file's order (most frequent sense first)."""
    entries: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for path in sorted(folder.glob("entries-*.yaml")):
        lemma = pos = ""
        for line in path.read_text(encoding="utf-8").splitlines():
            if line and not line[0].isspace() and line.endswith(":"):
                lemma, pos = _unquote(line[:-1]), ""
            elif re.match(r"^  [a-z]:$", line):
                pos = line.strip()[0]
            elif pos and line.lstrip(" -").startswith("synset:"):
                entries[lemma][pos].append(line.split("synset:", 1)[1].strip())
    return entries


def read_members(folder: Path) -> dict[str, list[str]]:
    """synset id -> its member lemmas, from the noun and verb synset files."""
    members: dict[str, list[str]] = {}
    for path in sorted([*folder.glob("noun.*.yaml"), *folder.glob("verb.*.yaml")]):
        current, listing = "", False
        for line in path.read_text(encoding="utf-8").splitlines():
            if line and not line[0].isspace() and line.endswith(":"):
                current, listing = _unquote(line[:-1]), False
                members[current] = []
            elif line.startswith("  ") and not line.startswith("  -") and line.strip().endswith(":"):
                listing = line.strip() == "members:"
            elif listing and line.startswith("  - "):
                members[current].append(_unquote(line[4:]))
    return members


def related(entries, members) -> dict[str, list[str]]:
    """stem -> related stems, commonest senses first."""
    table: dict[str, list[str]] = defaultdict(list)
    for lemma, by_pos in entries.items():
        if not _PLAIN.match(lemma) or lemma in STOP_WORDS:
            continue
        head = stem(lemma)
        for pos, count in SENSES.items():
            for synset in by_pos.get(pos, [])[:count]:
                for other in members.get(synset, []):
                    if _PLAIN.match(other) and other not in STOP_WORDS:
                        found = stem(other)
                        if found != head and found not in table[head]:
                            table[head].append(found)
    return {head: found[:MAX_RELATED] for head, found in table.items() if found}


def verbs(entries) -> list[str]:
    """The stems of one-word lemmas with at least as many verb senses as noun senses, sorted."""
    return sorted({stem(lemma) for lemma, by_pos in entries.items()
                   if len(by_pos.get("v", [])) >= max(1, len(by_pos.get("n", [])))
                   and _PLAIN.match(lemma) and lemma not in STOP_WORDS})


def _wrapped(words: list[str], width: int = 110) -> list[str]:
    lines, line = [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = ""
        line = f"{line} {word}" if line else word
    return lines + ([line] if line else [])


def main(argv: list[str]) -> int:
    """Write the thesaurus file and the verb list."""
    if not argv or argv[0].startswith("-"):
        print(__doc__.splitlines()[2])
        return 2
    folder = Path(argv[0])
    output = Path(argv[argv.index("--output") + 1]) if "--output" in argv else OUTPUT
    entries = read_entries(folder)
    table = related(entries, read_members(folder))
    lines = [f"{head} {' '.join(found)}" for head, found in sorted(table.items())]
    output.write_text(HEADER + "\n".join(lines) + "\n", encoding="utf-8")
    print(f"{output}: {len(lines)} words, {output.stat().st_size} bytes")
    verb_file = output.with_name("verbs.txt")
    header = HEADER.replace("Related words for ankit's tool search: a stemmed word, then the stems of words that "
                            "share one of its most\n# common senses (first three verb senses, first two noun "
                            "senses), commonest first.", "Verbs for ankit's tool search: the stems of the one-word "
                            "lemmas with at least as many verb senses\n# as noun senses.")
    found = verbs(entries)
    verb_file.write_text(header + "\n".join(_wrapped(found)) + "\n", encoding="utf-8")
    print(f"{verb_file}: {len(found)} verbs, {verb_file.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
