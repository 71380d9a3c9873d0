#!/bin/sh
# Bring every catalogue (dsl/locales/*.po) up to date with the strings of the code and
# templates: extract them (babel.cfg says where), merge them into each catalogue, and fill
# English with the message ids. Then translate the empty msgstr of the other catalogues;
# tests/test_i18n.py fails while one is missing. A new language: `scripts/catalogues.sh xx`
# makes dsl/locales/xx.po (with xx's plural rules); translate it, done (it is compiled in
# memory when first used).
set -eu
cd "$(dirname "$0")/.."
PYBABEL="${PYBABEL:-.venv/bin/pybabel}"
template="$(mktemp --suffix=.pot)"
trap 'rm -f "$template"' EXIT
"$PYBABEL" -q extract -F babel.cfg -k N_ --no-location --sort-output -o "$template" .
for new in "$@"; do
    "$PYBABEL" -q init -i "$template" -o "dsl/locales/$new.po" -l "$new"
done
for po in dsl/locales/*.po; do
    lang="$(basename "$po" .po)"
    "$PYBABEL" -q update -i "$template" -o "$po" -l "$lang" --no-fuzzy-matching --ignore-obsolete
done
.venv/bin/python scripts/fill_source_catalogue.py dsl/locales/en.po
