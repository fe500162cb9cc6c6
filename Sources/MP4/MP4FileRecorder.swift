#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes what a ``FragmentedMP4Writer`` gives to files, each fragment as it closes: a process killed
/// mid-recording leaves files that play up to their last fragment.
///
/// Files are named from `path` (`OUT.mp4`): with segments, `OUT-00001.mp4`, `OUT-00002.mp4`, ...; without,
/// `OUT.mp4`, and `OUT-00002.mp4` onwards only if the stream changes (new parameter sets or picture size).
public struct MP4FileRecorder: ~Copyable {
    /// The files written so far, in order.
    public private(set) var files: [String] = []
    /// Bytes written across them.
    public private(set) var bytesWritten = 0

    private let path: String
    private let segmented: Bool
    private var descriptor: Int32 = -1

    /// A recorder to files named from `path`; `segmented` numbers every file.
    public init(path: String, segmented: Bool) {
        self.path = path
        self.segmented = segmented
    }

    /// Writes one output of the writer: an initialization segment starts the next file.
    public mutating func write(_ output: MP4Output) throws(MP4Error) {
        switch output {
        case .initialization(let bytes):
            try open(Self.name(path, index: files.count + 1, segmented: segmented))
            try write(bytes[...])
        case .fragment(let parts):
            guard descriptor >= 0 else { throw MP4Error(.writeFailed, "a fragment came before any initialization segment") }
            for part in parts { try write(part) }
        }
    }

    /// Closes the last file.
    public mutating func close() throws(MP4Error) {
        guard descriptor >= 0 else { return }
        let result = systemClose(descriptor)
        descriptor = -1
        if result != 0 { throw MP4Error(.writeFailed, "closing \(files.last ?? path): \(Self.lastSystemError)") }
    }

    deinit {
        if descriptor >= 0 { _ = systemClose(descriptor) }
    }

    /// The name of the `index`th file (from 1).
    public static func name(_ path: String, index: Int, segmented: Bool) -> String {
        if !segmented && index == 1 { return path }
        let number = String(index)
        let padded = String(repeating: "0", count: max(0, 5 - number.count)) + number
        let stem = path.hasSuffix(".mp4") ? String(path.dropLast(4)) : path
        return "\(stem)-\(padded).mp4"
    }

    private mutating func open(_ name: String) throws(MP4Error) {
        try close()
        let opened = systemOpen(name)
        guard opened >= 0 else { throw MP4Error(.writeFailed, "cannot create \(name): \(Self.lastSystemError)") }
        descriptor = opened
        files.append(name)
    }

    private mutating func write(_ bytes: ArraySlice<UInt8>) throws(MP4Error) {
        var done = 0
        while done < bytes.count {
            let result = bytes.withUnsafeBytes { raw in
                raw.baseAddress.map { systemWrite(descriptor, $0 + done, raw.count - done) } ?? 0
            }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { throw MP4Error(.writeFailed, "writing \(files.last ?? path): \(Self.lastSystemError)") }
            done += result
        }
        bytesWritten += done
    }

    private static var lastSystemError: String { String(cString: strerror(errno)) }
}

private func systemOpen(_ name: String) -> Int32 {
    #if canImport(Darwin)
        Darwin.open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    #else
        Glibc.open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    #endif
}

private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
        Darwin.write(fd, bytes, count)
    #else
        Glibc.write(fd, bytes, count)
    #endif
}

private func systemClose(_ fd: Int32) -> Int32 {
    #if canImport(Darwin)
        Darwin.close(fd)
    #else
        Glibc.close(fd)
    #endif
}
