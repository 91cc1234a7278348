"""The findings as a Markdown step summary and as an HTML page: grouped as promised, every
message and name as text, links to files relative to where the page is written."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from drift_check.config import load_config
from drift_check.engine import run
from drift_check.reporters import markdown
from drift_check.reporters.html import render as html_render
from tests.reporters.test_graph import hostile_tree

ROOT = Path(__file__).resolve().parents[2]


def test_markdown_text_is_never_markup() -> None:
    assert markdown.plain("a *b* _c_ [d](e) <f> & `g` | $h$ @i #1 ~j~ \\k") == (
        "a \\*b\\* \\_c\\_ \\[d\\](e) &lt;f&gt; &amp; \\`g\\` \\| \\$h\\$ \\@i \\#1 \\~j\\~ \\\\k"
    )
    assert markdown.code("a`b") == "``a`b``"
    assert markdown.code("`x`") == "`` `x` ``"
    assert markdown.message("agent `a*b` has no row; see [x](y)") == (
        "agent `a*b` has no row; see \\[x\\](y)"
    )
    # the escape shown for a control character is itself escaped, so Markdown shows `\x1b`
    assert markdown.plain("two\nlines\x1b") == "two lines\\\\x1b"


def test_markdown_summary_of_examples(cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(ROOT)
    out = cli("examples", "-q", "--format", "markdown").out
    assert out.startswith("## drift-check: 15 findings\n")
    table = re.findall(r"^\| (DC\d{3}) \| [^|]+ \| \w+ \| (\d+) \|$", out, re.M)
    assert sum(int(n) for _, n in table) == 15
    assert out.count("<details>") == 6 and out.count("</details>") == 6
    assert len(re.findall(r"^- `\d+:\d+` \*\*DC\d{3}\*\* ", out, re.M)) == 15
    clean = cli("examples", "-q", "--format", "markdown", "--select", "DC301")
    assert clean.out.endswith("All checks passed!\n")


def test_markdown_lists_at_most_max_listed(cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(markdown, "MAX_LISTED", 4)
    out = cli("examples", "-q", "--format", "markdown").out
    assert len(re.findall(r"^- `", out, re.M)) == 4
    assert "11 more findings are not listed here" in out
    assert "| DC305 | quoted-marker-undeclared | error | 2 |" in out


def test_markdown_of_hostile_findings(tmp_path: Path) -> None:
    report = run(load_config(str(hostile_tree(tmp_path))))
    out = markdown.render(report)
    outside_code = re.sub(r"(`+)[^`]*?\1", "", out)
    assert "<img" not in outside_code and "<script" not in outside_code
    assert not re.search(r"(?<!\\)\[[^\]]*\]\(", outside_code)  # no link


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def test_html_report_groups_by_file_and_rule(cli, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(ROOT)
    out = tmp_path / "site" / "report.html"
    out.parent.mkdir()
    run_ = cli("examples", "-q", "--format", "html", "-o", str(out))
    assert run_.code == 1
    page = out.read_text(encoding="utf-8")
    by_file, by_rule = page.split('<section id="by-rule">')
    assert by_file.count("<li ") == by_rule.count("<li ") == 15
    assert by_rule.count("<details id=") == 14
    # the rule's explanation, from its metadata
    assert "The agent reports something nobody acts on" not in by_rule  # DC301 did not fire
    assert "Matching is exact-case, so the branch never fires" in by_rule  # DC302 did
    tags = Tags()
    tags.feed(page)
    hrefs = [a["href"] for t, a in tags.tags if t == "a" and a.get("class") == "where"]
    relative = Path("..") / ".." / ".." / ROOT.relative_to("/") / "examples"
    assert all(h and h.startswith(("../", "./")) for h in hrefs)
    expected = f"{relative.as_posix()}/agents/gsd-mapper.md#L2"
    assert any(h and h.endswith("examples/agents/gsd-mapper.md#L2") for h in hrefs), expected
    resolved = (out.parent / hrefs[0].split("#")[0]).resolve()
    assert resolved == ROOT / "examples" / "agents" / "gsd-mapper.md"
    assert not [t for t, _ in tags.tags if t in ("script", "img", "iframe")]


def test_html_report_of_hostile_findings(tmp_path: Path) -> None:
    report = run(load_config(str(hostile_tree(tmp_path / "tree"))))
    page = html_render(report, str(tmp_path))
    tags = Tags()
    tags.feed(page)
    allowed = {
        "html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "p", "strong",
        "nav", "a", "main", "section", "details", "summary", "span", "ul", "li", "code", "div",
        "pre",
    }  # fmt: skip
    assert {t for t, _ in tags.tags} <= allowed
    assert not [k for _, attrs in tags.tags for k in attrs if k.startswith("on")]
    assert "&lt;img src=x onerror=" in page
