#!/bin/sh
# Checks what a conformance test does when the corpus is missing: it must
# fail when CI=true, and may skip otherwise.
#
# Usage: check_missing_corpus.sh CI_STATUS LOCAL_STATUS COMMAND [ARG...]
# Runs COMMAND twice with the corpus missing (WARPSIM_CONFORMANCE_DIR names a
# path that does not exist, and an ARG "@MISSING@" is replaced by that path):
# once with CI=true, expecting exit status CI_STATUS, and once without CI,
# expecting LOCAL_STATUS.
set -u
ci_status=$1
local_status=$2
shift 2
missing="${TMPDIR:-/tmp}/warpsim-no-conformance-corpus-$$"
for arg in "$@"; do
  shift
  if [ "$arg" = "@MISSING@" ]; then arg=$missing; fi
  set -- "$@" "$arg"
done
failed=0
CI=true WARPSIM_CONFORMANCE_DIR=$missing "$@"
rc=$?
if [ "$rc" -ne "$ci_status" ]; then
  echo "check_missing_corpus: with CI=true: exit $rc, expected $ci_status"
  failed=1
fi
env -u CI WARPSIM_CONFORMANCE_DIR="$missing" "$@"
rc=$?
if [ "$rc" -ne "$local_status" ]; then
  echo "check_missing_corpus: without CI: exit $rc, expected $local_status"
  failed=1
fi
exit $failed
