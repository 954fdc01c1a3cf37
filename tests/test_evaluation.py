"""eval-discovery on tiny catalogs and query sets written to temp files."""

import json

import pytest

from ankit.cli.main import eval_discovery as main
from ankit.discovery.evaluation import Query, load_catalog, measure

CATALOG = [
    {"name": "getWeather", "description": "Current weather for a city", "parameters": {
        "type": "object", "properties": {"city": {"type": "string", "description": "City name"}}}},
    {"name": "bookHotel", "description": "Reserve a hotel room", "parameters": {}},
    {"name": "searchFlights", "description": "Find flights between two airports", "parameters": {}},
    {"name": "convertCurrency", "description": "Convert an amount between currencies", "parameters": {},
     "group": "money"},
    {"name": "exchangeRates", "description": "Latest exchange rates", "group": "money"},
]
QUERIES = [
    {"id": "q1", "query": "what's the weather in Lisbon", "gold": ["getWeather"]},
    {"id": "q2", "query": "book a hotel room, then find flights to Rome", "gold": ["bookHotel", "searchFlights"]},
    {"id": "q3", "query": "how many yen is 20 euros at today's exchange rate", "gold": ["exchangeRates"]},
]


def write_jsonl(path, rows):
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path):
    return write_jsonl(tmp_path / "catalog.jsonl", CATALOG), write_jsonl(tmp_path / "queries.jsonl", QUERIES)


def test_text_output_prints_the_figures_and_counts(files, capsys):
    catalog, queries = files
    assert main(["--catalog", str(catalog), "--queries", str(queries)]) == 0
    out = capsys.readouterr().out
    for label in ("tools          5", "queries        3", "recall@1       ", "recall@5       1.000", "MRR            1.000",
                  "ms per query"):
        assert label in out, out


def test_json_output_is_one_object_with_the_agreed_keys(files, capsys):
    catalog, queries = files
    assert main(["--catalog", str(catalog), "--queries", str(queries), "--k", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"recall_at_1", "recall_at_k", "mrr", "ms_per_query", "tools", "queries"} <= set(data)
    assert (data["tools"], data["queries"]) == (5, 3)
    # q2 has two gold tools, so at k = 1 it scores at most 0.5: (1 + 0.5 + 1) / 3
    assert data["recall_at_1"] == data["recall_at_k"] == pytest.approx(0.8333, abs=1e-4)
    assert data["mrr"] == 1.0


def test_the_group_field_is_read_and_tools_default_to_their_own_group(files):
    catalog, _ = files
    tools = load_catalog(catalog)
    assert [t.group for t in tools] == ["getWeather", "bookHotel", "searchFlights", "money", "money"]


def test_metrics_follow_their_definitions():
    queries = [Query("a", "x", ["t1", "t2"]), Query("b", "y", ["t3"]), Query("c", "z", ["t9"])]
    rankings = {"x": ["t2", "t5", "t1"], "y": ["t4", "t3"], "z": ["t4", "t5"]}
    metrics = measure(lambda text: rankings[text], queries, tools=6, k=2)
    assert metrics.recall_at_1 == pytest.approx((0.5 + 0 + 0) / 3)
    assert metrics.recall_at_k == pytest.approx((0.5 + 1 + 0) / 3)
    assert metrics.mrr == pytest.approx((1 + 0.5 + 0) / 3)
    assert (metrics.tools, metrics.queries, metrics.k) == (6, 3, 2)


@pytest.mark.parametrize("content, expected", [
    ('{"name": "a", "description": "x"}\n{not json\n', "catalog.jsonl:2: not valid JSON"),
    ('["a", "b"]\n', "catalog.jsonl:1: each line must be a JSON object"),
    ('{"description": "no name"}\n', 'catalog.jsonl:1: "name" must be a non-empty string'),
    ('{"name": "a", "parameters": "x"}\n', "catalog.jsonl:1: \"description\" and \"group\" must be strings"),
    ('{"name": "a"}\n{"name": "a"}\n', "catalog.jsonl:2: duplicate tool name 'a'"),
    ("\n\n", "catalog.jsonl: no lines found"),
])
def test_a_malformed_catalog_gives_one_line_and_exit_2(tmp_path, files, capsys, content, expected):
    _, queries = files
    bad = tmp_path / "catalog.jsonl"
    bad.write_text(content, encoding="utf-8")
    assert main(["--catalog", str(bad), "--queries", str(queries)]) == 2
    out = capsys.readouterr().out
    assert expected in out and out.count("\n") == 1


def test_a_query_with_an_unknown_gold_tool_or_no_gold_is_rejected(tmp_path, files, capsys):
    catalog, _ = files
    queries = write_jsonl(tmp_path / "q.jsonl", [{"id": "1", "query": "x", "gold": ["nope"]}])
    assert main(["--catalog", str(catalog), "--queries", str(queries)]) == 2
    assert "gold tool 'nope' is not in the catalog" in capsys.readouterr().out
    write_jsonl(queries, [{"id": "1", "query": "x", "gold": []}])
    assert main(["--catalog", str(catalog), "--queries", str(queries)]) == 2
    assert "needs \"query\"" in capsys.readouterr().out


def test_missing_or_unreadable_files_and_bad_arguments(tmp_path, files, capsys):
    catalog, queries = files
    assert main(["--catalog", str(tmp_path / "none.jsonl"), "--queries", str(queries)]) == 2
    assert "cannot read" in capsys.readouterr().out
    (tmp_path / "latin1.jsonl").write_bytes(b'{"name": "caf\xe9"}\n')
    assert main(["--catalog", str(tmp_path / "latin1.jsonl"), "--queries", str(queries)]) == 2
    assert "not UTF-8" in capsys.readouterr().out
    assert main(["--catalog", str(catalog), "--queries", str(queries), "--k", "0"]) == 2
    assert main(["--catalog", str(catalog)]) == 2
    assert "--queries" in capsys.readouterr().out


def test_live_evaluation_is_the_sessions_ranking_and_its_export_ranks_the_same(tmp_path, monkeypatch, capsys):
    from ankit.cli import main as ankit_main
    for var in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME"):
        monkeypatch.setenv(var, str(tmp_path / var))
    monkeypatch.chdir(tmp_path)
    queries = write_jsonl(tmp_path / "q.jsonl", [
        {"id": "1", "query": "show the recent commits", "gold": ["git_log"]},
        {"id": "2", "query": "who is listening on port 8080", "gold": ["port_status"]},
        {"id": "3", "query": "remember that I prefer tabs", "gold": ["remember"]}])
    exported = tmp_path / "live.jsonl"
    argv = ["eval-discovery", "--live", "--queries", str(queries), "--json", "--export", str(exported)]
    assert ankit_main(argv) == 0
    live = json.loads(capsys.readouterr().out)
    assert live["loaded_recall"] == 1.0 and live["recall_at_k"] == 1.0
    groups = [json.loads(line) for line in exported.read_text().splitlines() if '"name"' not in line]
    assert any(g["group"] == "git" and g["rules"] and "summary" in g for g in groups)  # metadata travels along
    assert main(["--catalog", str(exported), "--queries", str(queries), "--json"]) == 0
    offline = json.loads(capsys.readouterr().out)
    assert {k: v for k, v in offline.items() if k != "ms_per_query"} == \
        {k: v for k, v in live.items() if k != "ms_per_query"}


def test_loaded_recall_counts_what_find_tools_would_load(files, capsys):
    catalog, queries = files
    assert main(["--catalog", str(catalog), "--queries", str(queries), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert 0.0 < data["loaded_recall"] <= 1.0


def test_a_query_line_may_carry_phrasings_that_rank_as_find_tools_takes_them(tmp_path, capsys):
    catalog = write_jsonl(tmp_path / "catalog.jsonl", CATALOG)
    plain = [{"id": "p", "query": "I'm off to Rome next week, sort out where I sleep", "gold": ["bookHotel"]}]
    phrased = [{**plain[0], "phrasings": ["reserve hotel room"]}]
    figures = []
    for rows in (plain, phrased):
        assert main(["--catalog", str(catalog), "--queries", str(write_jsonl(tmp_path / "q.jsonl", rows)),
                     "--k", "1", "--json"]) == 0
        figures.append(json.loads(capsys.readouterr().out))
    assert figures[0]["recall_at_1"] == 0.0 and figures[1]["recall_at_1"] == 1.0
    assert figures[1]["loaded_recall"] == 1.0
    bad = write_jsonl(tmp_path / "bad.jsonl", [{**plain[0], "phrasings": "reserve"}])
    assert main(["--catalog", str(catalog), "--queries", str(bad)]) == 2
    assert capsys.readouterr().out.strip().endswith('"phrasings" must be a list of strings')
