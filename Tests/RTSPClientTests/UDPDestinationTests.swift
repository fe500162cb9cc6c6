import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
@_spi(SansIO) import RTSP
import RTSPClient
import Testing

/// With UDP, the client's first packets (which open a NAT) and its receiver reports go to the server it
/// connected to: a `source=` in the server's Transport answer names another host only when the user allows.
@Suite struct UDPDestinationTests {
    /// A UDP socket on `host` that counts the datagrams it receives.
    final class Listener: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let received = NIOLockedValueBox(0)
        var channel: (any Channel)?

        static func bind(host: String, port: Int = 0) async throws -> Listener {
            let listener = Listener()
            listener.channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelInitializer { $0.pipeline.addHandler(listener) }
                .bind(host: host, port: port).get()
            return listener
        }

        var port: Int { channel?.localAddress?.port ?? 0 }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) { received.withLockedValue { $0 += 1 } }
        func close() async { try? await channel?.close() }
    }

    /// Plays over UDP against a server whose SETUP answer names `source=127.0.0.3` and the ports of two
    /// listeners, one on the server's address and one on the named source; returns what each received.
    static func play(sendsToTransportSource: Bool) async throws -> (server: Int, source: Int) {
        let onServer = try await Listener.bind(host: "127.0.0.1")
        let onSource = try await Listener.bind(host: "127.0.0.3", port: onServer.port)
        let rtcpServer = try await Listener.bind(host: "127.0.0.1", port: onServer.port + 1)
        let rtcpSource = try await Listener.bind(host: "127.0.0.3", port: onServer.port + 1)
        let port = onServer.port
        let server = try await ScriptedServer { request, connection in
            if request.method == "SETUP" {
                let transport = request.header("Transport") ?? ""
                connection.respond(
                    request, "200 OK",
                    ["Session: 1234", "Transport: \(transport);source=127.0.0.3;server_port=\(port)-\(port + 1)"])
            } else {
                connection.answerNormally(request)
            }
        }
        var options = ScriptedServerTests.quick
        options.transport = .udp
        options.inactivityTimeout = .seconds(30)
        options.sendsToTransportSource = sendsToTransportSource
        let session = try await RTSPSession.connect(to: server.url, options: options)
        // The NAT-opening RTP and RTCP packets are sent as PLAY is answered; give them time to land.
        for _ in 0..<50 {
            let total = [onServer, onSource, rtcpServer, rtcpSource].map { $0.received.withLockedValue { $0 } }
            if total.reduce(0, +) >= 2 { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        await session.teardown()
        await server.stop()
        let counts = (
            server: onServer.received.withLockedValue { $0 } + rtcpServer.received.withLockedValue { $0 },
            source: onSource.received.withLockedValue { $0 } + rtcpSource.received.withLockedValue { $0 }
        )
        for listener in [onServer, onSource, rtcpServer, rtcpSource] { await listener.close() }
        return counts
    }

    @Test func packetsGoToTheServerNotToTheSourceItNames() async throws {
        let counts = try await Self.play(sendsToTransportSource: false)
        #expect(counts.server == 2)  // one RTP header and one receiver report
        #expect(counts.source == 0)
    }

    @Test func theSourceIsFollowedWhenTheUserAllowsIt() async throws {
        let counts = try await Self.play(sendsToTransportSource: true)
        #expect(counts.server == 0)
        #expect(counts.source == 2)
    }
}
