"""The search index: word boundaries, field weights, phrases, stemming, rules, ranking and bad input."""

import json

import pytest
from tests.tool_folders import load, small_catalog, write_toml, write_tool

from ankit.discovery.catalog import build_catalog
from ankit.discovery.index import Index, check_examples
from ankit.discovery.terms import terms
from ankit.discovery.weights import Weights
from ankit.tooling.toolbox import Tool
from tests.helpers import bundled


@pytest.fixture
def index(tmp_path):
    tools = small_catalog(tmp_path)
    catalog, _ = build_catalog(tools)
    return Index(catalog, tools)


def groups(index: Index, query: str) -> list[str]:
    return [hit.group for hit in index.search_groups(query)]


def tools(index: Index, query: str) -> list[str]:
    return [name for name, score in index.rank_tools(query) if score > 0]


def test_port_never_fires_on_transport(index):
    assert groups(index, "port")[0] == "process"
    assert "transport" not in groups(index, "port")
    assert "transport" not in groups(index, "sport")
    assert groups(index, "transport")[0] == "transport"


def test_a_name_word_matches_its_tool(index):
    assert set(tools(index, "web")[:2]) == {"web_fetch", "web_search"}
    assert tools(index, "search the web")[0] == "web_search"


def test_spaces_and_underscores_are_equivalent_in_names(index):
    assert tools(index, "web search")[0] == "web_search"
    assert tools(index, "web_search")[0] == "web_search"
    assert tools(index, "please run WebSearch now")[0] == "web_search"


def test_a_groups_phrases_are_a_field_of_its_tools(index):
    assert groups(index, "version control") == ["git"]  # in no tool's text: a phrase the git group gives git_log
    assert groups(index, "history") == ["git"]


def test_every_field_of_a_tool_is_searched_by_its_weight(tmp_path):
    write_tool(tmp_path, "quartz", "crystal_tool", "Handles gems.")
    write_tool(tmp_path, "curated", "curated_tool", "Handles rocks.")
    write_toml(tmp_path, "curated", '[phrases]\ncurated_tool = ["quartz"]\n')
    write_tool(tmp_path, "named", "quartz_scan", "Scans rocks.")
    write_tool(tmp_path, "described", "plain_tool", "Mentions quartz in passing.")
    tools_ = load(tmp_path)
    catalog, _ = build_catalog(tools_)
    index = Index(catalog, tools_, Weights(meaning=0))  # the fields alone ('quartz scan' also means quartz)
    # by the fitted field weights (ankit.discovery.weights): the tool's name first, then its group's id
    assert groups(index, "quartz")[:2] == ["named", "quartz"]
    assert set(groups(index, "quartz")) == {"quartz", "curated", "named", "described"}
    assert groups(index, "quartz_scan")[0] == "named"
    assert groups(index, "plain tool")[0] == "described"


def test_light_stemming_matches_other_forms(index):
    assert groups(index, "notification")[0] in {"github", "apps"}
    assert tools(index, "listening")[0] == "port_status"
    assert tools(index, "killing processes")[0] == "kill_process"


def test_a_word_no_tool_uses_is_not_guessed_from_its_start(index):
    # the prefix stage (searchable -> search) was dropped: it did not pay on held-out requests
    assert index.expansions(terms("searchable")[0]) == {}


def test_a_small_synonym_map_bridges_everyday_words(index):
    assert tools(index, "look up something online on the internet")[0] == "web_search"
    assert tools(index, "terminate pid 42")[0] == "kill_process"  # stop / terminate


def test_ranking_is_ranked_not_every_group_with_a_hit(index):
    ranked = index.rank_tools("show the commit history")
    assert ranked[0][0] == "git_log"
    scores = [score for _, score in ranked]
    assert scores == sorted(scores, reverse=True)
    assert len(ranked) == len(index.names)  # the whole catalog, non-matches last with 0
    assert index.rank_tools("show the commit history", limit=2) == ranked[:2]


def test_search_groups_lists_matched_tools_best_first(index):
    [git, *_] = index.search_groups("commit history and diffs between commits")
    assert git.group == "git" and git.tools[0] in {"git_log", "git_diff"} and set(git.tools) == {"git_log", "git_diff"}


def test_a_rule_prefers_its_group_and_demotes_the_others(index):
    assert groups(index, "notifications from chat and calendar apps")[0] == "apps"
    with_rule = dict((h.group, h.score) for h in index.search_groups("notifications on github"))
    assert max(with_rule, key=with_rule.get) == "github"
    assert with_rule["github"] > 2 * with_rule.get("apps", 0)


def test_a_rule_needs_all_its_words(tmp_path):
    write_tool(tmp_path, "inbox", "inbox_list", "List messages and notifications.")
    write_tool(tmp_path, "alerts", "alert_list", "List alerts and notifications.")
    rule = '[[rules]]\nwhen = ["team", "notifications"]\nprefer = "inbox"\nover = ["alerts"]\nreason = "x"\n'
    write_toml(tmp_path, "inbox", rule)
    tools_ = load(tmp_path)
    catalog, _ = build_catalog(tools_)
    index = Index(catalog, tools_)
    assert groups(index, "alert notifications")[0] == "alerts"
    assert groups(index, "team alert notifications")[0] == "inbox"


def rule_toml(word: str, prefer: str, over: tuple[str, ...] = ()) -> str:
    return f'[[rules]]\nwhen = ["{word}"]\nprefer = "{prefer}"\nover = {json.dumps(list(over))}\nreason = "x"\n'


@pytest.mark.parametrize("clock_group, timer_group", [("clocks", "timers"), ("zulu", "alpha")])
def test_rules_that_fire_together_lift_their_groups_by_score_not_by_name(tmp_path, clock_group, timer_group):
    write_tool(tmp_path, clock_group, "alarm_clock", "Set an alarm clock to ring at a time.")
    write_tool(tmp_path, timer_group, "countdown", "Start a countdown timer.")
    write_tool(tmp_path, "apps", "app_alarms", "Alarms and timers of connected apps: alarm, timer, alarm timer sync.")
    write_toml(tmp_path, clock_group, rule_toml("alarm", clock_group, ("apps",)))
    write_toml(tmp_path, timer_group, rule_toml("timer", timer_group, ("apps",)))
    tools_ = load(tmp_path)
    catalog, _ = build_catalog(tools_)
    index = Index(catalog, tools_)
    assert groups(index, "set an alarm clock and a timer") == [clock_group, timer_group, "apps"]


def test_a_rule_naming_an_unknown_group_is_ignored(tmp_path):
    write_tool(tmp_path, "notes", "add_note", "Add a note.")
    write_toml(tmp_path, "notes", '[[rules]]\nwhen = ["note"]\nprefer = "ghost"\n')
    tools_ = load(tmp_path)
    catalog, _ = build_catalog(tools_)
    assert groups(Index(catalog, tools_), "add a note") == ["notes"]


def test_a_new_folder_with_no_metadata_is_discoverable(tmp_path):
    small_catalog(tmp_path)
    write_tool(tmp_path, "weather", "forecast", "Get the weather forecast for a city.", {"city": "City name"})
    tools_ = load(tmp_path)
    catalog, _ = build_catalog(tools_)
    index = Index(catalog, tools_)
    assert groups(index, "will it rain tomorrow? what's the forecast for Paris")[0] == "weather"
    assert groups(index, "weather")[0] == "weather"


def test_each_part_of_a_request_finds_its_tool(index):
    top = tools(index, "show the commit history, then fetch the page at https://example.com")[:2]
    assert set(top) == {"git_log", "web_fetch"}


def test_mcp_group_ids_match_on_their_server_name(tmp_path):
    write_tool(tmp_path, "", "mcp__clock__now", "Current moment in a zone.", group_export="mcp:clock")
    small_catalog(tmp_path / "more")
    tools_ = load(tmp_path) + load(tmp_path / "more")
    catalog, _ = build_catalog(tools_)
    index = Index(catalog, tools_)
    assert groups(index, "ask the clock server")[0] == "mcp:clock"


@pytest.mark.parametrize("query", [
    "x" * 10_000,
    "files " * 2_000,
    "\x00\x01\x1b[2J\x7f read file",
    "the of and to",
    "",
    "   ",
    "日本語のファイルを読む",
    "Найти файл",
    "🔥🔥🔥",
    "a.b.c_d-e:f",
])
def test_bad_input_gets_an_answer_not_an_exception(index, query):
    ranked = index.rank_tools(query)
    assert len(ranked) == len(index.names)
    assert isinstance(index.search_groups(query), list)


def test_only_stop_words_match_nothing(index):
    assert index.search_groups("the of and to") == []
    assert all(score == 0 for _, score in index.rank_tools("please could you"))


def test_weights_change_the_score(tmp_path):
    tools_ = small_catalog(tmp_path)
    catalog, _ = build_catalog(tools_)
    plain, named = Index(catalog, tools_, Weights(name=1.0)), Index(catalog, tools_, Weights(name=5.0))
    assert dict(named.rank_tools("kill"))["kill_process"] > dict(plain.rank_tools("kill"))["kill_process"]


def test_check_examples_reports_examples_that_miss_the_top_3(tmp_path):
    write_tool(tmp_path, "git", "git_log", "Show the commit history.", examples=["show recent commits", "bake a cake"])
    write_tool(tmp_path, "web", "web_fetch", "Fetch a URL as text.", examples=["download https://example.com"])
    for n in range(4):
        write_tool(tmp_path, "kitchen", f"oven_{n}", f"Bake a cake in oven {n}.")
    tools_ = load(tmp_path)
    catalog, _ = build_catalog(tools_)
    misses = check_examples(Index(catalog, tools_), tools_)
    assert len(misses) == 1
    assert misses[0].startswith("git_log: example 'bake a cake'") and "oven_" in misses[0]


# Real catalogs: many MCP servers beside the bundled groups (issue 15's failure classes)

def fleet_index(rows: list[tuple[str, str, str]], meta: dict | None = None, params: dict | None = None,
                weights: Weights | None = None) -> Index:
    """An index over (group, name, description) rows, with group metadata as MCP servers and group.toml give."""
    from ankit.tooling.toolbox import Tool
    tools_ = [Tool(name, text, (params or {}).get(name, {}), lambda a, c=None: "", group=group)
              for group, name, text in rows]
    catalog, problems = build_catalog(tools_, meta or {})
    assert problems == []
    return Index(catalog, tools_, weights)


def mcp_meta(*names: str) -> dict:
    return {f"mcp:{n}": {"core": False} for n in names}


FLEET = [
    ("git", "git_log", "Show the git commit history of the repository."),
    ("git", "git_status", "Show which files are staged or changed in git."),
    ("mcp:github", "mcp__github__create_issue", "Create a new issue in a GitHub repository."),
    ("mcp:github", "mcp__github__list_commits", "Get the list of commits of a branch in a GitHub repository."),
    ("mcp:everything", "mcp__everything__echo", "Echoes back the input string."),
    ("mcp:everything", "mcp__everything__get-env", "Returns all environment variables."),
    ("mcp:git", "mcp__git__git_reset", "Unstages all staged changes."),
    ("mcp:time", "mcp__time__get_current_time", "Get current time in a specific timezone."),
    ("mcp:kubernetes", "mcp__kubernetes__kubectl_logs", "Get logs from Kubernetes resources like pods."),
    ("web", "web_fetch", "Fetch a web page by its URL."),
    ("mcp:playwright", "mcp__playwright__browser_fill_form", "Fill multiple form fields in the browser page."),
    ("shell", "job_output", "Show the output of a background job."),
]
FLEET_META = mcp_meta("github", "everything", "git", "time", "kubernetes", "playwright")


@pytest.mark.parametrize("query", ["open an issue on GitHub for the crash", "open an issue on github for the crash"])
def test_a_brand_matches_as_a_brand_whatever_its_case(query):
    # 'GitHub' is indexed whole and split: it is github, not the git group
    assert tools(fleet_index(FLEET, FLEET_META), query)[0] == "mcp__github__create_issue"


def test_a_server_name_that_is_an_ordinary_word_weighs_like_any_other_word():
    index = fleet_index(FLEET, FLEET_META)
    assert tools(index, "unstage everything I staged")[0] == "mcp__git__git_reset"
    assert groups(index, "the login times out after 30 seconds, open a github issue")[0] == "mcp:github"
    # named as a server, it is the server
    assert groups(index, "use the everything server to print its environment")[0] == "mcp:everything"
    assert groups(index, "mcp:everything echo")[0] == "mcp:everything"


@pytest.mark.parametrize("query, expected", [
    ("show the logs of pod web-5d8f9c in namespace prod", "mcp__kubernetes__kubectl_logs"),
    ("list the commits of acme/web on GitHub", "mcp__github__list_commits"),
    ("open an issue titled 'fetch the web page fails' on GitHub", "mcp__github__create_issue"),
])
def test_words_inside_identifiers_paths_and_quotes_are_weak_evidence(query, expected):
    params = {"mcp__kubernetes__kubectl_logs": {"type": "object", "properties": {
        "name": {"type": "string", "description": "Name of the pod"},
        "namespace": {"type": "string", "description": "Kubernetes namespace"}}}}
    ranked = tools(fleet_index(FLEET, FLEET_META, params), query)
    assert ranked.index(expected) < ranked.index("web_fetch"), ranked
    said = query.replace("/", " ").replace("-", " ").replace("'", "")
    plain = dict(fleet_index(FLEET, FLEET_META, params).rank_tools(said))
    assert plain["web_fetch"] > dict(fleet_index(FLEET, FLEET_META, params).rank_tools(query))["web_fetch"]  # the
    # same words, said plainly, count more


def test_one_word_of_a_tool_needs_the_rest_of_the_request_to_agree():
    index = fleet_index(FLEET, FLEET_META)
    assert tools(index, "fill in the job application form in the browser")[0] == "mcp__playwright__browser_fill_form"
    assert groups(index, "show the output of the background job")[0] == "shell"


def test_a_rule_decides_only_between_groups_the_request_reaches():
    meta = {**FLEET_META, "git": {"rules": [{"when": ["commit"], "prefer": "git"}]}}
    index = fleet_index(FLEET, meta)
    # git reaches a third of the form tool's score: the rule does not decide
    assert tools(index, "fill the commit form in the browser")[0] == "mcp__playwright__browser_fill_form"
    assert groups(index, "show the last commit")[0] == "git"


def test_parameter_values_are_searchable():
    params = {"convert": {"type": "object", "properties": {
        "to": {"type": "string", "description": "Currency code", "examples": ["USD", "JPY"]},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}}}
    rows = [("money", "convert", "Convert an amount."), ("money", "rates", "Latest rates of exchange.")]
    index = fleet_index(rows, params=params)
    assert tools(index, "how many JPY is 20 euros")[0] == "convert"
    assert tools(index, "in fahrenheit please")[0] == "convert"


def test_name_coverage_scaled_by_rarity_sends_stopping_a_port_to_kill_process():
    """kill_process wins on the share of its name's rarity the request covers, squared (with power 1, port_status)."""
    tools_ = list(bundled()[0].values())
    catalog, _ = build_catalog(tools_)
    ranked = Index(catalog, tools_).rank_tools("stop whatever is running on port 8000")
    assert [name for name, _ in ranked[:2]] == ["kill_process", "port_status"]


def test_a_group_keyword_lifts_the_tools_it_fits_not_every_tool_of_the_group(tmp_path):
    write_tool(tmp_path, "vcs", "vcs_commit", "Record a new commit.")
    write_tool(tmp_path, "vcs", "vcs_log", "Show the history of commits.")
    write_tool(tmp_path, "vcs", "vcs_status", "Show the status of the working tree.")
    write_toml(tmp_path, "vcs", 'keywords = ["staged", "changes", "commit", "history", "status"]\n')
    write_tool(tmp_path, "cluster", "cluster_get", "List pods, deployments or services in a namespace.")
    write_tool(tmp_path, "cluster", "cluster_logs", "Show the logs of a pod.")
    write_tool(tmp_path, "repo", "repo_diff_staged", "Show the diff of the staged changes, ready to commit.")
    tools_ = load(tmp_path)
    catalog, _ = build_catalog(tools_)
    index = Index(catalog, tools_)
    # 'staging' fits a vcs keyword, but the pods are the request: the vcs tools stay below cluster_get
    assert tools(index, "list all pods in the staging namespace")[0] == "cluster_get"
    # three vcs keywords fire; they say one thing, and do not outweigh a tool that fits every word
    assert tools(index, "show the changes I have staged for commit")[0] == "repo_diff_staged"
    # the keyword's group still wins when nothing else fits better, its fitting tool first
    assert tools(index, "what is the status")[0] == "vcs_status"


def test_term_matches_kept_between_searches_never_change_a_ranking(index):
    queries = ["search the web", "kill the process on port 8080", "show the git history, then fetch a page"]
    first = [index.rank_tools(q) for q in queries]
    assert [index.rank_tools(q) for q in reversed(queries)] == list(reversed(first))
    index.forget()
    assert [index.rank_tools(q) for q in queries] == first
    assert [index.rank_tools(q, limit=3) for q in queries] == [[p for p in r[:3] if p[1] > 0] for r in first]


def _same_text(names: list[str], weights: Weights | None = None) -> Index:
    listed = [Tool(n, "Issues of a repository and their labels.", {}, lambda args, ctx=None: "", group=n) for n in names]
    catalog, _ = build_catalog(listed)
    return Index(catalog, listed, weights)


def test_a_tool_whose_name_says_more_of_the_request_ranks_first():
    names = ["issue_labels", "create_issue"]
    assert _same_text(names).rank_tools("which issues have labels")[0][0] == "issue_labels"


def test_an_abbreviation_spelled_out_leaves_the_requests_own_phrases_whole(tmp_path):
    def index(phrases: str) -> Index:
        folder = tmp_path / str(len(phrases))
        write_tool(folder, "files", "read_file", "Read a text file.")
        write_toml(folder, "files", f"[phrases]\nread_file = [{phrases}]\n")
        write_tool(folder, "settings", "show_configuration", "Show the configuration of the tool.")
        tools_ = load(folder)
        return Index(build_catalog(tools_)[0], tools_)

    query = "what does the config file say"  # 'config file', not 'config configuration file'
    with_phrase, without = dict(index('"config file"').rank_tools(query)), dict(index("").rank_tools(query))
    assert with_phrase["read_file"] > without["read_file"]  # the phrase counts
    assert "show_configuration" in tools(index(""), "the config")  # config still reaches configuration


def test_a_server_tool_stands_in_for_the_bundled_tool_of_its_name():
    rows = [*FLEET, ("mcp:git", "mcp__git__git_status", "Shows the working tree status.")]
    index = fleet_index(rows, FLEET_META)
    # the bundled git_status says more, but the git server the user configured answers: one answer, not two
    ranked = tools(index, "which files are staged or changed")
    assert ranked[0] == "mcp__git__git_status" and "git_status" not in ranked
    assert index.stand_in("git_status") == "mcp__git__git_status" and index.stand_in("git_log") == "git_log"
    # a bundled tool with no server twin ranks as before
    assert tools(index, "show the git commit history")[0] == "git_log"
    assert tools(fleet_index(FLEET, FLEET_META), "which files are staged or changed")[0] == "git_status"


# Meaning: the subword vectors bridge the user's words and the author's (issue 24)

MEANING_ROWS = [*FLEET,
                ("mcp:kubernetes", "mcp__kubernetes__port_forward", "Forward a local port to a pod or service."),
                ("mcp:fetch", "mcp__fetch__fetch", "Fetches a URL from the internet and extracts its contents."),
                ("edit", "delete_file", "Delete a file."),
                ("mcp:kubernetes", "mcp__kubernetes__kubectl_delete", "Delete Kubernetes resources by kind and name."),
                ("memory", "remember", "Remember a fact for later sessions."),
                ("mcp:memory", "mcp__memory__create_entities", "Create multiple new entities in the knowledge graph.")]


def meaning_index(rows: list[tuple[str, str, str]], weights: Weights | None = None) -> Index:
    tools_ = [Tool(name, text, {}, lambda a, c=None: "", group=group) for group, name, text in rows]
    return Index(build_catalog(tools_, FLEET_META)[0], tools_, weights)


def test_near_ties_break_toward_the_tool_whose_description_means_the_request():
    query = "get the output of the worker pod"  # 'get' reaches the time tool; 'pod' the pod tools
    ranked = tools(meaning_index(MEANING_ROWS), query)
    assert ranked.index("mcp__kubernetes__port_forward") < ranked.index("mcp__time__get_current_time")
    words_only = tools(meaning_index(MEANING_ROWS, Weights(meaning=0)), query)
    assert words_only.index("mcp__kubernetes__port_forward") > words_only.index("mcp__time__get_current_time")
    assert ranked[0] == words_only[0] == "job_output"


def test_meaning_reorders_what_the_words_reached_and_adds_nothing():
    assert tools(meaning_index(MEANING_ROWS), "what do you know about me") == []
    assert set(tools(meaning_index(MEANING_ROWS), "port")) == set(tools(meaning_index(MEANING_ROWS, Weights(meaning=0)), "port"))


def test_a_server_tool_named_and_meaning_like_a_bundled_one_stands_in_for_it():
    index = meaning_index(MEANING_ROWS)
    ranked = tools(index, "grab https://example.com/a as text")
    assert ranked[0] == "mcp__fetch__fetch" and "web_fetch" not in ranked
    # delete_file and kubectl_delete share a verb, not a meaning: both stay
    ranked = tools(index, "delete the old notes file")
    assert ranked[0] == "delete_file" and "mcp__kubernetes__kubectl_delete" in ranked
    # without the vectors there is no evidence of meaning, so only names that match whole pair up
    plain = tools(meaning_index(MEANING_ROWS, Weights(meaning=0)), "grab https://example.com/a as text")
    assert "web_fetch" in plain
