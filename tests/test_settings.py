"""Settings: round trip, env overrides, bad files, and the API key kept out of files, repr and logs."""

from __future__ import annotations

import json
import logging
import os
import stat
import sys
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend

from sonetto_desktop.config import secrets as secrets_mod
from sonetto_desktop.config.secrets import ApiKeyStore, keyring_usable, load_api_key, store_api_key
from sonetto_desktop.config.settings import Settings, config_dir, default_data_dir

KEY = "sk-live-THE-SECRET-KEY-1234567890"


@pytest.fixture
def cfg() -> Path:
    return config_dir()


def full_settings() -> Settings:
    return Settings(
        base_url="https://api.deepseek.com/v1",
        model="deepseek-chat",
        api_key=KEY,
        temperature=1.1,
        retrieval_mode="mechanical",
        store_backend="sqlite",
        data_dir="~/somewhere",
        theme="dark",
        language="en",
        request_timeout=30.0,
        recall_timeout=3.5,
    )


# -- dirs ---------------------------------------------------------------------------------------


def test_dirs_follow_environment(_isolated_user_dirs):
    assert config_dir() == _isolated_user_dirs / "config"
    assert default_data_dir() == _isolated_user_dirs / "data"


def test_dirs_default_to_platformdirs(monkeypatch):
    import platformdirs

    monkeypatch.delenv("SONETTO_CONFIG_DIR")
    monkeypatch.delenv("SONETTO_DATA_DIR")
    assert config_dir() == Path(platformdirs.user_config_dir("sonetto-desktop", appauthor=False))
    assert default_data_dir() == Path(platformdirs.user_data_dir("sonetto-desktop", appauthor=False))


# -- round trip ---------------------------------------------------------------------------------


def test_defaults_when_no_file(cfg):
    s = Settings.load()
    assert s == Settings()
    assert not (cfg / "settings.json").exists()
    assert not s.is_llm_configured


def test_round_trip_all_fields(cfg):
    original = full_settings()
    original.save()
    loaded = Settings.load()
    assert loaded == original
    assert loaded.api_key == KEY


def test_round_trip_explicit_path(tmp_path):
    path = tmp_path / "elsewhere" / "s.json"
    full_settings().save(path)
    assert Settings.load(path) == full_settings()
    assert (tmp_path / "elsewhere" / "api_key").exists()  # the key sits next to the file it belongs to


def test_save_is_atomic_and_leaves_no_temp_files(cfg):
    full_settings().save()
    Settings(model="x").save()
    names = sorted(p.name for p in cfg.iterdir())
    assert names == ["settings.json"]  # the empty key deleted the key file; no *.tmp left
    assert json.loads((cfg / "settings.json").read_text("utf-8"))["model"] == "x"


def test_saving_an_empty_key_deletes_it(cfg):
    full_settings().save()
    assert load_api_key() == KEY
    s = Settings.load()
    s.api_key = ""
    s.save()
    assert Settings.load().api_key == ""


# -- the key stays secret -----------------------------------------------------------------------


def test_key_not_in_settings_json(cfg):
    full_settings().save()
    text = (cfg / "settings.json").read_text("utf-8")
    assert KEY not in text
    assert "api_key" not in json.loads(text)


def test_key_not_in_repr_or_str():
    s = full_settings()
    for shown in (repr(s), str(s), f"{s}"):
        assert KEY not in shown
        assert "api_key='********'" in shown
    assert "api_key=''" in repr(Settings())


@pytest.mark.parametrize("url", ["postgresql://me:pw-S3cret/x@db.example:5432/mem",
                                 "postgres://me@db.example/mem?password=pw-S3cret&sslmode=require",
                                 "host=db.example user=me password='pw-S3cret'"])
def test_a_password_in_the_server_address_is_not_in_repr_or_str(url):
    """An address with its password in it (``SONETTO_POSTGRES_URL``, a file an older version saved) was
    shown whole by ``repr``/``str``: in any log line or message that shows the settings."""
    s = Settings(store_backend="postgres", postgres_url=url)
    for shown in (repr(s), str(s), f"{s}"):
        assert "pw-S3cret" not in shown and "db.example" in shown, shown


def test_key_not_in_logs(cfg, caplog):
    caplog.set_level(logging.DEBUG)
    s = full_settings()
    s.save()
    (cfg / "settings.json").write_text('{"temperature": "hot", "theme": 7}', "utf-8")
    Settings.load().with_env()
    logging.getLogger("test").info("settings: %s", s)
    assert caplog.records  # the bad values above were logged
    assert all(KEY not in r.getMessage() for r in caplog.records)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX mode bits")
def test_key_file_is_owner_only(cfg):
    old = os.umask(0)  # even a permissive umask must not widen it
    try:
        store_api_key(KEY)
    finally:
        os.umask(old)
    mode = stat.S_IMODE(os.stat(cfg / "api_key").st_mode)
    assert mode == 0o600


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX mode bits")
def test_existing_wide_key_file_is_tightened(cfg):
    cfg.mkdir(parents=True)
    (cfg / "api_key").write_text("old")
    os.chmod(cfg / "api_key", 0o644)
    store_api_key(KEY)
    assert stat.S_IMODE(os.stat(cfg / "api_key").st_mode) == 0o600
    assert load_api_key() == KEY


def test_fail_keyring_uses_the_file(cfg):
    assert not keyring_usable()
    assert ApiKeyStore().backend == "file"
    assert store_api_key(KEY) == "file"
    assert (cfg / "api_key").read_text("utf-8") == KEY


class MemoryKeyring(KeyringBackend):
    """A small in-test keyring backend: a dict."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service, username):
        return self.store.get((service, username))

    def set_password(self, service, username, password):
        self.store[(service, username)] = password

    def delete_password(self, service, username):
        from keyring.errors import PasswordDeleteError

        if (service, username) not in self.store:
            raise PasswordDeleteError("missing")
        del self.store[(service, username)]


@pytest.fixture
def memory_keyring():
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)


def test_usable_keyring_gets_the_key_and_no_file(cfg, memory_keyring):
    assert keyring_usable()
    cfg.mkdir(parents=True)
    (cfg / "api_key").write_text("stale")  # a leftover from the file fallback must go
    full_settings().save()
    assert memory_keyring.store == {(secrets_mod.SERVICE, secrets_mod.USERNAME): KEY}
    assert not (cfg / "api_key").exists()
    assert Settings.load().api_key == KEY
    ApiKeyStore().delete()
    assert memory_keyring.store == {}
    ApiKeyStore().delete()  # deleting twice is fine
    assert Settings.load().api_key == ""


def test_broken_keyring_falls_back_to_file(cfg, memory_keyring, monkeypatch, caplog):
    def broken(*args):
        raise RuntimeError(f"locked {KEY}")

    monkeypatch.setattr(memory_keyring, "set_password", broken)
    monkeypatch.setattr(memory_keyring, "get_password", broken)
    assert store_api_key(KEY) == "file"
    assert load_api_key() == KEY
    assert all(KEY not in r.getMessage() for r in caplog.records)
    assert any("keyring" in r.getMessage() for r in caplog.records)


# -- bad files and values -----------------------------------------------------------------------


def test_corrupt_file_gives_defaults_and_is_kept_aside(cfg, caplog):
    cfg.mkdir(parents=True)
    (cfg / "settings.json").write_text("{not json", "utf-8")
    with caplog.at_level(logging.WARNING):
        s = Settings.load()
    assert s == Settings()
    asides = list(cfg.glob("settings.json.corrupt-*"))
    assert len(asides) == 1 and asides[0].read_text("utf-8") == "{not json"
    assert not (cfg / "settings.json").exists()
    assert any("corrupt" in r.getMessage() for r in caplog.records)
    Settings(model="m").save()  # and saving works again afterwards
    assert Settings.load().model == "m"


def test_non_object_json_is_corrupt(cfg):
    cfg.mkdir(parents=True)
    (cfg / "settings.json").write_text("[1, 2]", "utf-8")
    assert Settings.load() == Settings()
    assert len(list(cfg.glob("settings.json.corrupt-*"))) == 1


def test_two_corrupt_files_both_kept(cfg):
    cfg.mkdir(parents=True)
    for text in ("{bad1", "{bad2"):
        (cfg / "settings.json").write_text(text, "utf-8")
        Settings.load()
    kept = sorted(p.read_text("utf-8") for p in cfg.glob("settings.json.corrupt-*"))
    assert kept == ["{bad1", "{bad2"]


def test_unknown_keys_ignored_and_bad_values_defaulted(cfg, caplog):
    cfg.mkdir(parents=True)
    data = {
        "model": "qwen-plus",
        "future_option": True,
        "api_key": "sk-from-file-should-be-ignored",
        "temperature": "hot",
        "retrieval_mode": "psychic",
        "store_backend": "sqlite",
        "theme": None,
        "request_timeout": -5,
        "recall_timeout": 2,
        "language": "en",
        "_env_originals": {"model": "x"},
    }
    (cfg / "settings.json").write_text(json.dumps(data), "utf-8")
    with caplog.at_level(logging.WARNING):
        s = Settings.load()
    assert s.model == "qwen-plus"
    assert s.api_key == ""
    assert s.temperature == 0.7 and s.retrieval_mode == "hybrid" and s.theme == "system"
    assert s.request_timeout == 60.0
    assert s.recall_timeout == 2.0 and isinstance(s.recall_timeout, float)
    assert s.store_backend == "sqlite" and s.language == "en"
    assert s.env_overridden == frozenset()
    warned = " ".join(r.getMessage() for r in caplog.records)
    for name in ("temperature", "retrieval_mode", "theme", "request_timeout"):
        assert name in warned
    assert "sk-from-file" not in warned


def test_a_newer_versions_settings_survive_a_save(cfg):
    """A settings.json written by a newer version (or another front end of one) keeps what this version
    does not know when this version saves: going back a version and changing the theme does not
    wipe the newer version's settings. A key that names a secret is still never written."""
    cfg.mkdir(parents=True)
    data = {"model": "qwen-plus", "future_option": {"mode": "x", "n": 3}, "future_flag": False,
            "api_key": "sk-from-file-should-be-ignored", "_env_originals": {"model": "x"}}
    (cfg / "settings.json").write_text(json.dumps(data), "utf-8")
    s = Settings.load()
    s.theme = "dark"
    s.save()
    saved = json.loads((cfg / "settings.json").read_text("utf-8"))
    assert saved["future_option"] == {"mode": "x", "n": 3} and saved["future_flag"] is False
    assert saved["theme"] == "dark" and saved["model"] == "qwen-plus"
    assert "api_key" not in saved and "_env_originals" not in saved
    assert Settings.load() == s  # and they are nothing this version reads


def test_unreadable_path_gives_defaults(tmp_path):
    assert Settings.load(tmp_path) == Settings()  # a directory, not a file


def test_validate():
    assert Settings().validate() == []
    assert full_settings().validate() == []
    assert Settings(base_url="http://localhost:11434/v1", model="qwen2.5").validate() == []
    problems = Settings(
        base_url="localhost:11434", retrieval_mode="x", temperature=5.0, store_backend="db", theme="pink"
    ).validate()
    fields = {p.field for p in problems}
    assert fields == {"base_url", "model", "retrieval_mode", "temperature", "store_backend", "theme"}
    assert all(p.zh and p.en for p in problems)
    assert [p.field for p in Settings(model="m").validate()] == ["base_url"]


# -- configuration state ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("base_url", "key", "model", "configured", "effective"),
    [
        ("", "", "", False, ""),
        ("", "", "gpt-4o-mini", False, ""),
        ("", KEY, "", False, "https://api.openai.com/v1"),
        ("", KEY, "gpt-4o-mini", True, "https://api.openai.com/v1"),
        ("http://localhost:11434/v1/", "", "qwen2.5", True, "http://localhost:11434/v1"),
        ("https://api.deepseek.com/v1", KEY, "deepseek-chat", True, "https://api.deepseek.com/v1"),
    ],
)
def test_is_llm_configured(base_url, key, model, configured, effective):
    s = Settings(base_url=base_url, api_key=key, model=model)
    assert s.is_llm_configured is configured
    assert s.effective_base_url == effective


def test_resolved_data_dir(_isolated_user_dirs):
    assert Settings().resolved_data_dir() == _isolated_user_dirs / "data"
    assert Settings(data_dir="~/x").resolved_data_dir() == Path("~/x").expanduser()


# -- environment overrides ----------------------------------------------------------------------


def test_env_overrides_file(monkeypatch, tmp_path):
    full_settings().save()
    monkeypatch.setenv("OPENAI_BASE_URL", "http://openai-base/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-key-0000")
    monkeypatch.setenv("SONETTO_MODEL", "env-model")
    monkeypatch.setenv("SONETTO_DATA_DIR", str(tmp_path / "envdata"))
    s = Settings.load().with_env()
    assert s.base_url == "http://openai-base/v1"
    assert s.api_key == "sk-env-key-0000"
    assert s.model == "env-model"
    assert s.resolved_data_dir() == tmp_path / "envdata"
    assert s.env_overridden == {"base_url", "api_key", "model", "data_dir"}
    assert s.theme == "dark"  # untouched fields come from the file


def test_sonetto_base_url_wins_over_openai_base_url(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://openai-base/v1")
    monkeypatch.setenv("SONETTO_BASE_URL", "http://sonetto-base/v1")
    assert Settings().with_env().base_url == "http://sonetto-base/v1"
    monkeypatch.setenv("SONETTO_BASE_URL", "  ")  # blank counts as unset
    assert Settings().with_env().base_url == "http://openai-base/v1"


def test_env_values_are_not_saved_back(monkeypatch, cfg):
    full_settings().save()
    monkeypatch.setenv("SONETTO_MODEL", "env-model")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-key-0000")
    s = Settings.load().with_env()
    s.theme = "light"
    s.save()
    monkeypatch.delenv("SONETTO_MODEL")
    monkeypatch.delenv("OPENAI_API_KEY")
    again = Settings.load()
    assert again.model == "deepseek-chat"
    assert again.api_key == KEY
    assert again.theme == "light"


def test_with_env_explicit_mapping_and_idempotent():
    s = Settings(model="file-model")
    once = s.with_env({"SONETTO_MODEL": "a"})
    twice = once.with_env({"SONETTO_MODEL": "b"})
    assert (once.model, twice.model) == ("a", "b")
    assert twice.to_dict()["model"] == "file-model"
    assert s.with_env({}) == s
