"""remember: keep a fact for later sessions, for this project or globally."""

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

name = "remember"
description = (
    "Remember a fact for future sessions (a preference, a project convention, a decision, where something "
    "lives). Project facts belong to the working folder; global facts apply everywhere. Never store secrets."
)
parameters = {
    "type": "object",
    "properties": {
        "fact": {"type": "string", "description": "The fact, as one self-contained sentence"},
        "scope": {"type": "string", "enum": ["project", "global"], "description": "Default project"},
    },
    "required": ["fact"],
    "additionalProperties": False,
}
read_only = False
needs_approval = False
examples = [
    "remember that this project uses tabs for indentation",
    "remember globally that I prefer short answers",
    "note for later: the staging server is staging.example.com",
]


def run(args: dict, ctx) -> str:
    """Store the fact and say under which id and scope."""
    fact = " ".join(args["fact"].split())
    if not fact:
        raise memory.MemoryStoreError("the fact is empty; give one sentence to remember")
    if len(fact) > 2000:
        raise memory.MemoryStoreError("the fact is longer than 2000 characters; keep it to a sentence or two")
    if memory.SECRET.search(fact):
        raise memory.MemoryStoreError("that looks like a secret (a key or token); secrets are not stored in memory")
    scope = "global" if args.get("scope") == "global" else memory.project_key(ctx)
    store = memory.open_memory(ctx)
    try:
        fact_id, new = store.add(scope, fact)
    finally:
        store.close()
    where = "globally" if scope == "global" else f"for project {scope}"
    return f"{'remembered' if new else 'already remembered'} #{fact_id} {where}"
