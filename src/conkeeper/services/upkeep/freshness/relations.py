"""How two memory entries relate: the same rule twice, two rules that cannot both hold, or
neither.

Why it exists: consolidation merges duplicates by removing one copy, so calling two different
rules "duplicates" deletes a rule; and a contradiction left unseen ("Always use float for
prices" next to "Money is always `Decimal`") tells the agent two things at once. Word overlap
alone gets both wrong: two rules that say opposite things share most of their words, and two
phrasings of one rule may share few. This module reads an entry as a person would, cheaply:

* **wording** first (:mod:`.wording`): link targets, emphasis, ISO dates and signatures
  dropped, spelled-out terms written as their abbreviation ("minimum supported Rust version"
  is ``msrv``), so formatting and spelling never hide a duplicate;
* **alphabets**: a word of any alphabet is a word ("wdrażamy", "produção"); a Korean word is
  its first syllables (its particles off: "승인이" is "승인"), and its negations ("않는다",
  "말 것", "금지") and permissions ("허용된다", "해도 된다") count as English ones; Han
  characters are read two at a time, a Katakana run as one word, Japanese and Chinese
  negations ("しない", "禁止", "不要") and permissions ("してよい", "可以") count too, and
  "。" ends a clause; words of a script the other entry does not use are left out of the
  comparison;
* **negations abroad**: "nie", "nigdy", "zakaz", "não", "proibido", "verboten", "interdit"...
  negate, "sem", "sin", "bez", "ohne", "sans" are "without" ("nenhum apply sem plano" is "no
  apply without a plan": the plan first, no tool rejected); in a Portuguese entry "no" is
  "in the";
* **words** are lower-cased, stemmed lightly and mapped to one name per concept ("prices",
  "money", "amounts" → ``money``; a small lexicon of the software domain: "DB" → ``database``,
  k8s, PR, env var, TF, init/initialisation...); backticked spans and paths stay whole (a
  leading ``--`` or trailing ``()`` aside); filler and weak verbs weigh less;
* **clauses**: an entry is read clause by clause (``;``, ``.``, dashes, brackets), so a
  negation governs its own clause only;
* **polarity**: a negation ("never", "don't", "avoid", "no longer", "instead of", "prefer X
  over Y", "none of"...) or an antonym ("disable" against "enable", "read-only" against
  "write"), each governing what it negates (the rest of its clause; the whole clause after
  "is", "must" or "n't"; its own concept for an antonym, the whole clause for a switch said
  off of its subject: "auto-commit is off"): a negation counts against the other
  entry only where it governs a concept that entry names ("main (not master)" is no conflict
  with "the main branch is `main`"); "don't X without Y" negates nothing, nor does a negated
  failure ("don't merge with failing tests" is "tests must pass"); ", not X" rejects X alone
  ("TypeScript, not JS"); a restriction ("only", "just") answers a negation but opposes
  nothing ("enabled in release builds only"), "only after" states a requirement, and a
  restriction against a universal ("only the release branch" against "every branch") rules a
  merge out; a word inside backticks never flips polarity (`` `unsafe` ``);
* **superseding notes**: "replaced by", "switched from", "moved to", "as of", "we left",
  "anymore", "since X left"... (a change still to come, "until it is retired", is none)
  against a note on the same subject without them (two shared
  words, a value, or a name): the older rule no longer holds (a contradiction, never a merge),
  unless the other entry negates the same thing ("not H2" against "no H2 anymore");
* **things gone**: "ELK was shut down", "UA is dead", "Node 18 is EOL", "Xavier NX phased
  out", "the Envoyer subscription was cancelled", "mypy was removed": what stands before the
  words in their clause, a name among it, is gone, and an entry that names all of it (and its
  values) and negates, retires or changes nothing itself contradicts the note ("feature flags
  are removed after rollout" names nothing particular: it retires nothing);
* **choices**: members of small groups of mutually exclusive alternatives a team picks one of
  for one job (``CHOICE_JOBS``: number type, JS package manager, Python formatter, CI system,
  docs generator, state store...), each marked chosen, or rejected by a negation before it or
  a word after it ("`requests` is banned", "Jenkins is gone"); naming a member also names its
  job, a weak shared subject;
* **scope**: words that say which part a rule is about (a language or file format, an
  environment — sandbox, QA, UAT, preview and canary included —, a platform, a build, public
  or internal): two entries about different scopes do
  not conflict, the alternatives in conflict aside (YAML against TOML is a conflict);
* **values**: numbers with units read in one base ("15 min" is "900s", "2 hours" is "120
  minutes", "half a second" is "0.5s", "20 Hz" is "20 hertz"; times of day and daily cron
  schedules, "a single" is one; memory sizes in bytes on one binary scale: "512M",
  "512 MB", "2g", "2Gi", "2048Mi", "-Xmx2g"; a lower-case "m" stays minutes), bare numbers
  and versions (a version and the same version with more detail are one value: "8.0" and
  "8", "2.7" and "2.7.3"; a year after "in" or "since" is no value), each stated for the
  concepts next to it ("seed 42",
  "port: 8080"): two values of one unit for a shared concept conflict, so do a bare number and
  a value with a unit ("line length 88" against "up to 120 characters"), and one code
  identifier on each side that the other lacks (`created_at`, `updated_at`) rules a merge out;
  so does a value each entry states and the other does not ("between 3 and 12 pods" against
  "min 3, max 20"), or a value for one environment against the general rule ("Production API
  rate limit: 100 req/s per key" against "rate limiting is per API key");
* **durations abroad**: "10 segundos", "4 Wochen", "7 dni", "48시간", "3 時間", "35 дней",
  "30 dagar" are durations in the same base (a day of the month, "20일", and a year,
  "2024년", are dates);
* **bounds and rates**: a bound said in words is the bound ("at least 14" is "min 14", "at
  most", "up to 7" and "no more than 7" are "max 7"; "can work at most 7 shifts" states a
  limit, no permission), a range is its two bounds ("between 3 and 12", "from 2 to 20"), a
  rate of requests is one unit whatever its period ("1000 requests per minute", "600
  req/min", "20 req/s", "50 rps"), sizes may be spelled out ("4 gigabytes", "512 mebibytes");
* **names**: tools of the lexicon, code spans, identifiers and proper nouns an entry names:
  two entries naming exactly the same ones and the same values, with no antonyms, merge at a
  lower similarity (a paraphrase around one command is one rule twice) while the shorter adds
  few words of its own (three at most when the names are plain words: no identifier, no
  value); two entries each choosing for a job the other does not speak of ("tabs for
  indentation", "double quotes for strings") are never merged; two code spans given
  as the value of one setting contradict ("Redis maxmemory-policy must be `noeviction`"
  against "Redis `maxmemory-policy` is `allkeys-lru`": each ends a clause with a span the
  other does not name and otherwise names only what the other names, two subjects at least;
  ``Limits.named_values``);
* **order** ("A before B" against "B before A");
* **exceptions**: an entry that states an exception, a permission or a reason ("unless",
  "except", "because", "also", "on purpose", "deliberately", "is allowed to", "that's
  expected", "is the one with", "Ausnahme", "excepto", "sauf", "wyjątek", "예외") or opens
  with the part it is for ("For the ESP32 build, ...", unless the other entry names that part
  too) refines a rule: only a superseding note
  makes it a contradiction, and it is never merged with a plain rule at word similarity alone
  (``Limits.exception_merge``); a reason alone ("because the runner doesn't") explains the
  rule and makes no exception of it for a merge (``Limits.reason_merge``);
* **first clause**: an entry whose first clause says what a shorter entry says is that entry
  with more detail (a duplicate), unless it adds or excepts ("also") or the detail names other
  code;
* **contained detail**: a one-clause entry naming three subjects or more (two when it forbids
  them and the longer entry forbids the same: "Do not use `--no-verify`"), every one of them
  named in one clause of a longer entry, with the same sign, antonyms and values, is that
  entry with more detail, unless the longer one places the rule somewhere narrower ("in the
  `examples/` directory", an environment or platform the short one does not name), negates
  what the short one states or reverses an order;
* **permissions**: a permission that grants what the other entry forbids, naming most of
  what the prohibition governs and little else, is a contradiction ("the admin app is allowed
  to show full patient names" against "support staff must never see full patient names");
* **shared subject**: rival alternatives conflict only when the two entries share a subject
  besides them or say little else ("Use pnpm." against "We use yarn."), two values of one
  concept only when the entries share two other subjects or say little else, and a change
  note only meets an entry about what its marked clause says changed ("Entra ID (formerly
  Azure AD)" changes nothing about the admin app's build): notes that merely mention Postgres
  and DynamoDB, or the API's `/v1` and RFC 7807, are no contradiction;
* **short forms**: a word one entry writes short and the other in full ("feat", "desc") is
  one word on a merge; an initialism of three letters or more ("GKE", "IaC", "RSEs" in the
  plural) meets the words the other entry spells it with, whatever the term;
* **formatting and kinds**: a code span one entry writes in backticks and the other without
  them is one name on a merge, a database named by its kind on one side and by its engine on
  the other ("the prod database", "the production Postgres") one subject; the words of a
  backticked command (`` `make html` ``) are arguments, not scopes; "Java-style" names no Java;
* **double negation**: a negation and the rejection word it governs cancel out ("old logs are
  not deleted" is "kept", "quarantined, not deleted"), and a rejection word before when it
  happens ("deleted once calling is done") is a step of a process, not a thing rejected; a
  variant of an antonym flips as the antonym does ("synchronously");
* **years of events**: "the 2025 workshop" dates an event, "In 2024 ..." opening an entry
  the period it speaks of: no value, and two entries about different years are two rules.
* **cases of a rule**: an entry that opens with a particular thing the other does not name (a
  code identifier: "`orders.paid_at` is a UTC `timestamptz`"), against one that opens with a
  class of things (a plural or quantified noun: "Timestamps are `timestamptz` in UTC", "All
  services ..."), is a case of that rule or an exception to it: both hold, never merged; so
  are a rule quantifying a class in any language ("すべてのサービス", "모든 서비스", "todos los
  servicios", "alle Dienste") and an entry opening with one member it names by a word of its
  own ("推薦サービス", "the payments service": :func:`_quantified_case`).
* **types are values**: "整数", "文字列", "정수", "entero", "Ganzzahl" are integer and string;
  two entries each naming a type the other does not are never one rule (``VALUE_TYPES``).

:func:`relate` turns two entries into ``duplicate``, ``contradiction`` or ``None`` with a score
and a short reason. Duplicates are judged strictly (a wrong merge deletes a rule), and any sign
of conflict rules a duplicate out. The thresholds (:class:`Limits`) are chosen by
leave-one-author-out selection over the labelled pair sets of sixteen authors
(``tools/consolidate_cv.py``: each author held out in turn, the limits chosen on the others
with a margin on the thresholds that delete), which also runs every pair of each author's
bullets through the planner (the all-pairs check); ``bench/consolidate_quality.py`` reports
every set, and a new blind set apart. Tuning figures of round 9 (ck/kdet8), each author held out
(thresholds held out, not words; rules written while reading all twelve, so these are tuning
figures): duplicate precision 1.000, recall mean 0.570 (worst 0.350); contradiction precision
mean 0.830 (worst 0.771), recall mean 0.688 (worst 0.583); no wrong merge on any author, and
none labelled or implied in the all-pairs check (the detector before it, main 90c733d, held
out the same way: 0.565 (0.338), 0.826 (0.755), 0.677 (0.567), none). Tuning figures of round
10 (ck/kdet9, thirteen authors, blind pairs 8 the thirteenth; rules written reading all
thirteen): duplicate precision 1.000, recall mean 0.572 (worst 0.350); contradiction precision
mean 0.831 (worst 0.787), recall mean 0.691 (worst 0.600); no wrong merge on any author, none
labelled or implied in the all-pairs check (main a9fbcff held out the same way over the same
thirteen: 0.569 (0.350), 0.827 (0.771), 0.678 (0.567), none). Tuning figures of round 11
(ck/kdet10, fourteen authors, blind pairs 9 the fourteenth; rules written reading all
fourteen): duplicate precision 1.000, recall mean 0.578 (worst 0.362); contradiction
precision mean 0.834 (worst 0.745), recall mean 0.704 (worst 0.583); no wrong merge on any
author, none labelled or implied in the all-pairs check (main 20fd338 held out the same way
over the same fourteen: 0.559 (0.350), 0.822 (0.702), 0.681 (0.550), none). Tuning figures of
round 12 (ck/kdet11, fifteen authors, blind pairs 10 the fifteenth; rules written reading all
fifteen): duplicate precision 1.000, recall mean 0.577 (worst 0.362); contradiction precision
mean 0.843 (worst 0.766), recall mean 0.710 (worst 0.600); no wrong merge on any author, none
labelled or implied in the all-pairs check (main 16c8018 held out the same way over the same
fifteen: 0.555 (0.300), 0.829 (0.745), 0.704 (0.583), one wrong merge). Tuning figures of
round 13 (ck/kdet12, sixteen authors, blind pairs 11 the sixteenth; rules written reading its
misses): duplicate precision 1.000, recall mean 0.581 (worst 0.350); contradiction precision
mean 0.848 (worst 0.783), recall mean 0.715 (worst 0.600); no wrong merge on any author, none
labelled or implied in the all-pairs check (main 69ac7f1 held out the same way over the same
sixteen: 0.582 (0.350), 0.837 (0.723), 0.701 (0.567), two wrong merges). Standard library
only.
"""

from __future__ import annotations

import copy
import re

from conkeeper.domain.records import Record
from conkeeper.services.upkeep.freshness import markers, opposites, synonyms, wording

DUPLICATE = "duplicate"
CONTRADICTION = "contradiction"
# The reason of a duplicate one of whose entries is the other with more detail: a merge keeps
# the one with more detail (:mod:`.consolidate`).
MORE_DETAIL = "says the same thing (with more detail)"
# The reason of a duplicate whose entries name the same concepts and values, neither more:
# a merge chooses between them as between one with more detail and the other.
IN_OTHER_WORDS = "says the same thing (in other words)"


class Limits(Record):
    """The thresholds of :func:`relate`, chosen by leave-one-author-out selection
    (``tools/consolidate_cv.py``): each author's pairs held out in turn, the limits chosen on
    the others; :data:`LIMITS` is the choice on every author's pairs."""

    __slots__ = (
        "abbreviations",
        "anchor_complement",
        "anchor_similarity",
        "bare_values",
        "choice_alone",
        "choice_shared_weight",
        "choice_subject",
        "contained_detail",
        "duplicate_containment",
        "duplicate_similarity",
        "duplicate_unshared",
        "exception_guard",
        "exception_merge",
        "firm_polarity",
        "head_match",
        "kept_facts",
        "lost_words",
        "named_subjects",
        "named_values",
        "number_containment",
        "number_similarity",
        "opposite_ways",
        "order_containment",
        "permission_conflict",
        "polarity_containment",
        "qualifier_scope",
        "reason_merge",
        "reject_shared_weight",
        "retired_conflict",
        "scoped_merge",
        "scoped_polarity",
        "supersede_clause",
        "supersede_containment",
        "supersede_shared_weight",
        "value_containment",
        "value_shared",
        "value_similarity",
        "value_subject",
    )

    def __init__(
        self,
        *,
        duplicate_similarity: float = 0.7,
        duplicate_containment: float = 1.01,
        duplicate_unshared: float = 3.0,
        polarity_containment: float = 0.6,
        choice_shared_weight: float = 0.9,
        reject_shared_weight: float = 0.9,
        number_containment: float = 0.6,
        order_containment: float = 0.6,
        value_containment: float = 1.01,
        qualifier_scope: bool = False,
        value_similarity: float = 1.01,
        scoped_polarity: bool = False,
        supersede_containment: float = 1.01,
        supersede_shared_weight: float = 1.0,
        bare_values: bool = False,
        anchor_similarity: float = 1.01,
        exception_guard: bool = False,
        head_match: bool = False,
        named_subjects: bool = False,
        scoped_merge: bool = False,
        abbreviations: bool = False,
        exception_merge: bool = False,
        firm_polarity: bool = False,
        contained_detail: bool = False,
        permission_conflict: bool = False,
        supersede_clause: bool = False,
        choice_subject: bool = False,
        choice_alone: int = 4,
        value_subject: bool = False,
        value_shared: int = 1,
        retired_conflict: bool = False,
        reason_merge: bool = False,
        named_values: bool = False,
        number_similarity: float = 1.01,
        lost_words: int = 99,
        anchor_complement: bool = False,
        kept_facts: str = "",
        opposite_ways: bool = False,
    ) -> None:
        self.duplicate_similarity = duplicate_similarity
        self.duplicate_containment = duplicate_containment
        self.duplicate_unshared = duplicate_unshared
        self.polarity_containment = polarity_containment
        self.choice_shared_weight = choice_shared_weight
        self.reject_shared_weight = reject_shared_weight
        self.number_containment = number_containment
        self.order_containment = order_containment
        self.value_containment = value_containment
        self.qualifier_scope = qualifier_scope
        self.value_similarity = value_similarity
        self.scoped_polarity = scoped_polarity
        self.supersede_containment = supersede_containment
        self.supersede_shared_weight = supersede_shared_weight
        self.bare_values = bare_values
        self.anchor_similarity = anchor_similarity
        self.exception_guard = exception_guard
        self.head_match = head_match
        self.named_subjects = named_subjects
        self.scoped_merge = scoped_merge
        self.abbreviations = abbreviations
        self.exception_merge = exception_merge
        self.firm_polarity = firm_polarity
        self.contained_detail = contained_detail
        self.permission_conflict = permission_conflict
        self.supersede_clause = supersede_clause
        self.choice_subject = choice_subject
        self.choice_alone = choice_alone
        self.value_subject = value_subject
        self.value_shared = value_shared
        self.retired_conflict = retired_conflict
        self.reason_merge = reason_merge
        self.named_values = named_values
        self.number_similarity = number_similarity
        self.lost_words = lost_words  # content words a merge may drop (see _nothing_lost)
        self.anchor_complement = anchor_complement  # see _complementary
        self.kept_facts = (
            kept_facts  # what a merge may never drop: n(umbers) a(nchors) s(pans) g(negation)
        )
        self.opposite_ways = opposite_ways  # see _opposite_ways


# Chosen by ``tools/consolidate_cv.py --choose`` on every author's pairs.
LIMITS = Limits(
    duplicate_similarity=0.72,
    duplicate_unshared=5.0,
    duplicate_containment=1.01,
    anchor_similarity=0.3,
    polarity_containment=0.5,
    choice_shared_weight=0.4,
    reject_shared_weight=0.0,
    number_containment=0.4,
    value_containment=0.3,
    value_similarity=0.6,
    number_similarity=0.6,
    bare_values=True,
    qualifier_scope=False,
    scoped_polarity=True,
    supersede_containment=0.0,
    exception_guard=True,
    head_match=True,
    named_subjects=True,
    scoped_merge=True,
    abbreviations=True,
    firm_polarity=True,
    exception_merge=True,
    contained_detail=True,
    permission_conflict=True,
    supersede_clause=True,
    choice_subject=True,
    choice_alone=4,
    value_subject=True,
    value_shared=2,
    retired_conflict=True,
    reason_merge=True,
    named_values=True,
    anchor_complement=True,
    kept_facts="g",
    opposite_ways=True,
)

# A word of any alphabet ("wdrażamy", "produção"): a letter or digit, then letters, digits and
# the marks inside identifiers.
_TOKEN = re.compile(r"`[^`\n]{1,80}`|[^\W_][\w'./+#-]*(?:[^\W_]|[+#])|[^\W_]")


def _words(text: str) -> frozenset[str]:
    """A word set written as one string (long lists stay readable)."""
    return frozenset(text.split())


NEGATIONS = _words(
    """never not no don't dont do-not doesn't isn't aren't mustn't shouldn't cannot can't won't
    avoid avoided without stop stopped skip skipped nor forbid forbidden prohibited disallow
    disallowed ban banned neither none nothing nobody no-go off-limits lacking lacks
    nunca jamais jamás nie niemals nicht kein keine não nao nigdy zakaz zakazane zabronione
    zabroniony żaden żadnych proibido proibida nenhum nenhuma prohibido prohibida ningún
    ninguna verboten interdit interdite aucun aucune pas
    non mai nemmeno neanche neppure nessun nessuno nessuna vietato vietata vietati
    niet nooit geen verboden inte aldrig ingen förbjudet tidak jangan bukan dilarang
    không chưa đừng cấm не нет никогда нельзя запрещено"""
)
# Antonyms that name a state, not an action: a negation of one is the state's opposite said
# twice ("don't merge with failing tests" is "merge with passing tests", "never leave TLS
# disabled" is "TLS enabled"); "never edit by hand" or "never delete" keep their negation.
NEGATED_STATES = _words(
    """fail disabled off insecure unsafe unencrypted plaintext unsigned untyped
    unauthenticated unpinned"""
)
# A switch's state said of a subject ("auto-commit is off", "HTTP/2 is disabled") negates the
# subject, as "auto-commit is not on" would.
SWITCHED_OFF = _words("off disabled")
# ... and abroad, where the participle closes the clause ("Automatisches Speichern ist im Editor
# abgeschaltet"): said of the clause's subject wherever it stands.
SWITCHED_OFF_ABROAD = _words(
    """abgeschaltet ausgeschaltet deaktiviert desactivado desactivada deshabilitado
    deshabilitada désactivé désactivée disattivato disattivata desativado desativada
    desabilitado desabilitada wyłączony wyłączona wyłączone"""
)
# Two-word markers: the second word is consumed with the first.
NEGATION_PAIRS = frozenset({("no", "longer"), ("instead", "of"), ("rather", "than")})
# Words that flip the polarity of the concept they name ("disable" is "not enable").
ANTONYMS = {
    "disable": "enable",
    "disabled": "enable",
    # switched off, in the other languages teams write in (SWITCHED_OFF_ABROAD)
    **dict.fromkeys(SWITCHED_OFF_ABROAD, "enable"),
    "off": "enable",  # "autoscaling is off" is "autoscaling is not enabled"
    "exclude": "include",
    "excluded": "include",
    "forbid": "allow",
    "deny": "allow",
    "denied": "allow",
    "reject": "accept",
    "delete": "keep",
    "deleted": "keep",
    "remove": "keep",
    "removed": "keep",
    "drop": "keep",
    "discard": "keep",
    "optional": "require",
    "unnecessary": "require",
    "manual": "automatic",
    "manually": "automatic",
    "synchronous": "asynchronous",
    "read-only": "write",
    "immutable": "write",
    "insecure": "secure",
    "unsafe": "safe",
    "fail": "pass",
    "late": "early",
    "later": "early",
    "loose": "exact",
    "loosely": "exact",
    "lenient": "strict",
    "implicit": "explicit",
    "implicitly": "explicit",
    "unpinned": "pin",
    "lazy": "eager",
    "lazily": "eager",
    "unencrypted": "encrypted",
    "plaintext": "encrypted",
    "unsigned": "signed",
    "untyped": "typed",
    "unauthenticated": "authentication",
    "serial": "parallel",
    "serially": "parallel",
    "sequential": "parallel",
    "sequentially": "parallel",
    "insensitive": "sensitive",
    "excludes": "include",
    "untracked": "track",
    "wipe": "keep",
    "wipes": "keep",
    "wiped": "keep",
    "purge": "keep",
    "purges": "keep",
    "purged": "keep",
}
SYNONYMS = {
    # money
    "price": "money",
    "prices": "money",
    "pricing": "money",
    "monetary": "money",
    "amount": "money",
    "amounts": "money",
    "currency": "money",
    "currencies": "money",
    "cost": "money",
    "costs": "money",
    "total": "money",
    "totals": "money",
    "balance": "money",
    "balances": "money",
    # numeric representations
    "floats": "float",
    "floating": "float",
    "floating-point": "float",
    "decimals": "decimal",
    "decimal.decimal": "decimal",
    "integers": "integer",
    "mockgen": "gomock",
    # to merge, in the other languages ("fusionar en `main`", "fusionner", "mergen")
    "fusionar": "merge",
    "fusionas": "merge",
    "fusiona": "merge",
    "fusionan": "merge",
    "fusionamos": "merge",
    "fusionner": "merge",
    "mergen": "merge",
    "gemergt": "merge",
    "log/slog": "slog",
    "jpg": "jpeg",
    "vtt": "webvtt",
    "bento4": "bento4",
    "mp4dash": "bento4",
    # the type of a value in the other languages ("entero", "Ganzzahl", "entier", "intero",
    # "inteiro"; "cadena", "Zeichenkette", "stringa"); Korean, Japanese and Chinese type names
    # are read by _script_words (CJK_TERMS)
    "entero": "integer",
    "enteros": "integer",
    "ganzzahl": "integer",
    "ganzzahlen": "integer",
    "ganzzahlig": "integer",
    "entier": "integer",
    "entiers": "integer",
    "intero": "integer",
    "interi": "integer",
    "inteiro": "integer",
    "inteiros": "integer",
    "strings": "string",
    "varchar": "string",
    "cadena": "string",
    "cadenas": "string",
    "zeichenkette": "string",
    "zeichenketten": "string",
    "stringa": "string",
    "stringhe": "string",
    "bool": "boolean",
    "booleans": "boolean",
    "booleano": "boolean",
    "booleen": "boolean",
    "booléen": "boolean",
    "ulids": "ulid",
    "int": "integer",
    "ints": "integer",
    "bigint": "integer",
    # common abbreviations
    "db": "database",
    "databases": "database",
    "js": "javascript",
    "ts": "typescript",
    "pr": "pull-request",
    "prs": "pull-request",
    "mr": "pull-request",
    "repo": "repository",
    "repos": "repository",
    "config": "configuration",
    "configs": "configuration",
    "cfg": "configuration",
    "settings": "configuration",
    "env": "environment",
    "id": "identifier",
    "ids": "identifier",
    "func": "function",
    "fn": "function",
    "functions": "function",
    "method": "function",
    "methods": "function",
    "deps": "dependency",
    "dependencies": "dependency",
    "packages": "dependency",
    "package": "dependency",
    "libs": "library",
    "lib": "library",
    "docs": "documentation",
    "doc": "documentation",
    "documentation": "documentation",
    "auth": "authentication",
    "authn": "authentication",
    "k8s": "kubernetes",
    "postgres": "postgresql",
    "pg": "postgresql",
    "golang": "go",
    "py": "python",
    "prod": "production",
    "dev": "development",
    # environments named in the other languages a team writes in ("Na produkcji", "Em
    # homologação": the Brazilian pre-production environment)
    **dict.fromkeys(
        ("produção", "producao", "produkcja", "produkcji", "produkcyjnym", "produktion"),
        "production",
    ),
    **dict.fromkeys(("producción", "produccion", "produktionsumgebung"), "production"),
    **dict.fromkeys(
        ("homologação", "homologacao", "stagingu", "stagingowym", "staginga"), "staging"
    ),
    "tz": "timezone",
    "utc": "utc",
    "gmt": "utc",
    "locally": "local",
    "approve": "approval",
    "approvals": "approval",
    "approved": "approval",
    "approving": "approval",
    "save": "store",
    "saved": "store",
    "stored": "store",
    "persist": "store",
    "persisted": "store",
    "kept": "keep",
    "directly": "direct",
    "straight": "direct",
    "tabs": "tab",
    "spaces": "space",
    "camelcase": "camel-case",
    "camel": "camel-case",
    "snake_case": "snake-case",
    "snake": "snake-case",
    "kebab-case": "kebab-case",
    "pascalcase": "pascal-case",
    "yml": "yaml",
    "rebased": "rebase",
    "rebasing": "rebase",
    "squashed": "squash",
    "squashing": "squash",
    "must": "must",
    "mandatory": "require",
    "required": "require",
    "requires": "require",
    "need": "require",
    "needs": "require",
    "needed": "require",
    "timestamps": "timestamp",
    "datetime": "timestamp",
    "datetimes": "timestamp",
    "dates": "timestamp",
    "date": "timestamp",
    "mock": "mock",
    "mocks": "mock",
    "mocked": "mock",
    "mocking": "mock",
    "stub": "mock",
    "fake": "mock",
    "tests": "test",
    "testing": "test",
    "tested": "test",
    "spec": "test",
    "specs": "test",
    # software-domain abbreviations
    "tf": "terraform",
    "gh": "github",
    "stg": "staging",
    "envs": "environment",
    "environments": "environment",
    "fk": "foreign-key",
    "fks": "foreign-key",
    "pk": "primary-key",
    "req": "request",
    "reqs": "request",
    "resp": "response",
    "msg": "message",
    "msgs": "message",
    "err": "error",
    "errs": "error",
    "errors": "error",
    "requests": "request",  # the library is `requests`, in backticks
    "perm": "permission",
    "perms": "permission",
    "permissions": "permission",
    "var": "variable",
    "vars": "variable",
    "variables": "variable",
    "arg": "argument",
    "args": "argument",
    "param": "parameter",
    "params": "parameter",
    "dir": "directory",
    "dirs": "directory",
    "folder": "directory",
    "folders": "directory",
    "max": "maximum",
    "min": "minimum",
    "auto": "automatic",  # "auto-merge", "auto-commit" are done automatically
    "char": "character",  # "12 chars" and "12 characters" are one unit, one word
    "chars": "character",
    "character": "character",
    "md": "markdown",
    "gql": "graphql",
    "impl": "implementation",
    "async": "asynchronous",
    "pkg": "dependency",
    "pkgs": "dependency",
    "img": "image",
    "imgs": "image",
    "images": "image",
    "svc": "service",
    "svcs": "service",
    "services": "service",
    "init": "initialize",
    "initialization": "initialize",
    "initialisation": "initialize",
    "initialise": "initialize",
    "initialized": "initialize",
    "initialised": "initialize",
    "modify": "edit",
    "modified": "edit",
    "modifying": "edit",
    "edits": "edit",
    "edited": "edit",
    "editing": "edit",
    "change": "edit",
    "changes": "edit",
    "alter": "edit",
    "hand-edit": "edit",
    "confirm": "approval",
    "confirmation": "approval",
    "ask": "approval",
    "permission": "approval",
    "sign-off": "approval",
    "generated": "generate",
    "generates": "generate",
    "regenerated": "generate",
    "regenerate": "generate",
    "autogenerated": "generate",
    "codegen": "generate",
    "loggers": "logger",
    "exceptions": "exception",
    "throw": "raise",
    "throws": "raise",
    "thrown": "raise",
    "raised": "raise",
    "raises": "raise",
    "expire": "ttl",
    "expires": "ttl",
    "expiry": "ttl",
    "expiration": "ttl",
    "lifetime": "ttl",
    "valid": "ttl",
    "readonly": "read-only",
    "hardcode": "hardcode",
    "hardcoded": "hardcode",
    "inline": "hardcode",
    "hosts": "host",
    "users": "user",
    "shown": "show",
    "shows": "show",
    "prior": "before",
    # tool and term aliases
    "argon2id": "argon2",
    "argon2i": "argon2",
    "rg": "ripgrep",
    "rtk": "redux",
    "redux-toolkit": "redux",
    "bff": "backend-for-frontend",
    "argo": "argocd",
    "unleash": "unleash",
    "wandb": "wandb",
    "w&b": "wandb",
    "mcu": "firmware",
    "microcontroller": "firmware",
    "gitignored": "gitignore",
    "ignored": "gitignore",
    "checked-in": "commit",
    "pods": "pod",
    "containers": "container",
    "reviewer": "review",
    "reviewers": "review",
    "reviewed": "review",
    "reviews": "review",
    # paraphrase groups met in labelled pairs of four authors (software vocabulary)
    "gw": "gateway",
    "gateways": "gateway",
    "outbound": "external",
    "third-party": "external",
    "big": "large",
    "huge": "large",
    "compact": "small",
    "tiny": "small",
    "phone": "mobile",
    "phones": "mobile",
    "billing": "payment",
    "payments": "payment",
    "routine": "function",
    "routines": "function",
    "exported": "public",
    "docstrings": "docstring",
    "toggle": "feature-flag",
    "toggles": "feature-flag",
    "flags": "flag",
    "isr": "interrupt",
    "interrupts": "interrupt",
    "jvm": "java",
    "documented": "documentation",
    "document": "documentation",
    "startup": "start",
    "boot": "start",
    "filenames": "filename",
    "workflows": "workflow",
    "ue": "unreal",
    "ue4": "unreal",
    "ue5": "unreal",
    "p4": "perforce",
    # general software verbs and nouns said in several ways
    "launch": "start",
    "launched": "start",
    "launches": "start",
    "permitted": "allow",
    "allowed": "allow",
    "customer": "user",
    "customers": "user",
    "shopper": "user",
    "shoppers": "user",
    "visitor": "user",
    "visitors": "user",
    "application": "app",
    "applications": "app",
    "apps": "app",
    "ram": "memory",
    "mem": "memory",
    "vcpu": "cpu",
    "vcpus": "cpu",
    "ns": "namespace",
    "gha": "github-actions",
    "asynchronously": "asynchronous",
    "synchronously": "synchronous",
    "mask": "redact",
    "masked": "redact",
    "scrub": "redact",
    "scrubbed": "redact",
    "redacted": "redact",
    "validate": "verify",
    "validated": "verify",
    "validates": "verify",
    "validation": "verify",
    "check": "verify",
    "checked": "verify",
    "checks": "verify",
    "quick": "fast",
    "upload": "send",
    "uploaded": "send",
    "uploads": "send",
    "sent": "send",
    "sha-256": "sha256",
    "uuidv7": "uuid",
    "uuidv4": "uuid",
    "uuid7": "uuid",
    "justfile": "just",
    "cargo-zigbuild": "zigbuild",
    "renovatebot": "renovate",
    "docsearch": "algolia",
    "cjs": "commonjs",
    "newtonsoft.json": "newtonsoft",
    "singularity": "apptainer",  # Singularity was renamed Apptainer: one tool
    "apache2": "apache-2.0",
    "mondays": "monday",
    "tuesdays": "tuesday",
    "wednesdays": "wednesday",
    "thursdays": "thursday",
    "fridays": "friday",
    "saturdays": "saturday",
    "sundays": "sunday",
    # people and roles said several ways (an "engineer" is no "engine")
    "developer": "developer",
    "developers": "developer",
    "common": "shared",
    "shared": "shared",
    "share": "shared",
    "requirement": "require",
    "requirements": "require",
    "restart": "restart",
    "restarts": "restart",
    "restarted": "restart",
    "restarting": "restart",
    "quickly": "fast",
    "swiftly": "fast",
    "slowly": "slow",
    "identifiers": "identifier",
    "description": "description",
    "descriptions": "description",
}
SYNONYMS.update({word: alias for word, alias in wording.ALIASES.items() if word not in SYNONYMS})
# technical words one concept in other words or languages (round 26, :mod:`.synonyms`)
SYNONYMS.update({w: c for w, c in synonyms.TECH_SYNONYMS.items() if w not in SYNONYMS})
# Mutually exclusive alternatives: a team picks one member of a group for a given job. Each
# line is "job: members"; naming a member also names its job (a weak shared subject: "pnpm"
# and "npm" are both about the package manager).
CHOICE_JOBS: dict[str, frozenset[str]] = {
    job.strip(): _words(members)
    for job, _, members in (
        line.partition(":")
        for line in """
        number-type: float decimal integer
        indentation: tab space
        js-package-manager: npm yarn pnpm bun
        py-package-manager: pip poetry uv pipenv conda pdm
        py-test-runner: pytest unittest nose
        js-test-runner: jest vitest mocha jasmine
        naming-case: camel-case snake-case kebab-case pascal-case
        database-engine: mysql postgresql sqlite mongodb mariadb oracle dynamodb
        py-formatter: black ruff yapf autopep8
        py-linter: flake8 pylint ruff
        py-type-checker: mypy pyright pyre
        py-http-client: requests httpx aiohttp urllib3
        js-http-client: axios fetch
        js-bundler: webpack vite rollup parcel esbuild
        hosting: lambda kubernetes ecs heroku vercel nomad
        quote-style: single-quote double-quote
        merge-strategy: squash rebase merge-commit
        task-queue: celery rq dramatiq huey sidekiq
        time-zone: utc localtime
        config-format: yaml toml json ini xml
        ui-framework: react vue angular svelte
        cache-store: redis memcached
        message-broker: rabbitmq kafka sqs nats
        ci-system: github-actions jenkins circleci gitlab-ci travis buildkite azure-pipelines
        mobile-ci: bitrise codemagic github-actions
        id-type: uuid uuid4 ulid integer
        time-format: epoch iso iso8601
        container-runtime: docker podman
        password-hash: argon2 bcrypt scrypt md5 sha1 sha256 pbkdf2
        session-token: jwt session-cookie
        py-orm: sqlalchemy peewee tortoise
        py-logging: structlog loguru
        call-style: asynchronous synchronous
        api-style: grpc rest graphql
        repo-layout: monorepo polyrepo multirepo
        default-branch: main master develop trunk
        docs-generator: sphinx mkdocs docusaurus gitbook jekyll hugo
        state-store: redux zustand mobx recoil jotai
        infra-as-code: terraform pulumi cloudformation cdk ansible
        py-web-framework: flask fastapi django starlette
        js-web-framework: express fastify koa nestjs hapi
        migration-tool: alembic flyway liquibase
        browser-test: cypress playwright selenium puppeteer
        js-formatter: prettier biome dprint
        js-linter: eslint biome tslint
        metrics: prometheus datadog newrelic
        error-tracker: sentry bugsnag rollbar
        precision: fp32 fp16 bf16 fp8 int8
        log-output: print logger
        import-style: relative absolute
        sort-order: ascending descending
        error-style: exception result
        delete-style: soft-delete hard-delete
        component-style: class-component function-component
        db-access: orm raw-sql
        jvm-build: gradle maven
        native-build: cmake bazel meson
        ruby-test: rspec minitest
        jvm-test: junit testng
        go-db: gorm sqlx
        k8s-deploy: kubectl helm kustomize argocd flux
        feature-flags: launchdarkly unleash flagsmith growthbook configcat flipper pennant
        mobile-feature-flags: launchdarkly firebase-remote-config configcat
        model-serving: torchserve triton bentoml seldon kserve
        secret-store: vault secrets-manager doppler sops
        java-logging: log4j log4j2 logback slf4j
        dotnet-json: newtonsoft system.text.json
        orchestrator: airflow dagster prefect luigi
        py-cli: click typer argparse
        go-cli: cobra urfave
        jvm-build-dsl: groovy-dsl kotlin-dsl
        experiment-tracking: mlflow wandb neptune comet
        js-runtime: node deno bun
        mobile-ui: swiftui uikit
        android-ui: compose xml-layouts
        rust-async: tokio async-std smol
        go-web: gin echo chi fiber
        ruby-jobs: sidekiq resque delayed_job good_job
        php-framework: laravel symfony
        game-engine: unity unreal godot
        search-engine: elasticsearch opensearch solr meilisearch typesense
        object-store: s3 gcs azure-blob minio local-disk
        pagination: cursor offset
        branching: trunk-based gitflow
        api-errors: status-code error-body
        code-search: ripgrep grep ag
        go-logging: zap logrus zerolog slog
        rust-errors: anyhow thiserror eyre snafu
        mock-library: moq nsubstitute fakeiteasy mockito mockk sinon
        php-static-analysis: phpstan psalm
        js-monorepo: nx lerna turborepo rush
        js-orm: prisma typeorm sequelize drizzle knex
        jvm-orm: hibernate jooq mybatis
        js-queue: bullmq bull agenda
        crash-reporting: sentry bugsnag rollbar backtrace crashlytics
        distributed-build: incredibuild fastbuild distcc
        bio-workflow: snakemake nextflow cromwell
        hpc-scheduler: slurm pbs sge lsf
        ruby-server: puma unicorn passenger
        rtos: zephyr freertos threadx
        flash-tool: nrfjprog probe-rs openocd espflash idf.py
        other-vcs: perforce plastic svn mercurial
        review-tool: crucible gerrit phabricator
        de-analysis: deseq2 edger limma
        mobile-framework: react-native flutter xamarin ionic swiftui
        aws-region: us-east-1 us-east-2 us-west-2 eu-west-1 eu-west-2 eu-central-1 ap-southeast-1
        task-runner: just makefile rake invoke taskfile
        rust-cross-build: cross zigbuild
        release-notes: release-please git-cliff semantic-release changesets
        dependency-bot: dependabot renovate
        git-hook-manager: lefthook husky overcommit
        docs-search: algolia lunr
        license: mit apache-2.0 gpl gpl-3.0 agpl lgpl bsd mpl-2.0 unlicense
        versioning: semver calver
        py-build-backend: setuptools setuptools-rust maturin hatchling flit
        reverse-proxy: nginx caddy traefik haproxy envoy
        node-version-manager: nvm fnm volta
        css-framework: tailwind bootstrap bulma
        dataframe: pandas polars
        py-async: asyncio trio
        js-validation: zod yup joi
        identity-provider: auth0 keycloak okta cognito
        cloud-provider: aws gcp azure
        email-provider: sendgrid mailgun ses postmark
        payment-provider: stripe braintree adyen paypal
        team-chat: slack discord mattermost
        rust-cli-parser: clap structopt argh
        rust-http-client: reqwest ureq
        rust-web: axum actix rocket warp
        rust-tls: rustls openssl native-tls
        container-registry: dockerhub ghcr ecr gcr quay
        js-date: moment dayjs date-fns luxon
        py-app-server: gunicorn uvicorn hypercorn
        android-di: dagger hilt koin
        ios-dependency: cocoapods carthage
        cpp-package-manager: conan vcpkg
        product-analytics: segment amplitude mixpanel posthog
        cdn-provider: cloudflare fastly cloudfront akamai
        load-test: k6 locust jmeter gatling
        fuzzer: cargo-fuzz afl honggfuzz
        coverage-service: codecov coveralls
        diagram-tool: mermaid plantuml
        js-module-system: esm commonjs
        base-image: alpine debian ubuntu distroless
        uptime-monitor: uptimerobot better-stack pingdom statuscake
        time-tracking: harvest toggl clockify
        design-tool: figma sketch
        weekday: monday tuesday wednesday thursday friday saturday sunday
        issue-tracker: jira youtrack redmine clickup asana trello
        jvm-json: jackson gson moshi kotlinx.serialization
        jvm-http-client: okhttp retrofit restclient resttemplate webclient feign
        log-shipper: fluentd fluent-bit logstash filebeat promtail
        php-formatter: php-cs-fixer pint phpcbf
        schema-format: protobuf avro thrift
        mpi-library: openmpi intel-mpi mpich mvapich
        docs-hosting: readthedocs github-pages netlify
        data-quality: great-expectations soda deequ
        java-formatter: google-java-format palantir-java-format
        go-mock: gomock mockery
        proto-codegen: protoc buf
        dashboards: grafana cloud-monitoring kibana
        subtitle-format: webvtt srt ttml
        image-format: jpeg png webp avif
        jwt-algorithm: rs256 es256 hs256 eddsa
        ad-insertion: csai ssai
        media-packager: shaka-packager bento4
        """.strip().splitlines()
    )
}
CHOICE_JOBS["ci-system"] |= {"cloud-build"}  # Google Cloud Build (the line is full)
CHOICE_GROUPS: tuple[frozenset[str], ...] = tuple(CHOICE_JOBS.values())
_JOB_OF: dict[str, list[str]] = {}
for _job, _members in CHOICE_JOBS.items():
    for _member in _members:
        _JOB_OF.setdefault(_member, []).append(_job)
JOB_WEIGHT = 0.5
# Jobs whose members are each a kind of one thing: "Postgres" names a database.
KIND_OF = {"database-engine": "database"}
_JOBS = frozenset(CHOICE_JOBS)
# Scope words: two entries naming different members speak about different things.
SCOPE_GROUPS: tuple[frozenset[str], ...] = tuple(
    _words(group)
    for group in (
        "python go javascript typescript rust java kotlin ruby php swift scala c++ csharp "
        "elixir bash shell sql css html markdown terraform yaml toml json ini xml database",
        "development staging production local ci sandbox qa uat preview canary",
        "public internal private",
        "frontend backend",
        "unit integration e2e end-to-end",
        "client server",
        "ios android web mobile desktop pc console",
        "linux macos windows freebsd",
        "debug release",
        "access refresh",
    )
)
ENVIRONMENTS = SCOPE_GROUPS[1]  # production, staging, sandbox...: where a rule holds
NUMBER_WORDS = {
    "zero": "0",
    "one": "1",
    "single": "1",  # "a single worker" against "4 workers"
    "once": "1",
    "two": "2",
    "twice": "2",
    "three": "3",
    "thrice": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
    "twelve": "12",
    "fifteen": "15",
    "twenty": "20",
    "thirty": "30",
    "forty": "40",
    "fifty": "50",
    "sixty": "60",
    "seventy": "70",
    "eighty": "80",
    "ninety": "90",
    "hundred": "100",
}
NUMBER_WORDS_RE = tuple(w for w in NUMBER_WORDS if w not in ("one", "once", "single"))
# The last four lines: function words of the other languages writers use, filler as the English
# ones are (not "es", "est", "dos", "com", "jest": Elasticsearch, a time zone, DoS, a COM port,
# the test runner).
STOPWORDS = _words(
    """a an the and or of to in on for with is are be been being it its this that these those
    as by at from we our us you your they their them there here he she his her i me my
    should shall must may might can could would will do does did done have has had
    always every each all any some only just also so too very more most much many
    when while where which who whom what why how if then than else but because since
    into onto over under up down out about via per e.g i.e etc one's it's
    is was were am get gets got make makes made go goes going
    note gotcha important importantly please plz tip fyi nb heads-up reminder
    like usually generally general simply basically actually really purely roughly
    approximately around ever whatsoever
    de del el la las los le les des du un une una uno und der das dem den mit von zu im wir
    il lo di da em um uma os ao
    y en con para por se que al et sont dans pour par au aux ce cette ces qui
    ist sind wird werden ein eine einen einer eines auf bei zum zur für
    o na nas numa ser é são pelo pela gli è nel nella della dei
    się są że oraz dla przez"""
)
WEAK = _words(
    """use uses used using run runs ran running set sets setting need needs keep keeps
    write writes written writing call calls called put puts add adds added take takes
    work works go let lets file files code thing things way ways new old first same other
    sure ok okay fine good better best live lives belong belongs place placed follow follows
    include includes via through after before come comes came happen happens talk talks
    against anything everything otherwise least"""
)
PHRASES = (
    (re.compile(r"\b(?:pull|merge)[ -]requests?\b", re.IGNORECASE), "pull-request"),
    (re.compile(r"\bmerge[ -]commits?\b", re.IGNORECASE), "merge-commit"),
    (
        re.compile(r"\bsingle[ -]quot(?:es?|ed)\b|\bquotes?: single\b", re.IGNORECASE),
        "single-quote",
    ),
    (
        re.compile(r"\bdouble[ -]quot(?:es?|ed)\b|\bquotes?: double\b", re.IGNORECASE),
        "double-quote",
    ),
    (
        re.compile(r"\bmain (?=loop|thread|function|method|process|menu|entry)", re.IGNORECASE),
        "primary ",
    ),
    (re.compile(r"\bfloating[ -]point\b", re.IGNORECASE), "float"),
    (re.compile(r"\b(?:github|gh) actions\b", re.IGNORECASE), "github-actions"),
    (re.compile(r"\bcontinuous integration\b", re.IGNORECASE), "ci"),
    (re.compile(r"(?<!unity )\b(?:google )?cloud build\b", re.IGNORECASE), "cloud-build"),
    (re.compile(r"\b(?:google )?cloud monitoring\b", re.IGNORECASE), "cloud-monitoring"),
    (re.compile(r"\bshaka[ -]packager\b", re.IGNORECASE), "shaka-packager"),
    (re.compile(r"\bserver[ -]side ad insertion\b", re.IGNORECASE), "ssai"),
    (re.compile(r"\bclient[ -]side ad insertion\b", re.IGNORECASE), "csai"),
    (re.compile(r"\bmutual[ -]TLS\b", re.IGNORECASE), "mtls"),
    # "channels are private": not public (a "private key" is another thing than a public one)
    (re.compile(r"\b(is|are|stays?|remains?|kept) private\b", re.IGNORECASE), r"\1 not public"),
    (re.compile(r"\bstarts? up\b|\bstart-up\b", re.IGNORECASE), "startup"),
    (re.compile(r"\b(?:spin|spins|spun|kick|kicks|kicked) (?:up|off)\b", re.IGNORECASE), "start"),
    (re.compile(r"\bfile names?\b", re.IGNORECASE), "filenames"),
    (re.compile(r"\bgarbage[ -]collect\w*\b", re.IGNORECASE), "gc"),
    (re.compile(r"\bfeature[ -](?:flags?|toggles?)\b", re.IGNORECASE), "feature-flag"),
    (re.compile(r"\bdoc(?:umentation)? comments?\b", re.IGNORECASE), "docstring"),
    (re.compile(r"\bas (?:noted|decided|agreed|usual)\b|\brule of thumb\b", re.IGNORECASE), ""),
    (re.compile(r"\bby hand\b", re.IGNORECASE), "manually"),
    (re.compile(r"\bend[ -]to[ -]end\b", re.IGNORECASE), "e2e"),
    (re.compile(r"\bhard[ -]?cod(?:ed|es|e|ing)\b", re.IGNORECASE), "hardcode"),
    (re.compile(r"\blocal ?times?\b", re.IGNORECASE), "localtime"),
    (re.compile(r"\bcamel[ -]?cased?\b", re.IGNORECASE), "camelcase"),
    (re.compile(r"\bpascal[ -]?cased?\b", re.IGNORECASE), "pascalcase"),
    (re.compile(r"\bsnake[ _-]?cased?\b", re.IGNORECASE), "snake_case"),
    (re.compile(r"\bkebab[ -]?cased?\b", re.IGNORECASE), "kebab-case"),
    (re.compile(r"\btimes? ?outs?\b", re.IGNORECASE), "timeout"),
    # a bound said in words is the bound: "at least 14" is "min 14", "up to 7" "max 7" (and
    # "no more than" negates nothing)
    (re.compile(r"\bat least\b", re.IGNORECASE), "minimum"),
    (
        re.compile(r"\b(?:at most|no more than|not more than|up to(?= \d))\b", re.IGNORECASE),
        "maximum",
    ),
    (re.compile(r"\bsoft[ -]?delet(?:ed|es|e|ing|ion)\b", re.IGNORECASE), "soft-delete"),
    (re.compile(r"\bhard[ -]?delet(?:ed|es|e|ing|ion)\b", re.IGNORECASE), "hard-delete"),
    (re.compile(r"\b(?:env|environment)[ -]var(?:iable)?s?\b", re.IGNORECASE), "env-var"),
    (re.compile(r"\bforeign[ -]keys?\b", re.IGNORECASE), "foreign-key"),
    (re.compile(r"\bprimary[ -]keys?\b", re.IGNORECASE), "primary-key"),
    (re.compile(r"\bread[ -]only\b", re.IGNORECASE), "read-only"),
    (re.compile(r"\bR/?O\b(?![-/])"), "read-only"),  # "the mirror is RO" (capitals only)
    (re.compile(r"\bclass(?:-based)? components?\b", re.IGNORECASE), "class-component"),
    (re.compile(r"\bfunction(?:al)? components?\b", re.IGNORECASE), "function-component"),
    (re.compile(r"\braw sql\b", re.IGNORECASE), "raw-sql"),
    (re.compile(r"\bsign[ -]off\b", re.IGNORECASE), "sign-off"),
    (re.compile(r"\bpre[ -]commit hooks?\b", re.IGNORECASE), "git-hook"),
    (re.compile(r"\bgit hooks?\b", re.IGNORECASE), "git-hook"),
    (re.compile(r"\bpre-?commit\b", re.IGNORECASE), "git-hook"),
    (re.compile(r"\bconventional commits?\b", re.IGNORECASE), "conventional-commit"),
    (re.compile(r"\b(?:aws )?secrets manager\b", re.IGNORECASE), "secrets-manager"),
    (re.compile(r"\b(?:gcp |google )?secret manager\b", re.IGNORECASE), "secrets-manager"),
    (re.compile(r"\bbetter[ -]stack\b", re.IGNORECASE), "better-stack"),
    (re.compile(r"\bread[ -]?the[ -]?docs\b", re.IGNORECASE), "readthedocs"),
    (re.compile(r"\bgithub pages\b", re.IGNORECASE), "github-pages"),
    (re.compile(r"\bintel[ -]mpi\b", re.IGNORECASE), "intel-mpi"),
    (re.compile(r"\bopen[ -]?mpi\b", re.IGNORECASE), "openmpi"),
    (re.compile(r"\bfluent[ -]?bit\b", re.IGNORECASE), "fluent-bit"),
    (re.compile(r"\bgreat[ -]expectations\b", re.IGNORECASE), "great-expectations"),
    (re.compile(r"\bfirebase remote config\b", re.IGNORECASE), "firebase-remote-config"),
    (re.compile(r"\bargo ?cd\b", re.IGNORECASE), "argocd"),
    (re.compile(r"\bgroovy dsl\b", re.IGNORECASE), "groovy-dsl"),
    (re.compile(r"\bkotlin dsl\b", re.IGNORECASE), "kotlin-dsl"),
    (re.compile(r"\btrunk[ -]based\b", re.IGNORECASE), "trunk-based"),
    (re.compile(r"\bgit ?flow\b", re.IGNORECASE), "gitflow"),
    (re.compile(r"\blocal disk\b", re.IGNORECASE), "local-disk"),
    (re.compile(r"\bcheck(?:ed)? in\b", re.IGNORECASE), "commit"),
    (re.compile(r"\bbackend[ -]for[ -]frontend\b", re.IGNORECASE), "backend-for-frontend"),
    (re.compile(r"\bredux toolkit\b", re.IGNORECASE), "redux"),
    (re.compile(r"\breact[ -]native\b", re.IGNORECASE), "react-native"),
    (re.compile(r"\bweights (?:&|and) biases\b", re.IGNORECASE), "wandb"),
    (re.compile(r"\bsession[ -]cookies?\b", re.IGNORECASE), "session-cookie"),
    (re.compile(r"\bplastic scm\b", re.IGNORECASE), "plastic"),
    (re.compile(r"\bhashicorp vault\b", re.IGNORECASE), "vault"),
    (re.compile(r"\bcursors?[ -]based\b|\bcursors?\b", re.IGNORECASE), "cursor"),
    (re.compile(r"\boffset[ -]based\b", re.IGNORECASE), "offset"),
)
PREPOSITIONS = _words("in into on at from to under inside within")
TRUNCATE = 6  # a concept is its first letters: "indentation" and "indented" meet
_VERSION = re.compile(r"^v?\d+(?:\.\d+)*(?:\.[x*])?[%+]?$")  # "3.2.x" is version 3.2
_CLOCK_TIME = re.compile(r"^t\d{4}$")  # a time of day as :mod:`.wording` writes it
_WILDCARD = re.compile(r"\.[x*](?=[%+]?$)")
# A number with its unit ("15 minutes", "2 s", "4-space", "75%"): read as one value in the
# unit's base ("900s"), so "15 min" meets "15 minutes" and "24 hours" differs from "15 min".
# A rate of requests ("1000 requests per minute", "600 req/min", "20 req/s", "50 rps"): one
# unit, requests per second, whatever the period it is said per.
# ... and in the other languages of the sets ("600 peticions per minut", "100 Anfragen pro
# Sekunde", "50 żądań na minutę", "600 peticiones por minuto", "200 requêtes par seconde").
_RATE = (
    r"(?:req(?:uest)?s?|calls?|queries|peticions|peticiones|solicitudes|requêtes|requisições"
    r"|richieste|anfragen|aufrufe|żądań|zapytań|pyyntöä)"
    r"\s?(?:/|(?:per|por|par|pro|na|al)\s)\s?"
    r"(?:s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|minut[aeouyę]?|minuti|minuten?"
    r"|segundos?|secondes?|secondo|sekund[aeyę]?|sekunden|horas?|heures?|stunden?|ora"
    r"|godzin[aeyę]?)"
    r"|rps|qps"
)
_RATE_PERIOD = re.compile(r"(?:/|(?:per|por|par|pro|na|al)\s)\s?(\w+)$", re.IGNORECASE)
# The period of a rate by its first letters, in every language above ("minut", "Sekunde").
_PERIOD_OPENINGS: tuple[tuple[str, str], ...] = (
    ("mi", "min"),
    ("se", "s"),
    ("ho", "h"),
    ("he", "h"),
    ("st", "h"),
    ("or", "h"),
    ("go", "h"),
)


def _rate(unit: str) -> tuple[str, float] | None:
    """The base and factor of a request rate (``None`` for any other unit)."""
    if unit in ("rps", "qps"):
        return "req/s", 1.0
    period = _RATE_PERIOD.search(unit)
    if period is None:
        return None
    word = period.group(1).lower().rstrip("s") or "s"
    if word not in UNITS:
        word = next((base for opening, base in _PERIOD_OPENINGS if word.startswith(opening)), "s")
    seconds = UNITS.get(word, ("s", 1.0))[1]
    return "req/s", 1.0 / seconds


# Units of time written in the other languages a team's notes are written in ("30 segundos",
# "5 Minuten", "48시간", "7 dni"), each as its English unit. A day of the month ("20일",
# "20日") and a year ("2024년") are dates, not durations, and are left out.
UNITS_ABROAD = {
    **dict.fromkeys(("segundo", "segundos", "sekunde", "sekunden", "seconde", "secondes"), "s"),
    **dict.fromkeys(("sekund", "sekundy", "sekunda", "초", "秒"), "s"),
    **dict.fromkeys(("minuto", "minutos", "minuten", "minut", "minuty", "분", "分"), "min"),
    **dict.fromkeys(("hora", "horas", "stunde", "stunden", "heure", "heures"), "h"),
    **dict.fromkeys(("godzina", "godziny", "godzin", "시간", "時間"), "h"),
    **dict.fromkeys(("dia", "dias", "día", "días", "tage", "tagen", "jour", "jours"), "d"),
    **dict.fromkeys(("dzień", "dni", "日間"), "d"),
    **dict.fromkeys(("semana", "semanas", "woche", "wochen", "semaine", "semaines"), "w"),
    **dict.fromkeys(("tydzień", "tygodnie", "tygodni", "주", "週間"), "w"),
    **dict.fromkeys(("mês", "meses", "mes", "monat", "monate", "monaten", "mois"), "month"),
    **dict.fromkeys(("miesiąc", "miesiące", "miesięcy", "개월", "か月", "ヶ月"), "month"),
    **dict.fromkeys(("ano", "anos", "año", "años", "jahr", "jahre", "jahren", "ans"), "year"),
    **dict.fromkeys(("rok", "lata", "lat"), "year"),
    # Russian and Swedish ("35 дней", "30 dagar")
    **dict.fromkeys(("секунд", "секунды", "секунда", "sekunder"), "s"),
    **dict.fromkeys(("минут", "минуты", "минута", "minuter"), "min"),
    **dict.fromkeys(("час", "часа", "часов", "timme", "timmar"), "h"),
    **dict.fromkeys(("день", "дня", "дней", "суток", "dag", "dagar"), "d"),
    **dict.fromkeys(("неделя", "недели", "недель", "vecka", "veckor"), "w"),
    **dict.fromkeys(("месяц", "месяца", "месяцев", "månad", "månader"), "month"),
    **dict.fromkeys(("год", "года", "лет", "år"), "year"),
    # Czech, Turkish, Hebrew and Korean ("30 dní", "30 gün", "30 ימים", "1년")
    **dict.fromkeys(("sekundy", "saniye", "שניות"), "s"),
    **dict.fromkeys(("minuta", "dakika", "דקות"), "min"),
    **dict.fromkeys(("hodina", "hodiny", "hodin", "saat", "שעות", "שעה"), "h"),
    **dict.fromkeys(("den", "dny", "dní", "dnů", "gün", "ימים", "יום"), "d"),
    **dict.fromkeys(("týden", "týdny", "týdnů", "hafta", "שבועות", "שבוע"), "w"),
    **dict.fromkeys(("měsíc", "měsíce", "měsíců", "חודשים", "חודש"), "month"),
    **dict.fromkeys(("roky", "yıl", "שנים", "שנה", "년"), "year"),
}
# Currencies, each a unit of its own (two amounts of one currency conflict, of two never);
# :mod:`.wording` writes every sign, code and word of one as its code after the number
# ("€5,000", "EUR 5000" and "5000 euros" are "5000 EUR").
CURRENCIES = frozenset(("eur", "usd", "gbp", "chf", "czk", "ils", "krw", "brl", "pln", "jpy"))
_QUANTITY = re.compile(
    r"(?:(?<=-Xm[xs])|(?<![\w.]))(\d+(?:\.\d+)?)(?:/(\d+))?\s?-?\s?"
    r"("
    + "|".join(sorted(UNITS_ABROAD, key=len, reverse=True))
    + "|"
    + _RATE
    + "|"
    + "|".join(sorted(CURRENCIES, key=len, reverse=True))
    + r"|ms|msecs?|milliseconds?|[kmg]?hz|hertz|fps|bytes?"
    r"|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?"
    r"|w|wks?|weeks?|months?|years?|yrs?|%|percent|[kmgt]i?b|[kmgt]i|g|(?:kilo|mega|giga|tera|kibi|mebi|gibi|tebi)bytes?"
    r"|chars?|characters?|columns?|cols?|spaces?|px|x)(?![\w])",
    re.IGNORECASE,
)
UNITS: dict[str, tuple[str, float]] = {
    "ms": ("s", 0.001),
    "msec": ("s", 0.001),
    "millisecond": ("s", 0.001),
    "s": ("s", 1.0),
    "sec": ("s", 1.0),
    "second": ("s", 1.0),
    "m": ("s", 60.0),
    "min": ("s", 60.0),
    "minute": ("s", 60.0),
    "h": ("s", 3600.0),
    "hr": ("s", 3600.0),
    "hour": ("s", 3600.0),
    "d": ("s", 86400.0),
    "day": ("s", 86400.0),
    "w": ("s", 604800.0),
    "wk": ("s", 604800.0),
    "week": ("s", 604800.0),
    "month": ("s", 2592000.0),
    "year": ("s", 31536000.0),
    "yr": ("s", 31536000.0),
    "%": ("%", 1.0),
    "percent": ("%", 1.0),
    # Memory and disk sizes, one binary scale for every spelling ("2g", "2 GB", "2Gi", "2048Mi"
    # are one size): a note says "512M" or "512 MB" for the same php.ini value.
    **{
        spelling: ("B", float(1024**power))
        for power, prefix in enumerate("kmgt", start=1)
        for spelling in (f"{prefix}b", f"{prefix}i", f"{prefix}ib")
    },
    **{
        f"{prefix}byte": ("B", float(1024**power))
        for power, prefix in enumerate(("kilo", "mega", "giga", "tera"), start=1)
    },
    **{
        f"{prefix}byte": ("B", float(1024**power))
        for power, prefix in enumerate(("kibi", "mebi", "gibi", "tebi"), start=1)
    },
    "byte": ("B", 1.0),
    "g": ("B", float(1024**3)),
    "M": ("B", float(1024**2)),  # a capital M after a number is a size ("512M"), "5m" minutes
    "char": ("ch", 1.0),
    "character": ("ch", 1.0),
    "column": ("ch", 1.0),
    "col": ("ch", 1.0),
    "space": ("sp", 1.0),
    "px": ("px", 1.0),
    "hz": ("hz", 1.0),  # rates: "20 Hz", "200 hertz", "30 fps"
    "hertz": ("hz", 1.0),
    "khz": ("hz", 1e3),
    "mhz": ("hz", 1e6),
    "ghz": ("hz", 1e9),
    "fps": ("fps", 1.0),
    "x": ("x", 1.0),
    **{code: (code, 1.0) for code in CURRENCIES},
}
YEAR = 31536000.0  # a year of 365 days; twelve months of 30 days are a year too
MONTHS_YEAR = 31104000.0


WORDED_UNITS = frozenset({"sp", "ch"})


def _quantity_tokens(text: str) -> list[str]:
    """The tokens of a clause, each quantity one token ``_VALUE + "VALUE+UNIT"`` where it
    stood; the word of a unit that names the subject follows it ("4 spaces" is about
    spaces)."""
    tokens: list[str] = []
    start = 0
    for match in _QUANTITY.finditer(text):
        number, per, unit = match.group(1), match.group(2), match.group(3)
        unit = unit if unit == "M" else unit.lower()
        unit = UNITS_ABROAD.get(unit, unit)
        if unit not in UNITS:
            unit = unit.rstrip("s") if unit.rstrip("s") in UNITS else unit
        base, factor = _rate(unit) or UNITS.get(unit, ("", 1.0))
        value = float(number) / (float(per) if per and float(per) else 1.0)
        tokens.extend(_tokens(text[start : match.start()]))
        tokens.append(f"{_VALUE}{_in_years(value * factor, base):.6g}{base}")
        if base in WORDED_UNITS:
            tokens.append(match.group(3))
        start = match.end()
    tokens.extend(_tokens(text[start:]))
    return tokens


def _in_years(seconds: float, base: str) -> float:
    """A duration of whole years of 365 days written as twelve months of 30 days each, so
    "1 year", "12 months" and "365 days" are one value ("24 months" is "2 years")."""
    years = seconds / YEAR
    if base == "s" and years >= 1 and abs(years - round(years)) < 1e-9:
        return round(years) * MONTHS_YEAR
    return seconds


def _numbers_differ(a: set[str], b: set[str]) -> bool:
    """Both name values of one unit (or both bare numbers) and none in common."""
    if not (a and b) or _share(a, b):
        return False
    apart = _units_apart(a, b)
    return bool(apart) and all(apart)


def _some_unit_differs(a: set[str], b: set[str]) -> bool:
    """For some unit both name, the two sides' values share nothing: "512M" against "256M"
    next to a shared "web-01" is two values of one setting, so the entries are not one rule
    (the merge guard's reading; a contradiction needs :func:`_numbers_differ`)."""
    return any(_units_apart(a, b))


def _currencies_apart(a: set[str], b: set[str]) -> bool:
    """Both entries state amounts of money, in other currencies ("$5000" against "€5000"): one
    limit is not the other, whatever the words around them share."""
    money_a = {_unit(v) for v in a} & CURRENCIES
    money_b = {_unit(v) for v in b} & CURRENCIES
    return bool(money_a and money_b) and money_a != money_b


def _units_apart(a: set[str], b: set[str]) -> list[bool]:
    """For each unit both sides state a value of, whether their values of it share nothing."""
    units = {_unit(v) for v in a} & {_unit(v) for v in b}
    return [
        not _share({v for v in a if _unit(v) == u}, {v for v in b if _unit(v) == u}) for u in units
    ]


def _share(a: set[str], b: set[str]) -> bool:
    """Whether two value sets have a value in common; a version and the same version with more
    detail are one value ("Airflow 2.7" and "2.7.3", "MySQL 8" and "8.0.36")."""
    return bool(a & b) or any(_more_detail(x, y) or _more_detail(y, x) for x in a for y in b)


def _more_detail(short: str, long: str) -> bool:
    """``long`` is the version ``short`` with more detail ("2.7" and "2.7.3", "8" and
    "8.0.36"; "3" and "3.5" stay two numbers)."""
    return (
        long.startswith(short + ".")
        and ("." in short or long.count(".") >= 2)
        and bool(_DOTTED.match(short) and _DOTTED.match(long))
    )


_DOTTED = re.compile(r"^\d+(?:\.\d+)*$")
_TRAILING_ZEROS = re.compile(r"(?<=\d)(?:\.0)+$")  # "8.0" and "16.0.0" are "8" and "16"


def _unit(value: str) -> str:
    """The unit of a value string ("900s" → "s", "500step" → "step", "3.10" → "")."""
    match = _VALUE_UNIT.match(value)
    return match.group(1) if match else value


_VALUE_UNIT = re.compile(r"[\d.]+(?:e[+-]?\d+)?(.*)$")


def _lexicon() -> frozenset[str]:
    """Concepts spelled out in full (never truncated): alternatives, scopes, synonyms."""
    words: set[str] = set(SYNONYMS.values()) | set(ANTONYMS.values())
    for group in CHOICE_GROUPS + SCOPE_GROUPS:
        words |= group
    return frozenset(words)


LEXICON = _lexicon()


def _stem(word: str) -> str:
    """A light stem: a plural ending off, then the first :data:`TRUNCATE` letters, so
    "commits", "committed" and "committing" meet; identifiers, paths, numbers and the words
    of the lexicon are left whole."""
    if _MODEL_PLURAL.match(word):  # "A100s" are A100 boards
        return word[:-1]
    if not word.isalpha() or word in LEXICON:
        return word
    if word.endswith("s") and word[:-1] in SYNONYMS:  # "MRs", "PRs", "envs", "repos"
        return SYNONYMS[word[:-1]]
    if word.endswith("ly") and len(word) >= 7:  # "exactly" is "exact", "strictly" "strict"
        word = word[:-2]
    for suffix, repl in (("ies", "y"), ("sses", "ss"), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            word = word[: len(word) - len(suffix)] + repl
            break
    if word in LEXICON or word in SYNONYMS:
        return SYNONYMS.get(word, word)
    for suffix in ("ing", "ed", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if suffix != "e" and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]  # "pinned", "committed", "shipping"
            break
    for whole in (word, word + "e", word[:-1] + "y" if word.endswith("i") else ""):
        if whole in SYNONYMS or whole in LEXICON:  # "verified" → "verify", "stored" → "store"
            return SYNONYMS.get(whole, whole)
    word = word[:TRUNCATE]
    # "policy"/"policies", "cookie"/"cookies", "deploy"/"deployment" meet
    return word[:-1] if word.endswith("ie") else word[:-1] + "i" if word.endswith("y") else word


_MODEL_PLURAL = re.compile(r"^[a-z]{1,4}\d{2,5}s$")  # a model name in the plural ("v100s")


class Reading(Record):
    """One entry as the comparison sees it: weighted concept words, polarity, chosen and
    rejected alternatives, scopes, numbers and order relations."""

    __slots__ = (
        "acronyms",
        "adds",
        "anchors",
        "bare",
        "changed",
        "chosen",
        "clauses",
        "ends",
        "escalates",
        "excepts",
        "exempts",
        "flipped",
        "general",
        "head",
        "initials",
        "instance",
        "lead",
        "marked",
        "modifiers",
        "negated",
        "negations",
        "numbers",
        "of_heads",
        "opening",
        "order",
        "permits",
        "polar",
        "qualifiers",
        "reasons",
        "rejected",
        "restricted",
        "retired",
        "scoped",
        "scopes",
        "scripts",
        "sequence",
        "source",
        "spans",
        "supersedes",
        "text",
        "totals",
        "universal",
        "values",
        "weights",
        "years",
    )

    def __init__(self) -> None:
        self.weights: dict[str, float] = {}
        self.anchors: set[str] = set()  # names: tools, identifiers, proper nouns, code spans
        self.negated = False
        self.flipped: list[frozenset[str]] = []  # per negation: the concepts it governs
        self.negations: list[frozenset[str]] = []  # the same, restrictions ("only") left out
        self.restricted: set[str] = set()  # what "only" restricts ("only the release branch")
        self.universal: set[str] = set()  # what "every", "all", "any" quantify
        self.polar: set[str] = set()  # concepts of antonyms and rejections ("disabled")
        self.supersedes = False  # a note that something changed ("replaced by", "moved to")
        self.marked = False  # ... known by a mark of :mod:`.markers` alone ("Since 2025-05-20")
        self.head: Reading | None = None  # the first clause alone, when there are several
        self.excepts = False  # it states an exception or a reason ("unless", "because", "also")
        self.reasons = False  # its only sign of an exception is a reason ("because")
        self.permits = False  # it grants a permission ("may", "can", "is fine")
        self.exempts = False  # it says it is an exception ("Exception:", "except", "unless")
        self.adds = False  # it says it adds to another entry ("also", "too", "in addition")
        self.escalates = False  # it denies even the lesser thing ("no access, not even read")
        self.chosen: set[str] = set()
        self.rejected: set[str] = set()
        self.scopes: set[str] = set()
        self.sequence: list[str] = []  # its concepts of full weight in order, for twins
        self.of_heads: dict[str, str] = {}  # "pedidos de México": "méxico" -> "pedido"
        self.scoped: set[str] = set()  # concepts a "for" names the rule for ("for German hotels")
        self.spans: set[str] = set()  # concepts named in backticks
        self.qualifiers: set[str] = set()  # what "in the X", "on X" place the rule in
        self.numbers: set[str] = set()
        self.values: dict[str, set[str]] = {}  # concept -> values stated in its clauses
        self.order: set[tuple[str, str]] = set()
        self.modifiers: dict[str, set[str]] = {}  # concept -> the concepts right before it
        self.totals: dict[int, float] = {}  # weight totals per left-out set, see _total
        self.acronyms: dict[str, str] = {}  # "gke" -> the concept of "GKE" (3+ letters)
        self.initials: dict[str, frozenset[str]] = {}  # "gke" -> concepts of the words
        self.clauses: list[set[str]] = [set()]  # the concepts of each clause
        self.changed: set[str] = set()  # the concepts of the clauses a change note is in
        self.ends: set[str] = set()  # code spans that end a clause ("... is `allkeys-lru`")
        self.text = ""  # the normalised text, lower case, backticks dropped
        self.years: set[str] = set()  # the years of the events it speaks of ("the 2025 workshop")
        self.instance: str | None = None  # the code identifier it opens with ("`orders.paid_at`")
        self.opening: tuple[str, ...] = ()  # its first two concepts ("payment", "service")
        self.general = False  # it opens with a class of things ("Timestamps are", "All services")
        self.source = ""  # the text as given
        self.lead: frozenset[str] = frozenset()  # a leading "For X," its only exception mark
        self.scripts: frozenset[str] = frozenset()  # "hangul", "cjk": scripts without spaces
        self.bare: dict[frozenset[str], Reading] = {}  # read without some scripts' words
        # per retirement ("Jenkins was shut down"): the concepts and values of what it retires
        self.retired: list[tuple[frozenset[str], frozenset[str]]] = []


def _tokens(text: str) -> list[str]:
    """Word tokens; a backticked span stays one token, followed by its own words."""
    for pattern, joined in PHRASES:
        text = pattern.sub(joined, text)
    tokens: list[str] = []
    previous = ""
    for found in _TOKEN.findall(text):
        words, previous = _script_words(found, previous), found
        for token in words:
            token = "without" if token.lower() in WITHOUT_ABROAD else token
            tokens.append(token)
            tokens.extend(_inner_words(token))
    return tokens


# Words only Portuguese writes: in a Portuguese entry "no" is "in the", no negation.
_PORTUGUESE = re.compile(
    r"\b(?:não|são|é|também|já|pelo|pela|uma|ao|às|você|nenhum|nenhuma|ficam|fica|estão|têm)\b"
    r"|(?-i:\b[Oo]s\b)"  # "Os segredos ficam no Vault" ("OS" in capitals is no article)
    r"|\w(?:ção|ções|ões|ãos?|ços?)\b",  # "integração", "alterações", "padrão", "serviço"
    re.IGNORECASE,
)
PORTUGUESE_WORDS = 1


# "Without" in the other languages a team's notes are written in: "nenhum apply sem plano" is
# "no apply without a plan", a requirement, as in English.
WITHOUT_ABROAD = _words("sem sin bez ohne sans")


# Runs of one script in a word: Hangul syllables, Han characters, Katakana, Hiragana, and the
# rest (Latin and other alphabets, digits, the marks inside identifiers).
_SCRIPT_RUN = re.compile(
    r"(?P<hangul>[\uac00-\ud7a3]+)|(?P<han>[\u4e00-\u9fff\u3400-\u4dbf]+)"
    r"|(?P<kana>[\u30a0-\u30ff\uff66-\uff9f]+)|(?P<hira>[\u3040-\u309f]+)"
    r"|(?P<other>[^\uac00-\ud7a3\u4e00-\u9fff\u3400-\u4dbf\u3040-\u30ff\uff66-\uff9f]+)"
)
HANGUL_STEM = 2  # syllables of a Korean word that name its concept ("리뷰는" is "리뷰")
# Korean words that negate or forbid, by how they begin ("실행하지 않는다" is "does not run",
# "배포 금지" "deploying forbidden", "없다" "there is none"), and the word read for them.
# "필수가 아니다": "is not required" (a word that begins "아니" negates what it follows)
KOREAN_NEGATIONS = (
    *(("않", "not"), ("금지", "forbidden"), ("없이", "without"), ("없", "not")),
    ("아니", "not"),
)
KOREAN_SHORT_NEGATIONS = frozenset({"안", "못"})  # "안 된다", "못 한다": a word of its own


# Japanese negative endings ("しない", "しなくて", "しません", "せず").
# "使わず", "書かず", "出さず", "待たず", "呼ばず": a verb's stem and "ず", without doing it
# ("必ず", "まず" are "always", "first": no ending of this list).
HIRAGANA_NEGATIONS = (
    *("ない", "なく", "ません", "せず", "ぬ"),
    *("わず", "かず", "さず", "たず", "ばず"),
)
# Terms of Korean, Japanese and Chinese text that name a kind of value, read as their English
# word (two values of one thing that conflict: "動画IDは連番の整数" against "動画IDは文字列
# （ULID）", an integer against a string; the Han characters two at a time had made "文字",
# "字列" of it, merged with "整数" as a duplicate on blind_pairs11's first measurement).
CJK_TERMS = {
    "文字列": "string",
    "字符串": "string",
    "문자열": "string",
    "整数": "integer",
    "整型": "integer",
    "정수": "integer",
    "浮動小数点": "float",
    "浮点": "float",
    "부동소수점": "float",
    "真偽値": "boolean",
    "布尔": "boolean",
    "ブール": "boolean",
    "불리언": "boolean",
    # environments: where a rule holds ("本番環境のログ保持期間は90日" is production's)
    "本番": "production",
    "開発": "development",
    "ステージング": "staging",
    "生产": "production",
    "운영": "production",
    "개발": "development",
    "스테이징": "staging",
}
_CJK_TERM = re.compile("|".join(sorted(CJK_TERMS, key=len, reverse=True)))


def _cjk_terms(text: str) -> list[str]:
    """The words of a run of one script that holds a term of :data:`CJK_TERMS`: each term as
    its English word, the rest around it read as any run of its script is."""
    words: list[str] = []
    start = 0
    for found in _CJK_TERM.finditer(text):
        words.extend(_script_words(text[start : found.start()]) if found.start() > start else [])
        words.append(CJK_TERMS[found.group()])
        start = found.end()
    return words + (_script_words(text[start:]) if start < len(text) else [])


# Universal quantifiers of Korean, Japanese and Chinese text, read as "every": a word of
# Hangul ("모든 서비스", "전체"), a run of Hiragana ("すべての", "どの"... "も" is not one),
# a run of Han characters it opens ("全て", "全サービス", "各チーム", "所有服务", "每个",
# "一切", "任何"); "全文検索" (full-text search) opens with "全" too and is read as "every
# text search": a universal only ever keeps two entries apart.
KOREAN_UNIVERSAL = ("모든", "전체", "전부")
HIRAGANA_UNIVERSAL = ("すべて", "あらゆる")
HAN_UNIVERSAL = ("全部", "全員", "所有", "一切", "任何", "全", "各", "每")  # longest first


# Han characters that negate ("不要" don't, "没有" there is none, "别", "勿") or forbid ("禁止").
HAN_NEGATIONS = frozenset("不没沒别別勿无無")


def _han_negations(text: str) -> list[str]:
    """The negations a run of Han characters says, as English words ("禁止" is "forbidden",
    "不要" "not"): read as negations wherever they stand (a merge they rule out is safe)."""
    said = ["forbidden"] if "禁止" in text else []
    return said + (["not"] if HAN_NEGATIONS.intersection(text) else [])


def _korean_negation(word: str, token: str, previous: str) -> str:
    """The negation a Korean word says, as its English word (empty when none); ``previous``
    is the word before it ("하지 말 것": "말" after a verb ending in "지" is "don't")."""
    if token in KOREAN_SHORT_NEGATIONS or (previous.endswith("지") and word.startswith("마")):
        return "not"
    if previous.endswith("지") and word.startswith("말"):
        return "not"
    return next((said for start, said in KOREAN_NEGATIONS if word.startswith(start)), "")


def _script_words(token: str, previous: str = "") -> list[str]:
    """The words of a token written in Korean, Chinese or Japanese, which mark no word ends
    the way spaces do: a Korean word is its first syllables (its particles and endings off:
    "승인이", "승인해야" are "승인"), and one right after a Latin word is a particle
    ("API를"); Han characters are read two at a time ("必须手动提交" has "手动", "提交"); a
    Katakana run is one word, Hiragana (particles, endings) none. A code span and a word of
    other alphabets stay as they are."""
    if token.startswith("`") or token.isascii() or not _SCRIPT_RUN.search(token):
        return [token]
    words: list[str] = []
    after_other = False
    for run in _SCRIPT_RUN.finditer(token):
        kind, text = run.lastgroup, run.group()
        if kind == "other":
            words.extend(w for w in _TOKEN.findall(text))
        elif kind == "hangul" and not after_other:
            if text.startswith(KOREAN_UNIVERSAL) or text == "각":
                words.append("every")  # "모든 서비스는", "각 팀은": every service, each team
                continue
            term = _CJK_TERM.match(text)
            if term:  # "정수다", "문자열로": the type, its ending off
                words.append(CJK_TERMS[term.group()])
                continue
            words.append(_korean_negation(text, token, previous) or text[:HANGUL_STEM])
        elif kind == "hira" and any(ending in text for ending in HIRAGANA_NEGATIONS):
            words.append("not")  # "実行しない": does not run
        elif kind == "hira" and text.startswith(HIRAGANA_UNIVERSAL):
            words.append("every")  # "すべてのサービス": every service
        elif kind in ("han", "kana") and _CJK_TERM.search(text):
            words.extend(_cjk_terms(text))  # "文字列", "整数", "정수": a type, one word
        elif kind == "han":
            words.extend(_han_negations(text))
            quantifier = next((q for q in HAN_UNIVERSAL if text.startswith(q)), "")
            if quantifier:  # "全サービス", "各チーム", "所有服务": the rest is what it counts
                words.append("every")
                text = text[len(quantifier) :]
                if not text:
                    continue
            words.extend(
                [text] if len(text) <= 2 else [text[i : i + 2] for i in range(len(text) - 1)]
            )
        elif kind == "kana":
            words.append(text)
        after_other = kind == "other"
    return words


def _inner_words(token: str) -> list[str]:
    """The words read after a token: a backticked span's own words, a hyphenated word's
    parts."""
    words: list[str] = []
    inner = _TOKEN.findall(token.strip("`")) if token.startswith("`") else [token]
    for word in inner:
        if word != token:
            words.append(word)
        if "-" in word and word.lower().endswith(LIKENESS):
            continue  # "Java-style code" is no Java, "UB-ish" no UB
        if "-" in word and not word.lower().startswith(KEEP_WHOLE):
            words.extend(
                part
                for part in word.split("-")
                if len(part) > 1 and part.lower() not in NEGATIONS | RESTRICTIVE  # "docs-only"
            )
        elif _SNAKE.match(word):  # `max_width` is also "max width"
            words.extend(part for part in word.split("_") if len(part) > 1 and part not in ANTONYMS)
        elif _CAMEL_WORD.match(word):  # `minSdk` is also "min sdk"
            words.extend(part for part in _CAMEL_PART.findall(word) if len(part) > 1)
        elif _PATH.match(word):  # `firmware/sdkconfig.defaults` also names `sdkconfig.defaults`
            words.append(word.rstrip("/").rsplit("/", 1)[-1])
    return words


_SNAKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")
# An identifier in lower camelCase (`minSdk`, `maxAge`) and its words.
_CAMEL_WORD = re.compile(r"^[a-z]{2,}(?:[A-Z][a-z0-9]+)+$")
_CAMEL_PART = re.compile(r"[A-Z]?[a-z0-9]+")
# A path of folders ending in a file name with an extension: the file is also named alone.
_PATH = re.compile(r"^[\w.-]+(?:/[\w.-]+)*/[\w-]+\.[\w.]+$")
# Endings of a hyphenated word that say what it resembles ("Java-style", "UB-ish"): its
# first part is not what it names.
LIKENESS = ("-style", "-like", "-ish")
# Hyphenated words kept whole: joined phrases, and "non-"/"anti-" words (not their opposite).
KEEP_WHOLE = (
    "pull-request",
    "merge-commit",
    "github-actions",
    "end-to-end",
    "non-",
    "anti-",
    "soft-delete",
    "hard-delete",
    "env-var",
    "foreign-key",
    "primary-key",
    "read-only",
    "class-component",
    "function-component",
    "raw-sql",
    "git-hook",
    "conventional-commit",
    "secrets-manager",
    "groovy-dsl",
    "kotlin-dsl",
    "trunk-based",
    "local-disk",
    "single-quote",
    "double-quote",
    "backend-for-frontend",
    "feature-flag",
    "heads-up",
    "react-native",
    "session-cookie",
    "probe-rs",
    "better-stack",
    "fluent-bit",
    "great-expectations",
    "github-pages",
    "intel-mpi",
    "firebase-remote-config",
    "google-java-format",
    "palantir-java-format",
    "php-cs-fixer",
    "us-",
    "eu-",
    "ap-",
    "ca-",
    "sa-",
)


# A note that a rule changed: the older note it meets on the same subject no longer holds.
_SUPERSEDES = re.compile(
    r"\b(?:replaced (?:by|with)|replaces|supersed\w*|switched (?:\w+ ){0,3}(?:from|to|over)"
    r"|migrated (?:\w+ ){0,3}(?:from|to|off|out)|moved (?:from|to|off)|upgraded (?:from|to)"
    r"|decommissioned|sunset|(?:was|were|is|are|been) retired"
    r"|\bv?\d+(?:\.\w+)+ (?:retired|deprecated|dropped)\b"  # "(3.2.1 retired)"
    r"|since (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* \d{4}"  # a change point
    r"|bumped (?:from|to)"
    r"|now on|as of|we left|(?:since|after) \w+ left|anymore|any more|in favou?r of"
    r"|took over"  # "Annika took over as DPO"
    r"|(?:we|they|you|it) used to"
    r"|used to be|renamed|previously|formerly"
    r"|since v?\d+(?:\.\d+)+|dropped (?:in|since) v?\d)\b",
    re.IGNORECASE,
)


# When a change is still to come ("stays on Java 17 until it is retired", "before it's
# migrated"): no note that something changed.
_FUTURE_CHANGE = re.compile(r"\b(?:until|till|before|once)\s[^.;,\u2014\u2013]*", re.IGNORECASE)


# "Exception", "except" and "unless" in the other languages a team's notes are written in.
EXCEPTIONS_ABROAD = (
    "ausnahme",
    "au(?:ß|ss)er",
    "es sei denn",
    "excepto",
    r"excepci[oó]n",  # "Excepción: el worker sigue en Go 1.21"
    "salvo",
    "hasta que",  # "until": a special case kept until a change still to come
    "a menos que",
    "sauf",
    "à moins que",
    "eccetto",
    "eccezione",
    "tranne",
    "exceto",
    r"exce[çc][ãa]o",
    "a não ser que",
    r"wyjąt\w*",  # Polish: "wyjątek", "z wyjątkiem"
    "oprócz",
    "chyba że",
    r"예외\w*",  # Korean: "예외로" (as an exception), "제외하고" (excluding)
    r"제외\w*",
    "例外",  # Japanese and Chinese: "an exception"
    "除外",  # "excluded"
)
# An exception to a rule, a permission or the reason for a special case: written knowing the
# general rule, it refines that rule rather than contradicting it ("Exception: `unwrap()` on a
# lock is OK", "docs-only PRs can be merged with one approval", "until it's migrated").
_EXCEPTS = re.compile(
    r"\b(?:exception|except|unless|until|also|on purpose|because|the one place|(?:is|are) ok)\b"
    r"|\b(?:deliberately|intentionally|by design|exempt\w*)\b"  # "is deliberately a plain `DATE`"
    r"|\bthe (?:only )?one (?:\w+ )?(?:with|that|where|which)\b"  # "the one (DAG) with ..."
    r"|\b(?:" + "|".join(EXCEPTIONS_ABROAD) + r")\b"
    r"|\b(?:is|are) (?:allowed|permitted) (?:to|for)\b|\bthat'?s expected\b"
    # a permission, unless "can ... only" or a bound ("can work at most 7 shifts" is a limit)
    r"|\bcan\b(?!'t|\u2019t| not| never|[^.;,]*\b(?:only|at most|max|maximum|up to)\b)",
    re.IGNORECASE,
)

# A reason given for a rule ("because the runner doesn't"): it explains the rule, it does not
# make a special case of it.
_REASON = re.compile(r"\bbecause\b[^.;]*", re.IGNORECASE)  # "because the broker can redeliver"

# A permission ("PRs may be merged without review", "floats are fine for charts"): never
# merged with a rule that grants none (read for merges only: "X is fine" against "never X"
# stays a contradiction).
_PERMITS = re.compile(
    # "허용된다" (is allowed), "실행해도 된다" (may run), "実行してよい", "可以", "允许"
    r"(?:\b(?:can|may|allowed|permitted|fine|ok|okay)\b"
    r"|허용|도 (?:되|돼|된|됩|됨)|てよい|ても(?:よい|いい)|可以|允许|許可)"
    r"(?!'t|\u2019t| not| never|[^.;,]*\b(?:only|at most|max|maximum|up to)\b)",
    re.IGNORECASE,
)

# A purpose clause ("so field units can be debugged", "so that CI can cache it"): its "can"
# is what the rule makes possible, not a permission.
_PURPOSE = re.compile(r"\bso(?: that)?\s[^.;,]*?\bcan\b[^.;,]*", re.IGNORECASE)

# An entry that calls itself an exception: its permission is a special case of a rule.
_EXEMPTS = re.compile(
    r"\b(?:exception|except|unless|exempt\w*|the one place|" + "|".join(EXCEPTIONS_ABROAD) + r")\b",
    re.IGNORECASE,
)

# An alternative a subset of the rule's cases gets in place of the rule's own, "instead" closing
# a clause that opens with that subset ("Customers who opted out of SMS get outage notices by
# e-mail instead"): the entry states an exception to a rule it knows. Not "use pnpm instead of
# npm", nor a replacement with no subset ("Never call `time.sleep()` in async code; use
# `asyncio.sleep()` instead": the rule itself). The same abroad: "en su lugar", "à la place",
# "stattdessen", "invece", "em vez disso", "zamiast tego", "in plaats daarvan", "i stället",
# Japanese "代わりに" not after "の" ("Xの代わりに": instead of X).
_INSTEAD = re.compile(
    r"\b(?:instead|in its place|en su lugar|en lugar de eso|à la place|stattdessen"
    r"|statt dessen|invece|al suo posto|em vez disso|ao invés disso|zamiast tego"
    r"|in plaats daarvan|i stället)\b(?!\s+(?:of|de|di|du|des|del|för)\b)"
    r"|(?<!の)代わりに|その代わり",
    re.IGNORECASE,
)
# The subset a clause opens with: a relative clause or a condition ("customers who ...", "los
# clientes que ...", "Kunden ohne ...", "if ...", "配信停止した場合").
_SUBSET = re.compile(
    r"\b(?:who|whose|that|which|without|if|when|whenever|que|quienes|cuando|si|sin|qui|quand"
    r"|sans|die|welche|ohne|wenn|falls|che|chi|quando|senza|se|sem|quem|którzy|które|bez"
    r"|jeśli|gdy|jeżeli|som|utan|om|wie|zonder|als)\b|場合|ない人",
    re.IGNORECASE,
)
_CLAUSE_BREAK = re.compile(r"[.;!?:\u2014\u2013]|\s-\s")


# An entry announcing itself an exception, by a word that means nothing else ("the only
# exception", "exempt", "unless", "Ausnahme", "a menos que", "例外"); "except" and its
# neighbours abroad ("außer", "sauf", "tranne") also mean "but" ("mask everything except the
# last six characters") and are left out.
_STATES_EXCEPTION = re.compile(
    r"\b(?:exception|exempt\w*|unless|ausnahme\w*|es sei denn|excepci[oó]n|a menos que"
    r"|à moins que|eccezion\w*|a meno che|exce[çc][ãa]o|a não ser que|wyjąt\w*|chyba że"
    r"|uitzondering|undantag)\b|예외|例外|除外",
    re.IGNORECASE,
)


# An exception stated as the one case a rule lets through: "the only Friday deploys allowed",
# "only hotfixes are permitted", "seuls les correctifs sont autorisés", "nur Hotfixes sind
# erlaubt", "solo se permiten", "tylko poprawki są dozwolone", "唯一允许的", "のみ許可", "만
# 허용" (round 28: blind_pairs20's first measurement merged "Hotfixes ... are the only Friday
# deploys allowed" with "Never deploy on Fridays", deleting one of them). The modals ("may",
# "can", "darf") are left out: "Only the permits lead and the city clerk may approve ..." and
# "only the final 6 characters may be shown" restate a rule (two cv duplicates lost with them).
_ONLY = (
    r"(?:only|solely|sole|seul(?:e|s|es)?|uniquement|nur|einzige\w*|ausschließlich|solo|sólo"
    r"|solamente|únic[oa]s?|únicamente|soltanto|unic[oaie]|unicamente|somente|apenas|tylko"
    r"|jedyn\w*|alleen|enige)"
)
_PERMITTED = (
    r"(?:allowed|permitted|authori[sz]ed|autoris\w*|permise?s?|erlaubt|zulässig|gestattet"
    r"|permitid\w*|permess\w*|se permite\w*|consentit\w*|ammess\w*|dozwolon\w*|toegestaan)"
)
_ONLY_PERMITTED = re.compile(
    rf"\b{_ONLY}\b(?:[^.;!?:\u2014\u2013]{{0,60}}?)\b{_PERMITTED}\b"
    rf"|\b{_PERMITTED}\s+(?:\w+\s+)?{_ONLY}\b"
    r"|唯一[^。，、]{0,12}?(?:允许|允許|许可|許可|准许|准許)|(?:只|仅|僅)(?:允许|允許|准许|准許)"
    r"|(?:のみ|だけ)[^。、]{0,8}?(?:許可|認め|許され)|만\s*(?:허용|허락|가능)",
    re.IGNORECASE,
)


def _states_exception(text: str) -> bool:
    """Whether an entry says it is an exception to a rule: an exception word
    (``_STATES_EXCEPTION``), the one case a rule lets through (``_ONLY_PERMITTED``) or an
    alternative a subset gets "instead"."""
    return (
        _STATES_EXCEPTION.search(text) is not None
        or _ONLY_PERMITTED.search(text) is not None
        or _excepts_instead(text)
    )


def _excepts_instead(text: str) -> bool:
    """Whether a clause gives a subset of cases an alternative "instead" (see ``_INSTEAD``)."""
    for clause in _CLAUSE_BREAK.split(text):
        found = _INSTEAD.search(clause)
        if found is not None and _SUBSET.search(clause[: found.start()]) is not None:
            return True
    return False


# An entry that adds to another ("A SEV1 also needs a scribe") names the same things as the
# rule it adds to and says another fact: never a duplicate by names alone (blind_pairs11's first
# measurement merged such pairs, and exemptions, each merge deleting a rule).
# The same abroad ("también", "auch", "aussi", "anche", "também", "także", "또한", "역시"),
# Chinese "也" and Japanese "も" right after a noun ("推薦サービスも": the recommendation
# service too; "しても", "もの", "もう" are no addition).
_ADDS = re.compile(
    r"\b(?:also|too|as well|additionally|in addition|también|auch|aussi|anche|também|także"
    r"|또한|역시)\b|也|(?<=[\u30a0-\u30ff\u4e00-\u9fffA-Za-z0-9])も(?![のしうっ])"
)

# The CAN bus, written in capitals: a name, not the verb "can".
# "no access, not even read-only": the entry denies what a weaker rule grants, so an entry
# without it that names the lesser thing ("read-only access") is never its copy.
_NOT_EVEN = re.compile(
    r"\b(?:not|nor|and not) even\b|\bnemmeno\b|\bneanche\b|\bneppure\b|\bni siquiera\b"
    r"|\bni même\b|\bmême pas\b|\bpas même\b|\bnicht (?:einmal|mal)\b|\bnem (?:mesmo|sequer)\b"
    r"|\bani nawet\b|даже не|\bniet eens\b|\binte ens\b|\bbile\b.{0,40}\bdeğil\b",
    re.IGNORECASE,
)
_CAN_BUS = re.compile(r"\bCAN\b")

# A rule that opens by naming the part it is for ("For the `release/*` branches, ...", "In the
# firmware crate: ...") narrows a general rule: a special case, not a contradiction.
_SCOPED = re.compile(r"\s*(?:[-*]\s+)?(?:for|in|inside|within)\s[^,;:.]{2,40}[,:]", re.IGNORECASE)


def read(text: str, *, head: bool = True) -> Reading:
    """How :func:`relate` sees one entry's text (a bullet or paragraph, markers included);
    with ``head``, an entry of several clauses also keeps its first clause read alone."""
    reading = Reading()
    reading.source = text
    reading.scripts = frozenset(
        "hangul" if run.lastgroup == "hangul" else "cjk"
        for run in _SCRIPT_RUN.finditer(text)
        if run.lastgroup != "other"
    )
    text, struck = wording.normalise(text)
    reading.text = text.lower().replace("`", "")
    reading.supersedes = struck or _SUPERSEDES.search(_FUTURE_CHANGE.sub(" ", text)) is not None
    if not reading.supersedes and markers.changed(reading.source):
        reading.supersedes = reading.marked = True  # a dated note, before wording drops its date
    if head:
        reading.retired = _retirements(text)
    portuguese = len(_PORTUGUESE.findall(text)) >= PORTUGUESE_WORDS
    unpurposed = _PURPOSE.sub(" ", text)  # "so field units can be debugged" grants nothing
    unpurposed = _CAN_BUS.sub(" ", unpurposed)  # "addressed over CAN" grants nothing either
    reading.excepts = _EXCEPTS.search(unpurposed) is not None or _SCOPED.match(text) is not None
    reading.reasons = (
        reading.excepts
        and _SCOPED.match(text) is None
        and _EXCEPTS.search(_REASON.sub(" ", unpurposed)) is None
    )
    reading.permits = _PERMITS.search(unpurposed) is not None
    scoped = _SCOPED.match(text)
    if scoped and _EXCEPTS.search(unpurposed) is None:
        reading.lead = frozenset(
            concept
            for concept, weight in map(_concept, _tokens(scoped.group()))
            if concept and weight >= 1.0
        )
    reading.exempts = _EXEMPTS.search(text) is not None or _excepts_instead(text)
    reading.adds = _ADDS.search(reading.text) is not None
    reading.escalates = _NOT_EVEN.search(reading.text) is not None
    raw: list[str] = []
    text = _FOR_JAPANESE.sub(r" für \1 ", text)  # "欧州向けの予約": bookings for Europe
    text = markers.turkish_negations(text)  # "zorunlu değil": "required not"
    text = markers.french_negations(text)  # "ne redémarre pas": "not redémarre"
    text = _SET_ASIDE.sub(r"\g<head> \g<rest>, not \g<alt>", text.replace("\u2019", "'"))
    text = _ALTERNATIVE_MID.sub(r"\g<head> \g<rest> \g<contrast> \g<alt>", text)
    text = _CONTRAST.sub(" rather than ", text)
    clauses = [c for c in _clauses(_number_words(text)) if c.strip()]
    for clause in clauses:
        raw.extend(_quantity_tokens(clause))
        raw.append(_BREAK)
    if head and len(clauses) > 1:
        reading.head = read(clauses[0], head=False)
    if head:
        _read_initials(reading, clauses)
    concepts: list[str | None] = []
    keys: list[str | None] = []  # per token: the concept a value next to it is stated for
    values: list[tuple[int, str]] = []  # (token position, value) in the open clause
    negate_next = 0
    qualify = 0  # concepts still to read after "in", "on", "inside"
    clause_start = 0
    prefers = False
    flips = 0
    pending: list[tuple[int, str]] = []  # (concept position, reach) of the open clause's flips
    negations = 0  # negation words in the open clause
    clause_words = 0  # tokens read in the open clause (a capital on the first is no name)
    opener = ""  # the open clause's first word ("if": a condition, not a statement)
    span_left = 0  # words still to read from inside a backticked command
    parts_left = 0  # parts still to read of a hyphenated word
    negation_at: set[int] = set()
    last_span: str | None = None  # the open clause's last code span, unless a word follows it
    universal = 0  # concepts still to read after "every", "all", "any"
    antonym_at: set[int] = set()  # positions of the open clause's antonyms ("failing")
    antonym_polar: set[str] = set()
    last_negation = -1  # the raw position of the open clause's last negation word
    rejected_before: set[str] = set()  # the alternatives rejected before the open clause
    owners: list[int] = []  # per concept: where the code span it is a word of begins
    span_start = 0
    negation_step = 0  # what it added to ``negations``
    condition_at = -1  # where a condition opened inside the open clause ("... when no more X")
    scope_left = 0  # tokens still narrowed by a "for" ("for the Spanish properties")
    index = 0
    while index < len(raw):
        token = raw[index]
        lower = token.lower()
        following = raw[index + 1].lower() if index + 1 < len(raw) else ""
        index += 1
        clause_words += 1
        opener = lower if clause_words == 1 else opener
        in_span = span_left > 0
        span_left = max(0, span_left - 1)
        in_parts = parts_left > 0
        parts_left = max(0, parts_left - 1)
        in_scope = scope_left > 0
        scope_left = SCOPE_REACH if lower in SCOPE_PREPOSITIONS else max(0, scope_left - 1)
        if token.startswith("`"):
            span_left = len(_inner_words(token))
            span_start = len(concepts)
        elif not in_parts:
            parts_left = len(_inner_words(token))
        concept: str | None = None
        # "not deleted", "instead of being removed": the negation and the word that negates
        # cancel out ("kept"), so neither flips
        double = (
            last_negation >= 0
            and not (in_span or token.startswith("`"))
            and lower in REJECTED_AFTER
            and _after_negation(raw, index - 1) == last_negation
        )
        if double:
            flips -= 1
            pending = pending[:-1]
            negations -= negation_step
            negation_at.discard(max(negation_at, default=-1))
            negate_next = 0
            last_negation = -1
        if token == _BREAK:
            condition_at = -1
            if last_span:
                reading.ends.add(last_span)
            last_span = None
            clause_words = 0
            _key_values(reading, keys, values, clause_start)
            if negations == 11:  # one negation and "without": "don't X without Y" is "Y first"
                flips -= 2
                pending = [p for p in pending if p[0] not in negation_at]
                required = reading.rejected - rejected_before  # "no `terraform apply` without"
                reading.rejected -= required
                reading.chosen |= required
            elif (
                negations in (1, 10)  # "never" or "without": "without a filter ... fail"
                and len(antonym_at) == 1
                and min(antonym_at) > min(negation_at)
                and flips == 1 + len(antonym_polar)  # nothing else flips in the entry so far
            ):
                flips = 0  # "don't merge with failing tests" is "merge with passing tests"
                pending = []
                reading.polar -= antonym_polar
            antonym_at = set()
            antonym_polar = set()
            rejected_before = set(reading.rejected)
            negations = 0
            negation_at = set()
            last_negation = -1
            _governed(reading, keys, pending, clause_start)
            pending = []
            values = []
            negate_next = 0
            clause_start = len(concepts) + 1
            prefers = False
            reading.clauses.append(set())
        elif token.startswith(_VALUE):
            values.append((len(concepts), token[1:]))
        elif (
            lower in REJECTED_AFTER
            and not token.startswith("`")
            and following not in PROCESS_STEP
            and not double
        ):
            named = _rejected_subject(concepts[clause_start:])
            flips += 1
            pending.append((len(concepts), _CLAUSE_REACH))
            reading.rejected |= named
            reading.chosen -= named
            if lower not in NEGATIONS:
                concept = _concept(token)[0]
                reading.polar.add(concept or lower)
            else:
                negate_next = NEGATION_REACH
        elif lower == "not" and following in ("only", "just", "merely"):
            index += 1  # "not only X but every Y" widens a rule: no negation, no restriction
            universal = UNIVERSAL_REACH
        elif lower in UNIVERSAL and not in_span and not following.startswith(_VALUE):
            # "every 15 minutes" ("cada 15 minutos") is a rate; `any` (a type) quantifies nothing
            universal = UNIVERSAL_REACH
        elif lower == "once" and clause_words == 1:
            pass  # "Once a branch is merged, ..." is a conjunction, not the number 1
        elif lower in RESTRICTIVE and following in CONDITIONS:
            pass  # "merged only after two approvals" is "needs two approvals before merge"
        elif (
            lower in NEGATIONS
            and following in ORDER_WORDS
            and (raw[index + 1] if index + 1 < len(raw) else _BREAK) == _BREAK
        ):
            pass  # "committed after the write, never before": the order said twice
        elif lower in RESTRICTIVE:
            flips += 1  # "only via codegen" forbids every other way, like "never by hand"
            pending.append((len(concepts), _ONLY_REACH))
        elif (
            (lower, following) in NEGATION_PAIRS
            or (
                lower in NEGATIONS
                and not (lower in HALTS and not following.endswith("ing"))
                and not (lower == "no" and portuguese)  # "revisado no PR": "in the PR"
            )
            or lower.endswith("n't")
            or (prefers and lower == "over")
        ):
            flips += 1
            previous = raw[index - 2].lower() if index >= 2 else ""
            verbal = lower.endswith("n't") or previous in AUXILIARIES
            verbal = verbal or (lower == "not" and len(concepts) > clause_start)
            negation_step = 1 if lower == "without" else 10  # one negation, then "without"
            negations += negation_step
            negation_at.add(len(concepts))
            last_negation = index - 1
            if condition_at >= 0:  # "retire it when no more X flows": the condition's words
                pending.append((condition_at, _CONDITION_REACH))
            else:
                pending.append((len(concepts), _CLAUSE_REACH if verbal else _AFTER_REACH))
            negate_next = NEGATION_REACH
            index += (lower, following) in NEGATION_PAIRS
            if (lower.endswith("n't") or previous in AUXILIARIES) and opener not in CONDITIONAL:
                # "`cross` isn't installed" rejects `cross`; "if LaunchDarkly can't be
                # contacted, ..." is a condition: it rejects nothing
                # the last two words, or the command in backticks they are words of
                subject = max(clause_start, min(owners[len(concepts) - 2 :], default=0))
                _reject_subject(reading, concepts[subject:])
        else:
            if lower in CONDITIONAL and clause_words > 1:  # "clear it if X doesn't show"
                condition_at = len(concepts)
            prefers = prefers or lower in PREFER
            if lower in PREPOSITIONS and negate_next < NEGATION_REACH:
                negate_next = 0
                qualify = QUALIFIER_SPAN if lower in LOCATIVES else 0
            concept, weight = _concept(token)
            previous = raw[index - 2].lower() if index >= 2 else ""
            if clause_words == 1 and following.isalpha():
                previous = "the"  # "2024 invoices are archived": the invoices of that year
            if concept is not None and _year(lower, previous):
                # "the 2025 workshop": the event's year; "In 2024 the train left ...": the period's
                opening = index == 2 and previous in YEAR_OPENERS
                if previous in YEAR_DETERMINERS or opening:
                    reading.years.add(lower)
                concept = None  # "provisioned in 2026": a date, not a value of the setting
            if concept is not None and _CLOCK_TIME.match(concept):  # "02:00" is a time of day
                values.append((len(concepts), concept[1:] + "clock"))
                concept = None
            elif (
                concept is not None
                and _VERSION.match(concept)
                and not _version_name(lower, previous, following)
            ):
                value = _TRAILING_ZEROS.sub("", _WILDCARD.sub("", concept).lstrip("v").rstrip("%+"))
                values.append((len(concepts), value + _counted(following)))
                concept = None
            elif concept is not None:
                state = lower in NEGATED_STATES or _stem(lower) in NEGATED_STATES
                if not in_span and state and not _object_state(raw, index - 1):
                    antonym_at.add(len(concepts))
                if double:  # "not deleted": a state both negated, said all the same
                    reading.polar.add(concept)
                if _antonym(lower) and not (in_span or double):  # `unsafe` negates nothing
                    if lower in NEGATED_STATES:
                        antonym_polar.add(concept)
                    reading.polar.add(concept)
                    flips += 1
                    previous = raw[index - 2].lower() if index >= 2 else ""
                    # "auto-commit is off": the state said of the clause's subject negates it
                    stated = lower in SWITCHED_OFF and previous in AUXILIARIES
                    stated = stated or lower in SWITCHED_OFF_ABROAD
                    pending.append((len(concepts), _CLAUSE_REACH if stated else _OWN_REACH))
                _note_choice(reading, concept, negate_next > 0, command=in_span)
                if not in_parts:  # "system-installed gradle": the parts are one word
                    negate_next = max(0, negate_next - 1)
                if concept in EDIT_VERBS:
                    negate_next = 0
                if not token.startswith("`") or weight > 1.0:
                    reading.weights[concept] = max(reading.weights.get(concept, 0.0), weight)
                    reading.clauses[-1].add(concept)
                if token.startswith("`"):
                    last_span = concept
                elif not (in_span or in_parts):
                    last_span = None  # "a `created_at` column": the span is no value
                if token.startswith("`") and concept not in _MEMBERS:
                    reading.spans.add(concept)
                if weight >= 1.0 and (in_span or _names_something(token, concept, clause_words)):
                    reading.anchors.add(concept)
                if qualify and weight >= 1.0 and concept not in _JOBS:
                    reading.qualifiers.add(concept)
                qualify = max(0, qualify - 1)
                key = concept if weight >= 1.0 and concept not in _JOBS else None
                if key and keys and keys[-1] and keys[-1] != key and not (in_span or in_parts):
                    reading.modifiers.setdefault(key, set()).add(keys[-1])
                if key and len(keys) >= 2 and not keys[-1] and keys[-2] and previous in OF_WORDS:
                    reading.of_heads[key] = keys[-2]  # "los pedidos de México"
                keys.append(key)
                if key and in_scope:
                    reading.scoped.add(key)
                if key and len(reading.clauses) == 1 and not any(keys[:-1]):
                    _note_opening(reading, token, key, clause_words, universal=universal > 0)
                if key and len(reading.clauses) == 1 and len(reading.opening) < OPENING_WORDS:
                    reading.opening += (key,)
                if universal and key:
                    reading.universal.add(key)
                    # the parts of a compound are the word already counted ("Varje P1-larm":
                    # the class noun is "larm"), so they spend none of the universal's reach
                    universal -= 0 if in_parts else 1
                owners.append(span_start if in_span or token.startswith("`") else len(concepts))
                concepts.append(concept)
                continue
        keys.append(None)
        owners.append(span_start if in_span or token.startswith("`") else len(concepts))
        concepts.append(concept)
    reading.chosen -= reading.rejected
    reading.sequence = [key for key in keys if key]
    reading.negated = flips > 0
    if reading.supersedes:  # what a change note says changed: the clauses that say so
        marked = [i for i, c in enumerate(clauses) if _SUPERSEDES.search(c)]
        for i in marked or range(len(clauses)):  # struck-through text: the whole entry
            reading.changed |= reading.clauses[i]
    reading.order = _order(concepts, [t.lower() for t in raw])
    return reading


_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_ACRONYM = re.compile(r"^(?=(?:[^A-Z]*[A-Z]){2})[A-Z][A-Za-z0-9]{2,5}$")  # GKE, IaC, GA4
_ACRONYM_PLURAL = re.compile(r"^[A-Z]{2,}s$")
_CAMEL = re.compile(r"[A-Z][a-z0-9]*")
CONNECTORS = _words("of and for as in to")
INITIALS_SPAN = 5  # words an initialism may stand for


def _read_initials(reading: Reading, clauses: list[str]) -> None:
    """The initialisms an entry writes ("GKE", "IaC", "TRT"; three letters or more: "CI" is
    also "container images") and the ones its words spell ("Google Kubernetes Engine",
    "infrastructure as code", "TensorRT"), so an entry that writes a term short meets one
    that writes it in full, whatever the term."""
    for clause in clauses:
        words = _WORD.findall(clause)
        for word in words:
            concept = _concept(word)[0]
            if concept is None:
                continue
            if _ACRONYM.match(word) or word in CAPITAL_CODES:  # "DE": Germany, or two words
                letters = "".join(ch for ch in word.lower() if ch.isalpha())
                if _ACRONYM_PLURAL.match(word):  # "RSEs", "VMs": the initials without the "s"
                    letters = letters[:-1]
                reading.acronyms[letters] = concept
            capitals = _CAMEL.findall(word)
            if len(capitals) >= 2 and word[0].isupper() and not word.isupper():
                reading.initials["".join(c[0] for c in capitals).lower()] = frozenset({concept})
        for start in range(len(words)):
            if words[start].lower() in CONNECTORS:
                continue
            _spell(reading, words[start : start + INITIALS_SPAN])


ARTICLES = _words("the a an")  # left out of an initialism, connectors kept: "HIL", "hardware
# in the loop"


def _spell(reading: Reading, words: list[str]) -> None:
    """The initials of each run of ``words`` from its first, with and without connectors
    ("infrastructure as code" is "iac" and "ic"), and without articles only ("hardware in the
    loop" is "hil")."""
    full = short = plain = ""
    concepts: set[str] = set()
    for count, word in enumerate(words, start=1):
        lower = word.lower()
        full += lower[0]
        plain += "" if lower in ARTICLES else lower[0]
        if lower not in CONNECTORS:
            short += lower[0]
            concept = _concept(word)[0]
            if concept is not None:
                concepts.add(concept)
        if count >= 2 and lower not in CONNECTORS and len(concepts) >= 2:
            for letters in {full, short, plain}:
                reading.initials.setdefault(letters, frozenset(concepts))


def _initialisms(a: Reading, b: Reading) -> tuple[float, int]:
    """The weight an entry's initialism shares with the words the other spells it with, and
    how many such terms: an initialism the other entry also writes counts once already."""
    found = 0.0
    count = 0
    for short, long in ((a, b), (b, a)):
        for letters, concept in short.acronyms.items():
            words = long.initials.get(letters, _NOTHING) - short.weights.keys()
            if concept in long.weights or not words:
                continue
            spelled = sum(long.weights.get(w, 0.0) for w in words)
            found += (short.weights.get(concept, 0.0) + spelled) / 2
            count += 1
    return found, count


NEGATION_REACH = 3  # concepts a negation governs for the choices
# What a polarity flip governs: the rest of its clause ("never X"), its whole clause ("X is
# banned"), or its own concept (an antonym: "disable" is "not enable").
_AFTER_REACH = "after"
_ONLY_REACH = "only"  # as "after", but a restriction ("only via codegen"), not a negation
_CLAUSE_REACH = "clause"
_CONDITION_REACH = "condition"  # a negation inside a condition: the condition's words only
_OWN_REACH = "own"
# Words before a negation that make it negate its whole clause ("`os.path` is not allowed").
AUXILIARIES = _words(
    """is are was were be been am must should shall may can could will would do does did has
    have had"""
)


def _rejected_subject(clause: list[str | None]) -> set[str]:
    """The alternatives a rejection word after them rejects ("Jenkins is gone", "`requests`
    is banned", "jest configs were removed"): those named in the clause so far, unless a
    concept of full weight follows the last of them that is neither a job nor the tool's own
    artefact ("the Gradle *daemon* is disabled" rejects the daemon, not Gradle)."""
    named = {c for c in clause if c in _MEMBERS}
    last = max((i for i, c in enumerate(clause) if c in _MEMBERS), default=-1)
    after = [c for c in clause[last + 1 :] if c and c not in _JOBS and c not in TOOL_ARTEFACTS]
    return set() if after else named


# What a tool brings along: removing it removes the tool ("jest configs were removed").
TOOL_ARTEFACTS = frozenset(
    _stem(word) if word not in SYNONYMS else SYNONYMS[word]
    for word in _words(
        """config configs configuration dependency dependencies plugin plugins package
        packages setup support integration integrations file files job jobs step steps usage"""
    )
)


# A thing said to be gone ("Jenkins was shut down", "UA is dead", "Node 18 is EOL", "Xavier
# NX phased out"): what stands before the words, in their clause, is no longer in use.
_RETIRES = re.compile(
    r"\b(?:(?:was|were|is|are|been|got|has been|have been)\s+)?(?:shut down|phased out"
    r"|(?:is|are|was|were) (?:dead|eol|end[- ]of[- ]life|gone)|cancell?ed|archived|killed"
    r"|ripped out|decommissioned|retired|sunset(?:ted)?|deprecated|removed"
    r"|(?:was|were|is|are|been|got) closed)\b",  # "the PagerDuty account was closed"
    re.IGNORECASE,
)
# Where the retired thing's name starts: the last clause end or comma before the words.
_RETIRED_START = re.compile(r".*(?:[,;:(\u2014\u2013]|\s-\s|(?<=\S)\.\s)", re.DOTALL)
# What a tool comes with: retiring "the ELK stack" or "the Envoyer subscription" retires ELK.
RETIRED_ARTEFACTS = TOOL_ARTEFACTS | frozenset(
    _stem(word) if word not in SYNONYMS else SYNONYMS[word]
    for word in _words(
        """stack subscription server servers instance instances account license vm box host
        old legacy whole entire our"""
    )
)


def _retirements(text: str) -> list[tuple[frozenset[str], frozenset[str]]]:
    """What an entry says is gone: per retirement phrase, the concepts of full weight and the
    values written right before it in its clause ("Since Jan 2024 we deploy via Forge; the
    Envoyer subscription was cancelled": Envoyer), the tool's artefacts left out."""
    found = []
    for match in _RETIRES.finditer(text):
        before = text[: match.start()]
        opening = _RETIRED_START.match(before)
        subject = read(before[opening.end() :] if opening else before, head=False)
        names = frozenset(_strong(subject) - RETIRED_ARTEFACTS - _JOBS)
        if names:
            found.append((names, frozenset(subject.numbers)))
    return found


_GONE = "one note says what the other uses is gone"
RETIRED_NAMES = 3  # at most this many subjects before the words: a short name, not a sentence


def _retired_conflict(a: Reading, b: Reading) -> Relation | None:
    """One entry says a thing is gone, the other uses it ("ELK was shut down last March"
    against "Application logs are shipped to our ELK stack"): the other entry names every
    subject and value of what is gone, one of them a name (a tool, a proper noun, code: "feature
    flags are removed after rollout" retires no particular thing), and the other entry
    negates, retires or changes nothing itself."""
    for note, plain in ((a, b), (b, a)):
        if plain.retired or plain.supersedes or plain.negated:
            continue
        for names, values in note.retired:
            if (
                len(names) <= RETIRED_NAMES
                and names & (note.anchors | plain.anchors | note.spans | plain.spans)
                and names <= plain.weights.keys()
                and values <= plain.numbers
            ):
                return Relation(CONTRADICTION, 1.0, _GONE)
    return None


def _reject_subject(reading: Reading, subject: list[str | None]) -> None:
    """The alternatives named right before a negated verb are rejected ("FASTBuild isn't
    installed on agents")."""
    named = {c for c in subject if c in _MEMBERS}
    reading.rejected |= named
    reading.chosen -= named


def _names_something(token: str, concept: str, position: int) -> bool:
    """Whether a token names a particular thing (a tool of the lexicon, a code span or
    identifier, a proper noun or acronym) rather than saying something about it."""
    if token.startswith("`") or concept in _TOOLS:
        return True
    inner = token[1:]
    return any(c.isupper() or c.isdigit() or c in "._/" for c in inner) or (
        token[:1].isupper() and position > 1
    )


# A code identifier written without backticks: a dotted, snake_case or slashed name
# ("payments.captured_at", "settlement_day", "api/v2").
_IDENTIFIER = re.compile(r"[a-z0-9][._/][a-z]|[a-z0-9]_[a-z0-9]", re.IGNORECASE)


def _note_opening(
    reading: Reading, token: str, key: str, position: int, *, universal: bool
) -> None:
    """What an entry opens with, read at its first subject: a particular thing (a code
    identifier: "`payments.captured_at` is a UTC `timestamptz`") or a class of things (a
    plural common noun or a quantified one: "Timestamps are `timestamptz` in UTC", "All
    services run Java 21"). A case of a rule and the rule itself both hold (see
    :func:`_case_of_rule`)."""
    head = token.strip("-").rsplit("-", 1)[-1]
    if token.startswith("`") or _IDENTIFIER.search(token):
        reading.instance = key
    elif universal and head != token.strip("-") and head.isalpha() and head.islower():
        reading.general = True  # "Varje P1-larm": a quantified compound ending in a class noun
    elif not _names_something(token, key, position) and (
        universal or (token.lower().endswith("s") and not token.lower().endswith("ss"))
    ):
        reading.general = True


def _governed(
    reading: Reading, keys: list[str | None], pending: list[tuple[int, str]], start: int
) -> None:
    """The key concepts each flip of a clause governs, kept on ``reading.flipped`` (a
    negation about something the other entry never names is no conflict with it: "main (not
    master)" against "the main branch is `main`")."""
    for position, reach in pending:
        if reach == _OWN_REACH:
            span = keys[position : position + 1]
        elif reach == _CLAUSE_REACH:
            span = keys[start:]
        elif reach == _CONDITION_REACH:
            span = keys[position:]
        else:  # the rest of the clause, or all of it when nothing follows ("fixed, never skipped")
            span = keys[position:] if any(keys[position:]) else keys[start:]
        governed = frozenset(key for key in span if key is not None)
        reading.flipped.append(governed)
        if reach != _ONLY_REACH:
            reading.negations.append(governed)
        else:
            reading.restricted |= governed


LOCATIVES = _words("in on inside within")
QUALIFIER_SPAN = 2
VALUE_BEFORE = 3  # a value is stated for this many concepts before it in its clause
VALUE_AFTER = 1  # and this many after it


def _counted(word: str) -> str:
    """The unit a bare number counts when a plural noun follows it ("500 steps", "3
    checkpoints"): values of different counted things never conflict."""
    if len(word) > 3 and word.isalpha() and word.endswith("s") and word not in STOPWORDS:
        return _stem(word)
    return ""


def _key_values(
    reading: Reading, keys: list[str | None], values: list[tuple[int, str]], start: int
) -> None:
    """The values one clause states, each under the concepts nearest it in that clause (its
    keys: "seed" in "Use seed 42 everywhere", "coverage" in "Coverage must stay above 75%");
    a clause closes with this call."""
    for position, value in values:
        reading.numbers.add(value)
        before = [key for key in keys[start:position] if key is not None][-VALUE_BEFORE:]
        after = [key for key in keys[position + 1 :] if key is not None][:VALUE_AFTER]
        for key in before + after:
            reading.values.setdefault(key, set()).add(value)


_BREAK = "\x00"
_VALUE = "\x01"
# Clause ends: a sentence stop, a semicolon or colon, a dash or bracket between words.
_CLAUSE = re.compile(
    r"`[^`\n]{1,80}`|(?<=\S)[.;!?](?=\s|$)|[()\u2014\u2013]|\s-\s"
    r"|[\u3002\uff01\uff1f\uff1b\uff08\uff09]"  # the full stop and brackets of CJK text: "。", "（"
)


def _clauses(text: str) -> list[str]:
    """The text cut at clause ends outside backticked spans."""
    parts: list[str] = []
    start = 0
    for match in _CLAUSE.finditer(text):
        if not match.group().startswith("`"):
            parts.append(text[start : match.start()])
            start = match.end()
    parts.append(text[start:])
    return parts


# Words after an alternative that reject it ("`requests` is banned", "Jenkins is gone").
REJECTED_AFTER = _words(
    """banned forbidden gone deprecated disallowed discouraged obsolete retired dropped
    abandoned replaced removed deleted dead disabled rejected no-go off-limits ripped yanked
    scrapped ditched sunset sunsetted decommissioned uninstalled"""
)
# A rejection word followed by when it happens ("BAM files are deleted once calling is done",
# "flags are removed after rollout") states a step of a process, not a thing rejected.
PROCESS_STEP = _words("after once when within before every each")
# ... and one right after a negation or a contrast ("quarantined, not deleted", "instead of
# being removed") states what does not happen to the subject, not that the subject is gone.
_NOT_BEFORE = _words("not never rather instead no")
_BEING = _words("being be been")


def _antonym(word: str) -> bool:
    """Whether a word flips the concept it names, directly ("disabled") or through the word
    it is a variant of ("synchronously" is "synchronous", "flushed" is "purged")."""
    return word in ANTONYMS or SYNONYMS.get(word, "") in ANTONYMS


OBJECT_ARTICLES = _words("a an the")
# Words before an article that make the state a circumstance of the action ("don't merge with
# a failing build"), not the thing acted on ("never retry a failed delivery").
CIRCUMSTANCE = _words("with on while when if during despite under")


def _object_state(raw: list[str], position: int) -> bool:
    """Whether the state word at ``position`` opens the object of a verb ("never retry a
    failed delivery": the failed deliveries are the ones never retried, no "retry passing
    deliveries"; train_pairs6's first measurement merged it with "Retry failed HL7 deliveries
    automatically"), so a negation before it is no negated failure."""
    if position < 2 or raw[position - 1].lower() not in OBJECT_ARTICLES:
        return False
    return raw[position - 2].lower() not in CIRCUMSTANCE


def _after_negation(raw: list[str], position: int) -> int:
    """The position of the negation or contrast ("not", "rather than", "instead of") right
    before the token at ``position``, "being" aside; -1 when there is none."""
    before = position - 1
    while before >= 0 and raw[before].lower() in _BEING:
        before -= 1
    if before < 0:
        return -1
    if raw[before].lower() in ("than", "of") and before >= 1:
        before -= 1
    word = raw[before].lower()
    return before if word in _NOT_BEFORE or word.endswith("n't") else -1


RESTRICTIVE = _words("only solely exclusively")
# Words that open a condition: a negated verb in it ("if the service can't be reached")
# says what happens when, not that the thing named is rejected.
CONDITIONAL = _words("if when whenever si wenn falls quand se jeśli gdy")
# "every", "all", "any", "each", and the same in the other languages a team's notes are written
# in ("todos los servicios", "alle Dienste", "chaque service", "ogni servizio", "każdy serwis");
# the Korean, Japanese and Chinese ones are read by :func:`_script_words` ("모든", "すべて",
# "全", "各", "所有", "每"). Italian "alle" is "at the" and "tout" mostly "quite": left out. A
# universal read where none is only keeps entries apart (it never proposes anything).
UNIVERSAL = _words(
    """every all any each todos todas toda cada cualquier cualquiera allen aller alles jede
    jeder jedes jeden jedem sämtliche tous toutes chaque tutti tutte ogni qualsiasi qualunque
    qualquer wszystkie wszystkich wszystko każdy każda każde elke iedere alla varje mọi mỗi
    setiap semua seluruh tüm bütün все всех всё каждый каждая каждое любой"""
)
UNIVERSAL_REACH = 2  # "every feature branch": the next two concepts
CONDITIONS = _words("after before once when if until")  # "only after X": X is required first
ORDER_WORDS = _words("after before first")  # "never before", closing a clause, restates an order
# Negations only before a gerund ("stop using X"); "stop the server first" is an action.
HALTS = _words("stop stopped")
# Verbs that act on a thing rather than use it: a negation before them does not reject the
# alternative after them ("never edit the Flyway script" rejects no Flyway).
EDIT_VERBS = _words("edit keep commit send store verify")
PREFER = _words("prefer prefers preferred favour favor favours favors")
_NUMBER_WORD = re.compile(r"\b(" + "|".join(NUMBER_WORDS_RE) + r")\b", re.IGNORECASE)


# "TypeScript, not JS": the "not" after a comma rejects what follows it, not the clause before
# it (read as "rather than"); "..., not allowed" and "..., not only" still negate the clause.
_NOT_AN_ALTERNATIVE = (
    r"(?:to|be|ok|okay|allowed|needed|required|necessary|recommended|supported|only|just|even|"
    r"all|every|any|always|ever|yet|anymore|used|enabled)\b"
)
_CONTRAST = re.compile(r",\s*not\s+(?!" + _NOT_AN_ALTERNATIVE + ")", re.IGNORECASE)


# "Use pnpm, not npm, for installs": the alternative set aside between commas; read as "Use pnpm
# for installs, not npm", so the "not" rejects npm, not the installs the sentence goes on about
_SET_ASIDE = re.compile(
    r"(?P<head>[^,;:.]+?),\s*not\s+(?!" + _NOT_AN_ALTERNATIVE + r")(?P<alt>[^,;:.]{1,40}?),\s*"
    r"(?P<rest>(?!\s*(?:but|and|or|so|nor)\b)[^,;:]+?)(?=[.;!]?\s*$)",
    re.IGNORECASE,
)


# "Use pnpm instead of npm for installs": the alternative named mid-sentence, read as "Use pnpm
# for installs instead of npm", so the contrast rejects npm, not the installs
_ALTERNATIVE_MID = re.compile(
    r"(?P<head>[^,;:.]+?)\s+(?P<contrast>instead\s+of|rather\s+than|over)\s+(?P<alt>[\w`@/+-]+)\s+"
    r"(?P<rest>(?:for|when|during)\s[^,;:]+?)(?=[.;!]?\s*$)",
    re.IGNORECASE,
)


def _number_words(text: str) -> str:
    """Number words as digits before quantities are read ("two minutes" is "2 minutes", "one
    year" and "a day" are "1 year" and "1 day", "half a second" is "0.5 second",
    "twenty-four hours" is "24 hours")."""
    text = _HALF_UNIT.sub(lambda m: "0.5 " + m.group(1), text)
    text = _COMPOUND_NUMBER.sub(_compound_number, text)
    text = _ONE_UNIT.sub(lambda m: "1 " + m.group(1), text)
    return _NUMBER_WORD.sub(lambda m: NUMBER_WORDS[m.group(1).lower()], text)


YEAR_BEFORE = _words(
    """in since from until till by of before after during q1 q2 q3 q4 jan feb mar apr may jun
    jul aug sep sept oct nov dec january february march april june july august september
    october november december spring summer autumn fall winter"""
)


# "the 2025 workshop", "our 2024 paper": a year before the thing it dates.
YEAR_DETERMINERS = _words("the our a this that last next")
# An entry opening with "In 2024" or "During 2025" says what held that year: two entries each
# dated to a different year are two periods ("In 2024 the release train left every three
# weeks" against "In 2025 the train left every two weeks"), no contradiction, no merge.
YEAR_OPENERS = _words("in during")


_V_NUMBER = re.compile(r"^v\d+$")


def _version_name(word: str, previous: str, following: str) -> bool:
    """A version that names a thing by the word after it ("the v1 API", "v2 webhooks"): a
    scope of the rule, no value of a setting ("Node v18 is required", "HL7 v2 parsing" state
    one of the name before it)."""
    return (
        bool(_V_NUMBER.match(word))
        and (previous in STOPWORDS or previous in ("", _BREAK.lower()))
        and following.isalpha()
        and following not in STOPWORDS
    )


def _year(word: str, previous: str) -> bool:
    """A year after "in", "since", "Q1"... ("in 2026"), or naming an event ("the 2025
    workshop", "our 2024 paper"): when something happened, never the value of a setting
    ("Unity 2022.3" keeps its dot and stays a version)."""
    return (
        previous in YEAR_BEFORE | YEAR_DETERMINERS
        and len(word) == 4
        and word.isdigit()
        and "1990" <= word <= "2099"
    )


def _compound_number(match: re.Match[str]) -> str:
    """ "twenty-four" as "24"."""
    tens, units = (NUMBER_WORDS[match.group(i).lower()] for i in (1, 2))
    return str(int(tens) + int(units))


_HALF_UNIT = re.compile(
    r"\bhalf\s+(?:an?\s+)?(second|minute|hour|day|week|month|year)\b", re.IGNORECASE
)
_COMPOUND_NUMBER = re.compile(
    r"\b(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)[\s-]"
    r"(one|two|three|four|five|six|seven|eight|nine)\b",
    re.IGNORECASE,
)
_ONE_UNIT = re.compile(
    r"\b(?:one|an?)\s+(second|minute|hour|day|week|month|year)\b",
    re.IGNORECASE,
)


# Common engineering words in Spanish, French, German, Portuguese, Italian and Polish, read as
# the English word, so a rule written in two languages meets on its words (a glossary written
# from general usage; a few of its words, "subir", "desarrollo", "nutzen", "après", "fichiers",
# also occur in labelled pairs read while writing it). Negations, "only" and words with a second
# sense in English ("tag", "usa", "principal", "nova", "compiler", "prove") are left out, and so
# are words of polarity ("supprimé", "gelöscht"): read here, they would lose the sign their
# English words carry.
_GLOSSARY = {
    "after": "después après nach depois dopo",
    "before": "antes avant vor prima przed",
    "always": "siempre toujours immer sempre zawsze",
    "file": "archivo archivos fichier fichiers datei dateien arquivo arquivos plik pliki",
    "main": "principale haupt główny",
    "use": "usar usan utiliser utilise utilisent nutzen nutzt verwenden verwendet "
    "usare usiamo używać używamy",
    "development": "desarrollo développement entwicklung desenvolvimento sviluppo",
    "production": "producción produção produzione produkcja",
    "upload": "subir hochladen téléverser carregar caricare",
    "deploy": "desplegar déployer deployen implantar",
    "test": "prueba pruebas teste testes prova",
    "build": "compilar bauen compilare",
    "day": "día días jour jours dia dias giorno giorni dzień dni",
    "week": "semana semanas semaine semaines woche wochen settimana tydzień",
    "hour": "hora horas heure heures stunde stunden ora ore godzina godziny",
    "minutes": "minutos minuti minut minuty",
    "seconds": "segundos secondes sekunden secondi sekund sekundy",
    "database": "datenbank",
    "user": "usuario usuarios utilisateur utilisateurs benutzer nutzer usuário usuários "
    "utente utenti użytkownik",
    "error": "errores erreur erreurs fehler erro erros errore errori błąd błędy",
    "change": "cambio cambios changement changements änderung änderungen mudança mudanças "
    "modifica modifiche zmiana zmiany",
    "new": "nuevo nueva nuevos nouveau nouvelle neu neue novo nuovo nuova nowy nowa",
    "version": "versión versiones versionen versão versões versione wersja",
    "key": "clave clé schlüssel chave chiave klucz",
    "password": "contraseña passwort senha hasło",
    "server": "servidor serveur servidores serwer",
    "backup": "respaldo sauvegarde sicherung",
    "log": "registro registros journal protokoll registo",
    "request": "solicitud petición requête anfrage requisição richiesta żądanie",
    "response": "respuesta réponse antwort resposta risposta odpowiedź",
    "image": "imagen imágenes bild imagem immagine obraz",
    "web": "웹 webowa webowy webowe webowej",
    # Swedish and Finnish write the definite form as an ending ("larmet": the alert)
    "alert": "larm larmet larmen hälytys hälytykset",
}
WORDS_ABROAD = {
    form: english
    for english, forms in _GLOSSARY.items()
    for form in forms.split()
    if form != english
}


# Country and region codes that are also function words ("us", "de", "es", "it", "in"), read as
# the country when written in capitals.
CAPITAL_CODES = frozenset({"US", "DE", "ES", "IT", "AT", "BE", "IN", "PT", "NL", "CH"})
# Prepositions that name whom or what a rule is for ("for German hotels", "für spanische
# Objekte", "pour les hôtels", "para propiedades", "per i clienti", "voor klanten", "dla
# klientów"): the words after them narrow the rule's subject (Japanese "X向け" is read as one).
SCOPE_PREPOSITIONS = _words("for für pour para per voor dla")
OF_WORDS = _words("of de di da del della des du von z")  # "pedidos de México", "dla klientów z"
SCOPE_REACH = 3  # tokens after such a preposition that it narrows ("for the Spanish properties")
_FOR_JAPANESE = re.compile(r"([\u4e00-\u9fff\u30a0-\u30ff]+)向け")


def _concept(token: str) -> tuple[str | None, float]:
    """The concept a token names and its weight (``None`` for filler)."""
    if token.startswith("`"):
        inner = token.strip("`").strip().lower().lstrip("-").removesuffix("()").strip(".,;:/")
        if not inner or " " in inner:
            return None, 0.0  # a command in backticks is read by its words, as it would be bare
        return (inner if inner in _MEMBERS else SYNONYMS.get(inner, inner)), 1.5
    if token == "Go":
        return "go", 1.0
    if token in CAPITAL_CODES:  # "US customers", "the DE region": a country, no "us", no "de"
        return token.lower(), 1.0
    lower = token.lower().strip("'.-/").removesuffix("'s")
    if not lower or lower in STOPWORDS:
        return None, 0.0
    lower = WORDS_ABROAD.get(lower, lower)
    if lower in STOPWORDS:  # "immer" is "always", filler in either language
        return None, 0.0
    if lower in NUMBER_WORDS:
        return NUMBER_WORDS[lower], 1.0
    if _VERSION.match(lower):
        return lower, 1.0
    if lower in ANTONYMS:
        return ANTONYMS[lower], 1.0
    concept = SYNONYMS.get(lower) or _stem(lower)
    concept = SYNONYMS.get(concept, ANTONYMS.get(concept, concept))
    if concept in STOPWORDS:
        return None, 0.0
    weight = (
        0.4
        if concept in WEAK or lower in WEAK
        else 1.2
        if ("/" in concept or "_" in concept)
        else 1.0
    )
    return concept, weight


_MEMBERS = frozenset(m for group in CHOICE_GROUPS for m in group)
# Jobs whose alternatives are ways of writing, not named tools ("squash", "tab", "float").
STYLE_JOBS = _words(
    """number-type indentation quote-style merge-strategy naming-case time-zone time-format
    call-style import-style sort-order error-style delete-style component-style db-access
    log-output pagination branching api-errors default-branch precision id-type session-token
    repo-layout api-style weekday"""
)
_TOOLS = frozenset(m for job, group in CHOICE_JOBS.items() if job not in STYLE_JOBS for m in group)
_NOTHING: frozenset[str] = frozenset()
_SCOPES = frozenset(m for group in SCOPE_GROUPS for m in group)


def _note_choice(reading: Reading, concept: str, negated: bool, *, command: bool) -> None:
    """An alternative named (chosen, or rejected when a negation governs it), or a scope; a
    word of a command in backticks (`` `make html` ``) is an argument, not a scope."""
    if concept in _MEMBERS:
        (reading.rejected if negated else reading.chosen).add(concept)
        for job in _JOB_OF[concept]:
            reading.weights[job] = max(reading.weights.get(job, 0.0), JOB_WEIGHT)
    if concept in _SCOPES and not command:
        reading.scopes.add(concept)


def _order(concepts: list[str | None], lowered: list[str]) -> set[tuple[str, str]]:
    """``(earlier, later)`` concept pairs from "A before B", "B after A", "A, then B"."""
    pairs: set[tuple[str, str]] = set()
    for index, word in enumerate(lowered):
        if word not in ("before", "after", "then"):
            continue
        left = [c for c in concepts[max(0, index - 5) : index] if c and c != "first"]
        right = [c for c in concepts[index + 1 : index + 6] if c]
        for a in left[-3:]:
            for b in right[:3]:
                if a != b:
                    pairs.add((b, a) if word == "after" else (a, b))
    return pairs


class Relation(Record):
    """The verdict on a pair: ``kind`` (duplicate, contradiction), ``score`` and ``reason``."""

    __slots__ = ("kind", "reason", "score")

    def __init__(self, kind: str, score: float, reason: str) -> None:
        self.kind = kind
        self.score = score
        self.reason = reason


def _shared(a: Reading, b: Reading, leave_out: frozenset[str]) -> tuple[float, float, float, float]:
    """Weights of the shared concepts, of ``a``'s and ``b``'s, and the shared count."""
    small, large = (
        (a.weights, b.weights) if len(a.weights) <= len(b.weights) else (b.weights, a.weights)
    )
    shared = 0.0
    count = 0
    for key, weight in small.items():
        other = large.get(key)
        if other is not None and key not in leave_out:
            shared += min(weight, other)
            count += 1
    return shared, _total(a, leave_out), _total(b, leave_out), float(count)


def _total(reading: Reading, leave_out: frozenset[str]) -> float:
    """The weight of an entry's concepts outside ``leave_out`` (computed once per set)."""
    key = id(leave_out)
    cached = reading.totals.get(key)
    if cached is None:
        cached = sum(w for k, w in reading.weights.items() if k not in leave_out)
        reading.totals[key] = cached
    return cached


def _conflicting_choice(a: Reading, b: Reading) -> tuple[str, str] | None:
    """Two members of one group of alternatives, one chosen by each entry (or one chosen by
    one entry and rejected by the other)."""
    if not ((a.chosen or a.rejected) and (b.chosen or b.rejected)):
        return None
    for x in sorted(a.chosen & b.rejected):
        return x, "not " + x
    for x in sorted(b.chosen & a.rejected):
        return "not " + x, x
    for group in CHOICE_GROUPS:
        in_a, in_b = a.chosen & group, b.chosen & group
        if in_a and in_b and not (in_a & in_b) and not (in_a & b.rejected | in_b & a.rejected):
            return sorted(in_a)[0], sorted(in_b)[0]
    return None


def _different_scope(a: Reading, b: Reading, choice: tuple[str, str] | None) -> bool:
    """Both entries name a scope of one group and none in common (Go files, Python files);
    the alternatives in conflict are not scopes (YAML against TOML for the configuration)."""
    if not (a.scopes and b.scopes):
        return False
    picked = {side.removeprefix("not ") for side in choice} if choice else set()
    for group in SCOPE_GROUPS:
        in_a, in_b = (a.scopes & group) - picked, (b.scopes & group) - picked
        if in_a and in_b and not (in_a & in_b):
            return True
    return False


PART_SCOPE_SAID = 0.75  # how much of a placed rule, its place left out, the other must say


def _part_scope_containment(
    a: Reading, b: Reading, shared: float, weights: tuple[float, float]
) -> float:
    """The containment for the contradiction checks when one entry places its rule in a part
    ("Always use float64 for prices in the API layer.") and the other places its rule nowhere,
    so it holds everywhere ("Money is always integer cents (`int64`), never `float64`."): the
    part lies inside the other's scope, no separate scope, and the words that place it are
    left out of its weight (else they dilute what the two share below the bar). Only a part
    the other entry says nearly whole counts (:data:`PART_SCOPE_SAID`): a looser one paired
    duplicates and neighbours ("Dutch tenants: max 5 ...", "German tenants ... 4") in the
    labelled pairs. 0.0 when neither or both entries place their rule, or too little is
    shared."""
    best = 0.0
    for inner, outer, (weight_in, weight_out) in ((a, b, weights), (b, a, weights[::-1])):
        if not inner.qualifiers or outer.qualifiers:
            continue
        placing = sum(inner.weights.get(q, 0.0) for q in inner.qualifiers - outer.weights.keys())
        smaller = min(weight_in - placing, weight_out)
        if smaller > 0:
            best = max(best, shared / smaller)
    return best if best >= PART_SCOPE_SAID else 0.0


def _placed_apart(a: Reading, b: Reading) -> bool:
    """Each entry places its rule somewhere ("in the reporting service", "in the web app") and
    the places differ: rules for different parts, compatible."""
    return bool(a.qualifiers and b.qualifiers and not a.qualifiers & b.qualifiers)


def _same_keyed_value(a: Reading, b: Reading) -> bool:
    """Both entries state one value for a concept they share ("seed=1337", "seeds are fixed
    to 1337")."""
    return any(a.values[key] & b.values[key] for key in a.values.keys() & b.values.keys())


def _show(values: set[str]) -> str:
    return "/".join(sorted(values))


def _keyed_values_differ(a: set[str], b: set[str], limits: Limits) -> bool:
    """Two value sets stated for one concept that cannot both hold: values of one unit all
    different, or (``limits.bare_values``) bare numbers on one side against values of one unit
    on the other ("line length 88" against "lines up to 120 characters")."""
    if _numbers_differ(a, b):
        return True
    if not limits.bare_values or not (a and b):
        return False
    units_a, units_b = {_unit(v) for v in a}, {_unit(v) for v in b}
    if len(units_a | units_b) != 2 or "" not in units_a | units_b or units_a == units_b:
        return False
    return not {_magnitude(v) for v in a} & {_magnitude(v) for v in b}


def _magnitudes(values: set[str]) -> set[str]:
    """The numbers of values without the nouns they count ("20connec" → "20"); values with a
    unit of measure keep it ("900s")."""
    return {_magnitude(v) if _unit(v).isalpha() and len(_unit(v)) > 2 else v for v in values}


def _magnitude(value: str) -> str:
    """The number of a value without its unit ("120ch" → "120")."""
    unit = _unit(value)
    return value[: len(value) - len(unit)] if unit else value


def _value_conflict(a: Reading, b: Reading, limits: Limits = LIMITS) -> str:
    """A concept both entries give a value of one unit, the values all different ("seed 42"
    against "seed is 1337"); empty when none."""
    for key in sorted(a.values.keys() & b.values.keys()):
        if _keyed_values_differ(a.values[key], b.values[key], limits) and not (
            a.values[key] & b.numbers or b.values[key] & a.numbers
        ):  # a value the other entry states elsewhere ("API 26 (Android 8.0)") is no conflict
            return key
    return ""


def _distinct_identifiers(a: Reading, b: Reading) -> bool:
    """Each entry names a code identifier the other does not (``owner`` against
    ``cost_center``): two rules about different things, never one rule twice."""
    return bool(a.spans - b.weights.keys() and b.spans - a.weights.keys())


def _choices_of_other_jobs(a: Reading, b: Reading) -> bool:
    """Each entry chooses for a job the other does not speak of ("Use tabs for indentation
    in Go files" against "Use double quotes for strings in Go"): two choices, two rules."""
    jobs_a = {job for member in a.chosen | a.rejected for job in _JOB_OF[member]}
    jobs_b = {job for member in b.chosen | b.rejected for job in _JOB_OF[member]}
    return bool(jobs_a - b.weights.keys() and jobs_b - a.weights.keys())


def _case_of_rule(a: Reading, b: Reading) -> bool:
    """One entry opens with a particular thing the other does not name, the other with a
    class of things ("`payments.captured_at` is a UTC `timestamptz`" against "Timestamps are
    `timestamptz` in UTC"), or with a universal ("All Stripe calls use idempotency keys"
    against "`Payments::Capture` passes `idempotency_key: ...`": the class opens with a name,
    so it reads as no plain class; blind_pairs13's wrong deletion): a case of a general rule,
    or an exception to it. Both hold, so a merge, which keeps one, would delete either the
    rule or what it says of its case."""
    return (
        any(
            one.instance
            and (other.general or other.universal)
            and one.instance not in other.weights
            and one.instance not in other.text
            for one, other in ((a, b), (b, a))
        )
        or _quantified_case(a, b)
        or _named_member(a, b)
    )


# Types a value is stored or sent as: two entries each naming one the other does not
# ("Order IDs are strings" against "Order IDs are integers", "文字列" against "整数") say two
# things of one value, never one rule twice (whether or not they are rival choices).
VALUE_TYPES = _words("string integer float decimal boolean uuid ulid")


def _other_types(a: Reading, b: Reading) -> bool:
    """Each entry names a type of value the other does not."""
    types_a, types_b = a.weights.keys() & VALUE_TYPES, b.weights.keys() & VALUE_TYPES
    return bool(types_a - types_b and types_b - types_a)


def _quantified_case(a: Reading, b: Reading) -> bool:
    """One entry says something of every member of a class ("すべてのサービスはGKE上で動かす":
    every service runs on GKE), the other, quantifying nothing, of one member it names by a
    word the first never uses ("推薦サービスは...": the recommendation service): a rule and one
    case of it, both true, so a merge on their shared names would delete one (blind_pairs11's
    first measurement merged such a pair: "すべて" had been read as no word at all). However
    much detail the case adds ("The upgrade runbook ends with a rollback section describing
    how to restore the previous image tag" against "Every runbook has a 'Rollback' section"),
    when the word naming it stands before the class noun itself, not before a word that only
    modifies the class ("Los modelos dbt ..." against "Every dbt model ...": one rule in two
    languages); a member named before a modifier is one only while it adds few words."""
    return any(
        _names_member(other, one, _quantified_heads(one))
        or (
            _names_member(other, one, one.universal)
            and len(_own_words(other, one)) <= QUANTIFIED_CASE_OWN
        )
        for one, other in ((a, b), (b, a))
        if one.general and one.universal and not other.universal and other.opening
    )


def _named_member(a: Reading, b: Reading) -> bool:
    """One entry opens with a rule for every member of a class ("Every runbook has a
    'Rollback' section"), the other, quantifying nothing, speaks of one member it names by a
    name of its own (a tool, a proper noun, a code span) right before the class noun, or one
    word further ("The RabbitMQ upgrade runbook ends with a rollback section describing how
    to restore the previous image tag"): however much detail that case adds, a merge keeps
    one and deletes either the rule for every member or what the case adds (blind_pairs12's
    first measurement merged such a pair). A name the rule spells out ("JP" for "each JetPack
    version") names no member."""
    return any(
        _member_name(one, other)
        for one, other in ((a, b), (b, a))
        if one.general and one.universal and not other.universal
    )


def _member_name(one: Reading, other: Reading) -> bool:
    """Whether ``other`` names a class noun ``one`` quantifies with a name ``one`` never
    uses (nor spells out by its initials) right before it, or one word further, or with a
    code span right after it ("the Key Vault secret `hl7-mllp-cert-pass`" against "All
    secrets come from Key Vault": train_pairs6's first measurement merged them)."""
    for concept in one.universal & other.weights.keys():
        before = other.modifiers.get(concept, set())
        near = before | {w for word in before for w in other.modifiers.get(word, ())}
        if any(
            name in other.anchors and name not in one.weights and name not in one.initials
            for name in near
        ) or _span_after(other, concept, one):
            return True
    return False


def _span_after(other: Reading, concept: str, one: Reading) -> bool:
    """Whether a code span ``one`` never names stands right after ``concept`` in ``other``
    (a member named after its class noun: "the secret `hl7-mllp-cert-pass`")."""
    sequence = other.sequence
    return any(
        sequence[at + 1] in other.spans and sequence[at + 1] not in one.weights
        for at in range(len(sequence) - 1)
        if sequence[at] == concept
    )


OPENING_WORDS = 2  # the concepts an entry opens with, read as its subject


def _names_member(other: Reading, one: Reading, classes: set[str]) -> bool:
    """Whether ``other`` opens with a member of one of ``classes`` (what ``one`` quantifies):
    a word ``one`` never uses right before the class ("payments service", "推薦サービス",
    "支付服务") or the class and such a word ("servicio de pagos", "service de paiement")."""
    first = other.opening[0]
    if first not in one.weights and any(_modified_by(other, c, first) for c in classes):
        return True
    return (
        len(other.opening) == OPENING_WORDS
        and first in classes
        and other.opening[1] not in one.weights
    )


def _quantified_heads(one: Reading) -> set[str]:
    """The class nouns a universal quantifies, its modifiers left out ("every dbt model": the
    models, not dbt; "Los modelos dbt ..." names dbt models, not one member of them)."""
    return {
        concept
        for concept in one.universal
        if not any(concept in one.modifiers.get(other, ()) for other in one.universal)
    }


def _modified_by(reading: Reading, concept: str, word: str) -> bool:
    """Whether ``word`` stands right before ``concept`` in ``reading``, or one word further
    ("支付服务": Han characters read two at a time make "支付", "付服", "服务")."""
    before = reading.modifiers.get(concept, set())
    return word in before or any(word in reading.modifiers.get(b, ()) for b in before)


# How many words of its own the entry naming one member may add: more, and the two are not
# one sentence about a class and its member but two sentences apart (or two languages:
# "Every dbt model needs..." and "Los modelos dbt deben tener...", one rule twice).
QUANTIFIED_CASE_OWN = 3


def _own_words(one: Reading, other: Reading) -> set[str]:
    """The concepts ``one`` names that ``other`` does not (weak words left out)."""
    return {c for c, weight in one.weights.items() if weight >= 1.0 and c not in other.weights}


def _apart(a: Reading, b: Reading) -> bool:
    """Each entry states a value the other does not ("between 3 and 12 pods" against "min 3,
    max 20"), or one states a value for an environment the other does not name ("Production
    API rate limit: 100 req/s per key" against "rate limiting is per API key", "Backups are
    kept 7 days on staging" against "Backups are kept 7 days"): whichever copy a merge kept,
    a value, the general rule or its case would be gone."""
    magnitudes_a, magnitudes_b = _magnitudes(a.numbers), _magnitudes(b.numbers)
    if {_magnitude(v) for v in magnitudes_a - magnitudes_b} - {
        _magnitude(v) for v in magnitudes_b
    } and {_magnitude(v) for v in magnitudes_b - magnitudes_a} - {
        _magnitude(v) for v in magnitudes_a
    }:
        return True
    # a value and an environment ("Production API rate limit: 100 req/s") only one names,
    # whether or not the other states the value ("Kafka retention is 7 days on the staging
    # cluster" against "Kafka retention on `payments.events` is 7 days"); CI is a system the
    # rule may run on, not where it holds
    for one, other in ((a, b), (b, a)):
        if one.numbers and (one.scopes - other.scopes) & ENVIRONMENTS - {"ci"}:
            return True
    return False


def _opposed(a: Reading, b: Reading, *, firm: bool = False) -> bool:
    """One entry negates something the other names and the other does not (each side's
    negations counted only where they govern a concept the other entry names; with ``firm``,
    a restriction such as "only" opposes nothing, though it answers a negation: "must only
    change through codegen" against "never edit it by hand" is one rule)."""
    if not firm:
        return _negates_shared(a, b) != _negates_shared(b, a)
    return (_negates_shared(a, b, firm=True) and not _negates_shared(b, a)) or (
        _negates_shared(b, a, firm=True) and not _negates_shared(a, b)
    )


def _negates_shared(a: Reading, b: Reading, *, firm: bool = False) -> bool:
    """Whether a negation of ``a`` governs a concept ``b`` names."""
    return any(
        not (governed.isdisjoint(b.weights) and governed.isdisjoint(b.polar))
        for governed in (a.negations if firm else a.flipped)
    )


def _reversed_order(a: Reading, b: Reading) -> bool:
    return any((later, earlier) in b.order for earlier, later in a.order)


def relate(text_a: str, text_b: str, limits: Limits = LIMITS) -> Relation | None:
    """Whether two entries say the same thing, contradict each other, or neither."""
    return relate_readings(read(text_a), read(text_b), limits)


def _parallel_members(a: Reading, b: Reading, *, opening: bool = True) -> bool:
    """Both entries open with one noun, each narrowed by a name the other never uses ("The
    Lyon depot opens at 05:00" against "The Milan depot opens at 06:00", "APAC card payments
    go through Adyen" against "EU card payments go through Stripe"): rules for two members of
    a class, both true, so no contradiction (nor a merge). A plain word narrowing it ("Default
    cache TTL" against "Redis TTL") is often the same thing said another way, and a name after
    the verb ("runs on the Standard tier", "the Premium tier") is what the rules disagree on."""
    for concept in a.modifiers.keys() & b.modifiers.keys():
        own_a = a.modifiers[concept] - b.weights.keys()
        own_b = b.modifiers[concept] - a.weights.keys()
        own_a, own_b = own_a & a.anchors, own_b & b.anchors
        if opening:
            own_a, own_b = own_a & set(a.opening), own_b & set(b.opening)
        else:
            own_a, own_b = _full_names(own_a, b), _full_names(own_b, a)
        if own_a and own_b and bool(own_a & _TOOLS) == bool(own_b & _TOOLS):
            return True  # a tool against a plain name ("Flyway" against "DB") is a choice
    return False


def _slot_twins(a: Reading, b: Reading) -> tuple[str, str] | None:
    """The one word of its own each entry has, when it fills the same slot among the same
    words in the same order ("The web player uses HLS" against "The TV player uses HLS",
    "Booking records for Spanish properties" against "... for German properties"): the same
    said of two members, never one rule said twice. A short form and its spelling out ("RN
    app", "React Native app"; "DB", "database") are one word, and so are a thing's kind and
    its name ("database", "Postgres"); a synonym ("prod", "production") is one concept
    already."""
    found = _one_slot(a, b)
    if found is None:
        return None
    at, x, y = found
    seq_a = _folded(a)
    after = seq_a[at + 1] if at + 1 < len(seq_a) else ""
    before = seq_a[at - 1] if at else ""
    slot = (
        (x in a.modifiers.get(after, ()) and y in b.modifiers.get(after, ()))  # "web player"
        or (f"{x}-{after}" in a.weights and f"{y}-{after}" in b.weights)  # "Web-Player"
        or (before in a.modifiers.get(x, ()) and before in b.modifiers.get(y, ()))  # "tier X"
        or (x in a.scoped and y in b.scoped)  # "para hoteles en España"
        or (a.of_heads.get(x) == before == b.of_heads.get(y) and before != "")  # "de México"
    )
    named = _names_scope(x, a) and _names_scope(y, b)
    return (x, y) if slot and (named or _narrowed_head(a, b, at, after)) else None


# Plain words that name a value of a setting rather than a thing: log levels, sizes, colours
# and themes ("The brand colour is blue", "Le thème par défaut est sombre").
VALUE_WORDS = frozenset(
    concept
    for word in _words(
        """trace debug info notice warn warning error fatal critical verbose quiet
    small medium large xlarge tiny huge red green blue yellow orange purple pink black white
    grey gray light dark rouge vert bleu jaune noir blanc clair sombre rot grün blau gelb
    schwarz weiß hell dunkel rojo verde azul amarillo negro blanco claro oscuro rosso giallo
    nero bianco chiaro scuro"""
    )
    if (concept := _concept(word)[0])
)


def _slot_values(a: Reading, b: Reading) -> tuple[str, str] | None:
    """The two values that fill the one slot in which two entries differ (see
    :func:`_one_slot`): each a name (in capitals, in backticks, an identifier), a word with a
    digit ("db-standard-4", "m5.large") or a value word (a level, a size, a colour). Two
    values where the rest is the same are a contradiction or two scopes, never one rule said
    twice; plain words in the slot ("split" and "broken up", "batch" and "job") are often
    one thing said another way."""
    found = _one_slot(a, b)
    if found is None:
        return None
    _, x, y = found
    said_x, said_y = _said(a, x).lower(), _said(b, y).lower()
    if _short_form(said_x, said_y) or _short_form(said_y, said_x):
        return None  # "ASan" and "AddressSanitizer"
    return (x, y) if _value_word(x, a) and _value_word(y, b) else None


def _value_word(word: str, reading: Reading) -> bool:
    """Whether a slot's word is a value: a name, a word with a digit, or a value word."""
    return word in reading.anchors or word in VALUE_WORDS or any(c.isdigit() for c in word)


def _one_slot(a: Reading, b: Reading) -> tuple[int, str, str] | None:
    """Where two entries' words of full weight differ, when they are the same in the same
    order but one word of each side ("Log level in production is INFO" against "... is
    DEBUG", "Workers run on db-standard-4 machines" against "... db-highmem-4 machines"): the
    word's position and the two words. Words known to be one are no slot: a short form and its
    spelling out ("RN", "React Native"; "DB", "database"), a thing's kind and its name
    ("database", "Postgres"), and a synonym or an inflection is one concept already."""
    seq_a, seq_b = _folded(a), _folded(b)
    if len(seq_a) != len(seq_b) or _initialisms(a, b)[1] or _abbreviated(a, b):
        return None
    if _kinds_named(a, b)[0]:
        return None  # "the production database" and "the production Postgres": one thing
    differ = [i for i, (x, y) in enumerate(zip(seq_a, seq_b, strict=True)) if x != y]
    if len(differ) != 1:
        return None
    x, y = seq_a[differ[0]], seq_b[differ[0]]
    if x in b.weights or y in a.weights or _short_form(x, y) or _short_form(y, x):
        return None
    return differ[0], x, y


# Articles an entry may open with: "The admin dashboard ...", "El panel de admin ...".
ARTICLES = _words("the our el la los las der die das le les il lo gli os as het")


def _narrowed_head(a: Reading, b: Reading, at: int, noun: str) -> bool:
    """Both entries open with an article and a word of their own right before the noun that
    follows ("The admin dashboard" against "The customer dashboard", "The billing service"
    against "The search service"): two members, even when the words are plain ones."""
    if at != 0 or not noun:
        return False
    return all(
        _opening_word(r) in ARTICLES and _sequence(r)[0] in r.modifiers.get(noun, ())
        for r in (a, b)
    )


def _opening_word(reading: Reading) -> str:
    """The first word an entry writes, list markers left out."""
    return next(iter(_TOKEN.findall(reading.source)), "").lower()


_SCOPE_CODE = re.compile(r"^(?:[qhv]\d{1,2}|fy\d{2,4}|\d{4})$")  # Q3, H2, v2, FY25, 2025


def _names_scope(word: str, reading: Reading) -> bool:
    """Whether a twin's own word names a scope rather than says a thing another way ("TV",
    "US", "Spanish", "web", "Q3", "v2", a word a "for" narrows; not "batch" for "job",
    "green" for "passing")."""
    return (
        word in reading.anchors
        or word in _SCOPES
        or word in reading.scoped
        or _SCOPE_CODE.match(word) is not None
    )


def _sequence(reading: Reading) -> list[str]:
    """The entry's words of full weight in order, a hyphenated word left out when its parts
    are read too ("Web-Player" is "web" and "player")."""
    return [
        k
        for k in reading.sequence
        if not ("-" in k and all(p in reading.weights for p in k.split("-")))
    ]


_COMPOUND_PARTS = re.compile(r"[-=/.:_]+")  # "db-standard-4", "constraint=icelake"


def _folded(reading: Reading) -> list[str]:
    """:func:`_sequence` with a compound name kept whole: the words read from its parts right
    after it are left out ("db-standard-4" is one word, not "db-standard-4", "database",
    "standard"; so is "--constraint=icelake"), so two names of one kind fill one slot."""
    folded: list[str] = []
    parts: set[str] = set()
    for word in _sequence(reading):
        if word in parts:
            continue
        folded.append(word)
        parts = set()
        pieces = _COMPOUND_PARTS.split(word)
        if len(pieces) > 1:
            parts = {c for c in (_concept(p)[0] for p in pieces if p) if c} - {word}
    return folded


def _short_form(short: str, long: str) -> bool:
    """Whether ``short`` may be ``long`` written short: its initials ("rn", "react-native")
    or its letters in order from the same first one ("db", "database"; "txn",
    "transaction"), a short form being letters only ("m5.large" is no "m5.xlarge")."""
    parts = [p for p in re.split(r"[-_\s]+", long) if p]
    if len(parts) > 1 and "".join(p[0] for p in parts) == short:
        return True
    if len(short) >= len(long) or short[:1] != long[:1] or not short.isalpha():
        return False
    rest = iter(long)
    return all(letter in rest for letter in short)


def _scope_slot(a: Reading, b: Reading, words: tuple[str, str]) -> bool:
    """Whether the twins' own words narrow what each rule is about (the noun it opens with,
    or one a "for" names) rather than what it says of it ("runs on the Standard tier")."""
    x, y = words
    return all(w in r.opening or w in r.scoped for w, r in ((x, a), (y, b)))


def _values_of_one_subject(
    a: Reading, b: Reading, words: tuple[str, str], *, twins: bool = True
) -> bool:
    """Twins or slot values (``twins`` false) whose own words come after what the rules are
    about, the rest the same ("The Redis cluster runs on the Standard tier" against "... on the
    Premium tier", "Log level in production is INFO" against "... DEBUG"): one subject, two
    values of it. Two scopes ("on iOS", "on Android") are kept apart before; a scope word a
    verb gives as a value against a plain value ("DEBUG" against "INFO") is a value."""
    if twins:
        subject = _scope_slot(a, b, words)
    else:
        subject = _in_subject(words[0], a) or _in_subject(words[1], b)
    return (
        not subject
        and not set(words) <= _SCOPES
        and a.numbers == b.numbers
        and a.negated == b.negated
        and not (a.excepts or b.excepts or a.permits or b.permits)
    )


def _in_subject(word: str, reading: Reading) -> bool:
    """Whether a slot's word names what the rule is about: a scope a "for" names, the word the
    entry opens with, or one that word narrows ("Log level", "The web player"); not a value
    the verb gives it ("Workers run on db-standard-4 machines")."""
    if word in reading.scoped or word not in reading.opening:
        return word in reading.scoped
    first = reading.opening[0]
    return word == first or first in reading.modifiers.get(word, ())


_ISO_VALUE = re.compile(r"^(\d{4})_(\d{2})_(\d{2})$")  # a date value as wording writes it


def _said(reading: Reading, concept: str) -> str:
    """The word the entry writes for ``concept`` ("Standard" for "standa", "INFO" inside
    "本番のログレベルはINFO"), for a reason a person reads."""
    words = (t.strip("`") for t in _TOKEN.findall(reading.source) if _concept(t)[0] == concept)
    found = next(words, None)
    if found is not None:
        return found
    inside = re.search(rf"(?<![A-Za-z]){re.escape(concept)}(?![A-Za-z])", reading.source, re.I)
    return inside.group() if inside else _ISO_VALUE.sub(r"\1-\2-\3", concept)  # "2026_03_01"


FULL_NAME = 4  # letters of a name that is no short form ("RN", "PD", "TRT", "HPA", "EU")


def _full_names(names: set[str], other: Reading) -> set[str]:
    """The names that are no short form the other entry may spell out ("RN" for "React
    Native", "ES" for "Elasticsearch") and that the other entry's text does not hold."""
    return {name for name in names if len(name) >= FULL_NAME and name not in other.text}


def _unscoped(one: Reading, other: Reading) -> Reading:
    """An entry that opens with the part it is for ("For Kaffeehaus: staging is on
    `web-03`") read as a plain rule next to an entry that names that part too: it narrows
    nothing the other says, so it is no exception to it."""
    if not one.lead or not one.lead <= other.weights.keys():
        return one
    plain = copy.copy(one)
    plain.excepts = plain.reasons = False
    return plain


_SCRIPT_OF = {"hangul": ("hangul",), "cjk": ("han", "kana", "hira")}


def _without_scripts(reading: Reading, scripts: frozenset[str]) -> Reading:
    """An entry read without its words of ``scripts`` (Korean, Chinese or Japanese words next
    to an entry written in none of them: "所有 Kafka consumer 必须手动提交 offset" against
    "All Kafka consumers must commit offsets manually" compare on what both can say)."""
    if not scripts:
        return reading
    bare = reading.bare.get(scripts)
    if bare is None:
        groups = {group for script in scripts for group in _SCRIPT_OF[script]}
        text = _SCRIPT_RUN.sub(
            lambda run: " " if run.lastgroup in groups else run.group(), reading.source
        )
        bare = reading.bare[scripts] = read(text)
    return bare


def comparable(a: Reading, b: Reading) -> bool:
    """Whether consolidation compares the pair at all: two shared concepts, or one when both
    entries name alternatives or give a value of one concept ("seed 42", "seed is 1337")."""
    shared = sum(1 for key in a.weights if key in b.weights) + _initialisms(a, b)[1]
    return (
        shared >= 2
        or (a.supersedes != b.supersedes and _strong_shared(a, b))
        or bool((a.chosen or a.rejected) and (b.chosen or b.rejected))
        or bool(a.values.keys() & b.values.keys())
    )


def _strong_shared(a: Reading, b: Reading) -> bool:
    """Whether the entries share a concept of full weight (a subject, not a filler verb)."""
    return any(w >= 1.0 and b.weights.get(k, 0.0) >= 1.0 for k, w in a.weights.items())


def _negate_different_things(a: Reading, b: Reading) -> bool:
    """Both entries negate, and one negates a concept the other states without negating it
    ("every PR needs a review, green CI is not enough" against "merged without review"): a
    merge on shared names alone could delete the right one, so none is proposed."""
    if not (a.negated and b.negated):
        return False
    governed_a = frozenset().union(*a.flipped) if a.flipped else frozenset()
    governed_b = frozenset().union(*b.flipped) if b.flipped else frozenset()
    return bool((governed_b - governed_a) & a.weights.keys()) or bool(
        (governed_a - governed_b) & b.weights.keys()
    )


def relate_readings(a: Reading, b: Reading, limits: Limits = LIMITS) -> Relation | None:
    """:func:`relate` on entries already read (consolidation reads each entry once). Two
    entries naming the same concepts and values are never one "with more detail" ("Always use
    pnpm, never npm." and its German "Immer pnpm verwenden, nie npm."): neither says more."""
    relation = _related(a, b, limits)
    if relation is not None and relation.kind == DUPLICATE:
        if not _nothing_lost(a, b, relation, limits):
            return None
        # a class of wording (:mod:`.opposites`)
        told = _told_apart(a.source, b.source, ways=limits.opposite_ways)
        if told is not None:
            return told if isinstance(told, Relation) else None
        if _states_exception(a.source) != _states_exception(b.source):
            return None  # a rule and its exception: both hold (blind_pairs19's first
            # measurement merged "... by e-mail instead — this is the only exception" with
            # "Customers are notified of outages by SMS", deleting one of them)
    if relation is not None and relation.reason == MORE_DETAIL and _as_much(a, b):
        return Relation(DUPLICATE, relation.score, IN_OTHER_WORDS)
    if relation is None and limits.opposite_ways:
        return _opposite_ways(a, b)
    return relation


def _opposite_ways(a: Reading, b: Reading) -> Relation | None:
    """Two entries found neither alike nor conflicting that say one thing is done in opposite
    ways (:func:`.opposites.opposite_ways`: "run automatically" against "applied by hand",
    "UTC" against "local wall-clock time"): a contradiction, unless either states an
    exception, a reason or a scope of its own (a rule and its exception both hold: "Except
    legacy table ...: it keeps the hospital's local time"), names another year, or the two
    speak of two members of one class."""
    if a.excepts or b.excepts or _states_exception(a.source) or _states_exception(b.source):
        return None
    if (a.years and b.years and not a.years & b.years) or _parallel_members(a, b):
        return None
    if _different_scope(a, b, None) or _own_scopes(a, b):
        return None
    way = opposites.opposite_ways(a.source, b.source)
    if way is None or len(_shared_subject(a, b)) < WAY_SUBJECT:
        return None
    return Relation(CONTRADICTION, 1.0, way)


WAY_SUBJECT = 2  # concepts two entries saying opposite ways must share besides the ways


def _shared_subject(a: Reading, b: Reading) -> set[str]:
    """The full-weight concepts both entries say once every word of a way or state is blanked
    out ("Send emails synchronously" and "All async work ... is queued" share none)."""
    left, right = (read(opposites.without_ways(side.source)) for side in (a, b))
    return {k for k, w in left.weights.items() if w >= 1.0 and right.weights.get(k, 0.0) >= 1.0}


def _told_apart(source_a: str, source_b: str, *, ways: bool = False) -> Relation | bool | None:
    """What a class of wording read in the raw texts makes of two entries found alike
    (:mod:`.opposites`): a contradiction (opposite states, with ``ways`` opposite ways too:
    "restored automatically" against "... manually", other colours or tiers, two products
    after one head noun, a value extended, a Welsh negation), False for two entries that both
    hold (a rule for every member and one member), or None when no class applies."""
    if ways:
        state = opposites.opposite_ways(source_a, source_b)
    else:
        state = opposites.opposite_states(source_a, source_b)
    if state is not None:
        return Relation(CONTRADICTION, 1.0, state)
    if opposites.welsh_negation(source_a, source_b):
        return Relation(CONTRADICTION, 1.0, "one note negates what the other says")
    for apart in (
        opposites.other_grades(source_a, source_b),
        opposites.other_products(source_a, source_b),
        opposites.extended_value(source_a, source_b),
        opposites.other_names(source_a, source_b),
    ):
        if apart is not None:
            return Relation(CONTRADICTION, 1.0, f"{apart[0]} against {apart[1]}")
    if opposites.member_of_rule(source_a, source_b):
        return False
    return None


def _complementary(a: Reading, b: Reading) -> bool:
    """The entries open alike (the same first two words of full weight) and then each goes
    on with words only it says, no value on either side: two requirements of one named
    thing ("Every Jenkins job must have a timeout" and "... an owner", "All Kafka topics need
    a schema in the registry" and "... an owning team"), not one said twice. Naming the same
    names is weak evidence of sameness; each entry ending in its own words is two facts."""
    if a.numbers or b.numbers:
        return False
    seq_a, seq_b = _folded(a), _folded(b)
    common = 0
    while common < min(len(seq_a), len(seq_b)) and seq_a[common] == seq_b[common]:
        common += 1
    tail_a, tail_b = set(seq_a[common:]), set(seq_b[common:])
    return (
        common >= OPENING_WORDS
        and bool(tail_a)
        and bool(tail_b)
        and not tail_a & _said_words(b)
        and not tail_b & _said_words(a)
    )


OWN_SUBJECT_WORDS = 2  # words of its own the entry using a product says, its subject first


def _part_of(name: str, text: str) -> bool:
    """Whether ``text`` speaks of a part of the product ``name``: "Keycloak's customer realm",
    "el realm de clientes de Keycloak", "le realm client de Keycloak", "the tenant of Auth0",
    "il tenant di Auth0", "o realm do Keycloak", "der Realm von Keycloak"."""
    escaped = re.escape(name)
    return (
        re.search(
            rf"\b{escaped}['\u2019]s\s+\w|\w\s+(?:of|de|del|du|des|di|della|do|da|von)"
            rf"\s+{escaped}\b",
            text,
            re.IGNORECASE,
        )
        is not None
    )


def _own_subjects(a: Reading, b: Reading) -> bool:
    """Whether two entries naming one product say two facts of it: one speaks of a part of the
    product ("Keycloak's customer realm requires e-mail verification before the first login"),
    the other of something of its own that uses it, opening with a subject the first never
    names and saying at least two words of its own ("The portal authenticates customers
    through Keycloak"). blind_pairs19's first measurement merged such a pair, deleting how the
    portal signs customers in."""
    for whole, user in ((a, b), (b, a)):
        parts = {n for n in whole.anchors & user.anchors if _part_of(n, whole.source)}
        if not parts or any(_part_of(n, user.source) for n in parts):
            continue
        own = {c for c, w in user.weights.items() if w >= 1.0} - _said_words(whole)
        if len(own) >= OWN_SUBJECT_WORDS and user.opening and user.opening[0] in own:
            return True
    return False


def _said_words(reading: Reading) -> set[str]:
    """Every concept an entry says, its antonyms and the words of its initialisms included."""
    said = set(reading.weights) | set(reading.polar)
    for spelled in reading.initials.values():
        said |= spelled
    return said


def _nothing_lost(a: Reading, b: Reading, relation: Relation, limits: Limits) -> bool:
    """Whether a merge of two entries loses nothing a person wrote: the side ``--apply`` may
    remove (either one, or the shorter of an entry and its copy with more detail) has every
    number, name and negation in the other, and at most ``lost_words`` content words the
    other does not say. Similarity alone is no such evidence: "Every flag must have an
    expiry date" and "... an owner" are alike and each says what the other does not."""
    if relation.reason == MORE_DETAIL:
        shorter = a if _total_weight(a) <= _total_weight(b) else b
        sides = [(shorter, b if shorter is a else a)]
    else:
        sides = [(a, b), (b, a)]
    return all(_contained(one, other, limits) for one, other in sides)


def _total_weight(reading: Reading) -> float:
    return sum(reading.weights.values())


def _contained(one: Reading, other: Reading, limits: Limits) -> bool:
    """Whether removing ``one`` and keeping ``other`` loses at most ``lost_words`` of its
    content words and none of the facts ``kept_facts`` names (numbers, names, negations)."""
    kept = limits.kept_facts
    if (
        ("n" in kept and not one.numbers <= other.numbers)
        or ("a" in kept and not one.anchors <= other.weights.keys() | other.anchors)
        or ("s" in kept and not one.spans <= other.weights.keys())
        or ("g" in kept and one.negated and not other.negated)
    ):
        return False
    if limits.lost_words >= 99:
        return True
    return len(_lost_words(one, other)) <= limits.lost_words


def _lost_words(one: Reading, other: Reading) -> set[str]:
    """The content words of ``one`` that ``other`` says in no form it reads: not as the same
    concept, not as the words of an initialism either entry spells out."""
    said = set(other.weights) | set(other.polar)
    for spelled in other.initials.values():
        said |= spelled
    lost = {c for c, w in one.weights.items() if w >= 1.0 and c not in said}
    for short, spelled in one.initials.items():
        if spelled <= said:
            lost.discard(short)
            lost -= spelled
    return lost


def _as_much(a: Reading, b: Reading) -> bool:
    """Whether two entries name the same concepts and the same values."""
    return a.weights.keys() == b.weights.keys() and a.numbers == b.numbers


def _related(a: Reading, b: Reading, limits: Limits) -> Relation | None:
    """The relation of two read entries, as :func:`relate_readings` returns it."""
    a, b = _unscoped(a, b), _unscoped(b, a)
    if a.scripts != b.scripts:  # words the other entry cannot share say nothing either way
        a, b = (
            _without_scripts(a, a.scripts - b.scripts),
            _without_scripts(b, b.scripts - a.scripts),
        )
    choice = _conflicting_choice(a, b)
    if _different_scope(a, b, choice) or (limits.qualifier_scope and _placed_apart(a, b)):
        return None
    if a.years and b.years and not a.years & b.years:
        return None  # "the 2025 workshop" and "the 2024 workshop": two events, two rules
    shared, weight_a, weight_b, count = _shared(a, b, _MEMBERS)
    smaller = min(weight_a, weight_b)
    containment = shared / smaller if smaller else 0.0
    if limits.exception_guard and (a.excepts or b.excepts):
        conflict = _superseded(a, b, limits, shared, containment)  # an exception refines
    else:
        inside = _part_scope_containment(a, b, shared, (weight_a, weight_b))
        overlap = (shared, count, max(containment, inside))
        conflict = _conflict(a, b, limits, choice, overlap)
    if conflict is None and limits.retired_conflict:
        conflict = _retired_conflict(a, b)
    if conflict is None and limits.permission_conflict:
        conflict = _permission_conflict(a, b, containment)
    if conflict is None and limits.named_values:
        conflict = _named_value_conflict(a, b)
    if conflict is not None and _parallel_members(a, b):
        return None
    twins = _slot_twins(a, b)
    if conflict is not None and twins and _scope_slot(a, b, twins) and not set(twins) <= _MEMBERS:
        return None  # the same said of two members, each with a value of its own
    if conflict is not None:
        detail = _detail_of_same_head(a, b, limits) if limits.head_match else None
        if detail is not None:
            return detail  # what conflicts lies in the longer entry's detail
        if limits.supersede_clause and conflict.reason == _CHANGED and not _changed_subject(a, b):
            # the note says something else changed: no pair, unless it says a thing is gone
            if a.marked or b.marked:  # read as if unmarked (a value may still conflict)
                return _unmarked_relation(a, b, limits)
            return _retired_conflict(a, b) if limits.retired_conflict else None
        return conflict
    if _case_of_rule(a, b):
        return None  # a rule and one case of it: two entries that both hold
    apart = _stated_apart(a, b)
    if apart is not None and apart[2]:
        return Relation(CONTRADICTION, 1.0, f"{apart[0]} against {apart[1]}")
    values = twins or _slot_values(a, b)
    if values and _values_of_one_subject(a, b, values, twins=twins is not None):
        shown = f"{_said(a, values[0])} against {_said(b, values[1])}"
        return Relation(CONTRADICTION, 1.0, shown)
    if limits.contained_detail and choice is None and apart is None and a.escalates == b.escalates:
        contained = _contained_detail(a, b)
        if contained is not None:
            return contained
    if (
        choice is not None
        or (_opposed(a, b) if limits.scoped_merge else a.negated != b.negated)
        or a.supersedes != b.supersedes
        or a.escalates != b.escalates
        or _some_unit_differs(a.numbers, b.numbers)
        or _currencies_apart(a.numbers, b.numbers)
        or _reversed_order(a, b)
        or bool(a.restricted & b.universal or b.restricted & a.universal)
        or _other_types(a, b)
        or _parallel_members(a, b, opening=False)
        or _own_scopes(a, b)
        or values is not None
        or apart is not None
    ):
        return None  # a sign of conflict rules a merge out (with ``scoped_merge``, a negation
        # counts only where it governs a concept the other entry names, as for contradictions)
    same = _duplicate(a, b, limits)
    if same is None and limits.head_match:
        same = _same_as_head(a, b, limits)
    return same


def _values_lost(short: Reading, whole: Reading) -> bool:
    """Whether a value with a unit the shorter entry states ("timeout is 15 s") is one the
    longer never states: its first clause may say the rest, but a merge keeping the longer
    would delete the value ("The image-resizing Lambda timeout is 15 s." against "The
    image-resizing Lambda (`img-resize-prod`) runs with 1024 MB of memory because ...": two
    facts of one thing, merged in train_pairs9's all-pairs check). A bare count is left out:
    "once" reads as 1 and says no value of its own."""
    return not all(_share({v}, whole.numbers) for v in short.numbers if _UNIT_END.search(v))


_UNIT_END = re.compile(r"[A-Za-z%]$")  # a value read with its unit ("15s", "2.1e+09B", "5%")


def _own_scopes(a: Reading, b: Reading) -> bool:
    """Each entry narrows its rule by a scope ("for section fronts", "for the homepage") whose
    words the other never says: one setting for two scopes, two facts even with one value
    ("Fastly TTL for section fronts is 60 seconds" against "... for the homepage is 60
    seconds" was merged in train_pairs9's all-pairs check)."""
    return bool(
        a.scoped and b.scoped and not a.scoped & _said_words(b) and not b.scoped & _said_words(a)
    )


def _stated_apart(a: Reading, b: Reading) -> tuple[str, str, bool] | None:
    """Two values one label or one stored form is given ("Flutter state management:
    Riverpod." against "...: BLoC", "stored as the last watched second" against "saved as
    the percentage of the video watched"): never one entry. With True, a contradiction: two
    names for one label, or two forms of one subject."""
    label_a, label_b = markers.labelled(a.source), markers.labelled(b.source)
    if label_a and label_b and label_a[0] == label_b[0]:
        first = _first_apart(label_a[1], label_b[1], disjoint=True)
        if first is not None:
            return first[0], first[1], first[2]
    kept_a, kept_b = markers.kept_as(a.source), markers.kept_as(b.source)
    if kept_a and kept_b:
        first = _first_apart(kept_a, kept_b, disjoint=False)
        if first is not None:
            return first[0], first[1], bool(a.opening) and a.opening == b.opening
    return None


def _first_apart(text_a: str, text_b: str, *, disjoint: bool) -> tuple[str, str, bool] | None:
    """The first words of two values, as written, when the values differ: each one's first
    concept absent from the other (``disjoint``: no concept shared at all); with True when
    both open with a name (a tool, an identifier) and switch nothing off."""
    value_a, value_b = read(text_a, head=False), read(text_b, head=False)
    if not value_a.sequence or not value_b.sequence:
        return None
    first_a, first_b = value_a.sequence[0], value_b.sequence[0]
    if first_a in value_b.weights or first_b in value_a.weights:
        return None
    if disjoint and set(value_a.sequence) & set(value_b.sequence):
        return None
    said_a, said_b = _said(value_a, first_a), _said(value_b, first_b)
    named = all(
        first in value.anchors and text.lstrip("`*").startswith(said) and not value.polar
        for first, value, text, said in (
            (first_a, value_a, text_a, said_a),
            (first_b, value_b, text_b, said_b),
        )
    )  # "Riverpod." against "Elasticsearch with ...", not "XML-RPC is disabled" against a plugin
    return said_a, said_b, named


CONTAINED_MIN = 3  # subjects a one-clause entry must name to be found inside a longer one
CONTAINED_NEGATED_MIN = 2  # ... when it forbids them (the longer one forbidding the same)


def _contained_detail(a: Reading, b: Reading) -> Relation | None:
    """A one-clause entry whose every subject (three at least, two for a prohibition the
    longer entry states too: "Do not use `--no-verify`") and value one clause of a longer entry
    names,
    with the same sign and the same antonyms ("The docs deploy to GitHub Pages." against "Docs
    deploy to GitHub Pages from the `gh-pages` branch; the `docs.yml` workflow pushes there
    after every merge"): the longer one is the same rule with more detail, whatever else its
    detail says, unless that detail negates what the short one states or reverses an order,
    the short one is an exception, a permission or a change note, or the longer one places
    the rule somewhere narrower (a scope such as an environment or platform the short one
    does not name, "in the `examples/` folder")."""
    for short, long in ((a, b), (b, a)):
        subjects = _strong(short)
        if (
            short.head is not None
            or len(subjects) < (CONTAINED_NEGATED_MIN if short.negated else CONTAINED_MIN)
            or len(short.weights) > len(long.weights)
            or not subjects <= long.weights.keys()
            or short.supersedes
            or long.supersedes
            or short.excepts
            or long.exempts  # "Except the census report: ... reads from primary" is no detail
            or short.permits
            or short.polar != long.polar
            or not all(_share({value}, long.numbers) for value in short.numbers)
            or _reversed_order(short, long)
            or short.restricted & long.universal
            or long.restricted & short.universal
            or long.qualifiers - short.weights.keys()  # placed somewhere narrower
            or long.scopes - short.scopes
            or not _said_in_one_clause(subjects, long)
        ):
            continue
        governed = frozenset().union(*long.flipped) if long.flipped else frozenset()
        if short.negated:
            negated = frozenset().union(*short.flipped)
            if not negated <= governed:  # the long entry must negate the same things
                continue
        elif governed & subjects:  # its detail negates what the short entry states
            continue
        return Relation(DUPLICATE, 1.0, MORE_DETAIL)
    return None


_ASIDE = re.compile(r"\s*\([^()]*\)")  # a bracketed aside: "nightly ETL (`etl/nightly.py`) runs"
_CLAUSE_END = re.compile(r"[,;:.\u2014](?:\s|$)")  # where a clause ends ("02:00", "0,01" end none)


def _said_in_one_clause(subjects: set[str], long: Reading) -> bool:
    """Whether one clause of ``long`` names every subject, a clause parted by a bracketed
    aside read whole too ("The nightly ETL (`etl/nightly.py`, DAG `x`) starts at 02:00": the
    comma inside the brackets parts no clause; what follows the clause's end, ", since we
    roll out code after migrating", is no part of it)."""
    if any(subjects <= clause for clause in long.clauses):
        return True
    for aside in _ASIDE.finditer(long.source):
        before = _CLAUSE_END.split(long.source[: aside.start()])[-1]
        after = _CLAUSE_END.split(long.source[aside.end() :])[0]
        if subjects <= read(f"{before} {after}").weights.keys():
            return True
    return False


def _same_as_head(a: Reading, b: Reading, limits: Limits) -> Relation | None:
    """One entry says what the other's first clause says, the rest being detail ("Snapshot
    tests use insta." against "Snapshot tests use `insta`; review changes with ...")."""
    if _distinct_identifiers(a, b):  # the detail names other code: another rule
        return None
    for short, whole in ((a, b), (b, a)):
        long = whole.head
        if long is None or short.head is not None or short.negated != long.negated:
            continue
        if _adds_own_rule(short, whole):
            continue  # "... versioned with git tags" against "pin versions; no `ref=main`"
        if _values_lost(short, whole):
            continue  # the longer's first clause says the rest, never this value
        if short.excepts or long.excepts:  # "cargo-deny also checks advisories" adds a rule
            continue
        if not _said_by_head(short, long, limits):  # a label such as "PCI DSS req. 8" says little
            continue
        same = _duplicate(short, long, limits)
        if same is not None:
            return Relation(DUPLICATE, same.score, MORE_DETAIL)
    return None


OWN_REQUIREMENT = 2  # concepts the shorter entry names and the longer never does: its own rule
OWN_PREFIX = 3  # letters a word shares with a written-out or shortened form ("ref", "gen'd")


def _adds_own_rule(short: Reading, whole: Reading) -> bool:
    """Whether the shorter entry states a rule of its own beside the longer one's ("Terraform
    modules are versioned with git tags" against "Environments pin Terraform module versions
    explicitly; no `ref=main`"): two concepts or more that the longer never names in any form
    (no shared first letters, no short form), more than half as many as the two share, and no
    value both state (one number said twice is one rule)."""
    if short.numbers & whole.numbers:
        return False
    theirs = whole.weights.keys()
    own = [
        concept
        for concept in dict.fromkeys(short.sequence)
        if concept not in theirs
        and not any(
            concept[:OWN_PREFIX] == other[:OWN_PREFIX]
            or _short_form(other, concept)
            or _short_form(concept, other)
            for other in theirs
        )
    ]
    shared = len(set(short.sequence) & theirs)
    return len(own) >= OWN_REQUIREMENT and len(own) > shared / 2


def _said_by_head(short: Reading, head: Reading, limits: Limits) -> bool:
    """Whether the head (the clause before a colon) holds most of what ``short`` says: a
    short head such as "PCI DSS req. 8" is a label, and an entry about something else that
    merely names it ("the PCI DSS penetration test is done yearly") is not its rule."""
    shared, weight_short, _, _ = _shared(short, head, _MEMBERS)
    return bool(weight_short) and shared / weight_short >= 0.5


def _detail_of_same_head(a: Reading, b: Reading, limits: Limits) -> Relation | None:
    """One entry is a single clause that the other's first clause says again, with no conflict
    between the two: what conflicts lies in the longer entry's detail ("we tried 50 Hz but it
    couldn't keep up"), so the pair is one rule with more detail, not two rules."""
    for short, long in ((a, b), (b, a)):
        if long.head is None or short.head is not None:
            continue
        same = relate_readings(short, long.head, limits)
        if (
            same is not None
            and same.kind == DUPLICATE
            and not (short.excepts or long.excepts)
            and not any(governed & _strong(short) for governed in long.flipped)
            and _conflicting_choice(short, long) is None
        ):  # the detail must not negate what the short entry states ("we don't use sqlfluff"),
            # nor choose another alternative ("動画IDは文字列（ULID）" against an integer ID)
            return Relation(DUPLICATE, same.score, MORE_DETAIL)
    return None


def _negated_in_detail(a: Reading, b: Reading, limits: Limits) -> bool:
    """A one-clause entry whose every subject the other entry names, opposed only by that
    entry's later clauses ("nav2 runs at 20 Hz" against "nav2 frequency is 20 Hz; we tried 50
    Hz but the robots couldn't keep up"): the detail negates something else."""
    for short, long in ((a, b), (b, a)):
        if short.head is not None or long.head is None or not _strong(short) <= long.weights.keys():
            continue
        firm = limits.firm_polarity
        if _opposed(short, long.head, firm=firm) or long.head.supersedes:
            continue
        negated = {k for governed in long.flipped for k in governed if k in short.weights}
        if negated <= long.head.weights.keys() and not _conflicting_choice(short, long.head):
            return True  # what the detail negates, the first clause states
    return False


def _strong(reading: Reading) -> set[str]:
    """The concepts of full weight an entry names (subjects, not filler verbs)."""
    return {k for k, w in reading.weights.items() if w >= 1.0}


def _one_subject(a: Reading, b: Reading) -> bool:
    """Whether two entries share more than one word, a value, or a word one of them writes as a
    name ("Zephyr", "`kapt`"): a single common word ("asset") is no shared subject for a
    change."""
    shared = [k for k, w in a.weights.items() if w >= 1.0 and b.weights.get(k, 0.0) >= 1.0]
    return (
        len(shared) > 1
        or _share(a.numbers, b.numbers)
        or any(k in a.anchors or k in b.anchors for k in shared)
    )


NAMED_VALUE_SUBJECTS = 2  # subjects besides the values two entries must share


def _named_value_conflict(a: Reading, b: Reading) -> Relation | None:
    """Two code spans given as the value of one setting ("Redis maxmemory-policy must be
    `noeviction`" against "Redis `maxmemory-policy` is `allkeys-lru`", two default config
    paths): each entry names a span the other does not and, besides those spans (and the
    words written inside them), names only what the other names, two subjects at least. A
    word only one side names is another subject ("The config file is `settings.toml`"
    against "The changelog file is `CHANGELOG.md`"), a scope another place, and a span that
    holds the other's ("`@pytest.mark.integration`", "`integration`") the same value. A value
    ends its clause: "Every table has a `created_at` column" names a column, not a value."""
    if any(
        side.negated or side.supersedes or side.excepts or side.permits or side.polar
        for side in (a, b)
    ):
        return None
    own_a, own_b = _own_spans(a, b), _own_spans(b, a)
    if not (own_a & a.ends and own_b & b.ends):  # a value ends what it is said of
        return None
    if any(x in y or y in x for x in own_a for y in own_b):
        return None
    strong_a, strong_b = _strong(a) - _JOBS, _strong(b) - _JOBS
    if len(strong_a & strong_b) < NAMED_VALUE_SUBJECTS:
        return None
    for reading, other, own in ((a, b, own_a), (b, a, own_b)):
        named = (_strong(reading) - _JOBS) | reading.scopes
        named_whole = reading.spans - own  # a span the other names word by word
        if any(
            k not in other.weights and k not in named_whole and not _inside(k, own) for k in named
        ):
            return None
    shown = f"{_show(own_a)} against {_show(own_b)}"
    return Relation(CONTRADICTION, 1.0, shown)


def _own_spans(reading: Reading, other: Reading) -> set[str]:
    """The code spans of ``reading`` that ``other`` does not name, whole or word by word
    (`worker_class` is named by "worker class")."""
    return {
        span
        for span in reading.spans - other.weights.keys()
        if not all(_concept(part)[0] in other.weights for part in _SPAN_PARTS.split(span) if part)
    }


_SPAN_PARTS = re.compile(r"[\W_]+")


def _inside(concept: str, spans: set[str]) -> bool:
    """Whether a concept is a word written inside one of the spans (its stem: "allkei" of
    `allkeys-lru`)."""
    return any(concept in span or concept[:-1] in span for span in spans)


PERMISSION_COVERAGE = 0.5  # of what a prohibition governs, the share a permission names
PERMISSION_EXTRA = 3  # subjects a permission may add and still grant what is forbidden
PERMISSION_NAMED = 2  # one shared word ("ROS") is no shared subject
PERMISSION_WORDS = frozenset({"allow", "ok", "okay", "fin", "permit", "may", "can"})


def _permission_conflict(a: Reading, b: Reading, containment: float) -> Relation | None:
    """A permission that grants what the other entry forbids ("The admin app is allowed to
    show full patient names to support staff" against "Support staff must never see full
    patient names in the admin app"): the permission names most of what the prohibition
    governs and little else, so it is no exception for a narrower case (which names a scope
    the prohibition does not: "force-pushing your own feature branch is fine" against "never
    force-push to `main`")."""
    for permission, prohibition in ((a, b), (b, a)):
        if (
            not permission.permits
            or permission.negated
            or permission.exempts  # "Exception: `expect()` on a poisoned lock is fine"
            or prohibition.permits
        ):
            continue
        if prohibition.restricted & permission.weights.keys():
            continue  # "on-demand only" and "on-demand is fine" agree
        governed = {
            k
            for negated in prohibition.negations
            for k in negated
            if prohibition.weights.get(k, 0.0) >= 1.0 and k not in _JOBS
        }
        if not governed:
            continue
        named = sum(1 for k in governed if k in permission.weights)
        extra = _strong(permission) - prohibition.weights.keys() - PERMISSION_WORDS
        if (
            named >= PERMISSION_NAMED
            and named / len(governed) >= PERMISSION_COVERAGE
            and len(extra) <= PERMISSION_EXTRA
        ):
            return Relation(
                CONTRADICTION, round(containment, 2), "one allows what the other forbids"
            )
    return None


_CHANGED = "one note says the other changed"


def _unmarked_relation(a: Reading, b: Reading, limits: Limits) -> Relation | None:
    """How two entries relate when a dated mark ("2025-09-01부터") names nothing the other
    says changed: as if unmarked ("4시 against 2시" still conflicts), but never a merge."""
    plain_a, plain_b = copy.copy(a), copy.copy(b)
    for plain in (plain_a, plain_b):
        if plain.marked:
            plain.supersedes = plain.marked = False
    relation = relate_readings(plain_a, plain_b, limits)
    return None if relation is None or relation.kind == DUPLICATE else relation


MARKED_SHARED = 3  # words a note marked as a whole shares with an entry it says changed


def _changed_subject(a: Reading, b: Reading) -> bool:
    """Whether what the change note of the two says changed is something the other entry
    speaks of: two
    words of full weight of the clause that says so, or one that names a thing ("`Entra ID`
    (formerly Azure AD)" changed the name of Azure AD, not how the admin app shows names)."""
    note, plain = (a, b) if a.supersedes else (b, a)
    shared = [
        k
        for k in note.changed
        if note.weights.get(k, 0.0) >= 1.0 and plain.weights.get(k, 0.0) >= 1.0
    ]
    named = any(k in note.anchors or k in plain.anchors for k in shared)
    if note.marked:  # the whole note is marked: it must name what the other says, and a name
        return len(shared) >= MARKED_SHARED and named
    return (
        len(shared) > 1
        or named
        or (bool(shared) and _share(note.numbers, plain.numbers))  # "3.8 support dropped"
    )


def _superseded(
    a: Reading, b: Reading, limits: Limits, shared: float, containment: float
) -> Relation | None:
    """A superseding note against a note on the same subject without one (a tool named by
    both is a shared subject: "Zephyr version is v3.2" against "Now on Zephyr 3.6")."""
    if a.supersedes == b.supersedes:
        return None
    plain, note = (b, a) if a.supersedes else (a, b)
    if _negates_shared(plain, note):  # "not H2" against "no H2 anymore": both drop it
        return None
    if not _one_subject(a, b):
        return None
    if limits.named_subjects:
        shared = _shared(a, b, _JOBS)[0]
    if shared >= limits.supersede_shared_weight and containment >= limits.supersede_containment:
        return Relation(CONTRADICTION, round(containment, 2), _CHANGED)
    return None


CHOICE_SHARED = 1.0  # the weight of subjects besides the alternatives two entries share


def _value_about_one_thing(a: Reading, b: Reading, key: str, limits: Limits) -> bool:
    """Whether two values stated for one concept are values of one setting: the entries share
    ``limits.value_shared`` subjects besides it, or each says little else (names at most
    ``limits.choice_alone`` other subjects). "All API endpoints are versioned under `/v1`"
    and "The API returns RFC 7807 problem+json" give the API no two values."""
    shared = [
        k
        for k, w in a.weights.items()
        if k != key and k not in _JOBS and w >= 1.0 and b.weights.get(k, 0.0) >= 1.0
    ]
    if len(shared) >= limits.value_shared:
        return True
    others = [len({k for k in _strong(side) if k != key and k not in _JOBS}) for side in (a, b)]
    return max(others) <= limits.choice_alone


def _choice_about_one_thing(a: Reading, b: Reading, alone: int) -> bool:
    """Whether two entries naming rival alternatives speak of one thing: they share a subject
    besides the alternatives and their job, or each says little but its choice (names at most
    ``alone`` other subjects: "Use pnpm."
    against "We use yarn."). Two notes that merely mention Postgres and DynamoDB ("Terraform
    locks live in DynamoDB", "Postgres backups are kept 35 days") choose nothing between
    them."""
    shared = sum(
        min(w, b.weights[k])
        for k, w in a.weights.items()
        if k in b.weights and k not in _MEMBERS and k not in _JOBS
    )
    if shared >= CHOICE_SHARED:
        return True
    others = [
        len({k for k in _strong(side) if k not in _MEMBERS and k not in _JOBS}) for side in (a, b)
    ]
    return max(others) <= alone


def _conflict(
    a: Reading,
    b: Reading,
    limits: Limits,
    choice: tuple[str, str] | None,
    overlap: tuple[float, float, float],
) -> Relation | None:
    """The contradiction between two entries, if any (``overlap``: the shared weight, the
    shared count and the containment, alternatives left out)."""
    shared, count, containment = overlap
    explicit = choice is not None and choice[0].startswith("not ") != choice[1].startswith("not ")
    needed = limits.reject_shared_weight if explicit else limits.choice_shared_weight
    if (
        choice is not None
        and shared >= needed
        and (not limits.choice_subject or _choice_about_one_thing(a, b, limits.choice_alone))
    ):
        return Relation(CONTRADICTION, round(containment, 2), f"{choice[0]} against {choice[1]}")
    opposed = (
        _opposed(a, b, firm=limits.firm_polarity)
        if limits.scoped_polarity
        else a.negated != b.negated
    )
    if (
        count >= 2
        and opposed
        and containment >= limits.polarity_containment
        and not _negated_in_detail(a, b, limits)
    ):
        return Relation(
            CONTRADICTION, round(containment, 2), "one says not to do what the other says"
        )
    if count >= 2 and _reversed_order(a, b) and containment >= limits.order_containment:
        return Relation(
            CONTRADICTION, round(containment, 2), "the same steps in the opposite order"
        )
    superseded = _superseded(a, b, limits, shared, containment)
    if superseded is not None:
        return superseded
    key = _value_conflict(a, b, limits)
    if key and limits.named_subjects:  # "Node version: 18" against "We are on Node 20"
        shared_named, named_a, named_b, _ = _shared(a, b, _JOBS)
        containment = max(containment, shared_named / (min(named_a, named_b) or 1.0))
    if key and _distinct_identifiers(a, b):
        return None  # "Kafka `billing.events` retention: 30 days" against `playback.events`
    if (
        key
        and containment >= limits.value_containment
        and (not limits.value_subject or _value_about_one_thing(a, b, key, limits))
    ):
        shown = f"{key}: {_show(a.values[key])} against {_show(b.values[key])}"
        return Relation(CONTRADICTION, round(containment, 2), shown)
    if (
        _numbers_differ(a.numbers, b.numbers)
        and count >= 2
        and containment >= limits.number_containment
    ):
        shown = f"{_show(a.numbers)} against {_show(b.numbers)}"
        return Relation(CONTRADICTION, round(containment, 2), shown)
    return None


ABBREVIATION_MIN = 3  # letters of a word written short ("feat", "desc", "mig")


def _abbreviated(a: Reading, b: Reading) -> float:
    """The weight of words one entry writes short and the other in full ("feat" and
    "feature", "desc" and "description", "redelivers" and "delivers"): each unshared concept
    that begins or ends another unshared concept of the other entry counts as shared once."""
    only_a = [k for k, w in a.weights.items() if w >= 1.0 and k not in b.weights and k.isalpha()]
    only_b = [k for k, w in b.weights.items() if w >= 1.0 and k not in a.weights and k.isalpha()]
    found = 0.0
    used: set[str] = set()
    for short, longs in ((only_a, only_b), (only_b, only_a)):
        for word in short:
            if len(word) < ABBREVIATION_MIN or word in used:
                continue
            match = next(
                (
                    other
                    for other in longs
                    if other not in used
                    and len(other) > len(word)
                    and (other.startswith(word) or other.endswith(word))
                ),
                None,
            )
            if match is not None:
                used |= {word, match}
                found += 1.0
    return found


def _spans_written_out(a: Reading, b: Reading) -> tuple[float, float, float]:
    """Code spans one entry writes in backticks and the other without them ("`renv::restore()`"
    against "renv::restore()", "`sections/*.liquid`" against "sections/*.liquid"; a plain word
    in backticks is a word, and is read as one already): the weight they share, and the weight
    each side is given for them (the side without backticks counts the span too, so a span
    weighs alike on both sides)."""
    shared = extra_a = extra_b = 0.0
    for one, other in ((a, b), (b, a)):
        for span in one.spans - other.weights.keys():
            if not span.isalpha() and re.search(
                r"(?<![\w./-])" + re.escape(span) + r"(?![\w/-])", other.text
            ):
                weight = one.weights.get(span, 0.0)
                shared += weight
                if one is a:
                    extra_b += weight
                else:
                    extra_a += weight
    return shared, extra_a, extra_b


def _kinds_named(a: Reading, b: Reading) -> tuple[float, float, float]:
    """A thing one entry names by its kind and the other by its name ("the prod database"
    against "the production Postgres"): the weight they share, and the weight each side is
    given for it (the side that names the tool counts its kind too)."""
    shared = extra_a = extra_b = 0.0
    for one, other in ((a, b), (b, a)):
        for job, kind in KIND_OF.items():
            named = one.chosen & CHOICE_JOBS[job]
            if named and kind not in one.weights and kind in other.weights:
                if other.chosen & CHOICE_JOBS[job] - named:
                    continue  # the other names another of its kind
                weight = other.weights[kind]
                shared += weight
                if one is a:
                    extra_a += weight
                else:
                    extra_b += weight
    return shared, extra_a, extra_b


def _excepting(reading: Reading, limits: Limits) -> bool:
    """Whether an entry states an exception for a merge: a reason alone ("make tasks
    idempotent because the broker can redeliver") is the rule explained, with
    ``limits.reason_merge``, not a special case of it."""
    return reading.excepts and not (limits.reason_merge and reading.reasons)


# Two entries about the same names are one fact said twice only while the shorter one adds
# fewer than this many words of its own: "PII at rest is encrypted with KMS customer managed
# keys" and "The KMS keys used for PII have automatic yearly rotation turned on" name the same
# things and say two facts (merged on blind_pairs10's first measurement, a rule deleted). Over
# fourteen authors no labelled duplicate is lost; over all pairs 7 unlabelled merges and 1
# right merge fewer.
_ANCHOR_UNSHARED = 4
# ... and fewer than three when the names are only words (tools, clients, weekdays, `main`),
# no identifier: "Use tabs for indentation in Python files" and "Use single quotes for strings
# in Python", "Slurm job-completion data is exported to the portal" and "Slurm accounts are
# created by the portal" were merged (all-pairs check: 12 such merges of two facts gone, 1
# of one fact said twice; over fifteen authors 2 labelled duplicates lost).
_ANCHOR_UNSHARED_WORDS = 3
_IDENTIFIER_SPAN = re.compile(r"[\d._/=:-]")


def _anchor_unshared(reading: Reading) -> int:
    """How many words of its own the shorter of two entries naming the same things may add
    and still say what the other says: fewer when the names are plain words, none an
    identifier (``CONFIG_HEAP_MEM_POOL_SIZE``, ``Idempotency-Key``)."""
    specific = bool(reading.numbers) or any(_IDENTIFIER_SPAN.search(n) for n in reading.anchors)
    return _ANCHOR_UNSHARED if specific else _ANCHOR_UNSHARED_WORDS


def _subjects_of_one_name(a: Reading, b: Reading) -> bool:
    """Both entries open with one name and go on with a subject of their own that the other
    never says ("Postgres backups are kept 35 days" and "Postgres WAL archives are kept 35
    days", "Redis sessions expire after 30 minutes" and "Redis cache keys ..."): two things of
    one product that happen to share a value, not one rule; a merge would delete one."""
    seq_a, seq_b = _folded(a), _folded(b)
    if len(seq_a) < 2 or len(seq_b) < 2 or seq_a[0] != seq_b[0] or seq_a[0] not in a.anchors:
        return False
    return seq_a[1] not in _said_words(b) and seq_b[1] not in _said_words(a)


def _named_value(a: Reading, b: Reading, limits: Limits) -> int:
    """1 when the two entries name the same product and every value they state, each with
    its unit, is the same on both sides ("Postgres backups are kept 35 days" and "... for five
    weeks", "TimescaleDB aggregates refresh every ten minutes" and "... every 10 min"): the
    value counts as a second subject shared, so the pair is compared on its words at all. A
    code like "P1" or "SEV2" is no product: "P1 pages are acked in 15 minutes" and "the
    planning team's P1 target is 15 minutes" share a level and a value, not a subject."""
    return int(
        any(len(name) >= FULL_NAME and name.isalpha() for name in a.anchors & b.anchors)
        and all(_UNIT_END.search(v) for v in a.numbers)
        and _same_numbers(a, b, limits)
    )


def _same_numbers(a: Reading, b: Reading, limits: Limits) -> bool:
    """Both entries state values, every one of them the same on both sides ("saved every 500
    steps to `checkpoints/`" and "writes a checkpoint into checkpoints/ each 500 steps",
    "48 hours" and "two days"), with the code spans agreeing and no exception or permission
    on one side only: values that agree whole are content shared, so fewer words need to. A
    code identifier one side names alone ("rotate FHIR_CLIENT_SECRET every 90 days" against
    "Key Vault soft-delete retention is 90 days") is another thing with the same value."""
    return bool(
        a.numbers
        and a.numbers == b.numbers
        and a.spans == b.spans
        and not _own_identifiers(a, b)
        and not _own_identifiers(b, a)
        and _excepting(a, limits) == _excepting(b, limits)
        and a.permits == b.permits
    )


def _own_identifiers(one: Reading, other: Reading) -> set[str]:
    """The code identifiers (dotted, snake_case or slashed names) ``one`` names and ``other``
    does not."""
    return {name for name in one.anchors - other.weights.keys() if _IDENTIFIER.search(name)}


def _duplicate(a: Reading, b: Reading, limits: Limits) -> Relation | None:
    """Whether two entries with no sign of conflict say the same thing."""
    shared_all, all_a, all_b, count_all = _shared(a, b, _JOBS)
    same_values = len(a.numbers & b.numbers)  # a value both state is shared content
    # ... whatever noun counts it ("20 connections", "20 Postgres connections")
    magnitudes_a, magnitudes_b = _magnitudes(a.numbers), _magnitudes(b.numbers)
    shared_all, all_a, all_b = (
        shared_all + len(magnitudes_a & magnitudes_b),
        all_a + len(magnitudes_a),
        all_b + len(magnitudes_b),
    )
    spelled, terms = _initialisms(a, b)
    shared_all += spelled
    written, written_a, written_b = _spans_written_out(a, b)
    shared_all, all_a, all_b = shared_all + written, all_a + written_a, all_b + written_b
    kinds, kinds_a, kinds_b = _kinds_named(a, b)
    shared_all, all_a, all_b = shared_all + kinds, all_a + kinds_a, all_b + kinds_b
    if (
        count_all + terms + _named_value(a, b, limits) < 2
        or _distinct_identifiers(a, b)
        or _apart(a, b)
        or _choices_of_other_jobs(a, b)
    ):
        return None
    if limits.abbreviations:
        shared_all += _abbreviated(a, b)
    dice = 2 * shared_all / (all_a + all_b) if all_a + all_b else 0.0
    unshared = max(all_a, all_b) - shared_all
    if (
        same_values
        and a.numbers == b.numbers  # one value more is more detail ("one of the two")
        and _same_keyed_value(a, b)
        and dice >= limits.value_similarity
        and not _subjects_of_one_name(a, b)
    ):
        return Relation(DUPLICATE, round(dice, 2), "says the same thing (the same value)")
    if (
        a.anchors
        and not (a.polar or b.polar)  # "by hand" against "never manually": read no further
        and not _negate_different_things(a, b)  # the words say little here: the signs must agree
        and a.anchors == b.anchors
        and a.numbers == b.numbers
        and dice >= limits.anchor_similarity
        and min(all_a, all_b) - shared_all < _anchor_unshared(a)
        and not (a.exempts or b.exempts or a.adds or b.adds)
        and not (limits.anchor_complement and _complementary(a, b))
        and not _own_subjects(a, b)
    ):
        if min(all_a, all_b) == shared_all < max(all_a, all_b):
            # "Dates are stored in UTC" and "..., displayed in the user's time zone": the
            # shorter says nothing of its own, so the longer is it with more detail, and a
            # merge keeps the longer (it kept the first, deleting the detail)
            return Relation(DUPLICATE, round(dice, 2), MORE_DETAIL)
        return Relation(DUPLICATE, round(dice, 2), "says the same thing (about the same names)")
    if (
        dice >= limits.duplicate_similarity
        and unshared <= limits.duplicate_unshared
        and not (
            limits.exception_merge
            and (_excepting(a, limits) != _excepting(b, limits) or a.permits != b.permits)
        )
    ):  # a permission or exception against a plain rule is never that rule said twice
        return Relation(DUPLICATE, round(dice, 2), "says the same thing")
    if (
        _same_numbers(a, b, limits)
        and dice >= limits.number_similarity
        and not _subjects_of_one_name(a, b)
    ):
        return Relation(DUPLICATE, round(dice, 2), "says the same thing (the same values)")
    smaller_all = min(all_a, all_b)
    within = min(1.0, shared_all / smaller_all) if smaller_all else 0.0
    if within >= limits.duplicate_containment:
        return Relation(DUPLICATE, round(within, 2), MORE_DETAIL)
    return None
