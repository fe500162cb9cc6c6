/// Splits Annex B bytes (reference files that GStreamer wrote) into NAL units at their start codes: the
/// tests' own splitter, independent of the library's, so that a reference is not read by the code it checks.
public enum AnnexBSplitter {
    public static func nalUnits(_ bytes: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var start: Int?
        var i = 0
        func close(_ end: Int) {
            guard let s = start else { return }
            var e = end
            while e > s && bytes[e - 1] == 0 { e -= 1 }
            if e > s { out.append(Array(bytes[s..<e])) }
        }
        while i + 3 <= bytes.count {
            if bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 1 {
                close(i)
                i += 3
                start = i
            } else {
                i += 1
            }
        }
        close(bytes.count)
        return out
    }
}
