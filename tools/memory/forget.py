"""forget: delete a remembered fact by its id."""

from ankit.toolkit import ToolError, memory

name = "forget"
description = "Forget (delete) a remembered fact by its #id, as shown by recall; use it for facts that are wrong or outdated."
parameters = {
    "type": "object",
    "properties": {"id": {"type": "integer", "description": "The fact's id from recall (without #)"}},
    "required": ["id"],
    "additionalProperties": False,
}
effects = ["lasting"]
needs_approval = True
lasting = True  # kept beyond this session: asked every time, refused in -p without --yes
examples = ["forget fact #12", "that remembered fact is wrong, delete it", "forget the outdated note about the old server"]


def preview(args: dict, ctx) -> str:
    """The fact that would be deleted."""
    with memory.open_memory(ctx) as store:
        return f"forget {_fact(store, args).line(memory.project_key(ctx))}"


def run(args: dict, ctx) -> str:
    """Delete the fact."""
    with memory.open_memory(ctx) as store:
        fact = _fact(store, args)
        store.delete(fact.id)
    return f"forgot #{fact.id}: {fact.text}"


def _fact(store, args: dict):
    fact = store.get(int(args["id"]))
    if fact is None:
        raise ToolError(f"there is no fact #{args['id']}; use recall to see the ids")
    return fact
