"""The grow-only set of activated groups, their canonical schema bytes, and the per-round budget."""

import json
from collections.abc import Callable
from dataclasses import dataclass, field

from ankit.records import ToolSpec

BYTES_PER_TOKEN = 4  # a rough, conservative estimate for JSON and English text
SCHEMA_SHARE = 0.25  # tool schemas may take at most this share of the context window
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


def schema_budget(window_tokens: int, output_reserve: int, prompt_bytes: int) -> int:
    """Bytes of optional tool schemas one round may carry.

    budget = min(SCHEMA_SHARE * window, window - output_reserve - prompt) in bytes, never below 0, where
    prompt is the system prompt, the history and the latest user message, and the core schemas (always sent).
    """
    window = window_tokens * BYTES_PER_TOKEN
    room = window - output_reserve * BYTES_PER_TOKEN - prompt_bytes
    return max(0, min(int(window * SCHEMA_SHARE), room))


def canonical(specs: list[ToolSpec]) -> bytes:
    """The canonical bytes of a list of specs: sorted keys, fixed separators."""
    body = [{"name": s.name, "description": s.description, "parameters": s.parameters} for s in specs]
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


@dataclass
class RoundTools:
    """What one round sends: specs in a stable order, and what was held back."""

    specs: list[ToolSpec]
    sent: list[str]
    held_back: list[str]
    schema_bytes: int


@dataclass
class _Frozen:
    specs: list[ToolSpec]
    size: int


@dataclass
class Activation:
    """Core groups are always sent; other groups join once and stay, in activation order."""

    group_specs: Callable[[str], list[ToolSpec]]  # current specs of a group, from the catalog
    core: list[str]
    active: list[str] = field(default_factory=list)
    _frozen: dict[str, _Frozen] = field(default_factory=dict)

    def activate(self, groups: list[str]) -> list[str]:
        """Add groups to the set; return those that were not active before."""
        added = [g for g in dict.fromkeys(groups) if g not in self.active and g not in self.core]
        self.active.extend(added)
        return added

    def is_active(self, group: str) -> bool:
        """Whether a group's tools are offered (core or activated)."""
        return group in self.core or group in self.active

    def frozen(self, group: str) -> _Frozen:
        """A group's specs as first sent, in canonical form, so later rounds send the same bytes."""
        if group not in self._frozen:
            specs = self.group_specs(group)
            data = json.loads(canonical(specs))
            specs = [ToolSpec(d["name"], d["description"], d["parameters"], group) for d in data]
            self._frozen[group] = _Frozen(specs, len(canonical(specs)))
        return self._frozen[group]

    def core_bytes(self) -> int:
        """Bytes of the always-sent core schemas."""
        return sum(self.frozen(g).size for g in self.core)

    def tools_for_round(self, budget: int) -> RoundTools:
        """Core first, then activated groups in activation order; a group that does not fit waits whole."""
        specs = [s for g in self.core for s in self.frozen(g).specs]
        sent, held, used = [], [], 0
        for group in self.active:
            item = self.frozen(group)
            if not item.specs:
                continue
            if used + item.size <= budget:
                names = {s.name for s in specs}  # a tool made core by name also belongs to its own group
                specs.extend(s for s in item.specs if s.name not in names)
                sent.append(group)
                used += item.size
            else:
                held.append(group)
        return RoundTools(specs, sent, held, used + self.core_bytes())

    def forget_frozen(self, group: str) -> None:
        """Drop a group's frozen bytes (its tools changed, e.g. an MCP server re-listed them)."""
        self._frozen.pop(group, None)
