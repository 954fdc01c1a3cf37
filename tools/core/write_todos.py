"""write_todos: replace the session's checklist, which the user sees and the session file keeps."""

from ankit.toolkit import ToolError

name = "write_todos"
description = (
    "Keep a todo list (checklist) for a task of several steps: give the whole list each time, every item with "
    "status pending, in_progress or done; it replaces the previous list. The user sees it. Use it for work of "
    "three steps or more: write the plan first, mark one item in_progress while working on it, done when finished."
)
STATES = ["pending", "in_progress", "done"]
MAX_ITEMS = 50
MAX_TEXT = 300
MARKS = {"pending": "[ ]", "in_progress": "[>]", "done": "[x]"}
parameters = {
    "type": "object",
    "properties": {
        "todos": {
            "type": "array",
            "description": "The complete list, in order (an empty list clears it)",
            "items": {
                "type": "object",
                "properties": {
                    "text": {"type": "string", "description": "What to do, in a few words"},
                    "status": {"type": "string", "enum": STATES, "description": "Default pending"},
                },
                "required": ["text"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["todos"],
    "additionalProperties": False,
}
effects = []  # only the session's own checklist
needs_approval = False  # it changes only the session's own checklist
examples = [
    "make a todo list for this refactoring",
    "plan the steps as a checklist and track them",
    "mark the first task on the todo list as done",
]



def run(args: dict, ctx) -> str:
    """Check the items, replace the list, and show it back."""
    items = []
    for number, item in enumerate(args["todos"], 1):
        text = " ".join(str(item.get("text", "")).split())
        if not text:
            raise ToolError(f"item {number} has no text; give each todo a few words")
        if len(text) > MAX_TEXT:
            raise ToolError(f"item {number} is longer than {MAX_TEXT} characters; keep each todo short")
        items.append({"text": text, "status": item.get("status") or "pending"})
    if len(items) > MAX_ITEMS:
        raise ToolError(f"{len(items)} items is more than {MAX_ITEMS}; group small steps together")
    todos = getattr(ctx, "todos", None)
    if todos is None:
        raise ToolError("this ankit keeps no todo list")
    todos.replace(items)
    if not items:
        return "the todo list is empty now"
    lines = [f"{MARKS[i['status']]} {i['text']}" for i in items]
    return f"todo list ({todos.counts()}):\n" + "\n".join(lines)
