#!/usr/bin/env bash
# paths.sh: `make lint`'s check of the repository's own paths, run from its root.
#
# 1. Every tracked file's name is made of letters, digits and . _ - + / only: a space,
#    quote, #, &, $, * or other character a shell trips on breaks scripts and globs
#    (an empty file named "iretest and the Proxmox fake pvefake.#&#" was once committed
#    by a mistyped command).
# 2. No tracked file points at the notes folder beside the checkout (its name is
#    spelled in two pieces below, so that this file does not point at it either): a
#    reader who clones the repository does not have it. What a reader needs is written
#    into docs/.
set -euo pipefail
status=0
notes="../sha""red/"

bad=$(git ls-files -z | tr '\0' '\n' | LC_ALL=C grep -v '^[A-Za-z0-9._+/-]*$' || true)
if [ -n "$bad" ]; then
	echo "tracked file names with characters a shell trips on (use letters, digits, . _ - + /):"
	while IFS= read -r f; do printf '  %q\n' "$f"; done <<<"$bad"
	status=1
fi

outside=$(git ls-files -z | xargs -0 grep -InF -e "$notes" -- 2>/dev/null || true)
if [ -n "$outside" ]; then
	echo "references to $notes, which is not in the repository (write it into docs/):"
	echo "$outside" | sed 's/^/  /'
	status=1
fi
exit $status
