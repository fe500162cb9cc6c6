import Foundation
import TestSupport
import Testing

/// `rtpdump` on rtsp:// URLs, against the real server: what a user types and sees.
@Suite struct RTPDumpURLTests {
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> ProgramRun {
        try RTPDumpBinary.run(arguments, environment: environment)
    }

    @Test func aWrongPasswordExitsNonZeroNamingThe401AndNeverShowsThePassword() throws {
        let server = try RealServer(["--auth", "digest", "--user", "viewer", "--password", "right-one"])
        defer { server.stop() }
        let inURL = try Self.run(["streams", "rtsp://viewer:Wr0ngPass@127.0.0.1:\(server.port)/test"])
        #expect(inURL.status != 0)
        #expect(inURL.stderr.contains("401 Unauthorized"))
        #expect(!inURL.all.contains("Wr0ngPass"))
        let asOption = try Self.run(["decode", server.url, "--md5", "--user", "viewer", "--password", "Wr0ngPass"])
        #expect(asOption.status != 0)
        #expect(asOption.stderr.contains("401 Unauthorized"))
        #expect(!asOption.all.contains("Wr0ngPass"))
    }

    @Test func decodesOverUDPWithThePasswordFromTheEnvironment() throws {
        let server = try RealServer([
            "--auth", "basic", "--user", "viewer", "--password", "right-one", "--frames", "60",
        ])
        defer { server.stop() }
        let run = try Self.run(
            ["decode", server.url, "--md5", "--transport", "udp", "--user", "viewer"],
            environment: ["RTPDUMP_PASSWORD": "right-one"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect((58...60).contains(lines.count))
        #expect(lines.allSatisfy { $0.split(separator: " ")[2] == "320x240" })
        #expect(!run.all.contains("right-one"))
    }

    @Test func durationStopsALongStream() throws {
        let server = try RealServer(["--frames", "900"])
        defer { server.stop() }
        let start = Date()
        let run = try Self.run(["streams", server.url, "--duration", "1.5", "--json"])
        let elapsed = Date().timeIntervalSince(start)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(elapsed < 5)
        let rows = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]]
        let packets = rows?.first?["packets"] as? Int ?? 0
        #expect(packets > 100)
    }
}
