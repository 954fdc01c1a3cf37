"""A task call's live output while task calls run at once: held while another call's block is on screen, then
passed on in order once its own block is shown, so progress lines never land in another call's block."""

import threading
from collections.abc import Callable


class Relay:
    """Output for one call running on its own thread: held until go_live(), passed straight on after."""

    def __init__(self, output: Callable[[str], None] | None):
        self.output, self.held, self.live = output, [], False
        self.lock = threading.Lock()

    def __call__(self, text: str) -> None:
        with self.lock:  # in order: a piece never overtakes the held ones being passed on
            if not self.live:
                self.held.append(text)
            elif self.output is not None:
                self.output(text)

    def go_live(self) -> None:
        """The call's own block is on screen now: what it said meanwhile, then everything as it comes."""
        with self.lock:
            held, self.held, self.live = self.held, [], True
            for text in held if self.output is not None else []:
                self.output(text)
