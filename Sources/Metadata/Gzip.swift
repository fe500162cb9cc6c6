import CZlib

/// Inflates gzip (and zlib) data with zlib, bounded: a document that would inflate past the limit is refused
/// rather than grown (a small payload may claim gigabytes).
enum Gzip {
    struct Failure: Error {
        let reason: String
    }

    static func inflate(_ input: [UInt8], limit: Int) -> Result<[UInt8], Failure> {
        var stream = z_stream()
        // 15 + 32: the largest window, and a gzip or zlib header told apart by zlib.
        guard inflateInit2_(&stream, 15 + 32, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return .failure(Failure(reason: "zlib could not start"))
        }
        defer { inflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: min(limit, max(4096, input.count * 4)))
        var status = Z_OK
        var produced = 0
        input.withUnsafeBufferPointer { source in
            stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.avail_in = UInt32(source.count)
            while status == Z_OK {
                if produced == output.count {
                    guard output.count < limit else { break }
                    output += [UInt8](repeating: 0, count: min(limit - output.count, output.count))
                }
                output.withUnsafeMutableBufferPointer { destination in
                    stream.next_out = destination.baseAddress.map { $0 + produced }
                    stream.avail_out = UInt32(destination.count - produced)
                    status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    produced = destination.count - Int(stream.avail_out)
                }
                if status == Z_BUF_ERROR && stream.avail_in == 0 { break }
                if status == Z_BUF_ERROR { status = Z_OK }
            }
        }
        guard status == Z_STREAM_END else {
            if status == Z_OK { return .failure(Failure(reason: "it inflates past \(limit) bytes")) }
            if status == Z_BUF_ERROR { return .failure(Failure(reason: "the compressed data ends early")) }
            return .failure(Failure(reason: "zlib refused it (status \(status))"))
        }
        output.removeSubrange(produced...)
        return .success(output)
    }
}
