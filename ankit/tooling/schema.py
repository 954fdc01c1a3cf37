"""A small JSON Schema validator: the subset tool parameters use (type, required, properties, enum, items, additionalProperties)."""

_TYPES = {
    "object": dict,
    "array": list,
    "string": str,
    "boolean": bool,
    "null": type(None),
}


def _is_type(value, name: str) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    expected = _TYPES.get(name)
    return True if expected is None else isinstance(value, expected)


def validate(value, schema: dict, path: str = "arguments") -> list[str]:
    """Return one line per problem with value against schema; empty when it fits."""
    if not isinstance(schema, dict):
        return []
    problems: list[str] = []
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind else []
    if kinds and not any(_is_type(value, k) for k in kinds):
        return [f"{path} should be {' or '.join(kinds)}, got {type(value).__name__}"]
    if "enum" in schema and value not in schema["enum"]:
        problems.append(f"{path} must be one of {schema['enum']!r}, got {value!r}")
    if isinstance(value, dict):
        problems += _validate_object(value, schema, path)
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            problems += validate(item, schema["items"], f"{path}[{i}]")
    return problems


def _validate_object(value: dict, schema: dict, path: str) -> list[str]:
    problems = []
    props = schema.get("properties") or {}
    for key in schema.get("required") or []:
        if key not in value:
            problems.append(f"{path}.{key} is required")
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        if key in props:
            problems += validate(item, props[key], f"{path}.{key}")
        elif extra is False:
            problems.append(f"{path}.{key} is not an accepted parameter (accepted: {', '.join(props) or 'none'})")
        elif isinstance(extra, dict):
            problems += validate(item, extra, f"{path}.{key}")
    return problems


def check_schema(schema) -> str | None:
    """Say what is wrong with a tool's parameters schema, or None when it is a usable object schema."""
    if not isinstance(schema, dict):
        return "parameters is not a JSON Schema object (a dict)"
    if schema.get("type", "object") != "object":
        return f"parameters has type {schema.get('type')!r}; it must be 'object'"
    props = schema.get("properties", {})
    if not isinstance(props, dict):
        return "parameters.properties must be an object"
    for key, sub in props.items():
        if not isinstance(sub, dict):
            return f"parameters.properties.{key} must be a schema object"
    required = schema.get("required", [])
    if not isinstance(required, list) or any(r not in props for r in required):
        return "parameters.required must list names from properties"
    return None
