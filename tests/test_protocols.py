"""The seams (ankit/protocols.py): Session is built from objects handed in at construction and never patched afterwards."""

import ast
import dataclasses
import importlib
import inspect
import re
from pathlib import Path

import pytest

from ankit import protocols
from ankit.protocols import NullView
from tests.test_session import make

ANKIT = Path(__file__).resolve().parent.parent / "ankit"
OWNERS = re.compile(r"(^|\.)(session|ctx)(\.|$)")  # a Session, or the ToolContext it runs tools with


def assigned_from_outside(source: str) -> list[str]:
    """`session.X = ...`, `session.X.Y = ...`, `del session.X[...]`, `ctx.X = ...` in one module's source."""
    found = []
    for node in ast.walk(ast.parse(source)):
        targets = {ast.Assign: lambda n: n.targets, ast.AugAssign: lambda n: [n.target],
                   ast.AnnAssign: lambda n: [n.target], ast.Delete: lambda n: n.targets}.get(type(node))
        for target in targets(node) if targets else []:
            if any(OWNERS.search(ast.unparse(part.value)) for part in _assigned(target)):
                found.append(f"{node.lineno}: {ast.unparse(target)}")
    return found


def _assigned(target: ast.expr):
    """The attribute and item accesses a target writes through (`a.b[c].d`: a.b[c].d, a.b[c], a.b), not its index
    expressions: `sessions[session.id] = x` writes a dict, not the session."""
    if isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _assigned(element)
    elif isinstance(target, ast.Starred):
        yield from _assigned(target.value)
    while isinstance(target, (ast.Attribute, ast.Subscript)):
        yield target
        target = target.value


def test_no_module_assigns_session_or_tool_context_attributes():
    offenders = [f"{path.relative_to(ANKIT.parent)}:{line}" for path in sorted(ANKIT.rglob("*.py"))
                 if path.name != "session.py" for line in assigned_from_outside(path.read_text())]
    assert offenders == []


def test_the_check_sees_the_patterns_it_forbids():
    source = ("session.save = f\nstate.session.title = 't'\nsession.ledger.rounds = []\n"
              "session.turn_no += 1\nsession.ctx.ask = input\ndel session.messages[2:]\n"
              "state.session = other\nsessions = []\nsessions.x = 1\nsessions[session.id] = 1\na, session.b = 1, 2\n")
    assert [line.split(":")[0] for line in assigned_from_outside(source)] == ["1", "2", "3", "4", "5", "6", "11"]


def test_a_session_is_built_afresh_from_other_seams_instead():
    session, _ = make([])
    quiet = dataclasses.replace(session, view=NullView())
    assert isinstance(quiet.view, NullView) and quiet.system == "system"


def _members(cls) -> dict[str, list[str]]:
    """A class's public methods with their parameter names (self left out)."""
    return {name: list(inspect.signature(fn).parameters)[1:] for name, fn in vars(cls).items()
            if callable(fn) and not name.startswith("_") or name == "__call__"}


@pytest.mark.parametrize("seam, concrete", [
    ("Checkpoints", "ankit.storage.checkpoints.Checkpoints"), ("ToolRunner", "ankit.tooling.toolbox.Runner"),
    ("SessionStore", "ankit.storage.sessions.SessionStore"), ("Prompt", "ankit.turn.prompt.Prompt"),
    ("Ready", "ankit.turn.registry.Registry"), ("View", "ankit.terminal.render.TerminalView"),
    ("View", "ankit.cli.oneshot.PrintView"), ("Approver", "ankit.terminal.approval.Approver"),
    ("Approver", "ankit.cli.oneshot.PrintApprover"), ("Provider", "ankit.providers.base.Provider"),
    ("SubagentSource", "ankit.turn.subagents.Subagents"),
    ("Inbox", "ankit.terminal.typeahead.TypeAhead"), ("KeyShare", "ankit.terminal.typeahead.TypeAhead"),
    ("TurnHooks", "ankit.turn.turnhooks.SessionHooks"),
])
def test_each_implementation_has_the_methods_its_protocol_declares_with_the_same_parameters(seam, concrete):
    module, _, name = concrete.rpartition(".")
    implementation = getattr(importlib.import_module(module), name)
    found = {}
    for cls in reversed(implementation.__mro__):
        found.update(_members(cls))
    declared = _members(getattr(protocols, seam))
    assert {m: found.get(m) for m in declared} == declared


def test_the_protocols_module_names_only_the_records_below_it():
    tree = ast.parse((ANKIT / "protocols.py").read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module.startswith("ankit")}
    assert imported == {"ankit.records"}
