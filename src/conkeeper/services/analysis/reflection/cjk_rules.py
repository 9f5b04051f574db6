"""The rule a correction written in Japanese, Chinese or Korean states, in the user's words.

Why it exists: reflect's readings of a rule (:mod:`.rules`) split clauses on spaces and word
boundaries, which these languages do not have, so "また print を使ってる。`logging` を使って
ください、print は使わないで" stated "no rule" and approval asked the user for words they had
already typed. Here a correction is cut into sentences (。！？, and their ASCII forms right after a
word of the language: Rust's `?` operator is no question mark, nor is a code span), each
sentence that carries an order of its language ("ください", "ないで", "必ず"; "请", "不要",
"一律"; "세요", "마세요", "항상") and none of its complaint words ("また", "又", "또") is kept
whole (its condition with it), and in a sentence that mixes both only the clauses stating the
order are kept. The rule stays in the user's language: reflect has no translator, and the
user's own order is the faithful rule. Standard library only.
"""

from __future__ import annotations

import re

_KANA = re.compile(r"[\u3040-\u30ff]")
_HANGUL = re.compile(r"[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_CODE = re.compile(r"`[^`]*`")
# an ASCII "?" or "!" ends a sentence only right after a word of the language ("なんで?"):
# after a space, a Latin letter or a comma ("、? を使って") it is code, Rust's `?` operator
# or `println!`
_SENTENCE_END = re.compile(
    r"(?<=[。！？])|(?<=[^\x00-\x7f\u3000-\u303f\uff00-\uffef][!?])|(?<=\.)\s+|\n+"
)
_HIDDEN = re.compile(r"\x00(\d+)\x00")
_CLAUSE_MARK = re.compile(r"[、，,；;]\s*")

# per language: (orders, complaints); an order marks an imperative or normative sentence, a
# complaint marks what the agent did wrong ("again", "I said", "why")
_MARKERS = {
    "ja": (
        r"ください|下さい|ないで|なさい|必ず|常に|いつも|べき|禁止|こと$|[てで]ね?$|にする$|"
        r"を使う$|しましょう|すること",
        r"また|何度|何回|前にも|言った|言ったよね|なんで|どうして|してる$|ってる$|ってば",
    ),
    "zh": (
        r"请|不要|别|必须|一律|务必|总是|始终|永远|统一|应该|要用|改用|只用|不准|禁止|"
        r"(?:我们|这里|项目里?|本项目|这个项目)(?:都|一律)?用",
        r"又|再次|还是|说过|为什么|怎么|你(?:用|写|加|改)了",
    ),
    "ko": (
        r"세요|십시오|마세요|말고|주세요|항상|반드시|해야|하지 마|쓰지 마|금지",
        r"또|다시|왜|했잖아|말했|번째|했네요|썼네요",
    ),
}
# "你必须用 pnpm": the order without the "you" it opens on ("必须用 pnpm"), as an English rule
# has no "you"
_YOU_FIRST = re.compile(r"^(?:你们?|您)(?=必须|要|应该|得|不要|别|一律|总是|务必)")
_JOINER = {"ja": "、", "zh": "，", "ko": ", "}
_END = {"ja": "。", "zh": "。", "ko": "."}


# code written without backticks ("fmt.Println", "unwrap()", "slog.Info"): no prose
_CODE_WORD = re.compile(r"[\x21-\x7e]*[._:/()<>=\\][\x21-\x7e]*")


def language(text: str) -> str | None:
    """``ja``, ``zh`` or ``ko`` when ``text`` (its code, in spans or not, left out) is mostly
    written in one of them (at least four of its letters, and a third of all; or two, when
    every letter of its prose is one: "别用 fmt.Println，用 slog.Info。" says its rule in
    three); ``None`` otherwise."""
    prose = _CODE_WORD.sub(" ", _CODE.sub(" ", text))
    kana, hangul, han = (len(p.findall(prose)) for p in (_KANA, _HANGUL, _HAN))
    letters = sum(1 for c in prose if c.isalpha())
    cjk = kana + hangul + han
    if cjk < (2 if cjk == letters else 4) or cjk * 3 < letters:
        return None
    if hangul > kana:
        return "ko"
    return "ja" if kana else "zh"


def cjk_rule(text: str) -> str | None:
    """The rule ``text`` states in Japanese, Chinese or Korean, as the user wrote it (the
    sentences or clauses holding an order, without the complaint around them), ending on the
    language's full stop; ``None`` when ``text`` is in none of them or states no order."""
    lang = language(text)
    if lang is None:
        return None
    orders, complaints = (re.compile(m) for m in _MARKERS[lang])
    kept = []
    spans = _CODE.findall(text)
    hidden = _CODE.sub(lambda m: f"\x00{spans.index(m.group(0))}\x00", text.strip())
    for piece in _SENTENCE_END.split(hidden):
        sentence = _HIDDEN.sub(lambda m: spans[int(m.group(1))], piece)
        body = sentence.strip().rstrip("。！？!?. ")
        if not body:
            continue
        if _is_order(body, orders, complaints):
            kept.append(_YOU_FIRST.sub("", body) if lang == "zh" else body)
            continue
        clauses = [c.strip() for c in _CLAUSE_MARK.split(body) if c.strip()]
        ordered = [c for c in clauses if _is_order(c, orders, complaints)]
        if ordered:
            kept.append(_JOINER[lang].join(ordered))
    if not kept:
        return None
    return (" " if lang == "ko" else "").join(s + _END[lang] for s in kept)


def _is_order(part: str, orders: re.Pattern[str], complaints: re.Pattern[str]) -> bool:
    """Whether ``part`` states an order (a marker of one) and names no complaint."""
    prose = _CODE.sub("X", part)
    return bool(orders.search(prose)) and not complaints.search(prose)
