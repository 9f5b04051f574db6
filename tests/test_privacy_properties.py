"""Property tests: no line inside a private block ever leaves the privacy module.

Documents are generated from a grammar of plain lines, balanced code fences (whose tag lines
are code), private blocks (nested, unclosed at the end, with stray fences and inline tags
inside), stray close tags, front matter variants, a BOM and mixed ``\\n`` / ``\\r\\n`` / ``\\r``
line endings. Lines meant to be private carry unique ``SECRETLINE<n>`` markers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hypothesis import example, given, settings
from hypothesis import strategies as st

from conkeeper.domain.privacy import (
    analyze,
    blank_private,
    clean_captured,
    is_private_file,
    strip_private,
    visible_lines,
)

VISIBLE, HIDDEN, SECRET = "visible", "hidden", "secret"

PLAIN = [
    "# Heading",
    "note about the build",
    "- item one",
    "  indented prose",
    "",
    "   ",
    "text with `<private>` quoted as code",
    "    ```not-a-fence (indented four)",
    "``",
    "~~ short",
    "a <b>html</b> line",
    "<privateer>",
    "<!-- a comment -->",
]
# inline spans outside code, and what is left of their line
SPANS = {
    "inline <private>x</private> tag in a line": "inline  tag in a line",
    "<private>only a span</private>": "",
    'host <private reason="vpn">10.0.4.12</private> (VPN) <Private>b</private>!': "host  (VPN) !",
}
OPEN_TAGS = ["<private>", "<PRIVATE>", "<Private>", "< private >", "<private >", "<private>\u200b"]
CLOSE_TAGS = ["</private>", "</PRIVATE>", "</ private>", "< /private >", "</Private >"]
PADDING = ["", " ", "  ", "   ", "\t", "    "]
ENDINGS = ["\n", "\r\n", "\r"]
SAFE_FRONT_MATTER = [
    [],
    ["---", "title: notes", "---"],
    ["---", "private: false", "---"],
    ["---", "Private: 'no'  # reviewed", "tags: x", "---"],
    ["---", 'PRIVATE: "False"', "..."],
]


@dataclass
class Doc:
    """A generated document: its lines with what each must be, and how to join them."""

    lines: list[tuple[str, str]] = field(default_factory=list)
    counter: int = 0
    shown: dict[int, str] = field(default_factory=dict)  # visible lines that spans change
    open_example: bool = False  # a lone <private> shown in a fence: a later stray would close it
    # a stray </private> seen: a later fence could pair with the one before it around the
    # stray (its "example"), so a lone example tag after it is ambiguous and hidden
    stray_seen: bool = False

    def secret(self, text: str) -> None:
        self.counter += 1
        self.lines.append((text.replace("@", f"SECRETLINE{self.counter}"), SECRET))


@st.composite
def tag_line(draw: st.DrawFn, opening: bool) -> str:
    tag = draw(st.sampled_from(OPEN_TAGS if opening else CLOSE_TAGS))
    return draw(st.sampled_from(PADDING)) + tag + draw(st.sampled_from(PADDING))


@st.composite
def fence_line(draw: st.DrawFn, char: str | None = None, length: int | None = None) -> str:
    char = char or draw(st.sampled_from("`~"))
    length = length or draw(st.integers(3, 5))
    indent = " " * draw(st.integers(0, 3))
    info = draw(st.sampled_from(["", "python", " bash x", "  "]))
    return indent + char * length + info


def add_fenced_code(draw: st.DrawFn, doc: Doc) -> None:
    """A balanced code fence at top level: everything inside, tag lines included, is code."""
    char = draw(st.sampled_from("`~"))
    length = draw(st.integers(3, 5))
    other = "~" if char == "`" else "`"
    doc.lines.append((draw(fence_line(char, length)), VISIBLE))
    inner = st.one_of(
        st.sampled_from(PLAIN),
        st.sampled_from(sorted(SPANS)),
        fence_line(other),
        # an opener-looking line with info never closes; of the other character, so the
        # pairing stays plain (one of the fence's own character makes it a guess: hidden)
        st.just(other * length + "lang"),
    )
    texts = draw(st.lists(inner, max_size=4))
    example = draw(st.sampled_from(["none", "open", "close", "block"]))
    if doc.stray_seen and example in ("open", "close"):
        example = "none"
    if example == "block":  # a whole example block shown as code
        texts[len(texts) // 2 : len(texts) // 2] = [draw(tag_line(True)), draw(tag_line(False))]
    elif example != "none":  # one lone tag shown as an example
        texts.insert(len(texts) // 2, draw(tag_line(example == "open")))
        doc.open_example = doc.open_example or example == "open"
    for text in texts:
        doc.lines.append((text, VISIBLE))
    closer = " " * draw(st.integers(0, 3)) + char * draw(st.integers(length, length + 2))
    doc.lines.append((closer + draw(st.sampled_from(["", " ", "\t"])), VISIBLE))


def add_block(draw: st.DrawFn, doc: Doc, depth: int, *, closed: bool, fences: bool) -> None:
    """A private block: every line from its open tag to its matching close tag is private."""
    doc.lines.append((draw(tag_line(True)), HIDDEN))
    for _ in range(draw(st.integers(0, 4))):
        choice = draw(st.integers(0, 5 if fences else 4))
        if choice == 0:
            doc.secret(draw(st.sampled_from(PADDING)) + "@ the secret")
        elif choice == 1:
            doc.secret(draw(st.sampled_from(["@ then </private> inline", "<private>@", "@`"])))
        elif choice == 2:
            if depth < 3:
                add_block(draw, doc, depth + 1, closed=True, fences=fences)
        elif choice == 3:
            doc.secret(draw(st.sampled_from(PLAIN)) + " @")
        elif choice == 4:
            doc.lines.append((draw(st.sampled_from(PLAIN)), HIDDEN))
        else:
            doc.lines.append((draw(fence_line()), HIDDEN))
            doc.secret("@ after a fence inside a block")
    if closed:
        doc.lines.append((draw(tag_line(False)), HIDDEN))


@st.composite
def documents(
    draw: st.DrawFn, fences_in_blocks: bool = True, top_fences: str = "balanced"
) -> tuple[str, Doc]:
    """A document and the expected kind of each of its lines.

    ``top_fences``: "balanced" code fences only; "unclosed" also inserts fence openers that
    nothing closes; "any" also inserts arbitrary fence lines (which may turn later tags into
    code, so only captured text, where fences protect nothing, may be tested with them).
    """
    doc = Doc()
    for text in draw(st.sampled_from(SAFE_FRONT_MATTER)):
        doc.lines.append((text, VISIBLE))
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.integers(0, 5 if top_fences != "balanced" else 4))
        if kind == 5 and top_fences == "unclosed":
            doc.lines.append(
                (draw(st.sampled_from(["``````````x", "~~~~~~~~~~ x", "   `````````` y"])), VISIBLE)
            )
        elif kind == 5:
            doc.lines.append((draw(fence_line()), VISIBLE))
        elif kind == 0 and draw(st.booleans()):
            line, shown = draw(st.sampled_from(sorted(SPANS.items())))
            doc.shown[len(doc.lines)] = shown
            doc.lines.append((line, VISIBLE))
        elif kind == 0:
            doc.lines.append((draw(st.sampled_from(PLAIN)), VISIBLE))
        elif kind == 1:
            add_fenced_code(draw, doc)
        elif kind in (2, 3):
            add_block(draw, doc, 0, closed=True, fences=fences_in_blocks)
        elif not doc.open_example:  # (after an example <private>, a stray would close it)
            doc.lines.append((draw(tag_line(False)), HIDDEN))  # stray close tag
            doc.stray_seen = True
    if draw(st.booleans()):
        add_block(draw, doc, 0, closed=False, fences=fences_in_blocks)
    return join(draw, [text for text, _kind in doc.lines]), doc


def join(draw: st.DrawFn, lines: list[str]) -> str:
    """Join lines with random line endings, an optional final break and an optional BOM."""
    parts = [line + draw(st.sampled_from(ENDINGS)) for line in lines]
    if parts and draw(st.booleans()):
        parts[-1] = lines[-1]
    return ("\ufeff" if draw(st.booleans()) else "") + "".join(parts)


def assert_no_secret(output: str | None) -> None:
    assert output is None or "SECRETLINE" not in output


@settings(max_examples=400, deadline=None)
@given(documents())
def test_no_private_line_survives_any_output(case: tuple[str, Doc]) -> None:
    text, _doc = case
    assert_no_secret(strip_private(text))
    assert_no_secret(blank_private(text))
    assert_no_secret(clean_captured(text))
    assert all("SECRETLINE" not in line for _n, line in visible_lines(text))


@example(  # a stray close, then a fenced lone example: which fences pair is a guess
    case=(
        "# Heading\n```\n```\n</private>\n```\n<private>\n```\n",
        Doc(
            lines=[
                ("# Heading", VISIBLE),
                ("```", VISIBLE),
                ("```", VISIBLE),
                ("</private>", HIDDEN),
                ("```", VISIBLE),
                ("<private>", HIDDEN),
                ("```", HIDDEN),
            ]
        ),
    )
)
@settings(max_examples=300, deadline=None)
@given(documents(fences_in_blocks=False))
def test_exactly_the_non_private_lines_stay_visible(case: tuple[str, Doc]) -> None:
    text, doc = case
    expected = [
        doc.shown.get(i, line)
        for i, (line, kind) in enumerate(doc.lines)
        if kind == VISIBLE and doc.shown.get(i, line).strip()
    ]
    actual = [line for _n, line in visible_lines(text) if line.strip()]
    assert actual == expected


@settings(max_examples=300, deadline=None)
@given(documents())
def test_blank_private_keeps_every_visible_line_at_its_number(case: tuple[str, Doc]) -> None:
    text, _doc = case
    report = analyze(text)
    if report.total_lines == 0:
        assert blank_private(text) == ""
        return
    pieces = blank_private(text).split("\n")
    body = text.removeprefix("\ufeff")
    trailing = bool(body) and body[-1] in "\r\n"
    assert len(pieces) == report.total_lines + (1 if trailing else 0)
    for number, line in visible_lines(text):
        assert pieces[number - 1] == line


@settings(max_examples=200, deadline=None)
@given(documents())
def test_hidden_ranges_cover_every_private_line(case: tuple[str, Doc]) -> None:
    text, _doc = case
    report = analyze(text)
    hidden = {n for r in report.hidden_ranges for n in range(r.start, r.end + 1)}
    lines = text.removeprefix("\ufeff").splitlines()
    secret_lines = {i + 1 for i, line in enumerate(lines) if "SECRETLINE" in line}
    assert secret_lines <= hidden
    shown = {n for n, _line in visible_lines(text)}
    assert shown.isdisjoint(hidden)
    assert all("SECRETLINE" not in w for w in report.warnings)


@settings(max_examples=200, deadline=None)
@given(documents())
def test_stripping_again_never_shows_more(case: tuple[str, Doc]) -> None:
    """Stripping removes fence lines with the blocks around them, so a second pass may pair
    fences differently and hide more (ambiguity hides), even inline tags a first pass kept as
    the literal text of a code block; it never shows anything new: every line it keeps is
    what some line of the first pass showed, with parts left out at most."""
    text, _doc = case
    once = strip_private(text)
    twice = strip_private(once)
    shown = once.splitlines()
    assert all(any(_left_out_of(line, kept) for kept in shown) for line in twice.splitlines())
    if "<" not in once:
        assert twice == once


def _left_out_of(line: str, kept: str) -> bool:
    """Whether ``line`` is ``kept`` with some characters left out (a subsequence of it)."""
    rest = iter(kept)
    return all(char in rest for char in line)


def test_a_second_pass_may_hide_inline_tags_a_fenced_line_kept() -> None:
    """The case hypothesis found: a fence the first pass paired inside a private block shows
    a line with inline tags as literal code; the second pass pairs that fence anew and strips
    the tags. Less is shown, nothing new."""
    line = 'host <private reason="vpn">10.0.4.12</private> (VPN) <Private>b</private>!'
    once = f"```\n</private>\n{line}\n```\n```\n"
    twice = strip_private(once)
    assert "10.0.4.12" not in twice
    assert all(any(_left_out_of(t, k) for k in once.splitlines()) for t in twice.splitlines())


# ----------------------------------------------------------------------------- front matter


@st.composite
def private_files(draw: st.DrawFn) -> str:
    """Files whose front matter says private, written every tolerated way."""
    key = draw(st.sampled_from(["private", "Private", "PRIVATE"]))
    value = draw(
        st.sampled_from(["true", "True", "TRUE", "yes", "Yes", "on", "1", '"true"', "'yes'", "y"])
    )
    comment = draw(st.sampled_from(["", "  # keep out of context", " #x"]))
    header = ["---", "title: t", f"{key}: {value}{comment}"]
    if draw(st.booleans()):
        header.reverse()
        header.insert(0, header.pop())  # keep '---' first, shuffle the keys
    closer = draw(st.sampled_from([["---"], ["..."], []]))  # [] = never closed
    leading = [""] * draw(st.integers(0, 2))
    body = [f"SECRETLINE{i} {draw(st.sampled_from(PLAIN))}" for i in range(draw(st.integers(0, 5)))]
    return join(draw, leading + header + closer + body)


@settings(max_examples=300, deadline=None)
@given(private_files())
def test_private_front_matter_hides_the_whole_file(text: str) -> None:
    assert is_private_file(text)
    report = analyze(text)
    assert report.file_private
    assert strip_private(text) == ""
    assert visible_lines(text) == []
    assert clean_captured(text) is None
    assert blank_private(text).strip() == ""


@st.composite
def nested_private_files(draw: st.DrawFn) -> str:
    """Files whose ``private:`` flag the flat parser reads as nested: indented, a list item,
    under another key, possibly beside a plain ``private: false`` (fail closed: private)."""
    indent = draw(st.sampled_from(["  ", "    ", "\t", " ", "- ", "  - "]))
    value = draw(st.sampled_from(["true", "yes", "on", "1", '"true"', "maybe", ""]))
    flag = f"{indent}{draw(st.sampled_from(['private', 'Private']))}: {value}"
    others = draw(st.lists(st.sampled_from(["title: t", "notes:", "private: false", "tags: [a]"])))
    header = ["---", *others]
    header.insert(draw(st.integers(1, len(header))), flag)
    closer = draw(st.sampled_from([["---"], ["..."], []]))
    body = [f"SECRETLINE{i} {draw(st.sampled_from(PLAIN))}" for i in range(draw(st.integers(1, 4)))]
    return join(draw, header + closer + body)


@settings(max_examples=300, deadline=None)
@given(nested_private_files())
def test_an_indented_private_flag_hides_the_whole_file(text: str) -> None:
    assert is_private_file(text)
    assert strip_private(text) == ""
    assert clean_captured(text) is None
    assert "SECRETLINE" not in blank_private(text)


@st.composite
def stray_fence_documents(draw: st.DrawFn) -> str:
    """A generated document, a fence that pairs with nothing, more of the document, a
    well-formed private block, then a later code block whose opener the stray fence would
    pair with when fences are read in order."""
    head, _doc = draw(documents(fences_in_blocks=False))
    middle, _doc2 = draw(documents(fences_in_blocks=False))
    if "private" in middle.lower().split("---")[0] and middle.startswith("---"):
        middle = "\n" + middle
    char = draw(st.sampled_from("`~"))
    stray = draw(fence_line(char))
    block = [draw(tag_line(True)), "SECRETLINE0 in a well-formed block", draw(tag_line(False))]
    code = [draw(fence_line(char)), "code", char * 6]
    tail = "\n".join([stray, middle.removeprefix("\ufeff"), *block, *code, "end"])
    return head.removeprefix("\ufeff") + "\n" + tail + "\n"


@settings(max_examples=300, deadline=None)
@given(stray_fence_documents())
def test_a_stray_fence_never_turns_a_later_private_block_into_code(text: str) -> None:
    """The ambiguity of fences hides more, never less: whatever came before, a well-formed
    block after a fence that pairs with nothing is hidden in every output."""
    assert_no_secret(strip_private(text))
    assert_no_secret(blank_private(text))
    assert_no_secret(clean_captured(text))


# ----------------------------------------------------------------------------- no tags


_BREAK = re.compile("\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_characters="<", blacklist_categories=["Cs"])))
def test_text_without_tags_passes_through_unchanged(text: str) -> None:
    if "private" in text.lower():
        return  # a generated front matter could legitimately say 'private: yes'
    expected = _BREAK.sub("\n", text.removeprefix("\ufeff"))
    assert strip_private(text) == expected
    # a memory file's lines end at LF, CRLF and CR only (domain.lines): another break joins
    blanked = _BREAK.sub(_file_break, text.removeprefix("\ufeff"))
    assert blank_private(text) == blanked


def _file_break(found: re.Match[str]) -> str:
    return "\n" if found.group() in ("\r\n", "\n", "\r") else " "


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(["alpha ", "beta\n", "line\r\n", "x\r", "  ", "`code` ", "```\n"]),
        max_size=20,
    )
)
def test_plain_lines_text_is_identical(parts: list[str]) -> None:
    text = "".join(parts).replace("\r\n", "\n").replace("\r", "\n")
    assert strip_private(text) == text
    assert blank_private(text) == text


# ----------------------------------------------------------------------------- captured text


@st.composite
def prompts(draw: st.DrawFn) -> str:
    """Prompt-like text with inline private spans (nested, multi-line, unclosed at the end)
    and injected ConKeeper context, all holding SECRETLINE markers."""
    counter = iter(range(10_000))

    def span(depth: int) -> str:
        inner = [f"SECRETLINE{next(counter)}"]
        if depth < 2 and draw(st.booleans()):
            inner.append(span(depth + 1))
        inner.append(draw(st.sampled_from([" ", "\n", "\r\n", " `</b>` ", "\n```\n"])))
        inner.append(f"SECRETLINE{next(counter)}")
        return draw(st.sampled_from(OPEN_TAGS[:5])) + "".join(inner) + "</private>"

    def memory() -> str:
        attrs = draw(st.sampled_from(["", ' project="x"', " source=hook"]))
        tag = draw(st.sampled_from(["conkeeper-memory", "ConKeeper-Memory"]))
        return f"<{tag}{attrs}>\nSECRETLINE{next(counter)} memory\n</{tag}>"

    pieces = []
    for _ in range(draw(st.integers(1, 6))):
        choice = draw(st.integers(0, 3))
        if choice == 0:
            pieces.append(draw(st.sampled_from(["fix the bug ", "ok\n", "```\n", "`x` "])))
        elif choice == 1:
            pieces.append(span(0))
        elif choice == 2:
            pieces.append(memory())
        else:
            pieces.append(draw(st.sampled_from(["\n", "\r\n", "\r", " "])))
    if draw(st.booleans()):
        pieces.append(
            f" <private> SECRETLINE{next(counter)} never closed\nSECRETLINE{next(counter)}"
        )
    return "".join(pieces)


@settings(max_examples=400, deadline=None)
@given(prompts())
def test_clean_captured_removes_inline_private_and_injected_context(text: str) -> None:
    cleaned = clean_captured(text)
    assert_no_secret(cleaned)
    if cleaned is not None:
        assert cleaned.strip()
        assert "conkeeper-memory" not in cleaned.lower()


@settings(max_examples=200, deadline=None)
@given(documents(), prompts())
def test_clean_captured_on_documents_with_prompts(case: tuple[str, Doc], prompt: str) -> None:
    text, _doc = case
    assert_no_secret(clean_captured(prompt + "\n" + text))
    assert_no_secret(clean_captured(text + "\n" + prompt))


@settings(max_examples=300, deadline=None)
@given(documents(top_fences="unclosed"))
def test_a_fence_that_never_closes_protects_no_tag(case: tuple[str, Doc]) -> None:
    text, _doc = case
    assert_no_secret(strip_private(text))
    assert_no_secret(blank_private(text))


@settings(max_examples=300, deadline=None)
@given(documents(top_fences="any"), prompts())
def test_no_fence_protects_a_tag_in_captured_text(case: tuple[str, Doc], prompt: str) -> None:
    text, _doc = case
    assert_no_secret(clean_captured(text))
    assert_no_secret(clean_captured(prompt + "\n" + text))


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300))
def test_blank_private_fast_path_matches_the_full_scan(text: str) -> None:
    """Text that never spells "private" takes a shortcut; it must equal the full scan. Either
    way the blanked text has the file's lines (``domain.lines``), the ones ``tag add`` counts."""
    from conkeeper.domain import privacy
    from conkeeper.domain.lines import split_lines

    full = privacy._analyze(text)
    pairs = zip(full.lines, full.hidden, strict=True)
    expected = "\n".join("" if hide else line for line, hide in pairs)
    expected += "\n" if full.lines and full.ends_with_break else ""
    assert privacy._blank_pieces(text) == expected
    body = text.removeprefix("\ufeff")
    assert len(split_lines(privacy.blank_private(text))) == len(split_lines(body))


# Each way a reader still sees ``<private>`` (and its closing tag) in captured text.
_OPENERS = [
    ("\uff1c", "\uff1e"),  # fullwidth
    ("\ufe64", "\ufe65"),  # small forms
    ("\u2329", "\u232a"),  # angle brackets
    ("\u27e8", "\u27e9"),  # mathematical angle brackets
    ("&lt;", "&gt;"),
    ("&#60;", "&#62;"),
    ("\\u003c", "\\u003e"),
    ("%3C", "%3E"),
    ("<", ">"),
]
_WORD_FORMS = st.sampled_from(
    ["private", "PRIVATE", "priv\u0430te", "pri\u200bvate", "priv\nate", "\u0440riv\u0430t\u0435"]
)


@settings(max_examples=300, deadline=None)
@given(
    brackets=st.sampled_from(_OPENERS),
    word=_WORD_FORMS,
    before=st.text(st.characters(codec="utf-8", exclude_characters="<>&%\\"), max_size=40),
    after=st.text(st.characters(codec="utf-8", exclude_characters="<>&%\\"), max_size=40),
    closed=st.booleans(),
)
def test_a_private_span_in_any_form_hides_its_content(
    brackets: tuple[str, str], word: str, before: str, after: str, closed: bool
) -> None:
    lt, gt = brackets
    secret = "MKQ7ZK9WD4"
    close = f"{lt}/{word}{gt}" if closed else ""
    text = f"{before} {lt}{word}{gt}{secret}{close} {after}"
    out = clean_captured(text) or ""
    assert secret not in out


_LOOK_ALIKE_TAGS = st.sampled_from(
    [
        ("\uff1cprivate\uff1e", "\uff1c/private\uff1e"),
        ("\ufe64private\ufe65", "\ufe64/private\ufe65"),
        ("\u2329private\u232a", "\u2329/private\u232a"),
        ("<priv\u0430te>", "</priv\u0430te>"),
        ("<\u0440rivate>", "</\u0440rivate>"),
        ("\uff1c\uff50\uff52\uff49\uff56\uff41\uff54\uff45\uff1e", "\uff1c/private\uff1e"),
    ]
)


@settings(max_examples=200, deadline=None)
@given(tags=_LOOK_ALIKE_TAGS, inline=st.booleans(), case=documents(fences_in_blocks=False))
def test_a_look_alike_tag_in_a_memory_file_hides_like_the_plain_one(
    tags: tuple[str, str], inline: bool, case: tuple[str, Doc]
) -> None:
    text, _doc = case
    secret = "MKLOOKALIKE42"
    opener, closer = tags
    hidden = (
        f"- host {opener}{secret}{closer} ok\n" if inline else f"{opener}\n{secret}\n{closer}\n"
    )
    planted = hidden + text
    for out in (strip_private(planted), blank_private(planted)):
        assert secret not in out
