import MP4
import MediaPipeline
import ServiceLifecycle
import Synchronization

/// A camera recorded to fragmented MP4 until told to stop: a swift-service-lifecycle `Service`, for a
/// `ServiceGroup` that runs it beside a server and shuts everything down in order on SIGTERM.
///
/// ```swift
/// var options = RTSPSessionOptions()
/// options.reconnection = .init()  // a camera that restarts is recorded on, in the same file
/// let recorder = SessionRecorder("rtsp://camera.local/stream", options: options, to: "/recordings/door.mp4")
/// let group = ServiceGroup(services: [recorder], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
///
/// `run()` plays the session, writes each fragment as it closes (``MP4FileRecorder``), and on graceful shutdown or
/// cancellation tears the session down (TEARDOWN to the camera), writes what the writer still holds and closes the
/// file: what is on disk then plays whole. A session that fails ends the recording the same way, then `run()`
/// throws its error.
public final class SessionRecorder: Service, Sendable {
    /// The camera's URL.
    public let url: String
    /// How the session connects (``RTSPSessionOptions/reconnection`` to go on across breaks). Its
    /// ``RTSPSessionOptions/metricsName`` names the recording's metrics too.
    public let options: RTSPSessionOptions
    /// The file, or the stem of the files with `segmented`: `OUT.mp4`, or `OUT-00001.mp4`, ...
    public let path: String
    public let segmented: Bool
    public let configuration: FragmentedMP4Writer.Configuration
    public let retention: RecordingRetention?
    private let written = Mutex<[String]>([])

    /// A recorder of `url` to files named from `path`, as ``MP4FileRecorder`` names them.
    public init(
        _ url: String, options: RTSPSessionOptions = .init(), to path: String, segmented: Bool = false,
        configuration: FragmentedMP4Writer.Configuration = .init(), retention: RecordingRetention? = nil
    ) {
        self.url = url
        self.options = options
        self.path = path
        self.segmented = segmented
        self.configuration = configuration
        self.retention = retention
    }

    /// The files written so far.
    public var files: [String] { written.withLock { $0 } }

    /// Records until graceful shutdown, cancellation, or the session's end.
    public func run() async throws {
        guard let session = try await RTSPSession.connectUntilShutdown(to: url, options: options) else { return }
        var writer = FragmentedMP4Writer(formats: session.tracks.map(\.format), configuration: configuration)
        var files = MP4FileRecorder(
            path: path, segmented: segmented, retention: retention, metricsName: options.metricsName,
            metricsFactory: options.metricsFactory)
        let failure = await session.playUntilShutdown {
            try writer.append($0) { try files.write($0) }
        } afterEach: {
            written.withLock { $0 = files.files }
        }
        try writer.finish { try files.write($0) }
        try files.close()
        written.withLock { $0 = files.files }
        if let failure { throw failure }
    }
}

extension RTSPSession {
    /// Connects as ``connect(to:options:)-(String,_)`` does, unless a graceful shutdown comes first: then the
    /// connecting is given up (the session torn down) and the result is nil. A service that waits for its camera
    /// (``RTSPSessionOptions/Reconnection/includesFirstConnect``, as long as it takes) must not hold its group's
    /// shutdown until the camera answers.
    package static func connectUntilShutdown(to url: String, options: RTSPSessionOptions) async throws -> RTSPSession?
    {
        do {
            return try await cancelWhenGracefulShutdown { try await RTSPSession.connect(to: url, options: options) }
        } catch where Task.isShuttingDownGracefully {
            return nil
        }
    }

    /// Each unit of ``media(tracks:reorder:audioReorder:)`` to `body` (then `afterEach`) until graceful shutdown or
    /// cancellation (which tear the session down: TEARDOWN to the camera), the session's end, or an error; the session
    /// is torn down after. Returns the error that ended it, if one did: what a service of a session (a relay, a
    /// recorder) does before it closes what it feeds.
    package func playUntilShutdown(
        _ body: (MediaUnit) throws -> Void, afterEach: () -> Void = {}
    ) async -> (any Error)? {
        var failure: (any Error)?
        await withTaskCancellationOrGracefulShutdownHandler {
            do {
                for try await unit in try media() {
                    try body(unit)
                    afterEach()
                }
            } catch {
                failure = error
            }
        } onCancelOrGracefulShutdown: {
            Task { await self.teardown() }
        }
        await teardown()
        return failure
    }
}
