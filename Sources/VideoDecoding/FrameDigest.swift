/// MD5 of each frame's tightly packed Y, U and V planes: the digest GStreamer's `checksumsink hash=md5`
/// prints for an I420 buffer with no row padding.
public enum FrameDigest {
    public static func md5(_ frame: I420Frame) -> String {
        var md5 = MD5()
        frame.forEachPackedRow { md5.update($0) }
        return md5.finalize()
    }
}
