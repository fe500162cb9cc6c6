import RTP
import H26x

/// Parses the input as an SPS (H.264 when the first byte is even, else H.265), stores it and its id,
/// makes a decoder configuration record (for H.265 with the same bytes as VPS and PPS as well), and reads
/// it back through the SDP parameter path's Annex B splitter.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSPS(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    let codec: VideoCodec = first & 1 == 0 ? .h264 : .h265
    var nal = Array(bytes.dropFirst())
    if !nal.isEmpty { nal[0] = codec == .h264 ? (nal[0] & 0xE0) | 7 : (nal[0] & 0x81) | 33 << 1 }
    let unit = NALUnit(codec: codec, bytes: nal[...])
    _ = try? SequenceParameterSet(unit)
    var sets = ParameterSets(codec: codec)
    sets.update(unit)
    _ = sets.sequenceParameterSet
    _ = try? sets.decoderConfigurationRecord()
    // An H.265 record reads the VPS and PPS too: the same bytes as each of those.
    if codec == .h265, nal.count > 1 {
        for type: UInt8 in [32, 34] {
            var other = nal
            other[0] = (nal[0] & 0x81) | type << 1
            sets.update(NALUnit(codec: codec, bytes: other[...]))
        }
        _ = try? sets.decoderConfigurationRecord()
    }
    let text = String(decoding: bytes.prefix(64), as: UTF8.self)
    try? sets.add(sdpParameter: "sprop-parameter-sets", value: text)
    return 0
}
