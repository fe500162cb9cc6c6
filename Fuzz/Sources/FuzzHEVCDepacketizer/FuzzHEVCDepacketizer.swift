import MediaPipeline
import FuzzSupport
import H26x

/// As FuzzH264Depacketizer, for H.265; DONL fields are expected when the input's first byte is odd.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzH265Depacketizer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    var depacketizer = Depacketizer(
        H26xDepacketizer(
            codec: .h265, configuration: .init(maxNALSize: 4096, maxAccessUnitSize: 16384), maxDONDiff: Int(first & 1) * 4))
    runPacketScript(bytes.dropFirst(), &depacketizer, writer: ElementaryStreamWriter(framing: .lengthPrefixed(size: 4)))
    return 0
}
