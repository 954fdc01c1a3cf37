"""Named provider presets (wire format, base URL, key variable, a default model) and the choice of one from the
config: named, else the first whose key is set, else a local server that answers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ankit.errors import ConfigError
from ankit.providers.base import ProviderSettings
from ankit.providers.models import LOCAL_SERVERS, list_models, probe

if TYPE_CHECKING:
    from ankit.settings.config import Config


@dataclass(frozen=True)
class Preset:
    """A provider by name."""

    name: str
    kind: str
    base_url: str
    key_env: str
    model: str
    key_required: bool = True
    images: bool = False  # its models take images in user messages


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("anthropic", "anthropic", "https://api.anthropic.com/v1", "ANTHROPIC_API_KEY", "claude-sonnet-5-5", images=True),
        Preset("openai", "openai", "https://api.openai.com/v1", "OPENAI_API_KEY", "gpt-4.1-mini", images=True),
        Preset("github", "openai", "https://models.github.ai/inference", "GITHUB_TOKEN", "openai/gpt-4.1-mini", images=True),
        Preset("openrouter", "openai", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", "openai/gpt-4.1-mini", images=True),
        Preset("ollama", "openai", "http://localhost:11434/v1", "OLLAMA_API_KEY", "llama3.2", key_required=False),
        Preset("local", "openai", "http://127.0.0.1:8080/v1", "ANKIT_API_KEY", "local", key_required=False),
    )
}

# With nothing configured, the first preset whose key is present is used, in this order.
AUTO_ORDER = ("anthropic", "openai", "openrouter", "github")

SETUP_HELP = (
    "No provider is configured. To set one up, either:\n"
    "  export ANTHROPIC_API_KEY=...   (or OPENAI_API_KEY, OPENROUTER_API_KEY, GITHUB_TOKEN)\n"
    "  or run a local server and use: ankit --provider ollama  (or --provider local --base-url http://127.0.0.1:8080/v1)"
)


def vendor_hosted(settings: ProviderSettings) -> bool:
    """Whether the settings reach a hosted vendor's own API (Anthropic, OpenAI, OpenRouter, GitHub Models), whose
    models read a lettered list; a local or other server's model may be too small to rank tools."""
    preset = PRESETS.get(settings.preset)
    return bool(preset and preset.key_required and settings.native)


def choose_preset(config: Config) -> str | None:
    """The configured provider, else the first one whose key is present, else None."""
    if config.provider:
        if config.provider not in PRESETS:
            raise ConfigError(f"unknown provider {config.provider!r}; choose one of: {', '.join(PRESETS)}")
        return config.provider
    if config.base_url:
        return "local"
    for name in AUTO_ORDER:
        if config.env.get(PRESETS[name].key_env):
            return name
    return None


def wire_format(config: Config, kind: str, openai_host: bool) -> str:
    """An OpenAI-style server speaks Responses when asked (api), and by default on OpenAI's own host."""
    if kind != "openai":
        return kind
    return "responses" if config.api == "responses" or (not config.api and openai_host) else "openai"


def provider_settings(config: Config, session_id: str = "", servers=None) -> ProviderSettings:
    """Build the provider settings; with nothing configured, a local server that answers (of `servers`, by
    default the usual ones); else raise ConfigError with set-up help."""
    servers = LOCAL_SERVERS if servers is None else servers
    name = choose_preset(config)
    if name is None:
        return _probed(config, session_id, servers)
    preset = PRESETS[name]
    key_env = preset.key_env
    if name == "openai" and not config.base_url and config.env.get("OPENAI_BASE_URL"):
        base_url = config.env["OPENAI_BASE_URL"]
    else:
        base_url = config.base_url or preset.base_url
    api_key = config.env.get(key_env, "")
    if preset.key_required and not api_key:
        raise ConfigError(f"the {name} provider needs an API key: set {key_env}")
    native = base_url.rstrip("/") == preset.base_url
    settings = ProviderSettings(
        preset=name, kind=wire_format(config, preset.kind, name == "openai" and native),
        base_url=base_url.rstrip("/"), model=config.model or preset.model,
        api_key=api_key, key_env=key_env, retries=config.retries, idle_timeout=config.idle_timeout,
        cache_ttl=config.cache_ttl, session_id=session_id, native=native, images=preset.images,
        deferred=config.deferred,
    )
    if name == "local" and not config.model:
        _take_served_model(settings, list_models(settings, timeout=2.0) or [])
    return settings


def _take_served_model(settings: ProviderSettings, served: list[str]) -> None:
    """With no model set, the first the server lists, said once at start when there was a choice; a server that
    lists none keeps the preset's name (llama.cpp's server answers to any)."""
    if not served:
        return
    settings.model = served[0]
    if len(served) > 1:
        settings.origin = (f"no model set: using {served[0]}, the first of the {len(served)} models "
                           f"{settings.base_url} lists (/model lists them; --model NAME picks one)")


def _probed(config: Config, session_id: str, servers) -> ProviderSettings:
    """Settings for the first usual local server that answers; ConfigError with set-up help when none does."""
    found = probe(servers)
    if found is None:
        raise ConfigError(SETUP_HELP)
    server, models = found
    model = config.model or (models[0] if models else PRESETS[server.preset].model)
    others = f"; /model lists its {len(models)} models" if len(models) > 1 else ""
    return ProviderSettings(
        preset=server.preset, kind="openai", base_url=server.base_url, model=model, retries=config.retries,
        idle_timeout=config.idle_timeout, session_id=session_id, native=False,
        origin=f"no provider configured: using {server.name} at {server.base_url}, model {model}{others}")
