"""Providers by wire format: make_provider picks the one that speaks the settings' kind. Each translates
ankit's neutral records to and from its wire format; nothing outside this package knows a wire format.
The wire-format modules are imported only when a provider is made, so commands that need no model never
load the HTTP stack.

May import: ankit.safety, ankit.settings (the Config a provider is chosen from), ankit.records, ankit.errors. Never
tooling, discovery, the turn loop or terminal.
"""

import importlib

from ankit.errors import ConfigError
from ankit.providers.base import Provider, ProviderSettings

KINDS: dict[str, tuple[str, str]] = {  # kind -> (module, class), imported on first use
    "openai": ("ankit.providers.openai", "OpenAIProvider"),
    "anthropic": ("ankit.providers.anthropic", "AnthropicProvider"),
    "responses": ("ankit.providers.responses", "ResponsesProvider"),
}


def make_provider(settings: ProviderSettings) -> Provider:
    """The provider for settings.kind ("openai" for Chat Completions, "responses" or "anthropic")."""
    if settings.kind not in KINDS:
        raise ConfigError(f"unknown wire format {settings.kind!r} for provider {settings.preset}: "
                          "use openai, responses or anthropic")
    module, name = KINDS[settings.kind]
    return getattr(importlib.import_module(module), name)(settings)


__all__ = ["Provider", "ProviderSettings", "make_provider"]
