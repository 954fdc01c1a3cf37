"""Claude Code's model aliases in agent files (opus, sonnet, haiku, inherit) as a model of the session's provider."""

from ankit.usage.pricing import load_prices

FAMILIES = ("opus", "sonnet", "haiku")


def known_models() -> list[str]:
    """The model names ankit knows, newest first within each family (the price list's order)."""
    return list(load_prices())


def is_alias(word: str, known: list[str]) -> bool:
    """Whether a model field is a family's name (opus, or fable where a claude-fable-... model is known)."""
    return word in FAMILIES or (word.isalpha() and any(f"claude-{word}-" in name for name in known))


def agent_model(asked: str, session_model: str, known: list[str]) -> tuple[str, str]:
    """The model a named agent runs on, and one line when its alias has no counterpart ("" otherwise): an alias
    becomes the newest model of that family named as the session's model is (claude-... or anthropic/claude-...)."""
    alias = asked.strip().lower()
    if alias in ("", "inherit"):
        return session_model, ""
    if not is_alias(alias, known):
        return asked.strip(), ""  # a whole model name
    lowered = session_model.lower()
    if alias in lowered:
        return session_model, ""
    if "claude" in lowered:
        stem = lowered[: lowered.index("claude")] + "claude"
        for name in known:
            if name.lower().startswith(stem) and alias in name.lower():
                return name, ""
    return session_model, (f"model {alias!r} is a Claude family and {session_model or 'this provider'} has none: "
                           "it runs on the session's model")


def model_shown(asked: str, session_model: str, known: list[str]) -> str:
    """How /agents shows an agent's model: what it runs on, and the alias it came from."""
    model, note = agent_model(asked, session_model, known)
    if asked.strip().lower() in ("", "inherit"):
        return f"{model or 'the session model'} (inherited)"
    if note:
        return f"{model} ({asked}: the session's model; no {asked} model here)"
    return model if model == asked.strip() else f"{model} ({asked})"
