#!/usr/bin/env bash
# deadcode.sh: `make lint`'s dead-code check, run from the repository root. It fails on
#   - a function that neither a main package nor any test reaches (deadcode -test): dead,
#     delete it;
#   - a function of the program's own packages that only tests reach (deadcode without
#     -test): move it into the tests that use it, or delete it.
# The second pass leaves out packages that exist for their callers or for tests: the Go
# client library (client/: its callers are other programs, and the first pass holds it to
# its tests), and the test helpers apptest, hypervisortest, leakcheck, testwait, kittest,
# wiretest, etcdtest (the embedded etcd), storetest (the stores' conformance suite),
# mailtest (the SMTP server of the mail tests), ssotest (the OpenID Connect provider of
# the single sign-on tests), pdnstest (the PowerDNS server of the reverse DNS tests) and
# the Proxmox fake pvefake.
# deadcode.allow lists the deliberate exceptions, each with its reason; an entry that no
# longer matches a finding fails too, so the list does not outlive its reasons.
set -euo pipefail
here=$(dirname "$0")
deadcode=$(go -C "$here" tool -n deadcode)
allow="$here/deadcode.allow"

# "file func" of each finding; line numbers would make the allowlist churn.
findings() { "$deadcode" "$@" | sed -E 's/^([^:]+):[0-9]+:[0-9]+: unreachable func: (.*)$/\1 \2/'; }

found=$( {
	findings -test ./...
	findings ./... | grep -Ev '^(client|app/apptest|hypervisor/hypervisortest|hypervisor/proxmox/pvefake|internal/leakcheck|internal/testwait|actors/kit/kittest|actors/kit/wiretest|internal/etcdtest|persistence/storetest|mailer/mailtest|sso/ssotest|pdns/pdnstest)/'
} | sort -u)
allowed=$(grep -Ev '^[[:space:]]*(#|$)' "$allow" | awk '{print $1, $2}' | sort -u)

status=0
if bad=$(comm -23 <(echo "$found") <(echo "$allowed") | grep .); then
	echo "deadcode: unreachable functions (delete them, move test-only code into the tests,"
	echo "or list a deliberate exception with its reason in tools/lint/deadcode.allow):"
	echo "$bad" | sed 's/^/  /'
	status=1
fi
if stale=$(comm -13 <(echo "$found") <(echo "$allowed") | grep .); then
	echo "deadcode: tools/lint/deadcode.allow lists functions deadcode no longer reports; remove them:"
	echo "$stale" | sed 's/^/  /'
	status=1
fi
exit $status
