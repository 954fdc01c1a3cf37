"""The model answering a `"type": "prompt"` hook (hooks/events.py hands the question through the Judge seam):
one request without tools, the event's JSON scrubbed of the secrets ankit knows, the answer read by the hooks."""

import threading
from dataclasses import dataclass, field

from ankit.protocols import Provider
from ankit.records import Message, Request, RoundRecord, TextDelta
from ankit.safety.scrub import Scrubber
from ankit.usage.meter import Meter

SYSTEM = ("You evaluate a hook in a coding assistant. Read the condition and the event's JSON, and answer with "
          'JSON only: {"ok": true} when the condition holds, or {"ok": false, "reason": "why, for the assistant"}.')
MAX_TOKENS = 1_000


@dataclass
class ModelJudge:
    """Asks the session's provider; an answer that does not arrive within the hook's timeout is none."""

    provider: Provider
    scrub: Scrubber
    meter: Meter = field(default_factory=Meter)  # the session's: max_cost checked, the request counted
    rounds: list[RoundRecord] = field(default_factory=list)  # one per hook answered, for /usage

    def __call__(self, prompt: str, timeout: float) -> str:
        request = Request(SYSTEM, [Message("user", self.scrub.text(prompt))], [], max_tokens=MAX_TOKENS)
        pieces: list[str] = []
        failed: list[BaseException] = []

        def ask() -> None:
            try:
                pieces.extend(e.text for e in self.meter.stream(self.provider, request, into=self.rounds) if isinstance(e, TextDelta))
            except Exception as exc:  # handed to the caller as the hook's failure
                failed.append(exc)

        worker = threading.Thread(target=ask, daemon=True, name="ankit-prompt-hook")
        worker.start()
        worker.join(timeout)
        if worker.is_alive():
            raise TimeoutError(f"no answer within {timeout:g} s")
        if failed:
            raise failed[0]
        return "".join(pieces)
