import RTP
import SDP

/// Takes an audio track's RTP packets apart into the frames the sender coded, sans I/O and pull-based as
/// the video depacketizers are: push a packet (in sequence order: behind a `ReorderBuffer`), note a loss
/// or a break, then take the frames it completed.
///
/// ```swift
/// var depacketizer = try AudioDepacketizer(format: format)   // from the SDP: MediaDescription.audioFormat
/// depacketizer.push(packet)
/// while let frame = depacketizer.nextFrame() { print(frame.timestamp, frame.bytes.count) }
/// ```
///
/// - G.711 (PCMU, PCMA), L16, G.722 and G.726: each packet's payload is a frame (``AudioFrame/sampleCount``
///   at the format's ``AudioFormat/sampleRate``: G.722's 16 kHz).
/// - AAC, RFC 3640 (`mpeg4-generic`): AU headers as the fmtp describes them (AAC-hbr, AAC-lbr, constant
///   sizes), several access units per packet, an access unit fragmented over packets, interleaving
///   (restored by timestamp).
/// - AAC, RFC 6416 (`MP4A-LATM`): AudioMuxElements, with the StreamMuxConfig in the fmtp (`cpresent=0`) or
///   in band, several per packet or one over several packets.
/// - Opus (RFC 7587): each packet is a frame; its duration from its TOC byte.
///
/// A frame that lost a piece is left out, never spliced; the loss is counted on the next frame
/// (``AudioFrame/lostPacketsBefore``). In steady state frames are views into their packets: nothing is
/// copied or allocated per packet (an AAC unit fragmented over packets, and LATM in band, are copied once).
public struct AudioDepacketizer: Sendable {
    public let format: AudioFormat
    /// AAC's decoder configuration: the fmtp's `config`, or a LATM stream's in-band one once it has come.
    public internal(set) var audioSpecificConfig: AudioSpecificConfig?
    public internal(set) var statistics = AudioDepacketizerStatistics()

    var timestamps = TimestampExtender()
    /// Packets lost since the last frame: charged to the next one.
    var pendingLoss = 0
    /// Frames completed, and how many of them were taken.
    var completed: [AudioFrame] = []
    var taken = 0
    /// AAC (RFC 3640): an access unit fragmented over packets being put together.
    var fragment: (timestamp: UInt64, size: Int, bytes: [UInt8])?
    /// The timestamp of a fragmented unit left out for loss: its later pieces are passed over, not counted again.
    var droppedFragment: UInt64?
    /// AAC (RFC 3640) with interleaving: frames held until their turn, by timestamp.
    var interleaved: [AudioFrame] = []
    var nextInterleavedTimestamp: UInt64?
    var interleaving = false
    /// The AU headers of the packet being read: one buffer for every packet, so that none is allocated.
    var auHeaderBuffer: [AUHeader] = []
    /// LATM: the payloads of an AudioMuxElement spread over packets (same timestamp, no marker yet).
    var latmPieces: (timestamp: UInt64, bytes: [UInt8])?
    var muxConfig: StreamMuxConfig?
    /// The track's ticks per AAC frame (the frame length at the RTP clock).
    var aacFrameTicks = 1024

    /// The largest frame taken: an AAC access unit is at most 6144 bits per channel; this leaves room.
    public static let maxFrameSize = 1 << 20
    /// Frames held for de-interleaving at most.
    public static let maxInterleaved = 64

    /// A depacketizer for `format`.
    /// - Throws: ``AudioError`` when an AAC format's configuration cannot be read (`mpeg4-generic` needs its
    ///   `config`; `MP4A-LATM` with `cpresent=0` its StreamMuxConfig).
    public init(format: AudioFormat) throws(AudioError) {
        self.format = format
        try Self.checkLimits(of: format)
        switch format.codec {
        case .aac:
            guard let config = format.config else {
                throw AudioError("the mpeg4-generic format gives no config: its AudioSpecificConfig is needed")
            }
            audioSpecificConfig = try AudioSpecificConfig(hex: config)
        case .aacLATM:
            if let config = format.config {
                let mux = try StreamMuxConfig(hex: config)
                muxConfig = mux
                audioSpecificConfig = mux.audio
            } else if !format.muxConfigPresent {
                throw AudioError(
                    "the MP4A-LATM format says cpresent=0 and gives no config: nothing says how to decode it")
            }
        case .g726:
            guard (2...5).contains(format.bitsPerSample) else {
                throw AudioError(
                    "G.726 needs 2 to 5 bits a sample (G726-16 to G726-40), not \(format.bitsPerSample)")
            }
        case .pcmu, .pcma, .l16, .opus, .g722:
            break
        }
        updateFrameTicks()
        completed.reserveCapacity(8)
    }

    /// Refuses a format whose numbers are past what the SDP parser would take (``RTPMap/clockRates``, and
    /// `constantSize` and `constantDuration` as ``AudioFormat`` bounds them), as a format made by hand may be.
    static func checkLimits(of format: AudioFormat) throws(AudioError) {
        guard RTPMap.clockRates.contains(format.clockRate) else {
            throw AudioError(
                "the clock rate \(format.clockRate) is outside \(RTPMap.clockRates.lowerBound)...\(RTPMap.clockRates.upperBound) Hz"
            )
        }
        guard (1...255).contains(format.channels) else {
            throw AudioError("\(format.channels) channels is outside 1...255")
        }
        if let size = format.constantSize, !(1...maxFrameSize).contains(size) {
            throw AudioError("constantSize \(size) is outside 1...\(maxFrameSize) bytes")
        }
        if let duration = format.constantDuration, !(1...(1 << 24)).contains(duration) {
            throw AudioError("constantDuration \(duration) is outside 1...\(1 << 24) ticks")
        }
    }

    mutating func updateFrameTicks() {
        guard let config = audioSpecificConfig, config.samplingRate > 0 else { return }
        // At most 1024 × 10^7 ticks (the clock rate is bounded), however small an explicit sampling rate.
        let ticks = Int(
            (Int64(config.frameLength) * Int64(format.clockRate) + Int64(config.samplingRate) / 2)
                / Int64(config.samplingRate))
        aacFrameTicks = format.constantDuration ?? max(1, ticks)
    }

    /// Takes the next packet in sequence order.
    public mutating func push(_ packet: RTPPacket) {
        guard packet.payloadType == format.payloadType else { return statistics.otherPayloadTypePackets += 1 }
        let timestamp = timestamps.extend(packet.timestamp)
        switch format.codec {
        case .pcmu, .pcma, .l16, .g722, .g726: pcm(packet, timestamp: timestamp)
        case .opus: opus(packet, timestamp: timestamp)
        case .aac: aac(packet, timestamp: timestamp)
        case .aacLATM: latm(packet, timestamp: timestamp)
        }
    }

    /// `count` packets before the next one were lost: what was being put together is left out.
    public mutating func noteLoss(_ count: Int) {
        guard count > 0 else { return }
        pendingLoss += count
        dropPartial()
    }

    /// Ends the stream: frames held for de-interleaving are released; a frame still incomplete is left out.
    public mutating func flush() {
        dropPartial()
        releaseInterleaved(all: true)
    }

    /// Ends the stream where it broke (a reconnect, a new source): as ``flush()``, and the timestamps start
    /// again with the next packet.
    public mutating func cutOff() {
        flush()
        timestamps = TimestampExtender()
        nextInterleavedTimestamp = nil
    }

    /// Takes what a `ReorderBuffer` released: a packet is pushed, a loss noted, a discontinuity cuts off.
    public mutating func consume(_ output: consuming ReorderBuffer.Output) {
        switch consume output {
        case .packet(let packet, _): push(packet)
        case .loss(let loss): noteLoss(loss.count)
        case .discontinuity: cutOff()
        }
    }

    /// The oldest frame completed and not yet taken; nil until the next push, loss or flush.
    public mutating func nextFrame() -> AudioFrame? {
        guard taken < completed.count else { return nil }
        let frame = completed[taken]
        taken += 1
        if taken == completed.count {
            completed.removeAll(keepingCapacity: true)
            taken = 0
        }
        return frame
    }

    /// A frame of the stream: charged with the loss since the last one, and handed on (or held for
    /// de-interleaving).
    mutating func emit(timestamp: UInt64, samples: Int, bytes: ArraySlice<UInt8>, ssrc: UInt32) {
        guard bytes.count <= Self.maxFrameSize else { return statistics.droppedFrames += 1 }
        let frame = AudioFrame(
            codec: format.codec, timestamp: timestamp, clockRate: format.clockRate, sampleCount: samples,
            bytes: bytes, ssrc: ssrc, lostPacketsBefore: pendingLoss)
        pendingLoss = 0
        if interleaving { return holdInterleaved(frame) }
        completed.append(frame)
    }

    mutating func dropPartial() {
        if fragment != nil || latmPieces != nil { statistics.droppedFrames += 1 }
        droppedFragment = fragment?.timestamp ?? latmPieces?.timestamp
        fragment = nil
        latmPieces = nil
    }

    // MARK: G.711, L16, Opus: a packet is a frame

    /// A payload of samples (G.711, L16) or code words (G.722, G.726), whole: the frame is the payload.
    mutating func pcm(_ packet: RTPPacket, timestamp: UInt64) {
        let payload = packet.payload
        guard !payload.isEmpty else { return statistics.malformedPackets += 1 }
        let channels = max(1, format.channels)
        let samples =
            switch format.codec {
            case .l16: payload.count / (2 * channels)
            // Two 4-bit code words a byte at 16 kHz (RFC 3551 4.5.2): a byte is one tick of the 8000 Hz clock.
            case .g722: payload.count * 2 / channels
            case .g726: payload.count * 8 / (format.bitsPerSample * channels)
            default: payload.count / channels
            }
        emit(timestamp: timestamp, samples: samples, bytes: payload, ssrc: packet.ssrc)
    }

    mutating func opus(_ packet: RTPPacket, timestamp: UInt64) {
        let payload = packet.payload
        guard let samples = Self.opusSamples(payload) else { return statistics.malformedPackets += 1 }
        emit(timestamp: timestamp, samples: samples, bytes: payload, ssrc: packet.ssrc)
    }

    /// Samples (at 48 kHz) of an Opus packet, from its TOC byte (RFC 6716 section 3.1); nil for a packet
    /// that is not one (empty, or a frame count that is missing or 0).
    static func opusSamples(_ packet: ArraySlice<UInt8>) -> Int? {
        guard let toc = packet.first else { return nil }
        let config = Int(toc >> 3)
        // Frame durations in units of 2.5 ms: SILK (0-11), Hybrid (12-15), CELT (16-31).
        let units: Int
        switch config {
        case 0...11: units = [4, 8, 16, 24][config % 4]
        case 12...15: units = [4, 8][config % 2]
        default: units = [1, 2, 4, 8][config % 4]
        }
        let frames: Int
        switch toc & 3 {
        case 0: frames = 1
        case 1, 2: frames = 2
        default:
            guard packet.count > 1 else { return nil }
            frames = Int(packet[packet.startIndex + 1] & 0x3F)
        }
        guard frames > 0, frames * units <= 48 else { return nil }  // at most 120 ms (RFC 6716 section 3.2.5)
        return frames * units * 120
    }
}
