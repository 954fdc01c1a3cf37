"""Prompt-cache rewrites read from round records: when a round wrote the cache anew, and why."""

import pytest

from ankit.usage.cache import rewrites
from ankit.usage.ledger import Ledger, render_usage
from tests.test_usage import prices, rec, used  # noqa: F401 (prices is a fixture)


def test_a_big_tool_result_after_activation_is_not_a_rewrite(prices):
    # The share falls because the new prompt is much longer, but everything cached before was read again.
    rounds = [rec(1, 1, used(5000, 4000, 1000, 50), activated=["git"]),
              rec(1, 2, used(40000, 5000, 35000, 80), sent=["core", "git"], held=["web"])]
    assert rewrites(rounds) == ["first request", ""]


@pytest.mark.parametrize("changes, reason", [
    ({}, "prefix changed"),  # /compact, a trimmed history: nothing else explains it
    ({"model": "claude-opus-5-5"}, "model switch"),
    ({"at": "2026-11-30T10:07:00+00:00"}, "expiry"),  # started 5.5 minutes after the round before ended
    ({"sent": ["core", "git"]}, "activation"),
])
def test_each_rewrite_says_why(changes, reason):
    rounds = [rec(1, 1, used(5000, 4000, 1000, 50)), rec(1, 2, used(6000, 0, 6000, 80), **changes)]
    assert rewrites(rounds) == ["first request", reason]


def test_nothing_is_marked_without_caching(prices):
    rounds = [rec(1, 1, used(5000, 0, 0, 50)), rec(1, 2, used(6000, 0, 0, 80), model="gpt-4.1-mini")]
    assert rewrites(rounds) == ["", ""] and "rewrite" not in render_usage(Ledger(rounds), prices)
