#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Every shell script of the tree, by name or by its #! line, checked
# with the tree's .shellcheckrc.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts=()
while IFS= read -r f; do
	case $f in
	*.sh) scripts+=("$f") ;;
	*) head -n1 "$f" 2>/dev/null | grep -qE '^#!/bin/(ba)?sh' && scripts+=("$f") ;;
	esac
done < <(git ls-files)
shellcheck "${scripts[@]}"
