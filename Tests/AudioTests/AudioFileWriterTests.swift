import Audio
import Testing

/// The writers' limits; their output is judged whole by FFmpeg in `AudioFileTests` (RTPDumpCoreTests).
@Suite struct AudioFileWriterTests {
    /// A configuration written as an fmtp's `config` reads back the same, in lowercase hex whatever it was read from.
    @Test func aConfigurationWritesTheHexItIsReadFrom() throws {
        #expect(try AudioSpecificConfig(hex: "1190").hex == "1190")
        #expect(try AudioSpecificConfig(hex: "121056E500").hex == "121056e500")
        #expect(try AudioSpecificConfig([0x14, 0x08]).hex == "1408")
    }

    /// ADTS carries frames up to 8 KiB less its header, AAC Main/LC/SSR/LTP, and the table's sampling rates.
    @Test func adtsSaysWhatItCannotCarry() throws {
        let lc = try AudioSpecificConfig(hex: "1190")  // AAC LC, 48 kHz, stereo
        #expect(ADTS.header(for: lc, frameSize: 8184)?.count == 7)
        #expect(ADTS.header(for: lc, frameSize: 8185) == nil)
        let header = try #require(ADTS.header(for: lc, frameSize: 100))
        #expect(header[0] == 0xFF && header[1] == 0xF1)
        #expect(Int(header[3] & 3) << 11 | Int(header[4]) << 3 | Int(header[5] >> 5) == 107)  // the frame's length
        var eld = lc
        eld.objectType = 39  // AAC-ELD: no ADTS profile for it
        #expect(!ADTS.canWrite(eld) && ADTS.header(for: eld, frameSize: 100) == nil)
        var explicitRate = lc
        explicitRate.samplingFrequencyIndex = 15  // a rate written out, not in the table
        #expect(!ADTS.canWrite(explicitRate))
    }

    /// WAV headers: 44 bytes for PCM, 58 for G.711 (its fact chunk), sizes that add up.
    @Test func wavHeadersAddUp() {
        let pcm = WAVHeader.bytes(encoding: .pcm16, sampleRate: 16000, channels: 2, dataBytes: 6400)
        #expect(pcm.count == 44)
        #expect(Array(pcm[0..<4]) == Array("RIFF".utf8) && Array(pcm[36..<40]) == Array("data".utf8))
        #expect(Self.le32(pcm, 4) == 36 + 6400 && Self.le32(pcm, 40) == 6400)
        #expect(Self.le32(pcm, 28) == 64000)  // bytes per second
        let mulaw = WAVHeader.bytes(encoding: .muLaw, sampleRate: 8000, channels: 1, dataBytes: 800)
        #expect(mulaw.count == 58)
        #expect(mulaw[20] == 7)  // format tag: µ-law
        #expect(Self.le32(mulaw, 46) == 800)  // fact: samples
        #expect(Self.le32(mulaw, 4) == UInt32(mulaw.count - 8 + 800))
        #expect(WAVHeader.encoding(for: .aac) == nil && WAVHeader.encoding(for: .pcma) == .aLaw)
    }

    /// Ogg pages: the checksum of each page is Ogg's CRC (recomputed over the page with the field zeroed),
    /// a packet of 255 bytes takes two lacing values (255, 0), the last page ends the stream.
    @Test func oggPagesAreChecksummedAndLaced() {
        var writer = OggOpusWriter(channels: 2)
        var out = writer.headers()
        writer.write(ArraySlice(repeating: 7, count: 255), endingAt: 960, into: &out)
        writer.write(ArraySlice(repeating: 9, count: 10), endingAt: 1920, into: &out)
        writer.finish(into: &out)
        var pages: [[UInt8]] = []
        var position = 0
        while position + 27 <= out.count {
            let segments = Int(out[position + 26])
            let size = out[(position + 27)..<(position + 27 + segments)].reduce(0) { $0 + Int($1) }
            pages.append(Array(out[position..<(position + 27 + segments + size)]))
            position += 27 + segments + size
        }
        #expect(position == out.count && pages.count == 4)
        for page in pages {
            var zeroed = page
            zeroed.replaceSubrange(22..<26, with: [0, 0, 0, 0])
            #expect(Self.le32(page, 22) == Self.crc(zeroed))
        }
        #expect(pages[2][26] == 2 && pages[2][27] == 255 && pages[2][28] == 0)
        #expect(pages[0][5] == 0x02 && pages[3][5] == 0x04)  // beginning, end of stream
        #expect(Self.le32(pages[3], 6) == 1920)  // granule
    }

    static func le32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << ($1 * 8) }
    }

    /// Ogg's CRC-32 bit by bit (polynomial 0x04C11DB7, not reflected, from 0), apart from the writer's table.
    static func crc(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0
        for byte in bytes {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? crc << 1 ^ 0x04C1_1DB7 : crc << 1 }
        }
        return crc
    }
}
