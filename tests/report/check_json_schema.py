#!/usr/bin/env python3
# Validates the JSON documents verdict writes against the schemas in docs/ (verdict/1, the
# plan's, the dry run's): one document of each shape the writers make, and mutations refused.
"""Usage: check_json_schema.py VERDICT DOCS_DIR [FAKE_KERNELS.so]

Runs verdict on small inputs made here (bare numbers, hyperfine, Go, Google Benchmark and
pyperf files, commands it measures itself, a store it reports again, an experiment file and
its plan and dry run, a fleet's store of three machines, in-process kernels), validates
every --json document against the schema its "schema" field names (DOCS_DIR/*.schema.json,
by title), then checks that mutated documents are refused. Exits 77 (skipped) when
python3-jsonschema is missing, unless VERDICT_CI is set.
"""
import copy
import glob
import json
import os
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is missing (apt-get install python3-jsonschema)")
    sys.exit(1 if os.environ.get("VERDICT_CI") else 77)


def write(path, text):
    with open(path, "wb") as out:
        out.write(text.encode() if isinstance(text, str) else text)
    return path


def numbers(scale, n=12, step=0.004):
    return "".join("%.6f\n" % (scale * (1 + step * ((i * 7) % 5 - 2))) for i in range(n))


def go_file(scale):
    lines = ["goos: linux", "goarch: amd64", "pkg: example.com/codec"]
    for name, ns in (("BenchmarkEncode-8", 1000), ("BenchmarkDecode-8", 2000)):
        for i in range(10):
            value = ns * scale * (1 + 0.003 * ((i * 3) % 7 - 3))
            lines.append("%s 1000 %.1f ns/op 64 B/op 2 allocs/op" % (name, value))
    return "\n".join(lines + ["PASS", ""])


def gbench_file(scale):
    entries = []
    for name, t in (("BM_Sort/1024", 5000), ("BM_Hash", 2000)):
        for r in range(8):
            value = t * scale * (1 + 0.01 * ((r * 7) % 5 - 2))
            entries.append({"name": name, "run_name": name, "run_type": "iteration",
                            "repetitions": 8, "repetition_index": r, "threads": 1,
                            "iterations": 1000, "real_time": value, "cpu_time": value * 0.9,
                            "time_unit": "ns"})
    return json.dumps({"context": {"num_cpus": 2}, "benchmarks": entries})


def pyperf_file(scale):
    benchmarks = []
    for b, name in enumerate(("json_dumps", "json_loads"), 1):
        runs = [{"metadata": {"calibrate_loops": 4096}, "warmups": [[1, 0.5]]}]
        for r in range(5):
            runs.append({"warmups": [[4096, 9.9]],
                         "values": [b * 1e-5 * scale * (1 + 0.004 * ((r * 3 + k) % 7 - 3))
                                    for k in range(3)]})
        benchmarks.append({"metadata": {"name": name, "loops": 4096}, "runs": runs})
    return json.dumps({"version": "1.0", "metadata": {"unit": "second"},
                       "benchmarks": benchmarks})


def hyperfine_file():
    results = [{"command": command, "times": [scale * (1 + 0.01 * ((i * 7) % 5 - 2))
                                              for i in range(10)]}
               for command, scale in (("sleep 0.02", 0.02), ("sleep 0.03", 0.03))]
    return json.dumps({"results": results})


PEERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli", "peers")


def documents(verdict, data, fake_kernels):
    """(name, argv[, commands run first]) of every document to make; each writes its JSON to
    standard output."""
    d = lambda name: os.path.join(data, name)  # noqa: E731
    a = write(d("a.txt"), numbers(1.0))
    b = write(d("b.txt"), numbers(1.1))
    odd = write(os.path.join(data.encode(), b"caf\xe9.txt"), numbers(1.0).encode())
    yaml = write(d("sweep.yaml"), "name: sweep\nseed: 3\nrepetitions: 3\n"
                 "parameters:\n  n: [1, 2]\n"
                 "variants:\n  A: {command: [\"true\", \"{n}\"]}\n"
                 "  B: {command: [\"true\", \"{n}\", \"x\"]}\n"
                 "metrics: [wall, maxrss]\n")
    fleet = write(d("fleet.yaml"), "name: fleet\nmachines: survey\nrepetitions: 3\nwarmup: 0\n"
                  "variants:\n  A: {command: [\"true\"]}\n  B: {command: [\"true\", \"x\"]}\n")
    made = [
        ("compare numbers", ["compare", a, b]),
        ("compare numbers, invalid UTF-8 name", ["compare", a, odd]),
        ("compare --paired --method quantile",
         ["compare", "--paired", "--method", "quantile", a, b]),
        ("compare --method bootstrap --higher-is-better",
         ["compare", "--method", "bootstrap", "--higher-is-better", a, b]),
        ("compare hyperfine", ["compare", write(d("h.json"), hyperfine_file())]),
        ("compare go", ["compare", write(d("old.txt"), go_file(1.0)),
                        write(d("new.txt"), go_file(1.05))]),
        ("compare go allocs/op", ["compare", "--metric", "allocs/op", d("old.txt"), d("new.txt")]),
        ("compare gbench", ["compare", write(d("g1.json"), gbench_file(1.0)),
                            write(d("g2.json"), gbench_file(1.2))]),
        ("compare pyperf", ["compare", write(d("p1.json"), pyperf_file(1.0)),
                            write(d("p2.json"), pyperf_file(0.9))]),
        # The peers' real files (tests/cli/peers): failed runs, configurations, criterion, JMH
        ("compare hyperfine, a failing command",
         ["compare", os.path.join(PEERS, "hyperfine", "failing.json")]),
        ("compare go, two configurations",
         ["compare", os.path.join(PEERS, "go", "notes.txt"),
          os.path.join(PEERS, "go", "notes.txt")]),
        ("compare criterion", ["compare", os.path.join(PEERS, "criterion", "before"),
                               os.path.join(PEERS, "criterion", "after")]),
        ("compare jmh", ["compare", os.path.join(PEERS, "jmh", "before.json"),
                         os.path.join(PEERS, "jmh", "after.json")]),
        ("verdict CMD CMD --store", ["-r", "3", "-w", "0", "--store", d("runs.db"),
                                     "true", "true x"]),
        ("verdict -L (points, overall)", ["-r", "2", "-w", "0", "-L", "n", "1,2",
                                          "true {n}", "true {n} x"]),
        ("report STORE", ["report", d("runs.db")]),
        ("run EXPERIMENT (sweep)", ["run", yaml, "--store", d("sweep.db")]),
        ("report STORE of a run", ["report", d("sweep.db"), "--method", "welch"]),
        ("plan --detect", ["plan", yaml, "--store", d("sweep.db"), "--detect", "5%"]),
        ("plan --half-width", ["plan", yaml, "--store", d("sweep.db"), "--half-width", "2%"]),
        ("run --dry-run", ["run", yaml, "--dry-run"]),
        ("report of a fleet's store (per machine, pooled)", ["report", d("fleet.db")],
         [["run", fleet, "--store", d("fleet.db")],
          ["worker", "--trust-any-experiment", "--store", d("fleet.db"), "--machine", "m1"],
          ["worker", "--trust-any-experiment", "--store", d("fleet.db"), "--machine", "m2"]]),
        ("run --dry-run, adaptive", ["run", write(d("adaptive.yaml"),
                                                  "name: adaptive\nseed: 3\n"
                                                  "adaptive: {min_blocks: 10, max_blocks: 40}\n"
                                                  "variants:\n  A: {command: true}\n"
                                                  "  B: {command: true x}\n"), "--dry-run"]),
    ]
    if fake_kernels:
        made.append(("kernel", ["kernel", "-r", "4", "--sample-time", "1ms", "--seed", "3",
                                fake_kernels, "spin", "spin_slow"]))
    for name, argv, *before in made:
        for first in before[0] if before else []:
            subprocess.run([verdict, *first], check=True, capture_output=True, cwd=data)
        out = subprocess.run([verdict, *argv, "--json", "-"], capture_output=True, cwd=data)
        if out.returncode != 0:
            raise SystemExit("%s: verdict exited %d: %s" % (name, out.returncode,
                                                           out.stderr.decode(errors="replace")))
        yield name, json.loads(out.stdout)


def changed(doc, edit):
    copied = copy.deepcopy(doc)
    edit(copied)
    return copied


def rename(obj, old, new):
    obj[new] = obj.pop(old)


def mutations(doc):
    """(what, document) pairs the schema must refuse, made from a valid comparison document."""
    yield "comparisons[0].estimate renamed", changed(
        doc, lambda x: rename(x["comparisons"][0], "estimate", "estimat"))
    yield "samples[0].tainted renamed", changed(
        doc, lambda x: rename(x["samples"][0], "tainted", "taint"))
    yield "summaries[0].median renamed", changed(
        doc, lambda x: rename(x["summaries"][0], "median", "med"))
    yield "experiment.margin renamed", changed(
        doc, lambda x: rename(x["experiment"], "margin", "margins"))
    yield "a field added at the top", changed(doc, lambda x: x.update(extra=1))
    yield "a verdict that is no verdict", changed(
        doc, lambda x: x["comparisons"][0].update(verdict="faster"))
    yield "ci of three numbers", changed(doc, lambda x: x["comparisons"][0]["ci"].append(1.0))
    yield "a metric value as text", changed(
        doc, lambda x: x["samples"][0]["metrics"].update(
            {next(iter(x["samples"][0]["metrics"])): "1"}))


def dry_run_mutations(doc):
    yield "dry run: looks[0].z renamed", changed(doc, lambda x: rename(x["looks"][0], "z", "zz"))
    yield "dry run: a field added", changed(doc, lambda x: x.update(blocks=3))


def plan_mutations(doc):
    yield "plan: allocation.blocks renamed", changed(
        doc, lambda x: rename(x["allocation"], "blocks", "block"))
    yield "plan: comparisons[0].sd_pair renamed", changed(
        doc, lambda x: rename(x["comparisons"][0], "sd_pair", "sd"))


def load_schemas(docs):
    """{title: validator} of every DOCS_DIR/*.schema.json; each schema checked itself."""
    validators = {}
    for path in sorted(glob.glob(os.path.join(docs, "*.schema.json"))):
        with open(path, encoding="utf-8") as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
        validators[schema["title"]] = jsonschema.Draft202012Validator(schema)
    assert {"verdict/1", "verdict-dry-run/1", "verdict-plan/1"} <= set(validators), \
        sorted(validators)
    return validators


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    verdict, validators = os.path.abspath(sys.argv[1]), load_schemas(sys.argv[2])
    fake_kernels = os.path.abspath(sys.argv[3]) if len(sys.argv) == 4 else None
    failed, count, kept, pooled = 0, 0, {}, False
    with tempfile.TemporaryDirectory() as data:
        for name, doc in documents(verdict, data, fake_kernels):
            count += 1
            validator = validators.get(doc.get("schema"))
            errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path)) \
                if validator else ["no schema named %r" % doc.get("schema")]
            for error in errors[:5]:
                print("not ok: %s: %s at %s" % (name, getattr(error, "message", error),
                                               list(getattr(error, "path", []))))
            failed += bool(errors)
            print("%s: %s" % ("ok" if not errors else "not ok", name))
            kept.setdefault(doc.get("schema"), doc)
            pooled = pooled or (doc.get("schema") == "verdict/1" and
                                any(c.get("machines") for c in doc["comparisons"]))
    assert kept["verdict/1"]["comparisons"] and kept["verdict/1"]["samples"]
    assert kept["verdict-dry-run/1"]["looks"] and kept["verdict-plan/1"]["comparisons"]
    assert pooled, "no document had a fleet's pooled comparison"
    made = {"verdict/1": mutations, "verdict-dry-run/1": dry_run_mutations,
            "verdict-plan/1": plan_mutations}
    refusals = [(validators[title], m) for title, make in made.items() for m in make(kept[title])]
    for validator, (what, doc) in refusals:
        refused = not validator.is_valid(doc)
        print("%s: refused: %s" % ("ok" if refused else "not ok", what))
        failed += not refused
    print("%d documents validated, %d mutations refused, %d failures"
          % (count, len(refusals), failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
