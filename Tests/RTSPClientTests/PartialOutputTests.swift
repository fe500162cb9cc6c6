import Foundation
import NIOCore
@_spi(SansIO) import RTSP
import TestSupport
import Testing

/// rtpdump prints what it gathered however its input ends: a live session that fails, or a signal, which
/// also tears the session down so that the camera frees its slot. Before, a failure printed nothing and
/// Ctrl-C killed the process with the session left open on the server.
@Suite(.enabled(if: RTPDumpBinary.present)) struct PartialOutputTests {
    @Test func aSessionThatFailsStillGetsItsTableThenTheError() async throws {
        let server = try await ScriptedServer { request, connection in
            connection.answerNormally(request)
            if request.method == "PLAY" {
                connection.sendRTP(count: 10)
                connection.close()
            }
        }
        defer { Task { await server.stop() } }
        let url = server.url
        let run = try await RTPDumpBinary.run(["streams", url, "--json"])
        #expect(run.status != 0)
        #expect(run.stdout.contains("\"ssrc\": 305419896") && run.stdout.contains("\"packets\": 10"))  // 0x12345678
        #expect(run.stderr.contains("closed the RTSP connection while playing"))
    }

    /// SIGINT, then SIGTERM, while a session plays: TEARDOWN reaches the server, the table is printed, and
    /// the exit status is 128 + the signal.
    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalTearsTheSessionDownAndPrintsTheTable(signal: Int32) async throws {
        let server = try await ScriptedServer { request, connection in
            connection.answerNormally(request)
            if request.method == "PLAY" { connection.streamRTP(every: .milliseconds(20)) }
        }
        defer { Task { await server.stop() } }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: RTPDumpBinary.path)
        process.arguments = ["streams", server.url]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        for _ in 0..<250 where !server.methods.contains("PLAY") { try await Task.sleep(for: .milliseconds(20)) }
        try await Task.sleep(for: .milliseconds(300))  // some packets
        kill(process.processIdentifier, signal)
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 128 + signal)
        #expect(server.methods.last == "TEARDOWN")
        #expect(stdout.contains("0x12345678"))
    }
}
