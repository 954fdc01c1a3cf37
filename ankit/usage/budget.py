"""max_cost: what a session has spent, and whether the next request may go."""

from dataclasses import dataclass, field

from ankit.errors import BudgetError
from ankit.usage.ledger import RoundRecord, money
from ankit.usage.pricing import cost, price_for
from ankit.records import Usage


def spent(records: list[RoundRecord], prices: dict) -> float | None:
    """USD the rounds cost; None when a round that reported usage has no price."""
    amount = 0.0
    for record in records:
        if not record.usage.reported:
            continue
        price = price_for(record.model, prices)
        if price is None:
            return None
        amount += cost(record.usage, price)
    return amount


@dataclass
class Budget:
    """A cap in USD per session (0: none), checked before each request."""

    cap: float
    prices: dict
    told: set = field(default_factory=set)  # models already said to have no price

    def check(self, model: str, records: list[RoundRecord], prompt_tokens: int) -> str:
        """Raise BudgetError when the next request's input would pass the cap; return a notice or ""."""
        if self.cap <= 0:
            return ""
        price = price_for(model, self.prices)
        so_far = spent(records, self.prices)
        if price is None or so_far is None:
            if model in self.told:
                return ""
            self.told.add(model)
            return f"max_cost {money(self.cap)} cannot be checked: no price for {model} (add one under [prices])"
        expected = cost(Usage(input_tokens=prompt_tokens, reported=True), price)
        if so_far + expected > self.cap:
            raise BudgetError(f"stopped by max_cost {money(self.cap)}: this session has spent {money(so_far)} and the "
                              f"next request would add about {money(expected)}; raise --max-cost or max_cost to go on")
        return ""

    def line(self, records: list[RoundRecord]) -> str:
        """The /usage line: the cap and what is spent."""
        if self.cap <= 0:
            return "max_cost: none (set max_cost in the config or --max-cost)"
        so_far = spent(records, self.prices)
        shown = "unknown (a model has no price)" if so_far is None else money(so_far)
        return f"max_cost: {money(self.cap)} per session, spent {shown}"
