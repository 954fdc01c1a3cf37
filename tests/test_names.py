"""Claude Code's names for a plugin's things: plugin:name always, the plain name when unique."""

from ankit.names import ambiguous, qualified, resolve


def test_a_plain_name_answers_when_one_plugin_has_it_and_a_users_own_comes_first():
    known = ["review", "superpowers:brainstorming", "a:plan", "b:plan", "superpowers:review"]
    assert qualified("superpowers", "brainstorming") == "superpowers:brainstorming"
    assert qualified("", "review") == "review" and qualified("a", "a:x") == "a:x"
    assert resolve(known, "brainstorming") == ("superpowers:brainstorming", [])
    assert resolve(known, "review") == ("review", [])  # the user's own, not the plugin's
    assert resolve(known, "plan") == ("", ["a:plan", "b:plan"])
    assert resolve(known, "x:brainstorming") == ("", []) and resolve(known, "") == ("", [])
    assert ambiguous("the skill", "plan", ["a:plan", "b:plan"]) == (
        "the skill 'plan' is in more than one plugin: name one of a:plan, b:plan")
