"""LoCoMo retrieval benchmark: does ``conkeeper search`` find the turn that answers a question?

Why: agents ask memory questions in plain language ("When did Melanie buy the figurines?"), not
two keywords. LoCoMo (snap-research/LoCoMo, ``data/locomo10.json``: 10 long conversations, about
2,000 questions with gold evidence turns) measures exactly that. Its licence is non-commercial:
fetch it yourself and never commit it; this script only reads the path you give it.

For each conversation the script makes a project whose ``.claude/memory/sessions/`` holds one
Markdown file per session (``YYYY-MM-DD-session-N.md``, one bullet per turn carrying its dia id,
``- [D1:3] Caroline: ...``), then runs every question as
``conkeeper search QUESTION --sessions --all-time --json --limit 10`` — in process by default
(the same service call the CLI makes), or through the real CLI with ``--cli``. The ranked lines
are the matching lines of the JSON results in their printed order (context lines do not count).

Metrics, per LoCoMo category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop,
5 adversarial) and overall:

* ``any@10``: a gold turn is among the first 10 ranked lines;
* ``all@10``: every gold turn is among them;
* ``session any@5``: a gold turn's session file is among the first 5 files listed.

``--team`` measures the team store instead: each conversation's turns are pushed as team records
(uid = conversation and dia id, the turn line as title) into a throwaway local PostgreSQL
through a real
``conkeeper server`` (the cluster and server of ``bench/team_bench.py``), and every question is
asked through the client call ``conkeeper search --team`` makes; the hits' uids are the ranked
lines. Compare its any@10 with the local run's on conversations 0–4.

Conversations 0–4 are the tuning set; 5–9 the held-out set (report them apart, never tune on
them). Results go to ``bench/results/locomo_bench.json``.

Run: ``python bench/locomo_bench.py PATH/locomo10.json [--convs 0-4] [--cli] [--limit 10]``.
``--tiny`` (CI smoke) needs no data: it runs a small built-in conversation of the same shape
(written here, not taken from LoCoMo) so the whole path stays exercised.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

RESULTS = Path(__file__).resolve().parent / "results" / "locomo_bench.json"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_DIA = re.compile(r"\[(D\d+:\d+)\]")
CLI = (sys.executable, "-m", "conkeeper", "search", "--sessions", "--all-time", "--json")
_SESSION_FILE = re.compile(r"session-(\d+)\.md$")


def tiny_sample() -> dict:
    """A three-session conversation in LoCoMo's shape with four questions and gold turns."""
    turns = {
        1: [
            ("Ana", "I finally adopted a grey kitten from the shelter on Elm Street."),
            ("Ben", "That is lovely! What did you name her?"),
            ("Ana", "Her name is Pixel, she loves chasing the laser pointer."),
        ],
        2: [
            ("Ben", "I started a pottery class on Thursday evenings."),
            ("Ana", "Nice, are you making bowls?"),
            ("Ben", "Mostly mugs so far, the glaze came out blue."),
        ],
        3: [
            ("Ana", "Pixel knocked my blue mug off the shelf yesterday."),
            ("Ben", "Oh no, I can make you a new one in pottery class."),
        ],
    }
    dates = {
        1: "1:56 pm on 8 May, 2023",
        2: "10:02 am on 20 May, 2023",
        3: "6:15 pm on 2 June, 2023",
    }
    conversation: dict[str, object] = {"speaker_a": "Ana", "speaker_b": "Ben"}
    for n, session in turns.items():
        conversation[f"session_{n}_date_time"] = dates[n]
        conversation[f"session_{n}"] = [
            {"speaker": who, "dia_id": f"D{n}:{i}", "text": text}
            for i, (who, text) in enumerate(session, start=1)
        ]
    qa = [
        {"question": "What is the name of Ana's kitten?", "evidence": ["D1:3"], "category": 4},
        {"question": "Where did Ana adopt her kitten?", "evidence": ["D1:1"], "category": 4},
        {"question": "When does Ben go to pottery class?", "evidence": ["D2:1"], "category": 4},
        {"question": "What broke Ana's mug?", "evidence": ["D3:1", "D2:3"], "category": 1},
    ]
    return {"conversation": conversation, "qa": qa}


def parse_range(text: str) -> list[int]:
    """``0-4`` or ``5,7,9`` as a list of conversation numbers."""
    out: list[int] = []
    for part in text.split(","):
        if "-" in part:
            lo, hi = part.split("-")
            out.extend(range(int(lo), int(hi) + 1))
        elif part:
            out.append(int(part))
    return out


def _session_date(text: str) -> str:
    """``1:56 pm on 8 May, 2023`` → ``2023-05-08``."""
    day = text.split(" on ", 1)[-1].strip()
    try:
        return datetime.strptime(day, "%d %B, %Y").strftime("%Y-%m-%d")
    except ValueError:
        return "2000-01-01"


def _turn_line(turn: dict) -> str:
    text = " ".join(str(turn.get("text", "")).split())
    caption = turn.get("blip_caption")
    if caption:
        text += f" [shares a photo: {caption}]"
    return f"- [{turn['dia_id']}] {turn['speaker']}: {text}"


def write_conversation(sample: dict, project: Path) -> int:
    """Write each session as a Markdown file; returns how many files were written."""
    conv = sample["conversation"]
    sessions = project / ".claude" / "memory" / "sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    (project / ".git").mkdir(exist_ok=True)
    count = 0
    for key, turns in conv.items():
        match = re.fullmatch(r"session_(\d+)", key)
        if not match or not isinstance(turns, list):
            continue
        n = int(match.group(1))
        when = conv.get(f"{key}_date_time", "")
        lines = [f"# Session {n}: {when}", ""]
        lines.extend(_turn_line(t) for t in turns)
        name = f"{_session_date(when)}-session-{n}.md"
        (sessions / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        count += 1
    return count


def ranked(payload: dict) -> tuple[list[str], list[int]]:
    """The dia ids of the ranked matching lines, and the session numbers of the listed files,
    both in printed order."""
    lines: list[str] = []
    files: list[int] = []
    for result in payload.get("results", []):
        found = _SESSION_FILE.search(str(result.get("path", "")))
        if found and int(found.group(1)) not in files:
            files.append(int(found.group(1)))
        for line in result.get("lines", []):
            if not line.get("match"):
                continue
            dia = _DIA.search(str(line.get("text", "")))
            if dia and dia.group(1) not in lines:
                lines.append(dia.group(1))
    return lines, files


def _gold(qa: dict) -> list[str]:
    gold = []
    for item in qa.get("evidence", []):
        gold.extend(x.strip() for x in re.split(r"[;,]", str(item)) if x.strip())
    return [g for g in gold if re.fullmatch(r"D\d+:\d+", g)]


def run_inproc(project: Path, question: str, limit: int) -> dict:
    """The same service call ``conkeeper search`` makes."""
    from conkeeper.services.search.engine import SearchRequest, search

    request = SearchRequest(
        query=question, cwd=project, include_sessions=True, limit=limit, sessions_days=0
    )
    return search(request).to_json()


def run_cli(project: Path, question: str, limit: int, env: dict[str, str]) -> dict:
    """``conkeeper search QUESTION --sessions --all-time --json --limit N`` as a process."""
    proc = subprocess.run(
        [*CLI, "--limit", str(limit), "--", question],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"conkeeper search failed: {proc.stderr.strip()}")
    return json.loads(proc.stdout)


class TeamStore:
    """A throwaway PostgreSQL and ``conkeeper server`` holding the conversations as team
    records (``--team``)."""

    def __enter__(self) -> TeamStore:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import team_bench

        self.cluster = team_bench.Cluster(None).__enter__()
        url = self.cluster.url or ""
        team_bench._cli("server", "init", "--database", url)
        raw = team_bench._cli(
            "server", "token", "--database", url, "--user", "bench", "--team", "t", "--json"
        )
        self.server = team_bench.Server(url)
        from conkeeper.services.team.credentials import TeamCredentials

        self.creds = TeamCredentials(self.server.url, json.loads(raw)["token"], "bench")
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()
        self.cluster.__exit__()

    def push(self, n: int, sample: dict) -> None:
        """Every turn of conversation ``n`` as one observation, in batches."""
        from conkeeper.services.team import client

        rows = [
            {"uid": f"conv-{n}-{t['dia_id']}", "kind": "observation", "type": "discovery",
             "title": _turn_line(t)[2:], "subtitle": "", "facts": [], "narrative": "",
             "concepts": [], "files": [], "created_at": 1_700_000_000_000 + i}
            for i, t in enumerate(
                t for key, turns in sample["conversation"].items()
                if re.fullmatch(r"session_\d+", key) and isinstance(turns, list)
                for t in turns
            )
        ]  # fmt: skip
        for start in range(0, len(rows), 500):
            client.push(self.creds, f"example.com/locomo/conv-{n}", rows[start : start + 500])

    def search(self, n: int, question: str, limit: int) -> dict:
        """The team hits as ranked lines (what ``conkeeper search --team`` asks the server)."""
        from conkeeper.services.team import client

        hits = client.search(self.creds, f"example.com/locomo/conv-{n}", question, limit)
        uids = [str(h.get("uid", "")).rsplit("-", 1)[-1] for h in hits]  # uids are per team
        lines = [{"match": True, "text": f"[{uid}]"} for uid in uids]
        return {"results": [{"path": "", "lines": lines}]}


def _turn_texts(sample: dict) -> dict[str, str]:
    """Dia id -> the turn's line as written, for the ``--errors`` listing."""
    out: dict[str, str] = {}
    for key, turns in sample["conversation"].items():
        if re.fullmatch(r"session_\d+", key) and isinstance(turns, list):
            out.update((str(t["dia_id"]), _turn_line(t)) for t in turns)
    return out


def _print_error(qa: dict, gold: list[str], lines: list[str], turns: dict[str, str]) -> None:
    """One missed question: the question, its gold turns and the first ranked lines."""
    category = CATEGORIES.get(qa.get("category"), "other")
    print(f"\n[{category}] {qa['question']}  (answer: {qa.get('answer', '')})")
    for dia in gold:
        mark = "+" if dia in lines[:10] else "-"
        rank = lines.index(dia) + 1 if dia in lines else 0
        print(f"  gold{mark} #{rank} {turns.get(dia, dia)[:160]}")
    for dia in lines[:3]:
        print(f"  top    {turns.get(dia, dia)[:160]}")


def evaluate(
    data: list[dict],
    convs: list[int],
    limit: int,
    cli: bool,
    work: Path,
    errors: str = "",
    team: TeamStore | None = None,
) -> dict:
    """Run every question of ``convs``; returns per-category and overall scores. ``errors``
    names categories (or ``all``) whose missed questions are printed: for tuning only."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH", "")]))
    env["CONKEEPER_HOME"] = str(work / "data")
    os.environ["CONKEEPER_HOME"] = env["CONKEEPER_HOME"]
    tally: dict[str, list[list[int]]] = defaultdict(lambda: [[], [], []])
    times: list[float] = []
    cpu: list[float] = []
    for n in convs:
        sample = data[n]
        project = work / f"conv-{n}"
        write_conversation(sample, project)
        if team is not None:
            team.push(n, sample)
        turns = _turn_texts(sample) if errors else {}
        for qa in sample["qa"]:
            gold = _gold(qa)
            if not gold:
                continue
            started, started_cpu = time.perf_counter(), time.process_time()
            if team is not None:
                payload = team.search(n, qa["question"], limit)
            elif cli:
                payload = run_cli(project, qa["question"], limit, env)
            else:
                payload = run_inproc(project, qa["question"], limit)
            times.append(time.perf_counter() - started)
            cpu.append(time.process_time() - started_cpu)
            lines, files = ranked(payload)
            top = set(lines[:10])
            sessions = {int(g[1:].split(":")[0]) for g in gold}
            scores = (
                int(bool(top & set(gold))),
                int(set(gold) <= top),
                int(bool(sessions & set(files[:5]))),
            )
            category = CATEGORIES.get(qa.get("category"), "other")
            if errors and not scores[1] and errors in ("all", category):
                _print_error(qa, gold, lines, turns)
            for key in (CATEGORIES.get(qa.get("category"), "other"), "overall"):
                for i, value in enumerate(scores):
                    tally[key][i].append(value)
    table = {
        key: {
            "questions": len(vals[0]),
            "any@10": round(statistics.fmean(vals[0]), 4),
            "all@10": round(statistics.fmean(vals[1]), 4),
            "session_any@5": round(statistics.fmean(vals[2]), 4),
        }
        for key, vals in tally.items()
    }
    table["timing_ms"] = {
        "median": round(statistics.median(times) * 1000, 2),
        "p95": round(sorted(times)[int(len(times) * 0.95)] * 1000, 2),
        "cpu_median": round(statistics.median(cpu) * 1000, 2),
    }
    return table


def print_table(title: str, table: dict) -> None:
    """One line per category, then overall."""
    print(f"\n{title}")
    print(f"{'category':<14}{'n':>6}{'any@10':>9}{'all@10':>9}{'sess@5':>9}")
    order = [*CATEGORIES.values(), "overall"]
    for key in order:
        row = table.get(key)
        if row:
            print(
                f"{key:<14}{row['questions']:>6}{row['any@10']:>9.3f}{row['all@10']:>9.3f}"
                f"{row['session_any@5']:>9.3f}"
            )
    timing = table["timing_ms"]
    print(
        f"per question: median {timing['median']} ms, p95 {timing['p95']} ms (wall); "
        f"median {timing.get('cpu_median', 0)} ms CPU (in-process mode: this process only)"
    )


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run the tuning and held-out sets, print and save the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path, nargs="?", help="locomo10.json")
    parser.add_argument("--tiny", action="store_true", help="a built-in conversation, no data")
    parser.add_argument("--convs", help="only these conversations (e.g. 0-4); default: both sets")
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--cli", action="store_true", help="run every question as a process")
    parser.add_argument("--team", action="store_true", help="search the team store (PostgreSQL)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument(
        "--errors",
        default="",
        help="print questions whose gold turns are not all in the top 10: a category or 'all' "
        "(use on the tuning set only)",
    )
    args = parser.parse_args(argv)
    if args.tiny:
        data = [tiny_sample()]
        sets = {"tiny built-in": [0]}
        if args.out == RESULTS:
            args.out = RESULTS.with_suffix(".tiny.json")
    elif args.path is None:
        parser.error("give the path of locomo10.json (or --tiny)")
    else:
        data = json.loads(args.path.read_text(encoding="utf-8"))
        sets = (
            {f"conversations {args.convs}": parse_range(args.convs)}
            if args.convs
            else {"tuning 0-4": [0, 1, 2, 3, 4], "held-out 5-9": [5, 6, 7, 8, 9]}
        )
    mode = "team" if args.team else "cli" if args.cli else "in-process"
    report: dict[str, object] = {"mode": mode, "limit": args.limit}
    if args.team and args.out == RESULTS:
        args.out = RESULTS.with_name("locomo_bench_team.json")
    with contextlib.ExitStack() as stack, tempfile.TemporaryDirectory(prefix="ck-locomo-") as tmp:
        team = stack.enter_context(TeamStore()) if args.team else None
        for name, convs in sets.items():
            convs = [c for c in convs if c < len(data)]
            table = evaluate(
                data, convs, args.limit, args.cli, Path(tmp) / name.split()[0], args.errors, team
            )
            print_table(f"{name} ({report['mode']})", table)
            report[name] = table
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
