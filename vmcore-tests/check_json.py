"""Check kmempool's JSON against analyzer/kmempool.schema.json, with the
standard library only (the subset of JSON Schema the file uses: type,
properties, required, additionalProperties false, items, enum, const,
pattern, minimum, $ref to #/$defs, oneOf).

    check_json.py SCHEMA DEF FILE    FILE holds one object of $defs/DEF, is
                                     valid against the whole schema (oneOf:
                                     exactly DEF) and starts with the version
                                     key; errors on stderr, exit 1
    check_json.py --selftest SCHEMA FILE DEF
                                     broken copies of FILE are refused
    check_json.py --man SCHEMA PAGE  every key of the schema is in PAGE's
                                     JSON section"""
import copy
import json
import re
import sys

TYPES = {"object": dict, "array": list, "string": str, "boolean": bool,
         "null": type(None)}


def is_type(v, t):
    if t == "integer":
        return isinstance(v, int) and not isinstance(v, bool)
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    return isinstance(v, TYPES[t])


def errors(schema, root, v, path="$"):
    """Every way @v fails @schema, as strings."""
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        return errors(root["$defs"][name], root, v, path)
    errs = []
    if "oneOf" in schema:
        ok = [s for s in schema["oneOf"] if not errors(s, root, v, path)]
        if len(ok) != 1:
            errs.append(f"{path}: matches {len(ok)} of oneOf, not 1")
        return errs
    if "const" in schema and v != schema["const"]:
        errs.append(f"{path}: {v!r} is not {schema['const']!r}")
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(is_type(v, t) for t in types):
            return errs + [f"{path}: {type(v).__name__} {v!r:.40} is not {'/'.join(types)}"]
    if "enum" in schema and v not in schema["enum"]:
        errs.append(f"{path}: {v!r} not in {schema['enum']}")
    if "pattern" in schema and isinstance(v, str) and not re.search(schema["pattern"], v):
        errs.append(f"{path}: {v!r} does not match {schema['pattern']}")
    if "minimum" in schema and is_type(v, "number") and v < schema["minimum"]:
        errs.append(f"{path}: {v} < {schema['minimum']}")
    if isinstance(v, dict):
        props = schema.get("properties", {})
        for k in schema.get("required", []):
            if k not in v:
                errs.append(f"{path}: no key {k!r}")
        for k, x in v.items():
            if k in props:
                errs += errors(props[k], root, x, f"{path}.{k}")
            elif schema.get("additionalProperties") is False:
                errs.append(f"{path}: key {k!r} is not in the schema")
    if isinstance(v, list) and "items" in schema:
        for i, x in enumerate(v):
            errs += errors(schema["items"], root, x, f"{path}[{i}]")
    return errs


def check(schema, name, text):
    errs = []
    if not text.startswith('{"kmempool_json": 1,'):
        errs.append("does not start with {\"kmempool_json\": 1,")
    try:
        doc = json.loads(text)
    except ValueError as e:
        return [f"not JSON: {e}"]
    errs += errors(schema["$defs"][name], schema, doc)
    if not errs:
        errs += errors(schema, schema, doc)
    return errs


def all_keys(schema):
    keys = set()
    for d in schema["$defs"].values():
        keys |= set(d.get("properties", {}))
    return keys


def main(argv):
    if argv[0] == "--selftest":
        schema = json.load(open(argv[1]))
        doc = json.load(open(argv[2]))
        name = argv[3]
        bad = 0
        key = "pools" if "pools" in doc else "release"
        breakers = {
            "no version key": lambda d: d.pop("kmempool_json"),
            "version 2": lambda d: d.update(kmempool_json=2),
            "an undocumented key": lambda d: d.update(undocumented=0),
            f"no {key}": lambda d: d.pop(key),
        }
        if doc.get("pools"):
            breakers["a pool without its address"] = lambda d: d["pools"][0].pop("address")
            breakers["min_nr a string"] = lambda d: d["pools"][0].update(min_nr="2")
            breakers["a bad address"] = lambda d: d["pools"][0].update(address="ffff")
            breakers["a bool count"] = lambda d: d["pools"][0].update(curr_nr=True)
        for what, f in breakers.items():
            d = copy.deepcopy(doc)
            f(d)
            if not errors(schema["$defs"][name], schema, d) or not errors(schema, schema, d):
                print(f"broken copy accepted: {what}", file=sys.stderr)
                bad += 1
        print(len(breakers) - bad, "of", len(breakers), "broken copies refused")
        return 1 if bad else 0
    if argv[0] == "--man":
        schema = json.load(open(argv[1]))
        page = open(argv[2]).read()
        m = re.search(r"^\.SH JSON\n(.*?)^\.SH ", page, re.S | re.M)
        if not m:
            print("no JSON section", file=sys.stderr)
            return 1
        section = m.group(1).replace("\\(dq", '"').replace("\\-", "-")
        missing = sorted(k for k in all_keys(schema) | set(schema["$defs"])
                         if not re.search(r"\b" + re.escape(k) + r"\b", section))
        if missing:
            print("not in the man page's JSON section: " + ", ".join(missing), file=sys.stderr)
            return 1
        print(len(all_keys(schema)), "keys and", len(schema["$defs"]), "definitions documented")
        return 0
    schema = json.load(open(argv[0]))
    errs = check(schema, argv[1], open(argv[2]).read())
    for e in errs[:10]:
        print(e, file=sys.stderr)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
