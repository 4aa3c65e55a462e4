#!/usr/bin/env bash
# pkgsize.sh: `make lint`'s package size check, run from the repository root. A package
# of the module may hold at most 4,000 lines of non-test Go, generated files aside: past
# that it is more than one room, and it is split along a seam before it grows further.
# pkgsize.allow lists the packages over the limit for now, each with the most lines it
# may hold (so that it cannot grow while it waits for its split) and the reason; an
# entry for a package back under the limit fails too, so the list shrinks.
set -euo pipefail
limit=4000
allow="$(dirname "$0")/pkgsize.allow"
root=$(pwd)

status=0
declare -A ceiling reason
while read -r dir max why; do
	ceiling[$dir]=$max
	reason[$dir]=$why
done < <(grep -Ev '^[[:space:]]*(#|$)' "$allow")

declare -A seen
for abs in $(go list -f '{{.Dir}}' ./...); do
	dir=${abs#"$root"/}
	seen[$dir]=1
	n=0
	for f in "$abs"/*.go; do
		case $f in *_test.go) continue ;; esac
		# A generated file says so in a comment before its package clause.
		if sed '/^package /q' "$f" | grep -Eq '^// Code generated .* DO NOT EDIT\.$'; then
			continue
		fi
		n=$((n + $(wc -l <"$f")))
	done
	max=${ceiling[$dir]:-$limit}
	if [ "$max" = - ]; then
		continue
	fi
	if [ "$n" -gt "$max" ]; then
		if [ "$max" = "$limit" ]; then
			echo "pkgsize: $dir holds $n lines of Go (tests and generated code aside); the limit is $limit: split it along a seam"
		else
			echo "pkgsize: $dir holds $n lines of Go; tools/lint/pkgsize.allow lets it hold $max until it is split (${reason[$dir]})"
		fi
		status=1
	elif [ "$max" != "$limit" ] && [ "$n" -le "$limit" ]; then
		echo "pkgsize: $dir is down to $n lines, within the limit: remove it from tools/lint/pkgsize.allow"
		status=1
	fi
done
for dir in "${!ceiling[@]}"; do
	if [ -z "${seen[$dir]:-}" ]; then
		echo "pkgsize: tools/lint/pkgsize.allow names $dir, which is no package of the module: remove it"
		status=1
	fi
done
exit $status
