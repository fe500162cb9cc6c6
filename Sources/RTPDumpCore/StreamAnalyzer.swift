import H26x
import MediaPipeline
import PacketCapture
@_spi(SansIO) import RTP
import SDP

/// Sorts the UDP datagrams of a capture into RTP streams and keeps RFC 3550 statistics for each.
///
/// A datagram is RTP when its version is 2, it is at least 12 bytes, and its second byte is not in
/// RTCP's packet-type range (RFC 5761). In a bare capture a stream is reported once its sequence numbers
/// pass RFC 3550's probation (two in a row), so stray UDP traffic that happens to start with the right bits
/// is not one; the flows that never pass are listed apart (``unvalidated``). Where the flows are known to be
/// RTP (an RTSP session's tracks, a port or SDP the user named), `probation: false` counts every packet.
package struct StreamAnalyzer: Sendable {
    /// What is known about one stream.
    package struct Stream: Sendable {
        package let key: StreamKey
        /// The payload type of the stream's first packet.
        package let payloadType: UInt8
        /// The clock rate jitter is measured in.
        package let clockRate: Int
        package internal(set) var statistics: ReceiverStatistics
        /// Packets whose capture was cut short by the snaplen (counted, but their payload is incomplete).
        package internal(set) var truncatedPackets = 0
        /// The codec's encoding name (`H264`, `PCMU`, `MPEG4-GENERIC`, ...): the SDP's for the payload type,
        /// else the static payload type's (RFC 3551), else H.264 or H.265 as its first payloads show; nil
        /// when none says.
        package internal(set) var codec: String?
        /// Packets whose payload was looked at for a video codec, while none was known.
        var sniffed = 0
    }

    /// How many packets of a stream no SDP describes are looked at for an H.264 or H.265 payload.
    static let maxSniffedPackets = 64

    package let filter: StreamFilter
    /// Overrides the clock rate for every stream.
    package let clockRate: Int?
    /// Whether a stream must pass RFC 3550 probation to be one.
    package let probation: Bool
    /// The formats an SDP describes, by payload type: each stream's codec and clock rate.
    package let formats: [UInt8: MediaFormat]
    private var index: [StreamKey: Int] = [:]
    private var all: [Stream] = []
    /// Datagrams that matched the filter but were not RTP.
    package private(set) var notRTP = 0
    /// RTCP packets seen.
    package private(set) var rtcpPackets = 0

    package init(
        filter: StreamFilter = StreamFilter(), clockRate: Int? = nil, probation: Bool = true,
        formats: [UInt8: MediaFormat] = [:]
    ) {
        self.formats = formats
        self.filter = filter
        self.clockRate = clockRate
        self.probation = probation
    }

    /// Accounts for one datagram of a capture.
    package mutating func add(_ datagram: UDPDatagram) { add(ReceivedItem(datagram)) }

    /// Accounts for one received item.
    package mutating func add(_ item: ReceivedItem) {
        guard filter.admits(source: item.source, destination: item.destination) else { return }
        let content = item.content  // a capture's bytes are read here, once
        guard let (header, _, isTruncated) = content.rtpHeader else {
            if case .rtcp = content { rtcpPackets += 1 } else { notRTP += 1 }
            return
        }
        guard filter.admits(ssrc: header.ssrc, payloadType: header.payloadType) else { return }
        let key = StreamKey(ssrc: header.ssrc, source: item.source, destination: item.destination)
        let position: Int
        if let known = index[key] {
            position = known
        } else {
            position = all.count
            index[key] = position
            let described = formats[header.payloadType]
            let rate =
                clockRate ?? described?.clockRate ?? ClockRate.assumed(forPayloadType: header.payloadType) ?? 90000
            all.append(
                Stream(
                    key: key, payloadType: header.payloadType, clockRate: rate,
                    statistics: ReceiverStatistics(
                        clockRate: rate, tracker: SequenceTracker(minSequential: probation ? 2 : 1)),
                    codec: described?.encodingName
                        ?? AudioFormat.staticFormat(payloadType: header.payloadType)?.codec.encodingName
                        ?? (header.payloadType == VideoFormat.jpegPayloadType ? VideoCodec.jpeg.encodingName : nil)))
        }
        if all[position].codec == nil && all[position].sniffed < Self.maxSniffedPackets {
            all[position].sniffed += 1
            if case .rtp(let packet) = content {
                if let data = CodecSniffer.dataSignature(ofPayload: packet.payload) {
                    all[position].codec = data  // told apart before a data payload passes for a NAL unit
                } else if let codec = CodecSniffer.codec(ofPayload: packet.payload) {
                    all[position].codec = codec.encodingName
                }
            }
        }
        all[position].statistics.record(
            sequenceNumber: header.sequenceNumber, timestamp: header.timestamp, arrival: item.arrival)
        if isTruncated { all[position].truncatedPackets += 1 }
    }

    /// The RTP streams found, in order of their first packet. Sources that never passed probation are left out.
    package var streams: [Stream] {
        all.filter { $0.statistics.tracker.isValid }
    }

    /// Flows that looked like RTP but whose sequence numbers never passed probation (never two in a row:
    /// stray traffic, or a real stream that lost every other packet).
    package var unvalidated: [Stream] {
        all.filter { !$0.statistics.tracker.isValid }
    }

    /// Reads every datagram of a capture.
    package static func analyze<Source: ReceivedItemSource>(
        _ capture: inout Source, filter: StreamFilter = StreamFilter(), clockRate: Int? = nil, probation: Bool = true,
        formats: [UInt8: MediaFormat] = [:]
    ) throws -> StreamAnalyzer {
        var analyzer = StreamAnalyzer(filter: filter, clockRate: clockRate, probation: probation, formats: formats)
        try capture.forEachItem { item in analyzer.add(item) }
        return analyzer
    }
}
