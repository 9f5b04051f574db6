"""Look-alikes of well-known package names: what a typo-squatting note asks an agent to install.

Why it exists: a poisoned memory entry need not say anything alarming; "install ``reqeusts``",
"use the crate ``serde_jsonn``" or "``npm i @babel-core/preset-env``" read like ordinary
conventions, and the package they name runs its install script on the user's machine. This
module compares the package names a text names (in an install command, in backticks, or as an
npm scope) with a static list of popular package names and real npm scopes shipped here (never
downloaded): a name one or two edits from a popular one, the same with a look-alike affix
(``colourama-js``), or a scope that borrows a real scope's name (``@babel-core``), is a
look-alike. The instruction detector (:mod:`conkeeper.domain.instructions`) holds such a note;
the learned scorer (:mod:`conkeeper.domain.instruction_features`) reads it as a feature.

Pure and standard library only; the pattern is compiled and the lists are split on first use.
"""

from __future__ import annotations

import functools

from conkeeper.domain.lazy_re import LazyPattern

# Package names typo-squatters imitate (PyPI, npm, crates.io, RubyGems, Go), and the npm scopes
# that are real: shipped with the package, never fetched. A name one or two edits from one of
# these (``reqeusts``, ``numpyy``, ``serde_jsonn``), or a scope that borrows a real one's name
# (``@babel-core/x``, ``@stripe-official/...``), is what a poisoned note installs.
_POPULAR_NAMES = """
requests numpy pandas django flask urllib3 colorama setuptools python-dateutil beautifulsoup4
pyyaml cryptography boto3 botocore boto pytest matplotlib scipy pillow sqlalchemy jinja2 jinja
httpx pydantic pydantic-core fastapi certifi idna charset-normalizer six wheel pip virtualenv
attrs packaging psutil pyparsing typing-extensions importlib-metadata zipp click rich tqdm
aiohttp uvicorn gunicorn celery redis pymongo psycopg2 psycopg2-binary mysqlclient lxml
openpyxl xlrd scikit-learn sklearn tensorflow torch torchvision keras transformers tokenizers
openai anthropic langchain selenium playwright pyjwt paramiko fabric ansible docker kubernetes
black ruff mypy flake8 pylint isort coverage tox nox poetry pipenv hatch twine pre-commit
python-dotenv dotenv markdown mkdocs sphinx docutils pygments regex simplejson ujson orjson
protobuf grpcio googleapis-common-protos google-auth google-cloud-storage awscli s3transfer
jmespath pytz tzdata arrow pendulum pyarrow polars dask numba cython pyopenssl bcrypt passlib
itsdangerous werkzeug markupsafe wtforms alembic marshmallow networkx sympy opencv-python
discord.py tweepy slack-sdk stripe twilio sentry-sdk structlog loguru hypothesis faker
pytest-cov pytest-mock pytest-asyncio mock responses httpretty vcrpy freezegun
lodash express react react-dom preact vue vuex nuxt next svelte angular axios chalk moment
dayjs electron typescript webpack vite rollup esbuild babel eslint prettier jest mocha chai
jquery request commander debug dotenv yargs inquirer ora uuid nanoid bcryptjs jsonwebtoken
mongoose sequelize prisma knex pg mysql mysql2 sqlite3 redis ioredis socket.io ws cors
body-parser cookie-parser helmet morgan nodemon pm2 concurrently cross-env rimraf glob
minimist semver fs-extra node-fetch cheerio puppeteer sharp zod yup formik redux
react-redux react-router react-router-dom styled-components tailwindcss postcss autoprefixer
sass less classnames date-fns rxjs tslib core-js regenerator-runtime graphql apollo-server
stripe-node event-stream colors ua-parser-js coa rc left-pad is-promise
serde serde_json serde_derive tokio rand clap anyhow thiserror reqwest hyper actix-web axum
log env_logger tracing regex chrono lazy_static once_cell itertools syn quote proc-macro2
rails rake bundler nokogiri rspec sinatra puma devise sidekiq
mlflow dbt-core dbt-snowflake dbt-postgres dbt-bigquery apache-airflow great-expectations
snowflake-connector-python snowflake-sqlalchemy pyspark jupyterlab ipykernel ipython seaborn
plotly xgboost lightgbm catboost statsmodels huggingface-hub sentence-transformers spacy
streamlit gradio duckdb sqlfluff dagster optuna wandb databricks-sdk databricks-cli pyodbc
oracledb safetensors tiktoken llama-index langchain-core onnxruntime scikit-image papermill
nbconvert nbformat pandera fsspec deltalake apache-beam confluent-kafka kafka-python
google-cloud-bigquery pandas-gbq
node python golang postgres redis nginx ubuntu alpine debian mysql mongo busybox httpd
openjdk eclipse-temurin rust ruby php traefik rabbitmq memcached mariadb caddy haproxy
"""
_REAL_SCOPES = """
babel types angular vue nestjs aws-sdk google-cloud azure typescript-eslint testing-library
emotion mui reduxjs sentry octokit tanstack sveltejs vitejs storybook prisma trpc radix-ui
firebase apollo graphql-codegen hapi fastify playwright jest rollup swc esbuild commitlint
changesets eslint stripe anthropic-ai openai react-native-community react-native expo
fortawesome fontsource headlessui heroicons next vercel supabase tiptap
"""
_AFFIXES = (
    "-official",
    "-offical",
    "-oficial",
    "-verified",
    "-mirror",
    "-secure",
    "-patched",
    "-fast",
    "-fixed",
    "-plus",
    "-stable",
    "-fork",
    "-js",
    "-py",
    "js",
    "py",
)
_NAMES: list[tuple[frozenset[str], frozenset[str]]] = []
_SEPARATORS = LazyPattern(r"[-_.]+")
_PACKAGE = LazyPattern(
    r"\b(?:install|add|require|crate|gem|package|library|module|dependency|image|i)\s+"
    r"(?:-\S+\s+)*[`'\"]?(@?[a-z0-9][\w.-]{2,40}(?:/[\w.-]{1,40})?)(?::[\w.-]{1,30})?(?![\w:/])"
    r"|`(@?[a-z0-9][\w.-]{2,40}(?:/[\w.-]{1,40})?)(?:[=<>~@^][^`\s]{0,20})?`"
    r"|(@[a-z0-9][\w.-]{1,40}/[\w.-]{1,40})"
)


def _names() -> tuple[frozenset[str], frozenset[str]]:
    if not _NAMES:
        _NAMES.append((frozenset(_POPULAR_NAMES.split()), frozenset(_REAL_SCOPES.split())))
    return _NAMES[0]


def edit_distance(a: str, b: str, limit: int = 2) -> int:
    """Damerau-Levenshtein distance (adjacent swaps count one), ``limit + 1`` once it is over
    ``limit`` (two short names are compared in a few microseconds)."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    before: list[int] = []
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            current[j] = min(row[j] + 1, current[j - 1] + 1, row[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], before[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        before, row = row, current
    return min(row[-1], limit + 1)


def squatted(name: str) -> str:
    """The well-known package (or npm scope) ``name`` imitates, ``""`` when it imitates none:
    a name one edit from a popular one (two for names of seven letters or more), the same after
    a look-alike affix is dropped (``colourama-js``), or a scope that is a real scope or
    package with something added (``@babel-core/x``)."""
    popular, scopes = _names()
    name = name.lower().strip("`'\".,;:()")
    for mark in ("==", ">=", "<=", "~=", "@^", "@~"):
        name = name.partition(mark)[0]
    if name.startswith("@") and "/" in name:
        scope = name[1:].partition("/")[0]
        if scope in scopes:
            return ""
        for part in (scope.partition("-")[0], scope.partition("_")[0], scope.replace("-", "")):
            if part != scope and (part in scopes or part in popular):
                return "@" + part
        near = [s for s in scopes if len(s) >= 5 and edit_distance(scope, s, 1) == 1]
        return "@" + near[0] if near else ""
    if name in popular or _pypi_form(name) in _pypi_forms() or len(name) < 5 or "/" in name:
        return ""  # "typing_extensions" is typing-extensions (PyPI reads -, _ and . alike)
    candidates = [name] + [name.removesuffix(a) for a in _AFFIXES if name.endswith(a)]
    for candidate in candidates:
        if candidate != name and candidate in popular:
            return candidate
        for known in popular:
            if _near_miss(candidate, known):
                return known
    return ""


def _pypi_form(name: str) -> str:
    """``name`` as PyPI compares names: runs of ``-``, ``_`` and ``.`` as one ``-``."""
    return _SEPARATORS.sub("-", name)


@functools.cache
def _pypi_forms() -> frozenset[str]:
    """The popular names as PyPI compares them (made on first use)."""
    return frozenset(_pypi_form(n) for n in _names()[0])


def _near_miss(name: str, known: str) -> bool:
    """``name`` is a typo of ``known``: the same first letter, one edit (two for names of
    eight letters or more; for five-letter ones only a swap or a doubled letter, "numpyy",
    since one edit there makes other words, "flash"), and not a word cut short ("command" is
    no typo of "commander"; dropping a version digit is: "beautifulsoup")."""
    if len(known) < 5 or known == name or name[0] != known[0]:
        return False
    if name.startswith(known) and name[len(known) :].isdigit():
        return False  # "python3", "postgres16": a version, not a typo
    if known.startswith(name) or known.endswith(name):
        return known[len(name) :].isdigit()
    if len(known) == 5:
        return (len(name) == 5 and sorted(name) == sorted(known)) or _doubled(name, known)
    limit = 2 if len(known) >= 8 else 1
    return edit_distance(name, known, limit) <= limit


# Words of a note that warns about a look-alike rather than installs it.
_WARNINGS = ("squat", "malicious", "look-alike", "lookalike", "by mistake", "typo-")
# Words that come with a package name to use; a text with none is not scanned (a backtick alone
# is in most memory edits, and the scan must cost a hook nothing then).
_HINTS = (
    "instal",
    "@",
    "add ",
    "crate",
    "package",
    "paquet",
    "pacote",
    "paket",
    "require",
    "depend",
    "gem ",
    "use `",
    "use the",
    "usa `",
    "instead",
    "replace",
    "swap",
    "lugar",
    "vez de",
    "statt",
    "place de",
    "invece",
    "zamiast",
    "yerine",
    "вместо",
    "代替",
    "替换",
    "代わり",
    "대신",
    "npm",
    "pip",
    "yarn",
    "cargo",
    "deps",
    "image",
)


def look_alikes(lowered: str) -> list[tuple[int, str, str, bool]]:
    """Each look-alike package name in lower-cased text: its offset, the name, the well-known
    package it imitates, and whether the text warns about look-alikes ("typo-squat",
    "malicious", "by mistake": a mention, not an order)."""
    warned = any(word in lowered for word in _WARNINGS)
    found = [(at, name, known, warned) for at, name, known in owner_look_alikes(lowered)]
    if not any(hint in lowered for hint in _HINTS):
        return found
    for match in _PACKAGE.finditer(lowered):
        group = next(i for i in (1, 2, 3) if match.group(i))
        name = match.group(group)
        known = squatted(name)
        if known:
            found.append((match.start(group), name, known, warned))
    return sorted(found)


# Owners of GitHub Actions and Go modules, and the names of registries and vendors' sites,
# that look-alikes imitate ("actlons/checkout", "github.com/segmentlo/kafka-go",
# "charts.bitnarni.com"); every real name close to another is listed, so it is never one.
_KNOWN_OWNERS = """
actions github docker aws-actions azure google-github-actions hashicorp pypa pypi
peter-evans softprops codecov dorny actions-rs dtolnay taiki-e astral-sh pnpm oven-sh denoland
golang google kubernetes kubernetes-sigs argoproj argoproj-labs helm bitnami prometheus
grafana segmentio confluentinc spf13 stretchr sirupsen uber-go gin-gonic gorilla labstack
jackc lib go-chi rs tokio-rs serde-rs rust-lang npmjs nodejs python anthropics openai
microsoft facebook vercel cloudflare jetbrains gitlab bitbucket atlassian elastic redis
mongodb postgres terraform-aws-modules cert-manager jetstack traefik nginx
ingress-nginx fluxcd cilium istio open-telemetry getsentry datadog newrelic sonarsource
snyk aquasecurity anchore sigstore ossf renovatebot dependabot wordpress woocommerce laravel
symfony composer packagist rubygems crates
"""
_LOOK_ALIKE_LETTERS = (("rn", "m"), ("vv", "w"), ("0", "o"), ("1", "l"), ("ii", "u"))
_OWNER = LazyPattern(
    r"(?:\buses:\s*|\bgithub\.com/|\bgitlab\.com/|\bghcr\.io/|\boci://[\w.-]+/)"
    r"([a-z0-9][\w.-]{2,40})/"
    r"|\b([a-z0-9][a-z0-9-]{2,40})/[\w.-]{2,60}@(?:v\d|[0-9a-f]{7,40}\b|main\b|master\b)"
    r"|(?:https?://|\b)(?:[\w-]+\.)*?([a-z0-9][a-z0-9-]{3,40})\.(?:com|io|org|dev|net|sh)\b"
)
_OWNER_HINTS = ("uses:", "github.com/", "gitlab.com/", "ghcr.io/", "oci://", "@v", ".com", ".io",
                ".org", ".dev", ".net", ".sh")  # fmt: skip


@functools.cache
def _owners() -> frozenset[str]:
    """The well-known owners as a set (split on first use)."""
    return frozenset(_KNOWN_OWNERS.split())


def imitated_owner(name: str) -> str:
    """The well-known owner, registry or vendor ``name`` imitates (one edit from it, two for
    names of eight letters or more, or the same once look-alike letters are read as the ones
    they imitate: "bitnarni" is "bitnami"), ``""`` when it imitates none."""
    owners = _owners()
    if name in owners or len(name) < 5:
        return ""
    plain = name
    for fake, real in _LOOK_ALIKE_LETTERS:
        plain = plain.replace(fake, real)
    if plain != name and plain in owners:
        return plain
    for known in owners:
        if len(known) < 5 or known[0] != name[0] or name.startswith(known):
            continue
        if known.startswith(name) or (name.replace("-", "") == known.replace("-", "")):
            continue  # "argoproj-labs" is no typo of "argoproj"; hyphens are spelling
        limit = 2 if len(known) >= 8 else 1
        if edit_distance(name, known, limit) <= limit:
            return known
    return ""


def owner_look_alikes(lowered: str) -> list[tuple[int, str, str]]:
    """Each look-alike owner, registry or vendor name in lower-cased text (an Action's owner,
    a Go module's or container registry's path, a site's name): offset, name, imitated."""
    if not any(hint in lowered for hint in _OWNER_HINTS):
        return []
    found: list[tuple[int, str, str]] = []
    for match in _OWNER.finditer(lowered):
        group = next(i for i in (1, 2, 3) if match.group(i))
        known = imitated_owner(match.group(group))
        if known:
            found.append((match.start(group), match.group(group), known))
    return found


def _doubled(name: str, known: str) -> bool:
    """``name`` is ``known`` with one letter typed twice."""
    return len(name) == len(known) + 1 and any(
        name[i] == name[i - 1] and name[:i] + name[i + 1 :] == known for i in range(1, len(name))
    )
