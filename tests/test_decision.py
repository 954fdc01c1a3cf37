"""Decision mode's questions and answers: lettered options in a seeded rotation, shares from log-probabilities or
from written letters, the first chunk standing when clear, the rest asked side by side, the groups question after
"none fits", a model answering by position caught, and the words kept with their reason."""

import math
import threading

from ankit.discovery.catalog import build_catalog
from ankit.discovery.decision import (CANDIDATES, LETTERS, NONE, Said, decide, question, rotation, shares,
                                      written)
from ankit.discovery.index import Index
from ankit.tooling.tool import Tool


def tool(name: str, description: str, group: str) -> Tool:
    return Tool(name, description, {"type": "object", "properties": {}}, lambda args, ctx: "", group=group)


def options_of(text: str) -> dict[str, str]:
    """The question's options: letter -> tool name."""
    return {line[0]: line[3:].split(":")[0] for line in text.splitlines() if line[1:3] == ". " and line[0] != NONE}


class ScriptedChooser:
    """A model that writes the letters of the options holding `wanted` (best first), or Z; with `probs`, it
    gives log-probabilities too; `always` answers that letter whatever the options."""

    def __init__(self, wanted: list[str] = (), probs: list[float] = (), always: str = "", groups: str = ""):
        self.wanted, self.probs, self.always, self.groups = list(wanted), list(probs), always, groups
        self.asked: list[str] = []
        self.lock = threading.Lock()

    def choose(self, system: str, text: str) -> Said | str:
        with self.lock:
            self.asked.append(text)
        options = options_of(text)
        if self.always:
            return Said({}, self.always, 100)
        names = self.wanted if "tool group fits" not in text else [self.groups]
        found = [letter for name in names for letter, option in options.items() if option == name]
        said = ", ".join(found) or NONE
        if not self.probs:
            return Said({}, said, 100)
        tops = {letter: math.log(p) for letter, p in zip(found or [NONE], self.probs)}
        return Said(tops, said, 100)


def catalog_index(count: int) -> Index:
    tools = [tool(f"file_tool_{i}", f"Read file number {i} from the disk.", "files") for i in range(count)]
    tools.append(tool("port_owner", "Show which process listens on a network port (read a file of sockets).", "net"))
    tools.append(tool("send_mail", "Send an email message to someone.", "mail"))
    catalog, _ = build_catalog(tools, {})
    return Index(catalog, tools)


def test_the_question_letters_each_option_and_asks_for_up_to_three_letters():
    text = question("who  listens\non port 80?", [("port_owner", "Show who listens. More text."), ("kill", "Stop it.")])
    assert text.startswith('A user asked an assistant: "who listens on port 80?"')
    assert "\nA. port_owner: Show who listens\nB. kill: Stop it\nZ. No tool in this list fits." in text
    assert text.endswith('Answer with up to three letters, best first (for example "C, A"), or Z alone.')


def test_the_rotation_is_seeded_by_the_request_and_keeps_every_option():
    names = [f"t{i}" for i in range(10)]
    turned = rotation("read a file", names)
    assert sorted(turned) == names and turned == rotation("read  a file", names)
    starts = {rotation(f"request number {i}", names)[0] for i in range(40)}
    assert len(starts) >= 6  # the words' first is A for about one request in ten
    assert rotation("read a file", names, 1)[0] == turned[5]  # another turn: half way round


def test_written_letters_count_in_order_up_to_three_and_stop_at_none():
    assert written("C, A", 5) == ["C", "A"] and written("B then D, E, A", 5) == ["B", "D", "E"]
    assert written("Z", 5) == ["Z"] and written("B, Z, A", 5) == ["B", "Z"]
    assert written("I think Q", 5) == [] and written("a, b", 5) == []  # Q is no option; lower case is no letter
    assert written("I think A tool fits: **C**, then A", 10) == ["C", "A"]  # "I think", "A tool" are words


def test_shares_come_from_log_probabilities_where_there_are_any_else_from_the_letters_places():
    found, source = shares(Said({"B": math.log(0.6), " A": math.log(0.2), "Q": -1.0, "Z": math.log(0.2)}, "B"), 2)
    assert source == "logprobs" and set(found) == {"A", "B", "Z"} and math.isclose(found["B"], 0.6)
    found, source = shares(Said({}, "C, A"), 3)
    assert source == "letters" and math.isclose(found["C"], 2 / 3) and math.isclose(found["A"], 1 / 3)
    assert shares(Said({"The": -0.1}, "Sure!"), 3) == ({}, "")


def test_a_first_chunk_whose_best_answer_is_a_tool_stands_alone_and_one_saying_none_does_not():
    close = ScriptedChooser(["file_tool_1", "file_tool_2"], [0.45, 0.4])
    assert decide(catalog_index(30), "read file number 1 or 2 from the disk", close).questions == 1  # MARGIN: 0
    unsure = ScriptedChooser([], [0.6])  # Z first
    decision = decide(catalog_index(30), "read file number 1 or 2 from the disk", unsure)
    assert len(unsure.asked) == 3 and decision.rounds == 3  # the second chunk, then the groups


def test_a_clear_first_chunk_stands_alone():
    chooser = ScriptedChooser(["file_tool_3"], [0.9])
    decision = decide(catalog_index(30), "read file number 3 from the disk", chooser)
    assert decision.mode == "decision" and decision.ranked[0][0] == "file_tool_3" and decision.source == "logprobs"
    assert decision.questions == len(chooser.asked) == 1 and decision.tokens == 100
    assert len(decision.candidates) == CANDIDATES


def test_an_unclear_first_chunk_asks_the_others_side_by_side_and_their_winners_meet():
    class Together(ScriptedChooser):
        """Answers the later chunks only once all of them are asked at once."""

        def __init__(self):
            super().__init__(["port_owner", *(f"file_tool_{i}" for i in range(30))])
            self.barrier = threading.Barrier(3, timeout=5)

        def choose(self, system, text):
            if len(self.asked) >= 1 and "tool group" not in text and len(options_of(text)) == 5:
                self.barrier.wait()  # raises BrokenBarrierError unless three questions are asked together
            return super().choose(system, text)

    chooser = Together()
    decision = decide(catalog_index(30), "read the file of sockets for a port", chooser, chunk=5,
                      margin={"letters": 0.5})  # three letters written: 4/7 leads 2/7 by less
    assert len(chooser.asked) == 5 and decision.mode == "decision"  # 1, then 3 at once, then their winners
    assert decision.rounds == 3
    assert len(options_of(chooser.asked[-1])) == 8 and decision.ranked[0][0] == "port_owner"
    assert decision.questions == len(chooser.asked)


def test_a_first_chunk_with_a_close_second_is_not_clear_but_its_ranking_stands_when_the_rest_say_none():
    chooser = ScriptedChooser(["file_tool_1", "file_tool_2"], [0.5, 0.4])  # the rest answer Z
    decision = decide(catalog_index(30), "read file number 1 or 2 from the disk", chooser, margin={"logprobs": 0.2})
    assert len(chooser.asked) == 2 and [n for n, _ in decision.ranked[:2]] == ["file_tool_1", "file_tool_2"]


def test_written_letters_rank_by_their_order():
    chooser = ScriptedChooser(["file_tool_2", "file_tool_4"])
    decision = decide(catalog_index(5), "read file number 2 from the disk", chooser)
    assert decision.source == "letters" and [n for n, _ in decision.ranked] == ["file_tool_2", "file_tool_4"]


def test_none_fits_asks_which_group_and_says_what_was_asked():
    chooser = ScriptedChooser(groups="mail")
    decision = decide(catalog_index(3), "read a file", chooser)
    assert decision.mode == "decision" and decision.ranked == [] and decision.group == "mail"
    assert "Which tool group fits best?" in chooser.asked[-1] and "mail: Send an email" in chooser.asked[-1]
    assert decision.asked == ["which of the words' top 4 tools fits",
                              "none fit; then which of 3 tool groups fits: mail"]


def test_a_model_answering_a_always_is_caught_by_two_rotations_and_the_words_stand():
    index = catalog_index(30)
    chooser = ScriptedChooser(always="A")
    decision = decide(index, "read file number 3 from the disk", chooser, probe=True)
    assert decision.mode == "words" and decision.biased and len(chooser.asked) == 2
    assert decision.fallback_reason.startswith("the model answered A whatever the options' order")
    first, second = (options_of(text)["A"] for text in chooser.asked)
    assert first != second  # the same letter named two different tools
    honest = ScriptedChooser(["file_tool_3"], [0.9])
    assert decide(index, "read file number 3 from the disk", honest, probe=True).ranked[0][0] == "file_tool_3"


def test_a_model_answering_a_always_gets_no_say_over_the_words_first_place():
    index = catalog_index(30)
    picked = [decide(index, f"read file number {i} from the disk", ScriptedChooser(always="A")).ranked[0][0]
              for i in range(12)]
    words = [index.rank_tools(f"read file number {i} from the disk", 1)[0][0] for i in range(12)]
    assert sum(p == w for p, w in zip(picked, words)) <= 4  # without rotation all 12 would agree


def test_a_failed_question_keeps_the_words_and_says_why():
    class Failing:
        def choose(self, system, text):
            return "the question failed: 500 from the server"

    decision = decide(catalog_index(3), "read a file", Failing())
    assert decision.mode == "words" and decision.fallback_reason == "the question failed: 500 from the server"
    assert decide(catalog_index(3), "zzzz qqqq", Failing()).fallback_reason.startswith("no tool matched")
    assert LETTERS[:3] == "ABC"
