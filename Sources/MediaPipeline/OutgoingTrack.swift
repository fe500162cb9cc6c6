@_spi(SansIO) import RTP
import SDP

/// The sending side of one track, sans I/O: the mirror of a ``MediaPipeline``'s track (reorder buffer,
/// depacketizer, sender clock). Its ``Packetizer`` makes each unit's payloads, its ``RTPSender`` numbers and
/// stamps them (RTP time that keeps rising, sender reports), its ``PacketProtection`` (SRTP), when it has one,
/// protects them; the packets go into a ``PacketBatch`` that each transport's edge writes as it frames packets
/// (an RTSP connection's interleaved frames, UDP datagrams, a WebRTC viewer's).
///
/// ```swift
/// var track = try OutgoingTrack(format: format)
/// var batch = MyBatch()                 // a PacketBatch: a ByteBuffer of interleaved frames, for one
/// track.send(unit, capturedAt: .now(), into: &batch)
/// let report = track.report(at: .now(), canonicalName: "camera")   // every 5 s, on the track's RTCP
/// ```
///
/// A unit whose timestamp goes back more than a second (a file played again, a relay whose camera restarted) is
/// moved to follow the track's latest, so its RTP time keeps rising; B-frames' smaller steps back pass as they are. Use
/// one from one place at a time (under a lock): its
/// protection, when it has one, is libsrtp's session.
package struct OutgoingTrack {
    /// The format its packets follow: what the track is announced with.
    package let format: MediaFormat
    package private(set) var packetizer: Packetizer
    /// Its RTP stream: SSRC, sequence numbers, timestamps, counts.
    package private(set) var sender: RTPSender
    /// What protects its packets and reports (SRTP), or nil.
    package let protection: (any PacketProtection)?
    private var timeline: RisingTimeline
    /// The packet being protected (reused).
    private var scratch: [UInt8] = []

    /// A track of `format` (one a ``Packetizer`` sends); its RTP stream `sender` (by default with a random SSRC,
    /// first sequence number and timestamp offset), its packets protected by `protection` when given.
    /// - Throws: ``PacketizerError`` for a format that is not sent.
    package init(
        format: MediaFormat, maxPayloadSize: Int = RTPSender.defaultMaxPayloadSize, sender: RTPSender? = nil,
        protection: (any PacketProtection)? = nil
    ) throws(PacketizerError) {
        self.format = format
        packetizer = try Packetizer(format: format, maxPayloadSize: maxPayloadSize)
        self.sender = sender ?? RTPSender(payloadType: format.payloadType, clockRate: format.clockRate)
        self.protection = protection
        timeline = RisingTimeline(clockRate: format.clockRate)
    }

    /// Sends `unit`: its packets, numbered and stamped (and protected), into `batch`; `capturedAt` is the unit's
    /// wall-clock time (what sender reports pair RTP times with); `headerExtension`, when given, goes in the unit's
    /// first packet (an ONVIF replay's recording time). Returns how many packets it made (0 for a unit of another
    /// kind than the format's, or one its protection refused).
    @discardableResult
    package mutating func send<Batch: PacketBatch>(
        _ unit: MediaUnit, capturedAt: WallClockTime, headerExtension: RTPHeaderExtension? = nil,
        into batch: inout Batch
    ) -> Int {
        let timestamp = timeline.rising(unit.timestamp)
        var packets = 0
        var sender = self.sender
        var scratch: [UInt8] = []
        swap(&scratch, &self.scratch)
        let protection = self.protection
        packetizer.packetize(unit) { payload, marker, pieceTimestamp in
            let headerExtension = packets == 0 ? headerExtension : nil
            let header = sender.nextHeader(
                marker: marker, timestamp: timestamp &+ (pieceTimestamp &- unit.timestamp), payloadSize: payload.count,
                capturedAt: capturedAt, hasExtension: headerExtension != nil)
            if protection != nil || headerExtension != nil {
                // The packet is made whole first (its protected length is known only then; an extension goes
                // between the header and the payload).
                scratch.removeAll(keepingCapacity: true)
                header.append(to: &scratch)
                headerExtension?.append(to: &scratch)
                scratch.append(contentsOf: payload)
                if let protection {
                    guard let packet = try? protection.protectedRTP(scratch) else { return }
                    batch.append(packet: packet[...])
                } else {
                    batch.append(packet: scratch[...])
                }
            } else {
                batch.append(header: header, payload: payload)
            }
            packets += 1
        }
        swap(&scratch, &self.scratch)
        self.sender = sender
        return packets
    }

    /// A packet with no payload, numbered after the last (a header alone, protected when the track is): what a
    /// client sends first to open a NAT's path for what it receives, as FFmpeg and GStreamer do.
    package mutating func openingPacket(capturedAt: WallClockTime, into batch: inout some PacketBatch) {
        let header = sender.nextHeader(marker: false, timestamp: 0, payloadSize: 0, capturedAt: capturedAt)
        if let protection {
            var packet: [UInt8] = []
            header.append(to: &packet)
            guard let protected = try? protection.protectedRTP(packet) else { return }
            batch.append(packet: protected[...])
        } else {
            batch.append(header: header, payload: [][...])
        }
    }

    /// The track's sender report for `time` with its SDES CNAME (RFC 3550 section 6.1), protected when the track
    /// is: nil before its first packet.
    package func report(at time: WallClockTime, canonicalName: String) -> [UInt8]? {
        guard let report = sender.senderReport(at: time) else { return nil }
        var compound = RTCPCompoundBuilder()
        compound.appendSenderReport(report)
        compound.appendCanonicalName(canonicalName, ssrc: sender.ssrc)
        return protected(compound.bytes)
    }

    /// The track's last report, then an RTCP BYE (the stream ends: players end there), protected when the track is.
    package func goodbye(at time: WallClockTime, reason: String) -> [UInt8]? {
        var compound = RTCPCompoundBuilder()
        if let report = sender.senderReport(at: time) {
            compound.appendSenderReport(report)
        } else {
            compound.appendReceiverReport(RTCPReceiverReport(ssrc: sender.ssrc, reportBlocks: []))
        }
        compound.appendGoodbye(ssrcs: [sender.ssrc], reason: reason)
        return protected(compound.bytes)
    }

    /// Where each track of a PLAY answer starts: the next sequence number and the RTP time of `time`.
    package func position(at time: WallClockTime) -> (sequenceNumber: UInt16, rtpTime: UInt32) {
        (sender.nextSequenceNumber, sender.senderReport(at: time)?.rtpTimestamp ?? sender.rtpTimestamp(0))
    }

    /// An RTCP compound as it is sent: protected when the track is (nil if its protection refuses it).
    package func protected(_ rtcp: [UInt8]) -> [UInt8]? {
        guard let protection else { return rtcp }
        return try? protection.protectedRTCP(rtcp)
    }
}

/// Where an ``OutgoingTrack`` puts the packets it makes: a transport's buffer of them, framed as its edge writes
/// them (interleaved frames in an RTSP connection, datagrams, a WebRTC viewer's). The header and payload are copied
/// in once; a protected packet comes whole.
package protocol PacketBatch {
    /// Appends a packet: `header`'s 12 bytes, then `payload`.
    mutating func append(header: RTPHeaderWords, payload: ArraySlice<UInt8>)
    /// Appends a whole packet (an SRTP one).
    mutating func append(packet: ArraySlice<UInt8>)
}

/// A track's media timestamps made to keep rising: the first unit's is 0 (the RTP time a PLAY answer gives a client
/// that comes before any packet, with the sender's random offset), and a step back of more than ``maxReorder`` (a
/// file played again, a relayed camera that restarted) moves what follows to go on one step after the latest. A
/// smaller step back is B-frames in decoding order, and passes as it is.
struct RisingTimeline {
    /// The largest step back that is reordering: one second of the track's clock.
    let maxReorder: UInt64
    private var shift: UInt64 = 0
    /// The latest timestamp given.
    private var latest: UInt64?
    /// The last step forward (at most 2^20 ticks): how far after the latest a unit that went back is put.
    private var lastStep: UInt64 = 0

    init(clockRate: Int) {
        maxReorder = UInt64(max(1, clockRate))
    }

    mutating func rising(_ timestamp: UInt64) -> UInt64 {
        if latest == nil { shift = 0 &- timestamp }
        var moved = timestamp &+ shift
        if let latest {
            let step = Int64(bitPattern: moved &- latest)
            if step > 0 {
                lastStep = min(UInt64(step), 1 << 20)
            } else if step.magnitude > maxReorder {
                shift = latest &+ max(lastStep, 1) &- timestamp
                moved = timestamp &+ shift
            }
            if Int64(bitPattern: moved &- latest) > 0 { self.latest = moved }
        } else {
            latest = moved
        }
        return moved
    }
}
