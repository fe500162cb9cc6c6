#!/usr/bin/env bash
# The SRTP captures (issue 6), made by a real sender and checked by an independent libsrtp user:
#   captures/h264-srtp.pcap          GStreamer: x264 → rtph264pay → rtpbin → srtpenc (AES_CM_128_HMAC_SHA1_80,
#                                    the key below) → UDP 5030 (SRTP) and 5031 (SRTCP), captured by tshark
#   captures/h264-srtp-flipped.pcap  the same with one byte flipped in some SRTP packets (srtp_flip.py)
#   expected/h264-srtp.json          the key, and which packets were flipped (sequence numbers)
#   captures/srtp-wrap.pcap          200 SRTP packets across the sequence-number wrap (srtp_wrap.py, pylibsrtp)
#   expected/h264-srtp.pcap.gst-frames.md5   the capture decrypted by pylibsrtp (srtp_decrypt.py), then
#                                    GStreamer's decode of that plain RTP, one MD5 per frame
# usage: make-srtp-fixture.sh
source "$(dirname "$0")/common.sh"
bash "$fixtures/../scripts/ensure-packages.sh" tshark gstreamer1.0-tools gstreamer1.0-plugins-good \
    gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly gstreamer1.0-libav
python3 -c "import pylibsrtp" 2>/dev/null || pip install -q pylibsrtp
# 30 bytes: a 16-byte master key and a 14-byte master salt.
key_hex="000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d"
tshark -q -i lo -f "udp port 5030 or udp port 5031" -w "$work/srtp.pcapng" 2> "$work/tshark.log" &
capture=$!
until grep -q "Capturing on" "$work/tshark.log"; do sleep 0.1; done
sleep 0.5
gst-launch-1.0 -q rtpbin name=rb srtpenc name=enc key="$key_hex" \
    videotestsrc is-live=true num-buffers=180 horizontal-speed=4 ! \
    video/x-raw,format=I420,width=320,height=240,framerate=30/1 ! \
    x264enc tune=zerolatency key-int-max=30 ! rtph264pay pt=96 mtu=1200 config-interval=-1 ! rb.send_rtp_sink_0 \
    rb.send_rtp_src_0 ! enc.rtp_sink_0 enc.rtp_src_0 ! udpsink host=127.0.0.1 port=5030 \
    rb.send_rtcp_src_0 ! enc.rtcp_sink_0 enc.rtcp_src_0 ! udpsink host=127.0.0.1 port=5031 sync=false async=false
sleep 0.5
kill -INT $capture
wait $capture || true
editcap -F pcap "$work/srtp.pcapng" "$captures/h264-srtp.pcap"
python3 "$here/srtp_flip.py" "$captures/h264-srtp.pcap" "$captures/h264-srtp-flipped.pcap" "$key_hex" \
    > "$expected/h264-srtp.json"
python3 "$here/srtp_decrypt.py" "$captures/h264-srtp.pcap" "$key_hex" "$work/plain.pcap"
gst-launch-1.0 -q filesrc location="$work/plain.pcap" ! pcapparse dst-port=5030 ! \
    "application/x-rtp,media=video,clock-rate=90000,encoding-name=H264,payload=96" ! rtph264depay ! h264parse ! \
    avdec_h264 max-threads=1 ! video/x-raw,format=I420 ! checksumsink hash=md5 | awk '{print $2}' \
    > "$expected/h264-srtp.pcap.gst-frames.md5"
echo "h264-srtp.pcap: $(wc -l < "$expected/h264-srtp.pcap.gst-frames.md5") frames"
# 200 packets across the sequence-number wrap, protected by pylibsrtp (the rollover counter's test).
python3 "$here/srtp_wrap.py" "$key_hex" "$captures/srtp-wrap.pcap"
