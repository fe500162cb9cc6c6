@_spi(SansIO) @testable import RTPTransport
import MediaDecoding
import MediaPipeline
import Foundation
import RTP
import FFmpegDecoding
import H26x
import TestSupport
import Testing
import VideoDecoding

/// The custom transports end to end on loopback against small real senders
/// (`Fixtures/scripts/rtp-senders.py`) that send the RTP of h264-gst.pcap; what arrives must decode to
/// GStreamer's frames of that capture (expected/h264-gst.pcap.gst-frames.md5).
@Suite(.serialized) struct CustomTransportTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let capture = root.appendingPathComponent("Fixtures/captures/h264-gst.pcap").path
    static let packetCount = 1079

    /// A sender process; `output` is what it printed after "ready" (read once it has exited).
    final class Sender: @unchecked Sendable {
        let process: Process
        let pipe: Pipe
        let port: Int

        /// Starts the sender (waiting for it on a thread of its own).
        static func start(_ mode: String) async throws -> Sender {
            try await onOwnThread { try Sender(mode) }
        }

        /// Starts the sender on a random port, another one when that port is taken (a random port can be a
        /// client connection's ephemeral port of the moment).
        private init(_ mode: String) throws {
            var lastLine = ""
            for _ in 0..<5 {
                let (process, pipe, port) = (Process(), Pipe(), Int.random(in: 30_000..<60_000))
                process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
                process.arguments = [
                    root.appendingPathComponent("Fixtures/scripts/rtp-senders.py").path, mode, String(port), capture,
                    "5000",
                ]
                process.standardOutput = pipe
                process.standardError = FileHandle.nullDevice
                try process.run()
                lastLine = firstLine(of: pipe.fileHandleForReading)
                if lastLine == "ready" {
                    (self.process, self.pipe, self.port) = (process, pipe, port)
                    return
                }
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            }
            throw RTPTransportError(.connectionFailed, "the sender did not start: \(lastLine)")
        }

        func finish() -> String {
            for _ in 0..<1000 where process.isRunning { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            return String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self)
        }

        deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    }

    /// GStreamer's frames of the capture, and ours of `packets`, through the public road: the bytes into a
    /// `MediaPipeline`, its access units into FFmpeg.
    static func frames(of packets: [[UInt8]]) throws -> (ours: [String], reference: [String]) {
        var pipeline = MediaPipeline(depacketizers: [Depacketizer(codec: .h264)])
        var decoders = TrackDecoders { _, codec in try FFmpegVideoDecoder(codec: codec) }
        var ours: [String] = []
        func decode() throws {
            while let unit = pipeline.next()?.accessUnit { try decoders.decode(unit) }
            while let frame = decoders.nextFrame() { ours.append(FrameDigest.md5(frame)) }
        }
        for (index, bytes) in packets.enumerated() {
            pipeline.push(bytes: bytes[...], track: 0, arrival: ArrivalTime(nanoseconds: Int64(index) * 1_000_000))
            try decode()
        }
        pipeline.finish()
        try decode()
        try decoders.drain()
        try decode()
        #expect(pipeline.invalidPackets == 0)
        let reference = try String(
            contentsOf: root.appendingPathComponent("Fixtures/expected/h264-gst.pcap.gst-frames.md5"), encoding: .utf8
        ).split(separator: "\n").map(String.init)
        return (ours, reference)
    }

    @Test func udpWithHelloAndATimerDrivenHeartbeatThroughASendersStall() async throws {
        let sender = try await Sender.start("udp")
        var configuration = UDPHeartbeatTransport.Configuration(
            host: "127.0.0.1", port: sender.port, hello: Array("HELLO".utf8), heartbeat: Array("BEAT".utf8),
            interval: .milliseconds(300))
        // The whole stream (1.3 MB) fits the socket's buffer: a receiver starved of CPU by a busy machine (other
        // tests beside it) loses nothing; what is checked is delivery, not scheduling.
        configuration.receiveBufferBytes = 4 << 20
        let transport = UDPHeartbeatTransport(configuration)
        let stream = try await transport.start()
        var packets: [[UInt8]] = []
        // A packet lost on loopback (a busy machine) would leave the loop waiting for one that never comes:
        // closing the transport ends the stream.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(20))
            await transport.close()
        }
        var iterator = stream.makeAsyncIterator()
        while packets.count < Self.packetCount {
            // The sender stalls for 2 s: only the heartbeat timer keeps it going.
            guard let packet = try await iterator.next() else { break }
            packets.append(packet)
        }
        watchdog.cancel()
        await transport.close()
        let report = try await onOwnThread { sender.finish() }
        #expect(report.hasPrefix("heartbeats"), "\(report)")
        #expect(packets.count == Self.packetCount)
        #expect(transport.heartbeatsSent >= 5)
        let (ours, reference) = try Self.frames(of: packets)
        #expect(ours == reference)
    }

    /// The socket asks for the receive buffer configured (Linux doubles what is asked, up to twice
    /// `rmem_max`); 0 leaves the system's default.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/sys/net/core/rmem_max")))
    func theSocketGetsTheReceiveBufferAsked() async throws {
        func sysctl(_ name: String) -> Int {
            let text = (try? String(contentsOfFile: "/proc/sys/net/core/\(name)", encoding: .utf8)) ?? ""
            return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }
        for (asked, granted) in [(512 << 10, 2 * min(512 << 10, sysctl("rmem_max"))), (0, sysctl("rmem_default"))] {
            var configuration = UDPHeartbeatTransport.Configuration(
                host: "127.0.0.1", port: 9, hello: [1], heartbeat: [2], interval: .seconds(10))
            configuration.receiveBufferBytes = asked
            let transport = UDPHeartbeatTransport(configuration)
            let stream = try await transport.start()  // kept: dropping the stream closes the socket
            #expect(try await transport.grantedReceiveBuffer() == granted)
            await transport.close()
            _ = stream
        }
    }

    @Test func rtpInAChunkedHTTPBody() async throws {
        let sender = try await Sender.start("http")
        let transport = HTTPStreamTransport(host: "127.0.0.1", port: sender.port, path: "/stream")
        var packets: [[UInt8]] = []
        for try await packet in try await transport.start() { packets.append(packet) }
        #expect(packets.count == Self.packetCount)
        let (ours, reference) = try Self.frames(of: packets)
        #expect(ours == reference)
        _ = try await onOwnThread { sender.finish() }
    }

    @Test(arguments: [
        ("/zero", RTPTransportError.Code.invalidLength, "length of 0"),
        ("/huge", .invalidLength, "above the limit"),
        ("/cut", .truncated, "into a packet"),
        ("/missing", .protocolViolation, "404"),
    ])
    func badStreamsEndWithAClearError(path: String, code: RTPTransportError.Code, words: String) async throws {
        let sender = try await Sender.start("http")
        defer { kill(sender.process.processIdentifier, SIGKILL) }
        let transport = HTTPStreamTransport(host: "127.0.0.1", port: sender.port, path: path)
        var received = 0
        let error = await #expect(throws: RTPTransportError.self) {
            for try await _ in try await transport.start() { received += 1 }
        }
        #expect(error?.code == code)
        #expect(error?.description.contains(words) == true, "\(error?.description ?? "")")
        #expect(received <= Self.packetCount)
    }
}

@Suite struct LengthPrefixedFramerTests {
    @Test func packetsSplitAcrossAppendsComeOutWhole() throws {
        var framer = LengthPrefixedFramer()
        let stream: [UInt8] = [0, 0, 0, 3, 1, 2, 3, 0, 0, 0, 1, 9]
        var packets: [[UInt8]] = []
        for byte in stream {
            framer.append([byte])
            while let packet = try framer.next() { packets.append(packet) }
        }
        #expect(packets == [[1, 2, 3], [9]])
        #expect(framer.pendingBytes == 0)
    }

    @Test func theLimitIsKept() {
        var framer = LengthPrefixedFramer(maxPacketBytes: 100)
        framer.append([0, 0, 0, 101] + [UInt8](repeating: 0, count: 101))
        #expect((#expect(throws: RTPTransportError.self) { try framer.next() })?.code == .invalidLength)
        var exact = LengthPrefixedFramer(maxPacketBytes: 100)
        exact.append([0, 0, 0, 100] + [UInt8](repeating: 7, count: 100))
        #expect((try? exact.next())?.count == 100)
    }
}
