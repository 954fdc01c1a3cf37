"""Decision mode's questions and answers: lettered options, probabilities from log-probabilities, chunks whose
winners meet, and the fallback to the lexical ranking with its reason."""

import math

from ankit.discovery.catalog import build_catalog
from ankit.discovery.decision import CHUNK, NONE, decide, probabilities, question
from ankit.discovery.index import Index
from ankit.tooling.tool import Tool


def tool(name: str, description: str, group: str) -> Tool:
    return Tool(name, description, {"type": "object", "properties": {}}, lambda args, ctx: "", group=group)


class ScriptedChooser:
    """A model that favours the option whose line holds `wanted` (or answers Z, or gives no log-probabilities)."""

    def __init__(self, wanted: str = "", none: bool = False, why: str = ""):
        self.wanted, self.none, self.why, self.asked = wanted, none, why, []

    def choose(self, system: str, text: str) -> dict[str, float] | str:
        self.asked.append(text)
        if self.why:
            return self.why
        if self.none:
            return {NONE: -0.05, "A": -3.5}
        lines = [line for line in text.splitlines() if line[:2].rstrip(".").isalpha() and line[1:2] == "."]
        letter = next((line[0] for line in lines if self.wanted in line), "A")
        return {letter: math.log(0.9), "A" if letter != "A" else "B": math.log(0.08), "x": -0.01}


def catalog_index(count: int) -> Index:
    tools = [tool(f"file_tool_{i}", f"Read file number {i} from the disk.", "files") for i in range(count)]
    tools.append(tool("port_owner", "Show which process listens on a network port (read a file of sockets).", "net"))
    catalog, _ = build_catalog(tools, {})
    return Index(catalog, tools)


def test_the_question_letters_each_option_and_offers_none():
    text = question("who  listens\non port 80?", [("port_owner", "Show who listens. More text."), ("kill", "Stop it.")])
    assert text.startswith('A user asked an assistant: "who listens on port 80?"')
    assert "\nA. port_owner: Show who listens\nB. kill: Stop it\nZ. No tool in this list fits." in text


def test_probabilities_count_only_the_letters_the_question_allows():
    shares = probabilities({"A": math.log(0.6), "B": math.log(0.2), "Q": math.log(0.1), "Z": math.log(0.2)}, 2)
    assert set(shares) == {"A", "B", "Z"} and math.isclose(sum(shares.values()), 1.0)
    assert math.isclose(shares["A"], 0.6) and probabilities({"Q": 0.0}, 2) == {}


def test_the_model_s_choice_ranks_and_large_sets_meet_in_a_final_question():
    index = catalog_index(30)
    chooser = ScriptedChooser("port_owner")
    decision = decide(index, "read the file of sockets for a port", chooser)
    assert decision.mode == "decision" and decision.ranked[0][0] == "port_owner"
    assert all(p >= 0.05 for _, p in decision.ranked)
    assert len(chooser.asked) == 3  # two chunks of CHUNK, then their winners
    assert all(text.count("\n") <= CHUNK + 6 for text in chooser.asked)


def test_none_fits_is_a_decision_with_no_tool():
    decision = decide(catalog_index(3), "read a file", ScriptedChooser(none=True))
    assert decision.mode == "decision" and decision.ranked == [] and decision.none > 0.9


def test_without_log_probabilities_the_words_stand_and_say_why():
    decision = decide(catalog_index(3), "read a file", ScriptedChooser(why="the model's server returned none"))
    assert decision.mode == "words" and decision.fallback_reason == "the model's server returned none"
    assert decide(catalog_index(3), "zzzz qqqq", ScriptedChooser()).fallback_reason.startswith("no tool matched")
