"""The models a server offers (GET {base}/models), the context window it says a model has, and finding a local
server that answers, for /model, the window and set-up."""

import json
import threading
import urllib.error
import urllib.parse
from dataclasses import dataclass

from ankit import __version__
from ankit.providers.base import ProviderSettings
from ankit.safety import text as boundary, web

ANTHROPIC_VERSION = "2023-06-01"
PROBE_BUDGET = 0.4  # seconds all local servers together may take to answer
LIMIT = 1000  # models asked for (Anthropic pages its list)
LISTING_CAP = 4 * 1024 * 1024  # bytes of a model listing


@dataclass(frozen=True)
class LocalServer:
    """A usual place for a local OpenAI-compatible server."""

    name: str
    preset: str
    base_url: str


LOCAL_SERVERS = (
    LocalServer("Ollama", "ollama", "http://localhost:11434/v1"),
    LocalServer("llama.cpp's server", "local", "http://127.0.0.1:8080/v1"),
    LocalServer("LM Studio", "local", "http://127.0.0.1:1234/v1"),
    LocalServer("vLLM", "local", "http://127.0.0.1:8000/v1"),
)


def _headers(settings: ProviderSettings) -> dict:
    headers = {"accept": "application/json", "user-agent": f"ankit/{__version__}"}
    if settings.kind == "anthropic":
        headers["anthropic-version"] = ANTHROPIC_VERSION
        if settings.api_key:
            headers["x-api-key"] = settings.api_key
    elif settings.api_key:
        headers["authorization"] = f"Bearer {settings.api_key}"
    return {**headers, **settings.headers}


def fetch_json(settings: ProviderSettings, url: str, timeout: float, body: dict | None = None):
    """The JSON a GET (a POST with body) of the server's URL answers; None for anything else (an error status, no
    answer in time, not JSON). No redirect is followed: urllib would send the key along to the new address."""
    if not url.startswith(("http://", "https://")):
        return None
    data, headers = None, _headers(settings)
    if body is not None:
        data, headers = json.dumps(body).encode(), {**headers, "content-type": "application/json"}
    try:  # no redirect followed: urllib would send the key along to the new address
        with web.send(url, data, headers=headers, timeout=timeout) as response:
            raw, cut = web.read(response, LISTING_CAP)
        return None if cut else boundary.loads(raw)
    except (urllib.error.URLError, OSError, ValueError, RecursionError):
        return None


def listing(settings: ProviderSettings, timeout: float) -> list | None:
    """The entries of the server's model listing (GET {base}/models)."""
    url = settings.base_url.rstrip("/") + "/models" + (f"?limit={LIMIT}" if settings.kind == "anthropic" else "")
    body = fetch_json(settings, url, timeout)
    data = body.get("data") if isinstance(body, dict) else body if isinstance(body, list) else None
    return data if isinstance(data, list) else None


def list_models(settings: ProviderSettings, timeout: float = 3.0) -> list[str] | None:
    """The model ids the server lists, sorted; None when it has no such endpoint or does not answer in time."""
    data = listing(settings, timeout)
    if data is None:
        return None
    ids = {str(item["id"]) for item in data if isinstance(item, dict) and isinstance(item.get("id"), (str, int))}
    return sorted(ids)


def _listening(url: str, timeout: float) -> bool:
    """Whether something accepts a connection at the URL's host and port."""
    import socket
    parts = urllib.parse.urlsplit(url)
    try:
        with socket.create_connection((parts.hostname, parts.port or 80), timeout=timeout):
            return True
    except (OSError, ValueError):
        return False


def probe(servers=LOCAL_SERVERS, budget: float = PROBE_BUDGET) -> tuple[LocalServer, list[str]] | None:
    """The first server (in the given order) that lists its models within the budget, with its models."""
    found: dict[int, list[str]] = {}

    def ask(index: int, server: LocalServer) -> None:
        if not _listening(server.base_url, budget):  # nothing there: no need to load the HTTP stack (and ssl)
            return
        models = list_models(ProviderSettings(server.preset, "openai", server.base_url, ""), timeout=budget)
        if models is not None:
            found[index] = models

    threads = [threading.Thread(target=ask, args=(i, s), daemon=True) for i, s in enumerate(servers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(budget)
    for index, server in enumerate(servers):
        if index in found:
            return server, found[index]
    return None
