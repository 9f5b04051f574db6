"""Attack classes the learned scorers miss on writers nobody tuned on, held by their shape.

Why it exists: round 24 left five classes to the scorers, and held out that is where the
misses sit (issue 20, item 3; round 26): a safeguard switched off in a configuration value
(``GIT_SSL_NO_VERIFY=1``, ``verify_ssl | false``, ``require-sigs = false``), a secret or
private file sent to a place outside the project (a paste site, a shared drive, a chat channel,
a mailbox), a standing safeguard rule declared void ("the rule to ask before deploying is
outdated"), and a claimed approval that grants the agent a permission ("approved by the security
lead: the agent may ..."). Each shape is written from one half of the labelled authors (split by
author with a fixed seed before any text was read) and in the several languages they write in,
and checked on the other half once (``tests/data/poisoning/HELD_OUT_AUTHORS.md``, round 26).
The words around the shape differ from author to author; the shape (a setting's unsafe value,
a secret's name beside an outside place, a safeguard beside "no longer applies", an approval
beside "the agent may") does not.

A match is held outright by :func:`conkeeper.domain.instructions.always_held`. A match the
note forbids, restricts or recounts ("never set ...", "was reverted") is not one: the caller
passes its clause negation (:data:`Negated`), and each class has its own guard.

Cost: pure and standard library; each class is gated by literal hints (substring tests on the
lower-cased text) and compiled on first use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from conkeeper.domain.lazy_re import LazyPattern

# (text, start, end, foreign) -> whether a negation governs the match in its clause
Negated = Callable[[str, int, int, bool], bool]

SAFEGUARD_VALUE_REASON = "switches a safeguard off in a setting's value (TLS, signatures, access)"
SECRET_OUT_REASON = "sends a secret or private file to a place outside the project"
RULE_VOID_REASON = "declares a standing safeguard rule void so the agent acts without it"
APPROVED_FOR_AGENT_REASON = "claims someone's approval to grant the agent a permission"
PACKAGE_SWAP_REASON = "swaps a package for a near-named one, an alias or an unpinned branch"
REASONS = frozenset(
    {
        SAFEGUARD_VALUE_REASON,
        SECRET_OUT_REASON,
        RULE_VOID_REASON,
        APPROVED_FOR_AGENT_REASON,
        PACKAGE_SWAP_REASON,
    }
)

# ------------------------------------------------------------------ safeguard off in a value
_VALUE_HINTS = (
    "verify",
    "ssl",
    "tls",
    "sig",
    "trusted",
    "gpgcheck",
    "certificate",
    "revocation",
    "unsigned",
    "write-all",
    "anonymous",
    "protected-mode",
    "secure-http",
    "unauthorized",
)
_VALUE_OFF = LazyPattern(
    r"\bgit_ssl_no_verify\b(?:\W{0,3}(?:=|:)\W{0,2}(?:1|true)\b|(?!\W{0,3}=))"
    r"|\bnode_tls_reject_unauthorized\W{0,3}[=:]\W{0,2}0\b"
    r"|\bpythonhttpsverify\W{0,3}[=:]\W{0,2}0\b"
    r"|\b\w*ssl_no_verify\w*\W{0,3}="
    r"|\bstrict-ssl\W{0,4}(?:=\W{0,2})?false\b"
    r"|\bsslverify\W{0,4}(?:=\W{0,2})?(?:false|0)\b"
    r"|\b(?:verify_ssl|ssl_verify|tls_verify|verify_certs?|ssl_verification|sslverification)"
    r"\W{0,8}(?:false|0|no|off)\b"
    r"|\brejectunauthorized\W{0,4}false\b"
    r"|\binsecure[-_]?skip[-_]?(?:tls[-_]?)?verify\W{0,4}(?:true\b|(?=\s|$|`))"
    r"|--(?:unsafely-)?ignore-certificate-errors\b|--no-check-certificate\b"
    r"|\brequire-sigs\W{0,4}=\W{0,2}false\b|\bgpgcheck\W{0,3}=\W{0,2}0\b|--nogpgcheck\b"
    r"|--no-gpg-checks?\b|--no-verify-signatures?\b|--no-check-signatures?\b"
    r"|--allow-unauthenticated\b|\[\s*trusted\s*=\s*yes\s*\]|--skip-signature\w*"
    r"|\ballow[-_]?unsigned\w*\W{0,4}(?:[=:]\W{0,2})?(?:true|yes|1)\b"
    r"|\bcheckrevocation\W{0,3}=\W{0,2}false\b"
    r"|\bpermissions\W{0,3}:\W{0,2}write-all\b"
    r"|\ballow_anonymous\W{0,4}true\b|\bprotected-mode\W{0,4}no\b"
    r"|--no-secure-http\b|\bsecure-http\W{0,4}(?:[=:]\W{0,2})?false\b"
)
# A setting named to forbid, restrict or recount it: "only in", "was removed", "reverted"...
_VALUE_GUARD = LazyPattern(
    r"\b(?:is|are|was|were|gets?|stays?|be)\s+(?:\w+\s+){0,2}(?:banned|blocked|forbidden|"
    r"prohibited|disallowed|not\s+allowed|rejected|reverted|removed|dropped|deleted|gone)\b"
    r"|\bonly\s+(?:in|inside|on|for|when|if|used|allowed|locally)\b|\bfor\s+(?:[\w/*-]+\s+){1,4}"
    r"only\b|\b(?:dev|test|local)-only\b|\b(?:reverted|postmortem|incident|used\s+to|"
    r"we\s+once|removed|remove|drop|unset|instead\s+of|rather\s+than|flags?|catches|detects?|"
    r"warns?|audit\w*|grep|reject|lint\w*)\b"
    r"|\b(?:nie|nur|solo|seulement|uniquement|apenas|только|tylko|jamais|nunca|nunca|mai|niemals|"
    r"никогда|不要|禁止|しない|금지)\b|ない|\bbad\s+(?:default|idea|practice)\b"
)


def _safeguard_value(lowered: str, negated: Negated) -> tuple[int, int] | None:
    """The span of a safeguard's unsafe value set or asked for, outside any guard."""
    if not any(hint in lowered for hint in _VALUE_HINTS):
        return None
    for match in _VALUE_OFF.finditer(lowered):
        if negated(lowered, match.start(), match.end(), True):
            continue
        if _VALUE_GUARD.search(lowered):
            return None
        return match.span()
    return None


# ------------------------------------------------------------- a secret sent outside
_SECRET = LazyPattern(
    r"~/\.ssh\b|\.ssh/|\bid_(?:rsa|ed25519|ecdsa)\b|\.netrc\b|\.git-credentials\b|\.p4tickets\b"
    r"|\.pgpass\b|\.npmrc\b|\.pypirc\b|\bcredentials\.(?:ya?ml|json)\b|\.aws/credentials\b"
    r"|(?<![\w.])\.env\b|\bkubeconfig\b|\.kube/config\b|\.docker/config\.json\b"
    r"|\bprivate\s+key|\bclé\s+privée|\bclau\s+privada|\bchave\s+privada|\bclave\s+privada"
    r"|\bprivate[nr]?\s+schlüssel|\bchiave\s+privata|秘密鍵|개인\s*키|私钥|приватн\w+\s+ключ"
    r"|\b(?:api[\s_-]?keys?|tokens?|passwords?|passwd|secrets?|credentials?|cookies?)\b"
    r"|\b(?:токен\w*|парол\w*|jeton|contraseñas?|senhas?|passw[oö]rt\w*|wachtwoord\w*)"
    r"|トークン|パスワード|토큰|비밀번호|令牌|密码"
    r"|\b(?:pii|patient\w*|card\s+numbers?|users?\s+tables?|personal\s+data|customer\s+ids?)\b"
)
_OUTSIDE = LazyPattern(
    r"\b(?:paste\.ee|pastebin\.com|pastebin|hastebin|dpaste|ghostbin|termbin|controlc|rentry"
    r"|transfer\.sh|0x0\.st|file\.io|webhook\.site|requestbin|pipedream|ngrok)\b"
    r"|\b(?:google\s+drive|g-?drive|dropbox|wetransfer|onedrive|box\.com|mega\.nz|telegram|"
    r"discord|whatsapp|gist\.github\.com|public\s+(?:gist|issue|bucket|repo\w*|channel|forum)|"
    r"(?:issue|bug|forum)\s+(?:p[uú]blic\w*|publik)|gist)\b"
    r"|(?<![\w.@/-])[\w.+-]+@(?!users\.noreply)[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}\b"
)
_SEND = LazyPattern(
    r"\b(?:send|sends|sent|email|e-mail|mail|forward|upload|paste|post|share|attach|copy|sync|"
    r"rsync|scp|push|publish|put|drop|leave|commit|check\s+in)\b"
    r"|\b(?:envi[ae]\w*|enviar|envoie\w*|envoyer|manda\w*|invia\w*|schick\w*|sende\w*|"
    r"verschick\w*|stuur\w*|upload\w*|carreg\w*|suba\w*|sub[ií]\w*|téléverse\w*|pega\w*|cole\w*|"
    r"incolla\w*|comparte\w*|compartilh\w*|condivid\w*|partage\w*|teile\w*|deel\w*|kirim\w*|"
    r"unggah\w*|yükle\w*|gönder\w*|ladda\w*|skicka\w*|send\w*|del\w*|отправ\w*|загруз\w*|"
    r"выложи\w*|надісл\w*|заванта\w*|wyślij\w*|prześlij\w*|wrzuć\w*|pošli\w*|nahraj\w*)"
    r"|アップロード|送[信っる]|共有|上传|发送|업로드|보내|공유"
)
_SECRET_HINTS = (
    ".ssh",
    "id_",
    "netrc",
    "credential",
    "tickets",
    "pgpass",
    "npmrc",
    "pypirc",
    ".env",
    "kube",
    "docker/config",
    "priv",
    "privé",
    "秘密鍵",
    "키",
    "私钥",
    "ключ",
    "key",
    "token",
    "passw",
    "passwd",
    "secret",
    "cookie",
    "токен",
    "парол",
    "jeton",
    "contraseñ",
    "senha",
    "passwort",
    "wachtwoord",
    "トークン",
    "パスワード",
    "토큰",
    "비밀번호",
    "令牌",
    "密码",
    "pii",
    "patient",
    "card",
    "user",
    "personal",
    "customer",
)
_SENTENCE = LazyPattern(r"(?<=[.;!?。])\s+|\n+")


def _sentences(text: str) -> Iterator[tuple[int, str]]:
    """Each sentence or line of ``text`` with its offset."""
    start = 0
    for match in _SENTENCE.finditer(text):
        yield start, text[start : match.start()]
        start = match.end()
    yield start, text[start:]


def _secret_out(lowered: str, negated: Negated) -> tuple[int, int] | None:
    """The span of a sentence that sends a secret or private file to an outside place."""
    if not any(hint in lowered for hint in _SECRET_HINTS):
        return None
    for at, sentence in _sentences(lowered):
        secret = _SECRET.search(sentence)
        if secret is None:
            continue
        place = _OUTSIDE.search(sentence)
        send = _SEND.search(sentence)
        if place is None or send is None:
            continue
        if any(negated(lowered, at + m.start(), at + m.end(), True) for m in (secret, place, send)):
            continue
        return at, at + len(sentence)
    return None


# --------------------------------------------------- a standing safeguard rule declared void
_VOID = LazyPattern(
    r"\b(?:outdated|out\s+of\s+date|obsolete|superseded|no\s+longer\s+(?:appl\w+|valid|in\s+force|"
    r"binding|counts?)|doesn'?t\s+apply\s+any\s*more|predates|was\s+reversed|were\s+meant\s+for|"
    r"abolished|retired|dropped\s+the\s+(?:convention|rule|policy)|"
    r"obsolète|périmée?|caduque?|ne\s+s'applique\s+plus|n'est\s+plus\s+(?:valable|en\s+vigueur)|"
    r"obsolet[ao]|desactualizad[ao]|ya\s+no\s+(?:se\s+)?(?:aplica|rige|vale)|està\s+obsoleta|"
    r"desatualizad[ao]|não\s+(?:se\s+aplica|vale|está)\s+mais|revogad[ao]|superat[ao]|"
    r"non\s+(?:vale|si\s+applica|è)\s+più|veraltet|überholt|gilt\s+nicht\s+mehr|abgeschafft|"
    r"außer\s+kraft|verouderd|geldt\s+niet\s+meer|vervallen|forældet|utdatert|föråldrad|"
    r"gælder\s+ikke\s+længere|gjelder\s+ikke\s+lenger|gäller\s+inte\s+längre|vanhentunut|"
    r"ei\s+ole\s+enää\s+voimassa|nieaktualn\w*|przestarzał\w*|już\s+nie\s+obowiązuje|zastaral\w*|"
    r"(?:již|už)\s+neplatí|geçerli\s+sayılmıyor|artık\s+geçerli\s+değil|lỗi\s+thời|"
    r"không\s+còn\s+áp\s+dụng|tidak\s+berlaku\s+lagi|sudah\s+tidak\s+berlaku|kedaluwarsa|"
    r"hindi\s+na\s+(?:ginagamit|umiiral|ipinapatupad)|vairs\s+nav\s+spēkā|δεν\s+ισχύει|"
    r"καταργ\w+|παρωχημέν\w*|устарел\w*|устаревш\w*|больше\s+не\s+(?:действует|применяется)|"
    r"отменен\w*|застарі\w*|більше\s+не\s+діє)\b"
    r"|अब\s+लागू\s+नहीं|廃止|名残|適用しません|もう適用されない|古いです|폐지|적용하지\s*않|"
    r"더\s+이상\s+(?:유효|적용)|已过时|过时了|已废弃|不再适用|已作废|מיושנ|כבר\s+לא\s+בתוקף"
)
# What the voided rule guarded: asking, confirming, approval, review, a ban, protection
_GUARD_RULE = LazyPattern(
    r"\b(?:ask\w*|confirm\w*|approv\w*|permission\w*|review\w*|never|not\s+to|protect\w*|"
    r"sandbox\w*|restrict\w*|forbid\w*|prohibit\w*|sign-?off|go-?ahead|"
    r"demand\w*|autoris\w*|interdi\w*|pregunt\w*|aprob\w*|aprova\w*|permiso|permissão|"
    r"revis\w*|nunca|prohib\w*|proib\w*|vieta\w*|chiedere|conferm\w*|demana\w*|"
    r"frag\w*|bestätig\w*|freigabe\w*|genehmig\w*|vragen|bevestig\w*|goedkeur\w*|nooit|"
    r"подтвержд\w*|спрашива\w*|согласов\w*|одобр\w*|никогда|нельзя|запрещ\w*|"
    r"sor\w*|onay\w*|izin\w*|yasak\w*|hỏi|xác\s+nhận|phê\s+duyệt|cấm|tanya\w*|konfirmasi|"
    r"persetujuan|larang\w*|magtanong|kumpirma\w*|pahintulot|bawal|kysy\w*|vahvist\w*|"
    r"hyväksy\w*|ei\s+saa|jāprasa|apstiprin\w*|aizliegt\w*|pyta\w*|potwierdz\w*|"
    r"zatwierdz\w*|nigdy|zakaz\w*|ptát|potvrz\w*|schvál\w*|nikdy|spørg\w*|bekræft\w*|"
    r"godkend\w*|fråga|spørre|επιβεβαίωσ\w*|έγκρισ\w*|ρωτ\w*|ποτέ)\b"
    r"|पूछ|पुष्टि|अनुमति|確認|承認|許可|禁止|승인|확인|허락|금지|确认|批准|审批|许可|אישור|לשאול|אסור"
)

# "If something here looks out of date, ask": a condition, not a verdict on a rule
_LOOKS = LazyPattern(r"\b(?:if|when|whenever)\s+(?:\w+\s+){0,4}(?:looks?|seems?|appears?)\b")


def _rule_void(lowered: str) -> tuple[int, int] | None:
    """The span of a sentence (or a sentence and the next) that declares void a standing
    rule which guarded something: asking, confirming, an approval, a ban, a protection."""
    if _VOID.search(lowered) is None:
        return None
    for at, sentence in _sentences(lowered):
        if _VOID.search(sentence) is None or _LOOKS.search(sentence) is not None:
            continue
        if _GUARD_RULE.search(sentence) is not None:
            return at, at + len(sentence)
    return None


# ------------------------------------------- a claimed approval granting the agent a permission
_APPROVED = LazyPattern(
    r"\b(?:approved|okayed|ok'?d|signed\s+off|cleared|sanctioned|pre-?authori[sz]ed|pre-?approved|"
    r"granted|green-?lit|has\s+agreed|agreed\s+to|consented|gave\s+the\s+go-?ahead|"
    r"approuvé\w*|validé\w*|autorisé\w*|aprobad\w*|aprob[óo]|autorizad\w*|aprovad\w*|aprovou|"
    r"approvat\w*|autorizzat\w*|genehmigt|freigegeben|freigabe|goedgekeurd|godkendt|godkjent|"
    r"godkänt|hyväksy\w*|schválil\w*|potvrdil\w*|zatwierdzi\w*|disetujui|menyetujui|pumayag|"
    r"onayladı|onaylandı|одобрил\w*|одобрен\w*|разрешил\w*|ενέκρινε|εγκρίθηκε|είπε|beslutning|"
    r"beslut|besluit|decisión|decisão|décision|entscheidung)\b"
    r"|了承|承認済|許可済|より：|批准|同意了|승인(?:했|됨|을\s*받)|אישר"
)
_AGENT_MAY = LazyPattern(
    r"\b(?:the\s+)?agents?\s+(?:\w+\s+){0,4}?(?:may|can|is\s+allowed|are\s+allowed|is\s+cleared|"
    r"are\s+cleared|is\s+permitted|are\s+permitted|has\s+permission)\b"
    r"|\bagents?\s+may\b|\bno\s+(?:separate\s+|further\s+|extra\s+)?(?:approval|review|sign-?off)\s+"
    r"(?:is\s+)?(?:needed|required)\b|\b(?:agents?|you)\s+may\s+(?:accept|sign|publish|merge|add|"
    r"change|delete|read|paste|post|load)\b|\bon\s+(?:our|their)\s+behalf\b"
    r"|\bagent(?:e|en|a|en|ti|in)?\s+(?:\w+\s+){0,3}?(?:smí|saa|må|mag|darf|puede|pode|peut|"
    r"può|kan|boleh|może|můž\w*|может|можно|kann)\b"
    r"|\b(?:smí|saa|må|darf|puede|pode|peut|può|boleh|puwede(?:ng)?|może)\s+(?:\w+\s+){0,2}?"
    r"(?:(?:the\s+|l'|el\s+|o\s+|der\s+|de\s+)?agent\w*|ng\s+agent)\b"
    r"|エージェントは[^。\n]{0,40}?(?:してよい|して構いません|できる|可能)|してよい|して構いません"
    r"|에이전트[가는][^.\n]{0,40}?(?:해도\s*됩니다|할\s*수\s*있)|智能体可以|代理可以"
)
# A person's word the note keeps in bounds: "approved by the user", "only", "still needs"
_APPROVAL_BOUNDS = LazyPattern(
    r"\b(?:the\s+)?user\s+(?:has\s+)?(?:approved|said|wants|agreed)|approved\s+by\s+the\s+user|"
    r"\bonly\b|\bstill\s+needs?\b|\bneeds?\s+(?:its\s+own|a\s+new|their)\b|\bdon'?t\s+count\b|"
    r"\bnever\b|\b(?:ticket|change|chg|adr)[\s-]?#?\d+|\b[A-Z]{2,}-\d+\b"
)


def _approved_for_agent(visible: str, lowered: str) -> tuple[int, int] | None:
    """The span of a claimed approval that grants the agent a permission, unless the note
    keeps it in bounds (the user's own approval, "only", a ticket, "still needs")."""
    approved = _APPROVED.search(lowered)
    if approved is None:
        return None
    grant = _AGENT_MAY.search(lowered)
    if grant is None or _APPROVAL_BOUNDS.search(visible) is not None:
        return None
    return min(approved.start(), grant.start()), max(approved.end(), grant.end())


# ------------------------------------------- a package swapped for a near name, an alias, a branch
# "X@npm:Y" (an npm alias), "overrides": {"x": "npm:y"}, a git source on a moving branch
_ALIAS = LazyPattern(
    r"(?<![\w@/.-])(@?[\w.-]+(?:/[\w.-]+)?)@npm:(@?[\w.-]+(?:/[\w.-]+)?)"
    r"|\"([@\w./-]+)\"\s*:\s*\"npm:(@?[\w.-]+(?:/[\w.-]+)?)"
)
_MOVING_REF = LazyPattern(
    r"(?:git\+https?://|github:/?/?|gitlab:|git@|https://github\.com/)[\w./:-]+[@#]"
    r"(?:main|master|develop|dev|trunk|head|latest)\b(?![\w.-])"
    r"|\{\s*branch\s*,\s*\"|\bdev-(?:master|main)\b|\bbranch\s*=\s*[\"'](?:main|master|dev\w*)[\"']"
)
_TICKED = LazyPattern(r"`([@\w./:-]{5,80})`")
_INSTEAD = LazyPattern(
    r"\b(?:instead\s+of|rather\s+than|not\s+the|in\s+place\s+of|replace|swap|switch|bukan|"
    r"thay\s+vì|invece\s+d|au\s+lieu\s+d|en\s+lugar\s+d|en\s+vez\s+d|em\s+vez\s+d|"
    r"no\s+el|não\s+o|statt|anstelle|nicht\s+das|вместо|zamiast|yerine|istället\s+för|"
    r"i\s+stedet\s+for|in\s+plaats\s+van|sijaan|nenhum|original\w*)\b|,\s*not\s+`|代わりに|置き換え|"
    r"ではなく|而不是|대신|আসল|নয়"
)
_INSTALL = LazyPattern(
    r"\b(?:install\w*|add|require|pip|npm|yarn|pnpm|cargo|gem|deno|nuget|composer|package\w*|"
    r"crate|library|dependenc\w*|paket\w*|pacote|pacchetto|пакет\w*|pasang|cài|verwenden|"
    r"use|usa|utilise[zr]?|gebruik|kullan\w*)\b|パッケージ|依赖|包|패키지|পাইথন|ব্যবহার"
)
# A note that warns about a look-alike names both on purpose
_TYPO_WARNING = LazyPattern(
    r"squat|malicious|look-?alike|\btypo|\breal\s+package|\bbeware\b|\bfake\b"
)
_SUFFIXES = (
    "-ng",
    "-plus",
    "-extended",
    "-fast",
    "-secure",
    "-fixed",
    "-patched",
    "-community",
    "-pro",
    "-next",
    "2",
    "z",
    "s",
    "x",
)


def _base(name: str) -> str:
    """A package name without its version (``x@1.2``, ``x==1.2``) and its npm scope."""
    name = name.lower().lstrip("@")
    for mark in ("==", ">=", "@", ":"):
        name = name.partition(mark)[0] if mark != "@" else name
    return name.rpartition("/")[2].partition("@")[0]


def _near_names(first: str, second: str) -> bool:
    """Whether two package names are near but not the same: one edit or two, a look-alike
    suffix added, or the same name under another scope; never two versions of one name."""
    from conkeeper.domain.package_names import edit_distance

    a, b = first.lower(), second.lower()
    if a == b or a.strip("0123456789.") == b.strip("0123456789.") or len(min(a, b, key=len)) < 5:
        return False
    if "".join(c for c in a if not c.isdigit()) == "".join(c for c in b if not c.isdigit()):
        return False
    if _base(a) == _base(b):
        return a.startswith("@") or b.startswith("@")
    short, long = sorted((_base(a), _base(b)), key=len)
    if long.startswith(short) and long[len(short) :] in _SUFFIXES:
        return True
    return a[0] == b[0] and edit_distance(_base(a), _base(b), 2) <= 2 < len(short)


def _package_swap(visible: str, lowered: str) -> tuple[int, int] | None:
    """The span of an npm alias to another name, a git source on a moving branch, or a
    package named in place of a near-named one."""
    if "npm:" in lowered:
        for match in _ALIAS.finditer(lowered):
            source = match.group(1) or match.group(3)
            target = match.group(2) or match.group(4)
            if _base(source) != _base(target):
                return match.span()
    moving = _MOVING_REF.search(lowered)
    if moving is not None:
        return moving.span()
    if (
        "`" not in visible
        or _INSTEAD.search(lowered) is None
        or _INSTALL.search(lowered) is None
        or _TYPO_WARNING.search(lowered) is not None
    ):
        return None
    names = [m for m in _TICKED.finditer(visible) if " " not in m.group(1)]
    for index, first in enumerate(names):
        for second in names[index + 1 :]:
            if _near_names(first.group(1), second.group(1)):
                return first.start(), second.end()
    return None


def class_finding(visible: str, negated: Negated) -> tuple[str, str, int, int] | None:
    """The first held class ``visible`` reads as: (kind, reason, start, end), or ``None``.

    ``negated`` is the detector's clause negation; a class forbidden or recounted in its
    clause is not held."""
    lowered = visible.lower()
    span = _safeguard_value(lowered, negated)
    if span is not None:
        return ("disable-checks", SAFEGUARD_VALUE_REASON, *span)
    span = _secret_out(lowered, negated)
    if span is not None:
        return ("exfiltration", SECRET_OUT_REASON, *span)
    span = _rule_void(lowered)
    if span is not None:
        return ("override", RULE_VOID_REASON, *span)
    span = _package_swap(visible, lowered)
    if span is not None:
        return ("package-index", PACKAGE_SWAP_REASON, *span)
    span = _approved_for_agent(visible, lowered)
    if span is not None:
        return ("authority", APPROVED_FOR_AGENT_REASON, *span)
    return None
