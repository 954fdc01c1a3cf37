"""tests/bench/build_verbs.py on a tiny Open English WordNet laid out as its YAML data files."""

from tests.bench.build_verbs import main

ENTRIES = """\
delete:
  v:
    sense:
    - id: 'delete%2:32:00::'
      synset: 00000001-v
erase:
  v:
    sense:
    - derivation:
      - 'erasure%1:04:00::'
      id: 'erase%2:32:00::'
      synset: 00000001-v
    - id: 'erase%2:35:00::'
      synset: 00000002-v
pod:
  n:
    sense:
    - id: 'pod%1:20:00::'
      synset: 00000003-n
    - id: 'pod%1:14:00::'
      synset: 00000004-n
  v:
    sense:
    - id: 'pod%2:35:00::'
      synset: 00000005-v
"""
VERBS = """\
00000001-v:
  definition:
  - wipe out digitally or magnetically recorded information
  members:
  - erase
  - delete
  - wipe out
  partOfSpeech: v
00000002-v:
  hypernym:
  - 00000001-v
  members:
  - erase
  - efface
  partOfSpeech: v
00000005-v:
  members:
  - pod
  - shell
  partOfSpeech: v
"""
NOUNS = """\
00000003-n:
  members:
  - pod
  - cod
  - seedcase
  partOfSpeech: n
00000004-n:
  members:
  - pod
  - fuel pod
  partOfSpeech: n
"""


def test_it_writes_the_verbs_sorted_with_their_source(tmp_path, capsys):
    (tmp_path / "entries-d.yaml").write_text(ENTRIES)
    (tmp_path / "verb.contact.yaml").write_text(VERBS)
    (tmp_path / "noun.plant.yaml").write_text(NOUNS)
    out = tmp_path / "verbs.txt"
    assert main([str(tmp_path), "--output", str(out)]) == 0
    verbs = out.read_text()
    assert "CC BY 4.0" in verbs and verbs.splitlines()[-1] == "delet eras"  # pod: more noun senses than verb
    again = out.read_bytes()
    assert main([str(tmp_path), "--output", str(out)]) == 0 and out.read_bytes() == again


def test_it_says_how_to_run_it_without_a_folder(capsys):
    assert main([]) == 2
    assert "usage: python3 tests/bench/build_verbs.py OEWN_YAML_DIR" in capsys.readouterr().out
