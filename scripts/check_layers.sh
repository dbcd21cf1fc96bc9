#!/usr/bin/env bash
# Checks the host library's layering (docs/architecture.md, "Layers").
#
# For every src/*.c it derives the clscan_ and clscan__ functions the file defines and the ones it
# calls, maps each file to its layer (the table below, which must match docs/architecture.md and
# src/internal.h), and fails when
#   - a file calls a function defined in a file of a higher layer,
#   - the graph of calls between files has a circle (also within one layer),
#   - a file of src/ has no layer, or a layer names a file that does not exist.
# Calls through function pointers (the algorithm descriptors) are not calls here: the registry
# hands descriptors down, and an algorithm's functions are reached through them.
#
# Usage: scripts/check_layers.sh [SRC_DIR]   (default: the src/ next to this script's folder)
# CHECK_LAYERS_VERBOSE=1 also prints each file's layer and the files it calls.
# Exit status: 0 when the layering holds, 1 when it does not (each finding on stderr), 2 on a
# usage error.
set -euo pipefail

src_dir="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/src}"
if [[ ! -d "$src_dir" ]]; then
  echo "check_layers: no such folder: $src_dir" >&2
  exit 2
fi

exec python3 - "$src_dir" <<'PY'
import os
import re
import sys

# Layers, top (highest number) to bottom. A file may call its own layer and the layers below.
LAYERS = {
    "ext": (6, ["mpi.c"]),
    "api": (5, ["api.c", "context.c", "validate.c", "select_api.c", "select_host.c", "sort_api.c",
             "segments_api.c"]),
    "plan": (4, ["plan.c", "plan_cache.c", "dispatch.c"]),
    # Every algo_*.c file is in this layer too (see below), so a new algorithm needs no line here.
    "algorithm": (3, ["algorithms.c", "algo_classic.c", "algo_reduce_then_scan.c",
                      "algo_single_pass.c"]),
    "service": (2, ["program.c", "prelude.c", "device.c", "temp.c", "tuning.c", "chain.c",
                    "env.c"]),
    "base": (1, ["types.c", "error.c", "fault.c"]),
}

src = sys.argv[1]
layer_of = {}
for name, (rank, files) in LAYERS.items():
    for f in files:
        layer_of[f] = (rank, name)

problems = []
files = sorted(f for f in os.listdir(src) if f.endswith(".c"))
for f in files:
    if f.startswith("algo_") and f not in layer_of:
        layer_of[f] = LAYERS["algorithm"]
for f in files:
    if f not in layer_of:
        problems.append(f"{f}: has no layer (add it to scripts/check_layers.sh and "
                        f"docs/architecture.md)")
for f in layer_of:
    if f not in files:
        problems.append(f"{f}: named in a layer but missing from {src}")


def strip(text):
    """Removes comments, string and character literals and preprocessor lines."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"'(\\.|[^'\\\n])*'", "''", text)
    # Preprocessor lines, with their continuations (macro bodies are checked where expanded
    # only if they are written out; the library's macros call base-layer functions only).
    text = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", "", text, flags=re.M)
    return text


IDENT = re.compile(r"\b(clscan_\w+)\s*\(")


def scan(text):
    """Returns (defined, called): function names defined at file scope and called in bodies."""
    defined, called = set(), set()
    depth = 0
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif depth == 0:
            m = IDENT.match(text, i)
            if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
                # A definition: the parameter list is followed by a body, not by ';' or ','.
                j, level = m.end(), 1
                while j < n and level:
                    level += {"(": 1, ")": -1}.get(text[j], 0)
                    j += 1
                rest = text[j:].lstrip()
                if rest.startswith("{"):
                    defined.add(m.group(1))
                i = m.end()
                continue
        if depth > 0:
            m = IDENT.match(text, i)
            if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
                called.add(m.group(1))
                i = m.end()
                continue
        i += 1
    return defined, called


defs, calls = {}, {}
for f in files:
    with open(os.path.join(src, f), encoding="utf-8") as fh:
        d, c = scan(strip(fh.read()))
    defs[f], calls[f] = d, c

owner = {}
for f in files:
    for fn in defs[f]:
        if fn in owner:
            problems.append(f"{fn}: defined in both {owner[fn]} and {f}")
        owner[fn] = f

edges = {f: set() for f in files}
for f in files:
    for fn in sorted(calls[f]):
        g = owner.get(fn)
        if g is None or g == f:
            continue
        edges[f].add(g)
        if f in layer_of and g in layer_of and layer_of[g][0] > layer_of[f][0]:
            problems.append(f"{f} ({layer_of[f][1]}) calls {fn}() of {g} "
                            f"({layer_of[g][1]}), a higher layer")

# Circles in the file graph (depth-first search, reporting each circle once).
state, stack, seen_cycles = {}, [], set()


def visit(f):
    state[f] = 1
    stack.append(f)
    for g in sorted(edges[f]):
        if state.get(g) == 1:
            cycle = stack[stack.index(g):] + [g]
            key = frozenset(cycle)
            if key not in seen_cycles:
                seen_cycles.add(key)
                problems.append("circle: " + " -> ".join(cycle))
        elif g not in state:
            visit(g)
    stack.pop()
    state[f] = 2


for f in files:
    if f not in state:
        visit(f)

if os.environ.get("CHECK_LAYERS_VERBOSE"):
    for f in files:
        print(f"{f} ({layer_of.get(f, (0, '?'))[1]}) -> {', '.join(sorted(edges[f])) or '-'}")
if problems:
    for p in problems:
        print("check_layers: " + p, file=sys.stderr)
    sys.exit(1)
count = sum(len(e) for e in edges.values())
print(f"check_layers: {len(files)} files, {count} file-to-file call edges, "
      f"layers hold and no circle")
PY
