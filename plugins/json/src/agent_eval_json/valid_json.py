"""``valid_json``: the answer is JSON, and optionally matches a JSON Schema."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import attrs

from agent_eval import EvaluatorContext, Verdict
from agent_eval_json.parse import parse_output
from agent_eval_json.schema import load_schema, make_validator, validation_errors

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

FENCED = " (in a ``` fence)"


@attrs.frozen
class ValidJson:
    """Passes when the output parses as JSON and, with a schema, validates against it."""

    name: ClassVar[str] = "valid_json"
    inline: ClassVar[bool] = True

    schema: Mapping[str, Any] | None = None
    allow_fence: bool = False
    #: Where the schema came from, when it was read from a file.
    source: str | None = None
    validator: Validator | None = attrs.field(init=False, repr=False, eq=False)

    @validator.default
    def _validator(self) -> Validator | None:
        return None if self.schema is None else make_validator(self.schema, self.source)

    def __call__(self, output: Any, ctx: EvaluatorContext | None = None) -> Verdict:
        """Parse ``output`` and validate it."""
        parsed = parse_output(output, allow_fence=self.allow_fence)
        if parsed.error is not None:
            return Verdict(False, 0.0, parsed.error)
        fenced = FENCED if parsed.fenced else ""
        if self.validator is None:
            return Verdict(True, 1.0, f"valid JSON{fenced}")
        failed = validation_errors(self.validator, parsed.value)
        if failed is None:
            return Verdict(True, 1.0, f"valid JSON, matches the schema{fenced}")
        headline, errors = failed
        return Verdict(False, 0.0, headline, metadata={"errors": errors})


def valid_json(
    schema: Mapping[str, Any] | str | os.PathLike[str] | None = None, *, allow_fence: bool = False
) -> ValidJson:
    """Passes when the output is valid JSON and, given a JSON Schema, matches it.

    ``schema`` is a JSON Schema object, or the path of a .json file holding one
    (relative to the suite file). The schema's ``$schema`` picks the draft
    (default 2020-12), and formats such as ``date`` are checked. An invalid
    schema is reported when the suite is loaded. The reason of a failure gives
    the parse error's line and column, or the failing path
    (``$.items[2]: 5 is not of type 'string'``) and how many errors there were.
    ``allow_fence=True`` accepts an output wrapped in one ```json fence.
    Outputs that are already dicts or lists count as parsed JSON.
    """
    if not isinstance(allow_fence, bool):
        raise TypeError(f"allow_fence must be true or false, got {allow_fence!r}")
    if schema is None:
        return ValidJson(None, allow_fence)
    loaded, source = load_schema(schema)
    return ValidJson(loaded, allow_fence, source)
