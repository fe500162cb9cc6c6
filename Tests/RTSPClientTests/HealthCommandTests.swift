import Foundation
import TestSupport
import Testing

/// `rtpdump health` watching two gst-rtsp-servers, one stopped and started again while it runs: its tables (printed
/// one after another when stdout is not a terminal) say the one went down and came back, reconnected once, while the
/// other stayed up at the camera's 30 frames a second; credentials in a URL are never printed.
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

    @Test func aRestartedCameraIsToldDownThenUpAgain() async throws {
        let steady = try await RealServer(["--frames", "100000", "--lifetime", "120"])
        defer { steady.stop() }
        var restarted = try await RealServer(["--frames", "100000", "--lifetime", "120"])
        defer { restarted.stop() }
        let watched = "rtsp://user:secret@127.0.0.1:\(restarted.port)/test"
        let running = Task {
            try await RTPDumpBinary.run(["health", steady.url, watched, "--interval", "0.5", "--duration", "9"])
        }
        try await Task.sleep(for: .seconds(3))
        restarted.stop()
        try await Task.sleep(for: .seconds(2))
        restarted = try await restarted.restarted(["--frames", "100000", "--lifetime", "120"])
        let run = try await running.value
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stdout.contains("secret"))

        let tables = Self.tables(run.stdout)
        let name = "rtsp://127.0.0.1:\(restarted.port)/test"
        #expect(tables.count >= 14, "\(tables.count) tables")
        let states = tables.compactMap { $0[name]?.first }
        let firstDown = try #require(states.firstIndex(of: "down"), "never down: \(states)")
        #expect(states[..<firstDown].contains("up"))
        #expect(states[firstDown...].contains("up"), "not up again: \(states)")
        let last = try #require(tables.last)
        #expect(last[name]?.last == "1", "reconnects: \(last[name] ?? [])")
        #expect(last[steady.url]?.first == "up" && last[steady.url]?.last == "0")
        let fps = last[steady.url].flatMap { $0.count > 1 ? Double($0[1]) : nil } ?? 0
        #expect(fps > 20 && fps < 40, "\(last[steady.url] ?? [])")
    }

    @Test func anArgumentThatIsNotAnRTSPURLIsRefused() async throws {
        let run = try await RTPDumpBinary.run(["health", "camera.local"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("is not an rtsp:// URL"), "\(run.stderr)")
    }
}
