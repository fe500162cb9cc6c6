import RTPDumpCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file the command writes, with `write(2)` straight from the caller's bytes: one system call per piece
/// (an access unit), where stdio's `fwrite` made two and copied part of each piece into its buffer.
final class OutputFile {
    private var descriptor: Int32
    let path: String

    /// Creates (or empties) the file at `path`.
    init(path: String) throws {
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o666)
        guard descriptor >= 0 else { throw RTPDumpError("cannot create \(path): \(String(cString: strerror(errno)))") }
        self.path = path
    }

    /// Writes all of `bytes`, going on after a partial write or an interrupted call.
    func write(_ bytes: ArraySlice<UInt8>) throws {
        try bytes.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count, let base = buffer.baseAddress {
                let n = systemWrite(descriptor, base + done, buffer.count - done)
                if n > 0 {
                    done += n
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    throw RTPDumpError("cannot write \(path): \(String(cString: strerror(n < 0 ? errno : EIO)))")
                }
            }
        }
    }

    /// Writes `bytes` again at the file's start (a header whose sizes are known only at the end).
    func rewriteStart(_ bytes: [UInt8]) throws {
        let written = bytes.withUnsafeBytes { buffer in pwrite(descriptor, buffer.baseAddress, buffer.count, 0) }
        guard written == bytes.count else {
            throw RTPDumpError("cannot write \(path): \(String(cString: strerror(written < 0 ? errno : EIO)))")
        }
    }

    /// Closes the file; an error the system reports only now (a full disk on some file systems) is thrown.
    func close() throws {
        guard descriptor >= 0 else { return }
        let result = systemClose(descriptor)
        descriptor = -1
        if result != 0 { throw RTPDumpError("cannot write \(path): \(String(cString: strerror(errno)))") }
    }

    deinit { if descriptor >= 0 { _ = systemClose(descriptor) } }
}

private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
        Darwin.write(fd, bytes, count)
    #elseif canImport(Musl)
        Musl.write(fd, bytes, count)
    #else
        Glibc.write(fd, bytes, count)
    #endif
}

private func systemClose(_ fd: Int32) -> Int32 {
    #if canImport(Darwin)
        Darwin.close(fd)
    #elseif canImport(Musl)
        Musl.close(fd)
    #else
        Glibc.close(fd)
    #endif
}
