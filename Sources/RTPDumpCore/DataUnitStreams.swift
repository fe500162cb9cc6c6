import MediaPipeline
import Metadata
import PacketCapture
import RTP
import SDP

/// The data streams of a capture (or a live session's datagrams) through the library's ``MediaPipeline``:
/// every stream the filter admits (narrowed to the format's payload type) is a track taken apart as `format`
/// says: ONVIF metadata documents, or raw units. What `rtpdump frames` and `extract -o OUT.xml` read.
package struct DataUnitStreams: Sendable {
    package let format: DataFormat
    private var tracks: CaptureTracks
    private var pipeline: MediaPipeline

    package init(format: DataFormat, filter: StreamFilter = StreamFilter(), followsFlows: Bool = false) {
        self.format = format
        var narrowed = filter
        narrowed.payloadType = narrowed.payloadType ?? format.payloadType
        tracks = CaptureTracks(filter: narrowed, followsFlows: followsFlows)
        pipeline = MediaPipeline()
    }

    /// Offers a datagram of a capture; `emit` receives the units it completes, with their stream.
    package mutating func add(_ datagram: consuming UDPDatagram, emit: (StreamKey, MediaUnit) throws -> Void) rethrows {
        try add(ReceivedItem(datagram), emit: emit)
    }

    /// Offers a received item; `emit` receives the units it completes, with their stream.
    package mutating func add(_ item: consuming ReceivedItem, emit: (StreamKey, MediaUnit) throws -> Void) rethrows {
        switch tracks.sort(consume item) {
        case .packet(let received, let isNew):
            if isNew { _ = pipeline.addTrack(Depacketizer(format: .data(format))) }
            pipeline.push(consume received)
            try handOn(emit: emit)
        case .senderReports(let reports):
            for report in reports { pipeline.receiveSenderReport(report) }
        case nil:
            return
        }
    }

    /// Ends every stream.
    package mutating func finish(emit: (StreamKey, MediaUnit) throws -> Void) rethrows {
        pipeline.finish()
        try handOn(emit: emit)
    }

    /// Documents dropped across the streams (a loss in or before them, too large, not inflating).
    package var droppedDocuments: Int {
        (0..<pipeline.trackCount).reduce(0) {
            $0 + (pipeline.depacketizer(track: $1)?.metadata?.statistics.droppedDocuments ?? 0)
        }
    }

    /// The last reason a document was dropped, over the streams (nil when none was).
    package var lastDropReason: String? {
        (0..<pipeline.trackCount).reversed().lazy.compactMap {
            self.pipeline.depacketizer(track: $0)?.metadata?.lastError
        }.first
    }

    private mutating func handOn(emit: (StreamKey, MediaUnit) throws -> Void) rethrows {
        while let unit = pipeline.next() { try emit(tracks.stream(track: unit.track), unit) }
    }

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
