import Foundation
import H26x
import NIOCore
import NIOPosix
import RTP
@_spi(SansIO) import RTSP
import RTSPClient
import RTSPServer
import SDP
import TestSupport
import Testing

/// The server's budget per connection, against the clients a server on a network meets: one that sends and never
/// reads (with and without an account), one that trickles a request a byte at a time, one that holds a body
/// unfinished, many from one address, a guesser. Each is cut off or held within its bound while a real viewer
/// plays beside it. (The flooders load the machine on purpose: they take their turn with the other such tests.)
@Suite(.loadExclusive) struct HostileClientTests {
    static let options = "OPTIONS * RTSP/1.0\r\nCSeq: 1\r\n\r\n"
    static let describe = "DESCRIBE rtsp://127.0.0.1/live RTSP/1.0\r\nCSeq: 2\r\n\r\n"

    /// A server of one pushed H.264 track at /live, with `configure`'s limits.
    static func started(_ configure: (inout RTSPServer.Configuration) -> Void = { _ in }) async throws
        -> (RTSPServer, MediaSource, Int)
    {
        let source = try MediaSource(formats: [.video(VideoFormat(codec: .h264, payloadType: 96, packetizationMode: 1))]
        )
        var configuration = RTSPServer.Configuration(host: "127.0.0.1", port: 0)
        configure(&configuration)
        let server = RTSPServer(configuration: configuration)
        server.mount(source, at: "/live")
        try await server.start()
        return (server, source, try #require(server.port))
    }

    /// A viewer plays `count` pictures pushed while the hostile clients are at work: every one arrives whole.
    static func viewerPlays(port: Int, source: MediaSource, count: Int = 40, credentials: String = "") async throws {
        let session = try await RTSPSession.connect(to: "rtsp://\(credentials)127.0.0.1:\(port)/live")
        let units = try session.accessUnits()
        let pusher = Task {
            while source.subscriberCount < 1 { try await Task.sleep(for: .milliseconds(10)) }
            for index in 0..<count {
                source.push(.video(RTSPServerTests.picture(index, size: 4000)))
                try await Task.sleep(for: .milliseconds(10))
            }
            source.finish()
        }
        var received = 0
        for try await unit in units where unit.isComplete { received += 1 }
        try await pusher.value
        #expect(received == count)
    }

    /// A client that sends requests and never reads their answers is not read either once its answers fill its
    /// budget: it can push a few MB into socket buffers, not the 400 MB it pushed before (the server answered each
    /// request and kept reading, 761 MB in 20 s). With an account required, the 401s are held back the same way.
    @Test(arguments: [false, true]) func aClientThatNeverReadsIsNotReadEither(authenticates: Bool) async throws {
        let (server, source, port) = try await Self.started {
            $0.writeBufferLimit = 256 << 10
            if authenticates {
                $0.authentication = ServerAuthentication(users: [Credentials(user: "u", password: "p")])
            }
        }
        let flooder = try await HostilePeer(port: port)
        // Requests the server answers (a 200, or a 401 that is not a guess: it carries no Authorization).
        let request = String(repeating: authenticates ? Self.describe : Self.options, count: 1000)
        async let flooded = flooder.flood(request, for: .seconds(4))
        try await Self.viewerPlays(port: port, source: source, credentials: authenticates ? "u:p@" : "")
        let sent = await flooded
        // Its last writes stay stuck: the server reads nothing more from it (without the bound, it read on and
        // queued every answer: 26 to 32 MB of requests in these 4 s, in process, and a writable flooder).
        try await Task.sleep(for: .milliseconds(300))
        #expect(!flooder.channel.isWritable, "the server still reads a client that never reads")
        #expect(sent > 0 && sent < 24 << 20, "the flooder sent \(sent >> 20) MB")
        await flooder.close()
        await server.stop()
    }

    /// A request trickled a byte at a time, never finished, is cut off at the request deadline with a 408; bytes
    /// that never make a request keep nothing open.
    @Test func aTrickledRequestIsCutOffAtTheDeadline() async throws {
        let (server, _, port) = try await Self.started { $0.requestTimeout = .seconds(1) }
        let slow = try await HostilePeer(port: port, reads: true)
        let trickle = Task {
            for byte in "OPTIONS * RTSP/1.0\r\nCSeq: 1\r\nUser-Agent: slow".utf8 {
                try await slow.channel.writeAndFlush(ByteBuffer(bytes: [byte]))
                try await Task.sleep(for: .milliseconds(150))
            }
        }
        let closedAfter = await slow.closed(within: .seconds(6))
        trickle.cancel()
        #expect(closedAfter != nil, "a trickling client was not cut off")
        #expect((closedAfter ?? .zero) < .seconds(4))
        #expect(slow.text.hasPrefix("RTSP/1.0 408"), "\(slow.text)")
        await server.stop()
    }

    /// A body larger than the bound is refused at its header (400, closed); one within it that never arrives is
    /// cut off at the request deadline: a held body holds at most the bound, not a MB a connection.
    @Test func bodiesAreBoundedAndMustArriveInTime() async throws {
        let (server, _, port) = try await Self.started {
            $0.requestTimeout = .seconds(1)
            $0.maxRequestBodyBytes = 4096
        }
        let large = try await HostilePeer(port: port, reads: true)
        try await large.send(
            "SET_PARAMETER rtsp://127.0.0.1/live RTSP/1.0\r\nCSeq: 1\r\nContent-Length: 1048575\r\n\r\nx")
        #expect(await large.closed(within: .seconds(2)) != nil)
        #expect(large.text.hasPrefix("RTSP/1.0 400"), "\(large.text)")
        let held = try await HostilePeer(port: port, reads: true)
        try await held.send(
            "SET_PARAMETER rtsp://127.0.0.1/live RTSP/1.0\r\nCSeq: 1\r\nContent-Length: 4000\r\n\r\nxyz")
        let closedAfter = await held.closed(within: .seconds(5))
        #expect(
            closedAfter != nil && closedAfter! > .milliseconds(900), "closed after \(String(describing: closedAfter))")
        #expect(held.text.hasPrefix("RTSP/1.0 408"), "\(held.text)")
        await server.stop()
    }

    /// One address holds at most its share of connections: more from it are closed at once, while a viewer from
    /// another address plays.
    @Test func oneAddressCannotHoldEveryPlace() async throws {
        let (server, source, port) = try await Self.started {
            $0.maxConnectionsPerAddress = 4
            $0.maxConnections = 8
        }
        var held: [HostilePeer] = []
        for _ in 0..<6 { held.append(try await HostilePeer(port: port, from: "127.0.0.2", reads: true)) }
        var refused = 0
        for peer in held where await peer.closed(within: .milliseconds(500)) != nil { refused += 1 }
        #expect(refused == 2)
        try await Self.viewerPlays(port: port, source: source)
        for peer in held { await peer.close() }
        await server.stop()
    }

    /// Wrong answers to the challenge are slowed (the 401s of a pipelined burst come one after another, the later
    /// ones held), and the connection ends after the most it may give.
    @Test func guessesAreSlowedAndEndTheConnection() async throws {
        let (server, _, port) = try await Self.started {
            $0.authentication = ServerAuthentication(
                users: [Credentials(user: "admin", password: "right")], schemes: [.basic])
            $0.maxAuthenticationFailures = 5
        }
        let guesser = try await HostilePeer(port: port, from: "127.0.0.3", reads: true)
        let start = ContinuousClock.now
        var burst = ""
        for (index, guess) in ["a", "b", "c", "d", "e", "f", "g"].enumerated() {
            let value = Array("admin:\(guess)".utf8)
            burst +=
                "DESCRIBE rtsp://127.0.0.1/live RTSP/1.0\r\nCSeq: \(index + 1)\r\nAuthorization: Basic \(Self.base64(value))\r\n\r\n"
        }
        try await guesser.send(burst)
        let closedAfter = await guesser.closed(within: .seconds(10))
        let elapsed = ContinuousClock.now - start
        #expect(closedAfter != nil)
        // Held 0, 125, 250 and 500 ms before the fifth ends it: at least 0.875 s for five guesses.
        #expect(elapsed > .milliseconds(850), "five guesses answered in \(elapsed)")
        #expect(guesser.text.components(separatedBy: "RTSP/1.0 401").count - 1 == 5)
        await server.stop()
    }

    static func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }
}

/// `rtpdump serve` as a process, its memory read by the kernel, under the clients that grew it before: four that
/// send requests and never read, with and without an account. It stays under 100 MB (it went past 700 MB), a
/// viewer decodes every frame meanwhile, and it stays there once they leave.
@Suite(.serialized, .loadExclusive) struct ServeUnderAttackTests {
    /// The process's resident memory, in MB.
    static func residentMB(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        let kilobytes = try #require(Int(line.split(separator: " ").dropFirst().first ?? ""))
        return kilobytes / 1024
    }

    @Test(.enabled(if: RTPDumpBinary.present), arguments: [false, true])
    func memoryStaysBoundedUnderClientsThatNeverRead(authenticates: Bool) async throws {
        let account = ["--serve-user", "viewer", "--serve-password", "secret"]
        let served = try await ServeCommandTests.Served(
            ServeCommandTests.capture("h264-ffmpeg.pcap"), ["--loop"] + (authenticates ? account : []))
        let port = try #require(Int(served.url.split(separator: ":").last?.split(separator: "/").first ?? ""))
        let before = try Self.residentMB(served.processIdentifier)
        var flooders: [HostilePeer] = []
        for index in 0..<4 { flooders.append(try await HostilePeer(port: port, from: "127.0.0.\(10 + index)")) }
        let request = String(
            repeating: authenticates ? HostileClientTests.describe : HostileClientTests.options, count: 1000)
        async let floods = withTaskGroup(of: Int.self) { group in
            for flooder in flooders { group.addTask { await flooder.flood(request, for: .seconds(6)) } }
            return await group.reduce(0, +)
        }
        // A viewer decodes the capture's frames while they flood.
        let viewer = try await RTPDumpBinary.run(
            ["decode", served.url, "--md5", "--duration", "3"]
                + (authenticates ? ["--user", "viewer", "--password", "secret"] : []))
        #expect(viewer.status == 0, "\(viewer.stderr)")
        #expect(viewer.stdout.split(separator: "\n").count > 30)
        let sent = await floods
        let during = try Self.residentMB(served.processIdentifier)
        #expect(during < 100, "rtpdump serve at \(during) MB (from \(before) MB) after \(sent >> 20) MB of requests")
        for flooder in flooders { await flooder.close() }
        try await Task.sleep(for: .seconds(1))
        let after = try Self.residentMB(served.processIdentifier)
        #expect(after < 100 && after <= during + 10, "rtpdump serve at \(after) MB after the flooders left")
    }
}
