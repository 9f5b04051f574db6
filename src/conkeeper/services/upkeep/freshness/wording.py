"""An entry's wording brought to one form before :mod:`.relations` reads it.

Why it exists: two people write one rule in different clothes. One links the issue
(``[#1204](https://…)``), the other writes "Issue #1204"; one spells out "minimum supported Rust
version", the other writes "MSRV"; one signs the note ("— @kasia, 2024-03-01"), the other
does not. Word overlap then misses the duplicate, and a date read as a number even looks like
a conflicting value. :func:`normalise` removes the formatting that carries no rule (list
markers, Markdown emphasis, link targets, ISO dates but a date given as a value ("is
2026-03-01"), trailing attributions) and writes common
spelled-out software terms as the abbreviation people use for them (:data:`SPELLED_OUT`), so
both spellings meet as one concept; :data:`ALIASES` maps single-word variants ("w/", "repro",
"whl", "darwin") onto the word :mod:`.relations` already knows. Counts are one number
("50,000", "100k"), a switch given ``true``/``false`` is the switch said enabled or disabled
(`` `catchup=False` `` is "`catchup` disabled"), a few idioms are said plainly ("stays out
of git" is "never committed", work "in the background" is asynchronous), a frequency has one
form ("once per minute" and "every 60 seconds", "twice a year" and "every 6 months"), and so do
a percentile ("99th percentile", "p99") and a severity ("Severity 1", "SEV1"). Struck-through text
is kept; struck text followed by an arrow (``~~old~~ → new``) is reported: it marks a note
that something changed.

The tables are small, general software vocabulary shipped with the package (no download, no
model file); standard library only.
"""

from __future__ import annotations

import re


def _spelled(pairs: str) -> tuple[tuple[re.Pattern[str], str], ...]:
    """``"spelled out = abbreviation"`` lines as (pattern, replacement); a space or hyphen in
    the spelled-out form matches either."""
    table = []
    for line in pairs.strip().splitlines():
        long, _, short = line.partition("=")
        words = [re.escape(word) for word in long.split()]
        pattern = r"\b" + r"[\s-]+".join(words) + r"s?\b"
        table.append((re.compile(pattern, re.IGNORECASE), short.strip()))
    return tuple(table)


# Spelled-out terms and the abbreviation written for them (the abbreviation is the concept).
SPELLED_OUT = _spelled(
    """
    minimum supported rust version = msrv
    foreign function interface = ffi
    command line interface = cli
    command line = cli
    standard output = stdout
    standard error = stderr
    request for comments = rfc
    work in progress = wip
    application binary interface = abi
    application programming interface = api
    software development kit = sdk
    user interface = ui
    user experience = ux
    architecture decision record = adr
    level of detail = lod
    over the air = ota
    frames per second = fps
    bluetooth low energy = ble
    proof key for code exchange = pkce
    printed circuit board = pcb
    inter integrated circuit = i2c
    product detail page = pdp
    transcripts per million = tpm
    random number generator = rng
    end of life = eol
    long term support = lts
    single sign on = sso
    two factor authentication = 2fa
    multi factor authentication = mfa
    out of memory = oom
    time to live = ttl
    content delivery network = cdn
    virtual machine = vm
    operating system = os
    regular expression = regex
    developer certificate of origin = dco
    semantic versioning = semver
    calendar versioning = calver
    quality assurance = qa
    site reliability engineering = sre
    service level agreement = sla
    service level objective = slo
    infrastructure as code = iac
    role based access control = rbac
    access control list = acl
    cross site scripting = xss
    cross site request forgery = csrf
    cross origin resource sharing = cors
    content security policy = csp
    json web token = jwt
    transport layer security = tls
    secure shell = ssh
    personally identifiable information = pii
    personal data = pii
    just in time = jit
    ahead of time = aot
    machine learning = ml
    large language model = llm
    natural language processing = nlp
    dead letter queue = dlq
    write ahead log = wal
    object relational mapper = orm
    object relational mapping = orm
    read eval print loop = repl
    integrated development environment = ide
    static site generator = ssg
    server side rendering = ssr
    minimum viable product = mvp
    proof of concept = poc
    as soon as possible = asap
    web assembly = wasm
    webassembly = wasm
    homebrew = brew
    home brew = brew
    code owners = codeowners
    keep a changelog = keepachangelog
    change log = changelog
    continuous integration = ci
    time to first byte = ttfb
    key management service = kms
    amazon web services = aws
    google cloud platform = gcp
    google cloud storage = gcs
    google kubernetes engine = gke
    database administrator = dba
    customer managed encryption key = cmek
    anti money laundering = aml
    swift package manager = spm
    request for comment = rfc
    service account = service-account
    high performance computing = hpc
    research software engineer = rse
    frequently asked question = faq
    identity provider = idp
    message passing interface = mpi
    graphics processing unit = gpu
    central processing unit = cpu
    virtual private network = vpn
    virtual private cloud = vpc
    domain name system = dns
    network file system = nfs
    network attached storage = nas
    solid state drive = ssd
    load balancer = lb
    web application firewall = waf
    identity and access management = iam
    one time password = otp
    hardware security module = hsm
    data protection officer = dpo
    protected health information = phi
    extract transform load = etl
    data warehouse = dwh
    business intelligence = bi
    change data capture = cdc
    directed acyclic graph = dag
    optical character recognition = ocr
    single page application = spa
    progressive web app = pwa
    search engine optimization = seo
    search engine optimisation = seo
    remote procedure call = rpc
    release candidate = rc
    general availability = ga
    root cause analysis = rca
    mean time to recovery = mttr
    recovery point objective = rpo
    recovery time objective = rto
    high availability = ha
    disaster recovery = dr
    key performance indicator = kpi
    directly responsible individual = dri
    subject matter expert = sme
    principal investigator = pi
    end of day = eod
    out of office = ooo
    paid time off = pto
    accessibility = a11y
    internationalization = i18n
    internationalisation = i18n
    localization = l10n
    localisation = l10n
    """
)
# A few more spelled-out terms whose short form is a plain word (kept apart for readability).
SPELLED_OUT += _spelled(
    """
    dead letter = dlq
    azure active directory = aad
    microsoft entra id = aad
    microsoft graph = msgraph
    ms graph = msgraph
    estimated time of arrival = eta
    text message = sms
    backend for frontend = bff
    merge request = mr
    primary account number = pan
    card number = pan
    """
)
# Single-word variants of a word :mod:`.relations` reads ("w/" is "with").
ALIASES = {
    "pls": "please",
    "repro": "reproduction",
    "repros": "reproduction",
    "reproducer": "reproduction",
    "whl": "wheel",
    "whls": "wheel",
    "wheels": "wheel",
    "darwin": "macos",
    "osx": "macos",
    "mac": "macos",
    "benches": "benchmark",
    "bench": "benchmark",
    "benchmarks": "benchmark",
    "diags": "diagnostic",
    "diagnostics": "diagnostic",
    "perf": "performance",
    "infra": "infrastructure",
    "ctx": "context",
    "admin": "administrator",
    "admins": "administrator",
    "stats": "statistics",
    "tmp": "temporary",
    "temp": "temporary",
    "regexp": "regex",
    "regexes": "regex",
    "ticket": "issue",
    "tickets": "issue",
    "maintainers": "maintainer",
    "contributors": "contributor",
    "changelog.md": "changelog",
    "readme.md": "readme",
    "ci/cd": "ci",
    "utilise": "use",
    "utilize": "use",
    "employ": "use",
    "unreliable": "flaky",
    "flakey": "flaky",
    "unstable": "flaky",
    "intermittent": "flaky",
    "intermittently": "flaky",
    "quarantine": "isolate",
    "quarantined": "isolated",
    "quarantines": "isolates",
    "quarantining": "isolating",
    "mail": "email",
    "mails": "emails",
    "e-mail": "email",
    "e-mails": "emails",
    "overnight": "nightly",
    "lgtm": "approval",
    "lgtms": "approval",
    "defect": "bug",
    "defects": "bug",
    "outage": "incident",
    "outages": "incident",
    "credential": "secret",
    "credentials": "secret",
    "land": "merge",
    "lands": "merge",
    "landed": "merge",
    "landing": "merge",
    "landings": "merge",
    "bump": "upgrade",
    "bumps": "upgrade",
    "bumped": "upgrade",
    "bumping": "upgrade",
    "rapid": "fast",
    "speedy": "fast",
    "jdk": "java",
    "jre": "java",
    "front-end": "frontend",
    "back-end": "backend",
    "funcs": "function",
    "i/o": "io",
    "cpp": "c++",
    "cxx": "c++",
    "c#": "csharp",
    # short forms written in notes and chat
    "biz": "business",
    "hrs": "hours",
    "desc": "description",
    "descr": "description",
    "tkt": "ticket",
    "tkts": "tickets",
    "lvl": "level",
    "srv": "server",
    "srvs": "servers",
    "mktg": "marketing",
    "comms": "communication",
    "txn": "transaction",
    "txns": "transactions",
    "acct": "account",
    "accts": "accounts",
    "addr": "address",
    "approx": "approximately",
    "impl": "implementation",
    "devs": "developers",
    "engineers": "developers",
    "engineer": "developer",
    "programmers": "developers",
    "obsolete": "deprecated",
    "reboot": "restart",
    "reboots": "restart",
    "rebooted": "restart",
    "bounce": "restart",
    "flush": "purge",
    "flushed": "purged",
    "flushes": "purges",
    "mandatory": "required",
    "compulsory": "required",
    "forbidden": "banned",
    # short forms of general words (round 7)
    "mon": "monday",
    "tue": "tuesday",
    "tues": "tuesday",
    "wed": "wednesday",
    "thu": "thursday",
    "thur": "thursday",
    "thurs": "thursday",
    "fri": "friday",
    "1st": "first",
    "2nd": "second",
    "3rd": "third",
    "upd": "update",
    "ack": "acknowledge",
    "acks": "acknowledge",
    "acked": "acknowledge",
    "unacked": "unacknowledged",
    "sw": "software",
    "hw": "hardware",
    "fw": "firmware",
    "fe": "frontend",
    "imgs": "image",
    "pwd": "password",
    "mgmt": "management",
    "b4": "before",
    "wp": "wordpress",
    "ops": "operations",
    "gl": "gitlab",
}
# A percentile and a severity in one spelling: "99th percentile" and "99th-percentile" are
# "p99", "Severity 1" and "sev 1" are "sev1".
_PERCENTILE = re.compile(r"\b(\d{2}(?:\.\d+)?)(?:th)?[\s-]percentile\b", re.IGNORECASE)
_SEVERITY = re.compile(r"\b(?:severity|sev)[\s-]?(\d)\b", re.IGNORECASE)
# "priority 1", "priority-one" and "Priority One" are "P1" ("Priority 2 tickets" = "P2 tickets").
_PRIORITY = re.compile(r"\bpriority[\s-]?(zero|one|two|three|four|\d)\b", re.IGNORECASE)
_PRIORITY_WORDS = {"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4"}
# "UTF-8 (only)": a restriction in brackets restricts what it follows, as "UTF-8 only" does
# (read as a bracket of its own it restricted nothing).
_BRACKETED_ONLY = re.compile(r"\s*\(\s*(only|just|solely|exclusively)\s*\)", re.IGNORECASE)
# List markers before the entry's text ("- ", "* ", "1. ", or "- - " when a bullet quotes one).
_BULLET = re.compile(r"^\s*(?:(?:[-*+]|\d{1,3}[.)])\s+)+")
_LINK = re.compile(r"\[([^\]\n]*)\]\((?:[^)\s]*)\)")
_EMPHASIS = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_STRUCK = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
# "Not negotiable: ...", "No exceptions: ...", "Don't forget: ...": emphasis before the rule,
# whose "not" negates nothing the rule says
_EMPHATIC_LEAD = re.compile(
    r"^(?:(?:it'?s\s+)?not\s+negotiable|non-negotiable|no\s+exceptions?|no\s+excuses|"
    r"(?:don'?t|do\s+not|never)\s+forget|make\s+no\s+mistake|no\s+matter\s+what)"
    r"\s*(?:[:!\u2014-]|,)\s*",
    re.IGNORECASE,
)
_REPLACED = re.compile(r"~~(?=\S).+?(?<=\S)~~\s*(?:\u2192|->|=>)")  # "~~old~~ → new"
_DATE = re.compile(r"\(?\b\d{4}-\d{2}-\d{2}(?:[t ]\d{2}:\d{2}(?::\d{2})?z?)?\b\)?", re.IGNORECASE)
# ... except a date given as the value of a thing ("The cutover date is 2026-03-01"): one word
# a value can be compared by ("2026_03_01"), where a dated note's date is dropped.
_VALUE_DATE = re.compile(r"\b(is|are|was|were|=)\s+(\d{4})-(\d{2})-(\d{2})\b(?![t:\d])", re.I)
# "— @kasia", "(by @tomh)" at the end of an entry: who wrote it, not the rule.
_SIGNATURE = re.compile(
    r"\s*(?:[\u2014\u2013]|--|\s-)\s*(?:by\s+)?@[\w.-]{1,30}\s*[.,;]?\s*$"
    r"|\s*\((?:by\s+|via\s+|per\s+)?@[\w.-]+\s*\)\s*[.,;]?\s*$",
)
_WITH = re.compile(r"\bw/o\b|\bw/in\b|\bw/(?=\s)", re.IGNORECASE)
_WITH_WORDS = {"w/o": "without", "w/in": "within"}
# A range of two numbers is its two bounds: "between 3 and 12 replicas", "from 2 to 20 pods"
# say "min 3, max 12"; "bumped from 3.9 to 3.11" is a change, no range.
_CHANGE_VERBS = (
    "bumped",
    "upgraded",
    "moved",
    "migrated",
    "switched",
    "changed",
    "raised",
    "lowered",
)
_RANGE = re.compile(
    "".join(f"(?<!{verb} )" for verb in _CHANGE_VERBS)
    + r"\b(?:between|from) (\d[\w.]*) (?:and|to) (?=\d)",
    re.IGNORECASE,
)
# A switch given true or false (`` `catchup=False` ``, ``runAsNonRoot: true``,
# `` `"strict": false` ``): the switch said enabled or disabled, as a note in words would
# say it ("catchup is disabled"), so the two spellings meet and opposite values conflict.
_SWITCH_SPAN = re.compile(r'`"?([A-Za-z_][\w.-]*)"?\s*[=:]\s*(true|false)`', re.IGNORECASE)
_SWITCH = re.compile(r'(?<![`\w."-])"?([A-Za-z_][\w.-]*[A-Za-z_])"?\s*[=:]\s*(true|false)\b', re.I)


def _switch(match: re.Match[str], quote: str = "") -> str:
    """ "`catchup=False`" as "`catchup` disabled"."""
    state = "enabled" if match.group(2).lower() == "true" else "disabled"
    return f"{quote}{match.group(1)}{quote} {state}"


# A count written with thousands separators or a "k" ("50,000", "100k", "1.5k"): one number,
# so "50,000 core-hours" is not the two values 50 and 000 and "100k" is 100000.
_THOUSANDS = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?![\w,]|\.\d)")
# ... or with a space ("10 000 EUR", "1 000 000 rows"; a narrow or no-break space too) when
# the last group ends in "00" or the first has at most two digits: "500 503" stays two codes.
_SPACED_THOUSANDS = re.compile(
    r"(?<!\d )(?<![\w.,])(?:\d{1,2}|\d{3}(?=(?:[ \u00a0\u202f]\d{3})*[ \u00a0\u202f]\d00\b))"
    r"(?:[ \u00a0\u202f]\d{3})+(?![\w,]|\.\d|[ \u00a0\u202f]\d)"
)
# An amount with its currency before it ("€5,000", "$120", "EUR 5000") or as a sign after it
# ("5000 €", "5000€"), written "5000 EUR" as a person writes the code after the number.
_CURRENCY_SIGNS = {"€": "EUR", "$": "USD", "US$": "USD", "£": "GBP", "₪": "ILS", "₩": "KRW"}
_CURRENCY_SIGNS |= {"₺": "TRY", "R$": "BRL", "zł": "PLN", "Kč": "CZK"}
_CURRENCY_CODES = "EUR|USD|GBP|CHF|CZK|ILS|KRW|BRL|PLN|JPY|TRY"
_CURRENCY_BEFORE = re.compile(
    r"(?<![\w`$])(US\$|R\$|[€£₪₩₺]|\$(?=\d{2}|\d[.,]\d)|(?:" + _CURRENCY_CODES + r")\s)\s?"
    r"(\d+(?:\.\d+)?)(?!\w|\.\d)"
)
# "one million rows", "2 million requests", "1.5 million": one number.
_MILLION = re.compile(r"\b(\d+(?:\.\d+)?|one|two|three|five|ten)\s+million\b", re.IGNORECASE)
_MILLIONS = {"one": 1, "two": 2, "three": 3, "five": 5, "ten": 10}


def _million(match: re.Match[str]) -> str:
    """ "one million" and "1 million" as "1000000"."""
    word = match.group(1).lower()
    return f"{float(_MILLIONS.get(word, 0) or word) * 1e6:.0f}"


_CURRENCY_AFTER = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)\s?([€£₪₩₺]|(?:euros?|dollars?|Kč|zł|złotych|reais|shekels?|TL)\b)",
    re.IGNORECASE,
)
_CURRENCY_WORDS = {"euro": "EUR", "euros": "EUR", "dollar": "USD", "dollars": "USD", "kč": "CZK"}
_CURRENCY_WORDS |= {"zł": "PLN", "złotych": "PLN", "reais": "BRL", "tl": "TRY"}
_CURRENCY_WORDS |= {"shekel": "ILS", "shekels": "ILS"}


def _currency_after(match: re.Match[str]) -> str:
    """ "5000 €", "5000 euros" and "100 Kč" as "5000 EUR" and "100 CZK"."""
    sign = match.group(2)
    return f"{match.group(1)} {_CURRENCY_SIGNS.get(sign) or _CURRENCY_WORDS[sign.lower()]}"


def _currency_before(match: re.Match[str]) -> str:
    """ "€5000" and "EUR 5000" as "5000 EUR"."""
    sign = match.group(1).strip()
    return f"{match.group(2)} {_CURRENCY_SIGNS.get(sign, sign)}"


_KILO = re.compile(r"(?<![\w.,])(\d+(?:\.\d+)?)k\b", re.IGNORECASE)


def _kilo(match: re.Match[str]) -> str:
    """ "100k" as "100000"."""
    return f"{float(match.group(1)) * 1000:.0f}"


# "every night" is "nightly", "each week" is "weekly".
_EVERY = re.compile(r"\b(?:every|each|once a|once per)\s+(night|day|week|month|hour|year)\b", re.I)
_PERIODIC = {"night": "nightly", "day": "daily", "week": "weekly", "month": "monthly"}
_PERIODIC |= {"hour": "hourly", "year": "yearly"}
# How often, in one form (:func:`_often`): "once per minute", "every minute" and "every 60
# seconds" are "every 1 minute"; "every 24 hours" is "daily"; "twice a year" is "every 6
# months", "twice a day" "every 12 hours"; "two times weekly" and "twice a week" are "2 times
# weekly". Only exact equivalences: "twice a month" stays as it is written.
_COUNT = r"once|twice|thrice|one\s+time|two\s+times|three\s+times|four\s+times|\d+\s*(?:times|x)"
_TIMES_PER = re.compile(
    rf"\b({_COUNT})\s+(?:a|an|per|each|every)\s+(second|minute|hour|day|night|week|month|year)\b",
    re.IGNORECASE,
)
_TIMES_PERIODIC = re.compile(
    rf"\b({_COUNT})\s+(hourly|daily|nightly|weekly|monthly|yearly)\b", re.IGNORECASE
)
# ("every second Tuesday" is an ordinal: "second" is read after "once" only)
_EVERY_UNIT = re.compile(
    r"\b(?:every|each|once a|once per)\s+(minute)\b|\bonce (?:a|per) (second)\b", re.IGNORECASE
)
_EVERY_COUNT = re.compile(
    r"\b(?:every|each)\s+(\d+)\s?(seconds?|secs?|s|minutes?|mins?|hours?|hrs?|h|days?|months?)\b",
    re.IGNORECASE,
)
_COUNTS = {"once": 1, "one": 1, "twice": 2, "two": 2, "thrice": 3, "three": 3, "four": 4}
# A period's length in the next smaller unit, and that unit: a day is 24 hours.
_SPLIT = {
    "minute": (60, "seconds"),
    "hour": (60, "minutes"),
    "day": (24, "hours"),
    "night": (24, "hours"),
    "week": (7, "days"),
    "year": (12, "months"),
}
# "every 24 hours" is one whole period: the word for it.
_WHOLE = {
    ("second", 60): "every 1 minute",
    ("minute", 60): "hourly",
    ("hour", 24): "daily",
    ("day", 7): "weekly",
    ("month", 12): "yearly",
}
_PERIOD_OF = {"hourly": "hour", "daily": "day", "nightly": "night", "weekly": "week"}
_PERIOD_OF |= {"monthly": "month", "yearly": "year"}


def _count(word: str) -> int:
    """The count a frequency is said with ("twice", "3 times", "3x")."""
    head = word.lower().split()[0].rstrip("x")
    return _COUNTS[head] if head in _COUNTS else int(head)


def _per(count: int, period: str) -> str | None:
    """``count`` times per ``period`` as one form: the periodic word once ("weekly"), "every
    1 minute", an even split into the next smaller unit ("every 6 months"), else ``None``."""
    if count == 1:
        return _PERIODIC.get(period, f"every 1 {period}")
    whole, smaller = _SPLIT.get(period, (0, ""))
    if whole and whole % count == 0 and period != "week":
        return f"every {whole // count} {smaller}"
    return None


def _often(text: str) -> str:
    """Frequencies in one form (see :data:`_TIMES_PER`)."""

    def times_per(match: re.Match[str]) -> str:
        count, period = _count(match.group(1)), match.group(2).lower()
        said = _per(count, period)
        if said is not None:
            return said
        return f"{count} times {_PERIODIC[period]}" if period in _PERIODIC else match.group()

    def times_periodic(match: re.Match[str]) -> str:
        count, word = _count(match.group(1)), match.group(2).lower()
        return _per(count, _PERIOD_OF[word]) or f"{count} times {word}"

    def every_count(match: re.Match[str]) -> str:
        unit = match.group(2).lower().rstrip("s") or "s"
        unit = {"sec": "second", "s": "second", "min": "minute", "hr": "hour", "h": "hour"}.get(
            unit, unit
        )
        return _WHOLE.get((unit, int(match.group(1))), match.group())

    text = _TIMES_PER.sub(times_per, text)
    text = _TIMES_PERIODIC.sub(times_periodic, text)
    text = _EVERY_UNIT.sub(lambda m: f"every 1 {(m.group(1) or m.group(2)).lower()}", text)
    return _EVERY_COUNT.sub(every_count, text)


# Said in words: "steer clear of" is "avoid", "turned off" is "disabled", "switched on" is
# "enabled", "stays out of git" is "never committed", work "in the background" or a
# "background job" is asynchronous.
_WORDED = tuple(
    (re.compile(pattern, re.IGNORECASE), replacement)
    for pattern, replacement in (
        (r"\b(?:steer|steers|stay|stays)\s+(?:clear|away)\s+(?:of|from)\b", "avoid"),
        (r"\b(?:refrain|refrains)\s+from\b", "avoid"),
        (r"\b(?:turn|turns|turned|switch|switches|switched)\s+off\b", "disabled"),
        (r"\b(?:turn|turns|turned|switch|switches|switched)\s+on\b", "enabled"),
        (r"\b(?:compiled|stripped)\s+out\b", "disabled"),
        # "Rocket Loader is on for Vela" is "enabled"; "we are on Node 20" is no state
        (
            r"\b((?:is|are|stays|stay|remains|remain|be)\s+)on\b(?=\s*(?:[.;,)]|$|for\b|in\b))",
            r"\1enabled",
        ),
        (
            r"\b(?:stays?|stayed|kept|keep|remains?) out of (?:git|the repo(?:sitory)?|version "
            r"control)\b",
            "never committed",
        ),
        (r"\bin the background\b", "asynchronously"),
        (r"\bbackground (?=(?:jobs?|tasks?|workers?|process(?:es)?|threads?)\b)", "asynchronous "),
    )
)
# A time of day in one spelling: "2am", "2 AM" and "02:00" are all ``t0200``.
_CLOCK = re.compile(
    r"\b(\d{1,2})(?::(\d{2}))?\s?([ap])\.?m\b\.?|\b(\d{1,2}):(\d{2})\b(?!:\d)", re.IGNORECASE
)

# ... and with a dot or an "h" where a clock word says it is one ("klo 03.00", "kl. 3.00",
# "alle 03.00", "um 3.00 Uhr", "godz. 3.00", "à 03h00"): never a version or a decimal.
_DOTTED_CLOCK = re.compile(
    r"\b(?:klo|kl\.|ore|alle|um|godz\.|à|a las|às)\s+(\d{1,2})[.h](\d{2})\b", re.IGNORECASE
)


def _dotted_clock(match: re.Match[str]) -> str:
    """A time of day written with a dot or an "h" as ``tHHMM``."""
    hour, minute = int(match.group(1)), int(match.group(2))
    return f"t{hour:02d}{minute:02d}" if hour < 24 and minute < 60 else match.group()


# A daily cron schedule (```0 4 * * *```): minute and hour, the time of day it runs.
_CRON = re.compile(r"`?\b(\d{1,2})\s+(\d{1,2})\s+\*\s+\*\s+[\d*,-]+`?")


# "a quarter hour", "half an hour": minutes said in words.
_QUARTER = re.compile(
    r"\b(?:an?\s+)?(quarter|half)[\s-](?:of\s+)?(?:an?\s+)?hours?\b", re.IGNORECASE
)


def _minutes(match: re.Match[str]) -> str:
    """ "a quarter hour" and "half an hour" in minutes."""
    return "15 minutes" if match.group(1).lower() == "quarter" else "30 minutes"


def _cron(match: re.Match[str]) -> str:
    """A daily cron schedule as the time of day it runs (``tHHMM``)."""
    minute, hour = int(match.group(1)), int(match.group(2))
    return f"t{hour:02d}{minute:02d}" if hour < 24 and minute < 60 else match.group()


def _clock(match: re.Match[str]) -> str:
    """One time of day as ``tHHMM``."""
    if match.group(3):
        hour = int(match.group(1)) % 12 + (12 if match.group(3).lower() == "p" else 0)
        minute = int(match.group(2) or 0)
    else:
        hour, minute = int(match.group(4)), int(match.group(5))
    return f"t{hour:02d}{minute:02d}" if hour < 24 and minute < 60 else match.group()


_ARROW = re.compile(r"\s*(?:\u2192|->|=>)\s*")


def normalise(text: str) -> tuple[str, bool]:
    """The entry's text without formatting that carries no rule, spelled-out terms as their
    abbreviation; and whether it strikes old text through for new (``~~old~~ → new``: a
    superseding note)."""
    struck = _REPLACED.search(text) is not None
    text = _BULLET.sub("", text)
    text = _EMPHATIC_LEAD.sub("", text)
    text = _STRUCK.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _EMPHASIS.sub(r"\2", text)
    text = _VALUE_DATE.sub(r"\1 \2_\3_\4", text)
    text = _DATE.sub(" ", text)
    text = _CRON.sub(_cron, text)
    text = _QUARTER.sub(_minutes, text)
    text = _CLOCK.sub(_clock, text)
    text = _DOTTED_CLOCK.sub(_dotted_clock, text)
    text = _SIGNATURE.sub("", text.rstrip())
    text = _ARROW.sub(" ", text)
    for pattern, replacement in _WORDED:
        text = pattern.sub(replacement, text)
    text = _BRACKETED_ONLY.sub(r" \1", text)
    text = _often(text)
    text = _PERCENTILE.sub(lambda m: f"p{m.group(1)}", text)
    text = _SEVERITY.sub(lambda m: f"sev{m.group(1)}", text)
    text = _PRIORITY.sub(lambda m: f"P{_PRIORITY_WORDS.get(m.group(1).lower(), m.group(1))}", text)
    text = _EVERY.sub(lambda m: _PERIODIC[m.group(1).lower()], text)
    text = _WITH.sub(lambda m: _WITH_WORDS.get(m.group().lower(), "with"), text)
    text = _SWITCH_SPAN.sub(lambda m: _switch(m, "`"), text)
    text = _SWITCH.sub(_switch, text)
    text = _THOUSANDS.sub(lambda m: m.group().replace(",", ""), text)
    text = _SPACED_THOUSANDS.sub(lambda m: re.sub(r"\s", "", m.group()), text)
    text = _KILO.sub(_kilo, text)
    text = _MILLION.sub(_million, text)
    text = _CURRENCY_BEFORE.sub(_currency_before, text)
    text = _CURRENCY_AFTER.sub(_currency_after, text)
    text = _RANGE.sub(r"min \1, max ", text)
    for pattern, short in SPELLED_OUT:
        text = pattern.sub(short, text)
    return text, struck
