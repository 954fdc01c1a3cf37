from ankit.tooling.schema import check_schema, validate

SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "count": {"type": "integer"},
        "mode": {"type": "string", "enum": ["a", "b"]},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["path"],
    "additionalProperties": False,
}


def test_valid_arguments_pass():
    assert validate({"path": "x", "count": 2, "mode": "a", "tags": ["t"]}, SCHEMA) == []


def test_each_problem_is_named():
    problems = validate({"count": True, "mode": "c", "tags": [1], "extra": 1}, SCHEMA)
    assert "arguments.path is required" in problems
    assert "arguments.count should be integer, got bool" in problems
    assert "arguments.mode must be one of ['a', 'b'], got 'c'" in problems
    assert "arguments.tags[0] should be string, got int" in problems
    assert any("arguments.extra is not an accepted parameter" in p for p in problems)


def test_number_accepts_int_and_type_lists():
    assert validate(3, {"type": "number"}) == []
    assert validate(None, {"type": ["string", "null"]}) == []


def test_check_schema():
    assert check_schema(SCHEMA) is None
    assert check_schema({}) is None
    assert "not a JSON Schema object" in check_schema([1])
    assert "must be 'object'" in check_schema({"type": "string"})
    assert "required" in check_schema({"type": "object", "properties": {}, "required": ["x"]})
