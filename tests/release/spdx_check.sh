#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every source file carries an SPDX-License-Identifier line in its first three lines: C,
# headers, CUDA, CMake, shell, Python, the CI entry, fuzz targets, benches, the tests' own
# sources. Data is exempt: tests/fixtures, fuzz/corpus, docs/results and the golden and
# vector files of tests/gmmu. The identifier must be MIT (LICENSE).
set -u
cd "$P2PS_SOURCE_DIR" || exit 1
missing=0
checked=0
# The files of the source tree: what git tracks or would track (not what it ignores, such
# as build folders), else every file below the source folder.
tree_files() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files -z --cached --others --exclude-standard
	else
		find . -type f -print0
	fi
}
is_source() { # path
	case /$1 in
	*/.git/* | /build*/* | /tests/fixtures/* | /fuzz/corpus/* | /docs/results/* | \
		/tests/gmmu/golden/* | /tests/gmmu/diff/* | /tests/gmmu/new-generation/* | \
		*/__pycache__/* | */.cache/* | */debian/*) return 1 ;;
	*.c | *.h | *.cu | *.cuh | *.cmake | *.cmake.in | */CMakeLists.txt | *.sh | *.py | \
		*.sbatch | *.[1-8].in | /.ci/run | /completion/gen-completion.sh) return 0 ;;
	esac
	return 1
}
while IFS= read -r -d '' f; do
	f=${f#./}
	[ -f "$f" ] && is_source "$f" || continue
	checked=$((checked + 1))
	if ! head -n 3 "$f" | grep -q 'SPDX-License-Identifier: MIT\b'; then
		echo "MISSING SPDX line: $f (add '/* SPDX-License-Identifier: MIT */' or" \
			"'# SPDX-License-Identifier: MIT' as its first line, after a shebang)"
		missing=$((missing + 1))
	fi
done < <(tree_files)
if [ "$checked" -lt 100 ]; then
	echo "FAIL: only $checked source files found under $P2PS_SOURCE_DIR"
	exit 1
fi
grep -q '^MIT License' LICENSE || { echo "FAIL: LICENSE is not the MIT licence"; exit 1; }
echo "$checked source files checked, $missing without an SPDX line"
[ "$missing" -eq 0 ]
