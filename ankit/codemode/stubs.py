"""Python signatures of tools, generated from their JSON Schemas: how find_tools, the system prompt and
`tools.help()` document tools for run_code programs (code mode), where each tool is a function of the `tools`
module taking its parameters in the order its signature shows."""

import keyword

from ankit.records import ToolSpec
from ankit.wording import first_sentence

SIMPLE = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None",
          "object": "dict", "array": "list"}
LEVELS = ("none", "first-sentence", "full")
TEXT_OR_DATA = "str | dict | list"  # a tool that says nothing: its text, parsed where it is a JSON object or array
PARAMETER_CHARS = 160  # of one parameter's first sentence in a stub


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


def _properties(parameters) -> tuple[dict, list]:
    schema = parameters if isinstance(parameters, dict) else {}
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    return properties, required


def spelled(name: str) -> bool:
    """Whether Python can spell the parameter name (the others are passed as tools.x(**{"odd-name": 1}))."""
    return name.isidentifier() and not keyword.iskeyword(name)


def parameter_order(parameters: dict) -> list[str]:
    """The parameters a program may pass by position, in order: the required ones first, then the others, as the
    schema lists them (names Python cannot spell are keywords only)."""
    properties, required = _properties(parameters)
    names = [n for n in properties if n in required] + [n for n in properties if n not in required]
    return [n for n in names if spelled(n)]


def _default(schema) -> str:
    """A parameter's default as Python: the schema's own where it is a plain value, else None."""
    value = schema.get("default") if isinstance(schema, dict) else None
    return repr(value) if isinstance(value, (str, int, float, bool)) and len(repr(value)) <= 40 else "None"


def returns(spec: ToolSpec) -> tuple[str, str]:
    """What a call returns: (the annotation, what it holds), from the tool's `returns` ("list[str]: the paths")."""
    annotation, _, meaning = (spec.returns or TEXT_OR_DATA).partition(": ")
    return annotation.strip() or "str", " ".join(meaning.split())


def signature(spec: ToolSpec) -> str:
    """`name(path: str, limit: int | None = None) -> str`: required parameters first, as the schema lists them."""
    properties, required = _properties(spec.parameters)
    parts = []
    for name in parameter_order(spec.parameters):
        kind = python_type(properties[name])
        default = _default(properties[name])
        if name in required:
            parts.append(f"{name}: {kind}")
        elif default == "None":
            parts.append(f"{name}: {kind if 'None' in kind.split(' | ') else kind + ' | None'} = None")
        else:
            parts.append(f"{name}: {kind} = {default}")
    if any(not spelled(n) for n in properties):
        parts.append("**kwargs")  # names Python cannot spell: tools.x(**{"odd-name": 1})
    return f"{spec.name}({', '.join(parts)}) -> {returns(spec)[0]}"


def stub(spec: ToolSpec, whole: bool = False) -> str:
    """A tool as a Python stub: its signature, and as docstring the description (its first sentence, or whole),
    each parameter's first sentence and what the call returns."""
    text = " ".join(spec.description.split()) if whole else first_sentence(spec.description)
    properties, _ = _properties(spec.parameters)
    lines = [text or spec.name]
    said = [(n, first_sentence(s.get("description", ""))[:PARAMETER_CHARS]) for n, s in properties.items()
            if isinstance(s, dict)]
    meaning = returns(spec)[1]
    notes = [f"{n}: {d}" for n, d in said if d] + ([f"Returns {meaning}."] if meaning else [])
    lines += [""] + notes if notes else []
    doc = "\n".join(f"    {line}" if line else "" for line in lines).strip()
    doc = doc.replace("\\", "\\\\").replace('"' * 3, "'" * 3)
    return f'def {signature(spec)}:\n    """{doc}{chr(10) + "    " if notes else ""}"""'


def stubs(specs: list[ToolSpec], whole: bool = False) -> str:
    """Stubs for several tools."""
    return "\n".join(stub(s, whole) for s in specs)


def call_form(spec: ToolSpec) -> str:
    """One line for a tool whose schema the model has already: how a program calls it and what it gets back."""
    annotation, meaning = returns(spec)
    back = f"{annotation}: {meaning}" if meaning else annotation
    return f"tools.{spec.name}({', '.join(parameter_order(spec.parameters))}) -> {back}"


def named(specs: list[ToolSpec], level: str) -> str:
    """The tools named for the system prompt, grouped (`git: git_status, git_log`): names alone ("none"), or
    each with its first sentence or whole description (code_mode_catalog)."""
    groups: dict[str, list[ToolSpec]] = {}
    for spec in specs:
        groups.setdefault(spec.group or "other", []).append(spec)
    if level not in LEVELS[1:]:
        return "\n".join(f"{group}: {', '.join(s.name for s in members)}" for group, members in groups.items())
    lines = []
    for group, members in groups.items():
        lines.append(f"{group}:")
        for s in members:
            text = first_sentence(s.description) if level == "first-sentence" else " ".join(s.description.split())
            lines.append(f"- {s.name}: {text}" if text else f"- {s.name}")
    return "\n".join(lines)


CODE_PROMPT = "Code mode: in a run_code program `import tools` gives every tool as a function{which}{only}."
LISTED = ", those you have and those find_tools lists, loaded or not"


def code_prompt(specs: list[ToolSpec], level: str, only: bool, skip: set[str] = frozenset(),
                finder: bool = True) -> str:
    """What the system prompt says in code mode: how programs reach tools, and the tools named at the level
    asked, leaving out those named elsewhere in every request (`skip`: schemas sent, find_tools' listing)."""
    note = "; the other tools are reached through run_code alone in this session" if only else ""
    listed = [s for s in specs if s.name not in ("run_code", "find_tools") and s.name not in skip]
    return CODE_PROMPT.format(which=LISTED if finder else "", only=note) + (f"\nAlso:\n{named(listed, level)}" if listed else "")
