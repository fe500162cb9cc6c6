import SDP

/// The RIFF/WAVE header of a file of G.711 or 16-bit PCM, as players open it: µ-law and A-law as they come
/// (format tags 7 and 6, 8 bits a sample), linear PCM 16-bit little-endian (tag 1).
public enum WAVHeader {
    /// What a WAV file holds.
    public enum Encoding: Sendable, Hashable {
        case muLaw, aLaw, pcm16
    }

    /// The encoding a G.711 or L16 format is written in (L16 after swapping each sample to little-endian);
    /// nil for the others.
    public static func encoding(for codec: AudioCodec) -> Encoding? {
        switch codec {
        case .pcmu: .muLaw
        case .pcma: .aLaw
        case .l16: .pcm16
        default: nil
        }
    }

    /// The header for `dataBytes` bytes of samples (written again with the final count once they are all
    /// written; 0 while the count is not known). 58 bytes for G.711 (with a `fact` chunk), 44 for PCM.
    public static func bytes(encoding: Encoding, sampleRate: Int, channels: Int, dataBytes: Int) -> [UInt8] {
        let bytesPerSample = encoding == .pcm16 ? 2 : 1
        let blockAlign = bytesPerSample * channels
        let data = UInt32(clamping: dataBytes)
        let tag: UInt16 = encoding == .pcm16 ? 1 : encoding == .muLaw ? 7 : 6
        var format = le16(tag) + le16(UInt16(clamping: channels)) + le32(UInt32(clamping: sampleRate))
        format += le32(UInt32(clamping: sampleRate * blockAlign)) + le16(UInt16(clamping: blockAlign))
        format += le16(UInt16(bytesPerSample * 8))
        var chunks = Array("fmt ".utf8)
        if encoding == .pcm16 {
            chunks += le32(16) + format
        } else {
            // Non-PCM formats carry cbSize and a fact chunk with the number of samples.
            chunks += le32(18) + format + le16(0)
            chunks += Array("fact".utf8) + le32(4) + le32(data / UInt32(max(1, blockAlign)))
        }
        chunks += Array("data".utf8) + le32(data)
        let riffSize = UInt32(4 + chunks.count) &+ data
        return Array("RIFF".utf8) + le32(riffSize) + Array("WAVE".utf8) + chunks
    }

    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> ($0 * 8)) & 0xFF) } }
}
