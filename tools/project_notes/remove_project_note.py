"""remove_project_note: delete one of this project's notes by its id."""

from ankit.toolkit import ToolError, notes

name = "remove_project_note"
description = "Remove a project note or decision by its #id, as list_project_notes shows it: one that is wrong or outdated."
parameters = {
    "type": "object",
    "properties": {"id": {"type": "integer", "description": "The note's id (without #)"}},
    "required": ["id"],
    "additionalProperties": False,
}
effects = ["lasting"]
needs_approval = True
lasting = True  # kept beyond this session: asked every time, refused in -p without --yes
examples = ["remove project note 3", "delete the outdated decision from the project notes"]


def _find(kept: list, note_id: int):
    found = next((n for n in kept if n.id == note_id), None)
    if found is None:
        raise ToolError(f"this project has no note #{note_id}; use list_project_notes to see the ids")
    return found


def preview(args: dict, ctx) -> str:
    """The note that would be removed."""
    return f"remove from the notes of {notes.project_root(ctx)}:\n{_find(notes.load(ctx), int(args['id'])).line()}"


def run(args: dict, ctx) -> str:
    """Remove the note."""
    with notes.changing(ctx) as kept:
        found = _find(kept, int(args["id"]))
        kept.remove(found)
    return f"removed #{found.id}: {found.text}"
