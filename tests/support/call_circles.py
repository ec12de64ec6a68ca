#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fails when the C files of a folder call one another in a circle.

    call_circles.py DIR...      every *.c of each DIR (its own files only) is a node; file
                                A -> file B when A calls a function B defines (not static);
                                exit 1 and print the circle when the graph has one
    call_circles.py --self-test the check on a written folder with and without a circle

The functions are found from the text (no compiler): a definition is a line at column 0
that names a function and opens its body (not a declaration ending in ';'); a call is an
identifier followed by '(' in code, with comments, strings and character constants
removed. Files in one layer call one way; a call back up means the flow bounces."""
import os
import re
import sys
import tempfile

CODE = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
CALL = re.compile(r'\b([A-Za-z_]\w*)\s*\(')
KEYWORDS = {'if', 'for', 'while', 'switch', 'return', 'sizeof', 'defined', '_Static_assert',
            '__attribute__', 'offsetof', 'va_arg', 'alignof', '_Alignof'}


def strip(text):
    """Comments, strings and preprocessor lines blanked; line breaks kept."""
    text = CODE.sub(lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text)
    return re.sub(r'^[ \t]*#[^\n]*(?:\\\n[^\n]*)*', '', text, flags=re.M)


def definitions(code):
    """Names of the functions the file defines: (name, static)."""
    out = []
    lines = code.split('\n')
    for i, line in enumerate(lines):
        if not line or line[0] in ' \t}{' or '(' not in line:
            continue
        m = re.search(r'\b([A-Za-z_]\w*)\s*\(', line)
        if not m or m.group(1) in KEYWORDS:
            continue
        # The signature runs on until '{' (a definition) or ';' (a declaration).
        rest = '\n'.join(lines[i:i + 12])
        brace, semi = rest.find('{'), rest.find(';')
        if brace < 0 or (0 <= semi < brace):
            continue
        out.append((m.group(1), bool(re.match(r'\s*static\b', line))))
    return out


def graph(dirs):
    files = {}
    for d in dirs:
        for name in sorted(os.listdir(d)):
            if name.endswith('.c'):
                path = os.path.join(d, name)
                with open(path, encoding='utf-8') as f:
                    files[path] = strip(f.read())
    owner = {}
    for path, code in files.items():
        for fn, static in definitions(code):
            if not static:
                owner[fn] = path
    edges = {p: set() for p in files}
    for path, code in files.items():
        own = {fn for fn, _ in definitions(code)}  # a file's own name shadows another's
        for fn in CALL.findall(code):
            callee = owner.get(fn)
            if callee and callee != path and fn not in own:
                edges[path].add(callee)
    return edges


def circle(edges):
    """One circle as a list of files, or None."""
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(edges[n]):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(edges):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def check(dirs):
    edges = graph(dirs)
    found = circle(edges)
    if found:
        print('call circle: ' + ' -> '.join(os.path.relpath(p) for p in found))
        return 1
    n = sum(len(v) for v in edges.values())
    print(f'no call circle among {len(edges)} files ({n} file-to-file calls) in '
          + ', '.join(dirs))
    return 0


def self_test():
    """A folder whose files call in a circle fails; the same without the call back passes."""
    with tempfile.TemporaryDirectory() as d:
        def write(name, text):
            with open(os.path.join(d, name), 'w', encoding='utf-8') as f:
                f.write(text)
        write('a.c', 'int b(int x);\nint a(int x)\n{\n\treturn b(x); /* c() */\n}\n')
        write('b.c', 'int c(void);\nint b(int x)\n{\n\treturn x + c();\n}\n')
        write('c.c', 'int a(int x);\nstatic int h(void) { return 1; }\n'
              'int c(void)\n{\n\treturn a(h());\n}\n')
        if not circle(graph([d])):
            print('self-test: the circle a -> b -> c -> a was not found')
            return 1
        write('c.c', 'static int a(int x) { return x; }\nint c(void)\n{\n\treturn a(1);\n}\n')
        found = circle(graph([d]))
        if found:
            print('self-test: a circle reported where there is none: ' + ' -> '.join(found))
            return 1
    print('self-test: a circle is found, a static function of the same name is not a call')
    return 0


if __name__ == '__main__':
    if sys.argv[1:] == ['--self-test']:
        sys.exit(self_test())
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(check(sys.argv[1:]))
