"""DC920-DC949: structured contracts: JSON Schemas, the blocks that claim them, the tables
that document them, and the consumers and dispatchers that read and send their fields.

Every finding names both sides: the block, table or reader line where it is reported, and
the schema pointer with its `path:line` in the message and in the finding's `schema` field
(JSON output).
"""

from __future__ import annotations

from collections.abc import Iterator

from drift_check.facts import (
    BlockValue,
    Facts,
    Position,
    SchemaPointer,
    StructuredBlock,
    escape_pointer,
)
from drift_check.rules.base import Hit, rule


def _side(pointer: SchemaPointer) -> str:
    return pointer.reference  # the SARIF report turns it into a link to the schema side


def _label(block: StructuredBlock) -> str:
    if block.kind == "template":
        return f"`{block.name}` template"
    if block.kind == "dispatch":
        return "dispatch template"
    return f"`{block.info}` block"


@rule(
    "DC920",
    "schema-invalid",
    failing="""
        skills/collector/output-contract.schema.json:
            "properties": {"status": {"type": "text"}}
    """,
    passing="""
        "properties": {"status": {"type": "string"}}
    """,
    blind_spot=True,
    shares="schemas",  # each schema's portability and jsonschema-rs, worked out once
)
def schema_invalid(facts: Facts) -> Iterator[Hit]:
    """A JSON Schema file is not valid JSON, is invalid against its meta-schema, or has a
    local `$ref` that points at nothing.

    A validator given such a schema refuses it or silently checks less than the author
    meant: a misspelt type name (`"text"`), a `required` that is not a list, a `$ref` to a
    definition that was renamed. The finding points at the offending node, with the
    meta-schema's words; fix the schema.
    """
    for problem in facts.problems:
        if problem.kind == "schema-json":
            yield Hit(problem.position, f"schema is {problem.message}")
    schemas = facts.structured.schemas
    if not any(s.valid for s in schemas.values()):
        return
    from drift_check.validation import meta_problems

    for path in sorted(schemas):
        schema = schemas[path]
        if not schema.valid:
            continue
        for pointer, message in meta_problems(facts, path):
            position = schema.position(pointer) or Position(path, 1, 1)
            yield Hit(
                position,
                message,
                schema=SchemaPointer(path, pointer, position),
            )


@rule(
    "DC921",
    "schema-example-invalid",
    failing="""
        "summary": {"type": "string", "minLength": 20},
        ...
        "examples": [{"summary": "", ...}]
    """,
    passing="""
        "examples": [{"summary": "Collected context for the SaveMode component.", ...}]
    """,
    blind_spot=True,
    shares="schemas",
)
def schema_example_invalid(facts: Facts) -> Iterator[Hit]:
    """A schema's own `examples` entry (or a `default`) fails the schema it sits in.

    Examples are what readers copy and what agents imitate: an example the schema rejects
    teaches the wrong shape, and a `default` the schema rejects is a value no valid instance
    can take. Placeholders in an example (`"<job-name>"`) stand for any value. Fix the
    example, or the constraint that rejects it.
    """
    schemas = facts.structured.schemas
    if not any(s.examples for s in schemas.values()):
        return
    from drift_check.validation import contracts

    checker = contracts(facts)
    for path in sorted(schemas):
        for example in schemas[path].examples:
            if not checker.example_fails(path, example):
                continue  # most examples hold: their positions are never needed
            of = f"`#{example.pointer}`" if example.pointer else "the schema"
            what = (
                f"example {example.index + 1} of {of}"
                if example.keyword == "examples"
                else f"`default` of {of}"
            )
            value = schemas[path].example_value(example)
            for v in checker.violations(path, value, example.pointer):
                if v.kind == "required":
                    text = f"{what} omits `{v.subject}`, which {_side(v.schema)} requires"
                elif v.kind == "additional":
                    text = f"{what} gives `{v.subject}`, which {_side(v.schema)} does not allow"
                else:
                    text = f"{what} fails {_side(v.schema)}: {v.message}"
                yield Hit(v.position, f"{text}; fix the example or the schema", schema=v.schema)


@rule(
    "DC922",
    "vacuous-conditional",
    failing="""
        "properties": {"data": {"properties": {"mode": {"enum": ["full", "quick"]}}}},
        "additionalProperties": false,
        "if": {"properties": {"mode": {"const": "full"}}},
        "then": {"required": ["report"]}
    """,
    passing="""
        "if": {"properties": {"data": {"properties": {"mode": {"const": "full"}},
                                       "required": ["mode"]}},
               "required": ["data"]},
        "then": {"required": ["report"]}
    """,
    blind_spot=True,
)
def vacuous_conditional(facts: Facts) -> Iterator[Hit]:
    """An `if` tests a property that does not exist at its level, so its `then` applies to
    every instance (or never).

    `properties` in an `if` only looks at properties that are present: one the level never
    has (not declared there and forbidden by `additionalProperties: false`, or declared only
    at another level) always passes, so the `then` is required of every instance, and the
    schema rejects requests (and its own examples) the author meant to allow. With the
    property also in the `if`'s `required`, the `if` never holds and the `then` never
    applies. Move the condition to the level that has the property, or name it there.
    """
    if not facts.structured.schemas:
        return
    from drift_check.validation import vacuous_ifs

    for path, schema in sorted(facts.structured.schemas.items()):
        for key_position, pointer, key, never, elsewhere in vacuous_ifs(schema):
            where = f" (it is declared at `#{elsewhere}`)" if elsewhere else ""
            effect = (
                "the `if` never holds, so its `then` never applies"
                if never
                else "an absent property passes `properties`, so the `if` always holds and"
                " its `then` applies to every instance"
            )
            yield Hit(
                key_position,
                f"`#{pointer}/if` tests `{key}`, which is not a property at that"
                f" level{where}: {effect}; test it at the level that has it",
                schema=SchemaPointer(
                    path, f"{pointer}/if/properties/{escape_pointer(key)}", key_position
                ),
            )


def _paired(facts: Facts) -> Iterator[StructuredBlock]:
    for block in facts.structured.blocks:
        if block.schema is not None and block.value is not None:
            yield block


def _violations(facts: Facts, kind: str) -> Iterator[tuple[StructuredBlock, object]]:
    paired = list(_paired(facts))
    if not paired:
        return
    from drift_check.validation import contracts

    checker = contracts(facts)
    for block in paired:
        for v in checker.block_violations(block):
            if v.kind == kind:
                yield block, v


@rule(
    "DC923",
    "block-missing-required",
    failing="""
        skills/collector/SKILL.md:
            CONTEXT_RESULT:
              status: success | error
        output-contract.schema.json:  "required": ["status", "summary"]
    """,
    passing="""
            CONTEXT_RESULT:
              status:  success | error
              summary: <2-3 sentences>
    """,
    blind_spot=True,
    shares="block-violations",
)
def block_missing_required(facts: Facts) -> Iterator[Hit]:
    """A template or example block omits a key its schema requires.

    The agent copies the template; the consumer validating against the schema then rejects
    every result it returns. Add the key to the block (a placeholder is enough), or drop it
    from the schema's `required`.
    """
    for block, v in _violations(facts, "required"):
        yield Hit(
            v.position,  # type: ignore[attr-defined]
            f"{_label(block)} omits `{v.subject}`, which {_side(v.schema)} requires;"  # type: ignore[attr-defined]
            " add it to the block, or drop it from `required`",
            schema=v.schema,  # type: ignore[attr-defined]
        )


@rule(
    "DC924",
    "block-key-not-allowed",
    failing="""
        CONTEXT_RESULT:
          status:   success
          duration: <seconds>
        output-contract.schema.json:  "additionalProperties": false   (no `duration`)
    """,
    passing="""
        CONTEXT_RESULT:
          status:   success
    """,
    blind_spot=True,
    shares="block-violations",
)
def block_key_not_allowed(facts: Facts) -> Iterator[Hit]:
    """A template or example block gives a key its schema forbids
    (`additionalProperties: false`).

    The agent will return the key and a validating consumer rejects the whole result; a
    consumer that reads the key relies on something the contract says never comes. Add the
    property to the schema, or remove the key from the block.
    """
    for block, v in _violations(facts, "additional"):
        if block.kind == "dispatch":
            continue  # DC929 names every field a dispatch sends that the schema lacks
        yield Hit(
            v.position,  # type: ignore[attr-defined]
            f"{_label(block)} gives `{v.subject}`, which {_side(v.schema)} does not allow;"  # type: ignore[attr-defined]
            " add the property to the schema, or remove the key",
            schema=v.schema,  # type: ignore[attr-defined]
        )


@rule(
    "DC925",
    "block-value-invalid",
    failing="""
        CONTEXT_RESULT:
          status: success | partial
        output-contract.schema.json:  "status": {"enum": ["success", "error"]}
    """,
    passing="""
        CONTEXT_RESULT:
          status: success | error
    """,
    blind_spot=True,
    shares="block-violations",
)
def block_value_invalid(facts: Facts) -> Iterator[Hit]:
    """A literal value in a template or example block fails its schema: outside an `enum`,
    of the wrong type, or against another constraint.

    Each alternative of `a | b` is a value the agent may return, so each must be in the
    enum. Placeholders (`<count>`, `{{VAR}}`) stand for any value and are never reported.
    Change the value, or the schema.
    """
    for block, v in _violations(facts, "value"):
        yield Hit(
            v.position,  # type: ignore[attr-defined]
            f"{_label(block)}: `{v.subject}` fails {_side(v.schema)}: {v.message};"  # type: ignore[attr-defined]
            " change the value, or the schema",
            schema=v.schema,  # type: ignore[attr-defined]
        )


@rule(
    "DC926",
    "field-table-unknown-key",
    failing="""
        ## CONTEXT_RESULT fields
        | Field | Type | Required |
        | `duration` | integer | no |      (output-contract.schema.json has no `duration`)
    """,
    passing="""
        | `summary` | string | yes |
    """,
    blind_spot=True,
)
def field_table_unknown_key(facts: Facts) -> Iterator[Hit]:
    """A Markdown field table documents a key the schema it describes does not have.

    Readers and agents trust the table; the key either was renamed or removed in the
    schema, or was never added. Fix the table, or add the property to the schema.
    """
    if not any(t.schema for t in facts.structured.tables):
        return
    from drift_check.validation import contracts

    checker = contracts(facts)
    for table in facts.structured.tables:
        if table.schema is None:
            continue
        for row in table.rows:
            found = checker.lookup(table.schema, _fields(row.field))
            if found.state == "missing":
                yield Hit(
                    row.position,
                    f"the table documents `{row.field}`, but {_side(found.level)} has no"
                    f" `{found.key}`; fix the table, or add the property to the schema",
                    schema=found.level,
                )


@rule(
    "DC927",
    "field-table-required-mismatch",
    severity="warning",
    failing="""
        | `summary` | string | no |      ("required": ["summary"] in the schema)
    """,
    passing="""
        | `summary` | string | yes |
    """,
    blind_spot=True,
)
def field_table_required_mismatch(facts: Facts) -> Iterator[Hit]:
    """A field table marks a key required (or optional) differently from the schema's
    `required`.

    A key the table calls optional but the schema requires gets left out, and every such
    result is rejected; a key the table calls required but the schema does not is trusted
    to be there. Make the two agree (a conditional answer such as "Yes (update only)" is not
    compared).
    """
    if not any(t.schema for t in facts.structured.tables):
        return
    from drift_check.validation import contracts

    checker = contracts(facts)
    for table in facts.structured.tables:
        if table.schema is None:
            continue
        for row in table.rows:
            if row.required is None:
                continue
            found = checker.lookup(table.schema, _fields(row.field))
            if found.state != "found" or found.required is None:
                continue
            if found.required != row.required and found.required_at is not None:
                said = "required" if row.required else "optional"
                is_ = "requires it" if found.required else "does not require it"
                yield Hit(
                    row.position,
                    f"the table marks `{row.field}` {said}, but {_side(found.required_at)}"
                    f" {is_}; make the table and the schema agree",
                    schema=found.required_at,
                )


def _fields(written: str) -> tuple[str, ...]:
    out: list[str] = []
    for part in written.split("."):
        if part.endswith("[]"):
            out.extend((part[:-2], "[]"))
        else:
            out.append(part)
    return tuple(out)


@rule(
    "DC928",
    "consumer-reads-unknown-field",
    failing="""
        skills/job-orchestrator/SKILL.md:  If `CONTEXT_RESULT.duration` exceeds ...
        output-contract.schema.json:       no `duration` property
    """,
    passing="""
        If `CONTEXT_RESULT.status` is `error`, log `CONTEXT_RESULT.error_details`.
    """,
    blind_spot=True,
)
def consumer_reads_unknown_field(facts: Facts) -> Iterator[Hit]:
    """A consumer reads a field of a block that the producer's schema does not have.

    The producer never returns it (or a schema with `additionalProperties: false` rejects
    it), so the branch that reads it never sees a value. Read a field the schema declares,
    or add the property to the schema and the producer's template.
    """
    structured = facts.structured
    if not structured.reads or not structured.names:
        return
    from drift_check.validation import contracts

    checker = contracts(facts)
    for read in structured.reads:
        schema = structured.names.get(read.name)
        if schema is None:
            continue
        found = checker.lookup(schema, read.fields)
        if found.state == "missing":
            shown = ".".join(read.fields)
            yield Hit(
                read.position,
                f"`{read.name}.{shown}` reads `{found.key}`, which {_side(found.level)}"
                f" does not declare; the producer never returns it: read a declared field,"
                " or add it to the schema and the template",
                schema=found.level,
            )


@rule(
    "DC929",
    "dispatch-sends-unknown-field",
    failing="""
        skills/collector/orchestrator-prompt.md (dispatching skills/collector/SKILL.md):
            DATA:
              PRIORITY: high             (input-contract.schema.json: no `priority`)
    """,
    passing="""
            DATA:
              TASK_DESCRIPTION: {{TASK_DESCRIPTION}}
    """,
    blind_spot=True,
)
def dispatch_sends_unknown_field(facts: Facts) -> Iterator[Hit]:
    """A dispatch template sends a field the dispatched skill's input schema never
    declares.

    The sub-agent's contract does not know the field: it is ignored, or the request is
    rejected where the schema is closed. Send only declared fields, or declare the field in
    the input schema.
    """
    blocks = [b for b in _paired(facts) if b.kind == "dispatch"]
    if not blocks:
        return
    from drift_check.validation import contracts

    checker = contracts(facts)
    for block in blocks:
        assert block.schema is not None and block.value is not None
        for fields, position in _keys(block.value):
            found = checker.lookup(block.schema, fields)
            if found.state == "missing" and found.key == fields[-1]:
                yield Hit(
                    position,
                    f"dispatch sends `{'.'.join(fields)}`, which {_side(found.level)} does"
                    " not declare; send only declared fields, or declare it in the input"
                    " schema",
                    schema=found.level,
                )


def _keys(value: BlockValue) -> Iterator[tuple[tuple[str, ...], Position]]:
    """Every key of a value with its path (`[]` for array items), in file order."""
    todo: list[tuple[tuple[str, ...], BlockValue]] = [((), value)]
    found = []
    while todo:
        path, node = todo.pop()
        if node.kind == "object":
            for member in node.value:
                found.append(((*path, member.key), member.key_position))
                todo.append(((*path, member.key), member.value))
        elif node.kind == "array":
            todo.extend(((*path, "[]"), item) for item in node.value)
    yield from sorted(found, key=lambda f: (f[1].line, f[1].column))


@rule(
    "DC930",
    "contract-block-invalid-json",
    failing="""
        ```json:contract
        {"agent_status": {"plan_status": "COMPLETE",}}
        ```
    """,
    passing="""
        ```json:contract
        {"agent_status": {"plan_status": "COMPLETE"}}
        ```
    """,
    blind_spot=True,
)
def contract_block_invalid_json(facts: Facts) -> Iterator[Hit]:
    """A contract block (```` ```json:contract ````, `contract-info-strings`) is not valid
    JSON.

    The orchestrator parses the agent's final block strictly; an agent imitating a broken
    example returns a block that cannot be parsed. Plain ```` ```json ```` blocks in docs
    often hold comments or `...` on purpose and are not reported.
    """
    infos = {i.lower() for i in facts.settings["contract-info-strings"]}
    for block in facts.structured.blocks:
        if block.kind == "json" and block.value is None and block.info in infos:
            where = block.problem_position or block.position
            yield Hit(where, f"`{block.info}` block is not valid JSON: {block.problem}")


RULES = (
    schema_invalid,
    schema_example_invalid,
    vacuous_conditional,
    block_missing_required,
    block_key_not_allowed,
    block_value_invalid,
    field_table_unknown_key,
    field_table_required_mismatch,
    consumer_reads_unknown_field,
    dispatch_sends_unknown_field,
    contract_block_invalid_json,
)
