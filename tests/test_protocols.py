"""The seams (ankit/protocols.py): Session is built from objects handed in at construction and never patched afterwards."""

import ast
import dataclasses
import re
from pathlib import Path

import pytest

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
            for part in ast.walk(target):
                if isinstance(part, (ast.Attribute, ast.Subscript)) and OWNERS.search(ast.unparse(part.value)):
                    found.append(f"{node.lineno}: {ast.unparse(target)}")
                    break
    return found


def test_no_module_assigns_session_or_tool_context_attributes():
    offenders = [f"{path.relative_to(ANKIT.parent)}:{line}" for path in sorted(ANKIT.rglob("*.py"))
                 if path.name != "session.py" for line in assigned_from_outside(path.read_text())]
    assert offenders == []


def test_the_check_sees_the_patterns_it_forbids():
    source = ("session.save = f\nstate.session.title = 't'\nsession.ledger.rounds = []\n"
              "session.turn_no += 1\nsession.ctx.ask = input\ndel session.messages[2:]\n"
              "state.session = other\nsessions = []\nsessions.x = 1\n")
    assert [line.split(":")[0] for line in assigned_from_outside(source)] == ["1", "2", "3", "4", "5", "6"]


def test_a_session_attribute_set_from_outside_is_refused():
    session, _ = make([])
    with pytest.raises(AttributeError, match="Session.system is not set from outside"):
        session.system = "patched"
    with pytest.raises(AttributeError):
        setattr(session, "view", NullView())
    assert session.system == "system"


def test_a_session_is_built_afresh_from_other_seams_instead():
    session, _ = make([])
    quiet = dataclasses.replace(session, view=NullView())
    assert isinstance(quiet.view, NullView) and quiet.system == "system"
