"""The context window a server says a model has: llama.cpp's /props and /v1/models meta, vLLM's max_model_len,
Ollama's /api/show, LM Studio's /api/v0/models, OpenRouter's context_length; each model asked once."""

import threading
import urllib.parse

from ankit.providers.base import ProviderSettings
from ankit.providers.models import fetch_json, listing

TIMEOUT = 2.0  # seconds each question may take: a server that does not answer leaves the window to the guess
CLOUDS = ("openai", "github", "anthropic")  # their own services say nothing of windows: not asked


class ServerWindows:
    """What one server says of its models' context windows, in tokens (None: it says nothing); each model asked
    once."""

    def __init__(self, settings: ProviderSettings):
        self.settings = settings
        self.known: dict[str, int | None] = {}
        self.entries: list[dict] | None = None  # the server's model listing, read once
        self.lock = threading.Lock()

    def __call__(self, model: str) -> int | None:
        with self.lock:
            if model not in self.known:
                cloud = self.settings.native and self.settings.preset in CLOUDS
                self.known[model] = None if cloud else self._ask(model)
            return self.known[model]

    def _ask(self, model: str) -> int | None:
        """Each place a server of one kind says it, in turn: the first number found."""
        settings, root = self.settings, _root(self.settings.base_url)
        for find in (_llama_props, self._listed, _ollama_show, _lm_studio):
            found = find(settings, root, model)
            if isinstance(found, int) and not isinstance(found, bool) and found > 0:
                return found
        return None

    def _listed(self, settings: ProviderSettings, root: str, model: str) -> int | None:
        """The model's entry in the server's listing (GET {base}/models, read once)."""
        if self.entries is None:
            self.entries = [e for e in listing(settings, TIMEOUT) or [] if isinstance(e, dict)]
        return _listed_window(self.entries, model)


def _root(base_url: str) -> str:
    """The server's address without the OpenAI-compatible /v1 path."""
    base = base_url.rstrip("/")
    return base[:-3] if base.endswith("/v1") else base


def _llama_props(settings: ProviderSettings, root: str, model: str) -> int | None:
    """llama.cpp's server: GET /props, default_generation_settings.n_ctx (the window each slot has)."""
    body = fetch_json(settings, root + "/props", TIMEOUT)
    if not isinstance(body, dict):
        return None
    slot = body.get("default_generation_settings")
    return slot.get("n_ctx") if isinstance(slot, dict) and "n_ctx" in slot else body.get("n_ctx")


def _listed_window(entries: list[dict], model: str) -> int | None:
    """The window in the model's entry of a listing: vLLM's max_model_len, llama.cpp's meta.n_ctx (else
    n_ctx_train), OpenRouter's context_length."""
    entry = next((e for e in entries if e.get("id") == model), entries[0] if len(entries) == 1 else None)
    if entry is None:
        return None
    meta = entry.get("meta") if isinstance(entry.get("meta"), dict) else {}
    for value in (entry.get("max_model_len"), meta.get("n_ctx"), entry.get("context_length"), meta.get("n_ctx_train")):
        if isinstance(value, int):
            return value
    return None


def _ollama_show(settings: ProviderSettings, root: str, model: str) -> int | None:
    """Ollama: POST /api/show, the num_ctx the model is set to run with, else its model_info's context_length."""
    body = fetch_json(settings, root + "/api/show", TIMEOUT, {"model": model})
    if not isinstance(body, dict):
        return None
    for line in str(body.get("parameters") or "").splitlines():
        name, _, value = line.partition(" ")
        if name == "num_ctx" and value.strip().isdigit():
            return int(value.strip())
    info = body.get("model_info") if isinstance(body.get("model_info"), dict) else {}
    return next((v for k, v in info.items() if k.endswith(".context_length") and isinstance(v, int)), None)


def _lm_studio(settings: ProviderSettings, root: str, model: str) -> int | None:
    """LM Studio: GET /api/v0/models/MODEL, the loaded context length, else the model's maximum."""
    body = fetch_json(settings, f"{root}/api/v0/models/{urllib.parse.quote(model, safe='')}", TIMEOUT)
    if not isinstance(body, dict):
        return None
    loaded = body.get("loaded_context_length")
    return loaded if isinstance(loaded, int) else body.get("max_context_length")

