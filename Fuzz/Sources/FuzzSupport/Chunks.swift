/// Splits fuzzer input as a network read would: the first byte sets the chunk size (1 to 256), and the
/// rest is handed to `body` a chunk at a time, so that framers see messages cut at every place.
public func forEachChunk(
    of data: UnsafePointer<UInt8>, size: Int, _ body: (ArraySlice<UInt8>) throws -> Void
) rethrows {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return }
    let chunk = Int(first) + 1
    var offset = 1
    while offset < bytes.count {
        let end = min(offset + chunk, bytes.count)
        try body(bytes[offset..<end])
        offset = end
    }
}
