"""JSON Schemas: loading one from a file, checking it, and describing validation errors.

jsonschema is imported here only, and only by the functions that need it, so that
listing evaluators and schema-less checks do not pay for importing it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_eval import FileReadError, read_text_file, resolve_path, short_repr, shorten

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

#: How many schema errors a verdict's metadata lists.
LISTED = 20
#: The largest schema file read.
MAX_SCHEMA_BYTES = 16 * 1024 * 1024


def load_schema(schema: Mapping[str, Any] | str | os.PathLike[str]) -> tuple[Mapping[str, Any], str | None]:
    """The schema itself, and the path of the file it came from (None when given as a mapping)."""
    if isinstance(schema, Mapping):
        return schema, None
    if isinstance(schema, str | os.PathLike):
        path = resolve_path(Path(os.fspath(schema)))
        return _read_schema(path), str(path)
    raise TypeError(f"schema must be a JSON Schema object or the path of a .json file, got {short_repr(schema, 120)}")


def _read_schema(path: Path) -> Mapping[str, Any]:
    try:
        text = read_text_file(path, limit=MAX_SCHEMA_BYTES)
    except FileReadError as error:
        place = f" (line {error.line}, column {error.column})" if error.line is not None else ""
        raise ValueError(f"schema file '{path}' {error.problem}{place}") from None
    try:
        schema = json.loads(text)
    except json.JSONDecodeError as error:
        where = f"at line {error.lineno} column {error.colno}"
        raise ValueError(f"schema file '{path}' is not valid JSON: {error.msg} {where}") from None
    except RecursionError:
        raise ValueError(f"schema file '{path}' nests too deeply to read") from None
    except ValueError:  # the one other refusal of json.loads: an integer too long to convert
        raise ValueError(f"schema file '{path}' holds an integer of more than 4,300 digits") from None
    if not isinstance(schema, dict):
        raise ValueError(f"schema file '{path}' holds {type(schema).__name__}, not a JSON Schema object")
    return schema


def make_validator(schema: Mapping[str, Any], source: str | None = None) -> Validator:
    """A validator for ``schema`` (its ``$schema`` draft, else 2020-12); ValueError when the schema is invalid."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError, best_match
    from jsonschema.validators import validator_for

    cls = validator_for(schema, default=Draft202012Validator)
    try:
        cls.check_schema(dict(schema))
    except SchemaError as error:
        where = f" in '{source}'" if source else ""
        # "is not valid under any of the given schemas" says less than the best of the alternatives' errors.
        message = (best_match(error.context) or error).message if error.context else error.message
        raise ValueError(f"invalid JSON Schema{where} at {error.json_path}: {shorten(message, 120)}") from None
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def validation_errors(validator: Validator, value: Any) -> tuple[str, list[dict[str, str]]] | None:
    """None when ``value`` is valid; else the headline error and every error (path, message)."""
    from jsonschema.exceptions import best_match

    errors = list(validator.iter_errors(value))
    if not errors:
        return None
    best = best_match(errors)
    assert best is not None  # there is at least one error
    headline = _describe(best)
    if len(errors) > 1:
        headline += f" (1 of {len(errors)} schema errors)"
    listed = [{"path": error.json_path, "message": shorten(error.message, 120)} for error in errors[:LISTED]]
    return headline, listed


def _describe(error: ValidationError) -> str:
    return f"{error.json_path}: {shorten(error.message, 120)}"
