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


# The shipped data: software_words.txt (hand-written).

from pathlib import Path  # noqa: E402

from ankit.discovery.catalog import build_catalog  # noqa: E402
from ankit.discovery.index import Index  # noqa: E402
from ankit.discovery.synonyms import relatives, spelled_out  # noqa: E402
from ankit.tooling.toolbox import Tool  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "ankit" / "discovery"


def _index(*tools: tuple[str, str]) -> Index:
    listed = [Tool(name, text, {}, lambda args, ctx=None: "", group=name) for name, text in tools]
    catalog, _ = build_catalog(listed)
    return Index(catalog, listed)


def test_abbreviations_are_spelled_out_and_slang_reaches_the_authors_word():
    assert spelled_out(stem("PRs".lower())) == ("pull", "request")
    assert spelled_out("k8s") == (stem("kubernetes"),)
    assert spelled_out(stem("file")) == ()
    assert (stem("delete"), "slang") in relatives(stem("wipe"))
    assert (stem("image"), "slang") in relatives(stem("picture"))


def test_a_related_word_rescues_a_miss_and_ranks_below_an_exact_match():
    index = _index(("delete_row", "Delete a row from a table."), ("wipe_disk", "Wipe a disk clean."),
                   ("show_row", "Show a row of a table."))
    assert index.rank_tools("remove the row")[0][0] == "delete_row"  # synonym
    assert index.rank_tools("wipe the row")[0][0] == "delete_row"  # the row decides; wipe reaches delete
    assert index.rank_tools("wipe it")[0][0] == "wipe_disk"  # an exact match beats a related one


def test_a_pull_request_is_found_by_pr():
    index = _index(("create_pull_request", "Create a new pull request."), ("create_issue", "Create an issue."),
                   ("list_prs_cache", "List cached entries."))
    assert index.rank_tools("open a PR from my branch")[0][0] == "create_pull_request"


def test_a_light_verb_first_asks_for_its_action_and_is_no_search_term():
    from ankit.discovery.synonyms import light_verb
    from ankit.discovery.terms import terms

    assert light_verb("please make a new branch") == (stem("create"),)
    assert light_verb("list what make does") == ()  # not the request's first word
    assert "make" not in terms("make a todo list")  # 'make' alone names no tool ('make_directory' is mkdir)
    index = _index(("list_branches", "Branches of a repository."), ("create_branch", "Branches of a repository."))
    assert index.rank_tools("please make a branch")[0][0] == "create_branch"
