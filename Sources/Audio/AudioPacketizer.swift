import RTP
import SDP

/// Puts audio frames into RTP payloads: the inverse of ``AudioDepacketizer``.
///
/// - AAC (RFC 3640 `mpeg4-generic`): one access unit per payload behind its AU header (the format's
///   `sizelength` and `indexlength`, AAC-hbr's 13 and 3 by default); a unit larger than a payload is sent in
///   fragments that each carry the whole unit's size, the marker bit on the last (RFC 3640 section 3.2.3).
/// - G.711, L16, G.722 and G.726: the frame's bytes; a frame larger than a payload is cut at whole samples
///   (code words), each piece at its own timestamp.
/// - Opus (RFC 7587): one packet per payload, as it is.
///
/// `MP4A-LATM` is not packetized (``init(format:maxPayloadSize:)`` throws): serve AAC as `mpeg4-generic`.
/// The payloads are written into one reused buffer: nothing is allocated per frame in steady state.
public struct AudioPacketizer: Sendable {
    public let format: AudioFormat
    /// The largest payload it makes, in bytes.
    public let maxPayloadSize: Int
    private var payload: [UInt8] = []
    /// Bytes per sample (all channels) of the codecs cut at sample boundaries; 0 for the others.
    private let bytesPerStep: (bytes: Int, samples: Int)

    /// The smallest ``maxPayloadSize`` accepted.
    public static let minPayloadSize = 64

    /// A packetizer for `format`. Throws for a format it cannot send: LATM, and AAC with AU-header fields
    /// other than the size and the index.
    public init(format: AudioFormat, maxPayloadSize: Int = RTPSender.defaultMaxPayloadSize) throws(AudioError) {
        self.format = format
        self.maxPayloadSize = max(maxPayloadSize, Self.minPayloadSize)
        switch format.codec {
        case .aacLATM:
            throw AudioError("MP4A-LATM is not packetized: send AAC as mpeg4-generic (RFC 3640)")
        case .aac:
            guard format.ctsDeltaLength == 0, format.dtsDeltaLength == 0, !format.randomAccessIndication,
                format.streamStateIndication == 0, format.auxiliaryDataSizeLength == 0, format.constantSize == nil,
                (1...16).contains(format.sizeLength), format.sizeLength + format.indexLength <= 32
            else {
                throw AudioError(
                    "AAC is packetized with AU headers of a size and an index only (sizelength 1-16): use AAC-hbr's")
            }
            bytesPerStep = (0, 0)
        case .pcmu, .pcma, .g722: bytesPerStep = (max(1, format.channels), 1)
        case .l16: bytesPerStep = (2 * max(1, format.channels), 1)
        // Eight code words fill a whole number of bytes in either bit order.
        case .g726: bytesPerStep = (max(1, format.bitsPerSample), 8)
        case .opus: bytesPerStep = (0, 0)
        }
        payload.reserveCapacity(self.maxPayloadSize)
    }

    /// Calls `emit` with each payload of `frame`, its marker bit, and how many ticks of the RTP clock after the
    /// frame's timestamp it starts (not 0 only for a G.711, L16, G.722 or G.726 frame cut in pieces).
    public mutating func packetize<E: Error>(
        _ frame: AudioFrame,
        _ emit: (_ payload: ArraySlice<UInt8>, _ marker: Bool, _ timestampOffset: Int) throws(E) -> Void
    ) throws(E) {
        let bytes = frame.bytes
        guard !bytes.isEmpty else { return }
        switch format.codec {
        case .aac: try packetizeAAC(bytes, emit)
        case .opus, .aacLATM: try emit(bytes, false, 0)
        case .pcmu, .pcma, .l16, .g722, .g726:
            let step = bytesPerStep.bytes
            let piece = max(step, maxPayloadSize / step * step)
            // Ticks per byte: the clock's samples per step (G.722's 16 kHz samples are 8 kHz ticks, a byte each).
            var offset = bytes.startIndex
            while offset < bytes.endIndex {
                let end = min(offset + piece, bytes.endIndex)
                let ticks = (offset - bytes.startIndex) / step * bytesPerStep.samples
                try emit(bytes[offset..<end], false, ticks)
                offset = end
            }
        }
    }

    private mutating func packetizeAAC<E: Error>(
        _ unit: ArraySlice<UInt8>, _ emit: (ArraySlice<UInt8>, Bool, Int) throws(E) -> Void
    ) throws(E) {
        let headerBits = format.sizeLength + format.indexLength
        let headerBytes = (headerBits + 7) / 8
        // The size field cannot say more than it has bits for: a larger unit is not sent.
        guard unit.count < 1 << format.sizeLength else { return }
        let room = maxPayloadSize - 2 - headerBytes
        var offset = unit.startIndex
        while offset < unit.endIndex {
            let end = min(offset + room, unit.endIndex)
            payload.removeAll(keepingCapacity: true)
            payload.append(UInt8(headerBits >> 8))
            payload.append(UInt8(headerBits & 0xFF))
            // size, then index 0, left-aligned in the header's bytes
            let header = UInt64(unit.count) << (UInt64(headerBytes * 8 - format.sizeLength))
            for index in (0..<headerBytes).reversed() {
                payload.append(UInt8(truncatingIfNeeded: header >> (index * 8)))
            }
            payload.append(contentsOf: unit[offset..<end])
            try emit(payload[...], end == unit.endIndex, 0)
            offset = end
        }
    }
}
