"""The interface every provider implements, the settings it is built from, split_text for reply layouts, and
part(), which reads a reply's fields by the types their wire format gives them."""

from collections.abc import Iterator
from dataclasses import dataclass, field

from ankit.records import Event, Request


@dataclass
class ProviderSettings:
    """Everything a provider needs; api_key and headers never appear in repr."""

    preset: str
    kind: str  # wire format: "openai" or "anthropic"
    base_url: str
    model: str
    api_key: str = field(default="", repr=False)
    key_env: str = ""  # the variable the key comes from, named in error messages
    retries: int = 2
    idle_timeout: float = 120.0  # seconds a stream may stay silent before it is aborted
    connect_timeout: float = 30.0
    cache_ttl: str = "5m"  # anthropic cache_control ttl: "5m" or "1h"
    deferred: str = "auto"  # how activated tools reach the model: "auto", "native" (deferred) or "append"
    session_id: str = ""  # used as OpenAI prompt_cache_key with the openai preset
    native: bool = True  # the preset's own service: its provider-specific fields may be sent
    headers: dict = field(default_factory=dict, repr=False)  # extra request headers, which may carry a secret
    images: bool = False  # the service takes images in user messages
    origin: str = ""  # how ankit chose these settings when nothing was configured (said once at start)


class Provider:
    """Translates neutral requests to one wire format and streams neutral events back."""

    def __init__(self, settings: ProviderSettings):
        self.settings = settings

    @property
    def name(self) -> str:
        """The preset name, for messages and usage records."""
        return self.settings.preset

    @property
    def model(self) -> str:
        """The model this provider asks for."""
        return self.settings.model

    @property
    def accepts_images(self) -> bool:
        """Whether user messages may carry images for this provider."""
        return self.settings.images

    @property
    def defers(self) -> bool:
        """Whether activated tools reach the model without changing the tools array (no rewrite to avoid)."""
        return False

    def use_model(self, model: str) -> None:
        """Ask for another model from the next request on."""
        self.settings.model = model

    def stream(self, request: Request) -> Iterator[Event]:
        """Send one round and yield TextDelta, ToolCallDone, UsageReport, then StreamEnd."""
        raise NotImplementedError


def split_text(text: str, sizes: list) -> list[str]:
    """A reply's text cut into the lengths its blocks or items had, plus what is left; uncuttable text stays whole."""
    if sizes and all(isinstance(n, int) and n >= 0 for n in sizes) and sum(sizes) == len(text):
        starts = [sum(sizes[:i]) for i in range(len(sizes))]
        return [text[start:start + n] for start, n in zip(starts, sizes)] + [""]
    if sizes:  # the text changed since (a scrubbed secret): keep it where its first block was
        return [text] + [""] * len(sizes)
    return [text]


class ShapeError(ValueError):
    """A reply's field that is not of the type its wire format gives it: the server's doing, not a bug in ankit."""


def part(data: dict, key: str, kind: type | tuple[type, ...], default=None):
    """data[key] when it is a `kind`, `default` when it is absent or null; ShapeError when it is anything else."""
    value = data.get(key)
    if value is None:
        return default
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise ShapeError(f"{key} is {type(value).__name__}")
    return value
