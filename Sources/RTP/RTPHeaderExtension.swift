/// An RTP header extension (RFC 3550 section 5.3.1), with its elements readable when it uses the
/// one-byte or two-byte form of RFC 8285.
public struct RTPHeaderExtension: Sendable {
    /// The 16-bit "defined by profile" field: 0xBEDE for one-byte elements, 0x100x for two-byte ones.
    public let profile: UInt16
    /// The extension data after its 4-byte header.
    public let data: ArraySlice<UInt8>

    /// Creates a view of an extension.
    public init(profile: UInt16, data: ArraySlice<UInt8>) {
        self.profile = profile
        self.data = data
    }

    /// The element format, when the profile field names one of RFC 8285's.
    public enum ElementForm: Sendable {
        case oneByte, twoByte
    }

    /// The RFC 8285 form in use, or `nil` for another profile's extension.
    public var elementForm: ElementForm? {
        if profile == 0xBEDE { return .oneByte }
        if profile & 0xFFF0 == 0x1000 { return .twoByte }
        return nil
    }

    /// One RFC 8285 element.
    public struct Element: Sendable {
        /// The local identifier (1...14 in the one-byte form, 1...255 in the two-byte form).
        public let id: UInt8
        /// The element's data.
        public let data: ArraySlice<UInt8>
    }

    /// Appends the extension as it follows a packet's fixed header and CSRCs: the profile field, the length in
    /// 32-bit words, then the data, padded with zeros to a whole word.
    public func append(to out: inout [UInt8]) {
        let words = (data.count + 3) / 4
        out.appendBigEndian(profile)
        out.appendBigEndian(UInt16(truncatingIfNeeded: words))
        out.append(contentsOf: data)
        out.append(contentsOf: repeatElement(0, count: words * 4 - data.count))
    }

    /// The RFC 8285 elements in order. Empty for other profiles. Iteration stops at the first element
    /// whose length runs past the extension (see ``elementsAreWellFormed``) and at the one-byte form's
    /// reserved id 15.
    public var elements: Elements { Elements(form: elementForm, data: data) }

    /// Whether every element fits inside the extension.
    public var elementsAreWellFormed: Bool {
        var iterator = elements.makeIterator()
        while iterator.next() != nil {}
        return !iterator.malformed
    }

    /// The data of the first element with `id`, if there is one.
    public func element(id: UInt8) -> ArraySlice<UInt8>? {
        elements.first { $0.id == id }?.data
    }

    /// The RFC 8285 elements of an extension.
    public struct Elements: Sequence, Sendable {
        let form: ElementForm?
        let data: ArraySlice<UInt8>

        public func makeIterator() -> Iterator { Iterator(form: form, data: data, index: data.startIndex) }

        /// Walks the elements, skipping padding bytes.
        public struct Iterator: IteratorProtocol {
            let form: ElementForm?
            let data: ArraySlice<UInt8>
            var index: Int
            /// Set when iteration stopped on an element that does not fit.
            public private(set) var malformed = false

            public mutating func next() -> Element? {
                guard let form else { return nil }
                while index < data.endIndex {
                    let first = data[index]
                    if first == 0 {  // padding
                        index += 1
                        continue
                    }
                    let id: UInt8
                    let length: Int
                    let headerLength: Int
                    switch form {
                    case .oneByte:
                        id = first >> 4
                        if id == 15 {
                            index = data.endIndex
                            return nil
                        }
                        length = Int(first & 0x0F) + 1
                        headerLength = 1
                    case .twoByte:
                        guard index + 1 < data.endIndex else {
                            malformed = true
                            return nil
                        }
                        id = first
                        length = Int(data[index + 1])
                        headerLength = 2
                    }
                    let start = index + headerLength
                    guard start + length <= data.endIndex else {
                        malformed = true
                        index = data.endIndex
                        return nil
                    }
                    index = start + length
                    return Element(id: id, data: data[start..<(start + length)])
                }
                return nil
            }
        }
    }
}
