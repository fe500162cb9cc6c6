#!/usr/bin/env bash
# Builds each libFuzzer target with AddressSanitizer and runs it for SECONDS (default 300), seeded
# with the project's fixtures. Prints one summary line per target; crashes are left in Fuzz/artifacts/.
# usage: Fuzz/run.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-300}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(FuzzRTPPacket FuzzRTCP FuzzCapture FuzzH264Depacketizer FuzzHEVCDepacketizer FuzzSPS FuzzRTSPFramer FuzzSDP FuzzWWWAuthenticate FuzzLengthPrefixed FuzzSRTP)
mkdir -p artifacts
for target in "${targets[@]}"; do
    # SwiftPM passes `--sanitize fuzzer --sanitize address` to swiftc as two -sanitize flags, and swiftc keeps
    # only the last: the Swift code gets coverage or AddressSanitizer, not both. The combined flag, given
    # last, gets both.
    swift build -c debug --sanitize fuzzer --sanitize address -Xswiftc -sanitize=fuzzer,address \
        --product "$target" >/dev/null
    corpus="corpus-$target"
    mkdir -p "$corpus"
    case "$target" in
        FuzzCapture) cp ../Fixtures/captures/h264-ffmpeg.pcap ../Fixtures/captures/h265-ffmpeg-ipv6.pcapng ../Fixtures/captures/rtsp-h264-udp.pcap "$corpus"/ ;;
        FuzzRTPPacket) printf '\x90\x60\x00\x01\x00\x00\x00\x02\x00\x00\x00\x03\xbe\xde\x00\x01\x10\xaa\x00\x00\x65' > "$corpus/seed" ;;
        FuzzH264Depacketizer) printf '\x00\x80\x05\x67\x42\xc0\x1e\xda\x80\x04\x7c\x85\xaa\xbb\x00\x00\x04\x7c\x45\xcc\xdd' > "$corpus/seed" ;;
        FuzzHEVCDepacketizer) printf '\x00\x80\x04\x40\x01\x0c\x01\x80\x05\x62\x01\x93\xaa\xbb\x00\x04\x62\x01\x53\xcc' > "$corpus/seed" ;;
        FuzzSPS) printf '\x00\x67\x42\xc0\x1e\xda\x02\x80\xbf\xe5\x84\x00\x00\x03\x00\x04' > "$corpus/seed" ;;
        FuzzRTSPFramer) printf 'RTSP/1.0 200 OK\r\nCSeq: 2\r\nTransport: RTP/AVP/TCP;interleaved=0-1\r\nContent-Length: 3\r\n\r\nv=0$\x00\x00\x02\x80\x60' > "$corpus/seed" ;;
        FuzzSDP) printf 'v=0\r\ns=x\r\nm=video 0 RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\na=fmtp:96 packetization-mode=1;sprop-parameter-sets=Z0IA,aM4=\r\na=control:trackID=1\r\n' > "$corpus/seed" ;;
        FuzzWWWAuthenticate) printf 'Basic realm="cam", Digest realm="cam", qop="auth", algorithm=SHA-256, nonce="abc", stale=true' > "$corpus/seed" ;;
        FuzzLengthPrefixed) printf '\x03\x00\x00\x00\x03\x80\x60\x00\x00\x00\x00\x01\x09' > "$corpus/seed" ;;
        FuzzSRTP) cp ../Fixtures/captures/h264-srtp.pcap "$corpus"/ ;;
        FuzzRTCP) printf '\x81\xc9\x00\x07\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00\x04\x00\x00\x00\x05\x00\x00\x00\x06\x00\x00\x00\x07' > "$corpus/seed" ;;
    esac
    log="artifacts/$target.log"
    before=$(ls artifacts | grep -c "^$target-crash" || true)
    SWIFT_BACKTRACE=enable=no ".build/debug/$target" "$corpus" -max_total_time="$seconds" -max_len=65536 \
        -artifact_prefix="artifacts/$target-" >"$log" 2>&1 && status=ok || status="FAILED (see $log)"
    runs=$(grep -oE 'Done [0-9]+ runs' "$log" | grep -oE '[0-9]+' || echo "?")
    cov=$(grep -oE ' cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+' || echo "?")
    # A target built without coverage mutates blindly; libFuzzer then prints no "cov:" at all.
    [ "$cov" != "?" ] || status="FAILED (no coverage: the target is not instrumented; see $log)"
    after=$(ls artifacts | grep -c "^$target-crash" || true)
    echo "$target: $status, $runs executions in ${seconds}s, coverage $cov edges, new crashes: $((after - before))"
done
