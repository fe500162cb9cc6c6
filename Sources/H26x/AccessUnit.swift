import RTP

/// One coded picture, with its timestamp and what the receiver knows about its integrity: an H.264 or H.265
/// picture's NAL units (``nalUnits``), or a JPEG picture (``jpeg``, from the RFC 2435 depacketizer).
///
/// The NAL units (or the JPEG file) live in one buffer, copied there once from the RTP payloads. The depacketizer
/// reuses
/// that buffer for the next unit when this one has been let go of by then; keeping the value is safe
/// (the next unit then gets a new buffer) but costs that allocation.
public struct AccessUnit: Sendable {
    public let codec: VideoCodec
    /// The RTP timestamp extended to 64 bits (it never wraps), in 90 kHz units.
    public let timestamp: UInt64
    /// The NAL units, in decoding order (none for JPEG).
    public let nalUnits: NALUnits
    /// Whether it holds an IDR (H.264) or IRAP (H.265) picture; every JPEG picture is one.
    public let isKeyframe: Bool
    /// Whether a VPS, SPS or PPS in it is new or differs from the one with its id.
    public let parameterSetsChanged: Bool
    /// RTP packets lost while it was being received (0 when complete). NAL units that lost a fragment are
    /// left out; the others are intact.
    public let lostPackets: Int
    /// The SSRC of the source whose packets it was made from: whose sender reports date it.
    public let ssrc: UInt32
    /// When the sender captured it, on its wall clock (from its RTCP sender reports); nil until the first
    /// report. The depacketizer does not see RTCP: whoever runs it sets this (`RTSPAccessUnits`, `rtpdump`).
    public var captureTime: WallClockTime? = nil
    /// The track (or stream) it belongs to, by index in its source: an RTSP session's set-up tracks, a
    /// `MediaPipeline`'s tracks. 0 for a source of one stream.
    public var track: Int = 0
    /// Whether it is its track's first unit after a break in the stream: a session that reconnected or
    /// resumed, a sender that restarted or changed its SSRC. Its timestamp does not follow the previous
    /// unit's, and until a keyframe it has no pictures to refer to. Set by `MediaPipeline`.
    public var isDiscontinuity = false
    /// Whether its timestamp stepped from its track's previous unit's by more than the pipeline's bound
    /// (`MediaPipeline.timestampJumpBound`, 10 s): a sender whose clock jumped, in an unbroken stream (what came
    /// before is still there to refer to). Its timestamp starts a new run: a recorder goes on from where it was
    /// rather than losing what follows. Set by `MediaPipeline`.
    public var isTimestampJump = false

    /// This access unit with its ``captureTime`` from `clock` (unchanged when there is no clock or no
    /// sender report yet).
    public func captured(by clock: SenderClock?) -> AccessUnit {
        guard let time = clock?.wallClock(rtpTimestamp: timestamp) else { return self }
        var unit = self
        unit.captureTime = time
        return unit
    }

    /// Whether every packet arrived.
    public var isComplete: Bool { lostPackets == 0 }

    /// The RTP timestamp as sent (32 bits).
    public var rtpTimestamp: UInt32 { UInt32(truncatingIfNeeded: timestamp) }

    /// The bytes of all NAL units, without start codes (of a JPEG picture, its file).
    public var payloadSize: Int {
        codec == .jpeg ? nalUnits.storage.count : nalUnits.ranges.reduce(0) { $0 + $1.count }
    }

    /// A JPEG picture's file, from SOI to EOI, as a decoder or an image viewer takes it (nil for H.264 and
    /// H.265).
    public var jpeg: ArraySlice<UInt8>? {
        codec == .jpeg ? nalUnits.storage[...] : nil
    }

    /// The NAL units of an access unit: views into its buffer.
    public struct NALUnits: RandomAccessCollection, Sendable {
        let codec: VideoCodec
        let storage: [UInt8]
        let ranges: [Range<Int>]
        /// Whether `storage` holds the NAL units back to back, each after a 4-byte start code (as the
        /// depacketizer builds it), so that it is already Annex B.
        let startCoded: Bool

        init(codec: VideoCodec, storage: [UInt8], ranges: [Range<Int>], startCoded: Bool = false) {
            self.codec = codec
            self.storage = storage
            self.ranges = ranges
            self.startCoded = startCoded
        }

        /// The NAL units as Annex B (00 00 00 01 before each) without copying them, when the buffer holds
        /// them that way (always, for access units from a depacketizer); nil otherwise.
        public var annexB: ArraySlice<UInt8>? {
            guard startCoded else { return nil }
            guard let first = ranges.first, let last = ranges.last else { return storage[0..<0] }
            guard first.lowerBound >= 4, last.upperBound <= storage.count else { return nil }
            return storage[(first.lowerBound - 4)..<last.upperBound]
        }

        public var startIndex: Int { 0 }
        public var endIndex: Int { ranges.count }
        public subscript(position: Int) -> NALUnit {
            NALUnit(codec: codec, bytes: storage[ranges[position]])
        }
    }
}

extension AccessUnit {
    /// A JPEG picture in `file` (SOI to EOI), complete: as the RFC 2435 depacketizer assembles it, or as an
    /// application that sends Motion JPEG has it (a camera's or an encoder's picture).
    public init(jpeg file: [UInt8], timestamp: UInt64, ssrc: UInt32 = 0) {
        self.init(
            codec: .jpeg, timestamp: timestamp, nalUnits: NALUnits(codec: .jpeg, storage: file, ranges: []),
            isKeyframe: true, parameterSetsChanged: false, lostPackets: 0, ssrc: ssrc)
    }
}

extension AccessUnit {
    /// An access unit an application made (an encoder's output, a file's picture) from its NAL units, each
    /// without a start code, in decoding order. It is a keyframe when one of them is an IDR (H.264) or IRAP
    /// (H.265) slice; `parameterSetsChanged` is false (one unit alone cannot tell); nothing was lost. Empty NAL
    /// units are left out.
    public init(
        codec: VideoCodec, timestamp: UInt64, nalUnits: some Sequence<some Collection<UInt8>>, ssrc: UInt32 = 0
    ) {
        var storage: [UInt8] = []
        var ranges: [Range<Int>] = []
        var isKeyframe = false
        for nal in nalUnits where !nal.isEmpty {
            storage.append(contentsOf: [0, 0, 0, 1])
            let start = storage.count
            storage.append(contentsOf: nal)
            ranges.append(start..<storage.count)
            isKeyframe = isKeyframe || NALUnit(codec: codec, bytes: storage[start...]).isKeyframe
        }
        self.init(
            codec: codec, timestamp: timestamp,
            nalUnits: NALUnits(codec: codec, storage: storage, ranges: ranges, startCoded: true),
            isKeyframe: isKeyframe, parameterSetsChanged: false, lostPackets: 0, ssrc: ssrc)
    }

    /// An access unit from its NAL units in Annex B (each after 00 00 01 or 00 00 00 01), as encoders and
    /// `.h264` / `.h265` files give them.
    public init(codec: VideoCodec, timestamp: UInt64, annexB bytes: some Collection<UInt8>, ssrc: UInt32 = 0) {
        let buffer = Array(bytes)
        self.init(
            codec: codec, timestamp: timestamp, nalUnits: AnnexB.split(buffer[...]).map { buffer[$0] }, ssrc: ssrc)
    }
}

extension AccessUnit: CustomStringConvertible {
    /// One line a person reads: `H.264 picture, track 0, RTP time 3000: keyframe, 3 NAL units, 4012 bytes,
    /// complete, captured 2026-01-01T00:00:00.500000Z`.
    public var description: String {
        var parts = [isKeyframe ? "keyframe" : "not a keyframe"]
        if codec != .jpeg { parts.append("\(nalUnits.count) NAL units") }
        parts.append("\(payloadSize) bytes")
        parts.append(isComplete ? "complete" : "\(lostPackets) packets lost")
        if isDiscontinuity { parts.append("after a break") }
        if isTimestampJump { parts.append("its timestamp jumped") }
        if let captureTime { parts.append("captured \(captureTime)") }
        return "\(codec) picture, track \(track), RTP time \(rtpTimestamp): " + parts.joined(separator: ", ")
    }
}

extension AccessUnit {
    /// The same unit in a buffer of its own, exactly its size: what a unit kept for long costs (a pre-roll of
    /// seconds), where the depacketizer's buffer it came in is sized for the largest unit of the last hundreds.
    /// One copy.
    public func compacted() -> AccessUnit {
        guard nalUnits.storage.capacity > nalUnits.storage.count else { return self }
        var storage: [UInt8] = []
        storage.reserveCapacity(nalUnits.storage.count)
        storage.append(contentsOf: nalUnits.storage)
        var unit = AccessUnit(
            codec: codec, timestamp: timestamp,
            nalUnits: NALUnits(
                codec: codec, storage: storage, ranges: nalUnits.ranges, startCoded: nalUnits.startCoded),
            isKeyframe: isKeyframe, parameterSetsChanged: parameterSetsChanged, lostPackets: lostPackets, ssrc: ssrc)
        unit.captureTime = captureTime
        unit.track = track
        unit.isDiscontinuity = isDiscontinuity
        unit.isTimestampJump = isTimestampJump
        return unit
    }
}
