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
    /// The sender clock of each SSRC, for a source that reads the RTCP itself rather than passing its
    /// sender reports on as datagrams (a live session); nil for the others.
    var senderClocks: (@Sendable (UInt32) -> SenderClock?)? { get }
}

extension DatagramSource {
    public var senderClocks: (@Sendable (UInt32) -> SenderClock?)? { nil }

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
    public var videoFormat: VideoFormat? { description.flatMap { SDPVideo.videoFormat(in: $0) } }

    /// Reads the RTSP exchanges at the start of a capture (TCP, any port): DESCRIBE and SETUP come before
    /// the media, so the first `maxRecords` records are enough: of a large capture, only its start is read
    /// twice (here, then by the read of the media).
    /// Nil when there are none.
    public static func scan(_ capture: inout CaptureFile, maxRecords: Int = 20_000) throws -> RTSPSessionInfo? {
        var info = RTSPSessionInfo()
        var found = false
        var source = RTSPConnections()
        var records = 0
        while records < maxRecords {
            records += 1
            if capture.skipPlainDatagram() { continue }  // most records: UDP, read no further
            guard let packet = try capture.nextPacket() else { break }
            guard case .tcp(let segment) = packet else { continue }
            for frame in source.add(segment) {
                guard case .message(let message) = frame.frame else { continue }
                found = true
                info.note(message)
            }
        }
        for frame in source.finish() {
            if case .message(let message) = frame.frame { info.note(message) }
        }
        return found ? info : nil
    }

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
/// A connection that turns out not to be RTSP is dropped.
struct RTSPConnections {
    struct Framed {
        var flow: TCPStreamReassembler.Flow
        var time: ArrivalTime
        var frame: RTSPFramer.Frame
    }

    private var reassembler = TCPStreamReassembler()
    private var framers: [TCPStreamReassembler.Flow: RTSPFramer] = [:]
    private var notRTSP: Set<TCPStreamReassembler.Flow> = []

    mutating func add(_ segment: TCPSegment) -> [Framed] {
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
                notRTSP.insert(chunk.flow)
            }
        }
        return out
    }
}

/// The datagrams of a capture of an RTSP session: its UDP datagrams, plus the RTP frames interleaved in
/// its RTSP connections (on the channels SETUP agreed), as datagrams from the server to the client.
public struct RTSPSessionDatagrams: DatagramSource {
    private var capture: CaptureFile
    private var connections = RTSPConnections()
    private let channels: Set<UInt8>
    private var pending: [UDPDatagram] = []
    private var next = 0
    private var finished = false

    public init(capture: CaptureFile, info: RTSPSessionInfo) {
        self.capture = capture
        self.channels = info.rtpChannels
    }

    public var warnings: CaptureWarnings { capture.warnings }

    public mutating func nextDatagram() throws -> UDPDatagram? {
        while true {
            if next < pending.count {
                next += 1
                return pending[next - 1]
            }
            pending.removeAll(keepingCapacity: true)
            next = 0
            if finished { return nil }
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

    private mutating func take(_ frames: [RTSPConnections.Framed]) {
        for framed in frames {
            guard case .interleaved(let channel, let payload) = framed.frame, channels.contains(channel) else {
                continue
            }
            pending.append(
                UDPDatagram(
                    recordIndex: -1, time: framed.time, source: framed.flow.source,
                    destination: framed.flow.destination,
                    payload: payload, isTruncated: false))
        }
    }
}
