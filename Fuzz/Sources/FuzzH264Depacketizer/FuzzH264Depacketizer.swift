import MediaPipeline
import FuzzSupport
import H26x

/// Runs the input as a packet script (FuzzSupport.runPacketScript) through an H.264 depacketizer,
/// interleaved (mode 2) when the input's first byte is odd.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzH264Depacketizer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    var depacketizer = Depacketizer(
        H26xDepacketizer(
            codec: .h264, configuration: .init(maxNALSize: 4096, maxAccessUnitSize: 16384, deinterleavingDepth: Int(first & 1) * 4)))
    runPacketScript(bytes.dropFirst(), &depacketizer, writer: ElementaryStreamWriter())
    return 0
}
