"""Benchmark: SSE parsing and whole-provider streaming over the loopback server. Prints figures; asserts nothing.

Run: python3 tests/bench/bench_providers.py
"""

import io
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from ankit.providers import make_provider  # noqa: E402
from ankit.records import Message, Request, TextDelta  # noqa: E402
from ankit.providers.sse import read_events  # noqa: E402
from conftest import ProviderServer, anthropic_sse, fixture_parts, openai_sse  # noqa: E402
from tests.test_sse import Trickle  # noqa: E402

CHUNKS = 5000


def one_stream(n: int) -> bytes:
    chunk = b'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"word "},"finish_reason":null}]}\n\n'
    return chunk * n + openai_sse(text="end", usage={"prompt_tokens": 1, "completion_tokens": 1})


def anthropic_stream(n: int) -> bytes:
    delta = b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"word "}}\n\n'
    parts = fixture_parts(anthropic_sse(text="end"))
    return b"".join(parts[:2]) + delta * n + b"".join(parts[2:])


def main() -> None:
    data = one_stream(CHUNKS)
    start = time.perf_counter()
    count = sum(1 for _ in read_events(io.BytesIO(data)))
    took = time.perf_counter() - start
    print(f"sse.read_events, in memory: {count} events, {len(data) / 1e6:.2f} MB in {took * 1000:.1f} ms "
          f"({count / took:,.0f} events/s)")

    long_line = b"data: " + b"x" * 2_000_000 + b"\n\n"
    start = time.perf_counter()
    count = sum(1 for _ in read_events(Trickle(long_line, 4096)))
    print(f"sse.read_events, one {len(long_line) / 1e6:.0f} MB event in 4 KB reads: "
          f"{(time.perf_counter() - start) * 1000:.1f} ms")

    server = ProviderServer()
    try:
        for kind in ("openai", "anthropic"):
            server.push(fixture_parts(data if kind == "openai" else anthropic_stream(CHUNKS)))
            provider = make_provider(server.settings(kind))
            start = time.perf_counter()
            deltas = sum(isinstance(e, TextDelta) for e in provider.stream(Request("s", [Message("user", "hi")], [])))
            took = time.perf_counter() - start
            print(f"{kind} provider over loopback, chunked, one write per event: {deltas} text deltas in "
                  f"{took * 1000:.1f} ms ({deltas / took:,.0f} deltas/s)")
    finally:
        server.close()


if __name__ == "__main__":
    main()
