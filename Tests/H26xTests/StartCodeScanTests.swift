import CH26x
import Foundation
import TestSupport
import Testing

@testable import H26x

/// The start-code scan's vector paths (AVX2 and SSE2 on x86, NEON on AArch64) against the byte-by-byte one and a plain
/// Swift search,
/// at every position and length around the vector widths, where an off-by-one would hide; the scan that
/// copies as it goes, the same way.
@Suite struct StartCodeScanTests {
    static func naive(_ bytes: [UInt8]) -> Int {
        var i = 0
        while i + 3 <= bytes.count {
            if bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 1 { return i }
            i += 1
        }
        return bytes.count
    }

    /// Where `path`'s scan finds the first start code; also checks that the copying scan (the one the
    /// depacketizer appends with) finds the same one and copies every byte, so every test below tests both.
    static func scan(_ bytes: [UInt8], path: Int32) -> Int {
        let found = bytes.withUnsafeBufferPointer { Int(ch26x_find_start_code_using(path, $0.baseAddress, $0.count)) }
        // Guard bytes on both sides of the copy: it must write exactly `count` bytes.
        var copy = [UInt8](repeating: 0xEE, count: bytes.count + 2)
        let foundWhileCopying = bytes.withUnsafeBufferPointer { source in
            copy.withUnsafeMutableBufferPointer { destination in
                Int(
                    ch26x_copy_find_start_code_using(
                        path, destination.baseAddress! + 1, source.baseAddress, source.count))
            }
        }
        #expect(foundWhileCopying == found, "copying scan, path \(path), length \(bytes.count)")
        #expect(copy == [0xEE] + bytes + [0xEE], "copied bytes, path \(path), length \(bytes.count)")
        return found
    }

    @Test func theChosenPathIsTheBestThisMachineHas() {
        #if arch(x86_64)
            #expect(ch26x_start_code_path() >= 1)
        #elseif arch(arm64)
            #expect(ch26x_start_code_path() == 1)  // NEON
        #else
            #expect(ch26x_start_code_path() == 0)
        #endif
    }

    @Test(arguments: [Int32(0), 1, 2])
    func findsAStartCodeAtEveryPositionOfEveryLength(path: Int32) {
        for length in 0...100 {
            // Near misses everywhere (00 00 02, 00 01, lone zeros), so that only the real one matches.
            let background = (0..<length).map { i -> UInt8 in [0x00, 0x00, 0x02, 0x01, 0x00, 0x03][i % 6] }
            #expect(Self.scan(background, path: path) == Self.naive(background))
            for position in 0..<max(0, length - 2) {
                var bytes = background
                bytes[position] = 0
                bytes[position + 1] = 0
                bytes[position + 2] = 1
                let expected = Self.naive(bytes)
                #expect(Self.scan(bytes, path: path) == expected, "length \(length), start code at \(position)")
            }
        }
    }

    /// Where the background has no two zeros in a row (as inside most of a NAL unit), a start code at any
    /// position, after a decoy zero pair (00 00 03) or not, is found.
    @Test(arguments: [Int32(0), 1, 2])
    func findsAStartCodeAtEveryPositionAmongSparseZeros(path: Int32) {
        for length in 0...200 {
            // Lone zeros seven bytes apart, each followed by 01: near misses, but no two zeros in a row (nor
            // within six bytes, so that a filter looking at the wrong neighbour would miss the start code).
            let background = (0..<length).map { i -> UInt8 in [0x00, 0x01, 0x55, 0x01, 0x37, 0x01, 0x9A][i % 7] }
            #expect(Self.scan(background, path: path) == Self.naive(background))
            for position in 0..<max(0, length - 2) {
                for decoy in [nil, position / 2, position + 3] {
                    var bytes = background
                    if let decoy, decoy + 3 <= length {
                        bytes.replaceSubrange(decoy..<(decoy + 3), with: [0, 0, 3])
                    }
                    bytes.replaceSubrange(position..<(position + 3), with: [0, 0, 1])
                    #expect(
                        Self.scan(bytes, path: path) == Self.naive(bytes),
                        "length \(length), start code at \(position), decoy at \(decoy ?? -1)")
                }
            }
        }
    }

    @Test(arguments: [Int32(0), 1, 2])
    func agreesOnRandomBytesDenseInZerosAndOnes(path: Int32) {
        var generator = SplitMix64(seed: 0x5EED)
        for _ in 0..<2000 {
            let length = Int(generator.next() % 300)
            let bytes = (0..<length).map { _ -> UInt8 in
                let r = generator.next() % 8
                return r < 5 ? 0 : (r < 7 ? 1 : UInt8(truncatingIfNeeded: generator.next()))
            }
            #expect(Self.scan(bytes, path: path) == Self.naive(bytes))
            // and from every offset, as the depacketizer calls it after each start code it found
            for offset in stride(from: 0, to: length, by: 7) {
                let rest = Array(bytes[offset...])
                #expect(Self.scan(rest, path: path) == Self.naive(rest))
            }
        }
    }

    #if os(Linux) && arch(x86_64)
        /// The NEON path (AArch64), which this machine cannot run: `Tests/StartCodeScanAArch64/run.sh` builds
        /// CH26x for AArch64 with a C checker that tries the inputs above, and runs it under qemu-aarch64.
        @Test func theNEONPathAgreesUnderEmulation() async throws {
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("StartCodeScanAArch64/run.sh").path
            let run = try await runProgram("/bin/bash", [script])
            #expect(run.status == 0, "\(run.all)")
            #expect(run.stdout.contains("path 1: ") && run.stdout.contains("scans agree"), "\(run.all)")
        }
    #endif

    @Test func annexBSplitUsesIt() {
        // 00 00 01 straddling the 32-byte and 16-byte steps.
        var bytes = [UInt8](repeating: 0x55, count: 70)
        bytes.replaceSubrange(31..<34, with: [0, 0, 1])
        #expect(AnnexB.split(bytes[...]) == [0..<31, 34..<70])
    }
}
