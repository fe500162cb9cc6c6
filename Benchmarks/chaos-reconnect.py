#!/usr/bin/python3
"""A reconnecting session against a server that keeps going away: how soon it decodes again, how long it
waits, and whether its memory stays flat. Timing does not belong in the test suite; it is measured here.

usage: Benchmarks/chaos-reconnect.py [--minutes M] [--restarts N] [--pause S] [--max-delay S]
                                     [--restart-every S] [--transport tcp|udp|http] [--rtpdump PATH]

Plays gst-rtsp-server (Fixtures/scripts/rtsp-server.py, 320x240 at 30 fps) with
`rtpdump decode URL --md5 --reconnect --reconnect-max-delay S` for M minutes while the server is killed
(SIGKILL) and started again on the same port N times, at random moments, down 2 to 8 s each time, and once
stopped (SIGSTOP) for --pause seconds then continued; between them the server plays at least 5 s or so. With --restart-every, the server is instead restarted
every S seconds (the soak). Prints, for each return of the server, how long until the next frame; the
waits rtpdump took (its stderr) against the bound; frames per minute; rtpdump's resident memory over the
run; and the decoder's summary (frames that may be damaged, decoder errors). Exits 1 when a return took
more than 3 s to give a frame, a wait passed the bound, or a minute had no frame.
"""
import argparse
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = os.path.join(ROOT, "Fixtures/scripts/rtsp-server.py")


def start_server(port):
    """gst-rtsp-server on `port`, once it says it listens (the port may linger a moment after a kill)."""
    for _ in range(100):
        process = subprocess.Popen(
            ["/usr/bin/python3", SERVER, str(port), "--frames", "100000000", "--lifetime", "100000"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if process.stdout.readline().strip() == "ready":
            return process
        process.kill()
        process.wait()
        time.sleep(0.1)
    sys.exit(f"the server did not start on port {port}")


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=2)
    parser.add_argument("--restarts", type=int, default=5)
    parser.add_argument("--pause", type=float, default=20)
    parser.add_argument("--max-delay", type=float, default=1.0)
    parser.add_argument("--restart-every", type=float)
    parser.add_argument("--transport", default="tcp")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--verbose", action="store_true", help="print rtpdump's stderr with the time of each line")
    parser.add_argument("--rtpdump", default=os.path.join(ROOT, ".build/release/rtpdump"))
    args = parser.parse_args()
    random.seed(args.seed)
    port = random.randint(30000, 60000)
    duration = args.minutes * 60
    server = start_server(port)
    started = time.monotonic()
    client = subprocess.Popen(
        [args.rtpdump, "decode", f"rtsp://127.0.0.1:{port}/test", "--md5", "--transport", args.transport,
         "--reconnect", "--reconnect-max-delay", str(args.max_delay), "--duration", str(duration)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    frames, notes = [], []

    def read_frames():
        for line in client.stdout:
            frames.append(time.monotonic() - started)

    def read_notes():
        for line in client.stderr:
            notes.append((time.monotonic() - started, line.rstrip()))

    readers = [threading.Thread(target=read_frames), threading.Thread(target=read_notes)]
    for reader in readers:
        reader.start()

    # The schedule: kills spread over the run (a random moment in each slot), the pause in a slot of its own.
    events = []
    if args.restart_every:
        t = args.restart_every
        while t < duration - 10:
            events.append((t, "restart", 3.0))
            t += args.restart_every
    else:
        kinds = ["restart"] * args.restarts + (["pause"] if args.pause > 0 else [])
        random.shuffle(kinds)
        lengths = [args.pause if kind == "pause" else random.uniform(2, 8) for kind in kinds]
        # What is left of the run once the server's absences are taken out, shared among the stretches it
        # plays (before each event and after the last), each of them 0.5 to 1.5 times its share.
        share = (duration - 5 - sum(lengths)) / (len(kinds) + 1)
        if share < 5:
            sys.exit(f"{len(kinds)} events of {sum(lengths):.0f} s in all do not fit in {duration:.0f} s")
        t = 0.0
        for kind, length in zip(kinds, lengths):
            t += share * random.uniform(0.5, 1.5)
            events.append((t, kind, length))
            t += length

    returns, memory = [], []
    next_sample = 10
    for at, kind, length in events:
        while time.monotonic() - started < at:
            if time.monotonic() - started >= next_sample:
                memory.append((next_sample, rss_kib(client.pid)))
                next_sample += 10
            time.sleep(0.05)
        if kind == "restart":
            server.kill()
            server.wait()
            time.sleep(length)
            server = start_server(port)
        else:
            server.send_signal(signal.SIGSTOP)
            time.sleep(length)
            server.send_signal(signal.SIGCONT)
        returns.append((kind, time.monotonic() - started, length))
    while client.poll() is None:
        if time.monotonic() - started >= next_sample:
            memory.append((next_sample, rss_kib(client.pid)))
            next_sample += 10
        time.sleep(0.05)
    for reader in readers:
        reader.join()
    server.kill()

    if args.verbose:
        for at, note in notes:
            print(f"  {at:6.1f} s  {note}")
    failed = False
    print(f"{len(frames)} frames in {duration:.0f} s over {args.transport}; server port {port}, seed {args.seed}")
    for kind, back, length in returns:
        after = [t for t in frames if t > back]
        gap = (after[0] - back) if after else float("inf")
        ok = gap <= 3.0
        failed |= not ok
        print(f"  {kind:7} ({length:4.1f} s away) back at {back:6.1f} s: next frame after {gap:5.2f} s"
              + ("" if ok else "  <- more than 3 s"))
    waits = [float(m.group(1)) for _, note in notes if (m := re.search(r"playing again in ([0-9.e-]+) second", note))]
    if waits:
        over = [w for w in waits if w > args.max_delay + 1e-9]
        failed |= bool(over)
        print(f"  waits taken: {len(waits)}, longest {max(waits):.3f} s, bound {args.max_delay} s"
              + (f"  <- {len(over)} over the bound" if over else ""))
    # What the server sent while it was there: 30 frames a second, less its absences and each return's wait
    # for the first frame (and the first frame's own wait at the start).
    away = sum(length for _, _, length in returns) + sum(
        ([t for t in frames if t > back] or [duration])[0] - back for _, back, _ in returns)
    there = duration - away - (frames[0] if frames else duration)
    print(f"  frames: {len(frames)}; the server was there and sending for {there:.1f} s: {30 * there:.0f} at 30 fps")
    reconnects = sum(1 for _, note in notes if "playing again (reconnect" in note)
    print(f"  reconnects: {reconnects}")
    minutes = int(duration // 60)
    per_minute = [sum(1 for t in frames if m * 60 <= t < (m + 1) * 60) for m in range(minutes)]
    if minutes:
        failed |= any(count == 0 for count in per_minute)
        print(f"  frames per minute: {per_minute}")
    samples = [(t, kib) for t, kib in memory if kib]
    if samples:
        warm = [s for s in samples if s[0] >= 30] or samples
        print(f"  rtpdump RSS: {warm[0][1]} KiB at {warm[0][0]} s, {samples[-1][1]} KiB at {samples[-1][0]} s, "
              f"peak {max(k for _, k in samples)} KiB")
    for _, note in notes:
        if note.startswith("H.26"):
            print(f"  {note}")
    print(f"  rtpdump exit status {client.returncode}")
    failed |= client.returncode != 0
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
