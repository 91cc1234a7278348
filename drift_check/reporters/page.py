"""What the HTML pages share: escaping, data for their scripts, links to files, the frame.

A page is one self-contained file: its styles and scripts are inline, and its Content
Security Policy forbids every fetch, so it opens offline, from a CI artifact, or from a mail.
Every name and message from the tree is escaped where it is written (`text`, `attr`) or
handed to the script as JSON that cannot end the script element (`script_json`); the
scripts write it with `textContent`, never as markup.
"""

from __future__ import annotations

import html
import json
import os
import re
from importlib import resources
from typing import Any
from urllib.parse import quote

from drift_check.reporters.escape import escape

# control characters are shown escaped (`\x1b`), as on a terminal; line breaks and tabs
# are layout, and stay
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029]")

# no request leaves the page: scripts and styles inline only, images only as data: URIs
CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"


def _shown(value: object) -> str:
    return _CONTROL.sub(lambda m: escape(m.group()), str(value))  # one character each


def text(value: object) -> str:
    """Text for an element's content: control characters shown escaped, markup escaped."""
    return html.escape(_shown(value), quote=False)


def attr(value: object) -> str:
    """Text for a quoted attribute value."""
    return html.escape(_shown(value), quote=True)


_SCRIPT_UNSAFE = re.compile("[<>&\u2028\u2029]")


def script_json(data: Any) -> str:
    """JSON for a `<script type="application/json">` element: `<`, `>` and `&` as `\\u`
    escapes, so no text in it can close the element or open a comment."""
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return _SCRIPT_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", raw)


def file_href(root: str, path: str, line: int | None, base: str) -> str:
    """A relative link from the folder `base` (where the page is written) to `path` in the
    tree at `root`, at `line` (`#L12`, as code hosts number lines). Percent-encoded, so no
    file name can make it another scheme (`javascript:`) or leave the attribute."""
    target = os.path.normpath(os.path.join(root, path))
    rel = os.path.relpath(os.path.abspath(target), os.path.abspath(base)).replace(os.sep, "/")
    href = quote(rel, safe="/")
    if not href.startswith("."):
        href = "./" + href
    return href + (f"#L{line}" if line else "")


def asset(name: str) -> str:
    """A stylesheet or script shipped beside the reporters (`reporters/assets/NAME`)."""
    return resources.files("drift_check.reporters").joinpath("assets", name).read_text("utf-8")


def document(title: str, style: str, body: str, script: str = "", data: Any = None) -> str:
    """The page: its title, inline style, body, data for the script, and the script."""
    parts = [
        "<!DOCTYPE html>\n",
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n',
        f'<meta http-equiv="Content-Security-Policy" content="{attr(CSP)}">\n',
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
        '<meta name="referrer" content="no-referrer">\n',
        f"<title>{text(title)}</title>\n<style>\n{style}</style>\n</head>\n<body>\n",
        body,
    ]
    if data is not None:
        parts.append(f'<script id="data" type="application/json">{script_json(data)}</script>\n')
    if script:
        parts.append(f"<script>\n{script}</script>\n")
    parts.append("</body>\n</html>\n")
    return "".join(parts)
