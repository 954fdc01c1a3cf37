"""Claude Code's model aliases in agent files, as a model of the session's provider."""

from ankit.agents.families import agent_model, known_models, model_shown

KNOWN = ["claude-fable-5-1", "claude-opus-5-5", "claude-opus-5", "claude-sonnet-5-5", "claude-haiku-5-5",
         "gpt-4o", "anthropic/claude-sonnet-5.5", "anthropic/claude-opus-5.5", "anthropic/claude-haiku-4.5"]


def test_an_alias_becomes_the_newest_model_of_its_family_named_as_the_session_model_is():
    assert agent_model("opus", "claude-sonnet-5-5", KNOWN) == ("claude-opus-5-5", "")
    assert agent_model("Haiku", "anthropic/claude-sonnet-5.5", KNOWN) == ("anthropic/claude-haiku-4.5", "")
    assert agent_model("sonnet", "claude-sonnet-4-5", KNOWN) == ("claude-sonnet-4-5", "")  # already that family
    assert agent_model("fable", "claude-opus-5", KNOWN) == ("claude-fable-5-1", "")


def test_inherit_a_whole_name_and_a_provider_without_the_family():
    assert agent_model("inherit", "gpt-4o", KNOWN) == ("gpt-4o", "")
    assert agent_model("", "gpt-4o", KNOWN) == ("gpt-4o", "")
    assert agent_model("claude-opus-4-1", "gpt-4o", KNOWN) == ("claude-opus-4-1", "")
    model, note = agent_model("opus", "llama3.2:3b", KNOWN)
    assert model == "llama3.2:3b"
    assert note == "model 'opus' is a Claude family and llama3.2:3b has none: it runs on the session's model"
    assert model_shown("opus", "llama3.2:3b", KNOWN) == "llama3.2:3b (opus: the session's model; no opus model here)"
    assert model_shown("opus", "claude-sonnet-5-5", KNOWN) == "claude-opus-5-5 (opus)"
    assert model_shown("inherit", "gpt-4o", KNOWN) == "gpt-4o (inherited)"


def test_the_price_list_knows_each_family():
    known = known_models()
    assert all(agent_model(f, "claude-sonnet-5-5", known)[1] == "" for f in ("opus", "sonnet", "haiku"))
