"""A test agent that answers from answers.json in the current directory."""

from __future__ import annotations

import json
import time
from pathlib import Path


def agent(question, ctx=None):
    answers = json.loads(Path("answers.json").read_text(encoding="utf-8"))
    answer = answers[question]
    if isinstance(answer, dict):
        time.sleep(answer.get("sleep", 0))
        if answer.get("raise"):
            raise RuntimeError(answer["raise"])
        return answer.get("text", "")
    return answer
