"""A small bilingual glossary: common words of other languages read as the English word they mean.

Why it exists: the learned instruction scorer (:mod:`conkeeper.domain.instruction_model`) learns
most of its word weights from notes written in English (four of every five labelled entries):
"just", "so", "anyway", "directly", "whenever", "quietly", "already" weigh towards an order
slipped in, "because", "we", "only", "incident" towards an explanation. A note in German or
Japanese shares none of those words, so the scorer judged it on a few character n-grams and
shape classes, and held the poisoning attempts of notes in other languages far less often than
those in English (67% against 80% held out). Here the acts a note can make an agent do (send,
upload, disable, skip, hide, run, install, trust, grant), their objects (password, key, user,
test, signature, mirror) and the discourse words around them, in about twenty languages, are
read as the English word (``einfach`` -> just, ``désactiver`` -> disable, ``こっそり`` ->
quietly), so the English weights apply to them. Hand-written from general vocabulary, not from
the labelled notes' phrasing.

Format, one English word per line: ``english: forms`` (``~english``: forms that carry their own
negation, Turkish ``söyleme`` "don't tell"). A form ending in ``*`` is a word prefix (at least
four letters), a form with ``_`` a run of words, a form in a script written without spaces
(Chinese, Japanese, Korean) is looked for inside words; any other form is a whole word. Checked
against an English word list: no form is a common English word or the start of one (the few
left, "sans", "sin", "dire", are rare in a note), so a note in English reads as before.
Pure and standard library only; the tables are built on first use.
"""

from __future__ import annotations

_GLOSSARY = """\
tell: sagen sag sagt erzähl* mitteil* dire dites decir digas diga dile dígale contar
tell: cuentes dica dizer conte contes zeggen zeg vertel* powiedz* mówić mów říct řekni říkej
tell: сказа* говор* скажи скажите сказати кажи розповід* 言わ 言う 伝え 告诉 告訴 말하 말해 알려
mention: erwähn* mentionn* mencion* menzion* vermeld* wspomin* wspomn* zmiň* zmín* zmiňuj*
mention: упомина* упомян* згаду* згада* 触れ 言及 提及 提到 언급
inform: informier* benachrichtig* informer informez informe informes informar informa informen
inform: informare informi avisar avise avisa avisen prévenir préviens prévenez avvisare avvisa
inform: signaler signalez segnalare segnala melden informuj* powiadom* uvědom* informova*
inform: сообща* сообщ* уведом* повідом* 知らせ 通知 告知 알리 통보
report: berichte berichten rapporter rapportez rapporteren reportar reporte reporta relatar
report: riferire riferisci zgłoś zgłos* nahlás* hlásit доклад* отчита* отчит* звітув* 報告
report: 汇报 报告 보고
ask: frage fragen frag fragt nachfrag* demander demandez demande demandes pregunt* chiedere
ask: chiedi chieda pergunt* vraag vragen vraagt pytać zapyta* pytaj* zeptej* zeptat ptát ptej
ask: спрашива* спроси* запрашива* пита* запита* 聞か 聞く 尋ね 询问 问 묻 물어
confirm: bestätig* confirmer confirmez confirmar confirme confirmen confermare conferma
confirm: confirmação confirmación bevestig* potwierdz* potwierdź potvrd* подтверд* підтверд*
confirm: 確認 确认 확인
approval: genehmig* freigab* freigegeben approbation approuv* aprobac* aprobad* aprueb* aprobar
approval: approvare approvato approvazion* aprovar aprovado aprovação goedkeur* goedgekeur*
approval: zatwierdz* akceptac* schvál* одобр* согласов* схвал* погодж* 承認 批准 审批 승인
review: überprüfung relecture revue revisión revisar revisione revisão beoordeling przegląd*
review: recenzj* revize ревью レビュー 審査 审查 审核 评审 리뷰 검토
check: prüf* überprüf* kontrollier* vérifi* contrôl* verificar verifica verifique verificare
check: verificación verificação verifiche comprob* controllare controlla controllo controle
check: controleer* controlar sprawdz* sprawdź weryfik* ověř* zkontrol* провер* перевір* 検証
check: チェック 確かめ 检查 校验 验证 检验 검증 검사 점검
disable: deaktivier* abschalt* ausschalt* désactiv* desactiv* disattiv* desativ* desabilit*
disable: deshabilit* uitschakel* uitgeschakeld uitzetten wyłącz* vypn* vypnut* deaktiv* отключ*
disable: выключ* вимкн* відключ* apagar apaga apague spegn* deslig* 無効 オフに 禁用 关闭 关掉 停用
disable: 비활성 끄
delete: lösch* supprim* effacer effacez eliminar elimina elimine eliminare borrar borra borre bórra*
delete: cancellare cancella cancellate excluir exclua exclui apagar usuń usun* usuwa* smaž*
delete: smaz* удал* удаля* видал* 削除 消す 消し 删除 删掉 삭제 지우
remove: entfern* retirer retirez quitar quita rimuov* rimosso remova
remove: retirar verwijder* odstraň* odstran* убери убрать прибер* 取り除 去掉 移除 제거
skip: überspring* sauter saute sautez saltar salta salte saltare pular pule pula overslaan
skip: pomiń pomij* pomin* přeskoč* пропуск* пропуст* пропуска* スキップ 飛ばし 跳过 略过 건너뛰
omit: weglass* auslass* omettre omets omettez omitir omite omita omettere ometti tralasci*
omit: weglaten vynech* опусти* опуска* 省略 생략
ignore: ignorier* ignorer ignorez ignorar ignora ignoren ignorare ignoreer* ignoruj* ignorova*
ignore: игнор* ігнор* 無視 忽略 无视 不理 무시
bypass: umgeh* umgang* contourn* eludir aggir* contornar omzeil* obejś* obejd* obchá* obejít
bypass: обход* обойд* обійт* 回避 迂回 绕过 绕开 우회
send: senden sende sendet schick* verschick* übermittel* envoie envoyer envoyez envoyé enví*
send: enviar envia enviou envie envío
send: mandar manda mande mandare invia* invii invio stuur sturen stuurt verstuur* verzend* wyśl*
send: wysył* przesł* przesył* pošl* posla* odešl* odesl* отправ* пошли переда* надісл* відправ*
send: надсила* 送信 送っ 送る 送り 发送 发给 发到 传给 보내 전송
upload: hochlad* hochgelad* téléverse* téléchargez_vers subir sube suba caricare carica
upload: uploaden wgraj* wgrywa* nahraj* nahrát загруз* выгруз* вивантаж* アップロード 上传
upload: 上載 업로드 올리
copy: kopier* copier copie copiez copiar copia copiare copiate kopiëren kopieer skopiuj* kopiuj*
copy: zkopíruj* kopír* копир* скопир* копіюв* скопіюй* コピー 复制 拷贝 복사
paste: einfüg* coller colle collez pegar pega pegue incoll* colar plak* wklej* vlož*
paste: вставь вставить встав* 貼り 貼る 粘贴 贴到 붙여
run: ausführ* ausgeführt exécut* lancer lancez ejecut* esegu* executar executa executem
run: uitvoer* uitgevoerd draai* uruchom* wykona* spust* spouště* запуст* выполн* виконай*
run: виконув* запуска* 実行 走らせ 执行 运行 실행 돌려
install: installier* installez instalar instala instale installare installa installeer*
install: zainstaluj* instaluj* nainstal* instalova* установ* встанов* インストール 導入 安装 설치
download: herunterlad* heruntergelad* télécharg* descarg* scaric* baixar baixe baixa pobierz*
download: pobra* stáhn* stahuj* скача* скачив* завантаж* ダウンロード 下载 다운로드 내려받
hide: versteck* verberg* verheimlich* cacher cachez ocult* escond* nascond* ukry*
hide: skrýt skryj* tají* zataj* скры* утаи* прихов* 隠す 隠し 隠蔽 隐藏 隐瞒 숨기 숨겨
quietly: heimlich stillschweigend leise unbemerkt discrètement silencieusement en_silence
quietly: en_silencio discretamente silenciosamente silenziosamente in_silenzio em_silêncio
quietly: stilletjes ongemerkt po_cichu potichu tiše тихо молча незаметно втихую непомітно
quietly: こっそり 黙って ひそかに 悄悄 默默 静默 暗中 몰래 조용히
always: immer toujours siempre sempre altijd zawsze vždy всегда завжди 常に いつも 必ず 总是 始终
always: 一律 항상 언제나
never: niemals jamais nunca nooit nigdy nikdy никогда ніколи 決して 绝不 从不 절대
whenever: jedes_mal jedesmal immer_wenn sobald chaque_fois à_chaque cada_vez siempre_que
whenever: ogni_volta sempre_que toda_vez elke_keer telkens zodra za_każdym_razem ilekroć
whenever: pokaždé kdykoli каждый_раз всякий_раз щоразу кожного_разу たびに 度に 毎回 每次 每当
whenever: 매번 때마다
every: jede jeder jedes jeden chaque cada ogni elke iedere każdy każda każde każdego každý
every: každá každé каждый каждая каждое каждого кожний кожна кожне кожного 每个 毎
all: alle tous toutes todos todas tutti tutte wszystkie wszystkich všechny všech все всех всі
all: всіх すべて 全て 全部 所有 모든 전부
just: einfach simplement simplemente semplicemente simplesmente gewoon simpelweg po_prostu
just: prostě jednoduše просто 単に とりあえず 只管 就行 그냥 단순히
directly: direkt directement directamente direttamente diretamente rechtstreeks bezpośrednio
directly: přímo напрямую прямо сразу напряму одразу 直接 そのまま 바로
anyway: sowieso trotzdem ohnehin quand_même de_toute_façon de_todos_modos de_todas_formas
anyway: igualmente comunque de_qualquer_forma mesmo_assim hoe_dan_ook i_tak tak_czy_inaczej
anyway: stejně beztak всё_равно все_равно все_одно どうせ とにかく 反正 无论如何 어차피 어쨌든
so: damit sodass so_dass afin pour_que para_que così affinché in_modo_che zodat żeby aby ať
so: чтобы щоб ように 以便 使得 도록
also: auch aussi también anche também ook też także také taky тоже также теж також
because: weil denn parce_que porque perché poiché omdat ponieważ protože потому_что так_как
because: тому_що ので 因为 由于 때문
only: nur seulement uniquement sólo solamente soltanto somente apenas alleen slechts
only: tylko jen pouze только лише тільки だけ のみ 只有 仅
we: wir unser unsere unseren unserem nous notre nosotros nuestro nuestra nuestros noi nostro
we: nostra nostri nós nosso nossa wij onze ons nasz nasza nasze náš naše naši мы наш наша наши
we: ми 私たち 我々 我们 우리
must: muss müssen musst doit doivent devez il_faut debe deben debes hay_que deve devono
must: bisogna devem moet moeten musi trzeba należy musí nutno должен должна должны нужно надо
must: повинен повинна потрібно треба 必須 べき 必须 务必 해야 반드시
need: brauche brauchst braucht nötig notwendig besoin necesario necesaria necesita necesitas
need: necessario necessaria necessário precisa precisam precisar nodig potrzeb* potřeb* нужн*
need: необходим* потрібн* 必要 需要 필요
without: ohne sans sin senza sem zonder bez без なしで せずに 无需 不经 없이
instead: stattdessen statt anstatt anstelle au_lieu plutôt en_lugar en_vez invece anziché
instead: em_vez ao_invés em_lugar in_plaats zamiast вместо замість 代わりに 代わり 代替 改用
instead: 而不是 대신
permanent: dauerhaft endgültig définitivement en_permanence permanentemente definitivamente
permanent: voorgoed blijvend na_stałe trwale trvale natrvalo навсегда постоянно назавжди
permanent: постійно 永久 ずっと 永远 一直 영구 영원히 계속
latest: neueste neuesten neuester aktuellste aktuellsten dernière última último ultima ultimo
latest: nieuwste najnowsz* nejnovější последн* останн* 最新 최신
faster: schneller beschleunig* accélér* rápido rápida acelerar veloce velocizz* sneller
faster: versnel* szybciej przyspiesz* rychleji zrychl* быстрее ускор* швидше пришвидш* 速く
faster: 高速 早く 加速 更快 加快 빠르게 빨리
flaky: instabil instabile instable inestable instável onbetrouwbaar niestabiln* nestabiln*
flaky: нестабильн* нестабільн* 不安定 不稳定 불안정
noise: rauschen bruit ruido rumore ruído ruis szum šum шум ノイズ 噪音 噪声 노이즈
already: bereits schon déjà già już již уже вже 既に すでに 已经 이미
trust: vertrau* confiance confiar confía confie confia fidarsi fidati fiducia vertrouw* zaufa*
trust: ufać důvěř* довер* довір* 信頼 信用 信任 相信 신뢰 믿
allow: erlaub* autoris* autoriz* permitir permite permita consentire consenti toestaan toegestaan
allow: zezwal* zezwol* pozwól* pozwala* povol* разреш* дозвол* 許可 允许 准许 허용
grant: gewähr* accorder accordez conceder concedere conceda nadaj* uděl* выда* нада*
grant: 付与 授予 부여
production: produktion* producción produzione produção productie produkcj* produkc* продакшн
production: продакшен прод продуктив* 本番 生产 生產 正式环境 운영 프로덕션
external: extern externe externen externes externer externo externa externos esterno esterna
external: esterni externí zewnętrzn* внешн* зовнішн* 外部 외부
public: öffentlich* publique público pública pubblico pubblica openbaar openbare publiczn*
public: veřejn* публичн* общедоступн* публічн* 公開 公开 公共 공개
personal: persönlich* privat privaten personnelle personale pessoal
personal: persoonlijk* prywatn* osobist* osobní soukrom* личн* особист* 個人 个人 私人 개인
unknown: unbekannt* inconnu* desconocid* sconosciut* desconhecid* onbekend* nieznan* neznám*
unknown: неизвестн* невідом* 不明 未知
unofficial: inoffiziell* non_officiel no_oficial non_ufficiale não_oficial nieoficjaln*
unofficial: neoficiální неофициальн* неофіційн* 非公式 非官方 비공식
official: offiziell* officiel* oficial* ufficial* officieel* oficjaln* oficiáln* официальн*
official: офіційн* 公式 官方 공식
mirror: spiegel* miroir espejo specchio espelho lustro lustra zrcadl* зеркал* дзеркал* ミラー
mirror: 镜像 미러
password: passwort kennwort mot_de_passe contraseña senha wachtwoord hasło hasła heslo hesla
password: пароль пароли паролі パスワード 密码 密碼 비밀번호 암호
token: токен токены токена トークン 令牌 토큰
key: schlüssel* clé clés clave claves chiave chiavi chave chaves sleutel* klucz* klíč* ключ*
key: 鍵 キー 密钥 키
secret: geheim* secreto secreta segreto segreta segredo tajn* tajemn* секрет* таємн* 秘密 机密
secret: 비밀
credentials: zugangsdaten anmeldedaten identifiants credencial* credenzial* inloggegevens
credentials: dane_logowania poświadcz* přihlašovací_údaje учётн* учетн* облікові 認証情報 凭证
credentials: 凭据 자격_증명
patient: patienten patientin paciente pacientes paziente pazienti pacjent* pacient* пациент*
patient: пацієнт* 患者 病人 환자
customer: kunde kunden kundin cliente clientes clienti klant klanten klient* клиент* клієнт*
customer: 顧客 客户 고객
log: protokoll* ログ 日志 日誌 로그
test: essai essais prueba pruebas teste testes testy testów тест* テスト 测试 測試 테스트
hook: フック 钩子 훅
signature: firma firme assinatura handtekening podpis* подпис* 署名 签名 서명
certificate: zertifikat* certificat certificats certificado* certificato* certificaat certyfikat*
certificate: certifikát* сертификат* сертифікат* 証明書 证书 인증서
security: sicherheit* sécurité seguridad sicurezza segurança beveiliging bezpieczeńst*
security: bezpečnost* безопасност* безпек* セキュリティ 安全 보안
warning: warnung* avertissement* advertencia* avviso waarschuwing* ostrzeżen* varován*
warning: предупрежден* попереджен* 警告 경고
error: fehler* erreur* errore* erro fout fouten błąd błęd* chyba chyby ошибк* помилк* エラー
error: 错误 报错 오류 에러
fail: fehlschlag* scheiter* échou* échec* fallar falla falle fallan fallo fallisc* fallit*
fail: falh* faalt falen mislukt* selh* пада* упал* 失敗 失败 실패
incident: vorfall* störung* incidente* incydent* инцидент* інцидент* 障害 インシデント 事故
incident: 故障 장애 사고
user: benutzer* nutzer* utilisateur* usuari* utent* usuári* gebruiker* użytkown* uživatel*
user: пользовател* користувач* ユーザー 用户 用戶 使用者 사용자
summary: zusammenfassung* résumé resumen riepilogo riassunto resumo samenvatting* podsumowan*
summary: shrnutí сводк* резюме підсумк* 要約 まとめ 总结 摘要 요약
add: hinzufüg* ergänz* füge ajout* añad* agreg* aggiung* adicion* acrescent* voeg toevoeg*
add: dodaj* přidej* přidat přidá* добав* дода* 追加 加入 添加 추가
replace: ersetz* ändere änder* remplac* changer changez reemplaz* sustitu* cambi* sostitu*
replace: substituir substitua trocar troque mudar mude vervang* wijzig* zastąp* zmień zmieni*
replace: nahraď* nahradit změň* změnit замени* замен* измени* змін* заміни* 置き換 変更 替换
replace: 更改 改成 改为 교체 변경 바꾸 바꿔
merge: zusammenführ* fusionner fusionne fusionar fusiona unisci mesclar samenvoeg* scalić scalaj
merge: sloučit слей смерж* мерж* злий マージ 合并 병합 머지
pretend: fingier* vortäusch* faire_semblant fingir finja finge fingere doen_alsof udawa* udaj*
pretend: předstír* притвор* делай_вид прикида* удава* ふりを 假装 伪装 척
green: grün grüne grünen verte verde verdes groen zielon* zelen* зелён* зелен* 緑 绿 초록
regenerate: regenerier* régénér* regenerar rigener* regenerer* regeneruj* перегенер* 再生成
regenerate: 重新生成 재생성
expected: erwartet* attendu* esperad* atteso attesa esperado verwacht* oczekiwan* očekávan*
expected: ожидаем* очікуван* 期待値 预期 期望 예상
history: verlauf historique historial cronologia histórico geschiedenis historia historii
history: истори* істори*
history: 履歴 历史 기록
note: notiz* nota notas notitie* notatk* poznámk* заметк* нотатк* メモ 笔记 备注 메모
memory: gedächtnis mémoire memoria memória geheugen pamięć paměť памят* 記憶 记忆 메모리
remember: merke merken erinner* souviens rappelle recordar recuerda ricorda* lembr* onthoud*
remember: zapamięt* pamatuj* zapamatuj* запомн* помни запам'ятай* 覚え 记住 기억
forget: vergiss* vergess* oubli* olvid* dimentic* esquec* vergeet vergeten zapomni* zapomeň*
forget: zapomenout забудь* забыть забуд* 忘れ 忘记 잊
session: sitzung* séance sesión sessione sessão sessie sesj* сесси* сеанс* сесі* セッション 会话
session: 세션
future: künftig* zukünftig* futuro futura futuros futuras futuri toekomstig* przyszł* budoucí
future: будущ* майбутн* 今後 将来 今后 以后 향후 앞으로
instruction: anweisung* instrucci* istruzion* instruç* instructie* instrukcj* pokyn* инструкц*
instruction: інструкц* 指示 指令 지시
priority: vorrang priorität* priorité* prioridad* priorità prioridade* voorrang prioriteit*
priority: pierwszeńst* priorytet* přednost* приоритет* пріоритет* 優先 优先 우선
rule: regel regeln règle* regla* regola* regra* reguł* pravidl* правил* 規則 ルール 规则 규칙
policy: richtlinie* politique* política* politica politiche beleid* polityk* политик* політик*
policy: ポリシー
policy: 策略 政策 정책
team: équipe* equipo equipos squadra equipe zespół zespoł* tým* チーム 团队 팀
manager: leiter* responsable jefe jefa gerente chefe leidinggevende kierowni* vedoucí
manager: руководител* начальник* керівник* 上司 部長 经理 领导 팀장 매니저
vendor: anbieter* lieferant* fournisseur* proveedor* fornitor* fornecedor* leverancier*
vendor: dostawc* dodavatel* поставщик* постачальник* ベンダー 供应商 厂商 공급업체 벤더
partner: partenaire* parceir* партнёр* партнер* パートナー 合作伙伴 파트너
forum: foro fórum форум* フォーラム 论坛 포럼
chat: чат* チャット 聊天 채팅
ticket: тикет* заявк* チケット 工单 티켓
comment: kommentar* commentaire* comentario* commento* comentário* opmerking* komentarz*
comment: komentář* комментар* коментар* コメント 评论 注释 댓글 주석
command: befehl* commande commandes comando comandos polecen* příkaz* команд* コマンド 命令 명령
save: speicher* enregistr* sauvegard* guardar guarda guarde salvare salva salvar opslaan
save: zapisz* ulož* сохран* збереж* 保存 저장
whatever: egal_was was_auch_immer quoi_que peu_importe lo_que_sea qualunque qualsiasi_cosa
whatever: o_que_for wat_dan_ook cokolwiek cokoli что_угодно що_завгодно 何でも 무엇이든 뭐든
regardless: unabhängig_davon quel_que_soit independientemente indipendentemente
regardless: independentemente ongeacht niezależnie bez_ohledu независимо незалежно 関係なく
regardless: 无论 不管 상관없이
automatically: automatisch automatiquement automáticamente automaticamente automatycznie
automatically: automaticky автоматически автоматично 自動 自动 자동
later: später plus_tard más_tarde después più_tardi depois mais_tarde później později позже
later: потом пізніше 後で 之后 稍后 나중에
better: besser mieux meilleur meilleure mejor meglio migliore melhor beter lepiej lepší lépe
better: лучше краще より良い 更好 더_좋
easier: einfacher plus_simple plus_facile más_fácil più_facile mais_fácil makkelijker łatwiej
easier: snazší jednodušší проще легче простіше 簡単 更简单 方便 편하
tip: tipp tipps astuce astuces consejo truco wskazówk* совет порада ヒント コツ 技巧 팁
complain: beschwer* nervt nerven énerv* plainte plaintes reclama reclaman queix* zeur* klag*
complain: narzeka*
complain: stěžu* жалу* раздража* бесит дратує скарж* 文句 苦情 嫌が 抱怨 불평 짜증
yourself: dich_selbst toi-même ti_mismo te_stesso você_mesmo jezelf sám сам сама 自分で 自己 스스로
avoid: vermeid* évite évitez évit* evit* vermijd* unika* unikn* vyhn* vyhýb* избега* избег*
avoid: уника* уникн* 避け 避免 피하
anyone: n'importe_qui cualquiera chiunque qualquer_um iedereen ktokolwiek кто_угодно
anyone: будь-хто 誰でも 任何人 누구나
admin: administrateur* administrador* amministrator* beheerder* správce
admin: администратор* адміністратор* 管理者 管理员 관리자
deployment: bereitstellung* déploiement* despliegue* rilascio implantação uitrol* wdrożeni*
deployment: nasazení развертыван* развёртыван* деплой* розгортан* デプロイ 部署 배포
maintainer: betreuer* mainteneur* mantenedor* manutentor* opiekun* сопровожда* мейнтейнер*
maintainer: メンテナ 维护者 메인테이너
auditor: prüfer* auditeur* revisore audytor* аудитор* 監査 审计 감사
task: aufgabe* tâche* tarea* compito compiti tarefa* taak zadani* zadań úkol* задач*
task: завдан* タスク 任务 과제
global: globale globalen globalement globales globali globais globaal globaln* globáln*
global: глобальн* 全局 グローバル 글로벌
tell: söyle* berätta fortæl* fortell* beri_tahu kasih_tahu bilang katakan nói cho_biết תספר
tell: לספר תגיד להגיד أخبر تخبر اخبر spune spuneți mondd szólj kerro πες πείτε
~tell: söyleme söylemeyin đừng_nói không_nói đừng_báo לא_לספר لا_تخبر لا_تقل nu_spune
~tell: nu_spuneți
mention: bahset* nämn* nævn* nevn* sebut* sebutkan đề_cập תזכיר להזכיר اذكر menționa* említsd
mention: mainitse αναφέρ*
~mention: bahsetme bahsetmeyin لا_تذكر nu_menționa không_đề_cập đừng_đề_cập
inform: bildir* informera beritahu informasikan thông_báo תודיע להודיע أبلغ ilmoita ενημέρω*
~inform: bildirme bildirmeyin
ask: fråga spørg* spør tanya* hỏi לשאול תשאל اسأل întreabă kérdezd kysy ρώτα
~ask: sormadan sormayın hỏi_lại
confirm: bekräfta bekræft* bekreft* konfirmasi xác_nhận تأكيد confirmă vahvista επιβεβαίω*
approval: onay* godkän* godkend* godkjen* persetujuan phê_duyệt אישור موافقة aprobare
approval: jóváhagy* hyväksyn* έγκρισ*
check: kontrol* kontrollera verifiera tjek* sjekk* periksa pemeriksaan kiểm_tra בדיקה לבדוק
check: تحقق فحص verifică verificare ellenőr* tarkist* έλεγχ*
disable: kapat* devre_dışı inaktivera stäng_av slå_fra slå_av nonaktifkan matikan tắt השבת
disable: לכבות عطل تعطيل أوقف kikapcsol* kapcsold_ki απενεργοπ*
delete: sil silin silmek radera slet slette slett* hapus xóa מחק למחוק احذف حذف șterge
delete: töröld törlés poista διέγραψε διάγραψε διαγραφ*
skip: atla atlayın atlayarak hoppa_över spring_over hopp_over lewati bỏ_qua דלג לדלג تخطى تخطي
skip: sari_peste
skip: hagyd_ki ohita παράλειψ* παράλειψε
ignore: yoksay* görmezden ignorera abaikan התעלם להתעלם تجاهل ignoră sivuuta αγνόησ*
bypass: تجاوز παράκαμψ* παρακάμψ*
send: gönder* skicka skick* sende kirim* gửi שלח לשלוח أرسل ارسل إرسال trimite* küldd
send: küld* lähetä στείλ* στέλν*
upload: ladda_upp last_opp unggah tải_lên העלה להעלות ارفع încarcă töltsd_fel feltölt*
upload: ανέβασ*
copy: kopiera kopier salin sao_chép העתק انسخ copiază másold kopioi αντίγραψ*
paste: tempel dán הדבק الصق lipește illeszd liitä επικόλλησ*
run: çalıştır* kör kjør kør jalankan chạy הרץ להריץ شغل تشغيل نفذ rulează execută
run: futtasd futtat* suorita εκτέλεσ* τρέξε
install: kurulum kurun installera installér pasang instal cài_đặt התקן להתקין ثبت تثبيت
install: instalează telepítsd telepít* asenna εγκατάστ*
download: indir indirin ladda_ner unduh tải_về הורד להוריד تنزيل descarcă letölt* κατέβασ*
hide: gizle* dölj* skjul* sembunyi* ẩn giấu הסתר להסתיר أخف إخفاء ascunde rejtsd elrejt*
hide: piilota κρύψ*
quietly: sessizce gizlice tyst i_tysthet stille âm_thầm lặng_lẽ בשקט بصمت بهدوء pe_ascuns
quietly: în_secret csendben hiljaa σιωπηλά
always: daima her_zaman alltid altid selalu luôn luôn_luôn תמיד دائما دائمًا mereu
always: întotdeauna mindig aina πάντα
never: asla aldrig aldri tidak_pernah không_bao_giờ אף_פעם أبدا niciodată soha ei_koskaan ποτέ
every: varje hver setiap mỗi כל كل fiecare minden jokainen κάθε
all: tüm bütün alla semua tất_cả toate toți kaikki όλα όλες όλους
only: sadece yalnızca endast kun hanya chỉ רק فقط doar numai csak vain μόνο
directly: doğrudan direkte langsung trực_tiếp ישירות مباشرة közvetlenül suoraan απευθείας
we: kami kita chúng_tôi chúng_ta אנחנו نحن εμείς
must: gerekir måste harus wajib phải חייב חייבים يجب trebuie kell täytyy πρέπει
need: gerek behöver behøver trenger perlu cần צריך
~need: không_cần gerek_yok
without: olmadan utan uden uten tanpa không_có בלי ללא بدون fără nélkül ilman χωρίς
instead: yerine istället i_stedet alih-alih thay_vì במקום بدلا بدلاً în_loc helyett
instead: sen_sijaan αντί
password: şifre* parola lösenord adgangskode passord kata_sandi sandi mật_khẩu סיסמה סיסמא
password: كلمة_المرور parolă jelszó jelszót salasana κωδικ*
key: anahtar* nyckel* nøgle* nøkkel* kunci khóa מפתח مفتاح cheie cheia kulcs* avain*
key: κλειδί
secret: gizli hemlig* hemmelig* rahasia bí_mật סוד סודי سري titk* salai* μυστικ*
user: kullanıcı* användar* bruger* bruker* pengguna người_dùng משתמש המשתמש למשתמש المستخدم
user: مستخدم utilizator* felhasználó* käyttäj* χρήστ*
test: testler testleri tes pengujian kiểm_thử בדיקות اختبار اختبارات teszt* τεστ
security: güvenlik* säkerhet* sikkerhed* sikkerhet* keamanan bảo_mật אבטחה أمان الأمان
security: securitate biztonság* tietoturva* ασφάλει*
external: harici ekstern* eksternal bên_ngoài חיצוני خارجي külső ulkoi* εξωτερικ*
public: herkese_açık offentlig* publik công_khai ציבורי علني nyilvános julki* δημόσι*
production: üretim produksjon produksi sản_xuất פרודקשן الإنتاج producție éles tuotanto*
production: παραγωγή
already: zaten çoktan redan allerede sudah כבר بالفعل deja már ήδη
anyway: ändå alligevel uansett
so: böylece så_att supaya để כדי
because: çünkü eftersom fordi karena vì כי لأن pentru_că mert koska επειδή
trust: güven lita_på stol_på stole_på percaya tin_tưởng לסמוך ثق încredere megbíz* luota
trust: εμπιστ*
faster: hızlı daha_hızlı snabbare hurtigere raskere lebih_cepat nhanh_hơn מהר أسرع
not: 不要 别 請勿 请勿 不得 禁止 しないで ないで するな ずに 않 말고 마세요
"""
# A negation in a script without spaces: Chinese puts it before the act it negates, Japanese
# and Korean after it (伝えないで, 말하지 마세요).
_NEGATES_BEFORE = frozenset(["不要", "别", "請勿", "请勿", "不得", "禁止"])
_MIN_PREFIX = 4


def _spaceless(char: str) -> bool:
    """Whether ``char`` is of a script written without spaces between words (Chinese,
    Japanese, Korean)."""
    return "\u3040" <= char <= "\u9fff" or "\uac00" <= char <= "\ud7af"


class _Glossary:
    """The glossary as look-up tables: whole words, prefixes by their first four letters, runs
    of words by their first word, and forms found inside words by their first character."""

    def __init__(self) -> None:
        self.words: dict[str, str] = {}
        self.prefixes: dict[str, list[tuple[str, str]]] = {}
        self.runs: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        self.inside: dict[str, list[tuple[str, str]]] = {}
        for line in _GLOSSARY.splitlines():
            english, _, forms = line.partition(": ")
            for form in forms.split():
                self._add(form, english)
        for table in (*self.prefixes.values(), *self.inside.values()):
            table.sort(key=lambda item: -len(item[0]))  # the longest form first
        for runs in self.runs.values():
            runs.sort(key=lambda item: -len(item[0]))

    def _add(self, form: str, english: str) -> None:
        if _spaceless(form[0]):
            self.inside.setdefault(form[0], []).append((form.replace("_", " "), english))
        elif "_" in form:
            parts = tuple(form.split("_"))
            self.runs.setdefault(parts[0], []).append((parts, english))
        elif form.endswith("*") and len(form) > _MIN_PREFIX:
            self.prefixes.setdefault(form[:_MIN_PREFIX], []).append((form[:-1], english))
        else:
            self.words.setdefault(form.rstrip("*"), english)


_TABLES: list[_Glossary] = []


def _glossary() -> _Glossary:
    if not _TABLES:
        _TABLES.append(_Glossary())
    return _TABLES[0]


def _word(table: _Glossary, word: str) -> str:
    """The English word one word of another language means (``""``: none known)."""
    english = table.words.get(word)
    if english:
        return english
    for prefix, meaning in table.prefixes.get(word[:_MIN_PREFIX], ()):
        if word.startswith(prefix):
            return meaning
    return ""


def _inside(table: _Glossary, word: str, negated: bool) -> list[tuple[str, bool]]:
    """The English words of the forms found inside a word of a script without spaces, in
    order, each with whether a negation covers it."""
    found: list[tuple[int, str, str]] = []
    for at, char in enumerate(word):
        for form, english in table.inside.get(char, ()):
            if word.startswith(form, at):
                found.append((at, form, english))
                break
    out: list[tuple[str, bool]] = []
    scope = negated
    for _at, form, english in found:
        if english == "not":
            if form in _NEGATES_BEFORE:
                scope = True
            elif out:
                out[-1] = (out[-1][0], True)
            continue
        out.append(_meaning(english, scope))
    return out


def _meaning(english: str, scope: bool) -> tuple[str, bool]:
    """An English word and whether a negation covers it (a form that carries its own
    negation, Turkish ``söyleme`` "don't tell", is read as negated: ``~tell``)."""
    if english.startswith("~"):
        return english[1:], True
    return english, scope


def translated(words: list[str], negated: list[bool]) -> list[tuple[str, bool]]:
    """The English words that ``words`` (lower-cased tokens, each with whether it lies in a
    negation's scope) mean, in order, each with its negation; words the glossary does not know
    (English ones among them) give nothing."""
    table = _glossary()
    out: list[tuple[str, bool]] = []
    index = 0
    while index < len(words):
        word, scope = words[index], negated[index]
        step = 1
        english = ""
        for parts, meaning in table.runs.get(word, ()):
            if tuple(words[index : index + len(parts)]) == parts:
                english, step = meaning, len(parts)
                break
        if not english and not word.isascii() and any(map(_spaceless, word)):
            out += _inside(table, word, scope)
        elif not english:
            english = _word(table, word)
        if english:
            out.append(_meaning(english, scope))
        index += step
    return out
