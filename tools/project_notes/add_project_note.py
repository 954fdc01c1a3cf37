"""add_project_note: keep a note or a decision for this project."""

import time

from ankit.toolkit import ToolError, memory, notes

name = "add_project_note"
description = (
    "Add a note or a decision to this project's notes (kept per repository, apart from global memory): a "
    "convention, a design decision and its reason, a known problem. Never store secrets."
)
parameters = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "description": "The note, self-contained (for a decision: what and why)"},
        "kind": {"type": "string", "enum": list(notes.KINDS), "description": "note (default) or decision"},
    },
    "required": ["text"],
    "additionalProperties": False,
}
effects = ["lasting"]
needs_approval = True
lasting = True  # kept beyond this session: asked every time, refused in -p without --yes
examples = [
    "add a project note that the API is versioned under /v2",
    "record the decision to use PostgreSQL in this project",
    "log a design decision: we chose SQLite for the cache",
]


def preview(args: dict, ctx) -> str:
    """The note as later sessions in this project will read it."""
    return f"keep this {args.get('kind') or 'note'} for later sessions in this project:\n{args.get('text', '')}"


def run(args: dict, ctx) -> str:
    """Store the note and say under which id."""
    text = " ".join(str(args["text"]).split())
    if not text:
        raise ToolError("the note is empty; give the text to keep")
    if len(text) > notes.MAX_TEXT:
        raise ToolError(f"the note is longer than {notes.MAX_TEXT} characters; keep it to a paragraph")
    if memory.SECRET.search(text):
        raise ToolError("that looks like a secret (a key or token); secrets are not stored in notes")
    kind = args.get("kind") or "note"
    with notes.changing(ctx) as kept:
        same = next((n for n in kept if n.text == text and n.kind == kind), None)
        if same is None:
            same = notes.Note(max((n.id for n in kept), default=0) + 1, kind, text, time.time())
            kept.append(same)
            added = True
        else:
            added = False
    return f"{'added' if added else 'already kept'} {kind} #{same.id} for project {notes.project_root(ctx)}"
