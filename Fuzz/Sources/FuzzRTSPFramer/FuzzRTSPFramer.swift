import FuzzSupport
@_spi(SansIO) import RTSP

/// Feeds the input to an RTSP framer in chunks whose sizes come from the first byte, reads every frame,
/// and parses every Transport header it finds.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRTSPFramer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var framer = RTSPFramer(
        limits: .init(maxHeaderBytes: 2048, maxLineBytes: 512, maxBodyBytes: 4096, maxHeaderFields: 16))
    try? forEachChunk(of: data, size: size) { chunk in
        framer.append(chunk)
        while let frame = try framer.next() {
            if case .message(let message) = frame {
                _ = message.cseq
                if let transport = message.header("Transport") { _ = TransportHeader(transport) }
            }
        }
    }
    return 0
}
