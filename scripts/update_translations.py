"""Regenerate the English UI translation.

1. ``pyside6-lupdate`` collects every ``tr()`` / ``translate()`` string of ``sonetto_desktop/ui`` and ``presentation``
   into ``resources/translations/sonetto_en.ts`` (Chinese is the source language);
2. the English texts from ``resources/translations/sonetto_en.yaml`` are filled in (a text with a count,
   ``translate(context, "…%Ln…", None, n)``, takes ``[one, other]``: "1 conversation", "2 conversations");
3. ``pyside6-lrelease`` compiles ``sonetto_en.qm``, which the app loads (``ui/i18n.py``).

Prints the strings that still have no English so they can be added to the YAML.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "resources" / "translations"
TS = FOLDER / "sonetto_en.ts"
QM = FOLDER / "sonetto_en.qm"
STRINGS = FOLDER / "sonetto_en.yaml"


def _tool(name: str) -> str:
    found = shutil.which(f"pyside6-{name}")
    if not found:
        raise SystemExit(f"pyside6-{name} not found (it ships with PySide6-Essentials)")
    return found


def main() -> int:
    sources = sorted(str(p.relative_to(ROOT)) for folder in ("ui", "presentation")
                     for p in (ROOT / "sonetto_desktop" / folder).rglob("*.py"))
    subprocess.run([_tool("lupdate"), *sources, "-no-obsolete", "-source-language", "zh_CN",
                    "-target-language", "en", "-ts", str(TS.relative_to(ROOT))], cwd=ROOT, check=True)
    english: dict[str, dict[str, str]] = yaml.safe_load(STRINGS.read_text(encoding="utf-8")) or {}
    tree = ET.parse(TS)
    missing = []
    for context in tree.getroot().iter("context"):
        name = context.findtext("name")
        for message in context.iter("message"):
            source = message.findtext("source")
            translation = message.find("translation")
            text = english.get(name, {}).get(source)
            if text is None:
                missing.append(f"{name}: {source!r}")
                continue
            if isinstance(text, list) or message.get("numerus") == "yes":  # a count (%Ln): [one, other]
                message.set("numerus", "yes")  # (lupdate marks only tr(…, n) calls)
                forms = text if isinstance(text, list) else [text, text]
                translation.text = None
                for child in list(translation):
                    translation.remove(child)
                for form in forms:
                    ET.SubElement(translation, "numerusform").text = form
            else:
                translation.text = text
            translation.attrib.pop("type", None)
    tree.write(TS, encoding="utf-8", xml_declaration=True)
    subprocess.run([_tool("lrelease"), str(TS.relative_to(ROOT)), "-qm", str(QM.relative_to(ROOT))], cwd=ROOT, check=True)
    for line in missing:
        print("no English yet:", line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
