"""Static inspection of a Python skill handler, for skillgate (src/registry/inspect/python.ts).

Usage: python3 inspect_handler.py <handler.py>

Parses the file with `ast` only: nothing is imported or executed. Prints one JSON object:
  {"parsed": true, "entries": [...], "isCli": bool, "constants": {...}, "imports": [...]}
or, when the file does not parse:
  {"parsed": false, "error": {"line": int, "col": int, "msg": str}, "imports": []}

entries   module-level functions named execute, run, handler, main, handle (that order,
          R-ENTRY-01); each {"name", "isAsync", "params": [{"name", "hasDefault", "rest"}]}.
          params lists positional parameters, then *args, keyword-only ones, then **kwargs.
          A module-level alias `execute = other_function` counts.
isCli     the module imports argparse AND has `if __name__ == "__main__":` (either order).
constants INPUT_SCHEMA / input_schema / SCHEMA, OUTPUT_SCHEMA / output_schema,
          CLI_COMMANDS / cli_commands: module-level values `ast.literal_eval` accepts and
          JSON can represent (last assignment wins).
imports   imported module names; relative ones keep their dots (`..other_skill.x`, `.`).
Requires Python >= 3.8. Exit code 0 on success, 2 on usage or read errors.
"""
import ast
import json
import sys

ENTRY_NAMES = ["execute", "run", "handler", "main", "handle"]
CONSTANT_NAMES = [
    "INPUT_SCHEMA", "input_schema", "SCHEMA",
    "OUTPUT_SCHEMA", "output_schema",
    "CLI_COMMANDS", "cli_commands",
]


def param(name, has_default=False, rest=False):
    return {"name": name, "hasDefault": has_default, "rest": rest}


def params_of(fn):
    a = fn.args
    positional = list(getattr(a, "posonlyargs", [])) + list(a.args)
    first_default = len(positional) - len(a.defaults)
    out = [param(p.arg, i >= first_default) for i, p in enumerate(positional)]
    if a.vararg is not None:
        out.append(param(a.vararg.arg, rest=True))
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append(param(p.arg, d is not None))
    if a.kwarg is not None:
        out.append(param(a.kwarg.arg, rest=True))
    return out


def is_main_guard(test):
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]

    def is_name(n):
        return isinstance(n, ast.Name) and n.id == "__name__"

    def is_main(n):
        return isinstance(n, ast.Constant) and n.value == "__main__"

    return (is_name(sides[0]) and is_main(sides[1])) or (is_main(sides[0]) and is_name(sides[1]))


def json_value(v):
    """Return v as a JSON-representable value, or raise ValueError."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            raise ValueError("non-finite number")
        return v
    if isinstance(v, (list, tuple)):
        return [json_value(x) for x in v]
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if not isinstance(k, str):
                raise ValueError("non-string key")
            out[k] = json_value(x)
        return out
    raise ValueError("not JSON")


def import_names(tree):
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.append("." * (node.level or 0) + (node.module or ""))
    return names


def inspect(source):
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        return {
            "parsed": False,
            "error": {"line": e.lineno or 0, "col": e.offset or 0, "msg": e.msg},
            "imports": [],
        }
    except ValueError as e:  # e.g. null bytes in the source
        return {"parsed": False, "error": {"line": 0, "col": 0, "msg": str(e)}, "imports": []}

    functions = {}
    constants = {}
    main_guard = False
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if not isinstance(t, ast.Name):
                    continue
                if t.id in ENTRY_NAMES and isinstance(node.value, ast.Name) and node.value.id in functions:
                    functions[t.id] = functions[node.value.id]
                if t.id in CONSTANT_NAMES:
                    try:
                        constants[t.id] = json_value(ast.literal_eval(node.value))
                    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                        constants.pop(t.id, None)
        elif isinstance(node, ast.If) and is_main_guard(node.test):
            main_guard = True

    entries = []
    for name in ENTRY_NAMES:
        fn = functions.get(name)
        if fn is not None:
            entries.append({
                "name": name,
                "isAsync": isinstance(fn, ast.AsyncFunctionDef),
                "params": params_of(fn),
            })

    imports = import_names(tree)
    uses_argparse = any(m == "argparse" or m.startswith("argparse.") for m in imports)
    return {
        "parsed": True,
        "entries": entries,
        "isCli": uses_argparse and main_guard,
        "constants": constants,
        "imports": imports,
    }


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: inspect_handler.py <handler.py>\n")
        return 2
    try:
        with open(argv[1], "rb") as f:
            source = f.read()
    except OSError as e:
        sys.stderr.write("cannot read %s: %s\n" % (argv[1], e))
        return 2
    sys.stdout.write(json.dumps(inspect(source)))
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
