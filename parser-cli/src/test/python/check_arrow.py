#!/usr/bin/env python3
"""Reads the Arrow files `cqlrows replay --format arrow --output DIR` wrote for one connection
with pyarrow, and compares every value with what the Apache Cassandra Java driver decoded from
the same bytes (the corpus's results.jsonl), under cqlrows-arrow's CQL -> Arrow mapping.

usage: check_arrow.py RESULTS_JSONL S2C_FILE ARROW_DIR

The files of DIR, in name order (NNNNN-...), are the ROWS results of S2C_FILE in capture order;
S2C_FILE '*' means every result of RESULTS_JSONL, in its order (a pcap of all connections).
Prints one JSON object with what was compared; exits 1 with the differences on stderr if any
value differs, 2 if pyarrow or numpy is missing.
"""
import ipaddress
import json
import math
import os
import re
import struct
import sys
import uuid

try:
    import numpy as np
    import pyarrow as pa
    import pyarrow.ipc as ipc
except ImportError as e:  # the Java test skips, with this reason, when it sees status 2
    print("pyarrow or numpy missing: %s" % e, file=sys.stderr)
    sys.exit(2)


def days_from_civil(y, m, d):
    """Days since 1970-01-01 of a proleptic Gregorian date, for any year (H. Hinnant)."""
    y -= m <= 2
    era = y // 400  # floor division: the C++ original needs a correction for y < 0 here
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


DATE = re.compile(r"^([+-]?\d+)-(\d\d)-(\d\d)$")
INSTANT = re.compile(r"^([+-]?\d+)-(\d\d)-(\d\d)T(\d\d):(\d\d)(?::(\d\d)(?:\.(\d+))?)?Z$")
TIME = re.compile(r"^(\d\d):(\d\d)(?::(\d\d)(?:\.(\d+))?)?$")
DURATION_UNIT = re.compile(r"(\d+)(y|mo|w|d|h|ms|m|s|us|µs|ns)")


def fraction_nanos(f):
    return int((f or "0").ljust(9, "0")[:9])


def epoch_days(s):
    y, m, d = DATE.match(s).groups()
    return days_from_civil(int(y), int(m), int(d))


def epoch_millis(s):
    y, mo, d, h, mi, sec, frac = INSTANT.match(s).groups()
    days = days_from_civil(int(y), int(mo), int(d))
    seconds = days * 86400 + int(h) * 3600 + int(mi) * 60 + int(sec or 0)
    return seconds * 1000 + fraction_nanos(frac) // 1_000_000


def nanos_of_day(s):
    h, m, sec, frac = TIME.match(s).groups()
    return ((int(h) * 60 + int(m)) * 60 + int(sec or 0)) * 1_000_000_000 + fraction_nanos(frac)


def duration(s):
    """(months, days, nanoseconds) of the driver's CqlDuration text, e.g. -1y2mo3d4h5m."""
    sign = -1 if s.startswith("-") else 1
    months = days = nanos = 0
    per = {"h": 3600 * 10**9, "m": 60 * 10**9, "s": 10**9, "ms": 10**6, "us": 10**3,
           "µs": 10**3, "ns": 1}
    for n, unit in DURATION_UNIT.findall(s):
        n = int(n)
        if unit == "y":
            months += 12 * n
        elif unit == "mo":
            months += n
        elif unit == "w":
            days += 7 * n
        elif unit == "d":
            days += n
        else:
            nanos += n * per[unit]
    return (sign * months, sign * days, sign * nanos)


def values(arr):
    """The Python values of an Arrow array, with temporal values as their integers and uuids as
    their 16 bytes, nested types walked by hand (pyarrow's datetime conversion refuses years
    beyond 9999, which CQL allows)."""
    t = arr.type
    valid = arr.is_valid().to_pylist() if len(arr) else []
    if isinstance(t, pa.BaseExtensionType):
        return values(arr.storage)
    if pa.types.is_timestamp(t) or pa.types.is_time64(t):
        return arr.view(pa.int64()).to_pylist()
    if pa.types.is_date32(t):
        return arr.view(pa.int32()).to_pylist()
    if pa.types.is_map(t):
        offsets = arr.offsets.to_pylist()
        keys, items = values(arr.keys), values(arr.items)
        return [list(zip(keys[offsets[i]:offsets[i + 1]], items[offsets[i]:offsets[i + 1]]))
                if valid[i] else None for i in range(len(arr))]
    if pa.types.is_list(t):
        offsets = arr.offsets.to_pylist()
        items = values(arr.values)
        return [items[offsets[i]:offsets[i + 1]] if valid[i] else None for i in range(len(arr))]
    if pa.types.is_fixed_size_list(t):
        n = t.list_size
        items = values(arr.values)
        return [items[i * n:(i + 1) * n] if valid[i] else None for i in range(len(arr))]
    if pa.types.is_struct(t):
        fields = [(t.field(k).name, values(arr.field(k))) for k in range(t.num_fields)]
        return [{name: v[i] for name, v in fields} if valid[i] else None for i in range(len(arr))]
    if pa.types.is_interval(t):
        return [None if v is None else (v.months, v.days, v.nanoseconds) for v in arr.to_pylist()]
    return arr.to_pylist()


def float_bits(x, fmt):
    return struct.unpack("<" + ("I" if fmt == "f" else "Q"), struct.pack("<" + fmt, x))[0]


def same(t, actual, expected, where, problems):
    """Compares one Arrow value of type t with the driver's JSON rendering of the CQL value."""
    if isinstance(expected, dict) and "driver_error" in expected:
        # the driver cannot decode vector<counter, 2>; its bytes mean [1, -2]
        expected = ["1", "-2"]
    if expected is None:
        if actual is not None:
            problems.append("%s: null expected, got %r" % (where, actual))
        return
    if actual is None:
        problems.append("%s: %r expected, got null" % (where, expected))
        return
    ok = True
    if isinstance(t, pa.BaseExtensionType):  # arrow.uuid, read as its 16 storage bytes
        ok = actual == uuid.UUID(expected).bytes
    elif pa.types.is_integer(t):
        ok = actual == int(expected)
    elif pa.types.is_float32(t) or pa.types.is_float64(t):
        fmt = "f" if pa.types.is_float32(t) else "d"
        want = float(expected)
        if math.isnan(want):
            ok = math.isnan(actual)
        else:
            if fmt == "f":
                want = float(np.float32(want))
            ok = float_bits(actual, fmt) == float_bits(want, fmt)
    elif pa.types.is_boolean(t):
        ok = actual is expected
    elif pa.types.is_string(t):
        ok = actual == expected
    elif pa.types.is_binary(t):
        if expected.startswith("0x"):
            ok = actual == bytes.fromhex(expected[2:])
        else:
            ok = actual == ipaddress.ip_address(expected).packed
    elif pa.types.is_timestamp(t):
        ok = actual == epoch_millis(expected)
    elif pa.types.is_date32(t):
        ok = actual == epoch_days(expected)
    elif pa.types.is_time64(t):
        ok = actual == nanos_of_day(expected)
    elif pa.types.is_interval(t):
        ok = actual == duration(expected)
    elif pa.types.is_map(t):
        if len(actual) != len(expected):
            ok = False
        else:
            for k, ((ak, av), (ek, ev)) in enumerate(zip(actual, expected)):
                same(t.key_type, ak, ek, "%s key %d" % (where, k), problems)
                same(t.item_type, av, ev, "%s value %d" % (where, k), problems)
    elif pa.types.is_list(t) or pa.types.is_fixed_size_list(t):
        if len(actual) != len(expected):
            ok = False
        else:
            for k, (a, e) in enumerate(zip(actual, expected)):
                same(t.value_type, a, e, "%s[%d]" % (where, k), problems)
    elif pa.types.is_struct(t):
        names = [t.field(k).name for k in range(t.num_fields)]
        if isinstance(expected, list):  # a tuple: components by position
            expected = {str(k): v for k, v in enumerate(expected)}
        for k, name in enumerate(names):
            same(t.field(k).type, actual[name], expected.get(name), "%s.%s" % (where, name),
                 problems)
    else:
        ok = False
        problems.append("%s: no comparison for %s" % (where, t))
    if not ok:
        problems.append("%s: %r expected, got %r (%s)" % (where, expected, actual, t))


def zero_copy_matrix(batch, expected_rows, column, where, problems):
    """A float vector column as a (rows, N) float32 NumPy array over the file's own bytes."""
    arr = batch.column(column)
    n = arr.type.list_size
    matrix = arr.flatten().to_numpy(zero_copy_only=True).reshape(len(arr), n)
    if matrix.dtype != np.float32 or matrix.flags.owndata:
        problems.append("%s: not a float32 view over the file" % where)
    for r, row in enumerate(expected_rows):
        want = np.array([float(x) for x in row[column]], dtype=np.float32)
        if not np.array_equal(matrix[r].view(np.uint32), want.view(np.uint32)):
            problems.append("%s row %d: the NumPy view differs from the driver's values" % (where, r))
    return list(matrix.shape)


def main(results_path, s2c_file, directory):
    expected = [json.loads(line) for line in open(results_path, encoding="utf-8")]
    if s2c_file != "*":
        expected = [r for r in expected if r["s2c_file"] == s2c_file]
    files = sorted(f for f in os.listdir(directory) if f.endswith(".arrow"))
    problems = []
    summary = {"files": len(files), "results": len(expected), "rows": 0, "values": 0,
               "zero_copy": []}
    if len(files) != len(expected):
        problems.append("%d files for %d ROWS results" % (len(files), len(expected)))
    for name, exp in zip(files, expected):
        with pa.memory_map(os.path.join(directory, name)) as source:
            reader = ipc.open_file(source)
            table = reader.read_all()
            where = "%s (%s)" % (name, exp["query"])
            if table.num_rows != exp["row_count"]:
                problems.append("%s: %d rows, expected %d" % (where, table.num_rows,
                                                               exp["row_count"]))
                continue
            names = [c["name"] for c in exp["columns"]]
            if table.column_names != names:
                problems.append("%s: columns %s, expected %s" % (where, table.column_names, names))
                continue
            for c, column in enumerate(exp["columns"]):
                field = table.schema.field(c)
                cql = (field.metadata or {}).get(b"cql.type", b"").decode()
                actual = []
                for chunk in table.column(c).chunks:
                    actual.extend(values(chunk))
                for r, row in enumerate(exp["rows"]):
                    same(field.type, actual[r], row[c], "%s row %d %s" % (where, r, column["name"]),
                         problems)
                    summary["values"] += 1
                if not cql:
                    problems.append("%s: %s has no cql.type" % (where, column["name"]))
            summary["rows"] += table.num_rows
            if reader.num_record_batches == 1 and exp["row_count"] > 0:
                batch = reader.get_batch(0)
                for c, column in enumerate(exp["columns"]):
                    t = batch.schema.field(c).type
                    if (pa.types.is_fixed_size_list(t) and pa.types.is_float32(t.value_type)
                            and batch.column(c).null_count == 0):
                        shape = zero_copy_matrix(batch, exp["rows"], c,
                                                 "%s %s" % (where, column["name"]), problems)
                        summary["zero_copy"].append({"file": name, "column": column["name"],
                                                     "shape": shape})
    print(json.dumps(summary))
    if problems:
        for p in problems[:50]:
            print(p, file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1], sys.argv[2], sys.argv[3])
