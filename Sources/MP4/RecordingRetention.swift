#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How long recordings are kept: a directory's MP4 files past a total size or an age are deleted, oldest first,
/// never a file being written. The decision (``expired(_:now:writing:)``) is a pure function of the files' sizes
/// and times; ``apply(toDirectory:prefix:writing:now:)`` lists a directory and deletes what it says.
///
/// ```swift
/// let retention = RecordingRetention(maxBytes: 50 << 30, maxAge: .seconds(7 * 86_400))  // 50 GiB, a week
/// let deleted = try retention.apply(toDirectory: "/recordings", writing: [recorder.files.last].compactMap { $0 })
/// ```
public struct RecordingRetention: Sendable, Hashable {
    /// A recording as the rule sees it.
    public struct File: Sendable, Hashable {
        public var path: String
        public var bytes: Int
        /// When it was last written (its end), in seconds since 1970.
        public var modified: Double

        public init(path: String, bytes: Int, modified: Double) {
            self.path = path
            self.bytes = bytes
            self.modified = modified
        }
    }

    /// The most bytes the files may take together (nil: no bound). The files being written count, and are kept.
    public var maxBytes: Int?
    /// The oldest a file may be, from its last write (nil: no bound).
    public var maxAge: Duration?

    public init(maxBytes: Int? = nil, maxAge: Duration? = nil) {
        self.maxBytes = maxBytes.map { max(0, $0) }
        self.maxAge = maxAge.map { max(.zero, $0) }
    }

    /// The files to delete, oldest first: those older than ``maxAge``, then the oldest until the rest fit in
    /// ``maxBytes``. A path in `writing` is never among them (its bytes still count).
    public func expired(_ files: [File], now: Double, writing: Set<String>) -> [File] {
        let oldestFirst = files.sorted { ($0.modified, $0.path) < ($1.modified, $1.path) }
        var total = files.reduce(0) { $0 + $1.bytes }
        var deleted: [File] = []
        let ageLimit = maxAge?.seconds
        for file in oldestFirst where !writing.contains(file.path) {
            let tooOld = ageLimit.map { now - file.modified > $0 } ?? false
            let tooMuch = maxBytes.map { total > $0 } ?? false
            guard tooOld || tooMuch else { continue }
            deleted.append(file)
            total -= file.bytes
        }
        return deleted
    }

    /// Deletes the expired MP4 files of `directory` named `PREFIX.mp4` or `PREFIX-N.mp4` (what an MP4FileRecorder of
    /// `PREFIX.mp4` writes; every `.mp4` file when `prefix` is empty),
    /// never those in `writing`, and returns their paths. `now` is in seconds since 1970 (nil: the system's clock).
    /// - Throws: ``MP4Error`` `.writeFailed` when the directory cannot be read or a file cannot be deleted (those
    ///   deleted before it are).
    @discardableResult
    public func apply(toDirectory directory: String, prefix: String = "", writing: Set<String>, now: Double? = nil)
        throws(MP4Error) -> [String]
    {
        let files = try Self.recordings(in: directory, prefix: prefix)
        var deleted: [String] = []
        for file in expired(files, now: now ?? Self.systemNow(), writing: writing) {
            guard unlink(file.path) == 0 || errno == ENOENT else {
                throw MP4Error(
                    .writeFailed, "cannot delete \(file.path) (retention): \(String(cString: strerror(errno)))")
            }
            deleted.append(file.path)
        }
        return deleted
    }

    /// The `.mp4` files of `directory` named as ``apply(toDirectory:prefix:writing:now:)`` says, with their sizes and
    /// times.
    static func recordings(in directory: String, prefix: String) throws(MP4Error) -> [File] {
        guard let stream = opendir(directory) else {
            throw MP4Error(.writeFailed, "cannot read the directory \(directory): \(String(cString: strerror(errno)))")
        }
        defer { closedir(stream) }
        var files: [File] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard Self.isRecording(name, of: prefix) else { continue }
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            #if canImport(Darwin)
                let modified = Double(info.st_mtimespec.tv_sec) + Double(info.st_mtimespec.tv_nsec) / 1e9
            #else
                let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
            #endif
            files.append(File(path: path, bytes: Int(info.st_size), modified: modified))
        }
        return files
    }

    /// Whether `name` is `PREFIX.mp4` or `PREFIX-DIGITS.mp4` (any `.mp4` for an empty prefix).
    static func isRecording(_ name: String, of prefix: String) -> Bool {
        guard name.hasSuffix(".mp4") else { return false }
        guard !prefix.isEmpty else { return true }
        guard name.hasPrefix(prefix) else { return false }
        let rest = name.dropFirst(prefix.count).dropLast(4)
        return rest.isEmpty || (rest.first == "-" && rest.count > 1 && rest.dropFirst().allSatisfy(\.isNumber))
    }

    static func systemNow() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
