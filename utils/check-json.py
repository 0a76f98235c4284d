#!/usr/bin/env python3
"""Schema checks for comm-sim's JSON outputs.

  check-json.py bench FILE    an object naming collective, topology, ranks,
                              dtype, backend and native, whose rows are
                              objects with exactly the keys size_bytes,
                              count, time_us, algbw_GBps, busbw_GBps,
                              algorithm, protocol, bound_us (numbers;
                              algorithm and protocol strings), sizes
                              increasing
  check-json.py run FILE      an object with at least step_time_us,
                              exposed_comm_us, compute_us, comm_bytes,
                              lower_bound_us, transfer_bound_us
                              (non-negative numbers, byte counts integers,
                              exposed <= step,
                              lower bound <= step)
  check-json.py trace FILE    a Chrome/Perfetto trace: {"traceEvents": [...]}
                              where every event has name, ph, pid; "X" events
                              have tid, ts >= 0 and dur >= 0, and transfers
                              (cat comm...) args bytes (an integer), ranks,
                              algorithm and source; "M" events name a process
                              or thread in args.name; flow events ("s"/"f")
                              come in pairs by id; the "X" events of one
                              thread nest
  check-json.py overlap FILE  a trace, then on rank 0: how many transfers of
                              the communication streams overlap compute, and
                              how many are in flight at once at most
Prints "ok: ..." and exits 0, or prints the first problem and exits 1.
"""
import json
import numbers
import sys


def fail(message):
    print("error: " + message)
    sys.exit(1)


def number(value, what):
    if not isinstance(value, numbers.Number) or isinstance(value, bool):
        fail("%s is not a number: %r" % (what, value))
    if value != value or value < 0:
        fail("%s is negative or NaN: %r" % (what, value))


def bench(data):
    header = {"collective", "topology", "ranks", "dtype", "backend", "native",
              "rows"}
    if not isinstance(data, dict) or set(data) != header:
        fail("expected an object with exactly the keys %s" % sorted(header))
    for key in ("collective", "topology", "dtype", "backend"):
        if not isinstance(data[key], str) or not data[key]:
            fail("%s is not a name" % key)
    number(data["ranks"], "ranks")
    data = data["rows"]
    keys = {"size_bytes", "count", "time_us", "algbw_GBps", "busbw_GBps",
            "algorithm", "protocol", "bound_us", "chunk_bytes"}
    if not isinstance(data, list) or not data:
        fail("expected a non-empty array of rows")
    last = -1
    for i, row in enumerate(data):
        if not isinstance(row, dict) or set(row) != keys:
            fail("row %d has keys %s, expected exactly %s"
                 % (i, sorted(row), sorted(keys)))
        for key in keys - {"algorithm", "protocol"}:
            number(row[key], "row %d %s" % (i, key))
        for key in ("algorithm", "protocol"):
            if not isinstance(row[key], str) or not row[key]:
                fail("row %d %s is not a name" % (i, key))
        if row["size_bytes"] <= last:
            fail("sizes do not increase at row %d" % i)
        last = row["size_bytes"]
        if row["bound_us"] > row["time_us"] * (1 + 1e-9):
            fail("row %d: bound above the prediction" % i)
    return "%d rows" % len(data)


def run(data):
    if not isinstance(data, dict):
        fail("expected an object")
    for key in ("step_time_us", "exposed_comm_us", "compute_us", "comm_bytes",
                "lower_bound_us", "transfer_bound_us"):
        if key not in data:
            fail("missing key " + key)
        number(data[key], key)
    if not isinstance(data["comm_bytes"], int):
        fail("comm_bytes is not an integer: %r" % data["comm_bytes"])
    if data.get("backend") not in ("mpi", "nccl", "verbs"):
        fail("backend is not mpi, nccl or verbs: %r" % data.get("backend"))
    for i, link in enumerate(data.get("busiest_links", [])):
        if not isinstance(link.get("bytes"), int):
            fail("busiest_links[%d].bytes is not an integer" % i)
    if data["exposed_comm_us"] > data["step_time_us"] * (1 + 1e-9):
        fail("exposed communication exceeds the step")
    # No plan runs faster than the bound.
    if data["lower_bound_us"] > data["step_time_us"] * (1 + 1e-9):
        fail("the step is shorter than its lower bound")
    return "step %.3f us" % data["step_time_us"]


def trace(data):
    if not isinstance(data, dict) or not isinstance(data.get("traceEvents"), list):
        fail("expected an object with a traceEvents array")
    events = data["traceEvents"]
    complete = 0
    named = set()
    flows = {}
    for i, e in enumerate(events):
        for key in ("name", "ph", "pid"):
            if key not in e:
                fail("event %d lacks %s" % (i, key))
        if e["ph"] == "X":
            for key in ("tid", "ts", "dur"):
                if key not in e:
                    fail("event %d lacks %s" % (i, key))
                number(e[key], "event %d %s" % (i, key))
            complete += 1
            if e.get("cat", "").startswith("comm"):
                args = e.get("args", {})
                for key in ("bytes", "ranks", "algorithm", "source"):
                    if key not in args:
                        fail("transfer event %d lacks args.%s" % (i, key))
                if not isinstance(args["bytes"], int):
                    fail("transfer event %d: args.bytes is not an integer" % i)
        elif e["ph"] in ("s", "f"):
            if not isinstance(e.get("id"), int) or "tid" not in e:
                fail("flow event %d lacks id or tid" % i)
            number(e.get("ts"), "flow event %d ts" % i)
            flows.setdefault(e["id"], []).append(e["ph"])
        elif e["ph"] == "M":
            if e["name"] not in ("process_name", "thread_name"):
                fail("metadata event %d is %s" % (i, e["name"]))
            if not isinstance(e.get("args", {}).get("name"), str):
                fail("metadata event %d names nothing" % i)
            named.add((e["pid"], e.get("tid")))
        else:
            fail("event %d has phase %r" % (i, e["ph"]))
    if complete == 0:
        fail("no complete events")
    # Complete events of one thread nest (viewers draw them as a stack): one
    # that starts inside another ends inside it.
    threads = {}
    for e in events:
        if e["ph"] == "X":
            threads.setdefault((e["pid"], e["tid"]), []).append(e)
    for (pid, tid), list_ in threads.items():
        list_.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack = []
        for e in list_:
            eps = 1e-6 * max(1.0, e["ts"] + e["dur"])
            while stack and stack[-1] <= e["ts"] + eps:
                stack.pop()
            if stack and e["ts"] + e["dur"] > stack[-1] + eps:
                fail("events overlap without nesting on pid %r tid %r: %r at "
                     "%.3f us ends after the event it starts in"
                     % (pid, tid, e["name"], e["ts"]))
            stack.append(e["ts"] + e["dur"])
    for e in events:
        if e["ph"] == "X" and (e["pid"], None) not in named:
            fail("process %r has no name" % e["pid"])
    for flow, phases in flows.items():
        if sorted(phases) != ["f", "s"]:
            fail("flow %r has phases %s, expected one start and one finish"
                 % (flow, phases))
    return "%d events" % complete + (", %d flows" % len(flows)
                                      if flows else "")


def overlap(data):
    trace(data)
    events = [e for e in data["traceEvents"] if e["ph"] == "X" and e["pid"] == 0]
    compute = [(e["ts"], e["ts"] + e["dur"]) for e in events
               if e["tid"] == 0 and e.get("cat") == "compute"]
    transfers = [(e["ts"], e["ts"] + e["dur"]) for e in events
                 if e.get("cat") == "comm (async)"]
    if not transfers:
        fail("rank 0 has no transfer on a communication stream")
    hidden = sum(1 for (a, b) in transfers
                 if any(min(b, d) - max(a, c) > 1e-6 for (c, d) in compute))
    # The most transfers in flight at once: sweep their ends.
    points = sorted([(a, 1) for (a, b) in transfers] +
                    [(b, -1) for (a, b) in transfers])
    now = most = 0
    for _, step in points:
        now += step
        most = max(most, now)
    # Posted sends have lanes of their own (tid 2^20 and up), not streams.
    streams = len({e["tid"] for e in events
                   if e.get("cat") == "comm (async)" and e["tid"] < (1 << 20)})
    return ("%d of %d transfers overlap compute on rank 0, at most %d in "
            "flight, on %d stream(s)" % (hidden, len(transfers), most, streams))


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("bench", "run", "trace",
                                                 "overlap"):
        print(__doc__)
        return 2
    with open(sys.argv[2]) as f:
        try:
            data = json.load(f)
        except json.JSONDecodeError as e:
            fail("not JSON: %s" % e)
    print("ok: " + {"bench": bench, "run": run, "trace": trace,
                    "overlap": overlap}[sys.argv[1]](data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
