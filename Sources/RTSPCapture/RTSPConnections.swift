@_spi(SansIO) import PacketCapture
import RTP
@_spi(SansIO) import RTSP

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
