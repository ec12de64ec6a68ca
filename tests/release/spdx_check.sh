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
while IFS= read -r -d '' f; do
	f=${f#./}
	checked=$((checked + 1))
	if ! head -n 3 "$f" | grep -q 'SPDX-License-Identifier: MIT\b'; then
		echo "MISSING SPDX line: $f (add '/* SPDX-License-Identifier: MIT */' or" \
			"'# SPDX-License-Identifier: MIT' as its first line, after a shebang)"
		missing=$((missing + 1))
	fi
done < <(find . \( -path ./.git -o -path './build*' -o -path ./tests/fixtures \
	-o -path ./fuzz/corpus -o -path ./docs/results -o -path ./tests/gmmu/golden \
	-o -path ./tests/gmmu/diff -o -path ./tests/gmmu/new-generation -o -name __pycache__ \
	-o -name .cache -o -name debian \) -prune -o -type f \
	\( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' -o -name '*.cmake' \
	-o -name '*.cmake.in' -o -name CMakeLists.txt -o -name '*.sh' -o -name '*.py' \
	-o -name '*.sbatch' -o -name '*.[1-8].in' -o -path ./.ci/run \
	-o -path ./completion/gen-completion.sh \) -print0)
if [ "$checked" -lt 100 ]; then
	echo "FAIL: only $checked source files found under $P2PS_SOURCE_DIR"
	exit 1
fi
grep -q '^MIT License' LICENSE || { echo "FAIL: LICENSE is not the MIT licence"; exit 1; }
echo "$checked source files checked, $missing without an SPDX line"
[ "$missing" -eq 0 ]
