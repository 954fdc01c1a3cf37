from ankit.tooling.activation import Activation, canonical, habitual
from ankit.records import ToolSpec


def spec(name, size=0, group="g"):
    return ToolSpec(name, "d" * size, {"type": "object", "properties": {"b": {"type": "string"}, "a": {"type": "string"}}}, group)


GROUPS = {
    "core": [spec("read_file", 10)],
    "git": [spec("git_log", 100), spec("git_diff", 100)],
    "web": [spec("web_fetch", 400)],
    "memory": [spec("remember", 50)],
}


def make():
    return Activation(lambda g: GROUPS[g], ["core"])


def names(round_tools):
    return [s.name for s in round_tools.specs]


def test_grow_only_in_activation_order():
    act = make()
    assert act.activate(["git"]) == ["git"]
    assert act.activate(["web", "git"]) == ["web"]
    assert act.activate(["core"]) == []
    assert act.active == ["git", "web"]
    assert names(act.tools_for_round(10**6)) == ["read_file", "git_log", "git_diff", "web_fetch"]


def test_same_bytes_every_round_and_canonical_keys():
    act = make()
    act.activate(["git"])
    first = canonical(act.tools_for_round(10**6).specs)
    second = canonical(act.tools_for_round(10**6).specs)
    assert first == second
    assert b'"properties":{"a":{"type":"string"},"b"' in first


def test_whole_groups_held_back_and_later_small_group_still_sent():
    act = make()
    act.activate(["git", "web", "memory"])
    sizes = {g: act.frozen(g).size for g in GROUPS}
    budget = sizes["git"] + sizes["memory"]
    tools = act.tools_for_round(budget)
    assert tools.sent == ["git", "memory"]
    assert tools.held_back == ["web"]
    assert "web_fetch" not in names(tools)
    assert tools.schema_bytes == budget + sizes["core"]


def test_held_back_group_returns_byte_identical():
    act = make()
    act.activate(["git", "web"])
    roomy = canonical(act.tools_for_round(10**6).specs)
    tight = act.tools_for_round(act.frozen("git").size)
    assert tight.held_back == ["web"]
    GROUPS["web"][0].description = "changed later"  # frozen bytes must not follow source edits mid-session
    try:
        assert canonical(act.tools_for_round(10**6).specs) == roomy
    finally:
        GROUPS["web"][0].description = "d" * 400


def test_the_deferred_catalog_keeps_its_order_and_a_late_group_goes_last():
    seen = ["core", "web", "git"]
    act = Activation(lambda g: GROUPS.get(g, []), ["core"], all_groups=lambda: list(seen))
    first = act.catalog()
    assert [s.name for s in first] == ["web_fetch", "git_log", "git_diff"]  # core stays out: it is sent plainly
    seen[:] = ["core", "memory", "git", "web"]  # a group that arrives later, listed first by the catalog
    assert act.catalog()[:3] == first and [s.name for s in act.catalog()[3:]] == ["remember"]
    assert canonical(act.catalog()[:3]) == canonical(first)


def test_habits_are_groups_most_recent_sessions_activated():
    assert habitual([["git", "web"], ["git"], ["git", "git"], ["web"], []]) == {
        "git": "activated in 3 of the last 5 sessions in this folder"}
    assert habitual([["git"], ["git"]]) == {}


def test_preloaded_groups_are_activated_with_their_reason():
    act = make()
    act.preload({"git": "habit", "core": "never"})
    assert act.active == ["git"] and act.preloaded == {"git": "habit"}


def test_code_mode_only_sends_the_named_tools_and_declares_no_catalog():
    groups = {**GROUPS, "core": [spec("read_file", 10), spec("find_tools"), spec("run_code")]}
    activation = Activation(lambda g: groups[g], ["core"], all_groups=lambda: list(groups),
                            only=("find_tools", "run_code"))
    activation.activate(["git", "web"])
    plan = activation.tools_for_round(10_000)
    assert names(plan) == ["find_tools", "run_code"] and plan.sent == [] and plan.held_back == []
    assert activation.catalog() == []


# --- units: a search loads tools without their whole group; the group may follow, adding only the rest ---

def by_unit(unit):
    """A group's specs, or one tool's when a search loaded it alone (as the registry resolves a unit)."""
    return GROUPS.get(unit) or [s for specs in GROUPS.values() for s in specs if s.name == unit]


def test_a_tool_loaded_alone_then_its_group_appends_only_the_rest_and_re_enters_byte_identical():
    act = Activation(by_unit, ["core"], all_groups=lambda: list(GROUPS))
    assert act.activate(["git_diff"]) == ["git_diff"]
    first = canonical(act.tools_for_round(10**6).specs)
    assert names(act.tools_for_round(10**6)) == ["read_file", "git_diff"]
    assert act.activate(["web", "git"]) == ["web", "git"]
    grown = act.tools_for_round(10**6)
    assert names(grown) == ["read_file", "git_diff", "web_fetch", "git_log"]  # appended: nothing moves
    assert canonical(grown.specs).startswith(first[:-1]) and grown.sent == ["git_diff", "web", "git"]
    assert canonical(act.tools_for_round(10**6).specs) == canonical(grown.specs)


def test_a_unit_whose_tools_are_all_offered_does_not_join():
    act = Activation(by_unit, ["core"])
    assert act.activate(["git_log", "git_diff"]) == ["git_log", "git_diff"]
    assert act.activate(["git", "read_file"]) == [] and act.active == ["git_log", "git_diff"]
    assert act.offered_names() == {"read_file", "git_log", "git_diff"}


def test_the_deferred_catalog_names_the_unit_that_loads_each_tool():
    act = Activation(by_unit, ["core"], all_groups=lambda: list(GROUPS))
    assert [(s.name, s.group) for s in act.catalog()] == [("git_log", "git"), ("git_diff", "git"),
                                                           ("web_fetch", "web"), ("remember", "memory")]
    before = canonical(act.catalog())
    act.activate(["git_diff", "git"])  # git_diff alone first: a provider references git_log alone with git
    assert [(s.name, s.group) for s in act.catalog()][:2] == [("git_log", "git"), ("git_diff", "git_diff")]
    assert canonical(act.catalog()) == before  # the declarations' bytes and order stay


def test_held_back_by_what_a_unit_would_add_not_by_its_whole_group():
    act = Activation(by_unit, ["core"])
    act.activate(["git_diff", "git"])
    alone = act.frozen("git_diff").size
    rest = len(canonical([s for s in act.frozen("git").specs if s.name != "git_diff"]))
    assert rest < act.frozen("git").size
    tools = act.tools_for_round(alone + rest)  # room for the rest of git, not for git whole beside git_diff
    assert tools.sent == ["git_diff", "git"] and tools.held_back == []
    assert tools.schema_bytes == alone + rest + act.frozen("core").size
    tight = act.tools_for_round(alone + rest - 1)
    assert tight.sent == ["git_diff"] and tight.held_back == ["git"] and tight.too_big == []
