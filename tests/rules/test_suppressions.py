"""Suppression comments, per-file ignores and the baseline, end to end."""

from pathlib import Path

from tests.conftest import tree_files, write_tree

ORPHAN = {"agents/gsd-orphan.md": "# orphan\n"}


def _codes(run) -> list[tuple[str, str, int]]:  # type: ignore[no-untyped-def]
    return [(f["code"], f["path"], f["line"]) for f in run.json()["findings"]]


def test_ignore_on_the_line_before_or_the_same_line(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    files = tree_files(
        "gsd", {"agents/gsd-orphan.md": "<!-- drift-check: ignore[DC1] new -->\n# orphan\n"}
    )
    run = cli(str(write_tree(tmp_path, files)), "--format", "json", "-q")
    assert _codes(run) == []
    assert run.code == 0


def test_ignore_does_not_reach_two_lines_down(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    text = "---\nname: gsd-orphan\n---\n<!-- drift-check: ignore[DC103] x -->\n"
    files = tree_files("gsd", {"agents/gsd-orphan.md": text})
    # DC103 sits at the `name:` line (2); the comment covers lines 4 and 5 only
    run = cli(str(write_tree(tmp_path, files)), "--format", "json", "-q")
    assert ("DC103", "agents/gsd-orphan.md", 2) in _codes(run)
    assert ("DC010", "agents/gsd-orphan.md", 4) in _codes(run)


def test_ignore_file_and_python_comments(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    files = tree_files(
        "gsd",
        {
            "agents/gsd-orphan.md": (
                "# orphan\n\ntext\n<!-- drift-check: ignore-file[DC103] wip -->\n"
            ),
            "hooks/old.py": (
                "# drift-check: ignore[DC401] the tag is quoted to explain it\n"
                'TAG = "<files_to_read>"\n'
                'NOTE = "# drift-check: ignore[DC401] in a string is not a comment"\n'
            ),
        },
    )
    run = cli(str(write_tree(tmp_path, files)), "--format", "json", "-q")
    assert _codes(run) == []


def test_per_file_ignores(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    files = tree_files("gsd", ORPHAN)
    files[".drift-check.yaml"] = "per-file-ignores:\n  agents/gsd-orphan.md: [DC103]\n"
    run = cli(str(write_tree(tmp_path, files)), "--format", "json", "-q")
    assert _codes(run) == []
    write_tree(tmp_path, {".drift-check.yaml": "per-file-ignores:\n  agents/*.md: DC103\n"})
    bad = cli(str(tmp_path), "-q")
    assert bad.code == 2
    assert "`per-file-ignores` maps globs to lists of rule codes" in bad.err


LEGACY = {"gsd-core/workflows/old.md": "# Old\n\n<files_to_read>\nx\n</files_to_read>\n"}


def test_baseline_reports_only_new_drift(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = write_tree(tmp_path / "repo", tree_files("gsd", {**ORPHAN, **LEGACY}))
    baseline = tmp_path / "baseline.json"
    wrote = cli(str(root), "--baseline-write", str(baseline), "-q")
    assert wrote.code == 0
    recorded = baseline.read_text()
    assert '"code": "DC401"' in recorded and '"line"' not in recorded  # keyed by content
    assert cli(str(root), "--baseline", str(baseline), "-q").code == 0
    # lines added above a recorded finding do not break the baseline
    write_tree(
        root,
        {
            "gsd-core/workflows/old.md": (
                "# Old\n\nMore text.\n\n<files_to_read>\nx\n</files_to_read>\n"
            )
        },
    )
    run = cli(str(root), "--baseline", str(baseline), "--format", "json", "-q")
    assert _codes(run) == []
    assert run.code == 0
    # new drift is reported
    write_tree(root, {"agents/gsd-second.md": "# second\n"})
    run = cli(str(root), "--baseline", str(baseline), "--format", "json", "-q")
    assert _codes(run) == [("DC103", "agents/gsd-second.md", 1)]
    # a fixed finding is listed as a stale entry
    (root / "agents/gsd-orphan.md").unlink()
    (root / "agents/gsd-second.md").unlink()
    run = cli(str(root), "--baseline", str(baseline))
    assert run.code == 0
    assert "baseline entry no longer occurs: DC103 agents/gsd-orphan.md" in run.err
    # the file is stable: written twice, the same bytes
    cli(str(root), "--baseline-write", str(tmp_path / "a.json"), "-q")
    cli(str(root), "--baseline-write", str(tmp_path / "b.json"), "-q")
    assert (tmp_path / "a.json").read_text() == (tmp_path / "b.json").read_text()


def test_a_file_that_is_not_a_baseline(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = write_tree(tmp_path / "repo", tree_files("gsd", None))
    (tmp_path / "b.json").write_text("[1, 2]")
    run = cli(str(root), "--baseline", str(tmp_path / "b.json"))
    assert run.code == 2
    assert "not a drift-check baseline" in run.err
    assert "Traceback" not in run.err


def test_excluded_files_are_not_checked_but_still_exist(tmp_path: Path, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import builtins
    import os

    files = tree_files(
        "gsd",
        {
            **ORPHAN,  # DC103 unless excluded
            **LEGACY,  # DC401 unless excluded
            "gsd-core/workflows/legacy/stray.md": "On `## NOBODY EMITS THIS`: stop.\n",  # DC305
        },
    )
    root = write_tree(tmp_path, files)
    assert {c for c, _, _ in _codes(cli(str(root), "--format", "json", "-q"))} == {
        "DC103",
        "DC305",
        "DC401",
    }
    (root / ".drift-check.yaml").write_text(
        "preset: gsd\nexclude:\n  - agents/gsd-orphan.md\n  - gsd-core/workflows/legacy/**\n"
        "  - gsd-core/workflows/old.md\n  - gsd-core/workflows/execute.md\n",
        encoding="utf-8",
    )
    opened: list[str] = []
    real_open, real_os_open = builtins.open, os.open

    def recording(file, *args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(os.fspath(file))
        return real_open(file, *args, **kwargs)

    def recording_os(file, *args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(os.fspath(file))
        return real_os_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", recording)
    monkeypatch.setattr(os, "open", recording_os)
    run = cli(str(root), "--format", "json", "-q")
    # gsd-core/workflows/execute.md is cited in `Consumed by`: excluded, it still exists (no
    # DC105) and is read by nobody; so is every other excluded file
    assert _codes(run) == []
    assert not [
        p for p in opened if "orphan" in p or "legacy" in p or p.endswith(("old.md", "execute.md"))
    ]


SKILL_HEAD = "---\nname: investigation\ndescription: Use when diagnosing a failure.\n---\n\n"
SKILL = "skills/investigation/SKILL.md"


def _skill(tmp_path: Path, body: str, extra: dict[str, str] | None = None) -> Path:
    return write_tree(tmp_path, tree_files("gaia", {SKILL: SKILL_HEAD + body, **(extra or {})}))


def test_a_trailing_comment_no_longer_hides_the_next_line(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = _skill(
        tmp_path,
        "See [a](a.md). <!-- drift-check: ignore[DC701] a is generated -->\nSee [b](b.md).\n",
    )
    run = cli(str(root), "--format", "json", "-q", "--select", "DC010,DC701")
    # line 6's own finding is covered; line 7's is not, and the comment was used
    assert _codes(run) == [("DC701", SKILL, 7)]


def test_scopes_of_every_form(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    lines = [
        "<!-- drift-check: ignore[DC701] -->",  # 6: alone, covers 7
        "See [a](a.md).",  # 7: covered
        "See [b](b.md).",  # 8: reported
        "Text. <!-- drift-check: disable-next-line[DC701] -->",  # 9
        "See [c](c.md).",  # 10: covered
        "See [d](d.md).",  # 11: reported
        "<!-- drift-check: disable[DC701] -->",  # 12
        "See [e](e.md).",  # 13: covered
        "See [f](f.md). <!-- drift-check: enable[DC701] -->",  # 14: the enable's line is covered
        "See [g](g.md).",  # 15: reported
        "<!-- drift-check: disable -->",  # 16: every code
        "See [h](h.md) and reference.md.",  # 17: covered (DC701, DC703)
        "<!-- drift-check: enable -->",  # 18
        "See [i](i.md).",  # 19: reported
    ]
    root = _skill(tmp_path, "\n".join(lines) + "\n")
    run = cli(str(root), "--format", "json", "-q", "--select", "DC010,DC7")
    assert _codes(run) == [("DC701", SKILL, n) for n in (8, 11, 15, 19)]


def test_a_disable_shown_in_a_fence_hides_nothing(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = _skill(
        tmp_path,
        "Turn a rule off for a block:\n\n```markdown\n<!-- drift-check: disable -->\n```\n\n"
        "See [a](a.md).\n",
    )
    run = cli(str(root), "--format", "json", "-q", "--select", "DC010,DC701")
    assert _codes(run) == [("DC701", SKILL, 12)]


def test_yaml_comments_in_frontmatter(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    agent = (
        "---\n"
        "name: developer\n"
        "description: 'Mentions # drift-check: ignore[DC605] in a string, which is text'\n"
        "tools: Read, Bridge  # drift-check: ignore[DC605] our MCP bridge\n"
        "disallowedTools: Deploy\n"
        "notes: |\n"
        "  # drift-check: ignore[DC608] a block scalar's line is text\n"
        "# drift-check: ignore reviewed\n"
        "color: blue\n"
        "---\nBody.\n"
    )
    root = write_tree(tmp_path, tree_files("gaia", {"agents/developer.md": agent}))
    run = cli(str(root), "--format", "json", "-q", "--select", "DC010,DC6")
    assert _codes(run) == [
        ("DC605", "agents/developer.md", 5),  # the comment on line 4 covers line 4 only
        ("DC608", "agents/developer.md", 6),  # `notes` is not a known key
    ]


def test_python_comments_of_every_form(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    # DC401 reports a file once, at its first tag
    files = {
        "hooks/bare.py": "A = '<files_to_read>'  # drift-check: ignore quoted to explain it\n",
        "hooks/block.py": (
            "# drift-check: disable[DC401] the old tags, listed on purpose\n"
            "A = 1\n"
            "# drift-check: enable[DC401]\n"
            "B = '<files_to_read>'\n"
        ),
        "hooks/next.py": (
            "'<files_to_read>'  # drift-check: disable-next-line[DC401] not this line\n"
        ),
    }
    root = write_tree(tmp_path, tree_files("gsd", files))
    run = cli(str(root), "--format", "json", "-q")
    assert _codes(run) == [
        ("DC010", "hooks/block.py", 1),
        ("DC401", "hooks/block.py", 4),
        ("DC401", "hooks/next.py", 1),
        ("DC010", "hooks/next.py", 1),  # after the tag, at the comment's column
    ]


def test_unused_comments_follow_the_config(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = _skill(tmp_path, "Text. <!-- drift-check: ignore[DC999] -->\n")
    run = cli(str(root), "--format", "json", "-q")
    [finding] = run.json()["findings"]
    assert (finding["code"], finding["line"], finding["column"]) == ("DC010", 6, 32)
    assert finding["severity"] == "warning"
    (root / ".drift-check.yaml").write_text("severity:\n  DC010: error\n", encoding="utf-8")
    assert cli(str(root), "--format", "json", "-q").json()["findings"][0]["severity"] == "error"
    (root / ".drift-check.yaml").write_text(
        "per-file-ignores:\n  skills/**: [DC010]\n", encoding="utf-8"
    )
    assert _codes(cli(str(root), "--format", "json", "-q")) == []
    # a run without DC010 says nothing about suppressions
    (root / ".drift-check.yaml").unlink()
    assert _codes(cli(str(root), "--format", "json", "-q", "--ignore", "DC010")) == []


def test_a_baseline_holds_an_unused_suppression(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = _skill(tmp_path / "repo", "Text. <!-- drift-check: ignore[DC701] -->\n")
    baseline = tmp_path / "baseline.json"
    assert cli(str(root), "--baseline-write", str(baseline), "-q").code == 0
    assert '"code": "DC010"' in baseline.read_text()
    run = cli(str(root), "--baseline", str(baseline), "--format", "json", "-q")
    assert _codes(run) == []


def _doc_block(language: str, after: str) -> str:
    """The first ```language block of docs/suppressions.md after the heading `after`."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "suppressions.md").read_text()
    section = page.split(after, 1)[1]
    return section.split(f"```{language}\n", 1)[1].split("```\n", 1)[0]


def test_the_documented_examples_do_what_the_page_says(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    example = _doc_block("markdown", "## What each word covers")
    root = _skill(tmp_path, example)
    run = cli(str(root), "--format", "json", "-q")
    # only `b.md` (the line after a comment that follows text) is reported
    assert _codes(run) == [("DC701", SKILL, 6 + example.split("\n").index("See [b](b.md)."))]
    frontmatter = _doc_block("yaml", "In frontmatter the same holds")
    agent = frontmatter.replace("name: developer\n", "name: developer\ndescription: Codes.\n")
    root = write_tree(tmp_path / "agent", tree_files("gaia", {"agents/developer.md": agent}))
    assert _codes(cli(str(root), "--format", "json", "-q", "--select", "DC010,DC6")) == []
