"""Model prices: the packaged price list, config overrides, lookup by model id, and cost of a usage."""

import json
import pkgutil
import re
from dataclasses import dataclass
from pathlib import Path

from ankit.errors import ConfigError
from ankit.records import Usage

PRICES_FILE = Path(__file__).with_name("prices.json")  # read through pkgutil, which also reads it inside ankit.pyz
LOCAL_PRESETS = ("local", "ollama")  # servers on the user's machine: no list price applies
FIELDS = ("input", "cached", "cache_write", "output")
# Anthropic bills a 5-minute cache write at 1.25x the input price; an override that names
# no cache_write price for a Claude model gets that, any other model gets the input price.
ANTHROPIC_WRITE_FACTOR = 1.25
# What may follow a listed id in a longer model id and still be the same model: a snapshot date
# ("-20250929", "-2025-04-14"), "-latest", a Bedrock version ("-v1:0"), a Vertex "@date", a tag
# (":free", ":beta") or a context marker ("[1m]"). "gpt-5-pro" is not "gpt-5": it stays unpriced.
SNAPSHOT = re.compile(r"(?:-\d{8}|-\d{4}-\d{2}-\d{2}|-latest|-v\d+(?::\d+)?|@[\w.-]+|:[\w.-]+|\[\w+\])+")


@dataclass(frozen=True)
class Price:
    """USD per million tokens; `long` applies to a whole round whose prompt exceeds `long_above`."""

    input: float
    cached: float
    cache_write: float
    output: float
    long_above: int | None = None
    long: "Price | None" = None


def load_prices(overrides: dict | None = None) -> dict:
    """The packaged price list merged with config overrides: {model id: {input, cached, cache_write, output}}."""
    data = json.loads(pkgutil.get_data(__package__, PRICES_FILE.name).decode("utf-8"))
    prices = {key.lower(): dict(entry) for key, entry in data["models"].items()}
    for model, entry in (overrides or {}).items():
        if not isinstance(entry, dict):
            raise ConfigError(f'prices."{model}" must be a table like input = 3.0, output = 15.0')
        merged = {**prices.get(model.lower(), {}), **entry}
        prices[model.lower()] = {**_complete(model, merged), "configured": True}
    return prices


def _complete(model: str, entry: dict) -> dict:
    """Check an overridden entry and fill the cache prices it leaves out."""
    for name in ("input", "output"):
        if name not in entry:
            raise ConfigError(f'prices."{model}" needs {name} = <USD per million tokens>')
    for name in FIELDS:
        value = entry.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0):
            raise ConfigError(f'prices."{model}".{name} must be a number >= 0 (USD per million tokens)')
    entry.setdefault("cached", entry["input"])  # no discount assumed when none is given
    factor = ANTHROPIC_WRITE_FACTOR if "claude" in model.lower() else 1.0
    entry.setdefault("cache_write", entry["input"] * factor)
    return entry


def price_for(model: str, prices: dict, provider: str = "") -> Price | None:
    """The price of a model id: exact match first, then the longest listed id it starts with.

    A model on a local server (presets local and ollama) is priced only by the config's own [prices] tables:
    a local model called gpt-4o costs nothing at OpenAI's rates.
    """
    wanted = model.lower().strip()
    key = wanted if wanted in prices else _longest_prefix(wanted, prices)
    if key is None or (provider in LOCAL_PRESETS and not prices[key].get("configured")):
        return None
    if wanted.endswith(":free") and key != wanted:  # OpenRouter's free variants bill nothing
        return Price(0.0, 0.0, 0.0, 0.0)
    return _to_price(prices[key])


def _longest_prefix(model: str, prices: dict) -> str | None:
    """The longest listed id that `model` starts with, followed only by a snapshot suffix."""
    best = None
    for key in prices:
        if model.startswith(key) and SNAPSHOT.fullmatch(model, len(key)) and (best is None or len(key) > len(best)):
            best = key
    return best


def _to_price(entry: dict) -> Price:
    """A Price from one price-list entry (with its long-prompt tier, if any)."""
    long_entry = entry.get("long")
    long_price = _to_price(long_entry) if isinstance(long_entry, dict) else None
    return Price(
        float(entry["input"]),
        float(entry.get("cached", entry["input"])),
        float(entry.get("cache_write", entry["input"])),
        float(entry["output"]),
        int(long_entry["above"]) if long_price else None,
        long_price,
    )


def cost(usage: Usage, price: Price) -> float:
    """USD for one round: uncached input, cache reads, cache writes and output, each at its price."""
    if price.long is not None and price.long_above is not None and usage.input_tokens > price.long_above:
        price = price.long
    uncached = max(0, usage.input_tokens - usage.cached_tokens - usage.cache_write_tokens)
    total = (
        uncached * price.input
        + usage.cached_tokens * price.cached
        + usage.cache_write_tokens * price.cache_write
        + usage.output_tokens * price.output
    )
    return total / 1_000_000
