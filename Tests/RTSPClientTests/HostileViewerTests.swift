import Foundation
@_spi(SansIO) import ICE
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SwiftRTP
import TestSupport
import Testing

/// WebRTC viewers that are not what they say: offers that never start ICE fill only the pending viewers' places
/// (the rest are told 503) and expire; an offer of megabytes is refused unread; STUN from an address with no offer
/// behind it is answered with nothing.
@Suite(.serialized) struct HostileViewerTests {
    static let offer = RealServer.root.appendingPathComponent("Tests/WebRTCTests/Offers/chromium-recvonly.sdp").path

    static func server(_ configure: (inout WebRTCServer.Configuration) -> Void = { _ in }) async throws -> WebRTCServer
    {
        var configuration = WebRTCServer.Configuration(httpPort: 0, host: "127.0.0.1")
        configure(&configuration)
        let server = try WebRTCServer(configuration: configuration)
        server.mount(try MediaSource(video: .h264), at: "/cam")
        try await server.start()
        return server
    }

    /// POSTs `count` times, from one curl (so that a busy machine's process starts do not space them out); the
    /// statuses in order.
    static func post(_ url: String, _ arguments: [String], count: Int = 1) async throws -> [Int] {
        let each =
            ["-s", "-o", "/dev/null", "-w", "%{http_code}\\n", "-X", "POST", "-H", "Content-Type: application/sdp"]
            + arguments + [url]
        let run = try await runProgram(
            "/usr/bin/curl", ["--max-time", "30"] + Array(repeating: each, count: count).joined(separator: ["--next"]))
        return run.stdout.split(separator: "\n").compactMap { Int($0) }
    }

    @Test func offersThatNeverStartFillOnlyThePendingPlacesAndExpire() async throws {
        let server = try await Self.server {
            $0.maxPendingViewers = 4
            $0.viewerSetupTimeout = .seconds(3)
        }
        let url = "http://127.0.0.1:\(try #require(server.httpPort))/cam/whep"
        let statuses = try await Self.post(url, ["--data-binary", "@\(Self.offer)"], count: 10)
        #expect(statuses == Array(repeating: 201, count: 4) + Array(repeating: 503, count: 6))
        // Unchecked, they are closed at their setup timeout; their places are free again.
        var again = [503]
        for _ in 0..<60 where again != [201] {
            try await Task.sleep(for: .milliseconds(250))
            again = try await Self.post(url, ["--data-binary", "@\(Self.offer)"])
        }
        #expect(again == [201])
        await server.stop()
    }

    /// A source that has ended is said to have, not answered with a viewer that would be sent nothing.
    @Test func anEndedSourceIsRefused() async throws {
        let source = try MediaSource(video: .h264)
        let server = try WebRTCServer(configuration: .init(httpPort: 0, host: "127.0.0.1"))
        server.mount(source, at: "/cam")
        try await server.start()
        source.finish(lingering: .zero)
        let url = "http://127.0.0.1:\(try #require(server.httpPort))/cam/whep"
        #expect(try await Self.post(url, ["--data-binary", "@\(Self.offer)"]) == [503])
        await server.stop()
    }

    @Test func anOfferOfMegabytesIsRefused() async throws {
        let server = try await Self.server()
        let url = "http://127.0.0.1:\(try #require(server.httpPort))/cam/whep"
        let big = FileManager.default.temporaryDirectory.appendingPathComponent("offer-\(UUID().uuidString).sdp").path
        defer { try? FileManager.default.removeItem(atPath: big) }
        try Data(repeating: 0x61, count: 4 << 20).write(to: URL(fileURLWithPath: big))
        #expect(try await Self.post(url, ["--data-binary", "@\(big)"]) == [413])
        await server.stop()
    }

    /// The HTTP side's budget per connection: one that sends nothing (or never finishes its request) is closed after
    /// the idle timeout; past the connections allowed, a new one is closed at once.
    @Test func httpConnectionsThatHoldOnAreClosed() async throws {
        let server = try await Self.server {
            $0.httpIdleTimeout = .milliseconds(500)
            $0.maxHTTPConnections = 3
        }
        let port = try #require(server.httpPort)
        let closed = NIOLockedValueBox(0)
        var connections: [any Channel] = []
        for _ in 0..<4 {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: port).get()
            channel.closeFuture.whenComplete { _ in closed.withLockedValue { $0 += 1 } }
            connections.append(channel)
        }
        // A slow client: half a request, then nothing.
        try await connections[0].writeAndFlush(ByteBuffer(string: "POST /cam/whep HTTP/1.1\r\nHost: x\r\n"))
        // The fourth is closed at once; the three held are closed when their 500 ms pass.
        var waited = 0
        while closed.withLockedValue({ $0 }) < 4 && waited < 100 {
            try await Task.sleep(for: .milliseconds(100))
            waited += 1
        }
        #expect(closed.withLockedValue { $0 } == 4)
        // Their places are free again: a WHEP request gets its answer.
        #expect(try await Self.post("http://127.0.0.1:\(port)/cam/whep", ["--data-binary", "@\(Self.offer)"]) == [201])
        await server.stop()
    }

    /// Checks for usernames no offer gave, and bytes that are no protocol, sent to the viewers' UDP port: nothing
    /// comes back (a reply within a second would be caught; the port stays open for a right one).
    @Test func stunFromStrangersGetsNoAnswer() async throws {
        let server = try await Self.server()
        let port = try #require(server.udpPort)
        let replies = NIOLockedValueBox(0)
        let client = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Counter(replies))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let target = try SocketAddress(ipAddress: "127.0.0.1", port: port)
        let stranger = STUNMessage(
            .request, transactionID: [UInt8](repeating: 7, count: 12), attributes: [.username("nobody:else")]
        ).serialized(integrityKey: Array("password".utf8))
        for datagram in [
            stranger, [UInt8](repeating: 0x16, count: 100), [0x80, 0xC8] + [UInt8](repeating: 0, count: 40),
        ] {
            try await client.writeAndFlush(AddressedEnvelope(remoteAddress: target, data: ByteBuffer(bytes: datagram)))
        }
        try await Task.sleep(for: .seconds(1))
        #expect(replies.withLockedValue { $0 } == 0)
        try await client.close()
        await server.stop()
    }

    final class Counter: ChannelInboundHandler, Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let count: NIOLockedValueBox<Int>
        init(_ count: NIOLockedValueBox<Int>) { self.count = count }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) { count.withLockedValue { $0 += 1 } }
    }
}
