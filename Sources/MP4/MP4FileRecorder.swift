import CoreMetrics

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes what a ``FragmentedMP4Writer`` gives to files, each fragment as it closes: a process killed
/// mid-recording leaves files that play up to their last fragment. A write that fails part-way (a full disk, a
/// file-size limit) cuts the file back to its last whole fragment before the error is thrown, so what is on disk
/// still plays to its end.
///
/// Files are named from `path` (`OUT.mp4`): with segments, `OUT-00001.mp4`, `OUT-00002.mp4`, ...; without,
/// `OUT.mp4`, and `OUT-00002.mp4` onwards only if the stream changes (new parameter sets or picture size).
public struct MP4FileRecorder: ~Copyable {
    /// The files written so far, in order (those the retention deleted since among them).
    public private(set) var files: [String] = []
    /// Bytes written across them.
    public private(set) var bytesWritten = 0
    /// Files the retention deleted, oldest first (this recorder's, of this run or earlier ones).
    public private(set) var deleted: [String] = []

    private let path: String
    private let segmented: Bool
    private let retention: RecordingRetention?
    private var descriptor: Int32 = -1
    /// The current file's bytes up to the end of its last whole output.
    private var committed = 0
    /// The current file's bytes written.
    private var written = 0

    /// A recorder to files named from `path`; `segmented` numbers every file. With `retention`, each time a file
    /// starts, the files of this name in its directory (`OUT.mp4`, `OUT-N.mp4`) that the rule expires are deleted,
    /// oldest first, never the one being written.
    ///
    /// With `metricsName`, what it writes is counted through swift-metrics under the `recording` dimension of that
    /// name (the application's, one per recording: not a file name, which changes with each segment): bytes
    /// (`mp4_recorder_bytes_written_total`), fragments (`mp4_recorder_fragments_total`) and files started
    /// (`mp4_recorder_files_total`), to `metricsFactory` (nil: `MetricsSystem.factory`).
    public init(
        path: String, segmented: Bool, retention: RecordingRetention? = nil, metricsName: String? = nil,
        metricsFactory: (any MetricsFactory)? = nil
    ) {
        self.path = path
        self.segmented = segmented
        self.retention = retention
        metrics = metricsName.map { Metrics(recording: $0, factory: metricsFactory ?? MetricsSystem.factory) }
    }

    /// The counters of ``init(path:segmented:retention:metricsName:metricsFactory:)``.
    private struct Metrics {
        let bytes, fragments, files: Counter

        init(recording: String, factory: any MetricsFactory) {
            let dimensions = [("recording", recording)]
            bytes = Counter(label: "mp4_recorder_bytes_written_total", dimensions: dimensions, factory: factory)
            fragments = Counter(label: "mp4_recorder_fragments_total", dimensions: dimensions, factory: factory)
            files = Counter(label: "mp4_recorder_files_total", dimensions: dimensions, factory: factory)
        }
    }
    private let metrics: Metrics?

    /// Writes one output of the writer: an initialization segment starts the next file.
    public mutating func write(_ output: MP4Output) throws(MP4Error) {
        switch output {
        case .initialization(let bytes):
            try open(Self.name(path, index: files.count + 1, segmented: segmented))
            try whole { (recorder: inout MP4FileRecorder) throws(MP4Error) in try recorder.write(bytes[...]) }
            metrics?.files.increment()
            metrics?.bytes.increment(by: bytes.count)
            try applyRetention()
        case .fragment(let parts):
            guard descriptor >= 0 else {
                throw MP4Error(.writeFailed, "a fragment came before any initialization segment")
            }
            try whole { (recorder: inout MP4FileRecorder) throws(MP4Error) in
                for part in parts { try recorder.write(part) }
            }
            metrics?.fragments.increment()
            metrics?.bytes.increment(by: parts.reduce(0) { $0 + $1.count })
        }
    }

    /// Writes one output whole, or cuts the file back to where it was before it and throws.
    private mutating func whole(_ body: (inout MP4FileRecorder) throws(MP4Error) -> Void) throws(MP4Error) {
        do throws(MP4Error) {
            try body(&self)
            committed = written
        } catch {
            let name = files.last ?? path
            guard systemTruncate(descriptor, committed) == 0 else {
                throw MP4Error(
                    .writeFailed,
                    "\(error.reason); \(name) could not be cut back to its last whole fragment: \(Self.lastSystemError)"
                )
            }
            bytesWritten -= written - committed
            written = committed
            throw MP4Error(
                .writeFailed, "\(error.reason); \(name) was cut back to its last whole fragment (\(committed) bytes)")
        }
    }

    /// The retention's rule over this recorder's files, the new one kept.
    private mutating func applyRetention() throws(MP4Error) {
        guard let retention, let current = files.last else { return }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let stem = name.hasSuffix(".mp4") ? String(name.dropLast(4)) : name
        let removed = try retention.apply(toDirectory: directory, prefix: stem, writing: [current, "./" + current])
        deleted += removed
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
        committed = 0
        written = 0
    }

    private mutating func write(_ bytes: ArraySlice<UInt8>) throws(MP4Error) {
        var done = 0
        while done < bytes.count {
            let result = bytes.withUnsafeBytes { raw in
                raw.baseAddress.map { systemWrite(descriptor, $0 + done, raw.count - done) } ?? 0
            }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else {
                throw MP4Error(.writeFailed, "writing \(files.last ?? path): \(Self.lastSystemError)")
            }
            done += result
            written += result
            bytesWritten += result
        }
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

/// Cuts the file to `size` bytes and puts the write position there.
private func systemTruncate(_ fd: Int32, _ size: Int) -> Int32 {
    #if canImport(Darwin)
        guard Darwin.ftruncate(fd, off_t(size)) == 0 else { return -1 }
        return Darwin.lseek(fd, off_t(size), SEEK_SET) < 0 ? -1 : 0
    #else
        guard Glibc.ftruncate(fd, off_t(size)) == 0 else { return -1 }
        return Glibc.lseek(fd, off_t(size), SEEK_SET) < 0 ? -1 : 0
    #endif
}

private func systemClose(_ fd: Int32) -> Int32 {
    #if canImport(Darwin)
        Darwin.close(fd)
    #else
        Glibc.close(fd)
    #endif
}
