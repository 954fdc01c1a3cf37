from ankit.tooling.activation import Activation, canonical
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
