import Foundation
import NIOCore
import NIOPosix
@_spi(SansIO) import RTSP
import Testing

@testable import RTSPClient

/// The UDP sockets ask the kernel for the receive buffer the options name, so that a key picture's burst is
/// not dropped while the event loop is busy (Linux doubles what is asked, up to twice `rmem_max`).
@Suite(.enabled(if: FileManager.default.fileExists(atPath: "/proc/sys/net/core/rmem_max")))
struct UDPReceiveBufferTests {
    static func sysctl(_ name: String) -> Int {
        let text = (try? String(contentsOfFile: "/proc/sys/net/core/\(name)", encoding: .utf8)) ?? ""
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// SO_RCVBUF of a session's first RTP and RTCP sockets, playing over UDP with `bytes` asked.
    static func receiveBuffers(asking bytes: Int) async throws -> [Int] {
        let server = try await ScriptedServer { request, connection in
            if request.method == "SETUP" {
                let transport = request.header("Transport") ?? ""
                connection.respond(request, "200 OK", ["Session: 7", "Transport: \(transport);server_port=9-10"])
            } else {
                connection.answerNormally(request)
            }
        }
        defer { Task { await server.stop() } }
        var options = ScriptedServerTests.quick
        options.transport = .udp
        options.inactivityTimeout = .seconds(30)
        options.udpReceiveBufferBytes = bytes
        let session = try await RTSPSession.connect(to: server.url, options: options)
        let driver = session.driver
        let sizes: [Int] = try await driver.eventLoop.flatSubmit { () -> EventLoopFuture<[Int]> in
            guard let pair = driver.udpPairs.first else { return driver.eventLoop.makeSucceededFuture([Int]()) }
            return pair.rtp.getOption(.socketOption(.so_rcvbuf)).and(pair.rtcp.getOption(.socketOption(.so_rcvbuf)))
                .map { (rtp: SocketOptionValue, rtcp: SocketOptionValue) -> [Int] in [Int(rtp), Int(rtcp)] }
        }.get()
        await session.teardown()
        return sizes
    }

    @Test func theSocketsGetTheBufferAsked() async throws {
        let asked = 512 << 10
        let granted = 2 * min(asked, Self.sysctl("rmem_max"))
        #expect(try await Self.receiveBuffers(asking: asked) == [granted, granted])
    }

    @Test func zeroLeavesTheSystemsDefault() async throws {
        let standard = Self.sysctl("rmem_default")
        #expect(try await Self.receiveBuffers(asking: 0) == [standard, standard])
    }
}
