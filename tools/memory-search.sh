#!/usr/bin/env bash
# memory-search.sh — search ConKeeper memory from any shell, any platform, any agent.
#
# Usage: memory-search.sh [--global] [--sessions] [--category NAME] [other search flags] <query>
#
#   <query>           words, "a phrase", prefix*, a OR b (required)
#   --global          also search ~/.claude/memory/
#   --sessions        also search .claude/memory/sessions/ (last 30 days by default)
#                     and the observations, summaries and prompts in the database
#   --category NAME   only entries tagged <!-- @category: NAME -->
#   anything else     passed to `conkeeper search` (--tag, --since, --limit, --json, ...)
#
# The search itself is ConKeeper's index (SQLite FTS5, privacy-filtered, never stale); this
# script only finds a way to run it: `conkeeper` on PATH, else `python3 -m conkeeper` with this
# checkout's src/ on PYTHONPATH, so it works from a plugin folder without any install.
# CONKEEPER_PYTHON picks the interpreter for the second case.
# Bash 3.2 compatible (macOS): no mapfile, no associative arrays, no ${var,,}.
set -euo pipefail
trap 'echo "[ConKeeper] memory-search.sh failed at line $LINENO" >&2; exit 0' ERR

usage() {
    echo "usage: memory-search.sh [--global] [--sessions] [--category NAME] [flags] <query>" >&2
}

QUERY=""
set -- "$@" "--end-of-args--"
while [ "$1" != "--end-of-args--" ]; do
    case "$1" in
        --category)
            if [ "$2" = "--end-of-args--" ] || [ -z "$2" ]; then
                echo "[ConKeeper] --category needs a name, e.g. --category decision" >&2
                exit 2
            fi
            set -- "$@" "--category" "$2"
            shift 2
            ;;
        --category=*)
            set -- "$@" "$1"
            shift
            ;;
        --limit|--since|--tag|--kind|--context)
            if [ "$2" = "--end-of-args--" ]; then
                echo "[ConKeeper] $1 needs a value" >&2
                exit 2
            fi
            set -- "$@" "$1" "$2"
            shift 2
            ;;
        -h|--help)
            usage
            exit 0
            ;;
        --)
            shift
            while [ "$1" != "--end-of-args--" ]; do
                QUERY="${QUERY:+$QUERY }$1"
                shift
            done
            ;;
        -*)
            set -- "$@" "$1"
            shift
            ;;
        *)
            QUERY="${QUERY:+$QUERY }$1"
            shift
            ;;
    esac
done
shift  # drop the marker; "$@" now holds the flags only

case "$QUERY" in
    *[![:space:]]*) ;;
    *)
        usage
        echo "[ConKeeper] the query is empty; give a word or phrase to search for" >&2
        exit 2
        ;;
esac

if command -v conkeeper >/dev/null 2>&1; then
    exec conkeeper search "$@" -- "$QUERY"
fi

# No install: run the code that ships next to this script (a checkout or a plugin folder).
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SRC_DIR="$(cd "$SCRIPT_DIR/.." && pwd)/src"
PYTHON="${CONKEEPER_PYTHON:-python3}"
if ! command -v "$PYTHON" >/dev/null 2>&1; then
    PYTHON=python
fi
if ! command -v "$PYTHON" >/dev/null 2>&1; then
    echo "[ConKeeper] memory-search.sh needs Python 3.10+ (python3 not found)" >&2
    exit 1
fi
PYTHONPATH="$SRC_DIR${PYTHONPATH:+:$PYTHONPATH}" exec "$PYTHON" -m conkeeper search "$@" -- "$QUERY"
