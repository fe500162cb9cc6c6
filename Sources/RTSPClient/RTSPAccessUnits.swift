import H26x
import RTSP
import RTP
import VideoDecoding

/// The access units of one track of a session: its packets through a reorder buffer and the
/// depacketizer its SDP format calls for (parameter sets, packetization mode, de-interleaving). Loss is
/// reported in each unit's ``AccessUnit/lostPackets``; nothing is spliced. Iterate once.
public struct RTSPAccessUnits: AsyncSequence, Sendable {
    public typealias Element = AccessUnit

    let packets: RTSPPackets
    let track: Int
    let depacketizer: VideoDepacketizer
    let reorder: ReorderBuffer.Configuration

    public struct AsyncIterator: AsyncIteratorProtocol {
        var source: RTSPPackets.AsyncIterator
        let track: Int
        var buffer: ReorderBuffer
        var depacketizer: VideoDepacketizer
        /// Units completed and not yet returned.
        var ready = ReadyQueue<AccessUnit>()
        var finished = false

        public mutating func next() async throws -> AccessUnit? {
            while true {
                if let unit = ready.take() { return unit.captured(by: source.clock(track: track)) }
                if finished { return nil }
                let received = try await source.next()
                var queue = ready
                ready = ReadyQueue()
                queue.refill { out in
                    if let received {
                        guard received.track == track else { return }
                        if received.isDiscontinuity {
                            // After a pause: what was held ends here, and the numbering starts again.
                            while let output = buffer.flush() { depacketizer.consume(output) { out.append($0) } }
                            depacketizer.flush { out.append($0) }
                            buffer = ReorderBuffer(configuration: buffer.configuration)
                        }
                        buffer.insert(received.packet, arrival: received.arrival)
                        while let output = buffer.next(now: received.arrival) {
                            depacketizer.consume(output) { out.append($0) }
                        }
                    } else {
                        finished = true
                        while let output = buffer.flush() { depacketizer.consume(output) { out.append($0) } }
                        depacketizer.flush { out.append($0) }
                    }
                }
                ready = queue
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            source: packets.makeAsyncIterator(), track: track, buffer: ReorderBuffer(configuration: reorder),
            depacketizer: depacketizer)
    }

    /// Decoded frames of these access units, in presentation order, through `decoder` (for example an
    /// `FFmpegVideoDecoder`). The decoder is given the track's parameter sets from the SDP before the first
    /// unit (many cameras send them nowhere else). Frames after a loss come out flagged until the next
    /// keyframe.
    public func frames<Decoder: VideoDecoder>(decoder: Decoder) -> RTSPDecodedFrames<Decoder> {
        RTSPDecodedFrames(units: self, decoder: decoder)
    }
}

/// Frames decoded from an ``RTSPAccessUnits`` sequence. Iterate once.
public struct RTSPDecodedFrames<Decoder: VideoDecoder>: AsyncSequence {
    public typealias Element = I420Frame

    let units: RTSPAccessUnits
    let decoder: Decoder

    public struct AsyncIterator: AsyncIteratorProtocol {
        var units: RTSPAccessUnits.AsyncIterator
        var decoder: Decoder
        var ready = ReadyQueue<I420Frame>()
        var drained = false
        /// The SDP's parameter sets, until they are given to the decoder (before the first unit).
        var sdpParameterSets: ParameterSets?

        public mutating func next() async throws -> I420Frame? {
            if let sets = sdpParameterSets {
                sdpParameterSets = nil
                if !sets.isEmpty { try decoder.configure(parameterSets: sets) }
            }
            while true {
                if var frame = ready.take() {
                    frame.captureTime = units.source.clock(track: units.track)?.wallClock(rtpTimestamp: frame.timestamp)
                    return frame
                }
                if drained { return nil }
                let unit = try await units.next()
                var queue = ready
                ready = ReadyQueue()
                try queue.refill { out in
                    if let unit {
                        try decoder.decode(unit) { out.append($0) }
                    } else {
                        drained = true
                        try decoder.drain { out.append($0) }
                    }
                }
                ready = queue
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            units: units.makeAsyncIterator(), decoder: decoder, sdpParameterSets: units.depacketizer.parameterSets)
    }
}

extension RTSPSession {
    /// The access units of `track` (default: the first video track), from ``packets``. Parameter sets in
    /// the track's SDP that are not valid are left out; the stream's in-band sets serve instead.
    ///
    /// - Throws: ``RTSPClientError`` `.invalidCall` when `track` is not the index of a track set up.
    public func accessUnits(track: Int = 0, reorder: ReorderBuffer.Configuration = .init()) throws -> RTSPAccessUnits {
        guard tracks.indices.contains(track) else {
            throw RTSPClientError(
                .invalidCall, "track \(track) was not set up: the session has tracks 0 to \(tracks.count - 1)")
        }
        return RTSPAccessUnits(
            packets: packets, track: track, depacketizer: SDPVideo.depacketizer(for: tracks[track].format),
            reorder: reorder)
    }
}
