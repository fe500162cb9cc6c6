@_spi(SansIO) import PacketCapture
@_spi(SansIO) import RTP
@_spi(SansIO) import RTSP

/// The datagrams of a capture, read once: its UDP datagrams, and the RTP interleaved in its RTSP connections
/// on the channels that a SETUP seen before agreed on, as datagrams from the server to the client. What the
/// RTSP exchanges say (``session``) is learned as they pass: DESCRIBE and SETUP come before the media they
/// describe, so ``lookAheadForSession()`` reads up to the first media packet and holds what it read.
public struct RTSPSessionDatagrams: DatagramSource, ReceivedItemSource {
    /// How many datagrams, and how many bytes of them, ``lookAheadForSession()`` holds at most while it
    /// looks for the first media packet (copied out of the read buffers, so that they pin no chunk).
    public static let lookAheadLimit = (datagrams: 1_000, bytes: 1 << 20)

    private var capture: CaptureFile
    private var connections = RTSPConnections()
    private var info = RTSPSessionInfo()
    private var sawRTSP = false
    /// Datagrams made but not yet returned (interleaved frames, and what the look ahead held), from `next`.
    private var pending: [UDPDatagram?] = []
    private var next = 0
    private var finished = false

    public init(capture: CaptureFile) {
        self.capture = capture
    }

    /// What the RTSP exchanges read so far say; nil when none has been read.
    public var session: RTSPSessionInfo? { sawRTSP ? info : nil }

    public var warnings: CaptureWarnings { capture.warnings }

    /// Reads ahead to the first datagram that looks like media (RTP with a dynamic payload type, as H.264
    /// and H.265 always have), or to ``lookAheadLimit``, and returns ``session`` as it is then; the datagrams
    /// read are returned by ``nextDatagram()`` as if nothing had been read.
    public mutating func lookAheadForSession() throws -> RTSPSessionInfo? {
        var held: [UDPDatagram?] = []
        var bytes = 0
        while held.count < Self.lookAheadLimit.datagrams, bytes < Self.lookAheadLimit.bytes,
            let datagram = try nextDatagram()
        {
            let media = Self.looksLikeMedia(datagram.payload)
            bytes += datagram.payload.count
            held.append(datagram.compacted())
            if media { break }
        }
        pending = held + pending[next...]
        next = 0
        return session
    }

    static func looksLikeMedia(_ payload: ArraySlice<UInt8>) -> Bool {
        guard let header = try? RTPFixedHeader(payload) else { return false }
        return header.payloadType >= 96
    }

    public mutating func nextDatagram() throws -> UDPDatagram? {
        while true {
            if next < pending.count {
                next += 1
                if let datagram = pending[next - 1].take() { return datagram }
                continue
            }
            if !pending.isEmpty {
                pending.removeAll(keepingCapacity: true)
                next = 0
            }
            if finished { return nil }
            if let datagram = capture.nextPlainDatagram() { return datagram }  // most records, in one step
            guard let packet = try capture.nextPacket() else {
                finished = true
                take(connections.finish())
                continue
            }
            switch packet {
            case .udp(let datagram): return datagram
            case .tcp(let segment): take(connections.add(segment))
            }
        }
    }

    public mutating func forEachDatagram(_ body: (consuming UDPDatagram) throws -> Void) throws {
        try forEach(body)
    }

    package mutating func forEachItem(_ body: (consuming ReceivedItem) throws -> Void) throws {
        try forEach { datagram in try body(ReceivedItem(consume datagram)) }
    }

    /// The one loop of both: inlined into each, so that an item is made where its datagram is taken.
    @inline(__always)
    private mutating func forEach(_ body: (consuming UDPDatagram) throws -> Void) throws {
        while true {
            // Most records: taken in one step, not through nextDatagram()'s optional result. Only when
            // nothing made earlier (interleaved frames, what the look-ahead held) is waiting: those come first.
            if next >= pending.count, !finished, let datagram = capture.nextPlainDatagram() {
                try body(datagram)
                continue
            }
            guard let datagram = try nextDatagram() else { return }
            try body(datagram)
        }
    }

    private mutating func take(_ frames: [RTSPConnections.Framed]) {
        for framed in frames {
            switch framed.frame {
            case .message(let message):
                sawRTSP = true
                info.note(message)
            case .interleaved(let channel, let payload):
                guard info.rtpChannels.contains(channel) else { continue }
                pending.append(
                    UDPDatagram(
                        recordIndex: -1, time: framed.time, source: framed.flow.source,
                        destination: framed.flow.destination, payload: payload, isTruncated: false))
            }
        }
    }
}

extension UDPDatagram {
    /// The same datagram with its payload in a buffer of its own, which keeps no read buffer alive.
    fileprivate func compacted() -> UDPDatagram {
        UDPDatagram(
            recordIndex: recordIndex, time: time, source: source, destination: destination,
            payload: ArraySlice(Array(payload)), isTruncated: isTruncated)
    }
}
