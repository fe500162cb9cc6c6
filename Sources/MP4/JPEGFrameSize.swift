/// The picture size a JPEG file's frame header (SOF0 to SOF15) gives, or nil when none reads before the
/// scan starts.
func JPEGFrameSize(_ file: ArraySlice<UInt8>) -> (width: Int, height: Int)? {
    var i = file.startIndex
    guard file.count >= 4, file[i] == 0xFF, file[i + 1] == 0xD8 else { return nil }
    i += 2
    while i + 4 <= file.endIndex {
        guard file[i] == 0xFF else { return nil }
        let marker = file[i + 1]
        if marker == 0xFF {  // fill byte
            i += 1
            continue
        }
        let length = Int(file[i + 2]) << 8 | Int(file[i + 3])
        guard length >= 2 else { return nil }
        // SOFn, but not DHT (C4), JPG (C8) or DAC (CC)
        if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
            guard i + 9 <= file.endIndex, length >= 7 else { return nil }
            let height = Int(file[i + 5]) << 8 | Int(file[i + 6])
            let width = Int(file[i + 7]) << 8 | Int(file[i + 8])
            return width > 0 && height > 0 ? (width, height) : nil
        }
        if marker == 0xDA { return nil }  // the scan: no frame header before it
        i += 2 + length
    }
    return nil
}
