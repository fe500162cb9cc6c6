/// ADTS (ISO/IEC 14496-3 1.A.2): the 7-byte header before each AAC frame that makes a stream of raw AAC frames
/// a file players open on its own (`.aac`), as GStreamer's `aacparse` and FFmpeg's `adts` muxer write it.
public enum ADTS {
    /// Whether frames of `config` can be written with ADTS headers: an object type ADTS can name (AAC Main,
    /// LC, SSR, LTP: 1 to 4, or one of those with SBR or PS signalled), a sampling rate of the table.
    public static func canWrite(_ config: AudioSpecificConfig) -> Bool {
        (1...4).contains(config.objectType) && config.samplingFrequencyIndex < 13
    }

    /// The header of a frame of `frameSize` bytes (without CRC), or nil when ADTS cannot carry it (``canWrite(_:)``,
    /// or a frame of 8 KiB or more).
    public static func header(for config: AudioSpecificConfig, frameSize: Int) -> [UInt8]? {
        let length = frameSize + 7
        guard canWrite(config), frameSize >= 0, length < 1 << 13 else { return nil }
        let profile = UInt8(config.objectType - 1)
        let frequency = UInt8(config.samplingFrequencyIndex)
        let channels = UInt8(config.channelConfiguration & 7)
        return [
            0xFF, 0xF1,  // sync word, MPEG-4, layer 0, no CRC
            profile << 6 | frequency << 2 | channels >> 2,
            (channels & 3) << 6 | UInt8(length >> 11),
            UInt8((length >> 3) & 0xFF),
            UInt8(length & 7) << 5 | 0x1F,  // buffer fullness 0x7FF: variable rate
            0xFC,  // the rest of the fullness; one raw data block
        ]
    }
}
