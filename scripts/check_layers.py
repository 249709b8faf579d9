#!/usr/bin/python3
"""Files of lib/ and app/ that call each other in a circle.

    check_layers.py [DIR...]     (default: lib/src app/pktdedup app/common app/eval app/keys)

A file calls another when it names a function or a global the other defines and does
not declare static (C has no modules: the call graph between files is the only layering
there is). A header is a file too, owning the inline functions it defines (the hot steps
DPDK-style code keeps in headers), and its calls are its own; a struct, enum or union tag of the same name is not a use, nor is anything
in a comment, a string literal or a preprocessor line. Each circle is printed with one call of each step
between its files ("A -> B: name") and the exit status is 1; with none, a line saying
how many files and calls were read, and 0. Macros are not followed.
"""
import os
import re
import sys

DEF = re.compile(r"^([A-Za-z_][^;{}()]*?(?:\(\([^;{}]*?\)\)[^;{}()]*?)?[\s\*])([A-Za-z_]\w*)\s*"
                 r"\([^;{]*\)\s*\{", re.M | re.S)
GLOBAL = re.compile(r"^(?!static\b|extern\b|typedef\b|struct\b[^;]*\{|enum\b|union\b|#)"
                    r"[A-Za-z_][\w \t\*]*?[\s\*]([A-Za-z_]\w*)\s*(?:\[[^\]]*\])*\s*(?:=[^;]*)?;",
                    re.M)
IDENT = re.compile(r"[A-Za-z_]\w*")


def strip(text):
    """The source less comments, string and character literals."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"^[ \t]*#.*$", " ", text, flags=re.M)  # #include <a/pd_plan.h> is no call
    return re.sub(r"'(?:\\.|[^'\\\n])*'", "''", text)


def top_level(text):
    """Only what is outside braces: where definitions start."""
    out, depth = [], 0
    for ch in text:
        if ch == "{":
            if depth == 0:
                out.append("{")
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                out.append("\n")
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def inline_bodies(text):
    """A header's calls: the bodies of the inline functions it defines (its declarations
    name other files' functions without calling them)."""
    out = []
    for m in DEF.finditer(text):
        if not re.search(r"\binline\b", m.group(1)):
            continue
        depth, i = 0, m.end() - 1
        while i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                break
            i += 1
        out.append(text[m.end():i])
    return "\n".join(out)


def main():
    dirs = sys.argv[1:] or ["lib/src", "app/pktdedup", "app/common", "app/eval", "app/keys"]
    files = sorted(os.path.join(d, f) for d in dirs for f in os.listdir(d)
                   if f.endswith((".c", ".h")))
    src = {f: strip(open(f, encoding="utf-8").read()) for f in files}
    owner = {}
    for f, text in src.items():
        top = top_level(text)
        header = f.endswith(".h")
        for m in DEF.finditer(top):
            if m.group(2).startswith("__"):
                continue
            if header if re.search(r"\binline\b", m.group(1)) else \
                    not re.search(r"\bstatic\b", m.group(1)):
                owner.setdefault(m.group(2), f)
        if header:
            continue
        for m in GLOBAL.finditer(top):
            owner.setdefault(m.group(1), f)
    calls = {f: {} for f in files}
    for f, text in src.items():
        if f.endswith(".h"):
            text = inline_bodies(text)
        text = re.sub(r"\b(?:struct|enum|union)\s+[A-Za-z_]\w*", " ", text)  # tags, not calls
        for name in set(IDENT.findall(text)):
            g = owner.get(name)
            if g is not None and g != f:
                calls[f].setdefault(g, name)
    # strongly connected components (Tarjan), each of more than one file a circle
    index, low, stack, on, comps, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in calls[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in files:
        if v not in index:
            visit(v)
    if not comps:
        print("check_layers: %d files, %d calls between files, no circle" %
              (len(files), sum(len(c) for c in calls.values())))
        return 0
    for comp in comps:
        print("circle of %d files:" % len(comp))
        for f in comp:
            for g in sorted(calls[f]):
                if g in comp:
                    print("  %s -> %s: %s" % (f, g, calls[f][g]))
    return 1


if __name__ == "__main__":
    sys.exit(main())
