"""Token and cost accounting per round, turn and session, and the texts that show it."""

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from ankit.records import USAGE_FIELDS, RoundRecord, Usage
from ankit.safety.visible import clip, fit_lines, wrap_note
from ankit.usage.cache import rewrites
from ankit.usage.pricing import cost, price_for

def total(records: list[RoundRecord]) -> Usage:
    """The sum of the records' usage (rounds without a report add nothing)."""
    result = Usage()
    for record in records:
        result = result.add(record.usage)
    return result


class Ledger:
    """The rounds of one session, in order."""

    def __init__(self, rounds: list[RoundRecord] | None = None):
        self.rounds: list[RoundRecord] = list(rounds or [])

    def add(self, record: RoundRecord) -> None:
        """Record one finished round."""
        self.rounds.append(record)

    def turn_rounds(self, turn: int | None = None) -> list[RoundRecord]:
        """The rounds of one turn (the last turn by default)."""
        if turn is None:
            turn = self.rounds[-1].turn if self.rounds else None
        return [r for r in self.rounds if r.turn == turn]


def cost_cell(records: list[RoundRecord], prices: dict) -> tuple[str, list[str]]:
    """Estimated cost of the rounds, priced one by one, and the models that have no price.

    The text is "$x" when every model is priced, "price unknown" when none is, and "$x + ?" when some are.
    """
    amount, unknown, priced = 0.0, [], False
    for record in records:
        price = price_for(record.model, prices, record.provider)
        if price is None:
            if record.usage.reported and record.model not in unknown:
                unknown.append(record.model)
        elif record.usage.reported:
            amount, priced = amount + cost(record.usage, price), True
    if not unknown:
        return (money(amount) if priced or not records else "n/a"), []
    return (f"{money(amount)} + ?" if priced else "price unknown"), unknown


def unknown_note(models: list[str]) -> list[str]:
    """The footnote for models without a price (none when the list is empty)."""
    if not models:
        return []
    names = ", ".join(dict.fromkeys(models))
    example = f'[prices."{models[0]}"] input = …, output = …'
    return [f"? price unknown for {names} (not counted): add {example} to the config"]


def money(amount: float) -> str:
    """Dollars: four decimals below $1, two above."""
    return f"${amount:.4f}" if amount < 1 else f"${amount:,.2f}"


def number(value: int) -> str:
    """An exact count with thousands separators."""
    return f"{value:,}"


def compact(value: int) -> str:
    """A short count for the status line: 412, 12.3k, 1.25M."""
    if value < 1000:
        return str(value)
    if value < 999_950:
        return f"{value / 1000:.1f}k"
    return f"{value / 1_000_000:.2f}M"


def table(headers: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    """Aligned plain-text columns; columns whose index is in `right` are right-aligned."""
    widths = [max(len(cell) for cell in column) for column in zip(headers, *rows)]
    lines = []
    for cells in [headers, *rows]:
        parts = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))]
        lines.append("  ".join(parts).rstrip())
    return lines


def _figures(records: list[RoundRecord]) -> list[str]:
    """Rounds, input, cached, cache writes, output of some rounds; "n/a" where none reported usage."""
    reported = [r for r in records if r.usage.reported]
    if records and not reported:
        return [str(len(records))] + ["n/a"] * 4
    usage = total(reported)
    return [str(len(records))] + [number(getattr(usage, name)) for name in USAGE_FIELDS]


ROUNDS_SHOWN = 10  # the round table shows the last rounds; /usage all shows every one


def render_usage(ledger: Ledger, prices: dict, width: int = 0, every: bool = False) -> str:
    """The /usage text: last turn and session totals, then one row per round (the last 10 unless every).

    Table lines are cut to the width, notes wrapped at spaces (width 0: no limit).
    """
    if not ledger.rounds:
        return "No rounds yet in this session."
    last, everything = ledger.turn_rounds(), ledger.rounds
    labels = ["rounds", "input tokens", "  cached (read)", "  cache writes", "output tokens"]
    (turn_cost, _), (session_cost, unknown) = cost_cell(last, prices), cost_cell(everything, prices)
    turn_col, session_col = _figures(last) + [turn_cost], _figures(everything) + [session_cost]
    rows = [[label, a, b] for label, a, b in zip([*labels, "estimated cost"], turn_col, session_col)]
    lines = table(["", f"last turn ({last[0].turn})", "session"], rows, {1, 2})
    missing = sum(1 for r in everything if not r.usage.reported)
    if missing:
        rounds = "1 round" if missing == 1 else f"{missing} rounds"
        lines.append(f"{rounds} without a usage report from the provider: shown as n/a, not counted.")
    lines = fit_lines(lines[:len(rows) + 1], width) + [n for line in lines[len(rows) + 1:] + unknown_note(unknown)
                                                        for n in wrap_note(line, width)]
    rounds = _round_table(everything)
    header, body, legend = rounds[0], rounds[1:len(everything) + 1], rounds[len(everything) + 1:]
    if not every and len(body) > ROUNDS_SHOWN:
        hidden = len(body) - ROUNDS_SHOWN
        body = [f"… {hidden} earlier round{'' if hidden == 1 else 's'} (/usage all)", *body[hidden:]]
    legend = [n for line in legend for n in wrap_note(line, width)]
    return "\n".join([*lines, "", *fit_lines([header, *body], width), *legend])


def subagent_lines(runs: list[tuple[str, list[RoundRecord]]], prices: dict, width: int = 0,
                   head: str = "subagent") -> list[str]:
    """/usage's subagent table (or another table of requests beside the turns, under `head`): one row per run
    (its label, rounds, tokens and cost); [] for none."""
    if not runs:
        return []
    rows = []
    for label, records in runs:
        figures = _figures(records)
        rows.append([label, figures[0], figures[1], figures[4], cost_cell(records, prices)[0]])
    return fit_lines(table([head, "rounds", "input", "output", "cost"], rows, {1, 2, 3, 4}), width)


def _groups(names: list[str], limit: int = 3) -> str:
    """A short group list: up to `limit` names, then "+N"."""
    if not names:
        return "-"
    shown = ", ".join(names[:limit])
    return shown if len(names) <= limit else f"{shown} +{len(names) - limit}"


def _round_table(records: list[RoundRecord]) -> list[str]:
    """One row per round, with the activation and miss markers and their legend."""
    many_models = len({r.model for r in records}) > 1
    headers = ["round", "prompt", "cached", "writes", "output", "schema", "sent", "held", "note"]
    if many_models:
        headers.insert(1, "model")
    rows, marks = [], set()
    for record, reason in zip(records, rewrites(records)):
        usage = record.usage
        counts = [getattr(usage, n) for n in USAGE_FIELDS]
        cells = [number(c) if usage.reported else "n/a" for c in counts]
        note = " ".join(f"+{g}" for g in record.activated)
        if record.code_calls:
            note = f"{note} run_code: {record.code_calls} call{'' if record.code_calls == 1 else 's'}".strip()
        if reason:
            note = f"! rewrite: {reason} {note}".rstrip()
            marks.add("rewrite")
        marks.update({"activated"} if record.activated else set())
        row = [f"{record.turn}.{record.round}", *cells, number(record.schema_bytes),
               _groups(record.groups_sent), _groups(record.groups_held), note]
        rows.append(row[:1] + [record.model] + row[1:] if many_models else row)
    first = 2 if many_models else 1
    lines = table(headers, rows, set(range(first, first + 5)))
    if "activated" in marks:
        lines.append("+group: activated by that round's tool calls (sent from the next round on)")
    if "rewrite" in marks:
        lines.append("! rewrite: the prompt cache was written anew (read less than the round before had cached), "
                     "and why")
    return lines


def status_line(records: list[RoundRecord], seconds: float) -> str:
    """The dim line after a reply: seconds, model, tokens in and out, cached share."""
    parts = [f"{seconds:.1f}s"]
    if records:
        parts.append(records[-1].model)
    reported = [r for r in records if r.usage.reported]
    if not reported:
        return " · ".join([*parts, "usage n/a"])
    usage = total(reported)
    share = round(100 * usage.cached_tokens / usage.input_tokens) if usage.input_tokens else 0
    cache = f"{share}% cached"
    if usage.cache_write_tokens:
        cache += f", {compact(usage.cache_write_tokens)} written"
    parts += [f"{compact(usage.input_tokens)} in ({cache})", f"{compact(usage.output_tokens)} out"]
    return " · ".join(parts)


def _local(text: str, fallback: str, now: datetime) -> datetime | None:
    """A stored timestamp in the same clock as `now` (aware or naive), or None when unreadable."""
    for candidate in (text, fallback):
        try:
            when = datetime.fromisoformat(candidate)
        except (TypeError, ValueError):
            continue
        if now.tzinfo is None:
            return when.astimezone().replace(tzinfo=None) if when.tzinfo else when
        return when.astimezone(now.tzinfo) if when.tzinfo else when.replace(tzinfo=now.tzinfo)
    return None


def usage_summary(store, prices: dict, now: datetime, width: int = 0) -> str:
    """`ankit usage`: totals over the saved sessions of a store for today, the last 7 days, all time, and by model."""
    sessions, sessions_dir = store.load_all(), store.folder
    periods: dict[str, list[RoundRecord]] = {"today": [], "last 7 days": [], "all time": []}
    models: dict[str, list[RoundRecord]] = {}
    for session in sessions:
        for record in [*session.rounds, *(r for run in session.subagents for r in run.rounds)]:  # subagents' too
            when = _local(record.at, session.created, now)
            day = when.date() if when else None
            periods["all time"].append(record)
            if day is not None and now.date() - timedelta(days=6) <= day <= now.date():
                periods["last 7 days"].append(record)
                if day == now.date():
                    periods["today"].append(record)
            models.setdefault(record.model, []).append(record)
    head = f"{len(sessions)} saved session{'' if len(sessions) == 1 else 's'} in {sessions_dir}"
    if not models:
        return f"{head}: no usage recorded yet."
    columns = ["rounds", "input", "cached", "cache writes", "output", "estimated cost"]
    period_rows = [[name, *_figures(rs), cost_cell(rs, prices)[0]] for name, rs in periods.items()]
    model_rows = [[clip(name, 32), *_figures(rs), cost_cell(rs, prices)[0]] for name, rs in sorted(models.items())]
    lines = table(["period", *columns], period_rows, set(range(1, 7)))
    lines += [""] + table(["model", *columns], model_rows, set(range(1, 7)))
    lines = fit_lines(lines + [""] + cache_table(sessions), width)
    missing = sum(1 for r in periods["all time"] if not r.usage.reported)
    lines += wrap_note(f"{missing} of the rounds had no usage report from the provider: not counted.", width) if missing else []
    notes = [n for line in unknown_note(cost_cell(periods["all time"], prices)[1]) for n in wrap_note(line, width)]
    return "\n".join([*wrap_note(head, width), "", *lines, *notes])


SESSIONS_SHOWN = 10


def cache_table(sessions: list) -> list[str]:
    """The newest sessions with the share of their input read from the cache and their rewrites, with reasons."""
    rows = []
    for session in sorted(sessions, key=lambda s: s.id, reverse=True)[:SESSIONS_SHOWN]:
        usage = total([r for r in session.rounds if r.usage.reported])
        share = f"{100 * usage.cached_tokens / usage.input_tokens:.0f}%" if usage.input_tokens else "n/a"
        reasons = [reason for reason in rewrites(session.rounds) if reason]
        counted = ", ".join(f"{reasons.count(r)} {r}" for r in dict.fromkeys(reasons)) or "-"
        rows.append([session.id, str(len(session.rounds)), number(usage.input_tokens), share, counted])
    shown = f" (newest {SESSIONS_SHOWN})" if len(sessions) > SESSIONS_SHOWN else ""
    return table([f"session{shown}", "rounds", "input", "read from cache", "cache rewrites"], rows, {1, 2, 3})
