import MediaPipeline
import PacketCapture
import RTP

/// The output of `rtpdump frames` for a data track: one line per ONVIF metadata document or raw unit.
package enum DataUnitListing {
    /// One line per unit: `metadata ssrc=0x.. index=<n> ts=<RTP timestamp> bytes=<n> lost=<packets before it>`
    /// or `raw ssrc=0x.. index=<n> ts=<RTP timestamp> pt=<payload type> bytes=<n> marker=0|1 lost=<packets>`,
    /// then ` wallclock=<seconds since 1970>` once a sender report has arrived.
    package static func line(_ key: StreamKey, index: Int, _ unit: MediaUnit) -> String {
        let head = "ssrc=\(hex32(key.ssrc)) index=\(index) ts=\(UInt32(truncatingIfNeeded: unit.timestamp))"
        let body: String =
            switch unit {
            case .metadata(let document):
                "metadata \(head) bytes=\(document.bytes.count) lost=\(document.lostPacketsBefore)"
            case .raw(let raw):
                "raw \(head) pt=\(raw.payloadType) bytes=\(raw.bytes.count) marker=\(raw.endedByMarker ? 1 : 0) lost=\(raw.lostPackets)"
            default: "unit \(head)"
            }
        return body + (unit.captureTime.map { " wallclock=\($0.unixSeconds)" } ?? "")
    }
}
