"""The catalog: groups from folders, group.toml metadata, derived summaries and keywords, catalog text."""

import shutil

from tests.helpers import TOOLS_DIR
from tests.tool_folders import load, small_catalog, write_toml, write_tool

from ankit.discovery.catalog import build_catalog, catalog_text, derive_terms
from ankit.discovery.index import Index


def test_groups_come_from_folders_in_a_stable_order(tmp_path):
    tools = small_catalog(tmp_path)
    catalog, problems = build_catalog(tools)
    assert problems == []
    assert list(catalog.groups) == sorted(catalog.groups)
    assert catalog.groups["git"].tools == ["git_diff", "git_log"]
    assert catalog.group_of("web_fetch") == "web"
    assert catalog.group_of("no_such_tool") is None
    reversed_catalog, _ = build_catalog(list(reversed(tools)))
    assert list(reversed_catalog.groups) == list(catalog.groups)


def test_metadata_gives_summary_phrases_core_and_rules(tmp_path):
    catalog, _ = build_catalog(small_catalog(tmp_path))
    git, files, github = catalog.groups["git"], catalog.groups["files"], catalog.groups["github"]
    assert git.summary == "Git version control: history and diffs" and git.curated
    assert catalog.tools["git_log"].phrases == ["version control history"]
    assert files.core and not git.core
    [rule] = github.rules
    assert (rule.when, rule.prefer, rule.over) == (["github", "notifications"], "github", ["apps"])
    assert rule.reason.startswith("GitHub notifications")


def test_a_new_folder_without_metadata_gets_a_summary_from_its_tools(tmp_path):
    write_tool(tmp_path, "weather", "forecast", "Get the weather forecast for a city. Uses open data.")
    write_tool(tmp_path, "weather", "rain_radar", "Show the rain radar map! Updated every 5 minutes.")
    catalog, problems = build_catalog(load(tmp_path))
    group = catalog.groups["weather"]
    assert problems == [] and not group.curated
    assert group.summary == "Get the weather forecast for a city; Show the rain radar map"


def test_a_module_group_export_overrides_its_folder(tmp_path):
    write_tool(tmp_path, "misc", "git_blame", "Show who changed each line.", group_export="git")
    write_tool(tmp_path, "git", "git_log", "Show the commit history.")
    write_toml(tmp_path, "git", 'summary = "Git"\n')
    catalog, _ = build_catalog(load(tmp_path))
    assert catalog.groups["git"].tools == ["git_blame", "git_log"]
    assert "misc" not in catalog.groups
    assert catalog.groups["git"].summary == "Git"


def test_a_group_toml_that_does_not_parse_gives_one_line_and_the_group_still_loads(tmp_path):
    write_tool(tmp_path, "notes", "add_note", "Add a note to the notebook.")
    path = write_toml(tmp_path, "notes", 'summary = "Notes\ncore = [oops\n')
    catalog, problems = build_catalog(load(tmp_path))
    assert len(problems) == 1 and str(path) in problems[0] and "does not parse" in problems[0]
    assert "\n" not in problems[0]
    assert catalog.groups["notes"].tools == ["add_note"]
    assert catalog.groups["notes"].summary == "Add a note to the notebook"


def test_bad_entries_in_a_group_toml_are_reported_and_skipped(tmp_path):
    write_tool(tmp_path, "notes", "add_note", "Add a note.")
    write_toml(tmp_path, "notes", (
        'summary = 3\nkeywords = "memo"\ncore = "yes"\n'
        '[[rules]]\nwhen = []\nprefer = "notes"\n'
        '[[rules]]\nwhen = ["jot"]\nprefer = "notes"\n'
    ))
    catalog, problems = build_catalog(load(tmp_path))
    group = catalog.groups["notes"]
    assert len(problems) == 4  # summary, keywords, core, the empty rule
    assert "keywords are no longer searched; write [phrases]" in problems[1] and group.core is False
    assert [r.when for r in group.rules] == [["jot"]]


def test_a_group_toml_gives_its_tools_phrases_searched_as_a_models_are(tmp_path):
    write_tool(tmp_path, "weather", "forecast", "Get the weather forecast for a city.")
    write_tool(tmp_path, "weather", "rain_radar", "Show the rain radar map.")
    write_tool(tmp_path, "files", "read_file", "Read a text file.")
    write_toml(tmp_path, "weather", '[phrases]\nforecast = ["do I need an umbrella tomorrow", "umbrella\\u001b[31m?", '
               '"do I need an umbrella tomorrow", "will it be sunny this weekend"]\n')
    tools = load(tmp_path)
    catalog, problems = build_catalog(tools)
    assert problems == []
    assert catalog.tools["forecast"].phrases == ["do I need an umbrella tomorrow", "umbrella^[[31m?",
                                                 "will it be sunny this weekend"]
    assert catalog.tools["rain_radar"].phrases == [] and catalog.tools["read_file"].phrases == []
    assert [t.phrases for t in tools] == [[], [], []]  # the loaded tools stay as their modules made them
    assert "umbrella" in derive_terms(catalog.tools["forecast"]).phrases
    assert Index(catalog, tools).rank_tools("need an umbrella?", 1)[0][0] == "forecast"


def test_bad_phrases_in_a_group_toml_are_reported_in_one_line_each_and_skipped(tmp_path):
    write_tool(tmp_path, "notes", "add_note", "Add a note.")
    write_tool(tmp_path, "notes", "list_notes", "List the notes.")
    write_toml(tmp_path, "notes", '[phrases]\nadd_note = "jot this down"\nlist_notes = ["my memos", 3]\n'
               'drop_note = ["scrap that memo"]\n')
    catalog, problems = build_catalog(load(tmp_path))
    assert len(problems) == 3 and all("\n" not in p and p.endswith("ignored") for p in problems)
    assert "add_note must be a list of strings" in problems[0] and "'drop_note', which is no tool" in problems[2]
    assert catalog.tools["add_note"].phrases == [] and catalog.tools["list_notes"].phrases == []
    write_toml(tmp_path, "notes", 'phrases = ["jot this down"]\n')
    [problem] = build_catalog(load(tmp_path))[1]
    assert "phrases must be a table (tool name = [requests])" in problem


def test_every_bundled_tool_ships_phrases_and_a_tool_copied_alone_loads_without_them(tmp_path):
    shutil.copytree(TOOLS_DIR, tmp_path / "tools")
    catalog, problems = build_catalog(load(tmp_path / "tools"))
    assert problems == []
    assert all(1 <= len(tool.phrases) <= 8 for tool in catalog.tools.values())
    (tmp_path / "alone").mkdir()
    shutil.copy(TOOLS_DIR / "git" / "git_log.py", tmp_path / "alone" / "git_log.py")
    alone, problems = build_catalog(load(tmp_path / "alone"))
    assert problems == [] and alone.tools["git_log"].phrases == []


def test_needs_says_which_tools_a_tool_is_no_use_without_and_bad_entries_are_reported(tmp_path):
    write_tool(tmp_path, "jobs", "job_begin", "Start a job.")
    write_tool(tmp_path, "jobs", "job_log", "Show a job's output.")
    write_toml(tmp_path, "jobs", '[needs]\njob_begin = ["job_log"]\njob_log = 5\n')
    catalog, problems = build_catalog(load(tmp_path))
    assert catalog.groups["jobs"].needs == {"job_begin": ["job_log"]}
    assert len(problems) == 1 and "needs.job_log must be a list of tool names; ignored" in problems[0]
    write_toml(tmp_path, "jobs", 'needs = ["job_log"]\n')
    catalog, problems = build_catalog(load(tmp_path))
    assert catalog.groups["jobs"].needs == {} and "needs must be a table" in problems[0]


def test_extra_groups_supply_metadata_without_a_file(tmp_path):
    write_tool(tmp_path, "", "mcp__time__now", "Current time in a zone.", group_export="mcp:time")
    meta = {"mcp:time": {"summary": "Time in any zone", "core": True}}
    catalog, problems = build_catalog(load(tmp_path), meta)
    group = catalog.groups["mcp:time"]
    assert problems == [] and group.summary == "Time in any zone" and group.core


def test_tools_arriving_later_join_their_group(tmp_path):
    catalog, _ = build_catalog(small_catalog(tmp_path / "a"))
    write_tool(tmp_path / "b", "", "mcp__fs__stat", "File status.", group_export="mcp:fs")
    later = load(tmp_path / "b")
    problems = catalog.add_tools(later, {"mcp:fs": {"summary": "Files over MCP"}})
    assert problems == [] and catalog.groups["mcp:fs"].tools == ["mcp__fs__stat"]
    assert list(catalog.groups) == sorted(catalog.groups)


def test_derived_terms_come_from_name_description_and_parameters(tmp_path):
    write_tool(tmp_path, "net", "checkPortStatus", "Tells whether something listens.", {"host_name": "Machine to ask"})
    [tool] = load(tmp_path)
    derived = derive_terms(tool)
    assert derived.name == ["check", "port", "status"]
    assert "listen" in derived.description and "something" not in derived.description
    assert {"host", "name", "machin", "ask"} <= set(derived.parameters)


def test_catalog_text_modes_list_one_line_per_non_core_group(tmp_path):
    catalog, _ = build_catalog(small_catalog(tmp_path))
    names = catalog_text(catalog, "names").splitlines()
    first = catalog_text(catalog, "first").splitlines()
    full = catalog_text(catalog, "full").splitlines()
    assert len(names) == len(first) == len(full) == len(catalog.groups) - 1  # files is core
    assert "- git: git_diff, git_log" in names
    assert "- git: Git version control: history and diffs" in first
    assert "- git: Git version control: history and diffs (git_diff, git_log)" in full
    assert not any(line.startswith("- files") for line in names + first + full)


def test_a_tool_listed_again_moves_to_its_new_group_and_metadata_is_not_doubled(tmp_path):
    write_tool(tmp_path / "a", "", "mcp__s__stat", "File status.", group_export="mcp:s")
    write_tool(tmp_path / "b", "", "mcp__s__stat", "File status.", group_export="mcp:t")
    catalog, _ = build_catalog(load(tmp_path / "a"))
    meta = {"mcp:t": {"summary": "T", "rules": [{"when": ["stat"], "prefer": "mcp:t"}]}}
    catalog.add_tools(load(tmp_path / "b"), meta)
    catalog.add_tools([], meta)
    assert "mcp:s" not in catalog.groups and catalog.groups["mcp:t"].tools == ["mcp__s__stat"]
    assert len(catalog.groups["mcp:t"].rules) == 1


def test_the_core_group_is_always_core_and_a_summary_less_group_shows_its_names(tmp_path):
    write_tool(tmp_path, "core", "find_tools_like", "Find tools.")
    write_tool(tmp_path, "blank", "blank_tool", "")
    catalog, _ = build_catalog(load(tmp_path))
    assert catalog.groups["core"].core
    assert catalog_text(catalog, "full") == "- blank: blank_tool"
    assert catalog_text(catalog, "first") == "- blank: blank_tool"


def test_catalog_lines_are_one_clean_sentence():
    from ankit.discovery.catalog import clean_summary
    text = "# Everything Server – Server Instructions\n\n**Tests** every [MCP](https://x) feature.\x1b[31m More.\n## B"
    assert clean_summary(text) == "Tests every MCP feature"
    assert len(clean_summary("word " * 100)) <= 160
    catalog, _ = build_catalog([], {"mcp:x": {"summary": "## Heading only\n\nDoes\x07 things. Then more."}})
    assert catalog.groups["mcp:x"].summary == "Does things"


def test_an_oversized_group_is_split_into_parts():
    from ankit.tooling.toolbox import Tool
    big = {"type": "object", "properties": {"filter": {"type": "string", "description": "x" * 3000}}}
    names = ["create-collection", "drop-collection", "list-collections", "create-index", "drop-index",
             "list-indexes", "insert-many", "update-many", "delete-many"]
    tools = [Tool(f"mcp__db__{n}", f"Do {n}.", big, lambda a, c=None: "", group="mcp:db") for n in names]
    tools.append(Tool("read_file", "Read a file.", big, lambda a, c=None: "", group="core"))
    catalog, _ = build_catalog(tools, {"mcp:db": {"core": False}, "core": {"core": True}})
    parts = catalog.parts_of("mcp:db")
    assert len(parts) > 1 and "mcp:db" not in catalog.groups and "mcp:db" in catalog.split
    assert all(p.startswith("mcp:db/") and catalog.groups[p].parent == "mcp:db" for p in parts)
    assert not any(catalog.groups[p].core for p in parts)
    assert catalog.group_of("mcp__db__drop-index") in parts and catalog.parts_of("core") == ["core"]


def test_a_server_part_and_a_server_whose_instructions_tell_nothing_are_named_by_what_their_tools_do():
    from ankit.tooling.toolbox import Tool
    big = {"type": "object", "properties": {"filter": {"type": "string", "description": "x" * 3000}}}
    names = ["create-collection", "drop-collection", "list-collections", "create-index", "drop-index",
             "list-indexes", "insert-many", "update-many", "delete-many"]
    tools = [Tool(f"mcp__db__{n}", f"Run the {n} command of the database.", big, lambda a, c=None: "",
                  group="mcp:db") for n in names]
    tools += [Tool(f"mcp__gh__{n}", "Calls the API.", {}, lambda a, c=None: "", group="mcp:gh")
              for n in ("create_issue", "list_issues", "get_pull_request", "merge_pull_request", "create_issue_comment")]
    vague = "Audience: these instructions are written for an LLM integrating with the gh MCP server"
    catalog, _ = build_catalog(tools, {"mcp:gh": {"summary": vague}})
    summaries = {g: catalog.groups[g].summary for g in catalog.parts_of("mcp:db")}
    assert summaries["mcp:db/collection"] == "collection; create, drop, list"  # not the first tool's description
    assert summaries["mcp:db/index"] == "index; create, drop, list"
    assert catalog.groups["mcp:gh"].summary == "issue, pull request, issue comment; create, get, list, merge"
    told = build_catalog(tools, {"mcp:gh": {"summary": "Issues and pull requests of GitHub repositories."}})[0]
    assert told.groups["mcp:gh"].summary == "Issues and pull requests of GitHub repositories"
