import NIOCore
import NIOPosix
@_spi(SansIO) import RTSP

/// Making a driver, and waiting for the steps of a session (describe, setup, play) from async code.
extension SessionDriver {
    /// A driver for `url` on the next event loop, its UDP ports bound when the transport may use them, and
    /// the session torn down when the packet sequence's consumer goes away.
    static func prepare(url: RTSPURL, options: RTSPSessionOptions) async throws -> SessionDriver {
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let driver = SessionDriver(url: url, options: options, eventLoop: eventLoop)
        driver.continuation.onTermination = { _ in eventLoop.execute { driver.teardown() } }
        if options.transport == .udp || options.transport == .auto {
            let host = url.host.contains(":" as Character) ? "::" : "0.0.0.0"
            let pairs = try await UDPPortPairs.bind(
                count: UDPPortPairs.maxTracks, first: options.firstUDPPort, host: host,
                receiveBufferBytes: options.udpReceiveBufferBytes, on: eventLoop, driver: driver)
            try await eventLoop.submit { driver.udpPairs = pairs }.get()
        }
        return driver
    }

    /// Runs `step` on the event loop with a step request waiting, and returns the tracks it ends with; what
    /// `step` throws fails it at once. Cancelling the task tears the session down.
    func awaitStep(
        _ step: @escaping @Sendable () throws(RTSPClientError) -> Void
    ) async throws -> [RTSPTrack] {
        let promise = eventLoop.makePromise(of: [RTSPTrack].self)
        return try await withTaskCancellationHandler {
            eventLoop.execute { [self] in
                if phase == .closed || phase == .closing {
                    return promise.fail(RTSPClientError(.connectionClosed, "the session is over"))
                }
                guard stepRequest == nil else {
                    return promise.fail(RTSPClientError(.invalidCall, "another step of the session is under way"))
                }
                stepRequest = promise
                // Retrying the first connect waits for the camera as long as it takes (each attempt is
                // bounded); otherwise the whole step is.
                if options.reconnection?.includesFirstConnect != true { armDeadline(for: promise) }
                do throws(RTSPClientError) {
                    try step()
                } catch {
                    stepRequest = nil
                    promise.fail(error)
                }
            }
            return try await promise.futureResult.get()
        } onCancel: {
            eventLoop.execute { [self] in teardown() }
        }
    }

    /// Bounds a step (connect to PLAY's answer, or one step of a stepwise session, redirects and fallback
    /// included) by ``RTSPSessionOptions/setupTimeout``: however slowly each request is answered, the caller
    /// hears within that time. On the event loop.
    private func armDeadline(for promise: EventLoopPromise<[RTSPTrack]>) {
        let timeout = options.setupTimeout
        let deadline = eventLoop.scheduleTask(in: .init(timeout)) { [self] in
            guard let request = stepRequest, request.futureResult === promise.futureResult else { return }
            let error = RTSPClientError(
                .timeout,
                "the server did not set the session up within \(timeout) (setupTimeout); it answers too slowly or"
                    + " not at all: try again, or allow more time")
            stepRequest = nil
            promise.fail(error)
            teardown(reporting: error)
        }
        promise.futureResult.whenComplete { _ in deadline.cancel() }
    }
}
