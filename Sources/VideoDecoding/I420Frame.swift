import RTP

/// A decoded picture in I420 (8-bit Y, then U, then V at half width and height), with the stream's own
/// timestamp, never the time it was decoded or received.
public struct I420Frame: Sendable {
    public let width: Int
    public let height: Int
    /// The RTP timestamp of the access unit it was decoded from, extended to 64 bits (90 kHz for video).
    public let timestamp: UInt64
    /// ``timestamp`` on the media clock in nanoseconds.
    public var presentationTimeNanoseconds: Int64 {
        Int64(truncatingIfNeeded: timestamp.multipliedFullWidth(by: 1_000_000_000).low / 90_000)
    }
    /// Whether it was decoded from a keyframe (IDR / IRAP).
    public let isKeyframe: Bool
    /// Whether it may show damage: decoded from an access unit with loss, or after one and before the
    /// next complete keyframe.
    public let mayBeDamaged: Bool
    /// The three planes, one after the other, each `stride` bytes per row.
    public let storage: [UInt8]
    public let strideY: Int
    public let strideUV: Int
    /// When the sender captured it, on its wall clock (RTCP sender reports), when known. Set by whoever
    /// dates frames from their units (`TrackDecoders`, under the decoded sequences); decoders leave it nil.
    public var captureTime: WallClockTime? = nil
    /// The track of the access unit it was decoded from (``AccessUnit/track``): set by whoever runs a
    /// decoder per track (`TrackDecoders`); decoders leave it 0.
    public var track: Int = 0
    /// Whether it is the first frame of its track after a break (the access unit it came from was a
    /// discontinuity): its timestamp does not follow the previous frame's. Set by `TrackDecoders`.
    public var isDiscontinuity = false
    /// Whether the samples use the full 0-255 range (JPEG pictures), rather than video's 16-235 (16-240 for
    /// chroma): what a renderer or encoder must be told.
    public var isFullRange = false

    /// Chroma plane size: (width + 1) / 2 by (height + 1) / 2.
    public var chromaWidth: Int { (width + 1) / 2 }
    public var chromaHeight: Int { (height + 1) / 2 }

    public init(
        width: Int, height: Int, timestamp: UInt64, isKeyframe: Bool, mayBeDamaged: Bool, storage: [UInt8],
        strideY: Int, strideUV: Int
    ) {
        self.width = width
        self.height = height
        self.timestamp = timestamp
        self.isKeyframe = isKeyframe
        self.mayBeDamaged = mayBeDamaged
        self.storage = storage
        self.strideY = strideY
        self.strideUV = strideUV
    }

    /// The bytes `storage` needs for a picture of this size with these strides.
    public static func storageSize(height: Int, strideY: Int, strideUV: Int) -> Int {
        strideY * height + 2 * strideUV * ((height + 1) / 2)
    }

    /// The Y plane, `strideY` bytes per row.
    public var y: ArraySlice<UInt8> { storage[0..<(strideY * height)] }
    /// The U plane, `strideUV` bytes per row.
    public var u: ArraySlice<UInt8> {
        let start = strideY * height
        return storage[start..<(start + strideUV * chromaHeight)]
    }
    /// The V plane, `strideUV` bytes per row.
    public var v: ArraySlice<UInt8> {
        let start = strideY * height + strideUV * chromaHeight
        return storage[start..<(start + strideUV * chromaHeight)]
    }

    /// Calls `body` with each row of Y, then of U, then of V, without padding: the tightly packed picture.
    public func forEachPackedRow(_ body: (ArraySlice<UInt8>) throws -> Void) rethrows {
        for row in 0..<height { try body(storage[(row * strideY)..<(row * strideY + width)]) }
        for plane in 0..<2 {
            let base = strideY * height + plane * strideUV * chromaHeight
            for row in 0..<chromaHeight {
                try body(storage[(base + row * strideUV)..<(base + row * strideUV + chromaWidth)])
            }
        }
    }
}
