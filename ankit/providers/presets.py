"""Named provider presets: wire format, base URL, key variable and a default model."""

from dataclasses import dataclass


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
