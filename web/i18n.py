"""French and English for the pages: the strings, and which language a request gets.

The language is the user's choice (the `lang` cookie set by the switch), else the best
match of the browser's Accept-Language, else French (the product's users are mostly
French-speaking). Strings live in `web/i18n/<lang>.json`, one flat object each with the
same keys (a test checks it); `{name}` placeholders are filled with `str.format`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

LANGS = ("fr", "en")
DEFAULT = "fr"
COOKIE = "lang"
_DIR = Path(__file__).with_name("i18n")


@cache
def strings(lang: str) -> Mapping[str, str]:
    """All strings of one language (read once)."""
    if lang not in LANGS:
        lang = DEFAULT
    path = _DIR / f"{lang}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RuntimeError(f"{path}: cannot read the {lang} strings ({exc})") from exc
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise RuntimeError(f"{path}: must be one JSON object of strings")
    return data


def text(lang: str, key: str, **values: Any) -> str:
    """The string `key` in `lang`; the key itself if missing (visible, never a crash)."""
    template = strings(lang).get(key) or strings(DEFAULT).get(key) or key
    if not values:
        return template
    try:
        return template.format(**values)
    except (KeyError, IndexError, ValueError):
        return template


def negotiate(cookie: str | None, accept: Any) -> str:
    """The language for a request: the cookie, else Accept-Language, else French.

    `accept` is Werkzeug's `request.accept_languages` (or anything with `best_match`).
    """
    if cookie in LANGS:
        return str(cookie)
    try:
        found = accept.best_match(LANGS)  # Werkzeug matches "fr-CA" to "fr", "en-GB" to "en"
    except AttributeError:
        found = None
    return str(found) if found in LANGS else DEFAULT


def client_strings(lang: str) -> dict[str, str]:
    """The strings the page scripts use (keys starting with `js.`), without the prefix."""
    return {k[3:]: v for k, v in strings(lang).items() if k.startswith("js.")}


__all__ = ["COOKIE", "DEFAULT", "LANGS", "client_strings", "negotiate", "strings", "text"]
