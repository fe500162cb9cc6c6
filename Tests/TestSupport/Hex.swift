/// The bytes a hex string spells (two digits a byte, either case), as the fixture scripts write keys and
/// records; nil for an odd number of digits or anything that is not one.
public func bytes(hex: some StringProtocol) -> [UInt8]? {
    let digits = Array(hex.utf8)
    guard digits.count % 2 == 0 else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(digits.count / 2)
    for start in stride(from: 0, to: digits.count, by: 2) {
        guard let byte = UInt8(String(decoding: digits[start...start + 1], as: UTF8.self), radix: 16) else {
            return nil
        }
        bytes.append(byte)
    }
    return bytes
}
