"""Cues of meaning for the learned correction scorer (F7), read from a sentence's words.

Why: the scorer's word features learn the phrasings of the authors it was trained on; a new
author who corrects the agent without a negation word ("use the v2 endpoint", "that belongs in
conftest.py", "you put it last") or in another language shares few of those words. What such
corrections share is their *meaning*: they point back at what the agent just did, ask for an
earlier state back, set one thing against another, name the right alternative, narrow the
scope, state a team convention, challenge a choice, or complain about time lost. Each cue here
is one such meaning over many phrasings, so its weight learned from one author applies to the
next.

Two normalisations come first: informal and non-native spellings are read as the word they
stand for ("u forgot" is "you forgot"), and a sentence in another language has the words that
carry a correction (negation, "instead", undo, "again"/"still"/"same", "you did") replaced by
English ones (:func:`gloss`), so the weights learned from English prompts apply to it. The
gloss is a small word list, not a translator.

Round 7 adds the shapes of a redirect and of a new task (:func:`_redirect_cues`): an
imperative whose object is already there ("use the staging DB") against one whose object is
new ("add a staging DB"), "that/it" + a copula or a verb of place, "you" + an irregular past,
"the one you ...", "should be", "actually"/"instead", and a terse line carrying a value.

Round 8 widens the gloss to Czech, Swedish, Danish, Norwegian and Ukrainian, and to the words a
redirect is made of in the languages already read ("use the", "put", "change", "leave",
"should be", "old", "you put/used/forgot"); a short ASCII sentence is no longer taken for
English on one shared word ("cofnij to": Polish). Tuning figures (the strict run, blind 15
and train_extra8 held out; round 8's parameter choice, no verdict): low recall .651/.545 ->
.672/.581 with the gloss, medium .746/.628 -> .751/.660.

Cost: this runs on the UserPromptSubmit hook path when the scorer is consulted. Every cue is a
set or sequence look-up over the sentence's tokens; the one regular expression (a contrast
"X, not Y") is compiled only for a sentence that has "not" in it.
"""

from __future__ import annotations

from itertools import pairwise

from conkeeper.domain.lazy_re import LazyPattern
from conkeeper.services.analysis.corrections.structure import (
    LIKE_THE_REST,
    LIKE_THE_REST_HINTS,
    gives_up,
    sarcastic_exhibit,
)


def _words(text: str) -> frozenset[str]:
    """A set of words from a space-separated list."""
    return frozenset(text.split())


# informal and non-native spellings read as the word they stand for ("u forgot" = "you forgot")
SPELLING = {
    "u": "you",
    "ya": "you",
    "ur": "your",
    "pls": "please",
    "plz": "please",
    "dont": "don't",
    "didnt": "didn't",
    "doesnt": "doesn't",
    "isnt": "isn't",
    "wont": "won't",
    "cant": "can't",
    "thx": "thanks",
    "im": "i'm",
    "ive": "i've",
    "youre": "you're",
    "shouldve": "should've",
}
# the correction words of other languages, by the English word they stand for (one to
# :data:`GLOSS_LONGEST` words each, written as :func:`gloss` reads them: its words joined by one
# space; a phrase is matched before its words)
_GLOSS = {
    # German
    "nicht": "not", "nein": "no", "kein": "no", "keine": "no", "falsch": "wrong",
    "falsche": "wrong", "falschen": "wrong", "statt": "instead", "stattdessen": "instead",
    "anstatt": "instead", "rückgängig": "undo", "wieder her": "restore", "zurück": "back",
    "immer noch": "still", "noch immer": "still", "schon wieder": "again", "wieder": "again",
    "derselbe": "same", "dieselbe": "same", "dasselbe": "same", "gleiche": "same",
    "gleichen": "same", "fehler": "error", "du hast": "you have", "sie haben": "you have",
    "bitte": "please", "ich meinte": "i meant", "gelöscht": "deleted", "verwenden": "use",
    "hör auf": "stop",
    # Portuguese
    "não": "no", "nao": "no", "errado": "wrong", "errada": "wrong", "em vez de": "instead of",
    "ao invés de": "instead of", "você": "you", "voce": "you", "vc": "you", "volta": "revert",
    "voltar": "revert", "desfaz": "undo", "reverte": "revert", "apagou": "deleted",
    "de novo": "again", "mesmo": "same", "mesma": "same", "continua": "still", "erro": "error",
    "arquivo": "file", "já tentamos": "already tried",
    # Spanish
    "en lugar de": "instead of", "en vez de": "instead of", "cambiaste": "you changed",
    "borraste": "you deleted", "sigue": "still", "todavía": "still", "otra vez": "again",
    "igual": "same", "mismo": "same", "misma": "same", "fallando": "failing",
    "falla": "fails", "deshaz": "undo", "revierte": "revert", "ya": "already",
    "no hay problema": "no problem", "nie ma problemu": "no problem",
    "kein problem": "no problem", "pas de problème": "no problem",
    # French
    "pas": "not", "au lieu de": "instead of", "tu as": "you have", "vous avez": "you have",
    "encore": "again", "toujours": "still", "même": "same", "mauvais": "wrong",
    "faux": "wrong", "le bon": "the right", "la bonne": "the right", "remets": "restore",
    "annule": "undo", "erreur": "error",
    # Polish
    "nie": "not", "źle": "wrong", "zle": "wrong", "zamiast": "instead", "cofnij": "revert",
    "przywróć": "restore", "znowu": "again", "ponownie": "again", "nadal": "still",
    "dalej": "still", "to samo": "same", "błąd": "error", "użyj": "use",
    "prosiłem": "i asked", "prosiłam": "i asked", "tylko": "only",
    # Italian
    "non": "not", "sbagliato": "wrong", "sbagliata": "wrong", "invece di": "instead of",
    "invece": "instead", "di nuovo": "again", "ancora": "still", "stesso": "same",
    "stessa": "same", "hai": "you have", "ripristina": "restore", "annulla": "undo",
    "torna": "revert", "ti avevo detto": "i told", "ho detto": "i said", "errore": "error",
    "usa": "use", "solo": "only",
    # Dutch
    "niet": "not", "nee": "no", "fout": "wrong", "verkeerd": "wrong", "verkeerde": "wrong",
    "in plaats van": "instead of", "weer": "again", "opnieuw": "again",
    "nog steeds": "still", "hetzelfde": "same", "dezelfde": "same", "terug": "back",
    "je hebt": "you have", "gebruik": "use", "alleen": "only", "ik zei": "i said",
    # Turkish
    "değil": "not", "hayır": "no", "yanlış": "wrong", "yerine": "instead", "yine": "again",
    "tekrar": "again", "hala": "still", "hâlâ": "still", "aynı": "same", "geri al": "undo",
    "kullan": "use", "sadece": "only", "hata": "error", "söyledim": "i said",
    # Russian
    "не": "not", "нет": "no", "неправильно": "wrong", "неверно": "wrong", "вместо": "instead",
    "снова": "again", "опять": "again", "всё ещё": "still", "все еще": "still",
    "до сих пор": "still", "то же самое": "same", "тот же": "same", "та же": "same",
    "ты": "you", "вы": "you", "верни": "restore", "откати": "revert", "отмени": "undo",
    "я просил": "i asked", "я просила": "i asked", "я же сказал": "i said",
    "я сказал": "i said", "ошибка": "error", "используй": "use", "только": "only",
    # more of the languages above
    "nochmal": "again", "benutze": "use", "nimm": "use", "te dije": "i told",
    "eu disse": "i said", "utilise": "use", "arrête": "stop",
    # round 8: Czech, Swedish, Danish/Norwegian, Ukrainian, and the verbs of a redirect
    # ("use", "put back", "change") in the languages above
    "ne": "no", "špatně": "wrong", "špatný": "wrong", "špatná": "wrong", "pořád": "still",
    "furt": "still", "znovu": "again", "zase": "again", "místo": "instead", "vrať": "revert",
    "zpátky": "back", "nefunguje": "doesn't work", "použij": "use", "jenom": "only",
    "inte": "not", "fel": "wrong", "fortfarande": "still", "fortsatt": "still",
    "igen": "again", "samma": "same", "samme": "same", "ångra": "undo", "istället": "instead",
    "i stedet": "instead", "använd": "use", "bruk": "use", "brug": "use", "ikke": "not",
    "forkert": "wrong", "feil": "wrong", "stadig": "still", "ні": "no",
    "замість": "instead", "знову": "again", "досі": "still", "поверни": "restore",
    "використовуй": "use",
    "usa la": "use the", "usa el": "use the", "usa o": "use the", "coloca": "put", "pon": "put",
    "mets": "put", "cambia": "change", "troca": "change", "muda": "change",
    "ändere": "change", "ändern": "change", "trag": "put", "setz": "set", "nutze": "use",
    "verwende": "use", "t'as": "you have", "tu as mis": "you put", "hast du": "you have",
    "pusiste": "you put", "usaste": "you used", "você usou": "you used", "usou": "you used",
    "colocou": "you put", "esqueceu": "you forgot", "olvidaste": "you forgot",
    "vergessen": "forgot", "plutôt": "instead", "piuttosto": "instead", "zostaw": "leave",
    "deja": "leave", "lascia": "leave", "laisse": "leave", "lass": "leave", "deixa": "leave",
    "sollte": "should be", "debería": "should be", "deveria": "should be", "devrait": "should be",
    "dovrebbe": "should be", "powinno": "should be", "должно": "should be", "moet": "should be",
    "stary": "old", "stara": "old", "stare": "old", "alte": "old", "alten": "old",
    "viejo": "old", "vieja": "old", "antigo": "old", "antiga": "old", "ancien": "old",
    "vecchio": "old", "vecchia": "old", "oude": "old", "старый": "old", "старая": "old",
    # round 10: "why did you", "as it was", "in circles" in the languages above; Indonesian
    # and Arabic; the past tense of "you forgot/deleted/changed" in Polish
    "warum hast du": "why did you", "wieso hast du": "why did you", "warum": "why",
    "pourquoi tu as": "why did you", "pourquoi": "why", "perché hai": "why did you",
    "perché": "why", "por qué": "why", "por que você": "why did you", "por que": "why",
    "почему ты": "why did you", "зачем ты": "why did you", "почему": "why", "зачем": "why",
    "waarom heb je": "why did you", "waarom": "why", "dlaczego": "why", "neden": "why",
    "como estaba": "as it was", "como estaban": "as they were", "como estava": "as it was",
    "wie vorher": "as it was", "comme avant": "as it was", "com'era": "as it was",
    "jak było": "as it was", "как было": "as it was", "zoals het was": "as it was",
    "ni se te ocurra": "don't", "déjalo": "leave it", "rimetti": "restore",
    "rimettila": "restore it", "rimettilo": "restore it", "cancellato": "deleted",
    "по кругу": "in circles", "en círculos": "in circles", "em círculos": "in circles",
    "im kreis": "in circles", "w kółko": "in circles", "in cerchio": "in circles",
    "en rond": "in circles", "rondjes": "in circles",
    "zapomniałeś": "you forgot", "zapomniałaś": "you forgot", "usunąłeś": "you deleted",
    "usunęłaś": "you deleted", "zmieniłeś": "you changed", "zmieniłaś": "you changed",
    "kamu": "you", "jangan": "don't", "bukan": "not", "tidak": "not", "nggak": "not",
    "gak": "not", "salah": "wrong", "masih": "still", "lagi": "again", "sama": "same",
    "kembalikan": "restore", "balikin": "revert", "pakai": "use", "gunakan": "use",
    "seharusnya": "should be", "harusnya": "should be", "hanya": "only", "hapus": "deleted",
    "kenapa": "why", "mengapa": "why", "dari tadi": "all day",
    "لا": "no", "ليس": "not", "خطأ": "wrong", "الخطأ": "error", "نفس": "same",
    "مرة ثانية": "again", "مرة أخرى": "again", "مجددا": "again", "بدلا من": "instead of",
    "بدل": "instead", "ما زال": "still", "لسه": "still", "ارجع": "revert",
    "استخدم": "use", "قلت": "i said", "لماذا": "why", "ليش": "why",
    # round 13: what an ordinary prompt is made of, so a request in another language reads like
    # one in English (issue 20: held out, the fresh authors' lines in other languages had twice
    # the false positives of their English ones): the verbs of new work, a new task, the
    # user's own slip, "carry on", thanks
    "ajoute": "add", "ajouter": "add", "écris": "write", "crée": "create",
    "implémente": "implement", "construis": "build", "fais": "make",
    "añade": "add", "agrega": "add", "escribe": "write", "crea": "create",
    "implementa": "implement", "haz": "make", "construye": "build",
    "adiciona": "add", "adicione": "add", "escreve": "write", "escreva": "write", "cria": "create",
    "crie": "create", "implemente": "implement", "faz": "make", "faça": "make",
    "aggiungi": "add", "scrivi": "write", "fai": "make", "costruisci": "build",
    "füge": "add", "bau": "build", "baue": "build", "schreib": "write", "schreibe": "write",
    "erstelle": "create", "erstell": "create", "implementiere": "implement",
    "voeg": "add", "schrijf": "write", "maak": "make", "bouw": "build",
    "dodaj": "add", "napisz": "write", "stwórz": "create", "utwórz": "create",
    "zaimplementuj": "implement", "zrób": "make", "přidej": "add", "napiš": "write",
    "vytvoř": "create", "udělej": "make", "lägg till": "add", "skapa": "create",
    "tilføj": "add", "legg til": "add", "skriv": "write", "ekle": "add", "yaz": "write",
    "oluştur": "create", "tambahkan": "add", "buat": "make", "buatkan": "make", "tulis": "write",
    "добавь": "add", "напиши": "write", "создай": "create", "сделай": "make",
    "реализуй": "implement", "додай": "add", "створи": "create", "зроби": "make",
    "neue aufgabe": "new task", "nouvelle tâche": "new task", "nueva tarea": "new task",
    "nova tarefa": "new task", "nuovo compito": "new task", "nowe zadanie": "new task",
    "новая задача": "new task", "нова задача": "new task", "nieuwe taak": "new task",
    "mein fehler": "my mistake", "meine schuld": "my fault", "habe mich vertan": "my mistake",
    "mon erreur": "my mistake", "ma faute": "my fault", "me suis trompé": "my mistake",
    "mi error": "my mistake", "me equivoqué": "my mistake", "culpa mía": "my fault",
    "meu erro": "my mistake", "foi mal": "my bad", "me enganei": "my mistake",
    "errei": "my mistake", "mio errore": "my mistake", "colpa mia": "my fault",
    "mi sono sbagliato": "my mistake", "mój błąd": "my mistake", "moja wina": "my fault",
    "pomyliłem": "my mistake", "pomyliłam": "my mistake", "моя ошибка": "my mistake",
    "я ошибся": "my mistake", "я ошиблась": "my mistake", "моя помилка": "my mistake",
    "mijn fout": "my mistake", "benim hatam": "my mistake",
    "sigue con": "continue with", "continúa con": "continue with", "sigamos": "let's continue",
    "continua com": "continue with", "continua con": "continue with", "mach weiter": "continue",
    "weiter mit": "continue with", "продолжай": "continue", "продовжуй": "continue",
    "kontynuuj": "continue", "ga verder": "continue",
    "danke": "thanks", "merci": "thanks", "gracias": "thanks", "obrigado": "thanks",
    "obrigada": "thanks", "grazie": "thanks", "dzięki": "thanks", "dziękuję": "thanks",
    "спасибо": "thanks", "дякую": "thanks", "bedankt": "thanks", "teşekkürler": "thanks",
    "perfekt": "perfect", "parfait": "perfect", "perfecto": "perfect", "perfeito": "perfect",
    "perfetto": "perfect", "wenn": "if", "falls": "if", "si": "if", "jeśli": "if", "jeżeli": "if",
    "если": "if", "якщо": "if", "indien": "if", "pokud": "if", "eğer": "if",
    # round 14: the words of a stop, an undo, a thing broken or forgotten, "nothing changes"
    # and "tired" in the languages above (held out, a new author's lines in other languages
    # were missed twice as often as the English ones)
    "però": "but", "rifallo": "redo it", "rifalla": "redo it", "rifai": "redo", "togli": "remove",
    "hai tolto": "you removed", "hai cancellato": "you deleted", "hai messo": "you put",
    "hai usato": "you used", "hai cambiato": "you changed", "hai modificato": "you changed",
    "draai terug": "revert", "werkt niet": "doesn't work", "popraw": "fix", "usuń": "remove",
    "porušuje": "breaks", "rozbil": "broke", "rozbilo": "broke", "zapomněl": "forgot",
    "zapomněls": "you forgot", "oprav": "fix", "padá": "crashes", "v kruhu": "in circles",
    "proč": "why", "стоп": "stop", "не треба": "no need", "не надо": "don't",
    "втомився": "tired", "втомилася": "tired", "устал": "tired", "устала": "tired",
    "нічого": "nothing", "ничего": "nothing", "чому": "why", "ти": "you", "забув": "forgot",
    "забула": "forgot", "забыл": "forgot", "забыла": "forgot", "зламав": "broke",
    "сломал": "broke", "видали": "remove", "удали": "remove", "yapma": "don't",
    "etme": "don't", "kullanma": "don't use", "silme": "don't delete", "unuttun": "you forgot",
    "bozdun": "you broke", "ich gebe auf": "i give up", "gebe auf": "give up",
    "nichts": "nothing", "kaputt": "broken", "quebrou": "broke", "desfaça": "undo",
    "cassé": "broke", "oublié": "forgot", "rien": "nothing",
    # "it works" and "it doesn't work", an acknowledgement or a complaint in every language
    "funktioniert": "works", "funktioniert nicht": "doesn't work", "funciona": "works",
    "no funciona": "doesn't work", "não funciona": "doesn't work", "marche": "works",
    "ne marche pas": "doesn't work", "marche pas": "doesn't work", "funziona": "works",
    "non funziona": "doesn't work", "werkt": "works", "działa": "works",
    "nie działa": "doesn't work", "funguje": "works", "çalışıyor": "works",
    "çalışmıyor": "doesn't work", "работает": "works", "не работает": "doesn't work",
    "працює": "works", "не працює": "doesn't work", "fungerar": "works", "virker": "works",
    "dat": "that", "het": "it",
    # "not yet": an answer about the user's own work, not a complaint
    "ще не": "not yet", "ещё не": "not yet", "еще не": "not yet", "noch nicht": "not yet",
    "todavía no": "not yet", "ainda não": "not yet", "pas encore": "not yet",
    "non ancora": "not yet", "nog niet": "not yet", "jeszcze nie": "not yet",
    "ještě ne": "not yet", "henüz": "yet",
    # "not needed": a "no" that answers the agent's offer
    "non serve": "not needed", "no hace falta": "not needed", "não precisa": "not needed",
    "pas besoin": "not needed", "nicht nötig": "not needed", "niet nodig": "not needed",
    "nie trzeba": "not needed", "не нужно": "not needed", "не потрібно": "not needed",
    "gerek yok": "not needed", "behöver inte": "not needed", "nahi chahiye": "not needed",
    # "switch to", "like the others / the rest", production, hours lost, fed up: the redirects,
    # conventions and frustration a new author wrote in other languages (held out, the
    # foreign-language corrections of train_extra 6, 8 and 9 were missed at low three times as
    # often as their English ones)
    "wechsle": "switch", "wechsel": "switch", "passe sur": "switch to", "bascule": "switch",
    "cambia a": "switch to", "pasa a": "switch to", "muda para": "switch to",
    "troca para": "switch to", "passa a": "switch to", "schakel over": "switch",
    "przełącz": "switch", "přepni": "switch", "переключись": "switch", "переключи": "switch",
    "перемкнись": "switch", "перемкни": "switch", "byt till": "switch to",
    "pindah ke": "switch to", "ganti ke": "switch to",
    "comme partout ailleurs": "like everywhere else", "comme les autres": "like the others",
    "wie in den anderen": "like the other", "wie die anderen": "like the others",
    "wie im restlichen": "like the rest", "wie der rest": "like the rest",
    "como los demás": "like the others", "como las demás": "like the others",
    "como el resto": "like the rest", "como en los otros": "like the other",
    "como os outros": "like the others", "como as outras": "like the others",
    "como o resto": "like the rest", "come gli altri": "like the others",
    "come le altre": "like the others", "come il resto": "like the rest",
    "zoals de andere": "like the other", "zoals de rest": "like the rest",
    "jak pozostałe": "like the others", "jak reszta": "like the rest",
    "jak w innych": "like the other", "jako ostatní": "like the others",
    "как остальные": "like the others", "как и остальные": "like the others",
    "как в остальных": "like the other", "як інші": "like the others", "як решта": "like the rest",
    "diğerleri gibi": "like the others", "som de andra": "like the others",
    "seperti yang lain": "like the others", "produktion": "production",
    "producción": "production", "produção": "production",
    "produzione": "production", "produkcja": "production", "produkce": "production",
    "продакшн": "production", "прод": "prod", "продакшні": "production",
    "seit einer stunde": "for hours", "seit stunden": "for hours", "depuis une heure": "for hours",
    "depuis des heures": "for hours", "desde hace horas": "for hours", "há duas horas": "for hours",
    "há horas": "for hours", "da ore": "for hours", "da un'ora": "for hours",
    "al een uur": "for hours", "od godziny": "for hours", "od hodiny": "for hours",
    "уже час": "for hours", "который час": "for hours", "вже годину": "for hours",
    "saatlerdir": "for hours", "j'en ai marre": "fed up", "en ai marre": "fed up",
    "estoy harto": "fed up", "estou farto": "fed up", "mi sono stufato": "fed up",
    "ich habe es satt": "fed up", "mam dość": "fed up", "надоело": "fed up",
    "набридло": "fed up", "bıktım": "fed up", "frustrierend": "frustrating",
    "frustrant": "frustrating", "frustrante": "frustrating", "trois fois": "three times",
    "dreimal": "three times", "drei mal": "three times", "tres veces": "three times",
    "três vezes": "three times", "tre volte": "three times", "trzy razy": "three times",
    "три раза": "three times", "tři krát": "three times", "üç kez": "three times",
    "drie keer": "three times",
    # round 17: the languages each new writer brought that no table read (Swahili in blind 23
    # and 25, Greek and Hebrew in blind 24, Hungarian, Finnish and Romanian in blind 25), their
    # dictionary words for no, not, wrong, instead, still, again, same, use, stop, undo, why,
    # should, only, forgot and thanks; and the forms of a redirect the languages above lacked
    # (held out, every fresh author's lines in other languages were missed twice as often as
    # its English ones). Words with a second common meaning are left out (Hebrew "אל" is also
    # "to", Greek "γιατί" also "because", Swahili "acha" is Hindi "accha").
    "hapana": "no", "sio": "not", "siyo": "not", "usitumie": "don't use", "usifanye": "don't",
    "haifanyi kazi": "doesn't work", "haifanyi": "doesn't", "umesahau": "you forgot",
    "umebadilisha": "you changed", "rekebisha": "fix", "badilisha": "change",
    "badala ya": "instead of", "bado": "still", "tena": "again", "lile lile": "same",
    "ile ile": "same", "kosa": "wrong", "isiyo sahihi": "wrong", "sahihi": "right",
    "tumia": "use", "rudisha": "restore", "kwa nini": "why", "mara nyingi": "many times",
    "asante": "thanks", "tafadhali": "please", "ongeza": "add", "andika": "write",
    "tengeneza": "make",
    "greșit": "wrong", "greșită": "wrong", "gresit": "wrong", "în loc de": "instead of",
    "în loc să": "instead of", "tot nu merge": "still doesn't work", "tot nu": "still not",
    "încă nu": "not yet", "încă": "still", "iar": "again", "din nou": "again",
    "același": "same", "aceeași": "same", "eroare": "error", "eroarea": "error",
    "folosește": "use", "foloseste": "use", "oprește": "stop", "de ce": "why",
    "ar trebui": "should be", "trebuie": "should be", "ai uitat": "you forgot",
    "ai șters": "you deleted", "ai schimbat": "you changed", "doar": "only",
    "nu așa": "not like that", "nu merge": "doesn't work", "nu funcționează": "doesn't work",
    "în cerc": "in circles", "anulează": "undo", "revino": "revert", "mulțumesc": "thanks",
    "adaugă": "add", "scrie": "write", "creează": "create",
    "nem": "not", "ne így": "not like this", "rossz": "wrong", "helyett": "instead",
    "még mindig": "still", "ugyanaz": "same", "ugyanazt": "same", "ugyanez": "same",
    "megint": "again", "újra": "again", "hiba": "error", "hibát": "error", "használd": "use",
    "állítsd vissza": "restore", "vond vissza": "undo", "vissza": "back", "csak": "only",
    "miért": "why", "kell": "should be", "kellett volna": "should have",
    "elfelejtetted": "you forgot", "törölted": "you deleted", "reménytelen": "hopeless",
    "állj": "stop", "köszönöm": "thanks", "köszi": "thanks",
    "ei toimi": "doesn't work", "ei": "not", "älä": "don't", "väärä": "wrong",
    "väärin": "wrong", "sijaan": "instead", "edelleen": "still", "yhä": "still",
    "vieläkin": "still", "taas": "again", "uudelleen": "again", "uudestaan": "again",
    "virhe": "error", "käytä": "use", "lopeta": "stop", "palauta": "restore", "vain": "only",
    "miksi": "why", "pitäisi": "should be", "unohdit": "you forgot", "poistit": "you deleted",
    "kiitos": "thanks", "lisää": "add", "kirjoita": "write",
    "όχι": "no", "δεν δουλεύει": "doesn't work", "δεν": "not", "μην": "don't",
    "λάθος": "wrong", "πάλι": "again", "ξανά": "again", "ίδιο": "same", "ίδια": "same",
    "σταμάτα": "stop", "αντί για": "instead of", "αντί": "instead",
    "χρησιμοποίησε": "use", "επανάφερε": "restore", "αναίρεσε": "undo", "πρέπει": "should be",
    "ξέχασες": "you forgot", "μόνο": "only", "σφάλμα": "error", "ευχαριστώ": "thanks",
    "לא עובד": "doesn't work", "לא": "no", "טעות": "wrong", "שגוי": "wrong", "שוב": "again",
    "עדיין": "still", "אותה שגיאה": "same error", "אותו דבר": "same thing",
    "במקום": "instead", "תחזיר": "restore", "תבטל": "undo", "השתמש": "use", "תשתמש": "use",
    "עצור": "stop", "תעצור": "stop", "למה": "why", "צריך": "should be", "שכחת": "you forgot",
    "מחקת": "you deleted", "רק": "only", "שגיאה": "error", "ביקשתי": "i asked",
    "שביקשתי": "that i asked",
    "תודה": "thanks", "תוסיף": "add", "כתוב": "write",
    "jag ger upp": "i give up", "ger upp": "give up", "du glömde": "you forgot",
    "glömde": "forgot", "ta bort": "remove", "jag bad": "i asked", "bara": "only",
    "ingenstans": "nowhere", "du har ändrat": "you changed",
    "te equivocaste": "you got it wrong", "equivocaste": "wrong", "está mal": "is wrong",
    "tiene que ser": "should be", "tenía que": "should have", "así no": "not like that",
    "zły": "wrong", "zła": "wrong", "złe": "wrong", "miało być": "should be",
    "ma być": "should be", "faltou": "missing", "certo": "right",
    "توقف": "stop", "مش": "not", "يجب": "should be", "الصحيح": "the right",
    "صحيح": "right", "نسيت": "forgot", "تراجع": "undo", "شكرا": "thanks",
    # round 19: the words each language still lacked (held out, the fresh authors' lines in
    # other languages stayed the commonest miss): "no" in Danish and Norwegian, "don't X" as
    # one word (Turkish, Czech) or a phrase, "missing", "you broke", "I said", "how many
    # times", "not like that", "give up". Words with a common second meaning are left out
    # (Danish "nu" is "now", Polish "tak" is "yes", Swahili "tu" is French "you").
    "nej": "no", "nei": "no", "lad være med": "don't", "lad være": "don't", "ikke gjør": "don't",
    "ikke bruk": "don't use", "ikke brug": "don't use", "du har brukt": "you used",
    "du har glemt": "you forgot", "du glemte": "you forgot", "glemte": "forgot",
    "igjen": "again", "fremdeles": "still", "i stedet for": "instead of", "hvorfor": "why",
    "skal være": "should be", "bør være": "should be", "burde": "should", "kun": "only",
    "tilbake": "back", "angre": "undo", "fjern": "remove", "stopp": "stop", "takk": "thanks",
    "jeg gir opp": "i give up", "jeg giver op": "i give up", "mangler": "missing",
    "kaç kere": "how many times", "kaç kez": "how many times", "söylemiştim": "i told",
    "dedim": "i said", "bunu değil": "not this", "öyle değil": "not like that",
    "çağırma": "don't call", "ekleme": "don't add", "değiştirme": "don't change",
    "dokunma": "don't touch", "niye": "why", "olmalı": "should be", "sildin": "you deleted",
    "değiştirdin": "you changed", "bozuldu": "broke", "unutmuşsun": "you forgot",
    "eksik": "missing", "vazgeçtim": "i give up", "kaldır": "remove",
    "אמרתי": "i said", "חסר": "missing", "שברת": "you broke", "נשבר": "broke",
    "אל תשתמש": "don't use", "אל תעשה": "don't", "אל תיגע": "don't touch",
    "למה עשית": "why did you", "לא ככה": "not like that", "מוותר": "give up", "תמחק": "delete",
    "תסיר": "remove",
    "لا تستخدم": "don't use", "لا تغير": "don't change",
    "ناقص": "missing", "حذفت": "you deleted", "غيرت": "you changed",
    "كسرت": "you broke", "لا يعمل": "doesn't work", "ما يشتغل": "doesn't work",
    "المفروض": "should be", "فقط": "only", "القديم": "old",
    "umevunja": "you broke", "umefuta": "you deleted", "imeharibika": "broke",
    "nilisema": "i said", "nimesema": "i said", "inakosekana": "missing", "haipo": "missing",
    "nakata tamaa": "i give up", "futa": "delete", "ondoa": "remove", "usiguse": "don't touch",
    "usiongeze": "don't add", "inapaswa": "should be", "lazima": "should be",
    "та сама": "same", "те саме": "same", "той самий": "same", "помилка": "error",
    "помилку": "error", "втретє": "third time", "вчетверте": "fourth time",
    "вп'яте": "fifth time", "не те": "not that", "не так": "not like that",
    "я ж казав": "i said", "я казав": "i said", "прибери": "remove", "відкати": "revert",
    "скасуй": "undo", "не використовуй": "don't use", "має бути": "should be",
    "чому ти": "why did you", "зламалось": "broke", "все одно": "still", "не то": "not that",
    "не трогай": "don't touch", "должен быть": "should be", "в который раз": "again",
    "третий раз": "third time",
    "tohle ne": "not this", "nepřidávej": "don't add", "nepoužívej": "don't use",
    "neměň": "don't change", "nemaž": "don't delete", "nesahej": "don't touch",
    "chybí": "missing", "smazal jsi": "you deleted", "má být": "should be",
    "proč jsi": "why did you", "vzdávám": "i give up",
    "laat maar": "forget it", "vergeten": "forgot", "ontbreekt": "missing",
    "niet zo": "not like that", "gebruik geen": "don't use", "verwijder": "remove",
    "zet terug": "restore",
    "menyerah": "give up", "udahlah": "forget it", "sudahlah": "forget it", "lupa": "forgot",
    "kurang": "missing", "jangan pakai": "don't use", "sudah saya bilang": "i said",
    "udah dibilang": "i said", "rusak": "broke",
    "nem ezt kértem": "not what i asked", "kértem": "i asked", "ne cseréld": "don't replace",
    "hagyd meg": "keep", "peru": "revert", "rikkoi": "broke", "rikoit": "you broke",
    "puuttuu": "missing", "ai pus": "you put",
    "devuelves": "you return", "quita": "remove", "añadiste": "you added", "falta": "missing",
    "te olvidaste": "you forgot", "no uses": "don't use", "no toques": "don't touch",
    "manca": "missing", "hai dimenticato": "you forgot", "non usare": "don't use",
    "non toccare": "don't touch", "não use": "don't use", "não mexa": "don't touch",
    "fehlt": "missing", "du hast vergessen": "you forgot", "nicht so": "not like that",
    "brakuje": "missing", "zepsuła": "broke", "zepsuł": "broke", "zepsułeś": "you broke",
    "όχι έτσι": "not like this", "λείπει": "missing", "έσπασες": "you broke",
    "χάλασε": "broke",
    "dùng": "use", "như các": "like the", "thiếu": "missing", "sao lại": "why",
    "hỏng": "broke", "không cần": "not needed", "chứ không phải": "not",
    # round 20: languages a new writer brought that no table read (Tagalog, Lithuanian,
    # Estonian, Serbian/Croatian/Bosnian, Slovak, Afrikaans, romanised Tamil) and the words the
    # others still lacked, by dictionary: no/not, wrong, instead, again, still, same, use, stop,
    # undo, forgot, why, missing, "in circles". Left out for a common second meaning: Tagalog
    # "hindi" (the language), "dapat" (Indonesian "can"), Estonian "vale" (Spanish "OK"),
    # Turkish "dur" (French "hard"), Serbian "isto" (Portuguese "this"), Estonian "mitte"
    # (German "Mitte"), Lithuanian "ne" (read as "no" already).
    "mali": "wrong", "huwag": "don't", "wag": "don't", "ibalik": "restore", "bakit": "why",
    "ulit": "again", "pa rin": "still", "nakalimutan": "forgot", "nakalimutan mo": "you forgot",
    "gamitin": "use", "binura": "deleted", "binura mo": "you deleted", "paikot ikot": "in circles",
    "ayaw gumana": "doesn't work", "sa halip": "instead", "pareho": "same", "itigil": "stop",
    "tumigil": "stop",
    "neteisinga": "wrong", "neteisingas": "wrong", "neteisingą": "wrong", "grąžink": "restore",
    "atgal": "back", "pamiršai": "you forgot", "pamiršote": "you forgot", "vėl": "again",
    "vis dar": "still", "tas pats": "same", "ta pati": "same", "nenorėjau": "i didn't want",
    "nekeisk": "don't change", "naudok": "use", "vietoj": "instead of", "kodėl": "why",
    "trūksta": "missing", "sustok": "stop", "nereikia": "not needed",
    "unustasid": "you forgot", "unustas": "forgot", "ikka": "still",
    "jälle": "again", "uuesti": "again", "kasuta": "use", "asemel": "instead", "miks": "why",
    "tagasi": "back", "puudub": "missing", "lõpeta": "stop", "ära": "don't",
    "vale haru": "wrong branch",
    "pogrešna": "wrong", "pogrešan": "wrong", "pogrešno": "wrong", "pogrešnu": "wrong",
    "vrati": "restore", "kako je bilo": "as it was", "zaboravio": "forgot",
    "zaboravila": "forgot", "zaboravili": "forgot", "opet": "again", "ista": "same",
    "isti": "same", "nisam tražio": "i didn't ask", "koristi": "use",
    "umjesto": "instead of", "umesto": "instead of", "zašto": "why", "još uvijek": "still",
    "još uvek": "still", "nemoj": "don't", "nedostaje": "missing", "ne radi": "doesn't work",
    "nesprávny": "wrong", "nesprávneho": "wrong", "nesprávne": "wrong", "nesprávna": "wrong",
    "namiesto": "instead of", "radšej": "rather", "prestaň": "stop", "zabudol": "forgot",
    "zabudol si": "you forgot", "znova": "again", "stále": "still", "rovnaký": "same",
    "rovnaká": "same", "vráť": "restore", "nepoužívaj": "don't use", "použi": "use",
    "prečo": "why", "chýba": "missing", "chcel som len": "i only wanted",
    "vergeet": "forgot", "moenie": "don't", "steeds": "still",
    "dieselfde": "same", "in plaas van": "instead of", "hoekom": "why",
    "thappu": "wrong", "thappana": "wrong", "niruthunga": "stop", "marandhuteenga": "you forgot",
    "innum": "still", "pannadheenga": "don't",
    "heller": "instead", "berhenti": "stop", "pulihkan": "restore", "kırmışsın": "you broke",
    "eski haline": "as it was", "phir wohi": "again the same",
    "kitni dafa": "how many times", "kitni baar": "how many times", "במעגלים": "in circles",
    "שכתבת": "you wrote", "ikka sama": "still same",
    # round 23: languages a new writer brought that no table read (Catalan, Icelandic,
    # Latvian, Welsh, Zulu, Yoruba, Persian in its own script and in Latin letters) and the
    # words the others still lacked, by dictionary: no/not, wrong, instead, again, still,
    # same, use, stop, undo, forgot, why, missing, "doesn't work"; and the praise and "now" of
    # irony ("Ottimo, adesso ...", "Super, jetzt ist ..."), which English irony is read by.
    # Left out for a common second meaning: Welsh "dim" (English "dim"), "pam" (PAM), "paid"
    # and "eto" (Tagalog "here"), Icelandic "enn" (Norwegian "than") and "sama" (Indonesian),
    # Yoruba "duro" (Italian and Spanish "hard") and "ko", Zulu "cha", Italian "ora" (Romanian
    # "hour"), "giờ" (Vietnamese "hour"), Zulu "futhi" ("and"), Persian "nakon" (Croatian
    # "after"), "ranga".
    "equivocada": "wrong", "equivocat": "wrong", "equivocado": "wrong",
    "en lloc de": "instead of",
    "un altre cop": "again", "altra vegada": "again", "encara": "still", "mateix": "same",
    "mateixa": "same", "fes servir": "use", "utilitza": "use", "desfés": "undo",
    "has oblidat": "you forgot", "oblidat": "forgot", "per què": "why", "atura": "stop",
    "se te olvidó": "you forgot", "olvidó": "forgot", "deshacer": "undo",
    "rangt": "wrong", "rangur": "wrong", "röng": "wrong", "ekki": "not",
    "þú gleymdir": "you forgot", "gleymdir": "forgot", "aftur": "again", "hættu": "stop",
    "notaðu": "use", "í staðinn fyrir": "instead of", "í staðinn": "instead",
    "afturkallaðu": "undo", "af hverju": "why", "vantar": "missing", "virkar ekki": "doesn't work",
    "nepareizs": "wrong", "nepareizais": "wrong", "nepareizi": "wrong", "nepareiza": "wrong",
    "nepareizo": "wrong", "nē": "no", "aizmirsi": "you forgot", "atkal": "again",
    "joprojām": "still", "tā pati": "same", "izmanto": "use", "atcel": "undo",
    "apstājies": "stop", "kāpēc": "why", "trūkst": "missing", "vietā": "instead",
    "nestrādā": "doesn't work", "vajadzēja": "should have", "ekki enn": "not yet",
    "ekki ennþá": "not yet", "vēl nē": "not yet", "ddim eto": "not yet",
    "anghywir": "wrong", "peidiwch": "don't", "anghofiaist": "you forgot",
    "anghofioch": "you forgot", "dal i": "still", "defnyddia": "use", "defnyddiwch": "use",
    "dadwna": "undo", "stopia": "stop", "ar goll": "missing", "yn lle": "instead of",
    "ddim yn gweithio": "doesn't work", "fethu": "fail",
    "akulungile": "wrong", "ukhohlwe": "you forgot",
    "kusephukile": "still broken", "yima": "stop", "ungakwenzi": "don't",
    "sebenzisa": "use", "esikhundleni": "instead", "kungani": "why",
    "akusebenzi": "doesn't work",
    "rárá": "no", "o gbagbe": "you forgot", "gbagbe": "forgot", "ma ṣe": "don't",
    "kilode": "why", "kí ló dé": "why",
    "eshtebah": "wrong", "eshtebahe": "wrong", "chera": "why", "yadet raft": "you forgot",
    "dobare": "again", "hanuz": "still", "hanooz": "still", "hamoon": "same",
    "estefade kon": "use", "bejaye": "instead of", "pak kardi": "you deleted",
    "kar nemikone": "doesn't work",
    "اشتباه": "wrong", "چرا": "why", "دوباره": "again", "هنوز": "still", "همون": "same",
    "همان": "same", "به جای": "instead of", "استفاده کن": "use", "نکن": "don't",
    "یادت رفت": "you forgot", "نه": "no", "پیشرفتی": "progress",
    "ottimo": "great", "complimenti": "congratulations", "ganz toll": "great", "toll": "great",
    "genial": "great", "świetnie": "great", "τέλεια": "perfect", "μπράβο": "well done",
    "tuyệt vời": "great", "hay thật": "nice", "gran idea": "great idea",
    "adesso": "now", "jetzt": "now", "ahora": "now", "τώρα": "now",
    "teraz": "now", "şimdi": "now", "теперь": "now", "тепер": "now", "agora": "now",
    "maintenant": "now",
}  # fmt: skip
# Chinese, Japanese and Korean have no spaces between words (or attach particles to them):
# these are found inside the text
_GLOSS_CJK = {
    "不要": "don't", "不是": "not", "别": "don't", "错": "wrong", "改回": "revert",
    "恢复": "restore", "撤销": "undo", "还是": "still", "又": "again", "一样": "same",
    "而不是": "instead", "我说了": "i said", "没用": "useless", "只": "only",
    "違う": "wrong", "じゃない": "not", "ではなく": "instead", "戻して": "revert",
    "元に戻": "revert", "また": "again", "まだ": "still", "同じ": "same",
    "また明日": "tomorrow", "いいえ": "no", "ていません": " not",  # round 15
    "代わりに": "instead", "エラー": "error",
    # Korean (particles attach to words, so it is found inside the text too)
    "아니": "no", "말고": "instead", "잘못": "wrong", "다시": "again", "여전히": "still",
    "대신": "instead", "되돌려": "revert", "원래대로": "restore", "같은": "same",
    "하지 마": "don't", "에러": "error", "오류": "error",
    # round 8: the verbs of a redirect ("use", "change", "put back") and "should be"
    "使って": "use", "使う": "use", "に変えて": "change", "直して": "fix", "べき": "should be",
    "用": "use", "改成": "change to", "应该": "should be", "換成": "change to", "换成": "change to",
    "바꿔": "change", "써 주세요": "use", "사용해": "use", "해야": "should be",
    # round 10: traditional Chinese forms, "why", the n-th time
    "還是": "still", "一樣": "same", "錯": "wrong", "別": "don't", "為什麼": "why",
    "为什么": "why", "第二次": "second time", "第三次": "third time", "第四次": "fourth time",
    "第五次": "fifth time", "なぜ": "why", "何回": "how many times", "왜": "why",
    # round 13: new work, a new task, the user's own slip, "carry on", praise (see _GLOSS)
    "追加して": "add", "書いて": "write", "作って": "make", "実装して": "implement",
    "作成して": "create", "添加": "add", "加上": "add", "新增": "add", "创建": "create",
    "实现": "implement", "추가해": "add", "만들어": "make", "작성해": "write",
    "구현해": "implement", "新しいタスク": "new task", "新任务": "new task", "새 작업": "new task",
    "この作業では": "in this task", "このタスクでは": "in this task", "新的": "new ",
    "新しい": "new ", "我的错": "my mistake", "私のミス": "my mistake", "제 실수": "my mistake",
    "続けて": "continue", "继续": "continue", "계속": "continue", "不错": "nice",
    "没错": "right", "谢谢": "thanks", "ありがとう": "thanks", "감사": "thanks",
    "고마워": "thanks", "しないで": "don't", "ください": "please", "写一个": "write a ",
    "如果": "if ", "もし": "if ", "만약": "if ", "错误": "error",
    # round 14: an undo, a thing broken, deleted or forgotten, "why", "stop" (see _GLOSS)
    "取り消": "undo", "壊れ": "broke", "消して": "delete", "間違": "wrong", "忘れ": "forgot",
    "なんで": "why", "やめて": "stop", "不对": "wrong", "删掉": "deleted", "删了": "deleted",
    "你把": "you ", "忘了": "forgot", "别再": "don't", "回滚": "revert", "为啥": "why",
    "坏了": "broke", "빼먹": "forgot", "잊었": "forgot", "하지 마세요": "don't",
    "되돌": "revert", "계속 같은": "still same",
    # the user's own slip ("I told you the wrong branch name")
    "잘못 알려": "i gave you the wrong ", "잘못 말했": "i said the wrong ",
    "제가 잘못": "my mistake",
    "我说错了": "my mistake", "我搞错了": "my mistake", "我弄错了": "my mistake",
    "私の間違い": "my mistake", "間違えました": "my mistake", "すみません": "sorry",
    "죄송": "sorry", "对不起": "sorry", "不需要": "not needed", "要らない": "not needed",
    "필요 없": "not needed",
    # switch to, like the others, production, fed up (see _GLOSS)
    "切り替えて": "switch ", "切り替え": "switch ", "切到": "switch to ", "切换到": "switch to ",
    "换到": "switch to ", "전환": "switch ", "和其他": "like the other ",
    "跟其他": "like the other ",
    "他と同じ": "like the others", "다른 것처럼": "like the others", "生产环境": "production",
    "本番": "production", "프로덕션": "production", "受够了": "fed up", "うんざり": "fed up",
    # Vietnamese and Hindi in Devanagari (their marks split words, so they are found inside)
    "vẫn": "still", "lỗi": "error", "như cũ": "as before", "sai rồi": "wrong",
    "không phải": "not", "phải là": "should be", "lại": "again", "फिर से": "again",
    "वही": "same", "नहीं": "not", "गलत": "wrong",
    # round 17 (see _GLOSS): Thai (no spaces between words), more Vietnamese, Hindi and Korean
    "ไม่ใช่": "not", "ไม่ได้": "not", "ไม่": "not", "อย่า": "don't", "ผิด": "wrong",
    "แทน": "instead", "ยัง": "still", "เหมือนเดิม": "same", "อีกแล้ว": "again",
    "อีกครั้ง": "again", "หยุด": "stop", "ทำไม": "why", "ควร": "should be", "ลืม": "forgot",
    "ย้อนกลับ": "revert", "ให้ใช้": "use", "ขอบคุณ": "thanks", "quên": "forgot",
    "đừng": "don't", "hoàn tác": "undo", "thay vì": "instead of", "tại sao": "why",
    "cảm ơn": "thanks", "सिर्फ": "only", "तुमने": "you ", "क्यों": "why", "वापस": "back",
    "쓰세요": "use", "예전": "old", "빼주세요": "remove", "빼 주세요": "remove",
    # round 19 (see _GLOSS): Japanese 別の is "another", not Chinese 别 "don't"; "missing",
    # "I said", "not this", "give up", "the same again" in Chinese, Japanese and Korean
    "別の": "a different ", "じゃなくて": "not", "ではありません": "not", "違います": "wrong",
    "言った": "i said", "言いました": "i said", "使わないで": " don't use ",
    "足りない": "missing", "抜けて": "missing", "相変わらず": "still", "何度も": "many times",
    "もういい": "forget it", "諦め": "give up",
    "똑같은": "same", "그게 아니라": "not that", "아니라": "not", "제자리": "in circles",
    "빠졌": "missing", "빠져": "missing", "안 돼요": "doesn't work", "안 돼": "doesn't work",
    "지우지 마": "don't delete", "쓰지 마": "don't use", "말했잖아": "i told", "포기": "give up",
    "漏了": "missing", "少了": "missing", "缺少": "missing", "不是这个": "not this",
    "我说过": "i said", "说过": "said", "算了": "forget it", "放弃": "give up",
    # round 20 (see _GLOSS): Bengali (its marks split words, so it is found inside), and the
    # Japanese "not in" of a thing left out
    "ভুলে গেছো": "you forgot", "ভুলে গেছেন": "you forgot", "ভুল": "wrong", "আবার": "again",
    "এখনও": "still", "একই": "same", "কেন": "why", "ব্যবহার করো": "use", "বদলে": "instead",
    "ফিরিয়ে": "restore", "আগের মতো": "as before", "বন্ধ করো": "stop", "নেই": "missing",
    "入ってない": "missing", "入っていない": "missing",
    "ต้องแก้": "should fix", "ไม่ต้อง": "no need", "บอกแล้ว": "i said", "พัง": "broke",
    "ไม่ทำงาน": "doesn't work", "ขาด": "missing",
    # learnprobe7: the casual "I told you not to" of Japanese ("print はダメって言ったよね"),
    # Chinese ("不是说了别用print吗") and Vietnamese ("đã bảo đừng dùng print"), and the Korean
    # "you used it again" ("또 print 썼네"; "잘 썼네" is praise)
    "ダメって言った": " not allowed, i told you ", "だめって言った": " not allowed, i told you ",
    "ダメだって言った": " not allowed, i told you ", "不是说了": " i told you ",
    "不是說了": " i told you ", "đã bảo": "i told you", "bảo rồi": "i told you",
    "썼네": " you used ", "썼잖아": " you used ", "잘 썼네": " nicely written ",
}  # fmt: skip
# round 14: Hindi in Latin script (blind 22; lines of train_extra9 and 11 too). Its commonest
# words are other languages' correction words ("hai" is Italian "you have", "ne" Czech "no"),
# so a sentence with two of :data:`_HINDI_MARKERS` is read with this table over the others
# (:func:`_table`): "theek hai, chal gaya" is "ok, works", not "theek you have".
_GLOSS_HINDI = {
    "hai": "is", "hain": "are", "ne": "", "nahi": "not", "nahin": "not", "nai": "not",
    "mat": "don't", "galat": "wrong", "phir se": "again", "fir se": "again", "phirse": "again",
    "dobara": "again", "wahi": "same", "vahi": "same", "abhi bhi": "still", "ab bhi": "still",
    "ab tak": "still", "bhool gaye": "forgot", "bhul gaye": "forgot", "bhool gaya": "forgot",
    "bhool": "forgot", "kyun": "why", "kyon": "why", "kyu": "why", "hatao": "remove",
    "hata do": "remove", "wapas": "back", "pehle jaisa": "as it was", "pehle jaise": "as it was",
    "use karo": "use", "ki jagah": "instead of", "ke bajaye": "instead of", "sirf": "only",
    "maine kaha": "i said", "maine bola": "i said", "kaha tha": "i said", "theek hai": "ok",
    "thik hai": "ok", "shukriya": "thanks", "dhanyavaad": "thanks", "badhiya": "great",
    "chal gaya": "works", "ho gaya": "done", "meri galti": "my mistake", "agar": "if",
    "ruko": "stop", "band karo": "stop", "aap": "you", "aapne": "you", "tum": "you",
    "tumne": "you", "kya": "what", "lagao": "add", "banao": "make", "likho": "write",
    "naya": "new", "nayi": "new", "yeh": "this", "ye": "this", "kuch bhi": "anything",
    "humare paas": "we have", "hamare paas": "we have", "mere paas": "i have",
    # round 19: "don't change", "had to", "was left out"
    "mat badlo": "don't change", "badlo": "change", "karna tha": "should have",
    "chahiye tha": "should have", "chahiye": "should be", "reh gaya": "missing",
    "chhut gaya": "missing",
}  # fmt: skip
_HINDI_MARKERS = _words(
    "hai hain nahi nahin kya kyun kyu mein aur bhi yaar theek thik accha acha raha rahi gaya "
    "gayi karo kiya tha thi wahi phir fir abhi kuch bahut humare hamare mera meri tumne aapne "
    "aap yeh diya liya kiya karna lagao hatao wapas gaye hua hui"
)
_TABLES: dict[str, dict[str, str]] = {}


def hindi_markers(text: str) -> int:
    """How many of :data:`_HINDI_MARKERS` (Hindi's commonest words in Latin script) ``text``
    holds: two or more mark a sentence in Hindi, whose words English readings misread
    (``reflect`` made "Print nahi." the rule of "hamesha `logging` use karo, print nahi")."""
    return _hindi_count(_LETTERS.compiled.findall(text.lower()))


def _hindi_count(words: list[str]) -> int:
    """How many of ``words`` (lower-cased) are among :data:`_HINDI_MARKERS`."""
    return sum(1 for word in words if word in _HINDI_MARKERS)


def _table(tokens: list[str]) -> dict[str, str]:
    """The gloss table of a sentence: Hindi's over the others' when two of its words show
    (:data:`_GLOSS_HINDI`), else :data:`_GLOSS`."""
    if _hindi_count(tokens) < 2:
        return _GLOSS
    table = _TABLES.get("hi")
    if table is None:
        table = _TABLES["hi"] = {**_GLOSS, **_GLOSS_HINDI}
    return table


# the most words a gloss entry has (round 20: four entries of four words had never matched
# while :func:`gloss` tried three at most)
GLOSS_LONGEST = 4
_LETTERS = LazyPattern(r"[^\W\d_]+(?:'[^\W\d_]+)?|\d+")
# common English words: an ASCII sentence with one of them is English and is not glossed
_ENGLISH = _words(
    "the an to it is this that you i we and of for on not don't with be my your was are what "
    "why please just it's"
)


def _is_english(text: str, tokens: list[str]) -> bool:
    """Whether a sentence is English: two common English words among its ``tokens`` (one, if
    it is ASCII and no other word of it is a correction word of another language: "cofnij to"
    is Polish, its "to" a pronoun). In a sentence with other letters the words are read whole:
    the ASCII tokens of "işi" are "i" and "i", two English words (round 14: a Turkish
    correction was never glossed)."""
    if not text.isascii():
        tokens = _LETTERS.compiled.findall(text)
    english = sum(1 for token in tokens if token in _ENGLISH)
    if english >= 2:
        return True
    return english > 0 and text.isascii() and all(t in _ENGLISH or t not in _GLOSS for t in tokens)


def gloss(text: str, tokens: list[str]) -> str:
    """``text`` (lower-case) with the correction words of another language replaced by the
    English ones, everything else (punctuation, emoji, code names) kept in place. A sentence
    with two common English words among its ``tokens`` (one, if it is ASCII) is English and is
    returned unchanged (the same object)."""
    if _is_english(text, tokens):
        return text
    table = _table(tokens)
    pieces: list[str] = []
    words = list(_LETTERS.compiled.finditer(text))
    done, i = 0, 0
    while i < len(words):
        for size in range(GLOSS_LONGEST, 0, -1):
            group = words[i : i + size]
            phrase = " ".join(m.group(0) for m in group)
            if len(group) == size and phrase in table:
                pieces += [text[done : group[0].start()], table[phrase]]
                done = group[-1].end()
                i += size
                break
        else:
            i += 1
    glossed = "".join(pieces) + text[done:]
    if not glossed.isascii():
        glossed = glossed.replace("\uff0c", ", ").replace("\u3001", ", ")  # CJK commas
        glossed = glossed.replace("\uff1f", "?").replace("\uff01", "!")  # and marks
        for mark in sorted(_GLOSS_CJK, key=len, reverse=True):
            if mark in glossed:
                glossed = glossed.replace(mark, " " + _GLOSS_CJK[mark] + " ")
    return glossed


# words that point at something already there: the agent's last output or an earlier state
_DEICTIC = _words("that this it it's that's those these them")
_RESTORE = _words(
    "revert reverted reverting undo undid restore restored back original previous earlier"
)
_AS_IT_WAS = _words("like as")
_CONTRASTS = _words("instead rather")
_CONTRAST = LazyPattern(
    r"\bnot \w+(?: \w+)?[,.;]\s*\w|\bnot (?:the|this|that|a|an) \w+(?: \w+)?,|"
    r"\w,? not \w+\b(?!\s+(?:to|be|sure|yet|now|working|work|as)\b)"
)
_ALTERNATIVE_AFTER_THE = _words("other right correct real actual existing proper same")
_SCOPE_WORDS = _words("unrelated scope alone")
_SCOPE_PAIRS = frozenset(
    (
        "too much",
        "too many",
        "too big",
        "too long",
        "too large",
        "too broad",
        "too far",
        "too verbose",
        "way more",
        "way too",
        "nothing else",
        "none of",
        "keep it",
        "only the",
        "only touch",
        "only change",
        "only keep",
        "only in",
        "just the",
        "than needed",
        "than necessary",
    )
)
_COMPARATIVE_START = _words(
    "smaller bigger larger lower higher slower faster shorter longer less more fewer darker "
    "lighter simpler tighter looser thinner thicker wider narrower too"
)
_CHALLENGE_OPENINGS = frozenset(
    (
        "who asked",
        "who told",
        "who said",
        "since when",
        "where did",
        "where's my",
        "where's the",
        "what happened",
        "how come",
        "why is",
        "why are",
        "why does",
        "why was",
        "why were",
        "why the",
        "why on",
        "why would",
        "why'd",
        "why you",
    )
)
_WE_ADVERBS = _words("always never don't only no longer already")
_WE_VERBS = _words(
    "use used removed dropped switched moved prefer stopped migrated deprecated agreed decided "
    "support have"
)
_TEAM_PLACES = _words("repo project codebase team company org")
_HINDSIGHT_WORDS = _words("should've could've would've you'd shouldn't've")
_HINDSIGHT_PAIRS = frozenset(
    ("should have", "could have", "would have", "supposed to", "meant to", "shouldn't have")
)
_YOU_PROGRESSIVE = _words("you're keep still")  # "you're adding", "you keep adding"
_YOU_AUX = _words("have has did didn't don't not")
_YOU_BASE_VERBS = _words(
    "forget miss add use change put make break write remove delete do read follow listen "
    "understand update run test check"
)
_YOU_NEVER = _words("never didn't haven't forgot failed")
_WASTED_WORDS = _words("forever unbelievable ridiculous seriously waste wasting wasted")
_WASTED_PAIRS = frozenset(
    (
        "all day",
        "all morning",
        "all afternoon",
        "all night",
        "whole day",
        "whole morning",
        "whole afternoon",
        "whole evening",
        "whole week",
        "minutes ago",
        "by now",
        "round and",
        "in circles",
        "can't believe",
        "come on",
        "give up",
        "hours on",
        "hours now",
        "hours of",
        "for hours",  # round 14: 15 friction, 1 correction, 2 nulls over every author's prompts
        "repeating myself",
        "repeat myself",
    )
)
# a flaw named in the agent's work, usually the reason given for a fix ("GlobalScope leaks")
_FLAW = _words(
    "leaks leak leaking brittle blocks blocking hides hiding banned forbids forbidden deprecated "
    "gone unnecessary noise broken stale insecure injection bloated redundant duplicated "
    "missing swallowing swallows loses outdated obsolete overkill unused wrong incorrect "
    "invalid unsafe fragile flaky"
)
_THERE_IS = _words("is are was were's isn't aren't")
_NEGATIVE_EMOJI = ("\u274c", "\U0001f643", "\U0001f926", "\U0001f644", "\U0001f624", "\U0001f621")


# issue 20 round 7: corrections without a negation word ("use the staging DB", "that belongs
# in the controller") point at something already there; a new task names something new
_REDIRECT_VERBS = _words(
    "use put move switch change set make keep leave point send log pass call pin rename name "
    "base target run deploy wrap drop take give return compare read write store load import "
    "bump lower raise halve double revert restore"
)
_DEFINITE = _words("the that this those these it them its our my your their same other")
_INDEFINITE = _words("a an some new another any more")
_NEW_TASK_VERBS = _words(
    "add create implement write build make generate scaffold draft design introduce set "
    "setup add sketch"
)
_COPULAS = _words(
    "is was are were 's isn't wasn't aren't belongs belong goes go lives live needs need "
    "should must has have doesn't don't shouldn't won't wants"
)
_PLACE_VERBS = _words("belongs belong goes go lives live sits")
_SHOULD_BE = frozenset(
    (
        "should be",
        "should go",
        "should live",
        "should use",
        "should stay",
        "needs to",
        "need to",
        "has to",
        "have to",
        "must be",
        "meant to",
        "supposed to",
        "was supposed",
        "is supposed",
    )
)
_PAST_IRREGULAR = _words(
    "put made did took wrote left ran got set sent gave kept broke threw brought chose "
    "picked used added removed changed moved renamed deleted dropped skipped missed"
)
_VALUE_CHARS = frozenset("0123456789-_./=:")
_GREETINGS = _words("hi hello hey morning thanks thank please")
_CORRECTIVE_ADVERBS = _words("actually instead rather anyway though")


def meaning_cues(text: str, tokens: list[str], opening: list[str]) -> set[str]:
    """The cues of meaning of one sentence (``text`` lower-case, ``tokens`` its words,
    ``opening`` its words after leading fillers), each an ``m:`` feature name."""
    pairs = {a + " " + b for a, b in pairwise(tokens)}
    cues: set[str] = set()
    if opening[0] in _DEICTIC:
        cues.add("m:deictic-start")
    if opening[0] in _COMPARATIVE_START:
        cues.add("m:comparative-start")
    if " ".join(opening[:2]) in _CHALLENGE_OPENINGS or opening[0] == "why'd":
        cues.add("m:challenge")
        if "now" in tokens or opening[1:3] == ["is", "there"] or opening[1:3] == ["are", "there"]:
            cues.add("m:why-now")  # round 14: the agent's last change asked about
    _agent_cues(tokens, cues)
    if not _RESTORE.isdisjoint(tokens) or "used to" in pairs or _as_it_was(tokens):
        cues.add("m:restore")
    if not _CONTRASTS.isdisjoint(tokens) or ("not" in tokens and _CONTRAST.search(text)):
        cues.add("m:contrast")
    if _names_alternative(tokens):
        cues.add("m:alternative")
    if not _SCOPE_WORDS.isdisjoint(tokens) or not _SCOPE_PAIRS.isdisjoint(pairs):
        cues.add("m:scope")
    if _states_convention(tokens):
        cues.add("m:convention")
    if not _HINDSIGHT_WORDS.isdisjoint(tokens) or not _HINDSIGHT_PAIRS.isdisjoint(pairs):
        cues.add("m:hindsight")
    if (
        not _WASTED_WORDS.isdisjoint(tokens)
        or not _WASTED_PAIRS.isdisjoint(pairs)
        or gives_up(text)
    ):
        cues.add("m:wasted")  # time lost, or the agent given up on (round 14)
    if not _FLAW.isdisjoint(tokens):
        cues.add("m:flaw")
    if "here" in tokens or any(
        t == "there" and (i + 1 == len(tokens) or tokens[i + 1] not in _THERE_IS)
        for i, t in enumerate(tokens)
    ):
        cues.add("m:place")
    if not text.isascii() and any(mark in text for mark in _NEGATIVE_EMOJI):
        cues.add("m:negative-emoji")
    if sarcastic_exhibit(text):
        cues.add("m:sarcasm")
    if not LIKE_THE_REST_HINTS.isdisjoint(tokens) and LIKE_THE_REST.search(text):
        cues.add("m:like-the-rest")
    _redirect_cues(text, tokens, opening, pairs, cues)
    return cues


def _redirect_cues(
    text: str, tokens: list[str], opening: list[str], pairs: set[str], cues: set[str]
) -> None:
    """Cues of a correction without a negation word, and of a new task: an imperative whose
    object is already there ("use the staging DB", "put it in ...") or new ("add a ...");
    "that/it" + a copula or a verb of place ("that belongs in the controller"); "you <past
    verb>" or "the one you ..."; "should be"; "actually"/"instead"; a terse line carrying a
    value ("h100 partition", "eu-central-1 actually")."""
    first = opening[0]
    second = opening[1] if len(opening) > 1 else ""
    if first in _REDIRECT_VERBS and second in _DEFINITE:
        cues.add("m:redirect-definite")
    if first in _NEW_TASK_VERBS and second in _INDEFINITE:
        cues.add("m:task-indefinite")
    if first in _DEICTIC and second in _COPULAS:
        cues.add("m:deictic-copula")
    if not _PLACE_VERBS.isdisjoint(tokens):
        cues.add("m:place-verb")
    if not _SHOULD_BE.isdisjoint(pairs):
        cues.add("m:should-be")
    for i, token in enumerate(tokens[:-1]):
        if token == "you" and tokens[i + 1] in _PAST_IRREGULAR:
            cues.add("m:you-past")
        elif token in ("one", "ones") and tokens[i + 1] == "you" and i and tokens[i - 1] == "the":
            cues.add("m:the-one-you")
    if not _CORRECTIVE_ADVERBS.isdisjoint(tokens):
        cues.add("m:corrective-adverb")
    if _terse_value(text, tokens):
        cues.add("m:terse-value")


def _terse_value(text: str, tokens: list[str]) -> bool:
    """A line of at most six words, no greeting, no question, carrying a value: inline code or
    a word mixing letters with digits or ``-_./=:`` ("h100", "eu-central-1", "v2")."""
    if len(tokens) > 6 or not _GREETINGS.isdisjoint(tokens) or text.rstrip().endswith("?"):
        return False
    return "code" in tokens or any(
        len(t) > 1 and not _VALUE_CHARS.isdisjoint(t) and any(c.isalpha() for c in t)
        for t in text.split()
    )


def _agent_cues(tokens: list[str], cues: set[str]) -> None:
    """ "you" in the sentence, and what the agent is doing ("you're adding", "you keep ...")
    or did or failed to do ("you have forget", "you never updated")."""
    for i, token in enumerate(tokens):
        if token not in ("you", "your", "you're"):
            continue
        cues.add("m:you")
        after = tokens[i + 1 : i + 4]
        if token == "you" and after and after[0] == "are":
            token, after = "you're", after[1:]
        if after and after[0].endswith("ly"):
            after = after[1:]
        if token == "you're" or (after and after[0] in _YOU_PROGRESSIVE):
            rest = after if token == "you're" else after[1:]
            if rest and rest[0].endswith("ing"):
                cues.add("m:you-doing")
        if token == "you" and len(after) > 1 and _did_or_failed(after[0], after[1]):
            cues.add("m:you-past")


def _did_or_failed(first: str, second: str) -> bool:
    """The two words after "you" tell what the agent did or failed to do: "never updated",
    "forgot to", "have forget" (a base verb after "have": a non-native past)."""
    return first in _YOU_NEVER or (first in _YOU_AUX and second in _YOU_BASE_VERBS)


def _as_it_was(tokens: list[str]) -> bool:
    """ "like it was", "as they were": an earlier state asked back."""
    return any(
        a in _AS_IT_WAS and b in ("it", "they") and c in ("was", "were")
        for a, b, c in zip(tokens, tokens[1:], tokens[2:], strict=False)
    )


def _names_alternative(tokens: list[str]) -> bool:
    """ "the other one", "the existing helper", "the staging one": the right thing named."""
    for i, token in enumerate(tokens[:-1]):
        if token not in ("the", "that", "this"):
            continue
        following = tokens[i + 1]
        if following in _ALTERNATIVE_AFTER_THE:
            return True
        if following == "one" or (i + 2 < len(tokens) and tokens[i + 2] == "one"):
            return True
    return False


def _states_convention(tokens: list[str]) -> bool:
    """ "we use ...", "we don't use ...", "we migrated off ...", "in this repo": a team
    convention stated (usually after the agent broke it)."""
    for i, token in enumerate(tokens):
        if token == "we":
            after = tokens[i + 1 : i + 3]
            if after and after[0] in _WE_ADVERBS:
                after = after[1:]
            if after and after[0] in _WE_VERBS:
                return True
        elif token == "this" and 0 < i < len(tokens) - 1 and tokens[i - 1] == "in":
            return tokens[i + 1] in _TEAM_PLACES or _states_convention(tokens[i + 1 :])
    return False
