"""Python signatures of tools, generated from their JSON Schemas: how find_tools and the system prompt document
tools for run_code programs (code mode), where each tool is a function of the `tools` module."""

import keyword

from ankit.records import ToolSpec
from ankit.wording import first_sentence

SIMPLE = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None",
          "object": "dict", "array": "list"}
LEVELS = ("none", "first-sentence", "full")


def python_type(schema, depth: int = 0) -> str:
    """A JSON Schema as a Python annotation: str, list[int], Literal['a', 'b'], str | None; dict for the rest."""
    if not isinstance(schema, dict) or depth > 3:
        return "object"
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return "Literal[" + ", ".join(repr(v) for v in schema["enum"][:12]) + "]"
    kinds = schema.get("type")
    if isinstance(kinds, list):
        return " | ".join(dict.fromkeys(python_type({**schema, "type": k}, depth + 1) for k in kinds)) or "object"
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return " | ".join(dict.fromkeys(python_type(s, depth + 1) for s in schema[key]))
    if kinds == "array":
        items = schema.get("items")
        return f"list[{python_type(items, depth + 1)}]" if isinstance(items, dict) and items else "list"
    return SIMPLE.get(kinds, "object") if isinstance(kinds, str) else "object"


def signature(spec: ToolSpec) -> str:
    """`name(path: str, limit: int | None = None)`: required parameters first, as the schema lists them."""
    schema = spec.parameters if isinstance(spec.parameters, dict) else {}
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    parts, odd = [], []
    for name in [n for n in properties if n in required] + [n for n in properties if n not in required]:
        if not name.isidentifier() or keyword.iskeyword(name):
            odd.append(name)
            continue
        kind = python_type(properties[name])
        optional = kind if "None" in kind.split(" | ") else f"{kind} | None"
        parts.append(f"{name}: {kind}" if name in required else f"{name}: {optional} = None")
    if odd:
        parts.append("**kwargs")  # names Python cannot spell: tools.x(**{"odd-name": 1})
    return f"{spec.name}({', '.join(parts)})"


def stub(spec: ToolSpec) -> str:
    """A tool as a Python stub: its signature and its description's first sentence as the docstring."""
    doc = first_sentence(spec.description).replace('"""', "'''") or spec.name
    return f'def {signature(spec)}:\n    """{doc}"""'


def stubs(specs: list[ToolSpec]) -> str:
    """Stubs for several tools, one blank line apart."""
    return "\n".join(stub(s) for s in specs)


def named(specs: list[ToolSpec], level: str) -> str:
    """The tools named for the system prompt: names alone ("none"), or with the first sentence or the whole
    description of each (code_mode_catalog)."""
    if level not in LEVELS[1:]:
        return ", ".join(s.name for s in specs)
    texts = [(s.name, first_sentence(s.description) if level == "first-sentence" else " ".join(s.description.split()))
             for s in specs]
    return "\n".join(f"- {name}: {text}" if text else f"- {name}" for name, text in texts)


CODE_PROMPT = (
    "Code mode: run_code runs a Python program in which `import tools` gives every tool below as a function "
    "(text = tools.read_file(path=\"a.txt\")), whether find_tools loaded it or not. A call returns the tool's "
    "result (its data, else its text) and raises tools.ToolError when it fails; only what the program prints "
    "comes back to you. For a task of many tool calls (many files, pages or records), write one program instead "
    "of calling tools one by one{only}. find_tools gives the Python signatures of the tools it finds.\nTools:\n"
)


def code_prompt(specs: list[ToolSpec], level: str, only: bool) -> str:
    """What the system prompt says in code mode: how run_code works, and the tools named at the level asked."""
    note = "; the other tools are reached through run_code alone in this session" if only else ""
    listed = [s for s in specs if s.name not in ("run_code", "find_tools")]
    return CODE_PROMPT.format(only=note) + named(listed, level)
