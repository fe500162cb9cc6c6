import MP4
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A directory of recordings served at a path: `/PATH/NAME` (or `/PATH/NAME.mp4`) plays `DIRECTORY/NAME.mp4`. A
/// name is one plain file name: no `/`, no leading `.` (so no `..`), no control characters, and the file it names
/// must be a regular file whose real path is inside the directory (a symbolic link out of it is not followed).
/// Each file is indexed when first asked for and kept (at most `capacity` at once) until it changes: a recording
/// still being written is indexed again when it has grown.
final class RecordingDirectory: Sendable {
    private let realDirectory: String
    private let capacity: Int
    private let opened = Mutex<[String: (size: Int64, modified: Int, playback: RecordingPlayback)]>([:])

    init?(_ directory: String, capacity: Int = 32) {
        guard let real = Self.realPath(directory), Self.isDirectory(real) else { return nil }
        self.realDirectory = real
        self.capacity = max(1, capacity)
    }

    /// The recording `name` names, or nil when it names none this directory serves.
    func recording(named name: Substring) -> RecordingPlayback? {
        let base = name.hasSuffix(".mp4") ? name.dropLast(4) : name
        guard Self.isPlainName(base) else { return nil }
        let path = realDirectory + "/" + base + ".mp4"
        guard let real = Self.realPath(path), real.hasPrefix(realDirectory + "/"),
            !real.dropFirst(realDirectory.count + 1).contains("/" as Character)
        else {
            return nil
        }
        var status = stat()
        guard stat(real, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        #if canImport(Darwin)
            let (size, modified) = (
                Int64(status.st_size),
                Int(status.st_mtimespec.tv_nsec) + Int(status.st_mtimespec.tv_sec) * 1_000_000_000
            )
        #else
            let (size, modified) = (
                Int64(status.st_size), Int(status.st_mtim.tv_nsec) + Int(status.st_mtim.tv_sec) * 1_000_000_000
            )
        #endif
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
