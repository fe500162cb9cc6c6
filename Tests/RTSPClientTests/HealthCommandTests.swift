import Foundation
import TestSupport
import Testing

/// `rtpdump health` watching two gst-rtsp-servers, one stopped and started again while it runs: its tables (printed
/// one after another when stdout is not a terminal) say the one went down and came back, reconnected once, while the
/// other stayed up at the camera's 30 frames a second; Ctrl-C ends it with 130; credentials in a URL are never
/// printed.
@Suite(.serialized) struct HealthCommandTests {
    /// Each table printed: per camera, its cells.
    static func tables(_ output: String) -> [[String: [String]]] {
        output.components(separatedBy: "\n\n").compactMap { block in
            let lines = block.split(separator: "\n").filter { !$0.hasPrefix("CAMERA") }
            guard !lines.isEmpty else { return nil }
            var rows: [String: [String]] = [:]
            for line in lines {
                let cells = line.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }
                    .filter { !$0.isEmpty }
                if let camera = cells.first { rows[camera] = Array(cells.dropFirst()) }
            }
            return rows
        }
    }

    /// rtpdump's standard output as it comes, read on a thread of its own.
    final class Output: @unchecked Sendable {  // `text` only under `lock`
        private let lock = NSLock()
        private var text = ""

        init(_ handle: FileHandle) {
            Thread {
                while case let chunk = handle.availableData, !chunk.isEmpty {
                    self.lock.withLock { self.text += String(decoding: chunk, as: UTF8.self) }
                }
            }.start()
        }

        var tables: [[String: [String]]] { HealthCommandTests.tables(lock.withLock { text }) }
        var all: String { lock.withLock { text } }

        /// Waits (up to `seconds`) until a table printed after the first `after` ones satisfies `condition`; returns
        /// the count of tables then.
        func wait(
            after: Int = 0, seconds: Double = 60, until condition: ([String: [String]]) -> Bool
        ) async throws -> Int {
            for _ in 0..<Int(seconds * 20) {
                let tables = self.tables
                if tables.dropFirst(after).contains(where: condition) { return tables.count }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw ServerError(description: "no such table in rtpdump health's output:\n\(all)")
        }
    }

    @Test func aRestartedCameraIsToldDownThenUpAgain() async throws {
        let steady = try await RealServer(["--frames", "100000", "--lifetime", "120"])
        defer { steady.stop() }
        var restarted = try await RealServer(["--frames", "100000", "--lifetime", "120"])
        defer { restarted.stop() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: RTPDumpBinary.path)
        process.arguments = [
            "health", steady.url, "rtsp://user:secret@127.0.0.1:\(restarted.port)/test", "--interval", "0.5",
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let output = Output(pipe.fileHandleForReading)
        let name = "rtsp://127.0.0.1:\(restarted.port)/test"
        func state(_ table: [String: [String]], _ camera: String) -> String? { table[camera]?.first }

        // Each step is driven by what it printed: on a busy machine it starts, and sees, late.
        var seen = try await output.wait { state($0, name) == "up" && state($0, steady.url) == "up" }
        restarted.stop()
        seen = try await output.wait(after: seen) { state($0, name) == "down" }
        restarted = try await restarted.restarted(["--frames", "100000", "--lifetime", "120"])
        seen = try await output.wait(after: seen) { state($0, name) == "up" && $0[name]?.last == "1" }
        _ = try await output.wait(after: seen) { _ in true }  // one more refresh, then Ctrl-C
        kill(process.processIdentifier, SIGINT)
        for _ in 0..<200 where process.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!process.isRunning && process.terminationStatus == 130)
        #expect(!output.all.contains("secret"))
        let last = try #require(output.tables.last)
        #expect(state(last, steady.url) == "up" && last[steady.url]?.last == "0")
        // The camera's 30 frames a second, on average over the run (a busy machine bunches them between refreshes).
        let rates = output.tables.dropFirst().compactMap {
            $0[steady.url].flatMap { $0.count > 1 ? Double($0[1]) : nil }
        }
        let mean = rates.reduce(0, +) / Double(max(1, rates.count))
        #expect(rates.count >= 4 && mean > 20 && mean < 40, "\(rates)")
    }

    @Test func anArgumentThatIsNotAnRTSPURLIsRefused() async throws {
        let run = try await RTPDumpBinary.run(["health", "camera.local"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("is not an rtsp:// URL"), "\(run.stderr)")
    }
}
