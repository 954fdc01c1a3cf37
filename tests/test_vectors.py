"""The subword vectors: pieces as SentencePiece cuts them, unit vectors, cosines over a catalog, a damaged file."""

import json
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import ankit
from ankit.discovery import vectors as module
from ankit.discovery.vectors import Meanings, Vectors, cosine, shipped


@pytest.fixture(scope="module")
def vectors() -> Vectors:
    found = shipped()
    assert found is not None, "ankit/discovery/vectors.bin is missing or damaged"
    return found


@pytest.mark.parametrize("word, expected", [
    # the pieces Llama 2's own tokenizer gives (checked with the tokenizers library when the file was built)
    ("delete", [5217]),
    ("kubectl", [413, 431, 522, 29880]),
    ("port-forward", [2011, 29899, 11333]),
    ("ünïcode", [2505, 29876, 30085, 401]),
    ("😀", [29871, 243, 162, 155, 131]),  # a character the vocabulary lacks: its UTF-8 bytes
])
def test_a_word_splits_into_the_pieces_sentencepiece_gives(vectors, word, expected):
    assert vectors.pieces(word) == expected


def test_a_text_is_a_unit_vector_and_nothing_is_none(vectors):
    vector = vectors.embed("remove the old log files")
    assert len(vector) == vectors.dims == 64
    assert abs(sum(v * v for v in vector) - 1) < 1e-9
    assert vectors.embed("") is None and vectors.embed("   ") is None


def test_texts_that_mean_the_same_are_closer_than_texts_that_do_not(vectors):
    delete = vectors.embed("delete the file")
    assert cosine(delete, vectors.embed("remove the document")) > cosine(delete, vectors.embed("what time is it"))
    forward = vectors.embed("Forward a local port to a pod or service")
    laptop = vectors.embed("make the dashboard reachable from my laptop")
    assert cosine(laptop, forward) > cosine(laptop, vectors.embed("Create a new issue in a repository"))


def test_cosines_over_a_catalog_match_the_plain_arithmetic(vectors):
    texts = ["Delete a file.", "Get the current time in a time zone.", "", "Forward a local port to a pod.",
             "Execute a SELECT query on the SQLite database."]
    meanings = Meanings(vectors, texts)
    for query in ("remove a document", "what time is it in Tokyo", "open the app from my laptop"):
        found = dict(meanings.cosines(query))
        plain = vectors.embed(query)
        for i, text in enumerate(texts):
            expected = cosine(plain, vectors.embed(text)) if text else 0.0
            assert abs(found.get(i, 0.0) - max(expected, 0.0)) < 0.01, (query, text)
        assert 2 not in found  # a tool without text has no vector and no cosine
    assert Meanings(vectors, []).cosines("anything") == []


def test_the_file_says_where_it_comes_from_and_under_which_license():
    header = json.loads(pkgutil.get_data(module.__package__, module.DATA).split(b"\n", 1)[0])
    assert header["format"] == "ankit-vectors 1" and "WordLlama" in header["source"]
    assert header["license"].startswith("MIT")


@pytest.mark.parametrize("blob", [b"", b"not json\n", b'{"format": "other"}\n',
                                  b'{"format": "ankit-vectors 1", "dims": 2, "scales": [1, 1], "pieces": ["a"]}\n\x01'])
def test_a_damaged_file_is_refused(blob):
    with pytest.raises(ValueError):
        Vectors(blob)


def test_any_text_embeds_a_giant_word_and_a_lone_surrogate_included(vectors):
    assert len(vectors.pieces("x" * 100_000)) <= 48  # one word is cut before it is split, merging is quadratic
    assert vectors.embed("delete \ud800 the file") is not None
    assert len(vectors.embed("\x00\x1b[2J")) == 64  # control characters are bytes like any other


def test_without_the_file_the_search_is_words_alone(tmp_path):
    copy = tmp_path / "ankit"
    shutil.copytree(Path(ankit.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__", "vectors.bin"))
    code = ("import sys; sys.path.insert(0, sys.argv[1]); "
            "from ankit.discovery.vectors import shipped; from ankit.discovery.index import Index; "
            "from ankit.discovery.catalog import build_catalog; from ankit.tooling.toolbox import Tool; "
            "tools = [Tool(n, d, {}, print) for n, d in (('port_forward', 'Forward a local port to a pod.'), "
            "('delete_file', 'Delete a file.'))]; index = Index(build_catalog(tools)[0], tools); "
            "print(shipped() is None, index.meanings is None, index.rank_tools('delete the pod', 2))")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("True True [('delete_file'")
