import H26x
import RTP

/// Splits JPEG pictures into RTP payloads (RFC 2435): the inverse of ``JPEGDepacketizer``.
///
/// A picture is sent as its entropy-coded data, in fragments of at most ``maxPayloadSize`` bytes, each behind the
/// main JPEG header (its type from the picture's sampling: 0 for 4:2:2, 1 for 4:2:0, 64 or 65 with restart
/// markers; its size in 8-pixel blocks, 0 above 2040 pixels, which the SDP then announces); the first fragment
/// carries the picture's quantization tables in band (Q 255). The last fragment carries the marker bit.
///
/// RFC 2435 carries baseline YCbCr pictures with the standard Huffman tables: a picture that is not one
/// (progressive, 16-bit tables, grayscale, another sampling, optimized Huffman tables) is not sent, and
/// ``lastError`` says why.
public struct JPEGPacketizer: Sendable {
    /// The largest payload it makes, in bytes.
    public let maxPayloadSize: Int
    /// Why the last picture not sent was not sent.
    public private(set) var lastError: JPEGError?
    /// Pictures not sent (see ``lastError``).
    public private(set) var droppedPictures = 0
    private var payload: [UInt8] = []

    /// The smallest ``maxPayloadSize`` accepted: the headers, two tables, and some data.
    public static let minPayloadSize = 256

    public init(maxPayloadSize: Int = RTPSender.defaultMaxPayloadSize) {
        self.maxPayloadSize = max(maxPayloadSize, Self.minPayloadSize)
        payload.reserveCapacity(self.maxPayloadSize)
    }

    /// Calls `emit` with each payload of the JPEG picture `unit` (codec `.jpeg`), in order; `isLast` for its last.
    public mutating func packetize<E: Error>(
        _ unit: AccessUnit, _ emit: (_ payload: ArraySlice<UInt8>, _ isLast: Bool) throws(E) -> Void
    ) throws(E) {
        guard let file = unit.jpeg else { return }
        let picture: JPEGPictureLayout
        do throws(JPEGError) {
            picture = try JPEGPictureLayout(file)
        } catch {
            lastError = error
            droppedPictures += 1
            return
        }
        var offset = picture.scan.lowerBound
        while offset < picture.scan.upperBound {
            payload.removeAll(keepingCapacity: true)
            let fragmentOffset = offset - picture.scan.lowerBound
            payload += [
                0, UInt8(truncatingIfNeeded: fragmentOffset >> 16), UInt8(truncatingIfNeeded: fragmentOffset >> 8),
                UInt8(truncatingIfNeeded: fragmentOffset), picture.type, 255,
                picture.width <= 2040 ? UInt8(picture.width / 8) : 0,
                picture.height <= 2040 ? UInt8(picture.height / 8) : 0,
            ]
            if picture.restartInterval > 0 {
                payload += [UInt8(picture.restartInterval >> 8), UInt8(picture.restartInterval & 0xFF), 0xFF, 0xFF]
            }
            if fragmentOffset == 0 {
                let length = picture.tables.reduce(0) { $0 + $1.count }
                payload += [0, 0, UInt8(length >> 8), UInt8(length & 0xFF)]
                for table in picture.tables { payload.append(contentsOf: file[table]) }
            }
            let end = min(offset + maxPayloadSize - payload.count, picture.scan.upperBound)
            payload.append(contentsOf: file[offset..<end])
            try emit(payload[...], end == picture.scan.upperBound)
            offset = end
        }
    }
}

/// Where a baseline JPEG file keeps what RFC 2435 sends: its size, type, restart interval, the quantization
/// tables its components use (luma's, then chroma's, the same one twice when they share it), and its
/// entropy-coded data.
struct JPEGPictureLayout {
    var width = 0
    var height = 0
    var type: UInt8 = 0
    var restartInterval = 0
    var tables: [Range<Int>] = []
    var scan: Range<Int> = 0..<0

    init(_ file: ArraySlice<UInt8>) throws(JPEGError) {
        let start = file.startIndex
        guard file.count > 4, file[start] == 0xFF, file[start + 1] == 0xD8 else {
            throw JPEGError(.malformedPayload, "not a JPEG file (no SOI marker)")
        }
        var tablesByID: [UInt8: Range<Int>] = [:]
        var componentTables: [UInt8] = []
        /// Whether each Huffman table the file defines (by class << 4 | identifier) is the standard one.
        var huffmanIsStandard: [UInt8: Bool] = [:]
        var position = start + 2
        while position + 4 <= file.endIndex {
            guard file[position] == 0xFF else {
                throw JPEGError(.malformedPayload, "a JPEG segment does not start with a marker")
            }
            let marker = file[position + 1]
            if marker == 0xFF {  // fill byte
                position += 1
                continue
            }
            let length = Int(file[position + 2]) << 8 | Int(file[position + 3])
            // The length counts its own two bytes: less is no segment (and no range to make).
            guard length >= 2, position + 2 + length <= file.endIndex else {
                throw JPEGError(.malformedPayload, "a JPEG segment of length \(length) does not fit the file")
            }
            let body = (position + 4)..<(position + 2 + length)
            switch marker {
            case 0xDB:  // DQT: tables of 1 + 64 bytes (8-bit entries)
                var table = body.lowerBound
                while table < body.upperBound {
                    guard file[table] >> 4 == 0, table + 65 <= body.upperBound else {
                        throw JPEGError(
                            .unsupportedPicture, "16-bit quantization tables are not sent (RFC 2435 carries 8-bit ones)"
                        )
                    }
                    tablesByID[file[table] & 0x0F] = (table + 1)..<(table + 65)
                    table += 65
                }
            case 0xC0:  // SOF0, baseline
                guard body.count >= 15, file[body.lowerBound] == 8, file[body.lowerBound + 5] == 3 else {
                    throw JPEGError(
                        .unsupportedPicture, "only 8-bit YCbCr pictures of three components are sent (RFC 2435)")
                }
                height = Int(file[body.lowerBound + 1]) << 8 | Int(file[body.lowerBound + 2])
                width = Int(file[body.lowerBound + 3]) << 8 | Int(file[body.lowerBound + 4])
                let sampling = (0..<3).map { file[body.lowerBound + 7 + 3 * $0] }
                componentTables = (0..<3).map { file[body.lowerBound + 8 + 3 * $0] }
                switch (sampling[0], sampling[1], sampling[2]) {
                case (0x21, 0x11, 0x11): type = 0
                case (0x22, 0x11, 0x11): type = 1
                default:
                    throw JPEGError(
                        .unsupportedPicture, "the picture's sampling is not 4:2:2 or 4:2:0, the two RFC 2435 carries")
                }
            case 0xC4:  // DHT: tables of 1 + 16 counts + their symbols
                var table = body.lowerBound
                while table < body.upperBound {
                    guard table + 17 <= body.upperBound else {
                        throw JPEGError(.malformedPayload, "a DHT segment is cut short")
                    }
                    let counts = file[(table + 1)..<(table + 17)]
                    let end = table + 17 + counts.reduce(0) { $0 + Int($1) }
                    guard end <= body.upperBound else {
                        throw JPEGError(.malformedPayload, "a Huffman table runs past its segment")
                    }
                    let classAndID = file[table]
                    huffmanIsStandard[classAndID] = JPEGFileHeader.standardHuffmanTables.contains {
                        $0.classAndID == classAndID && $0.counts.elementsEqual(counts)
                            && $0.symbols.elementsEqual(file[(table + 17)..<end])
                    }
                    table = end
                }
            case 0xC1...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                throw JPEGError(.unsupportedPicture, "only baseline JPEG is sent (RFC 2435), not SOF\(marker - 0xC0)")
            case 0xDD:  // DRI
                guard body.count >= 2 else { throw JPEGError(.malformedPayload, "a DRI segment is cut short") }
                restartInterval = Int(file[body.lowerBound]) << 8 | Int(file[body.lowerBound + 1])
            case 0xDA:  // SOS: the entropy-coded data follows, up to the EOI
                guard width > 0, componentTables.count == 3 else {
                    throw JPEGError(.malformedPayload, "a JPEG scan before its frame header")
                }
                // One interleaved scan of the three components, luminance coded with the Huffman tables 0 and
                // chrominance with 1, each the standard one (or none given: a file may leave them implied):
                // what a receiver rebuilds (RFC 2435 3.1).
                guard body.count >= 7, file[body.lowerBound] == 3 else {
                    throw JPEGError(
                        .unsupportedPicture,
                        "the picture's scan is not one interleaved scan of its three components (RFC 2435)")
                }
                let selectors = (0..<3).map { file[body.lowerBound + 2 + 2 * $0] }
                guard selectors == [0x00, 0x11, 0x11],
                    [0x00, 0x10, 0x01, 0x11].allSatisfy({ huffmanIsStandard[$0] ?? true })
                else {
                    throw JPEGError(
                        .unsupportedPicture,
                        "the picture is coded with Huffman tables other than the standard ones RFC 2435 carries (an encoder's"
                            + " optimized tables: encode with the standard ones, e.g. ffmpeg -huffman default)")
                }
                var end = file.endIndex
                if file.count >= 2, file[end - 2] == 0xFF, file[end - 1] == 0xD9 { end -= 2 }
                scan = body.upperBound..<max(body.upperBound, end)
                guard let luma = tablesByID[componentTables[0]], let chroma = tablesByID[componentTables[1]] else {
                    throw JPEGError(
                        .malformedPayload, "the picture's components use quantization tables it does not define")
                }
                // Types 0 and 1 take two tables, luminance's and chrominance's (RFC 2435 4.1): a picture whose
                // components share one sends it twice (GStreamer's depayloader decodes such a picture wrongly from
                // one).
                tables = [luma, chroma]
                if restartInterval > 0 { type += 64 }
                return
            default:
                break
            }
            position = body.upperBound
        }
        throw JPEGError(.malformedPayload, "a JPEG file without a scan")
    }
}
