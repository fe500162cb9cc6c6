#!/usr/bin/env python3
"""Packetizes access units in an interleaved order, as no common sender does, for the de-interleaving tests.

usage: interleave.py h264|h265 AU_DIR OUT.pcap

AU_DIR holds one Annex B file per access unit, in decoding order (GStreamer's depayloader output with
alignment=au). Every NAL unit gets a decoding order number (DON), counting from 65530 so that it wraps.
Access units are sent in pairs, the second of each pair first, so that NAL units arrive out of decoding
order. Packets:
  h264 (RFC 6184 packetization-mode=2): NAL units over 1000 bytes as FU-B then FU-A fragments; runs of
      smaller ones as STAP-B (same access unit, consecutive DONs), MTAP16 or MTAP24 (DON and timestamp
      offsets), in turn.
  h265 (RFC 7798 with sprop-max-don-diff > 0): large NAL units as FUs with DONL; runs of smaller ones as
      APs (DONL, then DOND); a run of one as a single NAL unit packet with DONL.
Writes OUT.pcap (UDP to 127.0.0.1, port 5020 for h264, 5022 for h265), OUT.nals.h264|h265 in the expected
folder (the NAL units in decoding order, Annex B: what a depacketizer must give back), and updates
expected/interleaved.json with the depth a receiver needs (sprop-interleaving-depth / sprop-max-don-diff).
"""
import json
import os
import struct
import sys

from annexb import split_annexb

FRAGMENT = 900
LARGE = 1000


def starts_picture(nals, codec):
    """Whether the first slice among nals is the first slice of a picture."""
    for nal in nals:
        if codec == "h264" and (nal[0] & 0x1F) in (1, 5):
            return bool(nal[1] & 0x80)  # first_mb_in_slice == 0
        if codec == "h265" and ((nal[0] >> 1) & 0x3F) < 32:
            return bool(nal[2] & 0x80)  # first_slice_segment_in_pic_flag
    return True


def rtp(seq, ts, payload, pt):
    return struct.pack(">BBHII", 0x80, pt, seq & 0xFFFF, ts & 0xFFFFFFFF, 0x1A2B3C4D) + payload


def udp_frame(payload, port):
    udp = struct.pack(">HHHH", 40000, port, 8 + len(payload), 0) + payload
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0, b"\x7f\0\0\1", b"\x7f\0\0\1")
    return b"\0" * 12 + b"\x08\x00" + ip + udp


def runs(items, fits):
    """Splits items (in transmission order) into runs of small NAL units and single large ones."""
    out, run = [], []
    for item in items:
        if len(item["nal"]) > LARGE:
            if run:
                out.append(run)
                run = []
            out.append([item])
        elif run and (not fits(run, item) or len(run) >= 4 or sum(len(r["nal"]) for r in run) > 1200):
            out.append(run)
            run = [item]
        else:
            run.append(item)
    if run:
        out.append(run)
    return out


def h264_packets(items):
    packets = []  # (timestamp, payload)
    for index, run in enumerate(runs(items, lambda run, item: 0 <= item["don"] - run[0]["don"] < 256 or True)):
        first = run[0]
        nal = first["nal"]
        if len(run) == 1 and len(nal) > LARGE:
            header, body = nal[0], nal[1:]
            indicator = (header & 0xE0) | 29
            pieces = [body[i:i + FRAGMENT] for i in range(0, len(body), FRAGMENT)]
            for k, piece in enumerate(pieces):
                fu = (0x80 if k == 0 else 0) | (0x40 if k == len(pieces) - 1 else 0) | (header & 0x1F)
                if k == 0:
                    packets.append((first["ts"], bytes([indicator, fu]) + struct.pack(">H", first["don"] & 0xFFFF) + piece))
                else:
                    packets.append((first["ts"], bytes([(header & 0xE0) | 28, fu]) + piece))
            continue
        nri = max(r["nal"][0] & 0x60 for r in run)
        same_au = all(r["ts"] == first["ts"] for r in run)
        consecutive = all(r["don"] == first["don"] + i for i, r in enumerate(run))
        kind = index % 3
        if kind == 0 and same_au and consecutive:
            body = bytes([nri | 25]) + struct.pack(">H", first["don"] & 0xFFFF)
            for r in run:
                body += struct.pack(">H", len(r["nal"])) + r["nal"]
            packets.append((first["ts"], body))
            continue
        base_don = min(r["don"] for r in run)
        base_ts = min(r["ts"] for r in run)
        if any(r["don"] - base_don > 255 for r in run):
            for r in run:  # DON differences too large for one MTAP: one packet each
                packets.append((r["ts"], bytes([nri | 26]) + struct.pack(">H", r["don"] & 0xFFFF)
                                + struct.pack(">HBH", len(r["nal"]) + 3, 0, 0) + r["nal"]))
            continue
        mtap24 = kind == 2
        body = bytes([nri | (27 if mtap24 else 26)]) + struct.pack(">H", base_don & 0xFFFF)
        for r in run:
            offset = r["ts"] - base_ts
            ts_bytes = offset.to_bytes(3, "big") if mtap24 else offset.to_bytes(2, "big")
            body += struct.pack(">HB", len(r["nal"]) + 1 + len(ts_bytes), r["don"] - base_don) + ts_bytes + r["nal"]
        packets.append((base_ts, body))
    return packets


def h265_packets(items):
    packets = []
    increasing = lambda run, item: 0 <= item["don"] - run[-1]["don"] - 1 < 256
    for run in runs(items, increasing):
        first = run[0]
        nal = first["nal"]
        if len(run) == 1 and len(nal) > LARGE:
            h0, h1, body = nal[0], nal[1], nal[2:]
            fu_type = (h0 >> 1) & 0x3F
            payload_header = bytes([(h0 & 0x81) | (49 << 1), h1])
            pieces = [body[i:i + FRAGMENT] for i in range(0, len(body), FRAGMENT)]
            for k, piece in enumerate(pieces):
                fu = (0x80 if k == 0 else 0) | (0x40 if k == len(pieces) - 1 else 0) | fu_type
                donl = struct.pack(">H", first["don"] & 0xFFFF) if k == 0 else b""
                packets.append((first["ts"], payload_header + bytes([fu]) + donl + piece))
            continue
        if len(run) == 1:
            packets.append((first["ts"], nal[:2] + struct.pack(">H", first["don"] & 0xFFFF) + nal[2:]))
            continue
        layer_tid = min(r["nal"][1] for r in run)
        body = bytes([48 << 1, layer_tid])
        for i, r in enumerate(run):
            body += struct.pack(">H", r["don"] & 0xFFFF) if i == 0 else bytes([r["don"] - run[i - 1]["don"] - 1])
            body += struct.pack(">H", len(r["nal"])) + r["nal"]
        packets.append((first["ts"], body))
    return packets


def main():
    codec, au_dir, out_path = sys.argv[1], sys.argv[2], sys.argv[3]
    files = sorted(os.listdir(au_dir))
    # GStreamer's alignment=au output splits a picture where its packetizer repeated SPS/PPS between two
    # slices; a unit whose first slice is not the first of its picture joins the one before it.
    pictures = []
    for name in files:
        nals = split_annexb(open(os.path.join(au_dir, name), "rb").read())
        if pictures and not starts_picture(nals, codec):
            pictures[-1] += nals
        else:
            pictures.append(nals)
    units, don = [], 65530
    for i, nals in enumerate(pictures):
        unit = []
        for nal in nals:
            unit.append({"nal": nal, "don": don, "ts": 900000 + i * 3000})
            don += 1
        units.append(unit)
    order = []
    for i in range(0, len(units), 2):
        order += (units[i + 1] if i + 1 < len(units) else []) + units[i]
    packets = h264_packets(order) if codec == "h264" else h265_packets(order)
    port, pt = (5020, 96) if codec == "h264" else (5022, 97)
    out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)]
    for seq, (ts, payload) in enumerate(packets):
        frame = udp_frame(rtp(1000 + seq, ts, payload, pt), port)
        out.append(struct.pack("<IIII", 1_700_000_000, seq * 1000, len(frame), len(frame)) + frame)
    open(out_path, "wb").write(b"".join(out))
    expected = os.path.join(os.path.dirname(os.path.dirname(out_path)), "expected")
    name = os.path.basename(out_path)
    with open(os.path.join(expected, name + ".nals.h" + codec[1:]), "wb") as f:
        for unit in units:
            for item in unit:
                f.write(b"\x00\x00\x00\x01" + item["nal"])
    depth = 2 * max(len(u) for u in units)
    manifest_path = os.path.join(expected, "interleaved.json")
    manifest = json.load(open(manifest_path)) if os.path.exists(manifest_path) else {}
    manifest[name] = {"codec": codec, "depth": depth, "packets": len(packets),
                      "nalUnits": sum(len(u) for u in units), "accessUnits": len(units), "port": port}
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=2, sort_keys=True)
        f.write("\n")
    # The SDP a server would give for this stream: what a receiver needs to restore decoding order.
    if codec == "h264":
        fmtp = f"packetization-mode=2;sprop-interleaving-depth={depth}"
        rtpmap = f"{pt} H264/90000"
    else:
        fmtp = f"sprop-max-don-diff={depth};sprop-depack-buf-nalus={depth}"
        rtpmap = f"{pt} H265/90000"
    with open(os.path.splitext(out_path)[0] + ".sdp", "w") as f:
        f.write(f"v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=interleave.py\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
                f"m=video {port} RTP/AVP {pt}\r\na=rtpmap:{rtpmap}\r\na=fmtp:{pt} {fmtp}\r\n")
    print(f"{name}: {len(packets)} packets, {manifest[name]['nalUnits']} NAL units, depth {depth}")


if __name__ == "__main__":
    main()
