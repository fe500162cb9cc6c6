import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An open capture file read in chunks, each read on a queue of its own while the reader parses the one
/// before: the copy from the kernel's page cache (a third of `rtpdump extract`'s time on a large capture
/// in the page cache, Docs/Performance.md) then runs on the other core instead of between records.
///
/// A chunk comes with room in front of it, `headroom` bytes, where the unread end of the chunk before
/// (the start of a record cut by the chunk boundary) is copied so that the record is whole again; only
/// that rest is copied, not the chunk. A rest longer than the room, or a record longer than one chunk,
/// is joined into a new buffer instead.
struct FileReader: @unchecked Sendable {
    // @unchecked: the ReadAhead is only used by the one CaptureFile that owns this reader, through mutating
    // methods; CaptureFile is not shared between threads while it reads.

    /// Room in front of each chunk for the rest of the one before: enough for the largest IPv4 packet.
    static let defaultHeadroom = 64 << 10

    let path: String
    private let ahead: ReadAhead
    private(set) var atEnd = false

    init(path: String, chunkSize: Int, headroom: Int = FileReader.defaultHeadroom) throws(CaptureError) {
        guard let pointer = fopen(path, "rb") else {
            let reason = String(cString: strerror(errno))
            throw CaptureError(.unreadable, "cannot open capture \(path): \(reason)")
        }
        self.path = path
        ahead = ReadAhead(file: pointer, chunkSize: chunkSize, headroom: headroom)
    }

    /// `prefix` followed by the file's next bytes, at least `minimum` bytes in all (fewer only at the end of
    /// the file).
    mutating func read(appendingTo prefix: ArraySlice<UInt8>, minimum: Int) throws(CaptureError) -> ArraySlice<UInt8> {
        var chunk = try take()
        let headroom = ahead.headroom
        if prefix.count <= headroom, prefix.count + chunk.count >= minimum || atEnd {
            let start = headroom - prefix.count
            chunk.bytes.withUnsafeMutableBufferPointer { buffer in
                prefix.withUnsafeBufferPointer { source in
                    guard let to = buffer.baseAddress, let from = source.baseAddress else { return }
                    (to + start).update(from: from, count: source.count)
                }
            }
            return chunk.bytes[start..<(headroom + chunk.count)]
        }
        var joined = [UInt8]()
        joined.reserveCapacity(max(minimum, prefix.count + chunk.count))
        joined += prefix
        joined += chunk.bytes[headroom..<(headroom + chunk.count)]
        while joined.count < minimum && !atEnd {
            chunk = try take()
            joined += chunk.bytes[headroom..<(headroom + chunk.count)]
        }
        return joined[...]
    }

    private mutating func take() throws(CaptureError) -> ReadAhead.Chunk {
        let chunk = ahead.take()
        atEnd = chunk.atEnd
        if let failure = chunk.failure {
            throw CaptureError(.unreadable, "error reading capture \(path): \(String(cString: strerror(failure)))")
        }
        return chunk
    }
}

/// The file and the one chunk being read ahead of the reader. Closes the file when it goes away (after
/// the read under way, if any, has finished: that read holds it).
private final class ReadAhead: @unchecked Sendable {
    // @unchecked: `next` is written on `queue` before `ready` is signalled and read after waiting for it;
    // the semaphore orders the two.

    struct Chunk {
        /// `headroom` bytes (zero), then the chunk's `count` bytes.
        var bytes: [UInt8]
        var count: Int
        /// Whether the file ended in this chunk (or failed; then `failure` is its errno).
        var atEnd: Bool
        var failure: Int32? = nil
    }

    let chunkSize: Int
    let headroom: Int
    private let file: UnsafeMutablePointer<FILE>
    private let queue = DispatchQueue(label: "PacketCapture.FileReader")
    private let ready = DispatchSemaphore(value: 0)
    private var next: Chunk?
    /// Whether the chunk that ended the file was taken: nothing more is read, and waiting would not end.
    private var finished = false

    init(file: UnsafeMutablePointer<FILE>, chunkSize: Int, headroom: Int) {
        self.file = file
        self.chunkSize = chunkSize
        self.headroom = headroom
        readNext()
    }

    deinit { fclose(file) }

    /// The chunk read ahead (waiting for it if its read is still under way); starts reading the next one.
    func take() -> Chunk {
        guard !finished else { return Chunk(bytes: [UInt8](repeating: 0, count: headroom), count: 0, atEnd: true) }
        ready.wait()
        let chunk = next ?? Chunk(bytes: [UInt8](repeating: 0, count: headroom), count: 0, atEnd: true)
        next = nil
        if chunk.atEnd { finished = true } else { readNext() }
        return chunk
    }

    private func readNext() {
        queue.async { [self] in
            next = read()
            ready.signal()
        }
    }

    private func read() -> Chunk {
        var atEnd = false
        var failure: Int32?
        let (headroom, size, file) = (headroom, chunkSize, file)
        let bytes = [UInt8](unsafeUninitializedCapacity: headroom + size) { buffer, count in
            guard let base = buffer.baseAddress else { return }
            base.initialize(repeating: 0, count: headroom)
            count = headroom
            while count < headroom + size {
                let n = fread(base + count, 1, headroom + size - count, file)
                if n == 0 {
                    if ferror(file) != 0 { failure = errno }
                    atEnd = true
                    break
                }
                count += n
            }
        }
        return Chunk(bytes: bytes, count: bytes.count - headroom, atEnd: atEnd, failure: failure)
    }
}
