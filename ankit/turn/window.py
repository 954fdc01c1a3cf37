"""The context window and token arithmetic: known windows, bytes per token, the budgets, fitting history."""

from ankit.records import Message

BYTES_PER_TOKEN = 4  # a rough, conservative estimate for JSON and English text
CHARS_PER_TOKEN = 4  # the same estimate for text measured in characters (the skills list)
SCHEMA_SHARE = 0.25  # tool schemas may take at most this share of the context window
SKILLS_SHARE = 0.01  # the skills list may take about 1% of the context window
DEFAULT_WINDOW = 32_000  # tokens, for a model we know nothing about

# Context windows in tokens by model-name prefix (longest prefix wins); the config's context_window beats this.
KNOWN_WINDOWS = {
    "claude": 200_000, "claude-sonnet-5": 1_000_000, "claude-opus-5": 1_000_000, "claude-fable": 1_000_000,
    "gpt-6": 400_000, "gpt-4.1": 1_047_576, "gpt-4o": 128_000, "gpt-5": 400_000, "o3": 200_000, "o4": 200_000,
    "openai/gpt-4.1": 1_047_576, "openai/gpt-4o": 128_000, "openai/gpt-5": 400_000, "anthropic/claude": 200_000,
    "llama3": 128_000, "qwen": 32_000, "gemini": 1_000_000, "google/gemini": 1_000_000, "deepseek": 64_000,
}


def context_window(model: str, configured: int = 0) -> int:
    """The model's context window in tokens: configured, else a known prefix, else a safe default."""
    if configured > 0:
        return configured
    matches = [p for p in KNOWN_WINDOWS if model.lower().startswith(p)]
    return KNOWN_WINDOWS[max(matches, key=len)] if matches else DEFAULT_WINDOW


def tokens(size: int) -> int:
    """Estimated tokens for a number of bytes (rounded up)."""
    return -(-size // BYTES_PER_TOKEN)


def skills_budget(window_tokens: int) -> int:
    """Characters the skills list in the system prompt may take."""
    return int(window_tokens * SKILLS_SHARE * CHARS_PER_TOKEN)


def schema_budget(window_tokens: int, output_reserve: int, prompt_bytes: int) -> int:
    """Bytes of optional tool schemas one round may carry.

    budget = min(SCHEMA_SHARE * window, window - output_reserve - prompt) in bytes, never below 0, where
    prompt is the system prompt, the history and the latest user message, and the core schemas (always sent).
    """
    window = window_tokens * BYTES_PER_TOKEN
    room = window - output_reserve * BYTES_PER_TOKEN - prompt_bytes
    return max(0, min(int(window * SCHEMA_SHARE), room))


def history_room(window_tokens: int, output_reserve: int, fixed_bytes: int) -> int:
    """Bytes the history may take: the window less the reply's reserve and what every request carries."""
    return (window_tokens - output_reserve) * BYTES_PER_TOKEN - fixed_bytes


IMAGE_BYTES = 6400  # an image counts as about 1,600 tokens (a large one on Anthropic's scale)


def message_bytes(message: Message) -> int:
    """An estimate of a message's size on the wire, in bytes."""
    size = len(message.text.encode()) + 16
    for call in message.tool_calls:
        size += len(call.name) + len(call.arguments.encode()) + 48
    for result in message.results:
        size += len(result.content.encode()) + 48
    size += IMAGE_BYTES * len(message.images)
    return size


def cannot_fit(message: Message, window: int, fixed_bytes: int, reserve: int) -> str:
    """The line that refuses a message too large for the window beside what every request carries (the system
    prompt, the core tools) and the reply's reserve; "" when it fits."""
    size = tokens(message_bytes(message))
    over = size + tokens(fixed_bytes) + reserve - window
    if over <= 0:
        return ""
    return (f"this message is about {size:,} tokens, {over:,} more than the model's context window of {window:,} "
            "tokens leaves beside the system prompt, the tools and the reply: nothing was sent; shorten it, or "
            "name a large file without @ so the model reads only the parts it needs")


def turn_starts(messages: list[Message]) -> list[int]:
    """Indexes of the user messages that open a turn."""
    return [i for i, m in enumerate(messages) if m.role == "user"]


def fit_history(messages: list[Message], room: int) -> tuple[list[Message], int]:
    """Drop the oldest whole turns until the rest fits in room bytes; the last turn always stays.

    Returns the kept messages and how many were dropped. Dropping whole turns keeps every
    tool call next to its result.
    """
    sizes = [message_bytes(m) for m in messages]
    total = sum(sizes)
    start = 0
    for index in turn_starts(messages)[1:]:
        if total <= room:
            break
        total -= sum(sizes[start:index])
        start = index
    return messages[start:], start
