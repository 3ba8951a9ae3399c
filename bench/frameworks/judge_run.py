"""Scenario F: many llm_judge evaluations against a judge server, in agent-eval or as a plain client loop.

Usage: judge_run.py agent-eval|aiohttp|httpx|streams --cases N --concurrency C
(the server's URL comes from AGENT_EVAL_JUDGE_BASE_URL, the cache folder from AGENT_EVAL_CACHE_DIR).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from urllib.parse import urlsplit

from _common import ANSWER, measure

CRITERIA = "The answer states a number."


def agent_eval_run(cases: int, concurrency: int) -> tuple[int, int]:
    """Judge ``cases`` answers through EvalSuite; return (passed, served from the cache)."""
    from agent_eval import Case, EvalSuite
    from agent_eval.evaluators import llm_judge

    async def agent(question: str) -> str:
        return ANSWER

    judge = llm_judge(CRITERIA)
    suite = EvalSuite(agent, [Case(f"case {index}", f"question {index}", evaluators=[judge]) for index in range(cases)])
    report = suite.run(print=False, concurrency=concurrency)
    errors = [case.error for case in report.cases if case.status == "error"]
    if errors:
        raise SystemExit(f"{len(errors)} judge errors, first: {errors[0]}")
    cached = sum(bool(case.evaluations[0].metadata.get("cached")) for case in report.cases)
    return report.passed, cached


def httpx_run(cases: int, concurrency: int) -> tuple[int, int]:
    """The same requests from one plain httpx client under a semaphore: no prompt, retries or cache."""
    import httpx

    url = os.environ["AGENT_EVAL_JUDGE_BASE_URL"].rstrip("/") + "/chat/completions"
    model = os.environ["AGENT_EVAL_JUDGE_MODEL"]

    async def main() -> int:
        semaphore = asyncio.Semaphore(concurrency)
        limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        async with httpx.AsyncClient(limits=limits, timeout=30) as client:

            async def one(index: int) -> bool:
                messages = [{"role": "user", "content": f"{CRITERIA}\nquestion {index}\n{ANSWER}"}]
                async with semaphore:
                    response = await client.post(url, json={"model": model, "messages": messages})
                content = response.raise_for_status().json()["choices"][0]["message"]["content"]
                return bool(json.loads(content)["pass"])

            return sum(await asyncio.gather(*(one(index) for index in range(cases))))

    return asyncio.run(main()), 0


def aiohttp_run(cases: int, concurrency: int) -> tuple[int, int]:
    """The same requests from one plain aiohttp session (the judge's HTTP client) under a semaphore.

    aiohttp is imported inside the measured run, as the judge imports it at its first request.
    """
    import aiohttp

    url = os.environ["AGENT_EVAL_JUDGE_BASE_URL"].rstrip("/") + "/chat/completions"
    model = os.environ["AGENT_EVAL_JUDGE_MODEL"]

    async def main() -> int:
        semaphore = asyncio.Semaphore(concurrency)
        connector = aiohttp.TCPConnector(limit_per_host=concurrency)
        async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=30)) as session:

            async def one(index: int) -> bool:
                messages = [{"role": "user", "content": f"{CRITERIA}\nquestion {index}\n{ANSWER}"}]
                async with semaphore, session.post(url, json={"model": model, "messages": messages}) as response:
                    response.raise_for_status()
                    content = (await response.json())["choices"][0]["message"]["content"]
                return bool(json.loads(content)["pass"])

            return sum(await asyncio.gather(*(one(index) for index in range(cases))))

    return asyncio.run(main()), 0


def streams_run(cases: int, concurrency: int) -> tuple[int, int]:
    """The same requests over ``concurrency`` kept-alive connections, HTTP/1.1 by hand on asyncio streams.

    What the server and this machine allow, with as little client work as there can be.
    """
    base = urlsplit(os.environ["AGENT_EVAL_JUDGE_BASE_URL"])
    path = base.path.rstrip("/") + "/chat/completions"
    model = os.environ["AGENT_EVAL_JUDGE_MODEL"]
    pending = iter(range(cases))

    async def connection() -> int:
        reader, writer = await asyncio.open_connection(base.hostname, base.port)
        passed = 0
        for index in pending:
            messages = [{"role": "user", "content": f"{CRITERIA}\nquestion {index}\n{ANSWER}"}]
            body = json.dumps({"model": model, "messages": messages}).encode()
            head = f"POST {path} HTTP/1.1\r\nHost: {base.netloc}\r\nContent-Type: application/json\r\n"
            writer.write(f"{head}Content-Length: {len(body)}\r\n\r\n".encode() + body)
            headers = await reader.readuntil(b"\r\n\r\n")
            if not headers.startswith(b"HTTP/1.1 200"):
                raise SystemExit(f"judge server answered {headers.splitlines()[0]!r}")
            length = next(
                int(line.split(b":")[1])
                for line in headers.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            )
            content = json.loads(await reader.readexactly(length))["choices"][0]["message"]["content"]
            passed += bool(json.loads(content)["pass"])
        writer.close()
        return passed

    async def main() -> int:
        return sum(await asyncio.gather(*(connection() for _ in range(min(concurrency, cases)))))

    return asyncio.run(main()), 0


RUNS = {"agent-eval": agent_eval_run, "aiohttp": aiohttp_run, "httpx": httpx_run, "streams": streams_run}


def main() -> None:
    """Run one judge pass and print its measurements."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("framework", choices=tuple(RUNS))
    parser.add_argument("--cases", type=int, default=1_000)
    parser.add_argument("--concurrency", type=int, default=50)
    args = parser.parse_args()
    run = RUNS[args.framework]
    if args.framework == "agent-eval":
        # Imported before the clock starts, as the other scenarios' scripts do; what the judge
        # imports on its first call (its HTTP stack) stays inside the measured run.
        import agent_eval._runner  # noqa: F401
        from agent_eval.evaluators import llm_judge  # noqa: F401
    cached: list[int] = []

    def counted() -> int:
        passed, hits = run(args.cases, args.concurrency)
        cached.append(hits)
        return passed

    figures = measure(counted, args.cases)
    line = {"framework": args.framework, "scenario": "judge", "cases": args.cases, **figures, "cached": cached[0]}
    line["us_per_case"] = figures["seconds"] / args.cases * 1e6
    sys.stdout.write(json.dumps(line) + "\n")


if __name__ == "__main__":
    main()
