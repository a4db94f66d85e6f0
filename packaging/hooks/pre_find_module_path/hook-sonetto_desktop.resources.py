"""``sonetto_desktop.resources`` lives in the repo's top-level ``resources/`` folder (pyproject's
package-dir maps it). PyInstaller searches a package's submodules only under the package's own folder,
so point it at the repo root, where ``resources/__init__.py`` is, when building from a checkout."""

from pathlib import Path

_REPO = Path(__file__).resolve().parents[3]


def pre_find_module_path(hook_api):
    if (_REPO / "resources" / "__init__.py").is_file():
        hook_api.search_dirs = [str(_REPO)]
