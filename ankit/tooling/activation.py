"""The grow-only set of activated groups, their canonical schema bytes, and what fits one round's budget."""

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ankit.records import ToolSpec


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
    too_big: list[str] = field(default_factory=list)  # held back groups that would not fit even alone


@dataclass
class _Frozen:
    """A group's specs as first sent (canonical) and their size in characters."""

    specs: list[ToolSpec]
    size: int


@dataclass
class Activation:
    """Core groups are always sent; other groups join once and stay, in activation order."""

    group_specs: Callable[[str], list[ToolSpec]]  # current specs of a group, from the catalog
    core: list[str]
    active: list[str] = field(default_factory=list)
    all_groups: Callable[[], list[str]] = list  # every group of the catalog, for deferred declarations
    preloaded: dict[str, str] = field(default_factory=dict)  # group -> why it was sent from the first request
    only: tuple[str, ...] = ()  # code_mode "only": these tools alone are sent; the rest are called from run_code
    _frozen: dict[str, _Frozen] = field(default_factory=dict)
    _order: list[str] = field(default_factory=list)  # groups in the order first declared: grow-only

    def activate(self, groups: list[str]) -> list[str]:
        """Add units (groups, or tools loaded without their group) to the set; return those that were not
        active before. A unit whose every tool is offered already adds nothing, so it never joins."""
        added = []
        for unit in dict.fromkeys(groups):
            if unit in self.active or unit in self.core:
                continue
            names = {s.name for s in self.group_specs(unit)}
            if not names or not names <= self.offered_names():  # an MCP group still listing: none yet
                self.active.append(unit)
                added.append(unit)
        return added

    def offered_names(self) -> set[str]:
        """Names of the tools the core and activated units offer (sent, or waiting for room)."""
        return {s.name for unit in [*self.core, *self.active] for s in self.group_specs(unit)}

    def reset(self, groups: list[str]) -> None:
        """Put these groups in place of the activated set (a resumed session brings its own)."""
        self.active.clear()
        self.activate(groups)

    def preload(self, groups: dict[str, str]) -> None:
        """Activate groups before the first request, saying why (habits of this folder's recent sessions)."""
        self.preloaded.update({g: why for g, why in groups.items() if g not in self.core and g not in self.active})
        self.activate(list(self.preloaded))

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
        """What fits this round, decided here alone: core first, then activated groups in activation order; a
        group that does not fit the budget waits whole."""
        specs = [s for g in self.core for s in self.frozen(g).specs]
        if self.only:
            specs = [s for s in specs if s.name in self.only]
            return RoundTools(specs, [], [], len(canonical(specs)))
        sent, held, used = [], [], 0
        sizes: dict[str, int] = {}
        for group in self.active:
            item = self.frozen(group)
            if not item.specs:
                continue
            names = {s.name for s in specs}  # a tool made core by name, or loaded alone before its group
            extra = [s for s in item.specs if s.name not in names]
            sizes[group] = item.size if len(extra) == len(item.specs) else len(canonical(extra))
            if used + sizes[group] <= budget:  # held back by what it would add, not by its whole group
                specs.extend(extra)
                sent.append(group)
                used += sizes[group]
            else:
                held.append(group)
        too_big = [g for g in held if sizes[g] > budget]
        return RoundTools(specs, sent, held, used + self.core_bytes(), too_big)

    def core_names(self) -> set[str]:
        """Names of the always-sent tools."""
        return {s.name for g in self.core for s in self.frozen(g).specs}

    def catalog(self) -> list[ToolSpec]:
        """Every other tool, for providers that declare the catalog deferred: groups in the order first seen,
        each tool's spec naming the unit that loads it (its group, or itself when loaded alone).

        A group that appears later (an MCP server that finished starting) goes at the end, so what was
        declared before keeps its bytes and its place.
        """
        if self.only:
            return []
        self._order += [g for g in self.all_groups() if g not in self._order and self.frozen(g).specs]
        specs, seen, loader = [], self.core_names(), self.loaders()
        for group in self._order:
            if group in self.core:
                continue
            for spec in self.frozen(group).specs:
                if spec.name not in seen:
                    seen.add(spec.name)
                    specs.append(replace(spec, group=loader.get(spec.name, group)))
        return specs

    def loaders(self) -> dict[str, str]:
        """Each activated tool's unit: the first activated unit holding it (a tool loaded alone before its group
        keeps its own), which is how a provider knows which answer loaded it; other tools keep their group."""
        found: dict[str, str] = {}
        for unit in self.active:
            for spec in self.frozen(unit).specs:
                found.setdefault(spec.name, unit)
        return found

    def forget_frozen(self, group: str) -> None:
        """Drop a group's frozen bytes (its tools changed, e.g. an MCP server re-listed them)."""
        self._frozen.pop(group, None)


def habitual(activated: list[list[str]], least: int = 3) -> dict[str, str]:
    """Groups activated in at least `least` of these sessions (newest first), each with why."""
    counts: dict[str, int] = {}
    for groups in activated:
        for group in dict.fromkeys(groups):
            counts[group] = counts.get(group, 0) + 1
    return {g: f"activated in {n} of the last {len(activated)} sessions in this folder"
            for g, n in counts.items() if n >= least}
