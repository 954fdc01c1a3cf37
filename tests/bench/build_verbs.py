"""Build ankit/discovery/verbs.txt, the English verbs of the tool search, from Open English WordNet.

usage: python3 tests/bench/build_verbs.py OEWN_YAML_DIR [--output PATH]
OEWN_YAML_DIR is the src/yaml folder of Open English WordNet (github.com/globalwordnet/english-wordnet, CC BY 4.0;
the file was built from commit d94538ad0df3d7a4c77837bde6af69d7a6592c32). A development-time script: ankit
never runs it, and it reads only the data files (entries-*.yaml, noun.*.yaml, verb.*.yaml).

The stems of the one-word lemmas that have a verb sense whose verb senses are at least as many as their noun
senses ("delete", "make", "file"; not "pod" or "branch"): the search reads a request's first verb as what it asks
to do, and an MCP group is named by its tools' first verbs. (A thesaurus built the same way, words sharing a
lemma's commonest senses, was dropped: it did not pay on held-out requests.) The output is sorted, so the same
input gives the same bytes.
"""

import re
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from ankit.discovery.terms import STOP_WORDS, stem  # noqa: E402

OUTPUT = Path(__file__).resolve().parents[2] / "ankit" / "discovery" / "verbs.txt"
COMMIT = "d94538ad0df3d7a4c77837bde6af69d7a6592c32"
_PLAIN = re.compile(r"^[a-z]{3,}$")
HEADER = f"""\
# Verbs for ankit's tool search: the stems of the one-word lemmas with at least as many verb senses
# as noun senses.
# Derived from Open English WordNet (https://github.com/globalwordnet/english-wordnet, commit {COMMIT[:12]}),
# (c) the Open English WordNet team, licensed CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/);
# Open English WordNet is derived from Princeton WordNet 3.0, (c) 2006 Princeton University, under the
# WordNet License. Changes: only one-word lemmas, stemmed.
# Rebuild: python3 tests/bench/build_verbs.py PATH/TO/english-wordnet/src/yaml
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
    """Write the verb list."""
    if not argv or argv[0].startswith("-"):
        print(__doc__.splitlines()[2])
        return 2
    folder = Path(argv[0])
    output = Path(argv[argv.index("--output") + 1]) if "--output" in argv else OUTPUT
    found = verbs(read_entries(folder))
    output.write_text(HEADER + "\n".join(_wrapped(found)) + "\n", encoding="utf-8")
    print(f"{output}: {len(found)} verbs, {output.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
