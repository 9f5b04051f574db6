"""Generate the BLIND secret-detection set (``blind.jsonl``) from a fixed seed.

Why a separate, blind set: the tuning corpus (``make_corpus.py``) is what the detector is
developed against, so its figures flatter the detector. This set was written, committed and
measured *before* the detector was changed for the classes it covers, and nobody tunes on it
afterwards: its recall and false-positive rate are the honest estimate for text the detector
has not seen. Add new tuning cases to ``make_corpus.py``, never here (a change here makes the
blind figures meaningless; write a new blind set instead).

Like the tuning corpus, tokens are assembled at run time from split prefixes and seeded random
characters so the repository carries no literal credential. Each JSONL line is
``{"text": ..., "secrets": [{"kind": ..., "value": ...}], "note": ...}``; ``value`` is the
exact substring that must disappear from ``redact(text)``; negatives (empty ``secrets``) must
come back unchanged.
"""

from __future__ import annotations

import base64
import json
import random
import string
from pathlib import Path

SEED = 20261123
HERE = Path(__file__).resolve().parent
OUT = HERE / "blind.jsonl"

LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
DIGITS = string.digits
ALNUM = LOWER + UPPER + DIGITS
HEX = "0123456789abcdef"
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
SLOT = "\u00abv\u00bb"  # where the secret value goes in a template


def chars(rng: random.Random, alphabet: str, n: int) -> str:
    """``n`` random characters from ``alphabet``."""
    return "".join(rng.choice(alphabet) for _ in range(n))


def password(rng: random.Random) -> str:
    """A password of one of the shapes people actually use (not the tuning corpus's maker)."""
    shape = rng.randrange(5)
    words = ["orchid", "granite", "pelican", "saffron", "glacier", "mustang", "tundra", "ember"]
    if shape == 0:
        return rng.choice(words).capitalize() + str(rng.randint(10, 9999)) + rng.choice("!@#$")
    if shape == 1:
        return "-".join(rng.sample(words, 3)) + str(rng.randint(1, 99))
    if shape == 2:
        return chars(rng, ALNUM + "!@#%^&*", rng.randint(10, 16))
    if shape == 3:
        w = rng.choice(words)
        return w[0].upper() + w[1:].replace("a", "@").replace("o", "0") + str(rng.randint(1, 99))
    return (
        chars(rng, LOWER, 3)
        + chars(rng, DIGITS, 3)
        + chars(rng, UPPER, 2)
        + "_"
        + chars(rng, LOWER, 4)
    )


def vault_token(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return "hv" + "s." + chars(rng, ALNUM, 24)
    return "hv" + "s.CAESI" + chars(rng, ALNUM + "_-", 85)


def mailgun_key(rng: random.Random) -> str:
    if rng.random() < 0.6:
        return "ke" + "y-" + chars(rng, HEX, 32)
    return chars(rng, HEX, 32) + "-" + chars(rng, HEX, 8) + "-" + chars(rng, HEX, 8)


def age_key(rng: random.Random) -> str:
    return "AGE-SECRET" + "-KEY-1" + chars(rng, BECH32, 58).upper()


def azure_secret(rng: random.Random) -> str:
    return chars(rng, ALNUM, 3) + rng.choice(DIGITS) + "Q~" + chars(rng, ALNUM + "_.-~", 34)


def docker_auth(rng: random.Random, user: str) -> str:
    return base64.b64encode(f"{user}:{password(rng)}".encode()).decode()


def _uuid(rng: random.Random) -> str:
    h = chars(rng, HEX, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


Template = tuple[str, str, str, str]
Extras = dict[str, list[tuple[str, str]]]


def _positive_templates(rng: random.Random) -> tuple[Extras, list[Template]]:
    """(template, value, kind, note): the value replaces the slot in the template; the extras
    are further secrets written literally into a template, by note."""
    p = password
    s = SLOT
    repl, old = p(rng), p(rng)
    extras = {
        "pgpass file two lines": [("password", repl)],
        "terraform plan change": [("password", old)],
    }
    return extras, [
        # Docker config.json
        (
            '{\n  "auths": {\n    "registry.gitlab.com": {\n      "auth": "'
            + s
            + '"\n    }\n  }\n}',
            docker_auth(rng, "deploy-bot"),
            "basic-auth",
            "docker config auths",
        ),
        (
            'cat ~/.docker/config.json\n{"auths":{"ghcr.io":{"auth":"' + s + '"}},"credsStore":""}',
            docker_auth(rng, "octocat"),
            "basic-auth",
            "docker config one line",
        ),
        (
            '"https://index.docker.io/v1/": {\n\t"auth": "' + s + '",\n\t"email": "ops@corp.io"\n}',
            docker_auth(rng, "opsteam"),
            "basic-auth",
            "docker hub entry",
        ),
        # .pgpass
        ("db.internal:5432:orders:orders_rw:" + s, p(rng), "password", "pgpass line"),
        (
            "$ cat ~/.pgpass\nlocalhost:5432:*:postgres:" + s + "\n*:*:*:replicator:" + repl,
            p(rng),
            "password",
            "pgpass file two lines",
        ),
        ("10.0.3.12:6432:analytics:metabase:" + s, p(rng), "password", "pgpass pgbouncer"),
        # Vault
        ("export VAULT_TOKEN=" + s, vault_token(rng), "vault-token", "vault env"),
        (
            "Key                  Value\n---                  -----\ntoken                "
            + s
            + "\ntoken_accessor       "
            + chars(rng, ALNUM, 24)
            + "\ntoken_duration       768h",
            vault_token(rng),
            "vault-token",
            "vault login output",
        ),
        (
            'curl -H "X-Vault-Token: ' + s + '" https://vault:8200/v1/secret/data/app',
            vault_token(rng),
            "vault-token",
            "vault header",
        ),
        ("vault token lookup " + s, vault_token(rng), "vault-token", "vault cli arg"),
        # Mailgun
        ("MAILGUN_API_KEY=" + s, mailgun_key(rng), "mailgun-key", "mailgun env"),
        (
            "curl -s --user 'api:" + s + "' https://api.mailgun.net/v3/mg.shop.io/messages",
            mailgun_key(rng),
            "mailgun-key",
            "mailgun curl user",
        ),
        (
            "mailgun:\n  domain: mg.shop.io\n  apikey: " + s,
            "ke" + "y-" + chars(rng, HEX, 32),
            "mailgun-key",
            "mailgun yaml",
        ),
        # age
        (
            "# created: 2024-03-01T10:00:00Z\n# public key: age1"
            + chars(rng, BECH32, 58)
            + "\n"
            + s,
            age_key(rng),
            "age-secret-key",
            "age keys.txt",
        ),
        (
            "SOPS_AGE_KEY=" + s + " sops -d secrets.enc.yaml",
            age_key(rng),
            "age-secret-key",
            "sops age env",
        ),
        (
            "my age identity is " + s + " keep it safe",
            age_key(rng),
            "age-secret-key",
            "age in prose",
        ),
        # Azure client secrets
        ('AZURE_CLIENT_SECRET="' + s + '"', azure_secret(rng), "azure-client-secret", "azure env"),
        (
            '{\n  "appId": "'
            + _uuid(rng)
            + '",\n  "password": "'
            + s
            + '",\n  "tenant": "'
            + _uuid(rng)
            + '"\n}',
            azure_secret(rng),
            "azure-client-secret",
            "az ad sp create output",
        ),
        (
            "az login --service-principal -u "
            + _uuid(rng)
            + " -p "
            + s
            + " --tenant corp.onmicrosoft.com",
            azure_secret(rng),
            "azure-client-secret",
            "az login -p",
        ),
        (
            "New client secret value (copy now, shown once): " + s,
            azure_secret(rng),
            "azure-client-secret",
            "azure portal prose",
        ),
        # redis-cli
        (
            "redis-cli -h cache.prod -p 6380 -a " + s + " --no-auth-warning INFO",
            p(rng),
            "password",
            "redis-cli -a",
        ),
        ("redis-cli -a '" + s + "' KEYS 'session:*'", p(rng), "password", "redis-cli -a quoted"),
        ("$ redis-cli --pass " + s + " ping\nPONG", p(rng), "password", "redis-cli --pass"),
        # PGPASSWORD and libpq
        (
            "PGPASSWORD='" + s + "' psql -h 127.0.0.1 -U app -d app -c 'select 1'",
            p(rng),
            "password",
            "PGPASSWORD quoted",
        ),
        (
            "env PGPASSWORD=" + s + " pg_restore -d app latest.dump",
            p(rng),
            "password",
            "PGPASSWORD env",
        ),
        (
            'psql "host=pg.internal port=5432 dbname=billing user=billing password='
            + s
            + ' sslmode=require"',
            p(rng),
            "password",
            "libpq conninfo",
        ),
        (
            "DATABASE_DSN='dbname=app user=app password=" + s + " host=/var/run/postgresql'",
            p(rng),
            "password",
            "libpq dsn env",
        ),
        # ldapsearch
        (
            'ldapsearch -x -H ldaps://ldap.corp -D "cn=admin,dc=corp,dc=io" -w '
            + s
            + ' -b "dc=corp,dc=io"',
            p(rng),
            "password",
            "ldapsearch -w",
        ),
        (
            "ldapmodify -D cn=Manager,dc=example,dc=com -w '" + s + "' -f change.ldif",
            p(rng),
            "password",
            "ldapmodify -w",
        ),
        # sqlcmd
        (
            "sqlcmd -S tcp:sql01,1433 -U sa -P " + s + ' -Q "SELECT @@VERSION"',
            p(rng),
            "password",
            "sqlcmd -P",
        ),
        (
            "sqlcmd -S localhost -U deploy -P '" + s + "' -i migrate.sql",
            p(rng),
            "password",
            "sqlcmd -P quoted",
        ),
        # PHP
        ("define('DB_PASSWORD', '" + s + "');", p(rng), "password", "wp-config define"),
        (
            'define("AUTH_KEY", "' + s + '");',
            chars(rng, ALNUM + "!@#%^&*()-_[]{}<>~+=,.;:/?|", 64).replace("'", "").replace('"', ""),
            "generic-secret",
            "wp-config auth key",
        ),
        (
            "<?php\ndefine( 'DB_USER', 'wp' );\ndefine( 'DB_PASSWORD', '" + s + "' );",
            p(rng),
            "password",
            "wp-config spaced define",
        ),
        # terraform
        (
            'db_password    = "' + s + '"\nregion         = "eu-central-1"',
            p(rng),
            "password",
            "tfvars password",
        ),
        (
            'client_secret = "' + s + '"',
            azure_secret(rng),
            "azure-client-secret",
            "tfvars azure secret",
        ),
        (
            '  # aws_db_instance.main will be created\n  + resource "aws_db_instance" "main" {\n'
            '      + engine   = "postgres"\n      + password = "' + s + '"\n    }',
            p(rng),
            "password",
            "terraform plan create",
        ),
        (
            '      ~ admin_password = "' + old + '" -> "' + s + '"',
            p(rng),
            "password",
            "terraform plan change",
        ),
        # prose
        ("staging db pw: " + s, p(rng), "password", "prose pw colon"),
        ("PW: " + s + " (rotated monday)", p(rng), "password", "prose PW upper"),
        (
            "you can login with admin / " + s + " on the test box",
            p(rng),
            "password",
            "prose login with",
        ),
        (
            "Log in with root / " + s + " and change it after",
            p(rng),
            "password",
            "prose log in with",
        ),
        ("the password is " + s + " for the wifi", p(rng), "password", "prose the password is"),
        ("FYI the grafana password is " + s, p(rng), "password", "prose grafana password is"),
        ("creds for jenkins: admin/" + s, p(rng), "password", "prose creds slash"),
        ("user: deploy\npass: " + s, p(rng), "password", "prose pass line"),
        # known classes in new surroundings
        (
            "mongosh 'mongodb+srv://app:" + s + "@cluster0.ab1cd.mongodb.net/prod'",
            p(rng),
            "url-password",
            "mongo srv url",
        ),
        (
            "  ConnectionStrings__Default: Server=sql;Database=app;User Id=sa;Password=" + s + ";",
            p(rng),
            "password",
            "dotnet connection string",
        ),
        ("spring.datasource.password=" + s, p(rng), "password", "spring properties"),
        ("htpasswd -b -c .htpasswd admin " + s, p(rng), "password", "htpasswd -b"),
    ]


def _negative_texts(rng: random.Random) -> list[tuple[str, str]]:
    """Hard negatives: masks, placeholders, hashes, ids, and ordinary code and prose."""
    sha = chars(rng, HEX, 40)
    h64 = chars(rng, HEX, 64)
    uid = _uuid(rng)
    return [
        ('Parameters: {"email"=>"a@b.io", "password"=>"[FILTERED]"}', "rails filtered"),
        ("PGPASSWORD=**** psql -h db -U app", "masked PGPASSWORD"),
        ("redis-cli -a ******** ping", "masked redis"),
        ("password: <redacted>", "redacted yaml"),
        ('"auth": "[REDACTED]"', "redacted docker auth"),
        ("the password is [FILTERED]", "prose filtered"),
        ("pw: ****", "prose masked pw"),
        ("define('DB_PASSWORD', getenv(\"DB_PASSWORD\"));", "php define env"),
        ("define('DB_HOST', 'localhost');", "php define host"),
        ("      + password = (sensitive value)", "tf plan sensitive"),
        ("  ~ master_password = (sensitive value)", "tf plan sensitive change"),
        ("db_password = var.db_password", "tf var reference"),
        ('variable "db_password" {\n  type      = string\n  sensitive = true\n}', "tf variable"),
        ('redis-cli -a "$REDIS_PASSWORD" ping', "redis env ref"),
        ("sqlcmd -S db -U sa -P $env:SA_PASSWORD", "sqlcmd env ref"),
        ("ldapsearch -x -W -D cn=admin,dc=corp -b dc=corp", "ldapsearch prompt"),
        (
            "Each line of .pgpass has the form hostname:port:database:username:password",
            "pgpass doc",
        ),
        ("*:*:*:postgres:*", "pgpass wildcard only"),
        ("Vault tokens now start with hvs. (service) or hvb. (batch)", "vault doc"),
        ("export VAULT_TOKEN=$(vault print token)", "vault subshell"),
        ("age-keygen -o key.txt\nPublic key: age1" + chars(rng, BECH32, 58), "age public key"),
        (
            "AGE-SECRET-KEY-1XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
            "age placeholder",
        ),
        ('"tenantId": "' + uid + '", "clientId": "' + _uuid(rng) + '"', "azure ids"),
        ("AZURE_CLIENT_SECRET=<client-secret>", "azure placeholder"),
        ("commit " + sha + "\nAuthor: Dana <dana@corp.io>", "git log"),
        ("sha256:" + h64, "image digest"),
        (
            '"integrity": "sha512-'
            + base64.b64encode(bytes(rng.randrange(256) for _ in range(64))).decode()
            + '"',
            "npm integrity",
        ),
        ("request_id=" + uid + " status=200 latency=12ms", "uuid log"),
        ("MAILGUN_DOMAIN=mg.example.com", "mailgun domain"),
        ("Use a key-value store such as Redis for the session cache.", "key-value prose"),
        ("const key = `key-${user.id}-${Date.now()}`;", "key template literal"),
        ("for key, value in settings.items():\n    print(key, value)", "loop code"),
        ("The password is stored in Vault under secret/app/db.", "prose password is stored"),
        ("Please login with your SSO account / then pick the tenant", "prose login sso"),
        ("If the password is wrong, psql prints 'password authentication failed'", "prose wrong"),
        ("pw: see 1Password item 'staging db'", "prose pw pointer"),
        ("login with admin / the password from the team vault", "prose login pointer"),
        ("password_min_length = 12\npassword_require_symbols = true", "password policy"),
        ('FATAL:  password authentication failed for user "app"', "pg error"),
        ("docker login ghcr.io -u octocat --password-stdin < token.txt", "docker password-stdin"),
        ('{"auths": {"ghcr.io": {}}, "credsStore": "desktop"}', "docker creds store"),
        ("redis-cli -h cache -p 6379 --scan --pattern 'user:*'", "redis scan"),
        ('sqlcmd -S localhost -E -Q "SELECT name FROM sys.databases"', "sqlcmd trusted"),
        ('psql "host=db port=5432 dbname=app user=app sslmode=require"', "libpq no password"),
        ("ldapsearch -x -H ldap://ldap -b dc=corp,dc=io '(uid=dana)'", "ldap anonymous"),
        ("ALTER ROLE app WITH PASSWORD '********';", "sql masked"),
        (
            "$ terraform apply\nApply complete! Resources: 3 added, 0 changed, 0 destroyed.",
            "tf apply",
        ),
        ("Authorization: Bearer <token>", "bearer placeholder"),
        (
            "def check_password(raw: str, hashed: str) -> bool:\n    return bcrypt.checkpw(raw, "
            "hashed)",
            "python password code",
        ),
        (
            "The quick fix: pass the key through an env var, never on the command line.",
            "advice prose",
        ),
        ("git checkout -b fix/token-refresh " + sha[:7], "branch name"),
        ('"password": ""', "empty password"),
    ]


def build_blind(seed: int = SEED) -> list[dict]:
    """All blind cases, positives first, deterministically from ``seed``."""
    rng = random.Random(seed)
    cases = []
    extras, templates = _positive_templates(rng)
    for template, value, kind, note in templates:
        assert SLOT in template and SLOT not in value
        text = template.replace(SLOT, value)
        found = [(kind, value), *extras.get(note, [])]
        secrets = [{"kind": k, "value": v} for k, v in found]
        assert all(v in text for _k, v in found), note
        cases.append({"text": text, "secrets": secrets, "note": note})
    for text, note in _negative_texts(rng):
        cases.append({"text": text, "secrets": [], "note": note})
    return cases


def main() -> None:
    cases = build_blind()
    with OUT.open("w", encoding="utf-8", newline="\n") as fh:
        for case in cases:
            fh.write(json.dumps(case, ensure_ascii=False) + "\n")
    positives = sum(1 for c in cases if c["secrets"])
    print(f"wrote {len(cases)} cases ({positives} positive, {len(cases) - positives} negative)")


if __name__ == "__main__":
    main()
