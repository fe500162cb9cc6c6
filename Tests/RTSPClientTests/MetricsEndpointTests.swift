import Foundation
import RTSPClient
import TestSupport
import Testing

/// `rtpdump serve … --metrics-port 0` scraped by Python's prometheus_client parser
/// (`Fixtures/scripts/scrape-metrics.py`): every series parses, and the viewers and bytes move as a viewer joins
/// and leaves.
@Suite(.serialized) struct MetricsEndpointTests {
    /// rtpdump serve with its metrics: the URL it printed on stdout and the metrics URL on stderr.
    final class Served: @unchecked Sendable {
        let url: String
        let metricsURL: String
        private let process: Process

        init(_ arguments: [String]) async throws {
            let started = try await onOwnThread { () -> (String, String, Process) in
                let process = Process()
                process.executableURL = URL(fileURLWithPath: RTPDumpBinary.path)
                process.arguments = arguments
                let output = Pipe()
                let errors = Pipe()
                process.standardOutput = output
                process.standardError = errors
                try process.run()
                let metrics = firstLine(of: errors.fileHandleForReading)
                return (firstLine(of: output.fileHandleForReading), metrics, process)
            }
            (url, process) = (started.0, started.2)
            metricsURL = started.1.hasPrefix("metrics: ") ? String(started.1.dropFirst(9)) : started.1
        }

        deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    }

    /// The samples the reference parser read, by `NAME{LABELS}`.
    static func scrape(_ url: String) async throws -> [String: Double] {
        let python = RealServer.root.appendingPathComponent(".build/metrics-venv/bin/python").path
        let script = RealServer.root.appendingPathComponent("Fixtures/scripts/scrape-metrics.py").path
        let run = try await runProgram(python, [script, url])
        #expect(run.status == 0, "prometheus_client could not parse the metrics: \(run.stderr)")
        var samples: [String: Double] = [:]
        for line in run.stdout.split(separator: "\n") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                continue
            }
            samples[String(line[..<space])] = value
        }
        return samples
    }

    @Test func servedMetricsParseAndMoveAsAViewerJoinsAndLeaves() async throws {
        let capture = RealServer.root.appendingPathComponent("Fixtures/captures/h264-gst.pcap").path
        let served = try await Served(["serve", capture, "--port", "0", "--loop", "--metrics-port", "0"])
        #expect(served.metricsURL.hasPrefix("http://127.0.0.1:") && served.metricsURL.hasSuffix("/metrics"))
        let viewers = "rtsp_server_viewers{path=/stream,transport=tcp}"
        let bytes = "rtsp_server_bytes_sent_total{path=/stream}"
        let before = try await Self.scrape(served.metricsURL)
        #expect(before[viewers] == nil)  // a path has metrics once played

        let session = try await RTSPSession.connect(to: served.url)
        var units = 0
        for try await _ in try session.accessUnits() {
            units += 1
            if units == 20 { break }
        }
        let playing = try await Self.scrape(served.metricsURL)
        #expect(playing[viewers] == 1)
        #expect(playing["rtsp_server_viewers{path=/stream,transport=udp}"] == 0)
        #expect((playing[bytes] ?? 0) > 10_000)
        await session.teardown()

        var after: [String: Double] = [:]
        for _ in 0..<100 {
            after = try await Self.scrape(served.metricsURL)
            if after[viewers] == 0 { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(after[viewers] == 0)
        #expect((after[bytes] ?? 0) >= (playing[bytes] ?? 0))
        #expect(after["rtsp_server_authentication_failures_total{}"] == 0)
    }

    @Test func metricsPortIsRefusedForACommandThatEnds() async throws {
        let capture = RealServer.root.appendingPathComponent("Fixtures/captures/h264-gst.pcap").path
        let run = try await RTPDumpBinary.run(["nals", capture, "--metrics-port", "0"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("--metrics-port is for what runs until stopped"), "\(run.stderr)")
    }
}
