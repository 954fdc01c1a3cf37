"""Prompt-cache rewrites: which rounds wrote the cache anew, and why (a pure reading of round records)."""

from __future__ import annotations  # RoundRecord (usage.ledger, which imports this module) is only named

from datetime import datetime, timedelta

CACHE_TTL = 300.0  # seconds an unread prompt cache lives (Anthropic's default 5 minutes; OpenAI keeps it longer)


def _caches(records: list[RoundRecord]) -> bool:
    """Whether the provider reports prompt caching at all in these rounds."""
    return any(r.usage.cached_tokens or r.usage.cache_write_tokens for r in records)


def _seconds_between(previous: RoundRecord, record: RoundRecord) -> float | None:
    """Seconds from the end of one round to the start of the next, when both times are known."""
    try:
        start = datetime.fromisoformat(record.at) - timedelta(seconds=record.duration)
        return (start - datetime.fromisoformat(previous.at)).total_seconds()
    except (TypeError, ValueError):
        return None


def rewrite_reason(record: RoundRecord, previous: RoundRecord | None) -> str:
    """Why this round wrote the cache anew ("" when it read what the round before had cached).

    A rewrite is a round that reads less from the cache than the previous round had in it (read plus written).
    """
    usage = record.usage
    if not usage.reported:
        return ""
    if previous is None:
        return "first request" if usage.cache_write_tokens or not usage.cached_tokens else ""
    before = previous.usage
    if usage.cached_tokens >= before.cached_tokens + before.cache_write_tokens:
        return ""
    gap = _seconds_between(previous, record)
    if record.model != previous.model:
        return "model switch"
    if gap is not None and gap > CACHE_TTL:
        return "expiry"
    if previous.activated or record.groups_sent != previous.groups_sent:
        return "activation"
    return "prefix changed"


def rewrites(records: list[RoundRecord]) -> list[str]:
    """The rewrite reason of each round ("" for none); nothing is marked when the provider reports no caching."""
    if not _caches(records):
        return [""] * len(records)
    reasons, previous = [], None
    for record in records:
        reasons.append(rewrite_reason(record, previous))
        previous = record if record.usage.reported else previous  # a round without usage says nothing
    return reasons
