"""A JSON Schema (2020-12) of suite files, with the arguments of the evaluators installed, for editors.

It says what the loader says, as far as a schema can: the keys of a suite and of a case (a misspelt
one is flagged), each evaluator entry (a bare name, ``name: {arguments}``, ``name: first argument``),
the combinators, ``weight`` and ``threshold``. Argument types come from the factories' annotations
where they name plain types (``str``, ``bool``, ``Sequence[str]``...); other annotations leave the
value open. The loader stays the judge: a schema cannot run a factory's own checks.
"""

from __future__ import annotations

from typing import Any

from agent_eval._plugins import EvaluatorInfo, Registry
from agent_eval._sources import FORMATS

DRAFT = "https://json-schema.org/draft/2020-12/schema"
_ENTRY = {"$ref": "#/$defs/entry"}
_ENTRIES = {"type": ["array", "null"], "items": _ENTRY}
_SHARE = {"type": "number", "minimum": 0, "maximum": 1}

#: JSON types of the plain annotations (after any ``typing.`` prefix), and of generic ones by their origin.
_TYPES = {"str": "string", "bool": "boolean", "int": "integer", "float": "number", "None": "null", "NoneType": "null"}
_TYPES.update(dict.fromkeys(("Path", "pathlib.Path", "os.PathLike", "PathLike"), "string"))
_ARRAYS = ("list", "tuple", "set", "frozenset", "Sequence", "MutableSequence", "Iterable", "Collection", "List")
_TYPES.update(dict.fromkeys(_ARRAYS, "array"))
_TYPES.update(dict.fromkeys(("dict", "Mapping", "MutableMapping", "Dict"), "object"))


def suite_schema(registry: Registry) -> dict[str, Any]:
    """The JSON Schema of suite files for the evaluators ``registry`` holds."""
    evaluators = {name: registry.entries[name][0] for name in registry.names()}
    suite = {
        "name": {"type": "string", "description": "The suite's name (default: the file's name)."},
        "description": {"type": "string"},
        "agent": {"type": "string", "pattern": ":", "description": "MODULE:ATTRIBUTE of the agent (--agent wins)."},
        "min_pass_rate": {**_SHARE, "description": "Exit 1 below this pass rate (default 1.0)."},
        "concurrency": {"type": "integer", "minimum": 1, "description": "Cases run at once."},
        "timeout": {"type": "number", "exclusiveMinimum": 0, "description": "Seconds per agent call."},
        "repeat": {"type": "integer", "minimum": 1, "description": "Independent runs of every case."},
        "case_pass_rate": {**_SHARE, "description": "Share of a repeated case's attempts that must pass."},
        "executor": _executor(),
        "threshold": {"$ref": "#/$defs/threshold"},
        "evaluators": {**_ENTRIES, "description": "Evaluators applied to every case."},
        "cases": _cases(),
    }
    return {
        "$schema": DRAFT,
        "title": "agent-eval suite file",
        "description": "Written by `agent-eval schema` for the evaluators installed then: "
        + (", ".join(evaluators) or "none"),
        "type": ["object", "array"],
        "properties": suite,
        "required": ["cases"],
        "additionalProperties": False,
        "items": {"$ref": "#/$defs/case"},
        "minItems": 1,
        "$defs": {
            "case": _case(),
            "entry": _entry(evaluators),
            "threshold": {
                **_SHARE,
                "description": "Pass a case when its weighted mean score reaches this and no evaluation errored.",
            },
        },
    }


def _executor() -> dict[str, Any]:
    named = {
        "type": "object",
        "minProperties": 1,
        "maxProperties": 1,
        "additionalProperties": {"type": ["object", "null"]},
    }
    return {
        "description": "The executor's name, or `name: {option: value}` (default: local).",
        "if": {"type": "string"},
        "then": {"pattern": "\\S"},
        "else": named,
    }


def _cases() -> dict[str, Any]:
    suffixes = "|".join(_any_case(suffix[1:]) for suffix in FORMATS)
    return {
        "description": "The cases, or the path of a .jsonl, .json, .yaml or .csv file of cases (beside this file).",
        "if": {"type": "string"},
        "then": {"pattern": f"\\.({suffixes})$"},
        "else": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/case"}},
    }


def _any_case(text: str) -> str:
    """A regular expression matching ``text`` in any case (JSON Schema's have no flags)."""
    return "".join(f"[{char.lower()}{char.upper()}]" if char.isalpha() else char for char in text)


def _case() -> dict[str, Any]:
    properties = {
        "name": {"type": ["string", "integer"], "pattern": "\\S", "description": "Unique in the suite."},
        "input": {"description": "What the agent is given."},
        "expected": {"description": "A reference answer evaluators may use (exact_match compares with it)."},
        "evaluator": _ENTRY,
        "evaluators": _ENTRIES,
        "metadata": {"type": ["object", "null"]},
        "threshold": {"$ref": "#/$defs/threshold"},
    }
    return {"type": "object", "properties": properties, "required": ["input"], "additionalProperties": False}


def _entry(evaluators: dict[str, EvaluatorInfo]) -> dict[str, Any]:
    members = {"type": "array", "minItems": 1, "items": _ENTRY}
    keys: dict[str, Any] = {name: _arguments(info) for name, info in evaluators.items()}
    keys.update(
        {
            "all": {**members, "description": "Passes when every member does; the score is their weighted mean."},
            "any": {**members, "description": "Passes when one member does; the score is the best of theirs."},
            "not": {
                "description": "Passes when its one member fails; the score is 1 minus the member's.",
                "if": {"type": "array"},
                "then": {"minItems": 1, "maxItems": 1, "items": _ENTRY},
                "else": _ENTRY,
            },
        }
    )
    bare = [name for name, info in evaluators.items() if not any(p["required"] for p in info.parameters())]
    return {
        "description": "An evaluator: `name`, `name: {arguments}`, `name: first argument`, or all/any/not; "
        "a mapping may add `weight`.",
        "if": {"type": "string"},
        "then": {"enum": bare} if bare else False,
        "else": {
            "type": "object",
            "properties": {**keys, "weight": {"type": "number", "exclusiveMinimum": 0, "description": "Default 1."}},
            "additionalProperties": False,
            "oneOf": [{"required": [key]} for key in keys],
        },
    }


def _arguments(info: EvaluatorInfo) -> dict[str, Any]:
    """An evaluator's arguments: keyword arguments (a mapping), nothing, or its first argument alone."""
    parameters = info.parameters()
    named = [p for p in parameters if p["kind"] in ("positional_or_keyword", "keyword")]
    mapping: dict[str, Any] = {"type": "object", "properties": {p["name"]: _parameter(p) for p in named}}
    if not any(p["kind"] == "var_keyword" for p in parameters):
        mapping["additionalProperties"] = False
    required = [p["name"] for p in parameters if p["required"]]
    if required:
        mapping["required"] = required
    first = next(
        (p for p in parameters if p["kind"] in ("positional", "positional_or_keyword", "var_positional")), None
    )
    alone: Any = False
    if first is not None and set(required) <= {first["name"]}:
        alone = _alone(_parameter(first))
    source = info.distribution or f"plugin {info.plugin}"
    return {
        "description": f"{info.description} ({source})".lstrip(),
        "if": {"type": "object"},
        "then": mapping,
        "else": {"if": {"type": "null"}, "then": not required, "else": alone},
    }


def _alone(schema: dict[str, Any]) -> Any:
    """The schema of a first argument given alone: anything but a mapping (keyword arguments) or null."""
    types = schema.get("type")
    if types is None:
        return {**schema, "not": {"type": ["object", "null"]}}
    left = [kind for kind in ([types] if isinstance(types, str) else types) if kind not in ("object", "null")]
    if not left:
        return False
    return {**schema, "type": left[0] if len(left) == 1 else left}


def _parameter(parameter: dict[str, Any]) -> dict[str, Any]:
    annotation = parameter.get("annotation")
    schema: dict[str, Any] = {}
    types = _json_types(annotation) if isinstance(annotation, str) else None
    if types:
        schema["type"] = types[0] if len(types) == 1 else types
        items = _items(annotation) if "array" in types and isinstance(annotation, str) else None
        if items:
            schema["items"] = {"type": items[0] if len(items) == 1 else items}
    described = [annotation] if annotation else []
    if parameter["required"]:
        described.append("(required)")
    if described:
        schema["description"] = " ".join(described)
    if "default" in parameter:
        schema["default"] = parameter["default"]
    return schema


def _json_types(annotation: str) -> list[str] | None:
    """The JSON types an annotation allows, or None when it names something else (the value is left open)."""
    found: list[str] = []
    for part in _union_parts(annotation):
        if part.startswith("Optional[") and part.endswith("]"):
            inner = _json_types(part[len("Optional[") : -1])
            if inner is None:
                return None
            found += [*inner, "null"]
            continue
        kind = _TYPES.get(_origin(part))
        if kind is None:
            return None
        found.append(kind)
    return list(dict.fromkeys(found)) or None


def _items(annotation: str) -> list[str] | None:
    """The JSON types of the items of the one list an annotation names (``str | Sequence[str]``), if plain."""
    arrays = [part for part in _union_parts(annotation) if _TYPES.get(_origin(part)) == "array"]
    if len(arrays) != 1 or not arrays[0].endswith("]") or _origin(arrays[0]) in ("tuple", "Tuple"):
        return None
    return _json_types(arrays[0].split("[", 1)[1][:-1])


def _origin(part: str) -> str:
    """``Sequence`` of ``typing.Sequence[str]``."""
    return part.split("[", 1)[0].removeprefix("typing.").removeprefix("collections.abc.")


def _union_parts(annotation: str) -> list[str]:
    """``A | B[C | D]`` as ``["A", "B[C | D]"]`` (and ``Union[A, B]`` as ``["A", "B"]``)."""
    text = annotation.strip()
    if text.startswith("Union[") and text.endswith("]"):
        text, separator = text[len("Union[") : -1], ","
    else:
        separator = "|"
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += (char == "[") - (char == "]")
        if char == separator and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    parts.append(text[start:].strip())
    return parts
