"""The context window a server says a model has, asked of the loopback server as each kind of server answers."""

import json

from ankit.providers.windows import ServerWindows


def server_window(settings, model):
    return ServerWindows(settings)(model)


def test_llama_cpp_says_n_ctx_in_props(provider_server):
    provider_server.info["/props"] = {"default_generation_settings": {"n_ctx": 8192, "params": {}}, "total_slots": 1}
    provider_server.models = [{"id": "qwen3-8b", "object": "model", "meta": {"n_ctx_train": 40960}}]
    windows = ServerWindows(provider_server.settings("openai", preset="local"))
    assert windows("qwen3-8b") == 8192  # the window it runs with, not the one it was trained for
    assert windows("qwen3-8b") == 8192
    assert [r.path for r in provider_server.info_requests] == ["/props"]  # asked once per server and model
    assert provider_server.info_requests[0].headers["authorization"].startswith("Bearer sk-test")


def test_vllm_says_max_model_len_and_llama_cpp_meta_in_the_listing(provider_server):
    provider_server.models = [{"id": "other", "max_model_len": 4096}, {"id": "Qwen/Qwen3-8B", "max_model_len": 16384}]
    assert server_window(provider_server.settings("openai", preset="local"), "Qwen/Qwen3-8B") == 16384
    provider_server.models = [{"id": "m.gguf", "meta": {"n_ctx_train": 131072}}]
    assert server_window(provider_server.settings("openai", preset="local", base_url=provider_server.url + "/v1/"),
                         "anything") == 131072  # a server of one model: its entry, whatever it is called


def test_ollama_says_num_ctx_else_the_models_context_length_in_api_show(provider_server):
    provider_server.models = ["llama3.2"]
    provider_server.info["/api/show"] = {"parameters": "stop \"<|eot_id|>\"\nnum_ctx 16384",
                                         "model_info": {"llama.context_length": 131072}}
    settings = provider_server.settings("openai", preset="ollama")
    assert server_window(settings, "llama3.2") == 16384
    show = provider_server.info_requests[-1]
    assert show.method == "POST" and json.loads(show.body) == {"model": "llama3.2"}
    provider_server.info["/api/show"] = {"parameters": "", "model_info": {"llama.context_length": 131072}}
    assert server_window(settings, "llama3.2:70b") == 131072


def test_lm_studio_says_the_loaded_context_length(provider_server):
    provider_server.info["/api/v0/models/qwen%2Fqwen3-8b"] = {"id": "qwen/qwen3-8b", "max_context_length": 32768,
                                                             "loaded_context_length": 4096}
    assert server_window(provider_server.settings("openai", preset="lmstudio-test"), "qwen/qwen3-8b") == 4096


def test_a_server_that_says_nothing_leaves_the_guess_and_cloud_services_are_not_asked(provider_server):
    assert server_window(provider_server.settings("openai", preset="local"), "m") is None
    assert len(provider_server.info_requests) == 3  # /props, /api/show, /api/v0/models/m: each a 404
    for preset in ("openai", "anthropic"):
        assert server_window(provider_server.settings(preset, preset=preset, native=True), "m") is None
    assert len(provider_server.info_requests) == 3 and len(provider_server.model_requests) == 1
