"""max_cost: the spend so far plus the next request's expected input, against the cap."""

import pytest

from ankit.errors import BudgetError
from ankit.records import Usage
from ankit.usage.budget import Budget, spent
from ankit.usage.ledger import RoundRecord

PRICES = {"m": {"input": 10.0, "cached": 1.0, "cache_write": 10.0, "output": 30.0}}


def rounds(*usages: Usage, model: str = "m") -> list[RoundRecord]:
    return [RoundRecord(1, i + 1, "p", model, u, 0, [], [], 0.0) for i, u in enumerate(usages)]


def test_spent_prices_each_round_and_is_none_when_a_model_has_no_price():
    done = rounds(Usage(100_000, 50_000, 0, 10_000, True))
    assert spent(done, PRICES) == pytest.approx(0.5 + 0.05 + 0.3)
    assert spent(rounds(Usage(1, 0, 0, 1, True), model="x"), PRICES) is None
    assert spent(rounds(Usage(), model="x"), PRICES) == 0.0  # no usage reported: nothing to price


def test_the_request_that_would_pass_the_cap_is_stopped_with_one_line():
    budget = Budget(1.0, PRICES)
    done = rounds(Usage(50_000, 0, 0, 10_000, True))  # $0.80
    assert budget.check("m", done, 10_000) == ""  # + $0.10
    with pytest.raises(BudgetError) as info:
        budget.check("m", done, 30_000)  # + $0.30
    assert str(info.value) == ("stopped by max_cost $1.00: this session has spent $0.8000 and the next request "
                               "would add about $0.3000; raise --max-cost or max_cost to go on")
    assert budget.line(done) == "max_cost: $1.00 per session, spent $0.8000"


def test_no_cap_checks_nothing_and_an_unknown_price_is_told_once():
    assert Budget(0, PRICES).check("m", rounds(Usage(10**9, 0, 0, 0, True)), 10**9) == ""
    budget = Budget(1.0, PRICES)
    assert "cannot be checked: no price for other" in budget.check("other", [], 10)
    assert budget.check("other", [], 10) == ""
