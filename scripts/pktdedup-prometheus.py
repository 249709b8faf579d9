#!/usr/bin/python3
"""Read pktdedup's telemetry (DPDK's telemetry socket) and print it in Prometheus text
exposition format, once, or serve it over HTTP for Prometheus to scrape.
Standard library only (docs/app.md, "Telemetry").

    pktdedup-prometheus.py [--file-prefix P | --socket PATH] [--serve PORT [--bind ADDR]]

--file-prefix is EAL's (default "rte"): the socket is /var/run/dpdk/P/dpdk_telemetry.v2;
a replay run with --telemetry prints its socket. With --serve, GET /metrics queries the
socket at each scrape. Exit status: 0, or 1 when the socket cannot be read.

Series (all counters are totals since pktdedup started):
  pktdedup_<counter>_total                  /pktdedup/stats: rx, tx, duplicate, dropped...
  pktdedup_worker_<counter>_total{worker,lcore}   /pktdedup/workers
  pktdedup_port_<counter>_total{port,name}  /pktdedup/ports (the port's own counts too)
  pktdedup_info{filter,parameters,key,...} 1      /pktdedup/config
  pktdedup_loss_budget, pktdedup_predicted_fpr, pktdedup_predicted_fnr, pktdedup_window_seconds
  pktdedup_estimated_fpr{bound="estimate"|"lower"|"upper"} and pktdedup_estimated_fnr{...}
  pktdedup_duplicate_delay_seconds_bucket{le} and _count     /pktdedup/delays
"""
import argparse
import http.server
import json
import re
import socket
import sys

COMMANDS = ["/pktdedup/stats", "/pktdedup/workers", "/pktdedup/ports", "/pktdedup/config",
            "/pktdedup/delays"]
UNIT_S = {"us": 1e-6, "ms": 1e-3, "s": 1.0}


def query(path):
    """Every command's answer, from one connection."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(path)
    greeting = json.loads(s.recv(1 << 16))
    size = int(greeting.get("max_output_len", 1 << 20))
    out = {}
    for cmd in COMMANDS:
        s.send(cmd.encode())
        out[cmd] = json.loads(s.recv(size)).get(cmd)
    s.close()
    return out


def esc(v):
    return str(v).replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")


def labels(d):
    return "{" + ",".join('%s="%s"' % (k, esc(v)) for k, v in d.items()) + "}" if d else ""


def number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def bound_s(name):
    """A delay bucket's upper bound in seconds from its name (lt_1us, 1us_2us, ge_10s)."""
    if name.startswith("ge_"):
        return None
    m = re.fullmatch(r"(?:lt_|\d+[a-z]+_)(\d+)([a-z]+)", name)
    return int(m.group(1)) * UNIT_S[m.group(2)] if m else None


def exposition(t):
    lines = []

    def metric(name, kind, help_, samples):
        lines.append("# HELP %s %s" % (name, help_))
        lines.append("# TYPE %s %s" % (name, kind))
        for lab, v in samples:
            lines.append("%s%s %s" % (name, labels(lab), repr(float(v)) if isinstance(v, float)
                                      else v))

    stats = t["/pktdedup/stats"] or {}
    for k, v in stats.items():
        if number(v) and not k.startswith("est_") and k not in ("workers", "window_ns"):
            metric("pktdedup_%s_total" % k, "counter", "pktdedup %s, all workers" % k,
                   [({}, v)])
    for which in ("fpr", "fnr"):
        if "est_" + which in stats:
            metric("pktdedup_estimated_%s" % which, "gauge",
                   "live %s estimate from the sampled exact shadow, with its 95%% interval"
                   % which.upper(),
                   [({"bound": "estimate"}, float(stats["est_" + which])),
                    ({"bound": "lower"}, float(stats["est_%s_lo" % which])),
                    ({"bound": "upper"}, float(stats["est_%s_hi" % which]))])
    workers = t["/pktdedup/workers"] or {}
    names = sorted({k for w in workers.values() for k, v in w.items() if number(v)} - {"lcore"})
    for k in names:
        metric("pktdedup_worker_%s_total" % k, "counter", "pktdedup %s per worker" % k,
               [({"worker": i, "lcore": w.get("lcore", "")}, w[k])
                for i, w in sorted(workers.items(), key=lambda x: int(x[0])) if k in w])
    ports = t["/pktdedup/ports"] or {}
    names = sorted({k for p in ports.values() for k, v in p.items() if number(v)})
    for k in names:
        metric("pktdedup_port_%s_total" % k, "counter", "per port: %s" % k,
               [({"port": i, "name": p.get("name", "")}, p[k])
                for i, p in sorted(ports.items(), key=lambda x: int(x[0])) if k in p])
    cfg = t["/pktdedup/config"] or {}
    if cfg:
        info = {k: v for k, v in cfg.items() if isinstance(v, str) and
                k not in ("loss_budget", "predicted_fpr", "predicted_fnr")}
        metric("pktdedup_info", "gauge", "the resolved plan and settings", [(info, 1)])
        for k in ("loss_budget", "predicted_fpr", "predicted_fnr"):
            if k in cfg:
                metric("pktdedup_" + k, "gauge", "the planner's " + k.replace("_", " "),
                       [({}, float(cfg[k]))])
        metric("pktdedup_window_seconds", "gauge", "the window (0: none)",
               [({}, cfg.get("window_ns", 0) / 1e9)])
    delays = t["/pktdedup/delays"] or {}
    if delays:
        name = "pktdedup_duplicate_delay_seconds"
        lines.append("# HELP %s duplicates by delay since their copy (no _sum: pktdedup "
                     "keeps buckets only)" % name)
        lines.append("# TYPE %s histogram" % name)
        cum = 0
        for bucket, n in delays.items():  # in bucket order, cumulated
            cum += n
            b = bound_s(bucket)
            lines.append('%s_bucket{le="%s"} %d' % (name, "+Inf" if b is None else "%g" % b, cum))
        lines.append("%s_count %d" % (name, cum))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--file-prefix", default="rte", help="EAL's --file-prefix (default rte)")
    ap.add_argument("--socket", help="the telemetry socket's path (instead of --file-prefix)")
    ap.add_argument("--serve", type=int, metavar="PORT", help="serve /metrics over HTTP")
    ap.add_argument("--bind", default="127.0.0.1", help="address to serve on (default 127.0.0.1)")
    a = ap.parse_args()
    path = a.socket or "/var/run/dpdk/%s/dpdk_telemetry.v2" % a.file_prefix

    if a.serve is None:
        try:
            sys.stdout.write(exposition(query(path)))
        except OSError as e:
            print("pktdedup-prometheus: %s: %s (is pktdedup running with that prefix?)"
                  % (path, e.strerror or e), file=sys.stderr)
            return 1
        return 0

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path != "/metrics":
                self.send_error(404, "only /metrics")
                return
            try:
                body = exposition(query(path)).encode()
            except OSError as e:
                self.send_error(503, "%s: %s" % (path, e.strerror or e))
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    http.server.HTTPServer((a.bind, a.serve), Handler).serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
