#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

import Testing

@testable import VideoDecoding

@Suite struct SinkTests {
    static func frame(_ n: UInt64, width: Int = 4, height: Int = 2) -> I420Frame {
        let strideUV = (width + 1) / 2
        let size = I420Frame.storageSize(height: height, strideY: width, strideUV: strideUV)
        return I420Frame(
            width: width, height: height, timestamp: n, isKeyframe: false, mayBeDamaged: false,
            storage: [UInt8](repeating: UInt8(truncatingIfNeeded: n), count: size), strideY: width, strideUV: strideUV)
    }

    @Test func latestFrameWinsAndCountsWhatASlowConsumerMissed() {
        let sink = LatestFrameSink()
        for n in 0..<10 { sink.push(Self.frame(UInt64(n))) }
        #expect(sink.take()?.timestamp == 9)
        #expect(sink.droppedFrames == 9)
        #expect(sink.take() == nil)
        sink.push(Self.frame(10))
        sink.push(Self.frame(11))
        #expect(sink.take()?.timestamp == 11)
        #expect(sink.droppedFrames == 10)
        #expect(sink.deliveredFrames == 2)
    }

    @Test func boundedQueueMakesTheProducerWaitAndLosesNothing() async {
        let queue = BoundedFrameQueue(capacity: 2)
        let producer = Task {
            for n in 0..<20 { await queue.push(Self.frame(UInt64(n))) }
            await queue.finish()
        }
        var seen: [UInt64] = []
        while let frame = await queue.next() { seen.append(frame.timestamp) }
        await producer.value
        #expect(seen == Array(0..<20))
    }

    @Test func asyncStreamSinkKeepsTheNewest() async {
        let sink = AsyncFrameSink(limit: 2)
        for n in 0..<5 { sink.push(Self.frame(UInt64(n))) }
        sink.finish()
        var seen: [UInt64] = []
        for await frame in sink.frames { seen.append(frame.timestamp) }
        #expect(seen == [3, 4])
    }

    @Test func packedRowsLeaveOutStridePadding() {
        // 3x3 picture with strides 8 (Y) and 4 (UV): packed is 9 + 4 + 4 bytes.
        var storage = [UInt8](repeating: 0xEE, count: I420Frame.storageSize(height: 3, strideY: 8, strideUV: 4))
        for row in 0..<3 { for x in 0..<3 { storage[row * 8 + x] = UInt8(row * 3 + x) } }
        for plane in 0..<2 {  // U then V: 2x2 each, rows of 4 bytes starting after Y's 3 rows of 8
            for row in 0..<2 {
                for x in 0..<2 { storage[24 + plane * 8 + row * 4 + x] = UInt8(0x40 + plane * 4 + row * 2 + x) }
            }
        }
        let frame = I420Frame(
            width: 3, height: 3, timestamp: 0, isKeyframe: true, mayBeDamaged: false, storage: storage, strideY: 8,
            strideUV: 4)
        var packed: [UInt8] = []
        frame.forEachPackedRow { packed += $0 }
        #expect(packed.count == 9 + 4 + 4)
        #expect(packed == Array(0..<9) + [0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47])
    }

    @Test func poolReusesReleasedBuffersAndNeverChangesAHeldFrame() {
        var pool = FramePool(capacity: 1)
        let first = pool.buffer(size: 8) { $0.update(repeating: 1) }
        let held = first  // a consumer keeps this frame's buffer
        let second = pool.buffer(size: 8) { $0.update(repeating: 2) }
        #expect(held == [UInt8](repeating: 1, count: 8))
        #expect(second == [UInt8](repeating: 2, count: 8))
    }
}

@Suite struct MD5Tests {
    /// RFC 1321 appendix A.5 test suite.
    @Test(arguments: [
        ("", "d41d8cd98f00b204e9800998ecf8427e"), ("a", "0cc175b9c0f1b6a831c399e269772661"),
        ("abc", "900150983cd24fb0d6963f7d28e17f72"),
        (
            "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
            "57edf4a22be3c955ac49da2e2107b67a"
        ),
    ])
    func matchesTheRFCTestSuite(input: String, digest: String) {
        var md5 = MD5()
        md5.update(Array(input.utf8))
        #expect(md5.finalize() == digest)
    }
}

@Suite struct Y4MWriterTests {
    @Test func writesAHeaderAndPackedFrames() throws {
        let path = "/tmp/swift-rtp-y4m-test-\(getpid()).y4m"
        defer { unlink(path) }
        do {
            let writer = try Y4MWriter(path: path, frameRate: (25, 1))
            try writer.write(SinkTests.frame(1, width: 4, height: 2))
            try writer.write(SinkTests.frame(2, width: 4, height: 2))
            let error = #expect(throws: VideoDecodingError.self) {
                try writer.write(SinkTests.frame(3, width: 6, height: 2))
            }
            #expect(error?.code == .outputFailure)
        }
        guard let file = fopen(path, "rb") else {
            Issue.record("no output file")
            return
        }
        defer { fclose(file) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = fread(&bytes, 1, bytes.count, file)
        let header = "YUV4MPEG2 W4 H2 F25:1 Ip A1:1 C420jpeg\n"
        let frame = 4 * 2 + 2 * 2 * 1  // Y 4x2, U and V 2x1
        #expect(count == header.utf8.count + 2 * ("FRAME\n".utf8.count + frame))
        #expect(Array(bytes.prefix(header.utf8.count)) == Array(header.utf8))
        #expect(bytes[header.utf8.count + 6] == 1)  // first frame's first luma byte
    }

    @Test func anUnwritablePathIsAClearError() {
        let error = #expect(throws: VideoDecodingError.self) { try Y4MWriter(path: "/nonexistent/dir/out.y4m") }
        #expect(error?.description.contains("/nonexistent/dir/out.y4m") == true)
    }
}
