#!/usr/bin/python3
"""Export pktdedup's telemetry (DPDK's telemetry socket) to Prometheus.

Built on the Prometheus client library (Debian: python3-prometheus-client), which writes
the standard text exposition and serves it (docs/app.md, "Telemetry"). Installed as
pktdedup-prometheus.

    pktdedup-prometheus [--file-prefix P | --socket PATH] [--serve PORT [--bind ADDR]]

--file-prefix is EAL's (default "rte"): the socket is /var/run/dpdk/P/dpdk_telemetry.v2;
a replay run with --telemetry prints its socket. Without --serve the metrics are printed
once; with it, Prometheus scrapes /metrics and each scrape queries the socket. Exit
status: 0, or 1 when the socket cannot be read (printing once; serving, pktdedup_up
says 0 instead).

Series (counters are totals since pktdedup started):
  pktdedup_up                                     1 when the socket answered
  pktdedup_<counter>_total                        /pktdedup/stats: rx, tx, duplicate...
  pktdedup_worker_<counter>_total{worker,lcore}   /pktdedup/workers
  pktdedup_port_<counter>_total{port,name}        /pktdedup/ports (the port's own too)
  pktdedup_info{filter,parameters,key,...} 1      /pktdedup/config
  pktdedup_loss_budget, pktdedup_predicted_fpr, pktdedup_predicted_fnr,
  pktdedup_window_seconds
  pktdedup_estimated_fpr{bound="estimate"|"lower"|"upper"}, pktdedup_estimated_fnr{...}
  pktdedup_duplicate_delay_seconds_bucket{le}, _sum, _count   /pktdedup/delays
"""
import argparse
import json
import re
import socket
import sys
import time

try:
    from prometheus_client import CollectorRegistry, generate_latest, start_http_server
    from prometheus_client.core import (CounterMetricFamily, GaugeMetricFamily,
                                        HistogramMetricFamily, InfoMetricFamily)
except ImportError:
    sys.exit("pktdedup-prometheus: needs the Prometheus client library: apt-get install "
             "python3-prometheus-client, and run it with /usr/bin/python3")

VERSION = "0.1.0"
COMMANDS = ["/pktdedup/stats", "/pktdedup/workers", "/pktdedup/ports", "/pktdedup/config",
            "/pktdedup/delays"]
UNIT_S = {"us": 1e-6, "ms": 1e-3, "s": 1.0}


def query(path):
    """Every command's answer, from one connection."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        s.connect(path)
        greeting = json.loads(s.recv(1 << 16))
        size = int(greeting.get("max_output_len", 1 << 20))
        out = {}
        for cmd in COMMANDS:
            s.send(cmd.encode())
            out[cmd] = json.loads(s.recv(size)).get(cmd)
        return out
    finally:
        s.close()


def number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def bound_s(name):
    """A delay bucket's upper bound in seconds from its name (lt_1us, 1us_2us, ge_10s)."""
    if name.startswith("ge_"):
        return None
    m = re.fullmatch(r"(?:lt_|\d+[a-z]+_)(\d+)([a-z]+)", name)
    return int(m.group(1)) * UNIT_S[m.group(2)] if m else None


def families(t):
    """The metric families of one telemetry reading."""
    stats = t["/pktdedup/stats"] or {}
    for k, v in stats.items():
        if number(v) and not k.startswith(("est_", "delay_")) and k not in ("workers", "window_ns"):
            yield CounterMetricFamily("pktdedup_" + k, "pktdedup %s, all workers" % k, value=v)
    for which in ("fpr", "fnr"):
        if "est_" + which in stats:
            g = GaugeMetricFamily("pktdedup_estimated_" + which,
                                  "live %s estimate from the sampled exact shadow, with its "
                                  "95%% interval" % which.upper(), labels=["bound"])
            g.add_metric(["estimate"], float(stats["est_" + which]))
            g.add_metric(["lower"], float(stats["est_%s_lo" % which]))
            g.add_metric(["upper"], float(stats["est_%s_hi" % which]))
            yield g
    workers = t["/pktdedup/workers"] or {}
    order = sorted(workers.items(), key=lambda x: int(x[0]))
    for k in sorted({k for w in workers.values() for k, v in w.items() if number(v)} - {"lcore"}):
        c = CounterMetricFamily("pktdedup_worker_" + k, "pktdedup %s per worker" % k,
                                labels=["worker", "lcore"])
        for i, w in order:
            if k in w:
                c.add_metric([i, str(w.get("lcore", ""))], w[k])
        yield c
    ports = t["/pktdedup/ports"] or {}
    order = sorted(ports.items(), key=lambda x: int(x[0]))
    for k in sorted({k for p in ports.values() for k, v in p.items() if number(v)}):
        c = CounterMetricFamily("pktdedup_port_" + k, "per port: %s" % k, labels=["port", "name"])
        for i, p in order:
            if k in p:
                c.add_metric([i, str(p.get("name", ""))], p[k])
        yield c
    cfg = t["/pktdedup/config"] or {}
    if cfg:
        yield InfoMetricFamily("pktdedup", "the resolved plan and settings",
                               value={k: v for k, v in cfg.items() if isinstance(v, str) and
                                      k not in ("loss_budget", "predicted_fpr", "predicted_fnr")})
        for k in ("loss_budget", "predicted_fpr", "predicted_fnr"):
            if k in cfg:
                yield GaugeMetricFamily("pktdedup_" + k, "the planner's " + k.replace("_", " "),
                                        value=float(cfg[k]))
        yield GaugeMetricFamily("pktdedup_window_seconds", "the window (0: none)",
                                value=cfg.get("window_ns", 0) / 1e9)
    delays = t["/pktdedup/delays"] or {}
    if delays:
        buckets, cum = [], 0
        for bucket, n in delays.items():  # in bucket order, cumulated
            cum += n
            b = bound_s(bucket)
            buckets.append(("+Inf" if b is None else "%g" % b, cum))
        yield HistogramMetricFamily("pktdedup_duplicate_delay_seconds",
                                    "duplicates by delay since their copy", buckets=buckets,
                                    sum_value=int(stats.get("delay_sum_ns", 0)) / 1e9)


class Collector:
    """Queries the socket at each collection (each scrape)."""

    def __init__(self, path, strict):
        self.path = path
        self.strict = strict

    def collect(self):
        try:
            t = query(self.path)
        except (OSError, ValueError) as e:
            if self.strict:
                raise
            print("pktdedup-prometheus: %s: %s" % (self.path, e), file=sys.stderr)
            yield GaugeMetricFamily("pktdedup_up", "the telemetry socket answered", value=0)
            return
        yield GaugeMetricFamily("pktdedup_up", "the telemetry socket answered", value=1)
        yield from families(t)


def main():
    ap = argparse.ArgumentParser(prog="pktdedup-prometheus",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("--file-prefix", default="rte", help="EAL's --file-prefix (default rte)")
    ap.add_argument("--socket", help="the telemetry socket's path (instead of --file-prefix)")
    ap.add_argument("--serve", type=int, metavar="PORT", help="serve /metrics over HTTP")
    ap.add_argument("--bind", default="127.0.0.1", help="address to serve on (default 127.0.0.1)")
    ap.add_argument("--version", action="version", version="pktdedup-prometheus " + VERSION)
    a = ap.parse_args()
    path = a.socket or "/var/run/dpdk/%s/dpdk_telemetry.v2" % a.file_prefix
    registry = CollectorRegistry()
    registry.register(Collector(path, strict=a.serve is None))
    if a.serve is None:
        try:
            sys.stdout.write(generate_latest(registry).decode())
        except (OSError, ValueError) as e:
            print("pktdedup-prometheus: %s: %s (is pktdedup running with that prefix?)"
                  % (path, getattr(e, "strerror", None) or e), file=sys.stderr)
            return 1
        return 0
    start_http_server(a.serve, addr=a.bind, registry=registry)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    sys.exit(main())
