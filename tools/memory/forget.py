"""forget: delete a remembered fact by its id."""

import importlib.util
import sys
from pathlib import Path


def _common(name: str):
    """Load tools/_common/_<name>.py once, by file path (tool modules never import ankit)."""
    path = Path(__file__).resolve().parents[1] / "_common" / f"_{name}.py"
    key = f"ankit_tools_common_{name}_{abs(hash(str(path)))}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, path)
        sys.modules[key] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[key])
    return sys.modules[key]



memory = _common("memory")

name = "forget"
description = "Forget (delete) a remembered fact by its #id, as shown by recall; use it for facts that are wrong or outdated."
parameters = {
    "type": "object",
    "properties": {"id": {"type": "integer", "description": "The fact's id from recall (without #)"}},
    "required": ["id"],
    "additionalProperties": False,
}
read_only = False
needs_approval = True
examples = ["forget fact #12", "that remembered fact is wrong, delete it", "forget the outdated note about the old server"]


def preview(args: dict, ctx) -> str:
    """The fact that would be deleted."""
    return f"forget {_fact(args, ctx).line(memory.project_key(ctx))}"


def run(args: dict, ctx) -> str:
    """Delete the fact."""
    fact = _fact(args, ctx)
    store = memory.open_memory(ctx)
    try:
        store.delete(fact.id)
    finally:
        store.close()
    return f"forgot #{fact.id}: {fact.text}"


def _fact(args: dict, ctx):
    store = memory.open_memory(ctx)
    try:
        fact = store.get(int(args["id"]))
    finally:
        store.close()
    if fact is None:
        raise memory.MemoryStoreError(f"there is no fact #{args['id']}; use recall to see the ids")
    return fact
