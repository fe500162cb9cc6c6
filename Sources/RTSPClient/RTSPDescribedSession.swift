import NIOConcurrencyHelpers
import NIOCore
@_spi(SansIO) import RTSP
import SDP

/// An RTSP session the server has described and that does not play yet
/// (``RTSPSession/describe(_:options:)-(String,_)``):
/// choose the tracks with ``setup(tracks:)``, then ``play()`` gives the playing ``RTSPSession``.
///
/// Keepalives run from SETUP on. Dropping it before ``play()``, or cancelling the task that awaits a step,
/// tears the session down.
public final class RTSPDescribedSession: Sendable {
    /// The URL described, without credentials.
    public let url: RTSPURL
    /// The session description of the DESCRIBE answer.
    public let sessionDescription: SessionDescription?
    /// The video and audio tracks offered (of ``RTSPSessionOptions/mediaKinds``, in codecs this library
    /// takes), in the order of the session description, with their formats
    /// and control URLs: what ``setup(tracks:)`` chooses from.
    public let offeredTracks: [RTSPTrack]
    let driver: SessionDriver
    /// ``play()`` handed the driver to an ``RTSPSession``, which ends it from then on.
    private let handedOver = NIOLockedValueBox(false)

    init(driver: SessionDriver, offeredTracks: [RTSPTrack]) async throws {
        var url = driver.url
        url.credentials = nil
        self.url = url
        self.driver = driver
        self.offeredTracks = offeredTracks
        self.sessionDescription = try await driver.eventLoop.submit { driver.sessionDescription }.get()
    }

    deinit {
        guard !handedOver.withLockedValue({ $0 }) else { return }
        let driver = self.driver
        driver.eventLoop.execute { driver.teardown() }
    }

    /// Sets up the offered tracks at `indices` into ``offeredTracks`` (nil: all), in the order offered, and
    /// returns them with the transports the server agreed on; they become the playing session's tracks,
    /// numbered in that order.
    ///
    /// - Throws: ``RTSPClientError`` `.invalidCall` for an index that was not offered, an empty list, or a
    ///   second call (the session goes on); other codes when the server refuses (the session is over).
    @discardableResult
    public func setup(tracks indices: [Int]? = nil) async throws -> [RTSPTrack] {
        if let indices {
            guard !indices.isEmpty, indices.allSatisfy(offeredTracks.indices.contains) else {
                throw RTSPClientError(
                    .invalidCall,
                    "setup(tracks: \(indices)) names no track or one not offered; \(offeredTracks.count) were offered"
                        + " (0..<\(offeredTracks.count))")
            }
        }
        let driver = self.driver
        return try await driver.awaitStep { () throws(RTSPClientError) in try driver.setup(selection: indices) }
    }

    /// PLAY; returns the playing session once the server has answered. From then on the returned session
    /// owns the media and the teardown.
    ///
    /// - Throws: ``RTSPClientError`` `.invalidCall` before ``setup(tracks:)`` or when called twice; other
    ///   codes when the server refuses (the session is over).
    public func play() async throws -> RTSPSession {
        let driver = self.driver
        let tracks = try await driver.awaitStep { () throws(RTSPClientError) in try driver.play() }
        let first = handedOver.withLockedValue { handed in
            defer { handed = true }
            return !handed
        }
        guard first else {
            throw RTSPClientError(.invalidCall, "play() was already called: use the session it returned")
        }
        return try await RTSPSession(playing: driver, tracks: tracks)
    }

    /// Sends TEARDOWN (when something was set up) and closes the connection.
    public func teardown() async {
        let driver = self.driver
        driver.eventLoop.execute { driver.teardown() }
        try? await driver.closed.futureResult.get()
    }
}
