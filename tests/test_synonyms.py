"""The small synonym map: stemmed, symmetric, and silent for words it does not know."""

from ankit.discovery.synonyms import SYNONYMS, related
from ankit.discovery.terms import stem


def test_synonyms_are_stemmed_and_found_both_ways():
    assert stem("image") in related(stem("pictures"))
    assert stem("picture") in related(stem("images"))
    assert stem("directory") in related(stem("folder"))


def test_the_map_is_symmetric_and_never_maps_a_word_to_itself():
    for word, others in SYNONYMS.items():
        assert word not in others
        for other in others:
            assert word in SYNONYMS[other], (word, other)


def test_unknown_words_and_software_words_with_a_second_meaning_have_none():
    assert related("zzz") == ()
    for word in ("track", "text", "build", "share", "class", "auto", "tune", "route", "digest", "event", "memory",
                 "issue", "training", "fit"):
        assert related(stem(word)) == (), word
