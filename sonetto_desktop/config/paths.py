"""Where the app keeps its files: the config dir (settings, API key file, UI state) and the data dir
(memories, turn journal, chat sessions). Environment variables win over the platform defaults."""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "sonetto-desktop"


def config_dir() -> Path:
    """``$SONETTO_CONFIG_DIR``, else the platform's user config dir for the app."""
    env = os.environ.get("SONETTO_CONFIG_DIR", "").strip()
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def default_data_dir() -> Path:
    """``$SONETTO_DATA_DIR``, else the platform's user data dir for the app."""
    env = os.environ.get("SONETTO_DATA_DIR", "").strip()
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
