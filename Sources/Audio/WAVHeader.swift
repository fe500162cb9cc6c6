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

extension WAVHeader {
    /// What a WAV file's header says: its encoding, rate and channels, and where its samples are.
    public struct Contents: Sendable, Hashable {
        public var encoding: Encoding
        public var sampleRate: Int
        public var channels: Int
        /// The samples' bytes in the file (the `data` chunk, cut to the file's end).
        public var data: Range<Int>
    }

    /// Reads the header of a WAV file of 16-bit PCM, µ-law or A-law (the chunks before `data`, at most 64 of
    /// them). Throws ``AudioError`` saying what is not there or not taken (another format, 8-bit or 24-bit PCM).
    public static func read(_ file: [UInt8]) throws(AudioError) -> Contents {
        func u32(_ at: Int) -> Int {
            Int(file[at]) | Int(file[at + 1]) << 8 | Int(file[at + 2]) << 16 | Int(file[at + 3]) << 24
        }
        func u16(_ at: Int) -> Int { Int(file[at]) | Int(file[at + 1]) << 8 }
        guard file.count >= 12, file[0..<4].elementsEqual("RIFF".utf8), file[8..<12].elementsEqual("WAVE".utf8) else {
            throw AudioError("not a WAV file (no RIFF/WAVE header)")
        }
        var offset = 12
        var format: (tag: Int, channels: Int, rate: Int, bits: Int)?
        for _ in 0..<64 {
            guard offset + 8 <= file.count else { break }
            let size = u32(offset + 4)
            let body = offset + 8
            if file[offset..<offset + 4].elementsEqual("fmt ".utf8) {
                guard size >= 16, body + 16 <= file.count else {
                    throw AudioError("the WAV file's fmt chunk is cut short")
                }
                format = (u16(body), u16(body + 2), u32(body + 4), u16(body + 14))
            } else if file[offset..<offset + 4].elementsEqual("data".utf8) {
                guard let format else { throw AudioError("the WAV file has no fmt chunk before its data") }
                let encoding: Encoding
                switch (format.tag, format.bits) {
                case (1, 16), (0xFFFE, 16): encoding = .pcm16
                case (7, 8): encoding = .muLaw
                case (6, 8): encoding = .aLaw
                default:
                    throw AudioError(
                        "the WAV file holds format \(format.tag) at \(format.bits) bits a sample: 16-bit PCM, µ-law or "
                            + "A-law are taken (ffmpeg -i IN -c:a pcm_s16le OUT.wav converts)")
                }
                guard (1...8).contains(format.channels), (1...384_000).contains(format.rate) else {
                    throw AudioError("the WAV file says \(format.channels) channels at \(format.rate) Hz")
                }
                return Contents(
                    encoding: encoding, sampleRate: format.rate, channels: format.channels,
                    data: body..<min(file.count, body + size))
            }
            offset = body + size + (size & 1)
        }
        throw AudioError("the WAV file has no data chunk")
    }
}
