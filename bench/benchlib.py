"""Helpers shared by the bench scripts (bench/broad; bench/run uses the perf stat ones and keeps its own copies
of the rest for now).

Stdlib only: the scripts run under the system python3; what needs packages (the broad site's server) runs under
bench/.venv, which `ensure_venv` creates and fills.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from datetime import datetime, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
VENV = os.path.join(HERE, ".venv")


def logger(tag):
    def log(*a):
        print("[%s]" % tag, *a, file=sys.stderr, flush=True)
    return log


log = logger("bench")


def sh(cmd, **kw):
    log("$", " ".join(cmd))
    return subprocess.run(cmd, **kw)


def trawl_bin(path=None):
    """The trawl binary: PATH, else $TRAWL, else the repository's target/release/trawl."""
    for cand in (path, os.environ.get("TRAWL"), os.path.join(REPO, "target/release/trawl")):
        if cand and os.path.exists(cand):
            return os.path.abspath(cand)
    sys.exit("no trawl binary: build it with `cargo build --release -p trawl` or pass --trawl PATH")


def venv_bin(name):
    return os.path.join(VENV, "bin", name)


def ensure_venv(modules):
    """bench/.venv with the given {import name: pip name} installed (installs only what is missing)."""
    if not os.path.exists(venv_bin("python")):
        sh([sys.executable, "-m", "venv", VENV], check=True)
    missing = [pip for mod, pip in modules.items()
               if subprocess.run([venv_bin("python"), "-c", "import " + mod], capture_output=True).returncode]
    if missing:
        sh(["nice", "-n", "10", venv_bin("pip"), "install", "-q"] + missing, check=True)


def apt_install(packages):
    if not packages:
        return
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    sh(sudo + ["apt-get", "update", "-q"])
    sh(sudo + ["nice", "-n", "10", "apt-get", "install", "-y", "-q"] + list(packages))


def disk_bytes(path):
    """Bytes a directory tree takes on disk (allocated blocks, as du: sparse journals count what they use)."""
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_blocks * 512
            except OSError:
                pass
    return total


def file_bytes(path, pattern=None):
    """Apparent size of the files under path (whose name matches pattern, if given)."""
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            if pattern is None or re.search(pattern, f):
                try:
                    total += os.lstat(os.path.join(root, f)).st_size
                except OSError:
                    pass
    return total


def proc_rss_kb(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def proc_cpu_s(pid):
    """user + system CPU seconds of a running process (and its waited-for children), from /proc/PID/stat."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            v = f.read().rsplit(")", 1)[1].split()
        return sum(int(x) for x in v[11:15]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def cpu_total_s():
    """All CPU time the machine spent (user + nice + system + irq + softirq), in seconds, from /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return (v[0] + v[1] + v[2] + v[5] + v[6]) / os.sysconf("SC_CLK_TCK")


def prometheus(url, timeout=1.0):
    """{metric name: value} from a Prometheus text endpoint (labels dropped; the last sample of a name wins)."""
    out = {}
    with urllib.request.urlopen(url, timeout=timeout) as r:
        for line in r.read().decode("utf-8", "replace").splitlines():
            if not line or line.startswith("#"):
                continue
            m = re.match(r"^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)", line)
            if m:
                try:
                    out[m.group(1)] = float(m.group(3))
                except ValueError:
                    pass
    return out


def run_measured(cmd, cwd, time_limit, env=None, tick=None, tick_every=1.0, grace=60, wrapped=False):
    """Runs cmd (stdout/stderr to cwd/stdout.log, stderr.log) and waits for it with os.wait4, so the CPU and
    peak RSS are the process's own (and its waited-for children's). Every tick_every seconds tick(pid, elapsed)
    is called (sampling, progress); when it returns a reason, or past time_limit s, the process gets SIGINT (a
    clean stop), then SIGKILL after `grace` s; `wrapped` (cmd runs the tool under `perf stat`) samples the tool,
    perf's child. Returns wall, user, sys, rss_kb, exit, stopped ("" or why)."""
    out = open(os.path.join(cwd, "stdout.log"), "w")
    err = open(os.path.join(cwd, "stderr.log"), "w")
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=err, env=env, start_new_session=True)
    stopped, sent_int, last_tick = "", None, t0
    try:
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            now = time.monotonic()
            why = None
            if tick and now - last_tick >= tick_every:
                last_tick = now
                try:
                    why = tick(sampled_pid(p.pid, wrapped), now - t0)
                except Exception as e:  # sampling is best effort
                    log("sampling failed: %s" % e)
            if sent_int is None and now - t0 > time_limit:
                why = "time limit (%.0f s)" % time_limit
            if sent_int is None and why:
                stopped = why
                log("%s: %s: SIGINT" % (os.path.basename(cmd[-1] if cmd[0] == "unshare" else cmd[0]), why))
                # Wrapped, the whole session: perf stat does not pass a signal on to its child.
                (os.killpg if wrapped else os.kill)(p.pid, signal.SIGINT)
                sent_int = now
            elif sent_int is not None and now - sent_int > grace:
                stopped += ", killed"
                (os.killpg if wrapped else os.kill)(p.pid, signal.SIGKILL)
                sent_int = float("inf")
            time.sleep(0.1)
    except BaseException:
        # Ctrl-C or an error in the harness: the crawler goes too (its own session, so signal it ourselves)
        try:
            os.kill(p.pid, signal.SIGINT)
            p.wait(20)
        except (OSError, subprocess.TimeoutExpired):
            p.kill()
            p.wait()
        raise
    finally:
        out.close()
        err.close()
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return {"wall": wall, "user": ru.ru_utime, "sys": ru.ru_stime, "rss_kb": ru.ru_maxrss,
            "exit": p.returncode, "stopped": stopped}


# What --perf-stat counts: CPU time by the kernel's clock, context switches, and syscalls (all, write, futex).
# Software events and tracepoints only: a VM without hardware counters (this one) counts these all the same.
PERF_EVENTS = ("task-clock", "context-switches", "raw_syscalls:sys_enter", "syscalls:sys_enter_write",
               "syscalls:sys_enter_futex")


def perf_stat_prefix(out_path):
    """The command prefix that runs a tool under `perf stat`, its counts in out_path (CSV); [] without perf."""
    if not shutil.which("perf"):
        log("--perf-stat: perf is not installed (apt-get install linux-perf), counting nothing")
        return []
    return ["perf", "stat", "-x", ",", "-o", out_path, "-e", ",".join(PERF_EVENTS), "--"]


def read_perf_stat(path, pages):
    """{event: count per page} from a `perf stat -x ,` file (task-clock in ms); {} when there is none."""
    names = {"task-clock": "task_clock_ms", "context-switches": "context_switches",
             "raw_syscalls:sys_enter": "syscalls", "syscalls:sys_enter_write": "writes",
             "syscalls:sys_enter_futex": "futex"}
    out = {}
    try:
        lines = open(path).read().splitlines()
    except OSError:
        return out
    for line in lines:
        f = line.split(",")
        if len(f) > 2 and f[2] in names:
            try:
                out[names[f[2]]] = float(f[0]) / max(1, pages)
            except ValueError:
                pass  # "<not supported>"
    return out


def perf_stat_line(tool, per_page):
    """One line of per-page counts, for the report."""
    if not per_page:
        return "%s: no counts (see the log above)" % tool
    return "%s per page: %s" % (tool, ", ".join("%s %.3f" % (k, v) for k, v in sorted(per_page.items())))


def instructions_prefix(out_path):
    """The command prefix that runs a tool under valgrind's cachegrind, counting only instructions (no cache
    simulation), the count in out_path; [] without valgrind. Instructions do not vary with the machine's load
    or clock as CPU time does (10-20% between runs here), so a change of 1-2% shows; but they are not cycles (a
    cache miss counts as one instruction), valgrind hides SHA-NI and AVX-512 (SHA-1 runs in software), and
    the tool runs about 30 times slower, so use a small site (--pages 1000). The row's wall, CPU and RSS are
    then valgrind's, and its missing/extra columns say whether the slowed crawl still fetched the same set."""
    if not shutil.which("valgrind"):
        log("--instructions: valgrind is not installed (apt-get install valgrind), counting nothing")
        return []
    return ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=" + out_path, "--"]


def read_instructions(path, pages):
    """Instructions per page from a cachegrind output file ({} when there is none)."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("summary:"):
                    return {"instructions_k": int(line.split()[1]) / 1000.0 / max(1, pages)}
    except (OSError, ValueError, IndexError):
        pass
    return {}


def sampled_pid(pid, wrapped):
    """The process to sample: pid itself, or (wrapped by perf stat) its first child once it has one."""
    if not wrapped:
        return pid
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            kids = f.read().split()
        return int(kids[0]) if kids else pid
    except (OSError, ValueError):
        return pid


def read_crawl_log(job):
    """[(status, uri, start_ms, dur_ms, annotations)] from JOB/logs/crawl.log (as bench/run reads it)."""
    out = []
    path = os.path.join(job, "logs", "crawl.log")
    if not os.path.exists(path):
        return out
    for line in open(path, encoding="utf-8", errors="replace"):
        f = line.split()
        if len(f) < 9:
            continue
        start = dur = None
        m = re.match(r"^(\d{17})\+(\d+)$", f[8])
        if m:
            t = datetime.strptime(m.group(1)[:14], "%Y%m%d%H%M%S").replace(tzinfo=timezone.utc)
            start = t.timestamp() * 1000 + int(m.group(1)[14:])
            dur = int(m.group(2))
        try:
            status = int(f[1])
        except ValueError:
            continue
        out.append((status, f[3], start, dur, f[11] if len(f) > 11 else "-"))
    return out


def machine():
    def out(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
        except OSError:
            return "?"
    cpu = "?"
    try:
        cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except Exception:
        pass
    head = out(["git", "-C", REPO, "rev-parse", "--short", "HEAD"])
    dirty = out(["git", "-C", REPO, "status", "--porcelain", "crates"])
    return {"nproc": out(["nproc"]), "cpu": cpu, "commit": head + ("-dirty" if dirty else ""),
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "loadavg": open("/proc/loadavg").read().split()[:3]}


def write_json(path, data):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1)
    os.replace(tmp, path)


def which(name):
    return shutil.which(name)
