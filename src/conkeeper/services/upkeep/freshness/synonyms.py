"""Technical words that name one concept in other words, other forms or other languages: the
small table :mod:`.relations` reads each word of an entry through before it stems it.

Why it exists: most labelled duplicates ``consolidate`` misses say one rule in other words
("whoever holds the pager" and "the on-call engineer", "European customers" and "EU
customers", "the booking" and "the reservation"). Word overlap cannot see them; a table of
words that are one concept in an engineering note can. Round 26 sorted the missed duplicates
of twenty-nine authors by class and kept here only the groups that are one concept wherever an
engineering note uses them; a group that is one concept in some notes and two in others
("task"/"job", "release"/"ship", "page"/"alert": a web page is no alert) is left out, since a
merge deletes a rule. Each group is written once, its concept first; every word of it (and its
other-language forms) is read as that concept. Pure data, stdlib only.
"""

from __future__ import annotations

# concept: the words (and inflected or other-language forms) that name it. A concept already
# in :data:`.relations.SYNONYMS` or its lexicon keeps its spelling there.
GROUPS: dict[str, str] = {
    # a link to something is its URL
    "link": "link links linked url urls hyperlink hyperlinks odkaz odkazy bağlantı",
    # answering a ticket, a question or a request
    "reply": "reply replies replied replying answer answers answered answering odpovědět "
    "odpověď yanıt yanıtla",
    # a traveller's or customer's reservation
    "book": "book books booked booking bookings reservation reservations reserve reserved "
    "rezervace rezervaci reserva reservas rezervasyon",
    # a preference
    "prefer": "prefer prefers preferred favour favours favoured favor favors favored",
    # the person on call: "whoever holds the pager"
    "on-call": "on-call pager pagers oncall plantão pohotovost nöbet nöbetçi 온콜 당직",
    # a refund of a payment
    "refund": "refund refunds refunded refunding reembolso reembolsos estorno vrácení iade 환불",
}

TECH_SYNONYMS: dict[str, str] = {
    word: concept for concept, words in GROUPS.items() for word in words.split()
}
