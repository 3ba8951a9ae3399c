"""The review page: one self-contained HTML file that works offline and runs no data as code.

The same rules as agent-eval's HTML report: the cases travel as JSON in a ``<script
type="application/json">`` element (with ``<``, ``>`` and ``&`` escaped, so nothing can end it), the
page's own script and stylesheet are allowed by their hashes in the Content-Security-Policy (nothing
else runs, nothing loads from anywhere), and the script renders everything with ``textContent``. The
outputs travel whole: the labels the page exports must hold exactly what the run graded.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import re
from collections.abc import Mapping, Sequence
from html import escape
from importlib import resources
from typing import TYPE_CHECKING, Any

from agent_eval_judge.display import dumps
from agent_eval_judge.labels import LABELS_FORMAT, LABELS_VERSION

if TYPE_CHECKING:
    from agent_eval import EvalReport

_JSON_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})
_CASE_KEYS = ("name", "input", "expected", "output", "status", "score", "reason", "error")
_EVALUATION_KEYS = ("name", "status", "score", "reason", "error")

_BODY = """\
<header class="top">
<div class="title"><h1 id="title">agent-eval review</h1><span id="subtitle"></span></div>
<div class="progress"><span id="progress-text"></span>\
<span class="track" aria-hidden="true"><i id="progress-pass"></i><i id="progress-fail"></i></span></div>
<div class="actions">
<label><input type="checkbox" id="blind"> Blind (b)</label>
<button type="button" id="help-button">Keys (?)</button>
<button type="button" id="download">Download labels (d)</button>
</div>
</header>
<p class="warning" id="storage-warning" hidden>This browser does not let the page keep its progress: \
download the labels before closing it.</p>
<div class="layout">
<nav id="list" aria-label="Cases"><div id="list-rows"></div></nav>
<main id="case"><noscript><p>Labelling needs JavaScript.</p></noscript></main>
</div>
<div id="help" role="dialog" aria-label="Keys" hidden><div class="card">
<h2>Keys</h2>
<table>
<tr><td><kbd>p</kbd> / <kbd>f</kbd></td><td>label the case pass / fail, and go to the next</td></tr>
<tr><td><kbd>x</kbd></td><td>clear the case's label</td></tr>
<tr><td><kbd>j</kbd> / <kbd>k</kbd></td><td>next / previous case (or <kbd>&darr;</kbd> / <kbd>&uarr;</kbd>)</td></tr>
<tr><td><kbd>u</kbd></td><td>the next case with no label</td></tr>
<tr><td><kbd>n</kbd></td><td>write a note (<kbd>Esc</kbd> leaves it)</td></tr>
<tr><td><kbd>b</kbd></td><td>blind: hide the run's verdicts while labelling</td></tr>
<tr><td><kbd>d</kbd></td><td>download the labels, for <code>agent-eval calibrate</code></td></tr>
<tr><td><kbd>?</kbd></td><td>this help (<kbd>Esc</kbd> closes it)</td></tr>
</table>
<p>Labels are kept in this browser, for this run, as you go: a reload loses nothing.</p>
<button type="button" id="help-close">Close</button>
</div></div>"""


def render(
    report: EvalReport,
    *,
    source: str,
    suite_file: str | None,
    criteria: Mapping[str, Sequence[str]],
) -> str:
    """The whole page for ``report`` (read from ``source``), with each case's judge ``criteria`` by name."""
    script, style = _asset("review.js"), _asset("review.css")
    title = f"Review {report.name or report.metadata.get('suite') or source} · agent-eval"
    data = page_data(report, source=source, suite_file=suite_file, criteria=criteria)
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{content_security_policy(script, style)}">',
            '<meta name="referrer" content="no-referrer">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{escape(_one_line(title))}</title>",
            f"<style>{style}</style>",
            "</head>",
            "<body>",
            _BODY,
            f'<script type="application/json" id="review-data">{embed_json(data)}</script>',
            f"<script>{script}</script>",
            "</body>",
            "</html>",
            "",
        ]
    )


def content_security_policy(script: str, style: str) -> str:
    """Nothing may load from anywhere; only the page's own script and stylesheet (by hash) apply."""
    return (
        f"default-src 'none'; script-src '{_hash(script)}'; style-src '{_hash(style)}'; img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )


def page_policy() -> str:
    """The page's Content-Security-Policy, for a server to send as a header too."""
    return content_security_policy(_asset("review.js"), _asset("review.css"))


def embed_json(data: Any) -> str:
    """``data`` as JSON that is safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` left."""
    return dumps(data).translate(_JSON_ESCAPES)


def page_data(
    report: EvalReport, *, source: str, suite_file: str | None, criteria: Mapping[str, Sequence[str]]
) -> dict[str, Any]:
    """What the page's script reads: the run's facts, what the labels file's first line says, the cases."""
    cases = [_case(case, criteria.get(str(case.get("name")), ())) for case in report.case_dicts()]
    run = report.metadata.get("run_id")
    run = run if isinstance(run, str) and run else None
    return {
        "key": run or _digest(cases),
        "run": run,
        "suite": report.name or report.metadata.get("suite"),
        "suite_file": suite_file,
        "source": source,
        "format": LABELS_FORMAT,
        "version": LABELS_VERSION,
        "download_name": "labels-" + re.sub(r"[^A-Za-z0-9._-]+", "_", run or "review") + ".jsonl",
        "cases": cases,
    }


def _case(case: Mapping[str, Any], criteria: Sequence[str]) -> dict[str, Any]:
    shown = {key: case.get(key) for key in _CASE_KEYS}
    shown["evaluations"] = [
        {key: evaluation.get(key) for key in _EVALUATION_KEYS} for evaluation in case.get("evaluations") or ()
    ]
    shown["tool_calls"] = list(case.get("tool_calls") or ())
    shown["criteria"] = list(criteria)
    return shown


def _digest(cases: list[dict[str, Any]]) -> str:
    """A key for a run with no id: the same cases and outputs give the same key (and keep their labels)."""
    outputs = [(case["name"], case["output"]) for case in cases]
    return hashlib.sha256(dumps(outputs).encode("utf-8")).hexdigest()[:20]


def _hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def _one_line(text: str) -> str:
    return " ".join(text.split())


@functools.cache
def _asset(name: str) -> str:
    return resources.files("agent_eval_judge").joinpath("assets", name).read_text(encoding="utf-8")
