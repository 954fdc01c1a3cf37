"""Search terms: tokenizing, identifier splitting, stop words, light stemming, request clauses."""

import pytest

from ankit.discovery.terms import clauses, name_key, phrase_terms, request_parts, split_name, stem, terms, words


def test_identifiers_split_on_separators_and_camel_case():
    assert split_name("getHTTPStatus_v2") == ["get", "http", "status", "v", "2"]
    assert split_name("web_search") == ["web", "search"]
    assert split_name("mcp__time__get-current.time") == ["mcp", "time", "get", "current", "time"]
    assert split_name("SEOTool") == ["seo", "tool"]


def test_spaces_underscores_and_case_are_equivalent_in_names():
    assert name_key("Web Search") == name_key("web_search") == name_key("webSearch") == "web search"


def test_words_split_identifiers_inside_text_and_fold_accents():
    assert words("Use getWeather for the Café") == ["use", "getweather", "get", "weather", "for", "the", "cafe"]


def test_a_brand_counts_whole_and_split():
    assert words("GitHub MongoDB SQLite github") == [
        "github", "git", "hub", "mongodb", "mongo", "db", "sqlite", "sq", "lite", "github"]


def test_control_characters_separate_words_and_never_survive():
    assert words("a\x00b\x07c\x1b[31mred") == ["a", "b", "c", "31mred"]


def test_stop_words_are_dropped_and_words_stemmed():
    assert terms("Please show me the running processes") == ["show", "run", "process"]
    assert terms("the of and to") == []


def test_stems_join_inflections_of_one_word():
    groups = [
        ("create", "creating", "created", "creation", "creator"),
        ("book", "books", "booking", "booked"),
        ("notification", "notifications", "notify"),
        ("analyze", "analysis", "analyzing"),
        ("information", "inform", "info"),
        ("directory", "directories"),
        ("movie", "movies"),
        ("calculate", "calculated", "calculating", "calculation", "calculator"),
        ("file", "files", "filed", "filing"),
        ("install", "installed", "installing", "installation", "installer"),
        ("run", "runs", "running", "ran", "runner"),
        ("delete", "deleted", "deletion"),
        ("control", "controlled", "controller"),
    ]
    for forms in groups:
        assert len({stem(f) for f in forms}) == 1, forms


def test_stems_keep_different_words_apart():
    assert stem("port") != stem("transport")
    assert stem("news") == "news" and stem("status") == "status"


def test_non_latin_words_are_kept_whole():
    assert words("日本語 テキスト") == ["日本語", "テキスト"]
    assert stem("日本語") == "日本語"


def test_a_huge_query_is_read_only_in_part():
    assert len(words("word " * 10_000)) < 1_000


def test_requests_split_into_clauses_at_sentence_ends_and_connectives():
    parts = clauses("Find rooms in Paris, then book one. Finally, send a mail; also check the weather")
    assert parts == ["Find rooms in Paris", "book one", "Finally, send a mail", "also check the weather"]


def test_phrase_terms_are_what_a_request_says_for_a_name():
    assert phrase_terms("delete_file") == terms("delete the file")


def test_words_in_quotes_identifiers_paths_and_versions_are_weak_evidence():
    from ankit.discovery.terms import request_parts
    [part] = request_parts("show the logs of pod web-5d8f in acme/web, read config.yaml at v1.2.3 and echo 'run tests'")
    assert part.strong == ["show", "log", "pod", "read", "file", "echo"]  # config.yaml says file
    assert {"web", "acme", "config", "yaml", "run", "test"} <= set(part.weak)
    [brand] = request_parts("issues on GitHub")
    assert (brand.strong, brand.weak) == (["issu", "github"], ["git", "hub"])


@pytest.mark.parametrize("request_, implied", [
    ("summarize https://blog.example.com/post for me", "url"),
    ("robots.txt of example.com?", "file"),
    ("perms of ~/bin/deploy.sh", "file"),
    ("what's in ./src", "file"),
    ("9:30 in Mumbai is what in Berlin", "time"),
    ("when it's 9am in New York", "time"),
])
def test_an_address_says_url_a_file_name_file_and_a_clock_time_time(request_, implied):
    assert implied in [t for p in request_parts(request_) for t in p.strong]


@pytest.mark.parametrize("request_", ["open an issue on acme/web", "is example.com up", "release v1.2.3",
                                      "node version", "a 16:9 screenshot", "scale to 3 replicas",
                                      "delete old logs, e.g. the ones from May"])
def test_a_repository_a_host_or_a_version_says_neither(request_):
    strong = [t for p in request_parts(request_) for t in p.strong]
    assert not {"file", "url", "time"} & set(strong)
