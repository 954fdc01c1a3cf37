"""Prices: the packaged list, config overrides, lookup by model id, and the cost of a round."""

import json

import pytest

from ankit.errors import ConfigError
from ankit.usage.pricing import PRICES_FILE, Price, cost, load_prices, price_for
from ankit.providers.presets import PRESETS
from ankit.records import Usage


@pytest.fixture(scope="module")
def prices():
    return load_prices()


def test_packaged_list_is_complete_and_sane():
    data = json.loads(PRICES_FILE.read_text())
    assert data["as_of"] and data["source"]["anthropic"] and data["source"]["openai"]
    for model, entry in data["models"].items():
        values = [entry[name] for name in ("input", "cached", "cache_write", "output")]
        assert all(isinstance(v, (int, float)) and v >= 0 for v in values), model
        assert entry["cached"] <= entry["input"] <= entry["output"], model
        if "long" in entry:
            assert entry["long"]["above"] > 0 and entry["long"]["input"] > entry["input"], model


def test_every_preset_default_model_has_a_price(prices):
    unpriced = [p.model for p in PRESETS.values() if p.key_required and price_for(p.model, prices) is None]
    assert unpriced == []


def test_exact_id(prices):
    assert price_for("claude-sonnet-5-5", prices) == Price(2.0, 0.1, 2.5, 10.0)
    assert price_for("GPT-4.1-Mini", prices) == Price(0.4, 0.1, 0.4, 1.6)


def test_snapshot_ids_find_their_model(prices):
    sonnet = price_for("claude-sonnet-4-5", prices)
    for model in ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5@20250929", "claude-sonnet-4-5[1m]",
                  "claude-sonnet-4-5-latest"):
        assert price_for(model, prices) == sonnet, model
    assert price_for("claude-sonnet-4-5-20250929", prices).input == 3.0


def test_longest_prefix_wins(prices):
    assert price_for("gpt-4o-mini-2024-07-18", prices) == price_for("gpt-4o-mini", prices)
    assert price_for("gpt-4o-2024-08-06", prices) == price_for("gpt-4o", prices)
    assert price_for("claude-sonnet-5-5-20261001", prices).cached == 0.1  # not claude-sonnet-5's 0.2


def test_a_different_model_sharing_a_prefix_is_not_guessed(prices):
    assert price_for("gpt-5-pro", prices) is None
    assert price_for("gpt-5.6-sol", prices) is None
    assert price_for("llama3.2", prices) is None
    assert price_for("", prices) is None


def test_openrouter_and_github_ids(prices):
    assert price_for("anthropic/claude-sonnet-4.5", prices) == price_for("claude-sonnet-4-5", prices)
    assert price_for("openai/gpt-4.1-mini", prices) == price_for("gpt-4.1-mini", prices)
    assert price_for("anthropic/claude-sonnet-4.5:free", prices) == Price(0.0, 0.0, 0.0, 0.0)


def test_override_merges_with_the_packaged_entry():
    prices = load_prices({"claude-sonnet-5-5": {"output": 12}})
    assert price_for("claude-sonnet-5-5", prices) == Price(2.0, 0.1, 2.5, 12.0)


def test_override_adds_a_model_and_fills_cache_prices():
    prices = load_prices({"llama3.2": {"input": 0, "output": 0}, "my-gpt": {"input": 1.0, "output": 4},
                          "claude-next": {"input": 4, "output": 20, "cached": 0.4}})
    assert price_for("llama3.2", prices) == Price(0.0, 0.0, 0.0, 0.0)
    assert price_for("my-gpt", prices) == Price(1.0, 1.0, 1.0, 4.0)  # no discount assumed
    assert price_for("claude-next", prices) == Price(4.0, 0.4, 5.0, 20.0)  # writes at 1.25x input


@pytest.mark.parametrize(("overrides", "message"), [
    ({"x": {"output": 1}}, 'prices."x" needs input = <USD per million tokens>'),
    ({"x": {"input": "cheap", "output": 1}}, 'prices."x".input must be a number >= 0 (USD per million tokens)'),
    ({"x": {"input": 1, "output": -1}}, 'prices."x".output must be a number >= 0 (USD per million tokens)'),
    ({"x": 3}, 'prices."x" must be a table like input = 3.0, output = 15.0'),
])
def test_bad_override_says_what_to_fix(overrides, message):
    with pytest.raises(ConfigError) as caught:
        load_prices(overrides)
    assert str(caught.value) == message


def test_cost_prices_each_part():
    price = Price(input=3.0, cached=0.3, cache_write=3.75, output=15.0)
    usage = Usage(input_tokens=12_000, cached_tokens=8_000, cache_write_tokens=3_000, output_tokens=500, reported=True)
    # uncached 1,000 x 3 + cached 8,000 x 0.3 + written 3,000 x 3.75 + output 500 x 15 = 24,150 per million
    assert cost(usage, price) == pytest.approx(0.02415, abs=1e-12)


def test_cost_never_counts_negative_uncached_input():
    usage = Usage(input_tokens=100, cached_tokens=80, cache_write_tokens=40, output_tokens=0, reported=True)
    assert cost(usage, Price(1.0, 0.1, 1.25, 5.0)) == pytest.approx((80 * 0.1 + 40 * 1.25) / 1e6)


def test_long_prompt_tier_applies_to_the_whole_round(prices):
    haiku = price_for("claude-haiku-5-5", prices)
    at_limit = Usage(100_000, 0, 0, 1_000, True)
    above = Usage(100_001, 1, 0, 1_000, True)
    assert cost(at_limit, haiku) == pytest.approx((100_000 * 0.1 + 1_000 * 0.5) / 1e6)
    assert cost(above, haiku) == pytest.approx((100_000 * 0.5 + 1 * 0.05 + 1_000 * 2.5) / 1e6)


def test_a_local_server_is_priced_only_by_the_config(prices):
    assert price_for("gpt-4o", prices, "openai") is not None
    assert price_for("gpt-4o", prices, "local") is None and price_for("gpt-4o-2024-08-06", prices, "ollama") is None
    configured = load_prices({"gpt-4o": {"input": 0, "cached": 0, "cache_write": 0, "output": 0}})
    assert price_for("gpt-4o", configured, "local") == Price(0.0, 0.0, 0.0, 0.0)
