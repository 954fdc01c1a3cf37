from pathlib import Path

import pytest

from ankit.errors import ConfigError
from ankit.providers.presets import provider_settings
from ankit.settings.layers import load_config


def setup(tmp_path, user="", project=""):
    home, cwd = tmp_path / "conf", tmp_path / "proj"
    (cwd / ".ankit").mkdir(parents=True)
    home.mkdir()
    if user:
        (home / "config.toml").write_text(user)
    if project:
        (cwd / ".ankit" / "config.toml").write_text(project)
    return home, cwd


def test_flags_beat_environment_beat_project_beat_user(tmp_path):
    home, cwd = setup(tmp_path, 'model = "user"\nmax_rounds = 5\nretries = 7', 'model = "project"\nmax_rounds = 3')
    config = load_config({}, {}, cwd, home)  # an untrusted project may lower a limit, not pick the model
    assert (config.model, config.max_rounds, config.retries) == ("user", 3, 7) and config.held == {"model": "project"}
    config = load_config({"trust": True}, {}, cwd, home)
    assert (config.model, config.max_rounds, config.retries) == ("project", 3, 7)
    config = load_config({}, {"ANKIT_MODEL": "env"}, cwd, home)
    assert config.model == "env"
    config = load_config({"model": "flag"}, {"ANKIT_MODEL": "env"}, cwd, home)
    assert config.model == "flag"


def test_first_provider_with_a_key_is_picked(tmp_path):
    home, cwd = setup(tmp_path)
    settings = provider_settings(load_config({}, {"OPENAI_API_KEY": "sk-1"}, cwd, home), "s1")
    assert (settings.preset, settings.kind, settings.api_key, settings.session_id) == ("openai", "responses", "sk-1", "s1")
    assert settings.native
    assert "sk-1" not in repr(settings)
    settings = provider_settings(load_config({}, {"OPENAI_API_KEY": "a", "ANTHROPIC_API_KEY": "b"}, cwd, home))
    assert settings.preset == "anthropic" and settings.base_url == "https://api.anthropic.com/v1"


def test_openai_base_url_from_environment_drops_openai_only_fields(tmp_path):
    home, cwd = setup(tmp_path)
    env = {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1/"}
    settings = provider_settings(load_config({}, env, cwd, home), "s1")
    assert settings.base_url == "http://127.0.0.1:9/v1" and not settings.native


def test_base_url_alone_means_a_local_server(tmp_path):
    home, cwd = setup(tmp_path)
    settings = provider_settings(load_config({"base_url": "http://127.0.0.1:8080/v1"}, {}, cwd, home))
    assert (settings.preset, settings.api_key) == ("local", "")


def test_nothing_configured_says_how_to_set_up(tmp_path):
    home, cwd = setup(tmp_path)
    with pytest.raises(ConfigError) as info:
        provider_settings(load_config({}, {}, cwd, home), servers=())
    assert len(str(info.value).splitlines()) == 3 and "ANTHROPIC_API_KEY" in str(info.value)


def test_with_nothing_configured_a_local_server_that_answers_is_used(tmp_path, provider_server):
    from ankit.providers.models import LocalServer
    from tests.test_models import dead_url
    home, cwd = setup(tmp_path)
    provider_server.models = ["llama3.2:3b", "qwen3:8b"]
    servers = (LocalServer("Nothing", "local", dead_url()), LocalServer("Ollama", "ollama", provider_server.url + "/v1"))
    settings = provider_settings(load_config({}, {}, cwd, home), "s1", servers=servers)
    assert (settings.preset, settings.base_url, settings.model) == ("ollama", provider_server.url + "/v1", "llama3.2:3b")
    assert settings.origin == (f"no provider configured: using Ollama at {provider_server.url}/v1, model llama3.2:3b; "
                               "/model lists its 2 models")


def test_a_local_server_serving_one_model_gives_the_default_model(tmp_path, provider_server):
    home, cwd = setup(tmp_path)
    provider_server.models = ["Qwen2.5-Coder-7B-Instruct-Q4_K_M.gguf"]
    settings = provider_settings(load_config({"base_url": provider_server.url + "/v1"}, {}, cwd, home))
    assert settings.model == "Qwen2.5-Coder-7B-Instruct-Q4_K_M.gguf"
    assert settings.origin == ""  # one model: nothing to choose, nothing to say
    provider_server.models = ["b-model", "a-model"]
    settings = provider_settings(load_config({"base_url": provider_server.url + "/v1"}, {}, cwd, home))
    assert settings.model == "a-model"  # several: the first listed (sorted), said once at start
    assert settings.origin == (f"no model set: using a-model, the first of the 2 models {provider_server.url}/v1 "
                               "lists (/model lists them; --model NAME picks one)")
    provider_server.models = []
    settings = provider_settings(load_config({"base_url": provider_server.url + "/v1"}, {}, cwd, home))
    assert (settings.model, settings.origin) == ("local", "")


def test_missing_key_and_unknown_provider(tmp_path):
    home, cwd = setup(tmp_path)
    with pytest.raises(ConfigError, match="set ANTHROPIC_API_KEY"):
        provider_settings(load_config({"provider": "anthropic"}, {}, cwd, home))
    with pytest.raises(ConfigError, match="unknown provider 'nope'"):
        provider_settings(load_config({"provider": "nope"}, {}, cwd, home))


def test_bad_files_and_values_are_one_line(tmp_path):
    home, cwd = setup(tmp_path, "model = ")
    with pytest.raises(ConfigError, match="config.toml"):
        load_config({}, {}, cwd, home)
    home, cwd = setup(tmp_path / "b", "max_rounds = 'many'")
    with pytest.raises(ConfigError, match="max_rounds should be a int"):
        load_config({}, {}, cwd, home)


def test_tables_reach_tools_and_mcp(tmp_path):
    home, cwd = setup(tmp_path, '[mcp.servers.time]\ncommand = "x"\n[prices."m"]\ninput = 1.0', 'web_search_url = "http://s"')
    config = load_config({}, {}, cwd, home)
    assert config.mcp_servers == {"time": {"command": "x"}}
    assert config.prices == {"m": {"input": 1.0}}
    assert "web_search_url" not in config.raw and config.held == {"web_search_url": "http://s"}  # not trusted yet
    config = load_config({"trust": True}, {}, cwd, home)
    assert config.raw["web_search_url"] == "http://s" and config.held == {}


def test_an_unknown_key_is_one_line_with_the_closest_known_key(tmp_path):
    home, cwd = setup(tmp_path, user='modle = "x"\nmodel = "m"\n', project='zorp = 1\n[prices."m"]\ninput = 0\noutput = 0\n')
    config = load_config({}, {}, cwd, home)
    assert config.problems == [
        f"unknown key 'modle' in {home / 'config.toml'}; did you mean 'model'?",
        f"unknown key 'zorp' in {cwd / '.ankit' / 'config.toml'}; it is ignored (see ankit help providers)"]
    assert config.model == "m"


def test_every_key_a_bundled_tool_reads_is_declared():
    import re
    from ankit.settings.config import KEYS
    tools = Path(__file__).resolve().parents[1] / "tools"
    read = {key for path in tools.rglob("*.py") for key in re.findall(r"ctx\.config\.get\(\"(\w+)\"", path.read_text())}
    assert read and read <= set(KEYS), read - set(KEYS)


@pytest.mark.parametrize("line, message", [
    ('deferred = "lazy"', "deferred must be auto or native or append, not 'lazy'"),
    ('api = "completions"', "api must be responses or chat, not 'completions'"),
    ('preload = "no"', "preload should be true or false, got 'no'"),
])
def test_activation_settings_are_checked(tmp_path, line, message):
    home, cwd = setup(tmp_path, line)
    with pytest.raises(ConfigError, match=message):
        load_config({}, {}, cwd, home)


def test_activation_settings_reach_the_provider(tmp_path):
    home, cwd = setup(tmp_path, 'deferred = "append"\npreload = false\n')
    config = load_config({}, {"ANTHROPIC_API_KEY": "k" * 20}, cwd, home)
    assert config.preload is False and provider_settings(config).deferred == "append"


@pytest.mark.parametrize("env, flags, kind", [
    ({"OPENAI_API_KEY": "k" * 20}, {}, "responses"),  # a new user with an OpenAI key: nothing to configure
    ({"OPENAI_API_KEY": "k" * 20}, {"api": "chat"}, "openai"),
    ({"OPENAI_API_KEY": "k" * 20, "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}, {}, "openai"),
    ({}, {"base_url": "http://127.0.0.1:9/v1", "api": "responses"}, "responses"),
    ({}, {"base_url": "http://127.0.0.1:9/v1"}, "openai"),
    ({"ANTHROPIC_API_KEY": "k" * 20}, {"api": "responses"}, "anthropic"),
])
def test_the_wire_format_for_openai_style_servers(tmp_path, env, flags, kind):
    home, cwd = setup(tmp_path)
    assert provider_settings(load_config(flags, env, cwd, home)).kind == kind


def test_decision_mode_is_on_by_default_only_on_a_hosted_vendor_s_own_api(tmp_path):
    from ankit.providers.presets import vendor_hosted
    home, cwd = setup(tmp_path)
    config = load_config({}, {"ANTHROPIC_API_KEY": "k"}, cwd, home)
    assert config.search == "auto" and vendor_hosted(provider_settings(config))
    assert vendor_hosted(provider_settings(load_config({}, {"OPENAI_API_KEY": "k"}, cwd, home)))
    moved = {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1/"}
    assert not vendor_hosted(provider_settings(load_config({}, moved, cwd, home)))
    assert not vendor_hosted(provider_settings(load_config({"base_url": "http://127.0.0.1:8080/v1"}, {}, cwd, home)))
