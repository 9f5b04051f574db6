"""Features of a memory entry for the learned instruction scorer: words, shapes and rule verdicts.

Why it exists: the phrase rules in :mod:`conkeeper.domain.instructions` catch the wordings their
author foresaw and miss much of what another author writes. The learned scorer
(:mod:`conkeeper.domain.instruction_model`) weighs general *shapes* as well as words: an ACTION
class (run remote code, send data, weaken a safeguard, hide from the user, install from
elsewhere, persist) met by an OBJECT class (secrets, checks, unknown hosts, the user) inside a
STEERING frame (an order, "always"/"whenever", a policy or claimed authority), against what makes
a note benign (an action inside the scope of a negation, "never use --no-verify", reads as
keeping a safeguard, where a negated protective act, "don't tell the PI" or "no need to
verify", reads as lowering one; a localhost or documented public host; a past-tense account).
The offline trainer (``tools/train_instruction_model.py``) and the detector both use this one
module, so a model is scored on exactly the features it was trained on.

Each piece of text yields a set of feature names, hashed by :func:`hashed` into a fixed table of
:data:`BUCKETS` weights (no vocabulary to store): lemma-like word stems and stem bigrams (marked
``~`` inside a negation's scope, which runs to the end of its clause, or inside quotation marks:
a mention, not an order), bigrams of the words' shape classes ("turn off the linter" and "disable
every scanner" share ``k:WEAKEN_SAFEGUARD``), character n-grams of words outside ASCII (other
languages), the opening word of each sentence, the shape classes per sentence (``c:``, an action
marked ``~`` when negated), their pairs and action x object x frame triples, the kinds of
unsafe setting named (``u:``, :mod:`conkeeper.domain.unsafe_settings`: what ``sslVerify false``
or ``continue-on-error: true`` does, marked ``~`` in a note that forbids or recounts it) and the
kinds the phrase rules found (``r:``). Look-alike Cyrillic and Greek letters inside a Latin
word, and small capitals anywhere, are folded to Latin first. :func:`entry_pieces` adds each line
(or sentence) of a longer entry and any base64 or ``\\xNN`` run that decodes to text as pieces
of their own. The lexicon holds common words of about twenty-six other languages too. Only the
first :data:`MAX_CHARS` characters are read; pure and standard library only, patterns compiled
on first use.
"""

from __future__ import annotations

import itertools
import zlib

from conkeeper.domain.lazy_re import LazyPattern

MAX_CHARS = 2000
MAX_TOKEN = 40  # longer runs (base64, hashes) are never words worth a weight
MAX_PIECES = 40
BUCKETS = 1 << 17
CHAR_GRAMS = 4

_TOKEN = LazyPattern(r"--?\w[\w-]+|\w+(?:'\w+)?|\||[.!?;:](?=\s|$)|[,()\n—–]")
_BREAKS = frozenset(".!?;:,()\n—–")
_SENTENCE = LazyPattern(r"(?<=[.;!?])\s+|\n+")
_LINE_SENTENCE = LazyPattern(r"(?<=[.!?])\s+")
# A run that may be base64, and a run of \xNN escapes: encoded text is decoded and scored too.
_ENCODED = LazyPattern(r"[A-Za-z0-9+/]{16,}={0,2}|(?:\\x[0-9a-fA-F]{2}){6,}")
# "never merge without review": a "without" inside a negation's scope undoes it (review is kept)
_WITHOUT = frozenset(
    [
        "without",
        "ohne",
        "sans",
        "sin",
        "senza",
        "sem",
        "без",
        "bez",
        "zonder",
        "utan",
        "uden",
        "uten",
    ]
)
_NEGATIONS = (
    frozenset(
        (
            "never",
            "not",
            "no",
            "don't",
            "dont",
            "doesn't",
            "didn't",
            "avoid",
            "refuse",
            "mustn't",
            "shouldn't",
            "won't",
            "can't",
            "cannot",
            "nor",
            "instead",
            "rather",
            "nothing",
            "none",
            "ne",
            "не",
            "nunca",
            "jamais",
            "não",
            "non",
            "kein",
            "keine",
            "nie",
            "niemals",
            "никогда",
            "нельзя",
            "jangan",
            "tidak",
            "tanpa",
            "inte",
            "aldrig",
            "ikke",
            "aldri",
            "nikdy",
            "לא",
            "אל",
            "ללא",
            "בלי",
            "μην",
            "δεν",
            "ποτέ",
            "niciodată",
            "älä",
            "soha",
        )
    )
    | _WITHOUT
)
# Cyrillic and Greek letters that look like Latin ones, folded inside a word that mixes scripts.
_SMALL_CAPS = str.maketrans("ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘꞯʀꜱᴛᴜᴠᴡʏᴢ", "abcdefghijklmnopqrstuvwyz")
_FOLD = str.maketrans("асеорхуіјѕԁһкмтвнαεορτυνικχ", "aceopxyijsdhkmtbhaeoptuvikx")

# Shape classes, as a lexicon: exact words, word prefixes (at least four letters) and phrases or
# symbols looked for as substrings. Kept general on purpose: a class names what a word *does*
# (weakens a safeguard), never one author's phrase. Looked up through dicts built on first use,
# so scoring compiles no large pattern (the hook path pays no regex compile for it).
# One line per class and list: "CLASS words|prefixes|phrases: ITEMS" (words and prefixes split on
# spaces, phrases on " | "); a class's list may run over several lines. Kept as one string (not a
# dict literal) so importing this module on the hook path compiles almost nothing.
_LEXICON = """\
run_remote words: curl wget iwr irm eval exec invoke-webrequest iex
run_remote prefixes: download
run_remote phrases: | sh | |sh | | bash | |bash | | zsh | | sudo sh | | sudo bash | | python
run_remote phrases: source <( | base64 -d | base64 --decode | npx -y | @latest | bash -c | sh -c
run_remote phrases: -o-
send words: send sends sent post posts posting share copy copies paste email e-mail
send words: beacon webhook pastebin gist ngrok requestbin telemetry scp rsync nc pipe
send words: dump exfil sending uploading
send prefixes: upload exfiltrat forward mirror sync attach transmit
send phrases: -d @ | --data | --upload-file | report back | report to | push to
weaken words: skip skips skipped skipping drop mute xfail noqa force forced unnecessary
weaken words: optional stale flaky obsolete off
weaken prefixes: disabl bypass ignor suppress silenc remov delet lower loosen relax weaken
weaken prefixes: downgrad overrid auto-approv autoapprov auto-merg automerg
weaken phrases: comment out | commented out | turn off | switch off | allow all
weaken phrases: without review | without checks | without tests | without asking
weaken phrases: without confirmation | no need | don't bother | --no-verify | --force
weaken phrases: --insecure | verify=false | verify = false | --trusted-host | || true | 777
weaken phrases: --dangerously | --yes | -y | -k
conceal words: silently quietly secretly discreetly covertly hidden hide invisibly
conceal prefixes: conceal invisib
conceal phrases: don't tell | do not tell | never tell | don't mention | do not mention
conceal phrases: never mention | don't inform | without telling | without asking
conceal phrases: without mentioning | don't report | don't show | don't log | don't ask
conceal phrases: never ask | don't alert | don't flag | behind the scenes | keep this between
conceal phrases: to yourself | keep it private | keep it secret
install_odd words: fork mirror whl tgz
install_odd phrases: --index-url | --extra-index-url | --registry | registry= | registry =
install_odd phrases: index-url = | pip install http | pip install git+ | npm config set
install_odd phrases: replace-with | source '
persist words: cron crontab systemd launchd startup alias persist persistent persistence
persist phrases: .bashrc | .zshrc | .profile | authorized_keys | postinstall | post-install
persist phrases: git hook | path= | path =
destroy words: sudo privileged cluster-admin root
destroy phrases: rm -rf | rm -fr | rm -r | reset --hard | clean -f | drop table
destroy phrases: drop database | force-push | force push | push -f | push --force | chmod 777
destroy phrases: chmod -r 777 | runasuser: 0 | as root | except: pass | --admin
destroy phrases: --no-preserve-root
deceive words: fake faked pretend lol
deceive phrases: say yes | say it | say that | report success | claim it | claim that
deceive phrases: look better | nobody notices | nobody will notice | no one notices
deceive phrases: no one will notice | hardcode | hard-code | trust me
secret words: secret secrets credential credentials creds token tokens password passwords
secret words: passwd apikey api_key ssh id_rsa id_ed25519 env keychain aws npmrc pypirc
secret words: netrc kubeconfig cookie cookies bearer oauth wallet git-credentials history
secret words: printenv
secret phrases: api key | private key | deploy key | access key | secret key | signing key
secret phrases: ssh key | gpg key | env var | environment variable | session id | _key
secret phrases: _token | _secret
safeguard words: test tests check checks ci hook hooks pre-commit verification verify tls ssl
safeguard words: https cert certs certificate certificates permission permissions sandbox
safeguard words: linter linters lint scanner scanners scan scans prompt prompts guardrail
safeguard words: guardrails safety security firewall mypy ruff eslint pytest coverage
safeguard words: assertion assertions assert asserts gpg 2fa mfa csp cors dependabot codeql
safeguard words: snyk bandit gitleaks trufflehog tsc
safeguard prefixes: audit review approv confirm signatur auth
safeguard phrases: branch protection | type check
local_host words: localhost staging internal
local_host phrases: 127.0.0.1 | 0.0.0.0 | [::1] | .local | .corp | .internal
user words: anyone nobody user users user's
user phrases: the human | the developer | the maintainer | the owner | the operator
user phrases: the team
untrusted_src words: readme
untrusted_src phrases: issue comment | web page | webpage | tool output | pr comment
untrusted_src phrases: pull request comment | this entry | this note | this memory | the bot
untrusted_src phrases: comments in | description of
steer words: always never whenever henceforth must required mandatory policy standing
steer words: rule assistant assistants agent agents ai claude llm model
steer phrases: every time | from now on | going forward | before any | before every
steer phrases: before each | after any | after every | after each | at the start | on every
steer phrases: in all future | future session | each session | make sure | be sure
steer phrases: remember to | you should | you must | you are
authority words: system official administrator anthropic openai operator supersedes
authority words: superseded precedence priority important urgent instruction instructions
authority words: directive directives
authority prefixes: admin authori overrid disregard supersed
authority phrases: security team | ignore all | ignore previous | ignore prior | ignore earlier
authority phrases: ignore the user | ignore any | note to the ai | note to ai
authority phrases: note to the agent | note to agent | note to the assistant
foreign_steer words: anteriores précédentes vorherigen precedenti siempre toujours immer sempre
foreign_steer words: sans sin ohne senza sem führe niemand nadie personne nessuno ninguém
foreign_steer words: passwort segreto
foreign_steer prefixes: ignora ignore olvid vergiss ignorier oubli instruc anweisung istruzion
foreign_steer prefixes: instruç borra supprim lösch elimina apag envía envoie schick invia ejecuta
foreign_steer prefixes: exécut esegui execut contraseñ секрет игнор инструкц
foreign_steer phrases: mot de passe | 忽略 | 指令 | 之前 | 删除 | 发送
foreign_steer phrases: 无视 | 無視 | 指示 | 削除 | 送信
negation words: never don't dont not no avoid refuse mustn't shouldn't won't
negation phrases: do not | must not | should not | rather than | instead of | is blocked
negation phrases: is banned | is forbidden | is not allowed
past words: was were had did caused broke happened found learned yesterday incident
past words: postmortem regression
past phrases: turned out | used to | last week | last time | last sprint | last release
past phrases: root cause
user words: usuario usuaria usuarios utilisateur utilisateurs nutzer benutzer nutzers utente
user words: utenti usuário usuários
user prefixes: пользовател
user phrases: ユーザー | 用户 | 用戶 | 使用者
weaken prefixes: desactiv deaktivier désactiv disattiv desativ отключ выключ überspring
weaken prefixes: salta omit omett borra bórra lösch supprim elimin удал пропуст
weaken phrases: 無効 | 禁用 | 关闭 | スキップ | 跳过 | 削除 | 删除 | 忽略 | 無視
conceal prefixes: erwähn verschweig oculta cache cacher nascond esconde скры умолч
conceal phrases: no le digas | no digas | no menciones | ne dis pas | ne signalez pas
conceal phrases: ne mentionnez pas | ne dites pas | sag nicht | nicht erwähnen | non dire
conceal phrases: non menzionare | não diga | não mencione | не сообщай | не говори
conceal phrases: не упоминай | 言わない | 伝えない | 報告しない | 知らせない | 不要告诉
conceal phrases: 不要提及 | 不要告知 | こっそり | 悄悄 | heimlich | en secreto | en silence
safeguard words: prueba pruebas teste testes
safeguard prefixes: escáner verific überprüf prüfung vérif провер seguridad sécurité
safeguard prefixes: sicherheit sicurezza segurança безопасн тест
safeguard phrases: テスト | 测试 | 測試 | 检查 | 檢查 | セキュリティ | 安全 | 証明書 | 证书
secret words: secreto secretos geheim segreti clave clé schlüssel chiave ключ ключи токен
secret prefixes: credencial identifiant zugangsdat credenzial пароль
secret phrases: パスワード | 密码 | 密碼 | トークン | 秘密 | 認証情報 | 凭证
send prefixes: envia enviar envoy schick sende invia отправ передай сube télévers hochlad
send phrases: 送信 | 发送 | 上传 | アップロード
steer words: siempre toujours immer sempre всегда
steer phrases: 常に | 必ず | 总是 | 始终 | 今後 | 以后
authority words: importante wichtig важно
authority prefixes: política politique richtlinie directiv anweisung instrucci instruç
authority prefixes: istruzion инструкц prevalec vorrang priorit приорит
authority phrases: 重要 | 指示 | 指令 | 優先 | 优先 | 規則 | 规则
negation words: nunca jamais nicht kein keine nie niemals não не никогда нельзя ne non
negation phrases: しないで | ないで | 不要 | 请勿 | 禁止 | 不可
self_ref phrases: these notes | these memory | this memory | the notes here | saved here
self_ref phrases: stored here | written here | these conventions | this file | estas notas
self_ref phrases: diesen notizen | diese notizen | ces notes | queste note | このメモ | 这些笔记
self_ref phrases: эти заметки | этих заметк | этим заметк
precedence words: regardless precedence priority prevail prevails prevalecen outrank outranks
precedence words: supersede supersedes wins vorrang priorité prioridad
precedence phrases: over the chat | over the user | take priority | takes priority
precedence phrases: higher priority | more important than | whatever the user | no matter what
precedence phrases: even if the user | even when the user | instead of what | 優先 | 优先
explain words: because means which why refers stands
explain phrases: so that | the reason | is a | is an | is the | are a | are the | for example
explain phrases: see | e.g. | i.e.
user words: gebruiker gebruikers kullanıcı kullanıcıya kullanıcının kullanıcıdan
user prefixes: użytkown użytkow користувач utilisat gebruik
user phrases: 사용자 | người dùng | उपयोगकर्ता | यूज़र | المستخدم | مستخدم
conceal words: verberg verzwijg ukryj ukrywaj gizle приховай
conceal phrases: 透露 | 隐瞒 | 隱瞞 | 別告訴 | 不要通知 | 숨기 | 알리지 | 말하지 | nie informuj
conceal phrases: nie mów | nie wspominaj | söyleme | bildirme | bahsetme | niet vertellen
conceal phrases: niet melden | zeg niet | não conte | não informe | non informare
conceal phrases: non segnalare | n'informe pas | не повідомляй | не кажи | не сообщать
conceal phrases: không báo | đừng nói | không nói | मत बताना | मत बताओ | لا تخبر | لا تذكر
conceal phrases: don't disclose | do not disclose | never disclose | don't bring up | not to the
conceal phrases: unless the user asks | unless asked | should not learn | shouldn't know
conceal phrases: can't see | cannot see | won't see | never see | won't notice | omit
weaken words: mock mocks mocked stub stubbed monkeypatch retry retries rerun overwrite
weaken words: tolerance xfail exclude excluded unhashed unencrypted plaintext
weaken phrases: return true | returns true | assert true | exit 0 | accept the current
weaken phrases: current output | to match the | always pass | make it pass | make them pass
weaken phrases: best run | --maxfail | continue-on | merge past | past them | without a second
weaken phrases: without filing | without consent | without approval | no prompt | unrestricted
weaken prefixes: wyłącz usuń pomiń silebil atla verwijder uitschakel overslaan видали вимкн
weaken prefixes: пропуст ігнор замок
weaken phrases: devre dışı | xóa | bỏ qua | हटा | छोड़ | احذف | تجاهل | تعطيل | تخطي | 삭제
weaken phrases: 건너뛰 | 비활성 | 무시 | 关掉 | 去掉 | 改成 | 바꿔 | 跳過 | 刪除
safeguard words: testy testów testler testleri testen antivirus virenscanner waf codeowners
safeguard words: tolerance golden snapshot snapshots expected race alarm alarms alerts alert
safeguard prefixes: bezpiecz güvenlik veiligheid безпек перевірк podpis imza підпис
safeguard phrases: kiểm thử | टेस्ट | परीक्षण | اختبار | 테스트 | 검사 | 검증 | bảo mật | सुरक्षा
safeguard phrases: أمان | 보안 | 서명 | chữ ký | 签名 | 署名 | 校验 | 断言 | アサーション
safeguard phrases: two-person | four-eyes | change request | second reviewer | code owner
secret words: hasło hasła şifre parola wachtwoord пароль токен pii pan pans ssn
secret prefixes: klucz anahtar sleutel
secret phrases: mật khẩu | पासवर्ड | كلمة المرور | 비밀번호 | 토큰 | 암호 | personal data
secret phrases: customer data | customer emails | card numbers | card data | dane osobowe
secret phrases: персональные данные | персональні дані | datos personales | données personnelles
secret phrases: personenbezogen | dati personali | dados pessoais | 个人数据 | 个人信息
secret phrases: 個人情報 | 개인정보 | kişisel veri | persoonsgegevens | 客户数据 | 顧客データ
send prefixes: wyślij wysył przesył gönder yükle stuur verstuur надішл відправ выгруж
send prefixes: вивантаж
send phrases: gửi | tải lên | भेज | أرسل | ارسل | 보내 | 전송 | 업로드 | 外传 | 传到 | 發送
outside words: external outside third-party offsite off-site personal unknown pastebin
outside words: telegram discord forum reddit unofficial unverified random public
outside prefixes: внешн зовніш zewnętrz extern harici extérieur esterno
outside phrases: third party | 外部 | 외부 | bên ngoài | बाहरी | خارجي | 第三方 | 公开
untrusted_src words: telegram discord forum ticket tickets changelog jira dependency's
untrusted_src phrases: code comment | a comment | fetched | forum post | downloaded from
untrusted_src phrases: chat message | slack message | an email | the email | 评论 | コメント
untrusted_src phrases: commentaires | kommentar | comentario | commento | комментар
claimed_ok words: approved authorised authorized confirmed cleared signed sign-off signoff
claimed_ok words: okayed greenlit waived waiver allowed permitted blessed exempt exception
claimed_ok words: ruled verbal void
claimed_ok prefixes: aprob approuv genehmig aprov zatwierdz onayla goedgekeur одобр подтверд
claimed_ok prefixes: схвал погодж dozwol izin erlaubt autoris autoriz
claimed_ok phrases: signed off | sign off | said it's fine | said it is fine | is fine | are fine
claimed_ok phrases: it's fine | is ok | is okay | are ok | ran the numbers | told us | has root
claimed_ok phrases: blanket | standing approval | pre-approved | preapproved | already approved
claimed_ok phrases: already handled | handled upstream | 批准 | 已批准 | 承認 | 승인 | phê duyệt
claimed_ok phrases: अनुमति | وافق | 同意 | 许可 | 認可 | 허가 | 이미 | 已经
role words: manager lead head director cfo ceo cto ciso vp legal lawyer lawyers counsel
role words: compliance infosec regulator vendor management dpo auditor auditors board owner
role words: sre support liaison
role prefixes: юрист menedżer yönetic leiter responsabil gerente prawnik hukuk
role phrases: 经理 | 上司 | 팀장 | 매니저 | 법무 | 法务 | 法務 | jefe | le chef | la direction
role phrases: 安全团队 | セキュリティチーム | 보안팀 | security team | platform team
precedence words: void outranks outrank override overrides priment prime primam prevalgono
precedence words: pierwszeństwo öncelik önceliklidir voorrang
precedence prefixes: pierwszeń önceli приоритет пріоритет
precedence phrases: no longer applies | no longer apply | counts as | trusted instruction
precedence phrases: instead of the user | over the user | above the user | follow the ticket
precedence phrases: ưu tiên | प्राथमिकता | أولوية | 우선 | 为准 | 為準 | 失效 | 無効 | 무효
precedence phrases: недействительн | нечинн | geçersiz | nieważn | ungültig | caduc
precedence phrases: ya no aplica | non vale più | even if | even though | despite | aunque
precedence phrases: même si | auch wenn | anche se | mesmo que | nawet jeśli | даже если
precedence phrases: навіть якщо | 即使 | たとえ | 하더라도 | ngay cả khi | भले ही | حتى لو
deceive words: vague vaguely green
deceive phrases: as green | as passing | as passed | as resolved | as success | as successful
deceive phrases: tell qa | say it passed | report the best | regardless of whether
deceive phrases: refer to it as | call it | melde immer | 报告成功 | 成功と報告
persist words: hourly autoload autoloads autostart autorun plist launchagent launchagents
persist words: schtasks logon login
persist phrases: scheduled task | every hour | every boot | on boot | at boot | on login
persist phrases: at login | tarea programada | tâche planifiée | geplante aufgabe | 定时任务
persist phrases: 计划任务 | 开机 | 起動時 | 自動起動 | 예약 작업 | zamanlanmış | zaplanowan
persist phrases: every session | each new session | jeder neuen sitzung | 每次会话
run_remote phrases: and run it | and execute it | run it | execute it | then run
meta words: malicious phishing attack attacks attacker injection injections suspicious
meta words: red-team impersonating pretending typosquat typo-squat
meta prefixes: impersonat
meta phrases: prompt injection | not instructions | are data | is data | not commands
meta phrases: pas des ordres | keine anweisungen | no son instrucciones | não são instruções
meta phrases: 不是指令 | 指示ではない | не инструкции | flag it | flag any | report it to
user_said phrases: user said | user asked | user wants | user approved | user explicitly
user_said phrases: approved by user | approved by the user | confirmed with user | user prefers
user_said phrases: confirmed with the user | user likes | user requested | the user asked
user_said phrases: nutzer hat gesagt | nutzer möchte | nutzer will | usuario pidió
user_said phrases: usuario quiere | l'utilisateur a demandé | l'utilisateur veut
user_said phrases: usuário pediu | utente ha chiesto | użytkownik prosił | kullanıcı istedi
user_said phrases: пользователь попросил | пользователь просил | ユーザーの希望 | 用户要求
user_said phrases: 사용자가 요청 | user once asked | they added it
asking words: ask asking asks question questions confirmation confirmations confirm confirming
asking words: re-asking reasking double-check sign-off
asking prefixes: bestätig pregunt confirmaç confirmac demand fragen chieder pergunt pytać
asking prefixes: sormad спрашив уточн підтвердж
asking phrases: check with | are you sure | 確認 | 确认 | 询问 | 물어 | 확인 | 묻지
self_ref phrases: memory file | memory notes | this memory file | the note | in memory | notes win
self_ref phrases: memory > | 이 메모 | 本条笔记 | 本笔记 | この記憶 | diese notiz | cette note
self_ref phrases: esta nota | questa nota | deze notitie | ta notatka | bu not | эта заметка
self_ref phrases: эту заметку | ця нотатка | цю нотатку | ghi chú này | यह नोट | هذه الملاحظة
self_ref phrases: this entry | this note | these instructions | memory entries
pressure words: hate hates hated annoy annoyed annoys exhausted grateful blame blamed yelled
pressure words: waste wastes costs micro-management momentum blunt nagging nag bother
pressure phrases: let down | letting down | on you | real seniors | molesta | odia | déteste
pressure phrases: hasst | nervt | 嫌い | 讨厌 | 싫어 | bothers | slows you | slow you
deceive words: disguise disguised harmless innocuous innocent neutral unrelated
deceive phrases: stand out | look like | looks like | under his name | under her name
deceive phrases: in his name | as the user | безобидн | unauffällig | inofensiv | round down
deceive phrases: simpler explanation | different explanation
persist words: recreate recreated re-add readd re-create resave pinned re-adds re-run
persist prefixes: recrie recrea ricrea recrée opnieuw заново знову odtwórz
persist phrases: write it back | copy of this | never merged | not be deleted | nie usuwać
persist phrases: vuelve a crear | neu anlegen | wieder anlegen | 다시 저장 | 重新写入 | 再作成
persist phrases: yeniden oluştur | global memory | globale | memoria global | mémoire globale
persist phrases: globalen | 全局 | グローバル | 글로벌 | глобальн | if this memory | if this note
persist phrases: is ever deleted | gets deleted | gets pruned | get pruned | is pruned
user words: pengguna användaren användare brugeren bruger brukeren uživatel uživatele
user words: uživateli utilizatorul utilizatorului utilizator felhasználó felhasználót käyttäjä
user words: käyttäjälle käyttäjän
user prefixes: χρήστ felhaszn käyttäj
user phrases: משתמש
conceal words: neříkej neinformuj nezmiňuj sembunyikan diam-diam
conceal phrases: jangan beri tahu | jangan memberi tahu | jangan bilang | jangan sebutkan
conceal phrases: tanpa memberi tahu | berätta inte | nämn inte | utan att berätta
conceal phrases: fortæl ikke | ikke fortæl | ikke fortell | nevn ikke | אל תספר | אל תגיד
conceal phrases: אל תזכיר | בלי לספר | מבלי לספר | μην πεις | μην αναφέρεις | nu spune
conceal phrases: nu menționa | ne szólj | ne említsd | älä kerro | älä mainitse | בשקט
weaken words: lewati abaikan matikan nonaktifkan lewatkan hapus inaktivera radera ignorera
weaken words: deaktiver deaktivera přeskoč přeskočit vypni vypnout smaž smazat ignoruj
weaken words: ohita poista hagyd kikapcsol töröl șterge dezactivează
weaken prefixes: inaktiv vypn smaz παράλειψ παρακάμψ παράκαμψ απενεργοπ διαγρ dezactiv
weaken prefixes: kikapcs ohit poist
weaken phrases: hoppa över | stäng av | ta bort | spring over | hopp over | slå av | slå fra
weaken phrases: sari peste | hagyd ki | דלג | השבת | כבה את | למחוק | מחק את | התעלם
weaken phrases: בלי לבדוק | tanpa pemeriksaan | tanpa review
safeguard words: pengujian pemeriksaan keamanan tester testerna kontroll kontroller testy
safeguard words: tesztek testit testejä
safeguard prefixes: säkerhet sikkerhed sikkerhet bezpečn δοκιμ ασφαλ ασφάλ teszt
safeguard phrases: בדיק | אבטח | טסט
secret words: rahasia kredensial lösenord adgangskode passord heslo hesla parola parolă
secret words: jelszó salasana
secret prefixes: hemlig κωδικ jelsz
secret phrases: kata sandi | סיסמ | אסימון | מפתח api | מפתחות
send words: kirim kirimkan unggah skicka send pošli odešli nahraj trimite küldd lähetä
send prefixes: skick odešl nahraj στείλ trimit küld lähet
send phrases: ladda upp | שלח | העלה ל
steer words: selalu alltid altid vždy πάντα mereu întotdeauna mindig aina
steer phrases: תמיד
claimed_ok words: disetujui godkänt godkänd godkendt godkjent schváleno aprobat
claimed_ok prefixes: schvál εγκρ jóváh hyväksy
claimed_ok phrases: sudah disetujui | אושר | מאושר
asking words: tanya bertanya konfirmasi fråga fråga spørg spør zeptat zeptej
asking phrases: tanpa bertanya | utan att fråga | uden at spørge | uten å spørre | bez ptaní
asking phrases: בלי לשאול | מבלי לשאול | לשאול
authority phrases: הוראה | הוראות
precedence words: prioritas prioritet prioritetu
precedence phrases: lebih utama | עדיפות | גובר על
outside words: eksternal externí extern
outside phrases: חיצוני
negation words: jangan tidak tanpa inte aldrig ikke aldri nikdy μην δεν ποτέ niciodată älä
negation phrases: לא | אל ת
protect words: tell tells inform informs notify notifies report reports mention mentions ask
protect words: asks confirm confirms verify verifies check checks review reviews approve approval
protect words: approvals wait escalate flag alert log logged list listed disclose show document
protect words: ticket tickets sign-off test tests scan audit validate diff diffing look
protect words: avisa avise avisar informa informe informar signaler signale melden informieren
protect words: bescheid avvisa avvisare segnala segnalare dire decir sagen revisar vérifier
protect words: prüfen verificar verifica controllare ticket tiket zgłoś powiadom sprawdź
protect prefixes: сообщ уведом провер заявк спрос спраш prevenir überprüf contrôl controleer
protect prefixes: vertel verifi revisi rapport
"""
_HOST = LazyPattern(
    r"https?://\S+|\b\d{1,3}(?:\.\d{1,3}){3}\b|"
    r"\b[a-z0-9-]+\.(?:io|xyz|top|ru|cn|tk|biz|info|cc|site|online|dev|app|net|co|me|sh)\b"
)
_KNOWN_HOSTS = (
    "localhost",
    "127.0.0.1",
    "0.0.0.0",
    "[::1]",
    "github.com",
    "docs.",
    "pypi.org",
    "registry.npmjs.org",
    "example.com",
)
_ACTIONS = (
    "unprotect",
    "run_remote",
    "send",
    "weaken",
    "conceal",
    "install_odd",
    "persist",
    "destroy",
    "deceive",
)
_OBJECTS = (
    "secret",
    "safeguard",
    "host",
    "local_host",
    "user",
    "untrusted_src",
    "self_ref",
    "outside",
    "asking",
)
_FRAMES = (
    "steer",
    "authority",
    "foreign_steer",
    "precedence",
    "claimed_ok",
    "role",
    "pressure",
)


class _Lexicon:
    """The lexicon as look-up tables, built once on first use."""

    def __init__(self) -> None:
        self.words: dict[str, set[str]] = {}
        self.prefixes: dict[str, list[tuple[str, str]]] = {}
        self.phrases: list[tuple[str, str]] = []
        for line in _LEXICON.splitlines():
            head, _, items = line.partition(": ")
            name, kind = head.split(" ")
            if kind == "words":
                for word in items.split():
                    self.words.setdefault(word, set()).add(name)
            elif kind == "prefixes":
                for prefix in items.split():
                    self.prefixes.setdefault(prefix[:4], []).append((prefix, name))
            else:
                self.phrases += [(p.strip(), name) for p in items.split(" | ") if p.strip()]
        # phrases by their first three characters: a phrase is looked for only when those
        # three occur in the text (shorter phrases are always looked for)
        self.by_head: dict[str, list[tuple[str, str]]] = {}
        self.short: list[tuple[str, str]] = []
        for phrase, name in self.phrases:
            if len(phrase) < 3:
                self.short.append((phrase, name))
            else:
                self.by_head.setdefault(phrase[:3], []).append((phrase, name))


_TABLES: list[_Lexicon] = []


def _lexicon() -> _Lexicon:
    if not _TABLES:
        _TABLES.append(_Lexicon())
    return _TABLES[0]


def segments(text: str) -> list[str]:
    """The pieces scored apart: the entry itself and, for an entry of several lines, each of
    its first :data:`MAX_PIECES` lines, else, for one line of several sentences, each sentence
    (a poisoned line buried among honest ones is scored on its own; a line keeps its clauses
    together, "bypass it; nobody will notice")."""
    head = text[:MAX_CHARS]
    parts = [line for line in head.splitlines() if line.strip()]
    if len(parts) <= 1:
        parts = [part for part in _LINE_SENTENCE.compiled.split(head) if part and part.strip()]
    if len(parts) <= 1:
        return [text]
    return [text, *parts[:MAX_PIECES]]


def stem(word: str) -> str:
    """A lemma-like stem: common English inflections stripped, so "disabling", "disabled",
    "disables" and "disable" share one weight."""
    if len(word) > 4 and word.isalpha():
        for suffix in ("ing", "ed", "es", "ly", "s"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                word = word[: -len(suffix)]
                break
        if word.endswith("e") and len(word) > 3:
            word = word[:-1]
    return word


def _fold(token: str) -> str:
    """Look-alike letters inside a Latin word folded to Latin; small capitals (a script no
    language writes in, "ᴀɢᴇɴᴛꜱ") always."""
    if token.isascii():
        return token
    token = token.translate(_SMALL_CAPS)
    if not any("a" <= c <= "z" for c in token):
        return token
    return token.translate(_FOLD)


_QUOTES = LazyPattern(r"(?<![\w'])'[^'\n]{3,120}'(?![\w'])|\"[^\"\n]{3,160}\"|“[^”\n]{3,160}”")


def _quoted_spans(lowered: str) -> list[tuple[int, int]]:
    """Where quoted text lies: words in quotation marks are mentioned, not ordered, so they
    read like words in a negation's scope."""
    if "'" not in lowered and '"' not in lowered and "“" not in lowered:
        return []
    return [match.span() for match in _QUOTES.finditer(lowered)]


class _Tokens:
    """One piece's tokens (lower-cased, look-alikes folded), each with its offset, whether it
    lies in a negation's scope, and where clauses break."""

    __slots__ = ("negated", "spans", "words")

    def __init__(self, lowered: str) -> None:
        self.words: list[str] = []
        self.spans: list[int] = []
        self.negated: list[bool] = []
        scope = False
        quoted = _quoted_spans(lowered)
        for match in _TOKEN.compiled.finditer(lowered):
            token = match.group()
            if quoted and any(a < match.start() < b for a, b in quoted):
                if len(token) <= MAX_TOKEN and token not in _BREAKS:
                    self.words.append(_fold(token))
                    self.spans.append(match.start())
                    self.negated.append(True)  # a mention in quotes, not an order
                continue
            if token in _BREAKS or token == "but":
                scope = False
                continue
            if len(token) > MAX_TOKEN:
                continue
            token = _fold(token)
            self.words.append(token)
            self.spans.append(match.start())
            self.negated.append(scope)
            if scope and token in _WITHOUT:
                scope = False
            elif token in _NEGATIONS or token.endswith("n't"):
                scope = True

    def negated_at(self, offset: int) -> bool:
        """Whether a class found at ``offset`` lies inside a negation's scope."""
        for start, negated, word in zip(self.spans, self.negated, self.words, strict=True):
            if start >= offset:
                return negated and offset == start
            if start + len(word) > offset:
                return negated
        return False


def classes(text: str) -> set[str]:
    """The shape classes present in a lower-cased piece of text (negation ignored)."""
    return {name for name, _ in _class_hits(text)}


def _class_hits(text: str) -> list[tuple[str, int]]:
    """Each shape class found in ``text`` with the offset of its first occurrence."""
    table = _lexicon()
    hits: dict[str, int] = {}
    words, prefixes = table.words, table.prefixes
    for match in _TOKEN.compiled.finditer(text):
        token = match.group()
        for name in words.get(token, ()):
            hits.setdefault(name, match.start())
        for prefix, name in prefixes.get(token[:4], ()):
            if token.startswith(prefix):
                hits.setdefault(name, match.start())
    heads = {text[i : i + 3] for i in range(len(text) - 2)}
    candidates = [table.short, *(table.by_head[h] for h in heads & table.by_head.keys())]
    for group in candidates:
        for phrase, name in group:
            at = text.find(phrase)
            if at >= 0 and (name not in hits or at < hits[name]):
                hits[name] = at
    for match in _HOST.finditer(text):
        if not any(known in match.group() for known in _KNOWN_HOSTS):
            hits.setdefault("host", match.start())
            break
    return list(hits.items())


_MEMO: dict[str, frozenset[str]] = {}
_MEMO_SIZE = 256


def _sentence_features(sentence: str, feats: set[str]) -> None:
    """Add one sentence's shape features to ``feats`` (memoised: an entry's sentences are read
    again as its own pieces)."""
    known = _MEMO.get(sentence)
    if known is None:
        if len(_MEMO) >= _MEMO_SIZE:
            _MEMO.clear()
        known = _MEMO[sentence] = frozenset(_shape_features(sentence))
    feats.update(known)


def _shape_features(sentence: str) -> set[str]:
    """Shape classes of one sentence (negated ones marked ``~``), their pairs and the
    action x object x frame triples, and the sentence's opening word."""
    feats: set[str] = set()
    tokens = _Tokens(sentence)
    if tokens.words:
        feats.add("sf:" + stem(tokens.words[0]))
    here: set[str] = set()
    for name, offset in _class_hits(sentence):
        if name == "protect":
            here.add("unprotect" if _protect_lowered(tokens) else "protect")
        elif name in _ACTIONS and tokens.negated_at(offset):
            here.add(name + "~")
        else:
            here.add(name)
    here.update(_translated_classes(tokens))
    if "user" in here or "self_ref" in here or "untrusted_src" in here:
        from conkeeper.domain.precedence import winner

        wins = winner(sentence)
        if wins:
            here.add("wins-" + wins)
    feats.update("c:" + name for name in here)
    ordered = sorted(here)
    feats.update("p:" + a + "+" + b for a, b in itertools.combinations(ordered, 2))
    actions = [a for a in _ACTIONS if a in here]
    frames = [f for f in _FRAMES if f in here] or ["none"]
    hedged = "hedged" if here & {"past", "explain"} else "plain"
    for action in actions:
        feats.add("a:" + action + "+" + hedged)
        for obj in _OBJECTS:
            if obj in here:
                feats.update("t:" + action + "+" + obj + "+" + frame for frame in frames)
    return feats


# "only tell the user about ...": a protective act narrowed to part of what it covers
_LIMITERS = frozenset(
    ["only", "just", "nur", "solo", "seulement", "uniquement", "apenas", "только"]
)


def _protect_lowered(tokens: _Tokens) -> bool:
    """Whether a protective act (tell, ask, review, verify, wait, file a ticket) lies inside a
    negation's scope or is narrowed by "only": "don't file a ticket or tell the PI", "no need to
    verify", "only tell the user about ..." lower a check, where a negated harmful act ("never
    disable the hook") keeps one."""
    table = _lexicon()
    before = ""
    for word, negated in zip(tokens.words, tokens.negated, strict=True):
        if (negated or before in _LIMITERS) and (
            "protect" in table.words.get(word, ())
            or any(
                word.startswith(prefix) and name == "protect"
                for prefix, name in table.prefixes.get(word[:4], ())
            )
        ):
            return True
        before = word
    return False


def piece_features(
    text: str, rule_kinds: frozenset[str] | set[str] = frozenset(), guarded_entry: bool = False
) -> set[str]:
    """The feature names of one piece of text (``rule_kinds``: the kinds the phrase rules found
    in the whole entry, given for the whole entry only; ``guarded_entry``: the one-line entry
    this sentence belongs to forbids or recounts the unsafe settings it names)."""
    lowered = text[:MAX_CHARS].lower()
    tokens = _Tokens(lowered)
    words = tokens.words
    stems = [stem(w) for w in words]
    feats: set[str] = {
        ("w:~" if negated else "w:") + s for s, negated in zip(stems, tokens.negated, strict=True)
    }
    marked = [
        ("~" if negated else "") + s for s, negated in zip(stems, tokens.negated, strict=True)
    ]
    feats.update("b:" + a + "_" + b for a, b in itertools.pairwise(marked))
    feats.update(_translated_features(words, tokens.negated))
    abstract = _abstracted(words, stems, tokens.negated)
    feats.update("k:" + a + "_" + b for a, b in itertools.pairwise(abstract))
    if not lowered.isascii():
        for word in set(words):
            if not word.isascii():
                feats.update(_char_grams(word))
    for sentence in _SENTENCE.compiled.split(lowered):
        if sentence and sentence.strip():
            _sentence_features(sentence, feats)
    feats.update(_squat_features(lowered, tokens))
    feats.update(_unsafe_features(lowered, tokens, guarded_entry))
    feats.update("r:" + kind for kind in rule_kinds)
    if rule_kinds:
        feats.add("r:any")
    if "`" in lowered:
        feats.add("s:code")
    if not lowered.isascii():
        feats.add("s:nonascii")
    return feats


_FILLERS = frozenset(
    (
        "the",
        "a",
        "an",
        "this",
        "that",
        "these",
        "those",
        "all",
        "any",
        "every",
        "some",
        "your",
        "our",
        "their",
        "its",
        "my",
        "to",
        "of",
        "for",
        "on",
        "in",
        "with",
        "and",
        "or",
        "it",
        "them",
    )
)


def _abstracted(words: list[str], stems: list[str], negated: list[bool]) -> list[str]:
    """The piece as a sequence of shape classes: each word with a class becomes its class name
    (``~`` inside a negation's scope), filler words drop out, any other word stays its stem;
    so "turn off the linter" and "disable every scanner" share ``weaken_safeguard``."""
    table = _lexicon()
    out: list[str] = []
    for word, stemmed, in_scope in zip(words, stems, negated, strict=True):
        if word in _FILLERS:
            continue
        names = table.words.get(word)
        name = min(names) if names else ""
        if not name:
            for prefix, candidate in table.prefixes.get(word[:4], ()):
                if word.startswith(prefix):
                    name = candidate
                    break
        if name:
            out.append(name.upper() + ("~" if in_scope else ""))
        else:
            out.append(stemmed)
    return out


def _translated_features(words: list[str], negated: list[bool]) -> set[str]:
    """The English word features of the words of other languages the glossary knows
    (:mod:`conkeeper.domain.instruction_glossary`): ``einfach`` weighs as "just" does."""
    from conkeeper.domain.instruction_glossary import translated

    marked = [
        ("~" if scope else "") + stem(english) for english, scope in translated(words, negated)
    ]
    feats = {"w:" + word for word in marked}
    feats.update("b:" + a + "_" + b for a, b in itertools.pairwise(marked))
    return feats


def _translated_classes(tokens: _Tokens) -> set[str]:
    """The shape classes of the English words the glossary reads a sentence of another
    language as (an act in a negation's scope marked ``~``, a negated protective act
    ``unprotect``)."""
    from conkeeper.domain.instruction_glossary import translated

    table = _lexicon()
    out: set[str] = set()
    for english, scope in translated(tokens.words, tokens.negated):
        names = set(table.words.get(english, ()))
        names.update(n for p, n in table.prefixes.get(english[:4], ()) if english.startswith(p))
        for name in names:
            if name == "protect":
                out.add("unprotect" if scope else "protect")
            elif name in _ACTIONS and scope:
                out.add(name + "~")
            else:
                out.add(name)
    return out


def _char_grams(word: str) -> list[str]:
    """Character n-grams of a word outside ASCII: 4-grams of an alphabetic word (inflected
    languages), 2-grams of a run of CJK characters (written without spaces between words)."""
    size = 2 if any(c >= "\u3040" for c in word) else CHAR_GRAMS
    padded = "<" + word + ">"
    return ["g:" + padded[i : i + size] for i in range(len(padded) - size + 1)]


def _squat_features(lowered: str, tokens: _Tokens) -> set[str]:
    """``s:squat`` when the text names a look-alike of a well-known package
    (:mod:`conkeeper.domain.package_names`) in an install command, in backticks or as an npm
    scope; ``s:squat~`` inside a negation's scope, or in a note that speaks of typo-squats (a
    warning about the look-alike, not an order to install it)."""
    from conkeeper.domain.package_names import look_alikes

    return {
        "s:squat~" if warned or tokens.negated_at(offset) else "s:squat"
        for offset, _name, _known, warned in look_alikes(lowered)
    }


def _unsafe_features(lowered: str, tokens: _Tokens, guarded_entry: bool) -> set[str]:
    """``u:KIND`` (and ``u:any``) for each kind of unsafe setting the text names
    (:mod:`conkeeper.domain.unsafe_settings`: TLS checks off, signatures unchecked, CI made to
    pass, permissions opened, expiry removed, assertions weakened); ``u:KIND~`` when the text
    forbids, restricts or recounts it, or names it inside a negation's scope or quotation marks
    ("never set ``verify=False``": a safeguard kept)."""
    from conkeeper.domain.unsafe_settings import guarded, unsafe_forms

    forms = unsafe_forms(lowered)
    if not forms:
        return set()
    kept = guarded_entry or guarded(lowered)
    out: set[str] = set()
    for kind, offset in forms:
        mark = "~" if kept or guarded(lowered, kind) or tokens.negated_at(offset) else ""
        out.update(("u:" + kind + mark, "u:any" + mark))
    return out


def hashed(feats: set[str]) -> list[int]:
    """Each feature name's bucket in the weight table (CRC-32: stable across runs and
    machines, unlike :func:`hash`)."""
    mask = BUCKETS - 1
    return list({zlib.crc32(f.encode("utf-8", "surrogatepass")) & mask for f in feats})


def entry_features(text: str, rule_kinds: frozenset[str] | set[str] = frozenset()) -> set[str]:
    """The feature names of a whole entry (kept for callers and tests that read names)."""
    return piece_features(text, rule_kinds)


def entry_pieces(text: str, rule_kinds: frozenset[str] | set[str]) -> list[list[int]]:
    """The hashed features of each scored piece: the whole entry (with the rules' verdict),
    then each line or sentence of a longer entry (without it: the verdict is the whole's), then
    any encoded text in it, decoded (base64, ``\\xNN`` escapes: an order nobody can read)."""
    parts = segments(text)
    whole = piece_features(parts[0], rule_kinds)
    decoded = _decoded(text[:MAX_CHARS])
    if decoded:
        whole.add("s:encoded")
    # the sentences of a one-line entry that forbids or recounts an unsafe setting keep its
    # polarity ("`strict-ssl=false` spread after the outage. We reverted it everywhere.")
    one_line = len(parts) > 1 and "\n" not in text[:MAX_CHARS].strip()
    guarded_entry = one_line and any(f.startswith("u:") and f.endswith("~") for f in whole)
    return (
        [hashed(whole)]
        + [hashed(piece_features(part, guarded_entry=guarded_entry)) for part in parts[1:]]
        + [hashed(piece_features(plain) | {"s:decoded"}) for plain in decoded]
    )


# A sentence's end inside a line, in any script ("。" closes a sentence with no space after it).
_PART_SENTENCE = LazyPattern(r"(?<=[.!?])\s+|(?<=[。！？])\s*")
# A soft sentence boundary (round 21): a capitalised word (a capital, then lower-case letters
# only: no "PyPI", "GitHub") after a lower-case word or a closing backquote, where an order
# with no full stop meets the padding written after it ("failing tests? just delete them Every
# new endpoint needs an entry"). A word that leads into a name ("in Playwright", "the Stripe",
# "off so Proxyman") is no boundary: cut there, a note's half loses the words that make it
# honest ("... a lint rule now blocks it").
_SOFT_BOUNDARY = LazyPattern(
    r"(?:(?<=\s)|^)(?!(?:a|an|the|to|of|for|in|on|at|by|via|into|from|with|and|or|but|so|if|"
    r"when|then|because|unless|until|while|our|your|their|its|my|this|that|these|those|as|"
    r"than|per|like|about|over|under|using|use|uses|used|run|runs|called|named|see|is|are|"
    r"was|were|be|been|s)\s)(?:[a-z]+|\S*`)(\s+)(?=[A-Z][a-z]+\b)"
)
MAX_PARTS = 40


def parts(text: str) -> list[str]:
    """The parts of a note read on their own at the part bar (round 20): each line of a note of
    several lines and each pair of adjacent lines, and each sentence of a line of several
    sentences with each pair of adjacent sentences, and the halves of a line or sentence at
    each soft boundary (round 21, :func:`_soft_halves`; ``[]`` for a note of one sentence with
    none). Padding (honest sentences added on an order's line or around it) dilutes the whole
    note's reading and a line's, never the reading of the sentences that give the order."""
    head = text[:MAX_CHARS]
    lines = [line.strip() for line in head.splitlines() if line.strip()]
    out: list[str] = []
    if len(lines) > 1:
        out += lines
        out += [f"{a}\n{b}" for a, b in itertools.pairwise(lines)]
    for line in lines:
        sentences = [s for s in _PART_SENTENCE.compiled.split(line) if s.strip()]
        if len(sentences) > 1:
            out += sentences
            out += [f"{a} {b}" for a, b in itertools.pairwise(sentences)]
    for line in lines:
        for piece in (line, *_PART_SENTENCE.compiled.split(line)):
            out += _soft_halves(piece.strip())
    return list(dict.fromkeys(out))[:MAX_PARTS]


def _soft_halves(sentence: str) -> list[str]:
    """The text before and after each soft boundary of ``sentence`` (a line or a sentence of
    one, :data:`_SOFT_BOUNDARY`): an order left without its full stop is read apart from the
    padding written after it on its line, without cutting the sentence into every capitalised
    name's fragments."""
    out: list[str] = []
    for match in _SOFT_BOUNDARY.compiled.finditer(sentence):
        head, tail = sentence[: match.start(1)].strip(), sentence[match.end(1) :].strip()
        if head and tail:
            out += [head, tail]
    return out


def part_pieces(text: str, rule_kinds: frozenset[str] | set[str]) -> list[list[int]]:
    """The hashed features of each of :func:`parts`, each read as a note of its own with the
    whole note's rule verdict (the rules' phrase matches survive padding; the scorer's reading
    of the whole does not)."""
    return [hashed(piece_features(part, rule_kinds)) for part in parts(text)]


def _decoded(text: str) -> list[str]:
    """Readable text hidden in encoded runs of ``text`` (at most three)."""
    if not any(c.isdigit() or c == "\\" for c in text) and "=" not in text:
        return []
    import binascii

    out: list[str] = []
    for match in _ENCODED.compiled.finditer(text):
        run = match.group()
        try:
            raw = (
                bytes.fromhex(run.replace("\\x", ""))
                if run.startswith("\\x")
                else binascii.a2b_base64(run + "=" * (-len(run) % 4))
            )
            plain = raw.decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            continue
        printable = sum(c.isprintable() for c in plain) >= 0.95 * len(plain)
        if (
            len(plain) >= 6
            and printable
            and sum(c.isalpha() or c == " " for c in plain) >= 0.6 * len(plain)
        ):
            out.append(plain)
        if len(out) == 3:
            break
    return out
