import PacketCapture
import Audio
import MediaPipeline
import RTP

/// The output of `rtpdump frames`.
package enum AudioFrameListing {
    /// One line per audio frame: `frame ssrc=0x.. ts=<RTP timestamp> codec=<name> bytes=<n> samples=<n>
    /// lost=<packets before it>`, then ` wallclock=<seconds since 1970>` once a sender report has arrived,
    /// and ` discontinuity` for the first frame after a break.
    package static func line(_ key: StreamKey, _ frame: AudioFrame) -> String {
        "frame ssrc=\(hex32(key.ssrc)) ts=\(frame.rtpTimestamp) codec=\(frame.codec) bytes=\(frame.bytes.count)"
            + " samples=\(frame.sampleCount) lost=\(frame.lostPacketsBefore)"
            + (frame.captureTime.map { " wallclock=\($0.unixSeconds)" } ?? "")
            + (frame.isDiscontinuity ? " discontinuity" : "")
    }
}
