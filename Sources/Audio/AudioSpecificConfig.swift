import SDP

/// MPEG-4 audio's decoder configuration (ISO/IEC 14496-3 section 1.6.2.1), what an AAC decoder and an ADTS
/// header need: the object type, the sampling rate and the channels, and how many samples a frame holds.
/// It comes as the `config` of an `mpeg4-generic` fmtp (hex), or inside a LATM StreamMuxConfig.
public struct AudioSpecificConfig: Sendable, Hashable {
    /// The audio object type: 2 is AAC LC; 5 (SBR) and 29 (PS) are HE-AAC over an AAC core.
    public var objectType: Int
    /// The core's sampling frequency index (ISO/IEC 14496-3 table 1.18), 15 when the rate is explicit.
    public var samplingFrequencyIndex: Int
    /// The core's sampling rate in Hz.
    public var samplingRate: Int
    /// The channel configuration: 1 to 7 channel layouts, 0 when a program config element says.
    public var channelConfiguration: Int
    /// Samples per channel in a frame of the core: 1024, or 960 (frameLengthFlag).
    public var frameLength: Int
    /// The bytes it was read from.
    public var bytes: [UInt8]

    static let rates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]

    /// Reads the configuration from its bytes.
    /// - Throws: ``AudioError`` when they are too short or name no sampling rate.
    public init(_ bytes: some Collection<UInt8>) throws(AudioError) {
        let array = Array(bytes)
        var reader = BitReader(array[...])
        try self.init(reading: &reader)
    }

    /// The configuration an AAC format's fmtp gives: its `config` (mpeg4-generic), or the AudioSpecificConfig
    /// inside its StreamMuxConfig (MP4A-LATM).
    /// - Throws: ``AudioError`` when the format gives none (a LATM stream that carries it in band only) or it
    ///   does not read.
    public init(format: AudioFormat) throws(AudioError) {
        guard let hex = format.config else {
            throw AudioError(
                "the \(format.encodingName) format gives no config"
                    + (format.codec == .aacLATM ? " (a cpresent=1 stream carries it in band only)" : ""))
        }
        self = format.codec == .aacLATM ? try StreamMuxConfig(hex: hex).audio : try AudioSpecificConfig(hex: hex)
    }

    /// Reads the configuration from hex (an fmtp's `config`).
    public init(hex: String) throws(AudioError) {
        try self.init(Self.bytes(hex: hex, naming: "the config"))
    }

    /// The configuration as an fmtp's `config` writes it (lowercase hex), what ``init(hex:)`` reads.
    public var hex: String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
    }

    /// Reads it where it stands in a longer bit string (a StreamMuxConfig).
    init(reading reader: inout BitReader) throws(AudioError) {
        let start = reader.position
        func readObjectType() -> Int {
            let type = Int(reader.read(5))
            return type == 31 ? 32 + Int(reader.read(6)) : type
        }
        func frequency() -> (index: Int, rate: Int) {
            let index = Int(reader.read(4))
            if index == 15 { return (15, Int(reader.read(24))) }
            return (index, index < Self.rates.count ? Self.rates[index] : 0)
        }
        var type = readObjectType()
        let core = frequency()
        let channels = Int(reader.read(4))
        if type == 5 || type == 29 {  // explicit SBR (and PS): the extension rate, then the core's object type
            _ = frequency()
            type = readObjectType()
        }
        var frameLength = 1024
        if [1, 2, 3, 4, 6, 7, 17, 19, 20, 21, 22, 23].contains(type) {  // GASpecificConfig
            if reader.flag() { frameLength = 960 }
            if reader.flag() { reader.skip(14) }  // dependsOnCoreCoder: coreCoderDelay
            let extensionFlag = reader.flag()
            guard channels != 0 else {
                throw AudioError(
                    "the AudioSpecificConfig's channels are in a program config element, which is not supported")
            }
            if type == 6 || type == 20 { reader.skip(3) }  // layerNr
            if extensionFlag {
                if type == 22 { reader.skip(16) }  // numOfSubFrame, layer_length
                if [17, 19, 20, 23].contains(type) { reader.skip(3) }  // the resilience flags
                reader.skip(1)  // extensionFlag3
            }
            if (17...27).contains(type) { reader.skip(2) }  // epConfig
        }
        // Backward-compatible SBR signalling (a sync extension after the core's config): read over, so that
        // what follows in a StreamMuxConfig is read where it is.
        var peek = reader
        if reader.remaining >= 16, peek.read(11) == 0x2B7 {
            reader.skip(11)
            if readObjectType() == 5, reader.flag() {
                _ = frequency()
                var psPeek = reader
                if reader.remaining >= 12, psPeek.read(11) == 0x548 { reader.skip(12) }
            }
        }
        guard !reader.isPastEnd else { throw AudioError("the AudioSpecificConfig ends before its fields do") }
        guard core.rate > 0 else {
            throw AudioError("the AudioSpecificConfig names sampling frequency index \(core.index), which is reserved")
        }
        self.objectType = type
        samplingFrequencyIndex = core.index
        samplingRate = core.rate
        channelConfiguration = channels
        self.frameLength = frameLength
        bytes = reader.bits(from: start, to: reader.position)
    }

    /// The most hex digits a configuration is read from: real ones are a few bytes; this leaves room.
    public static let maxHexDigits = 512

    /// The bytes of an fmtp's hex `config` (`name` says which, in the error).
    static func bytes(hex: String, naming name: String) throws(AudioError) -> [UInt8] {
        let digits = Array(hex.utf8.prefix(maxHexDigits + 1))
        guard digits.count <= maxHexDigits else {
            throw AudioError(
                "\(name) is longer than \(maxHexDigits) hex digits, more than any AAC configuration needs")
        }
        let nibbles = digits.compactMap(nibble)
        guard nibbles.count == digits.count else {
            throw AudioError("\(name) \"\(hex.prefix(64))\" is not hexadecimal")
        }
        guard nibbles.count % 2 == 0 else {
            throw AudioError("\(name) \"\(hex.prefix(64))\" has an odd number of hex digits")
        }
        return stride(from: 0, to: nibbles.count, by: 2).map { nibbles[$0] << 4 | nibbles[$0 + 1] }
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
