import MediaPipeline
import RTSPClient
import PacketCapture
import RTP
import RTSP
import SDP

/// Where the commands read datagrams from: a capture file, or a capture of an RTSP session whose RTP is
/// interleaved in the RTSP connection.
public protocol DatagramSource {
    /// The next datagram, or nil at the end.
    mutating func nextDatagram() throws -> UDPDatagram?
    /// Calls `body` with each datagram in order until the source ends or `body` throws. A source that
    /// receives on a thread of its own (a live session) runs `body` there while the caller waits, so that
    /// no datagram has to cross threads; use ``nextDatagram()`` for work too slow for a receiving thread.
    mutating func forEachDatagram(_ body: (consuming UDPDatagram) throws -> Void) throws
    var warnings: CaptureWarnings { get }
}

extension DatagramSource {
    public mutating func forEachDatagram(_ body: (consuming UDPDatagram) throws -> Void) throws {
        while let datagram = try nextDatagram() { try body(datagram) }
    }
}

extension CaptureFile: DatagramSource {}

/// What a capture of an RTSP session says about it: the SDP of the DESCRIBE answer, and the transports
/// SETUP agreed on.
public struct RTSPSessionInfo: Sendable {
    public var description: SessionDescription?
    /// Interleaved channels that carry RTP (the first of each SETUP's `interleaved=a-b`).
    public var rtpChannels: Set<UInt8> = []
    /// Client ports that receive RTP over UDP (the first of each SETUP's `client_port=a-b`).
    public var clientRTPPorts: Set<UInt16> = []

    /// The video format of the DESCRIBE answer, if it has one.
    public var videoFormat: VideoFormat? { description?.videoFormat() }

    mutating func note(_ message: RTSPMessage) {
        if case .response(200, _) = message.kind, message.body.starts(with: Array("v=".utf8)),
            let sdp = try? SessionDescription(String(decoding: message.body, as: UTF8.self))
        {
            description = sdp
        }
        guard let value = message.header("Transport") else { return }
        let transport = TransportHeader(value)
        if let channels = transport.interleavedChannels { rtpChannels.insert(channels.rtp) }
        if let ports = transport.clientPorts { clientRTPPorts.insert(ports.rtp) }
    }
}

/// The RTSP connections of a capture: TCP reassembled, then split into messages and interleaved frames.
/// A connection that turns out not to be RTSP is dropped, and its later segments are not reassembled (so
/// that an unrelated download in the capture holds no memory).
struct RTSPConnections {
    struct Framed {
        var flow: TCPStreamReassembler.Flow
        var time: ArrivalTime
        var frame: RTSPFramer.Frame
    }

    /// How many connections found not to be RTSP are remembered (so that their later segments are passed
    /// over); past that the memory is cleared, and a forgotten one is found out again at its next bytes.
    static let maxRememberedNotRTSP = 65_536

    private(set) var reassembler = TCPStreamReassembler()
    private var framers: [TCPStreamReassembler.Flow: RTSPFramer] = [:]
    private(set) var notRTSP: Set<TCPStreamReassembler.Flow> = []

    mutating func add(_ segment: TCPSegment) -> [Framed] {
        if !notRTSP.isEmpty, notRTSP.contains(.init(source: segment.source, destination: segment.destination)) {
            return []
        }
        var chunks: [TCPStreamReassembler.Chunk] = []
        reassembler.add(segment) { chunks.append($0) }
        return frames(chunks)
    }

    mutating func finish() -> [Framed] {
        var chunks: [TCPStreamReassembler.Chunk] = []
        reassembler.finish { chunks.append($0) }
        return frames(chunks)
    }

    private mutating func frames(_ chunks: [TCPStreamReassembler.Chunk]) -> [Framed] {
        var out: [Framed] = []
        for chunk in chunks where !notRTSP.contains(chunk.flow) {
            if chunk.missingBefore > 0 {
                framers[chunk.flow] = nil  // a hole: framing cannot be trusted across it; start again
            }
            var framer = framers[chunk.flow] ?? RTSPFramer()
            framers[chunk.flow] = nil
            framer.append(chunk.bytes)
            do {
                while let frame = try framer.next() {
                    out.append(Framed(flow: chunk.flow, time: chunk.time, frame: frame))
                }
                framers[chunk.flow] = framer
            } catch {
                if notRTSP.count >= Self.maxRememberedNotRTSP { notRTSP.removeAll() }
                notRTSP.insert(chunk.flow)
                reassembler.forget(chunk.flow)
            }
        }
        return out
    }
}

/// The datagrams of a capture, read once: its UDP datagrams, and the RTP interleaved in its RTSP connections
/// on the channels that a SETUP seen before agreed on, as datagrams from the server to the client. What the
/// RTSP exchanges say (``session``) is learned as they pass: DESCRIBE and SETUP come before the media they
/// describe, so ``lookAheadForSession()`` reads up to the first media packet and holds what it read.
public struct RTSPSessionDatagrams: DatagramSource {
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
