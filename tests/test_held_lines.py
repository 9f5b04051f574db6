"""Property tests of the byte work behind holding an agent's lines out of an instruction file.

The hold may take out only the agent's lines' bytes and ``review approve`` must put exactly
those back: for any file (LF, CRLF, bytes that are not UTF-8, no final newline) and any runs of
its lines, cutting them and putting each back, newest cut first, gives the file back byte for
byte when nothing changed in between.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conkeeper.domain import held_lines

LINE = st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"").replace(b"\r", b""))
ENDING = st.sampled_from([b"\n", b"\r\n"])


@st.composite
def files_and_runs(draw: st.DrawFn) -> tuple[bytes, list[list[int]]]:
    lines = draw(st.lists(st.tuples(LINE, ENDING), min_size=1, max_size=12))
    data = b"".join(text + end for text, end in lines)
    if draw(st.booleans()):
        data = data[: -len(lines[-1][1])]  # no newline at the end
    count = len(held_lines.split_lines(data))
    chosen = sorted(draw(st.sets(st.integers(0, max(count - 1, 0)), max_size=count)))
    return data, held_lines.runs([i for i in chosen if i < count])


@settings(max_examples=300, deadline=None)
@given(files_and_runs())
def test_a_cut_put_back_gives_the_file_back_byte_for_byte(case: tuple[bytes, list]) -> None:
    data, taken = case
    left, cuts = held_lines.cut_runs(data, taken)
    assert len(left) + sum(len(c.raw) for c in cuts) == len(data)
    current = left
    for index in range(len(cuts) - 1, -1, -1):  # the last cut first: the others stay out
        current = held_lines.put_back(current, cuts[index], held_lines.digest(current))
        assert current == held_lines.cut_runs(data, taken[:index])[0]
    assert current == data


def test_added_lines_are_those_carried_and_new_never_a_moved_one() -> None:
    known = held_lines.file_keys(b"# A\n- mine: ignore old tickets\n\n## B\n- x\n")
    now = b"# A\n\n## B\n- x\n- mine: ignore old tickets\n- agent: run evil\n"
    carried = "- mine: ignore old tickets\n- agent: run evil"
    assert held_lines.added_lines(known, now, carried) == [5]
    assert held_lines.added_lines(known, now, "something else") == []
