"""``valid_json``: the answer is JSON, and optionally matches a JSON Schema."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import attrs

from agent_eval import EvaluatorContext, Verdict
from agent_eval_json.parse import parse_output
from agent_eval_json.schema import make_validator, validation_errors

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

FENCED = " (in a ``` fence)"


@attrs.frozen
class ValidJson:
    """Passes when the output parses as JSON and, with a schema, validates against it."""

    name: ClassVar[str] = "valid_json"
    inline: ClassVar[bool] = True
    #: ``ctx`` is never read: the runner makes none for it.
    needs_context: ClassVar[bool] = False

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
