#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes frames to a YUV4MPEG2 file (`.y4m`), which ffplay, mpv and FFmpeg read. Full-range frames (JPEG's)
/// are marked so (`XCOLORRANGE=FULL`, as FFmpeg writes and reads it).
public final class Y4MWriter {
    private let file: UnsafeMutablePointer<FILE>
    private let path: String
    private let frameRate: (numerator: Int, denominator: Int)
    private var size: (width: Int, height: Int)?

    /// Creates (or truncates) `path`. The frame rate only goes into the header.
    public init(path: String, frameRate: (numerator: Int, denominator: Int) = (30, 1)) throws {
        guard let file = fopen(path, "wb") else {
            throw VideoDecodingError(.outputFailure, "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        self.file = file
        self.path = path
        self.frameRate = frameRate
    }

    deinit { fclose(file) }

    /// Appends a frame. All frames must have the size of the first (Y4M has one size per file).
    public func write(_ frame: I420Frame) throws {
        if size == nil {
            size = (frame.width, frame.height)
            try put(
                Array(
                    "YUV4MPEG2 W\(frame.width) H\(frame.height) F\(frameRate.numerator):\(frameRate.denominator) Ip A1:1 C420jpeg"
                        .utf8)[...])
            if frame.isFullRange { try put(Array(" XCOLORRANGE=FULL".utf8)[...]) }
            try put([0x0A])
        }
        guard let size, size == (frame.width, frame.height) else {
            throw VideoDecodingError(
                .outputFailure,
                "frame size changed to \(frame.width)x\(frame.height) mid-stream; a .y4m file holds one size")
        }
        try put(Array("FRAME\n".utf8)[...])
        try frame.forEachPackedRow { try put($0) }
    }

    private func put(_ bytes: ArraySlice<UInt8>) throws {
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        guard written == bytes.count else {
            throw VideoDecodingError(.outputFailure, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}
