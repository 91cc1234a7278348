"""A generated skills package with structured contracts, for timing the DC92x checks.

`generate_contracts(root, skills, seed)` writes `skills/<group>/<name>/` folders shaped like
keryx's bundled skills (the seed excerpt 001): per skill

- `SKILL.md`: frontmatter, a few paragraphs, its `<NAME>_RESULT` template, a `json`
  example naming its output schema by `$schema`, a `json:contract` block, four `json` API
  payloads that pair with nothing, and a line reading two result fields;
- `input-contract.schema.json` (about 60 lines, one example) and
  `output-contract.schema.json` (about 120 lines, title naming the result, `if`/`then`,
  `additionalProperties: false`, nested objects and an array of objects, two examples);
- `orchestrator-prompt.md`: two dispatch templates (`ACTION:` / `DATA:`) naming the skill,
  the `<NAME>_RESULT` template again, and a field table.

Ten structured blocks and two schemas a skill. Every schema is its own text (names,
descriptions and enums vary with the skill), so nothing is checked once for all. One skill
in 25 has a planted defect of one kind in turn (a template missing a required key, a value
outside an enum, a key the schema forbids, a dispatch field the input lacks, an example
violating its schema), so that the run reports something.

Deterministic: the same (skills, seed) writes the same bytes.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import NamedTuple

_WORDS = (
    "notes",
    "context",
    "review",
    "plan",
    "release",
    "deploy",
    "audit",
    "index",
    "report",
    "triage",
    "migrate",
    "sync",
    "summary",
    "budget",
    "ledger",
    "archive",
    "schedule",
)
_PHASES = ("READ", "SCAN", "MERGE", "WRITE", "CHECK", "PUBLISH")
DEFECT_EVERY = 25


class Counts(NamedTuple):
    skills: int
    schemas: int
    blocks: int
    files: int
    bytes: int
    defects: int


def _name(i: int, rng: random.Random) -> str:
    return f"{rng.choice(_WORDS)}-{rng.choice(_WORDS)}-{i}"


def _output_schema(name: str, result: str, rng: random.Random) -> dict[str, object]:
    actions = [rng.choice(_WORDS) + "-run", "refresh"]
    phases = rng.sample(_PHASES, 4)
    words = " ".join(rng.choice(_WORDS) for _ in range(12))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"{name}-output-contract",
        "title": f"{name}: Output Contract ({result})",
        "description": f"The {result} block {name} returns: {words}.",
        "type": "object",
        "required": ["action", "status", "path", "summary", "sections"],
        "properties": {
            "$schema": {"type": "string", "description": "the schema an example names"},
            "action": {"type": "string", "enum": actions, "description": f"echoed {words}"},
            "status": {"type": "string", "enum": ["success", "error"]},
            "job": {"type": ["string", "null"], "description": f"the job of {name}"},
            "path": {"type": "string", "examples": [f"jobs/<job>/{name}.md"]},
            "version": {"type": "string", "pattern": "^\\d+\\.\\d+$", "examples": ["1.0"]},
            "summary": {"type": "string", "minLength": 20, "description": words},
            "sections": {"type": "array", "items": {"type": "string"}, "minItems": 0},
            "counts": {
                "type": "object",
                "properties": {
                    f"{w}_sources": {"type": "integer", "minimum": 0, "description": f"{w} {name}"}
                    for w in rng.sample(_WORDS, 4)
                },
                "additionalProperties": False,
            },
            "errors": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["phase", "message"],
                    "properties": {
                        "phase": {"type": "string", "enum": phases},
                        "source": {"type": ["string", "null"]},
                        "message": {"type": "string"},
                        "action_taken": {"type": ["string", "null"]},
                    },
                    "additionalProperties": False,
                },
                "default": [],
            },
            "error_details": {"type": ["string", "null"]},
        },
        "additionalProperties": False,
        "if": {"properties": {"status": {"const": "error"}}, "required": ["status"]},
        "then": {"required": ["error_details"]},
        "examples": [
            {
                "action": actions[0],
                "status": "success",
                "job": f"job-{name}",
                "path": f"jobs/job-{name}/{name}.md",
                "version": "1.0",
                "summary": f"Collected what {name} needs from three local documents.",
                "sections": ["Overview", "Decisions"],
                "errors": [{"phase": phases[0], "message": "one page was gone"}],
                "error_details": None,
            },
            {
                "action": "refresh",
                "status": "error",
                "path": f"jobs/job-{name}/{name}.md",
                "summary": f"Nothing was written: the job folder of {name} is missing.",
                "sections": [],
                "error_details": "The job folder does not exist.",
            },
        ],
    }


def _input_schema(name: str, rng: random.Random) -> dict[str, object]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"{name}-input-contract",
        "title": f"{name}: Input Contract",
        "type": "object",
        "required": ["action", "job_name", "data"],
        "properties": {
            "action": {"type": "string", "enum": ["collect", "update"]},
            "job_name": {"type": "string", "description": f"the job {name} works for"},
            "project_dir": {"type": "string"},
            "data": {
                "type": "object",
                "required": ["task_description"],
                "properties": {
                    "task_description": {"type": "string", "minLength": 5},
                    "focus_areas": {"type": "string"},
                    "update_reason": {"type": "string"},
                    f"{rng.choice(_WORDS)}_hint": {"type": "string"},
                },
                "additionalProperties": False,
            },
        },
        "additionalProperties": False,
        "examples": [
            {"action": "collect", "job_name": f"job-{name}", "data": {"task_description": "x" * 8}}
        ],
    }


def _template(result: str, phases: list[str], actions: list[str], defect: str) -> str:
    status = "success | partial" if defect == "enum" else "success | error"
    summary = "" if defect == "required" else "  summary:    <2-3 sentences on what was done>\n"
    extra = "  elapsed:    <seconds>\n" if defect == "forbidden" else ""
    return (
        f"{result}:\n"
        f"  action:     {actions[0]} | {actions[1]}\n"
        f"  status:     {status}\n"
        "  job:        <JOB or null>\n"
        "  path:       <JOBS_ROOT>/{{JOB}}/out.md\n"
        "  version:    <document version, e.g. 1.0>\n"
        f"{summary}{extra}"
        "  sections:\n"
        "    - Overview\n"
        "    - Decisions\n"
        "  errors:\n"
        f"    - phase:   <{' | '.join(phases)}>\n"
        "      message: <what went wrong>\n"
        "  error_details: <only when status is error>\n"
    )


def _skill_md(name: str, result: str, template: str, rng: random.Random) -> str:
    prose = "\n\n".join(
        " ".join(rng.choice(_WORDS) for _ in range(40)).capitalize() + "." for _ in range(6)
    )
    payloads = "\n\n".join(
        "```json\n"
        + json.dumps({"id": rng.randint(1, 999), "state": rng.choice(_WORDS), "items": []})
        + "\n```"
        for _ in range(4)
    )
    example = {
        "$schema": "./output-contract.schema.json",
        "action": "refresh",
        "status": "success",
        "path": f"jobs/<job>/{name}.md",
        "summary": "<what was collected, in two or three sentences>",
        "sections": ["Overview"],
    }
    contract = {"action": "refresh", "status": "<success | error>", "path": "<path>",
                "summary": "<summary>", "sections": []}  # fmt: skip
    return (
        f"---\nname: {name}\ndescription: Collects the {name} context a job needs.\n---\n\n"
        f"# {name}\n\n{prose}\n\n## Result\n\nEnd with this block:\n\n```\n{template}```\n\n"
        f"An example:\n\n```json\n{json.dumps(example, indent=2)}\n```\n\n"
        f"The contract block:\n\n```json:contract\n{json.dumps(contract, indent=2)}\n```\n\n"
        f"## API payloads\n\n{payloads}\n\n"
        f"The orchestrator reads `{result}.status` and `{result}.path`.\n"
    )


def _prompt_md(name: str, result: str, template: str, defect: str) -> str:
    extra = "  PRIORITY: high\n" if defect == "dispatch" else ""
    dispatch = (
        "```\nYou are the {name} agent.\n\nLoad the skill from: skills/{name}/SKILL.md\n\n"
        "ACTION: {action}\nJOB_NAME: {{{{JOB_NAME}}}}\nPROJECT_DIR: <PROJECT_DIR>\n\nDATA:\n"
        "  TASK_DESCRIPTION: {{{{TASK_DESCRIPTION}}}}\n  FOCUS_AREAS: {{{{FOCUS_AREAS}}}}\n"
        "{extra}\nReturn a {result} block as your final message.\n```\n"
    )
    return (
        f"# {name}: orchestrator prompt\n\n## Collect\n\n"
        + dispatch.format(name=name, action="collect", extra=extra, result=result)
        + "\n## Update\n\n"
        + dispatch.format(name=name, action="update", extra="", result=result)
        + f"\n## Expected response\n\n```\n{template}```\n\n"
        "| Field | Type | Required |\n|---|---|---|\n| `status` | string | yes |\n"
        "| `summary` | string | yes |\n| `errors[].phase` | string | yes |\n"
    )


def generate_contracts(root: Path, skills: int, seed: int = 1) -> Counts:
    rng = random.Random(seed)
    files = size = defects = 0
    kinds = ("required", "enum", "forbidden", "dispatch", "example")
    for i in range(skills):
        name = _name(i, rng)
        result = name.split("-")[0].upper() + f"_{i}_RESULT"
        folder = root / "skills" / f"group-{i % 20}" / name
        folder.mkdir(parents=True, exist_ok=True)
        defect = kinds[(i // DEFECT_EVERY) % len(kinds)] if i % DEFECT_EVERY == 0 else ""
        defects += bool(defect)
        output = _output_schema(name, result, rng)
        if defect == "example":
            output["examples"][1]["summary"] = ""  # type: ignore[index]
        actions = output["properties"]["action"]["enum"]  # type: ignore[index]
        phases = output["properties"]["errors"]["items"]["properties"]["phase"]["enum"]  # type: ignore[index]
        template = _template(result, phases, actions, defect)
        texts = {
            "SKILL.md": _skill_md(name, result, template, rng),
            "orchestrator-prompt.md": _prompt_md(name, result, template, defect),
            "output-contract.schema.json": json.dumps(output, indent=2) + "\n",
            "input-contract.schema.json": json.dumps(_input_schema(name, rng), indent=2) + "\n",
        }
        for file, text in texts.items():
            data = text.encode("utf-8")
            (folder / file).write_bytes(data)
            files += 1
            size += len(data)
    return Counts(skills, 2 * skills, 10 * skills, files, size, defects)
