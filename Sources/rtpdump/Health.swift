import ArgumentParser
import Dispatch
import RTPDumpCore
import RTSPClient
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct Health: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Watch several cameras: a table of their state, frame rate, loss, bit rate and last keyframe.",
        discussion:
            "Each URL is played (its video) and kept playing: a camera that goes away is played again when it comes "
            + "back, one down at the start is waited for. Every --interval the table is drawn again in place on a "
            + "terminal, or printed after the last one otherwise, each figure over the interval. Ctrl-C or SIGTERM "
            + "tears every session down and exits (130, 143).")

    @Argument(help: "The cameras' RTSP URLs (rtsp://[user:password@]host[:port]/path).")
    var urls: [String]

    @Option(help: "How RTP travels: tcp (interleaved), udp, auto, multicast, or http.")
    var transport: RTSPSessionOptions.Transport = .tcp

    @Option(help: "Seconds between refreshes (default 1).")
    var interval: Double = 1

    @Option(help: "Stop after this many seconds (default: until interrupted).")
    var duration: Double?

    func validate() throws {
        guard !urls.isEmpty else { throw ValidationError("health watches at least one rtsp:// URL") }
        for url in urls {
            guard (try? RTSPURL(url)) != nil else {
                // What looks like user information is not printed: it may hold a password.
                let shown = InputOptions.userInfoRange(url).map {
                    String(url[..<$0.lowerBound]) + "…" + url[$0.upperBound...]
                }
                throw ValidationError("\(shown ?? url) is not an rtsp:// URL (rtsp://[user:password@]host[:port]/path)")
            }
        }
        guard interval >= 0.1 && interval <= 3600 else {
            throw ValidationError("--interval must be from 0.1 to 3600 seconds: \(interval)")
        }
        if let duration, !(duration > 0 && duration <= InputOptions.maxDuration) {
            throw ValidationError("--duration must be a number of seconds above 0 and at most a year: \(duration)")
        }
    }

    func run() throws {
        var options = RTSPSessionOptions(transport: transport)
        options.mediaKinds = [.video]
        options.reconnection = .init(maxDelay: .seconds(5), includesFirstConnect: true)
        options.logger = DiagnosticLog.logger
        let cameras = urls.map { CameraWatch(url: $0, options: options) }
        let stopped = Stop()
        let watching = cameras.map { camera in Task { await camera.watch() } }
        let interval = self.interval
        let duration = self.duration
        let onTerminal = isatty(1) == 1
        let signal = try waitFor { () async -> Int32 in
            let started = ContinuousClock.now
            var samples = cameras.map { _ in CameraWatch.Sample() }
            while true {
                try? await Task.sleep(for: .milliseconds(Int64(interval * 1000)))
                var rows: [HealthTable.Row] = []
                for (index, camera) in cameras.enumerated() {
                    let (row, sample) = await camera.row(since: samples[index])
                    rows.append(row)
                    samples[index] = sample
                }
                let table = HealthTable.render(rows)
                print(onTerminal ? "\u{1B}[H\u{1B}[J" + table : table, terminator: onTerminal ? "" : "\n")
                fflush(nil)
                let signal = stopped.received.load(ordering: .relaxed)
                if signal != 0 { return signal }
                if let duration, ContinuousClock.now - started >= .milliseconds(Int64(duration * 1000)) { return 0 }
            }
        }
        for task in watching { task.cancel() }
        waitFor { for camera in cameras { await camera.stop() } }
        if signal != 0 { throw ExitCode(128 + signal) }
    }

    /// The signal that stopped it (0: none yet), set by SIGINT and SIGTERM instead of ending the process.
    final class Stop: Sendable {
        let received = Atomic<Int32>(0)
        /// The dispatch sources that set it, kept as long as it lives.
        nonisolated(unsafe) private var sources: [any DispatchSourceSignal] = []

        init() {
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { [self] in received.store(number, ordering: .relaxed) }
                source.resume()
                sources.append(source)
            }
        }
    }
}

/// One camera watched: its session (played again after each break), the units it gave and when its last keyframe
/// came, sampled each interval into a row.
final class CameraWatch: Sendable {
    let url: String
    let name: String
    let options: RTSPSessionOptions
    private let state = Mutex(State())

    struct State {
        var session: RTSPSession?
        var isUp = false
        var ended = false
        var units = 0
        var lastKeyframe: ContinuousClock.Instant?
    }

    /// What a row was computed from, to compute the next one's differences.
    struct Sample {
        var at = ContinuousClock.now
        var units = 0
        var packets: UInt64 = 0
        var lost: Int64 = 0
        var bytes: UInt64 = 0
    }

    init(url: String, options: RTSPSessionOptions) {
        self.url = url
        self.options = options
        name = (try? RTSPURL(url))?.description ?? "the RTSP URL"
    }

    /// Plays the camera until cancelled or its session ends for good.
    func watch() async {
        guard let session = try? await RTSPSession.connect(to: url, options: options) else {
            return state.withLock { $0.ended = true }
        }
        state.withLock {
            $0.session = session
            $0.isUp = true
        }
        let events = Task {
            for await event in session.events {
                switch event {
                case .playing, .resumed: state.withLock { $0.isUp = true }
                case .broke, .retrying: state.withLock { $0.isUp = false }
                case .ended: state.withLock { $0.ended = true }
                case .stalled, .recovered, .lossy, .lossCleared: break
                case .parameterSetsChanged, .resolutionChanged, .clockJumped: break
                }
            }
        }
        do {
            for try await unit in try session.accessUnits() {
                state.withLock { state in
                    state.units += 1
                    if unit.isKeyframe { state.lastKeyframe = .now }
                }
            }
        } catch {}
        state.withLock { $0.ended = true }
        events.cancel()
    }

    func stop() async {
        if let session = state.withLock({ $0.session }) { await session.teardown() }
    }

    /// The camera's row over the time since `previous`, and the sample it starts the next one from.
    func row(since previous: Sample) async -> (HealthTable.Row, Sample) {
        let now = state.withLock { $0 }
        guard let session = now.session else {
            return (.init(camera: name, state: now.ended ? "ended" : "connecting"), previous)
        }
        let statistics = await session.statistics()
        var sample = Sample(units: now.units)
        for track in statistics.tracks {
            sample.packets += track.packets
            sample.lost += track.lost
            sample.bytes += track.bytes
        }
        let seconds =
            Double((sample.at - previous.at).components.seconds)
            + Double((sample.at - previous.at).components.attoseconds) / 1e18
        let expected = Double(sample.packets - previous.packets) + Double(sample.lost - previous.lost)
        let row = HealthTable.Row(
            camera: name, state: now.ended ? "ended" : now.isUp ? "up" : "down",
            framesPerSecond: Double(sample.units - previous.units) / seconds,
            loss: expected > 0 ? max(0, Double(sample.lost - previous.lost)) / expected : nil,
            kilobitsPerSecond: Double(sample.bytes - previous.bytes) * 8 / 1000 / seconds,
            keyframeAge: now.lastKeyframe.map { last in
                let age = ContinuousClock.now - last
                return Double(age.components.seconds) + Double(age.components.attoseconds) / 1e18
            },
            reconnects: statistics.reconnects)
        return (row, sample)
    }
}
