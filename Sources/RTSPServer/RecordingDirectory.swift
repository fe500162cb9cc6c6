import MP4
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A directory of recordings served at a path. `/PATH/NAME` plays the recording NAME as one timeline
/// (``RecordingTimeline``): `DIRECTORY/NAME.mp4` and the files `MP4FileRecorder` numbers after it
/// (`NAME-00002.mp4`, ..., a segment or a restart each), in their numbers' order; `/PATH/NAME.mp4` (or
/// `/PATH/NAME-00002.mp4`) plays that one file. A name is one plain file name: no `/`, no leading `.` (so no
/// `..`), no control characters, and the file it names must be a regular file whose real path is inside the
/// directory (a symbolic link out of it is not followed). Each file is indexed when first asked for and kept (at
/// most `capacity` at once) until it changes: a recording still being written is indexed again when it has grown.
final class RecordingDirectory: Sendable {
    private let realDirectory: String
    private let capacity: Int
    private let opened = Mutex<[String: (size: Int64, modified: Int, playback: RecordingPlayback)]>([:])
    /// The directory's file names, listed again when its time changes (a file added or removed).
    private let listing = Mutex<(modified: Int, names: [String])?>(nil)

    init?(_ directory: String, capacity: Int = 32) {
        guard let real = Self.realPath(directory), Self.isDirectory(real) else { return nil }
        self.realDirectory = real
        self.capacity = max(1, capacity)
    }

    /// The recording `name` names (a file with `.mp4`, a timeline without), or nil when it names none this
    /// directory serves.
    func recording(named name: Substring) -> RecordingTimeline? {
        if name.hasSuffix(".mp4") { return playback(file: name).flatMap { RecordingTimeline([$0]) } }
        guard Self.isPlainName(name) else { return nil }
        return RecordingTimeline(files(of: name).compactMap { playback(file: $0[...]) })
    }

    /// The files of recording `name`: `NAME.mp4`, then `NAME-N.mp4` (N of five digits or more) by N.
    private func files(of name: Substring) -> [String] {
        let prefix = name + "-"
        var numbered: [(number: Int, file: String)] = []
        var files: [String] = []
        for file in names() {
            if file == name + ".mp4" {
                files.append(file)
                continue
            }
            guard file.hasPrefix(prefix), file.hasSuffix(".mp4") else { continue }
            let digits = file.dropFirst(prefix.count).dropLast(4)
            guard digits.utf8.count >= 5, digits.utf8.count <= 12,
                digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                let number = Int(digits)
            else { continue }
            numbered.append((number, file))
        }
        return files + numbered.sorted { $0.number < $1.number }.map(\.file)
    }

    /// The directory's file names, from the listing kept while the directory's time stays the same.
    private func names() -> [String] {
        var status = stat()
        guard stat(realDirectory, &status) == 0 else { return [] }
        let modified = Self.modified(status)
        if let kept = listing.withLock({ $0 }), kept.modified == modified { return kept.names }
        guard let directory = opendir(realDirectory) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            names.append(
                withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                    String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                })
        }
        listing.withLock { $0 = (modified, names) }
        return names
    }

    /// The recording in file `name` (`NAME.mp4`), or nil when it is none this directory serves.
    private func playback(file name: Substring) -> RecordingPlayback? {
        guard name.hasSuffix(".mp4"), Self.isPlainName(name.dropLast(4)) else { return nil }
        let path = realDirectory + "/" + name
        guard let real = Self.realPath(path), real.hasPrefix(realDirectory + "/"),
            !real.dropFirst(realDirectory.count + 1).contains("/" as Character)
        else {
            return nil
        }
        var status = stat()
        guard stat(real, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        let (size, modified) = (Int64(status.st_size), Self.modified(status))
        if let kept = opened.withLock({ $0[real] }), kept.size == size, kept.modified == modified {
            return kept.playback
        }
        guard let reader = try? MP4FileReader(path: real), let playback = RecordingPlayback(reader) else { return nil }
        opened.withLock { opened in
            if opened.count >= capacity, opened[real] == nil, let any = opened.keys.first { opened[any] = nil }
            opened[real] = (size, modified, playback)
        }
        return playback
    }

    /// A file's modification time in nanoseconds.
    private static func modified(_ status: stat) -> Int {
        #if canImport(Darwin)
            Int(status.st_mtimespec.tv_nsec) + Int(status.st_mtimespec.tv_sec) * 1_000_000_000
        #else
            Int(status.st_mtim.tv_nsec) + Int(status.st_mtim.tv_sec) * 1_000_000_000
        #endif
    }

    /// One file name, nothing a path could be made of: not empty, no `/`, not starting with `.`, no control
    /// characters, at most 255 bytes.
    static func isPlainName(_ name: Substring) -> Bool {
        !name.isEmpty && name.utf8.count <= 255 && name.first != "."
            && !name.utf8.contains { $0 == UInt8(ascii: "/") || $0 < 0x20 || $0 == 0x7F }
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }
}
