#!/bin/sh
# style.clang_format: every C file of the repository is as clang-format (Debian 12's, version
# 14, with the repository's .clang-format) writes it. Lists the files that are not and shows
# the first lines of the change clang-format wants; `clang-format -i FILE` applies it.
# usage: format_check.sh SOURCE_DIR
set -eu
cd "$1"
cf=$(command -v clang-format-14 || command -v clang-format || true)
[ -n "$cf" ] || { echo "format_check: clang-format not found (make deps installs it)" >&2; exit 1; }
bad=0
for f in $(git ls-files '*.c' '*.h' 2>/dev/null || find . -name '*.[ch]' ! -path './build*'); do
    if ! "$cf" --dry-run --Werror "$f" >/dev/null 2>&1; then
        echo "not formatted: $f"
        "$cf" "$f" | diff -u "$f" - | sed -n '3,12p'
        bad=$((bad + 1))
    fi
done
[ "$bad" -eq 0 ] || { echo "$bad file(s) not formatted: run clang-format -i on them" >&2; exit 1; }
echo "all files formatted"
