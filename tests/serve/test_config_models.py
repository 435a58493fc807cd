"""A gateway config names the models its router uses (``models:``), as the command line's
``--encoder`` / ``--ranking`` / ``--reranker`` do: a team that trained its own encoder could
serve it from Python only, never through ``schemarouter serve`` or a config file."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from schemarouter.cli import main
from schemarouter.errors import DocumentError
from schemarouter.serve.config import load_config
from schemarouter.serve.sources import build_router

from helpers import REPO

ENCODER, RANKING = REPO / "models" / "encoder", REPO / "models" / "ranking"


def _config(tmp_path: Path, catalog: Path, **extra: object) -> Path:
    path = tmp_path / "gateway.yaml"
    path.write_text(yaml.safe_dump({"catalogs": [str(catalog)], **extra}), encoding="utf-8")
    return path


def test_the_configs_models_are_the_routers(tiny_catalog: Path, tmp_path: Path) -> None:
    config = load_config(
        _config(tmp_path, tiny_catalog, models={"ranking": str(RANKING), "reranker": "none"})
    )
    router = build_router(config, embedding_cache=None)
    try:
        # the shipped card leaves the stage off; a folder named in the config is used
        assert router.ranking_model is not None
        assert router.reranker is None
        # a keyword (a command-line flag) wins over the config
        assert build_router(config, ranking=None, embedding_cache=None).ranking_model is None
    finally:
        router.close()


def test_a_config_s_encoder_folder_is_relative_to_the_config_and_named_when_missing(
    tiny_catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path, tiny_catalog, models={"encoder": "no-such-encoder"})
    assert load_config(config).models.encoder == str(tmp_path / "no-such-encoder")
    out = tmp_path / "index"
    for argv in (
        ["index", "build", "--config", str(config), "--out", str(out), "--quiet"],
        ["retrieve", "cell volume", "--config", str(config)],
    ):
        assert main(argv) != 0
        assert str(tmp_path / "no-such-encoder") in capsys.readouterr().err


def test_an_index_built_from_a_config_loads_with_its_encoder(
    tiny_catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path, tiny_catalog, models={"encoder": str(ENCODER)})
    out = tmp_path / "index"
    assert main(["index", "build", "--config", str(config), "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    argv = ["retrieve", "cell volume", "--config", str(config), "--index", str(out), "--json"]
    assert main(argv) == 0
    assert "cod/rest/result" in capsys.readouterr().out


def test_a_reranker_that_would_never_run_is_refused(
    tiny_catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``search.rerank: false`` with a reranker named (or ``--no-rerank`` with
    ``--reranker``): one of the two would be ignored without a word."""
    both = _config(tmp_path, tiny_catalog, models={"reranker": "shipped"}, search={"rerank": False})
    with pytest.raises(DocumentError, match=r"models\.reranker is 'shipped' but search\.rerank"):
        load_config(both)
    argv = ["serve", "--catalog", str(tiny_catalog), "--no-rerank", "--reranker", "shipped"]
    assert main(argv) != 0
    assert "a reranker (shipped) is given but searches do not rerank" in capsys.readouterr().err


@pytest.mark.parametrize("encoder", ["shipped", "none"])
def test_a_config_s_encoder_is_a_folder_only(
    tiny_catalog: Path, tmp_path: Path, encoder: str
) -> None:
    """Trial X2: ``models: {encoder: shipped}`` (as ranking and reranker take it) was kept
    as written and read as a folder ``shipped`` in the working directory, not the config's:
    'the encoder folder lacks model.onnx ... (at shipped)'. It is refused when the config
    is read, saying what to write."""
    config = _config(tmp_path, tiny_catalog, models={"encoder": encoder})
    with pytest.raises(DocumentError, match="leave it out for the shipped encoder"):
        load_config(config)


def test_serve_help_shows_every_config_key(tmp_path: Path) -> None:
    """A config error ends "See `schemarouter serve --help` for the format", but the help's
    sample held 6 of the 13 top-level keys and none of a server's own (``timeout``, ``env``,
    ``trusted`` ...): an operator told ``mcp_servers[0].timout`` is unknown found no
    ``timeout`` there (user trial P). The sample now holds every key of every part, and
    loads as a config."""
    from schemarouter.serve.cli import SERVE_EPILOG
    from schemarouter.serve.config import (
        AllowSpec,
        CallsSpec,
        CredentialSpec,
        GatewayConfig,
        McpServerSpec,
        ModelsSpec,
        SearchSpec,
        SourceSpec,
    )

    sample = SERVE_EPILOG.split("\n\n")[1]
    data = yaml.safe_load(sample)
    assert set(data) == set(GatewayConfig.model_fields)
    servers = {key for server in data["mcp_servers"] for key in server}
    assert servers == set(McpServerSpec.model_fields)
    assert set(data["openapi"][0]) == set(SourceSpec.model_fields)
    for key, spec in (
        ("allow", AllowSpec),
        ("search", SearchSpec),
        ("models", ModelsSpec),
        ("credentials", CredentialSpec),
        ("calls", CallsSpec),
    ):
        assert set(data[key]) == set(spec.model_fields), key
    (tmp_path / "gateway.yaml").write_text(sample)
    load_config(tmp_path / "gateway.yaml")  # a valid config, as written


def test_a_default_effect_on_an_untrusted_server_is_refused_when_the_config_loads(
    tmp_path: Path,
) -> None:
    """Trial D copied the `serve --help` sample's server (``trusted: false, default_effect:
    write``): the config loaded, then the upstream never joined: every search answered it
    ``unavailable`` with "[SR100] default_effect applies to trusted servers only", and the
    gateway tried it again every minute. The rule is the config's to say, where the file is
    read, with the key."""
    path = tmp_path / "gateway.yaml"
    server = {"provider": "notes", "command": ["python", "notes.py"], "default_effect": "read"}
    for untrusted in (server, {**server, "trusted": False, "default_effect": "write"}):
        path.write_text(yaml.safe_dump({"mcp_servers": [untrusted]}), encoding="utf-8")
        with pytest.raises(DocumentError, match="trusted servers only") as refused:
            load_config(path)
        assert "mcp_servers[0]" in str(refused.value) or "mcp_servers.0" in str(refused.value)
    path.write_text(
        yaml.safe_dump({"mcp_servers": [{**server, "trusted": True}]}), encoding="utf-8"
    )
    assert load_config(path).mcp_servers[0].default_effect == "read"
