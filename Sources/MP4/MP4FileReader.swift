#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An MP4 file opened for reading: its ``index`` built when it opens (the boxes alone, the media stepped over),
/// and any sample's bytes read on demand with `pread`, so that one reader serves many viewers at once, each at
/// its own place.
public final class MP4FileReader: Sendable {
    /// What the file holds.
    public let index: MP4Index
    /// Each track's format and configuration, by index (nil for a track not served).
    let servedTracks: [ServedTrack?]
    private let file: FileBytes

    /// Opens `path` and indexes it.
    ///
    /// - Throws: ``MP4Error`` `.readFailed` when it cannot be opened or read, `.invalidFile` when its boxes do not
    ///   hold together or pass `limits`.
    public init(path: String, limits: MP4Index.Limits = MP4Index.Limits()) throws(MP4Error) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw MP4Error(.readFailed, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw MP4Error(.readFailed, "\(path) is not a regular file")
        }
        let source = FileBytes(descriptor: descriptor, size: UInt64(status.st_size))
        do {
            index = try MP4Index(reading: source, limits: limits)
        } catch {
            close(descriptor)
            throw MP4Error(error.code, "\(path): \(error.reason)")
        }
        servedTracks = index.tracks.map(ServedTrack.init)
        file = source
    }

    deinit { close(file.descriptor) }

    /// The bytes of `sample` (one of ``MP4Index/Track/samples``).
    public func bytes(of sample: MP4Index.Sample) throws(MP4Error) -> [UInt8] {
        try file.read(at: sample.offset, count: Int(sample.size))
    }
}

/// A file's bytes through `pread`: reads at an offset share no file position, so they may run at once.
struct FileBytes: MP4ByteSource {
    let descriptor: Int32
    let size: UInt64

    func read(at offset: UInt64, count: Int) throws(MP4Error) -> [UInt8] {
        guard offset <= size, UInt64(count) <= size - offset, let start = off_t(exactly: offset) else {
            throw MP4Error(.readFailed, "\(count) bytes at \(offset) are past the file's end at \(size)")
        }
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var done = 0
            while done < count, let base = buffer.baseAddress {
                let n = pread(descriptor, base + done, count - done, start + off_t(done))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else {
                    failure = n < 0 ? errno : EIO
                    break
                }
                done += n
            }
            initialized = done
        }
        guard bytes.count == count else {
            throw MP4Error(.readFailed, "reading \(count) bytes at \(offset): \(String(cString: strerror(failure)))")
        }
        return bytes
    }
}
