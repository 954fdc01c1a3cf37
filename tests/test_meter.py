"""The one metered call to the model (usage/meter.py): max_cost checked before a request is sent, its cost after."""

import pytest

from ankit.errors import BudgetError
from ankit.records import Message, Notice, Request, TextDelta, Usage
from ankit.usage.budget import Budget
from ankit.usage.meter import Meter, estimate
from tests.scripted import ScriptedProvider, text

PRICES = {"scripted-model": {"input": 1_000_000, "output": 0}}  # a dollar a token: any request is a lot


def request(words: str = "hello") -> Request:
    return Request("You are terse.", [Message("user", words)], [])


def test_a_request_is_recorded_for_its_caller_and_the_budget():
    provider, mine = ScriptedProvider([text("hi", Usage(7, 0, 0, 2, True))]), []
    meter = Meter()
    assert "".join(e.text for e in meter.stream(provider, request(), into=mine) if isinstance(e, TextDelta)) == "hi"
    assert mine == meter.paid and mine[0].usage.input_tokens == 7 and mine[0].model == "scripted-model"


def test_past_max_cost_nothing_is_sent():
    provider = ScriptedProvider([text("hi")])
    meter = Meter(Budget(0.5, PRICES))
    with pytest.raises(BudgetError, match="stopped by max_cost"):
        list(meter.stream(provider, request()))
    assert provider.requests == [] and meter.paid == []


def test_a_model_without_a_price_is_said_once_as_a_notice():
    meter, provider = Meter(Budget(0.5, {})), ScriptedProvider([text("a"), text("b")])
    first = list(meter.stream(provider, request()))
    assert isinstance(first[0], Notice) and "cannot be checked: no price for scripted-model" in first[0].text
    assert not any(isinstance(e, Notice) for e in meter.stream(provider, request()))


def test_a_new_session_starts_with_nothing_spent():
    meter = Meter(Budget(1e9, PRICES))
    list(meter.stream(ScriptedProvider([text("hi", Usage(3, 0, 0, 1, True))]), request()))
    assert meter.line().endswith("spent $3.00")
    meter.restart()
    assert meter.paid == [] and meter.line().endswith("spent $0.0000")
    assert estimate(request("x" * 400)) >= 100
