/// LATM's StreamMuxConfig (ISO/IEC 14496-3 section 1.7.3), as RFC 6416 carries it: in the fmtp's `config`
/// (hex) or at the start of an AudioMuxElement. Taken: audioMuxVersion 0, one program of one layer, frames
/// of variable length (frameLengthType 0): what senders of RTP write.
package struct StreamMuxConfig: Sendable, Hashable {
    /// The layer's AudioSpecificConfig.
    package var audio: AudioSpecificConfig
    /// AudioMuxElements hold this many frames each (numSubFrames + 1).
    package var framesPerElement: Int
    /// Bits of other data at the end of each AudioMuxElement (0: none).
    var otherDataBits: Int
    var hasCRC: Bool

    /// Other data an element may carry at most: as much as the largest frame a depacketizer takes.
    static let maxOtherDataBits = AudioDepacketizer.maxFrameSize * 8

    package init(hex: String) throws(AudioError) {
        let bytes = try AudioSpecificConfig.bytes(hex: hex, naming: "the LATM config")
        var reader = BitReader(bytes[...])
        try self.init(reading: &reader)
    }

    init(reading reader: inout BitReader) throws(AudioError) {
        let version = reader.read(1)
        guard version == 0 else { throw AudioError("LATM audioMuxVersion 1 is not supported (only 0 is)") }
        _ = reader.read(1)  // allStreamsSameTimeFraming
        framesPerElement = Int(reader.read(6)) + 1
        let programs = reader.read(4) + 1
        let layers = reader.read(3) + 1
        guard programs == 1, layers == 1 else {
            throw AudioError("LATM with \(programs) programs and \(layers) layers is not supported (only one of each)")
        }
        audio = try AudioSpecificConfig(reading: &reader)
        let frameLengthType = reader.read(3)
        guard frameLengthType == 0 else {
            throw AudioError("LATM frameLengthType \(frameLengthType) is not supported (only 0, variable lengths)")
        }
        // What follows is often cut short in an fmtp's config (GStreamer's ends within latmBufferFullness):
        // read as absent, as FFmpeg and GStreamer read it.
        reader.skip(8)  // latmBufferFullness
        otherDataBits = 0
        if reader.flag() {  // otherDataPresent: its length, 8 bits at a time while the escape bit says more
            var escape = true
            while escape, !reader.isPastEnd {
                escape = reader.flag()
                otherDataBits = otherDataBits << 8 + Int(reader.read(8))
                // Other data longer than any element could hold is no stream's: refused before the length
                // can grow past what an Int holds.
                guard otherDataBits <= Self.maxOtherDataBits else {
                    throw AudioError(
                        "the LATM StreamMuxConfig announces more than \(Self.maxOtherDataBits) bits of other data "
                            + "per element, more than an element holds; the configuration is damaged")
                }
            }
        }
        hasCRC = reader.flag()
        if hasCRC { reader.skip(8) }
    }
}
