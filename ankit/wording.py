"""How ankit words a count in what it prints: "1 tool", "2 tools"."""


def count(number: int, noun: str, plural: str = "") -> str:
    """The number and the noun, singular for one (plural: the noun's plural where adding s is wrong)."""
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"
