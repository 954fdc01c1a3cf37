"""remember: keep a fact for later sessions, for this project or globally."""

from ankit.toolkit import ToolError, memory

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
effects = ["lasting"]
needs_approval = True
lasting = True  # kept beyond this session: asked every time, refused in -p without --yes
examples = [
    "remember that this project uses tabs for indentation",
    "remember globally that I prefer short answers",
    "note for later: the staging server is staging.example.com",
]


def preview(args: dict, ctx) -> str:
    """The fact and where it will be kept."""
    where = "for every session, in any folder" if args.get("scope") == "global" else "for sessions in this folder"
    return f"remember {where}:\n{args.get('fact', '')}"


def run(args: dict, ctx) -> str:
    """Store the fact and say under which id and scope."""
    fact = " ".join(args["fact"].split())
    if not fact:
        raise ToolError("the fact is empty; give one sentence to remember")
    if len(fact) > 2000:
        raise ToolError("the fact is longer than 2000 characters; keep it to a sentence or two")
    if memory.SECRET.search(fact):
        raise ToolError("that looks like a secret (a key or token); secrets are not stored in memory")
    scope = "global" if args.get("scope") == "global" else memory.project_key(ctx)
    with memory.open_memory(ctx) as store:
        fact_id, new = store.add(scope, fact)
    where = "globally" if scope == "global" else f"for project {scope}"
    return f"{'remembered' if new else 'already remembered'} #{fact_id} {where}"
