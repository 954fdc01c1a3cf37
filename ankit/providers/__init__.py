"""Providers by wire format: make_provider picks the one that speaks the settings' kind. Each translates
ankit's neutral records to and from its wire format; nothing outside this package knows a wire format.

May import: ankit.records, ankit.errors, ankit.scrub. Never tooling, discovery, the turn loop or terminal.
"""

from ankit.errors import ConfigError
from ankit.providers.anthropic import AnthropicProvider
from ankit.providers.base import Provider, ProviderSettings
from ankit.providers.openai import OpenAIProvider
from ankit.providers.responses import ResponsesProvider

KINDS: dict[str, type[Provider]] = {"openai": OpenAIProvider, "anthropic": AnthropicProvider,
                                    "responses": ResponsesProvider}


def make_provider(settings: ProviderSettings) -> Provider:
    """The provider for settings.kind ("openai" for Chat Completions, "responses" or "anthropic")."""
    if settings.kind not in KINDS:
        raise ConfigError(f"unknown wire format {settings.kind!r} for provider {settings.preset}: "
                          "use openai, responses or anthropic")
    return KINDS[settings.kind](settings)


__all__ = ["Provider", "ProviderSettings", "make_provider"]
