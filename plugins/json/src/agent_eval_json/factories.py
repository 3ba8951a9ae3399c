"""The factory ``valid_json``: light to import, for listing and registering.

The evaluator (and agent-eval's records, and jsonschema when a schema is given) is imported when
the factory is called.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_eval_json.evaluator import ValidJson


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
    from agent_eval_json.evaluator import ValidJson
    from agent_eval_json.schema import load_schema

    if not isinstance(allow_fence, bool):
        raise TypeError(f"allow_fence must be true or false, got {allow_fence!r}")
    if schema is None:
        return ValidJson(None, allow_fence)
    loaded, source = load_schema(schema)
    return ValidJson(loaded, allow_fence, source)
