import MediaPipeline
import RTSPClient
import ServiceLifecycle

/// A camera relayed: one session to it, its units served at a path of an ``RTSPServer`` to any number of viewers (a
/// swift-service-lifecycle `Service`).
///
/// ```swift
/// let server = RTSPServer(configuration: .init(port: 8554))
/// let relay = RTSPRelay("rtsp://camera.local/stream", server: server, path: "/door")
/// let group = ServiceGroup(services: [server, relay], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()  // rtsp://this-host:8554/door, until SIGTERM
/// ```
///
/// `run()` connects, mounts a ``MediaSource`` of the session's tracks at `path` and pushes each unit to it as it
/// completes; with `talk`, it also sets the camera's ONVIF audio backchannel up and serves it to the viewers that ask
/// for it (a ``Talkback``: one talker at a time, the camera hears what they send, in its own codec). On graceful
/// shutdown or cancellation it tears the session down (TEARDOWN to the camera), finishes the source (each viewer
/// gets its tracks' RTCP BYE) and unmounts it; a graceful shutdown while it still connects ends it at once. A
/// session that fails ends it the same way, then `run()` throws its error: give the session
/// ``RTSPSessionOptions/reconnection`` to ride out a camera's restarts.
/// The server's ``RTSPServer/events()`` tell when the camera is lost (a break or a stall) and back.
public final class RTSPRelay: Service, Sendable {
    public let url: String
    public let options: RTSPSessionOptions
    public let server: RTSPServer
    /// Where it is served, as ``RTSPServer/mount(_:at:)`` normalizes it.
    public let path: String
    /// Whether viewers may talk to the camera through its backchannel.
    public let talk: Bool

    /// A relay of `url` at `path` of `server`; with `talk`, its viewers that ask for the ONVIF backchannel talk to the
    /// camera's (``RTSPSessionOptions/backchannel`` is then asked of the camera: one without a backchannel fails the
    /// session, saying so).
    public init(
        _ url: String, options: RTSPSessionOptions = .init(), server: RTSPServer, path: String, talk: Bool = false
    ) {
        self.url = url
        self.options = options
        self.server = server
        self.path = path
        self.talk = talk
    }

    /// Relays until graceful shutdown, cancellation, or the session's end.
    ///
    /// - Throws: what connecting throws (``RTSPClientError``), ``PacketizerError`` for a track the server cannot send
    ///   (leave its kind out of ``RTSPSessionOptions/mediaKinds``), `AudioError` for a backchannel in a codec this
    ///   library does not take frames of, and the session's error when it fails later.
    public func run() async throws {
        var options = options
        if talk { options.backchannel = true }
        guard let session = try await RTSPSession.connectUntilShutdown(to: url, options: options) else { return }
        let source: MediaSource
        let talkback: Talkback?
        do {
            // The backchannel is what viewers send, not a track the camera sends.
            source = try MediaSource(formats: session.tracks.filter { !$0.isBackchannel }.map(\.format))
            talkback = try session.backchannel.map { backchannel in
                try Talkback(format: backchannel.format) { backchannel.send($0) }
            }
        } catch {
            await session.teardown()
            throw error
        }
        let served = server.mount(source, at: path, talkback: talkback)
        let watching = Task { [server] in await Self.tell(session.events, at: served, to: server.viewerEvents) }
        let failure = await session.playUntilShutdown { source.push($0) }
        watching.cancel()
        source.finish(lingering: .zero)
        server.unmount(served)
        if let failure { throw failure }
    }

    /// Tells a session's breaks and stalls as the source at `path` lost, once until it is back.
    private static func tell(_ events: AsyncStream<RTSPSessionEvent>, at path: String, to server: ServerEvents) async {
        var lost = false
        for await event in events {
            switch event {
            case .broke(let error) where !lost:
                lost = true
                server.tell(.sourceLost(path: path, reason: error.reason))
            case .stalled(let silence) where !lost:
                lost = true
                server.tell(.sourceLost(path: path, reason: "no media for \(silence)"))
            case .resumed(let gap) where lost, .recovered(let gap) where lost:
                lost = false
                server.tell(.sourceBack(path: path, gap: gap))
            default:
                break
            }
        }
    }
}
