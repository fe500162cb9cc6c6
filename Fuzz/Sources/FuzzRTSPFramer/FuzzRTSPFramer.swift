import RTSP

/// Feeds the input to an RTSP framer in chunks whose sizes come from the first byte, reads every frame,
/// and parses every Transport header it finds.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRTSPFramer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    var framer = RTSPFramer(
        limits: .init(maxHeaderBytes: 2048, maxLineBytes: 512, maxBodyBytes: 4096, maxHeaderFields: 16))
    let chunk = Int(first) + 1
    var offset = 1
    while offset < bytes.count {
        let end = min(offset + chunk, bytes.count)
        framer.append(bytes[offset..<end])
        offset = end
        do {
            while let frame = try framer.next() {
                if case .message(let message) = frame {
                    _ = message.cseq
                    if let transport = message.header("Transport") { _ = TransportHeader(transport) }
                }
            }
        } catch {
            return 0
        }
    }
    return 0
}
